/* Unit tests for ldv/hp_ldv_sort_sigsafe.c: the protect pass's in-place
 * sort of address-index entries (Note [Eight-byte entries]). Each case
 * sorts entries whose granules are drawn to exercise one part of it (one
 * level, the 8-bit levels below the first, buckets finished by insertion,
 * keys over all 32 bits, the small-sort path) and checks the result
 * against qsort of a copy: the same entries (granule and idx, with its
 * flag, together), in increasing granule. */
#include <criterion/criterion.h>

#include "test_rand.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ldv/hp_ldv_internal.h"


static int by_gran(const void *x, const void *y)
{
    uint32_t a = ((const hp_ldv_ent *)x)->gran, b = ((const hp_ldv_ent *)y)->gran;
    return a < b ? -1 : a > b;
}

/* Up to n distinct granules lo + unit * (random below `span`), each with
 * its own idx, shuffled; repeats drawn are dropped. */
static void check_unit(size_t n, uint32_t lo, uint64_t span, uint64_t unit)
{
    hp_ldv_ent *a = calloc(n ? n : 1, sizeof *a), *want = calloc(n ? n : 1, sizeof *want);
    size_t *work = calloc(HP_LDV_SORT_WORK, sizeof *work);
    cr_assert(a && want && work);
    for (size_t i = 0; i < n; i++) {
        uint64_t g = lo + (test_rand() % span) * unit;
        cr_assert(g <= UINT32_MAX, "a case's keys must fit 32 bits");
        want[i].gran = (uint32_t)g;
        want[i].idx = (uint32_t)i | (test_rand() % 2 ? HP_LDV_ENT_PAST : 0);
    }
    qsort(want, n, sizeof *want, by_gran);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || want[m - 1].gran != want[i].gran) want[m++] = want[i];
    n = m;
    memcpy(a, want, n * sizeof *a);
    for (size_t i = n; i > 1; i--) {
        size_t j = test_rand() % i;
        hp_ldv_ent t = a[i - 1]; a[i - 1] = a[j]; a[j] = t;
    }
    hp_ldv_sort_ents(a, n, work);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(a[i].gran, want[i].gran, "entry %zu of %zu: granule %#x, want %#x", i, n,
                     a[i].gran, want[i].gran);
        cr_assert_eq(a[i].idx, want[i].idx, "entry %zu: idx moved apart from its granule", i);
    }
    free(a);
    free(want);
    free(work);
}

/* Granules `stride` apart. */
static void check(size_t n, uint32_t lo, uint64_t span, uint64_t stride)
{
    check_unit(n, lo, span, stride);
}

Test(ldv_sort, small_counts) { for (size_t n = 0; n <= 40; n++) check(n, 0x10000000, 1000, 1); }
Test(ldv_sort, one_level_dense) { check(5000, 0x555555, 4000, 1); }          /* key below 2^11 */
Test(ldv_sort, a_heap_of_small_objects) { check(300000, 0x1200000, 2000000, 1); }
Test(ldv_sort, levels_below_the_first) { check(200000, 0, (uint64_t)1 << 30, 1); }
/* Keys over all 32 bits: a heap spread over the 64 GiB an index reaches. */
Test(ldv_sort, spread_over_2_to_32) { check(100000, 0, (uint64_t)1 << 32, 1); }
Test(ldv_sort, clustered_blocks) { check(120000, 0x7000000, 3000, 256); }    /* 4 KiB apart */
Test(ldv_sort, below_65536_entries) { check(40000, 0x6000000, 1u << 24, 1); }
/* Keys whose low bits are not all zero: even, odd and spaced by three
 * (the sort drops only the low zero bits every key has). */
Test(ldv_sort, keys_with_low_bits)
{
    check_unit(50000, 0x1000008, (uint64_t)1 << 22, 8);
    check_unit(50000, 0x1000001, (uint64_t)1 << 20, 1);
    check_unit(3000, 0x1000003, 5000, 3);
}

Test(ldv_sort, sorted_and_reversed_input)
{
    size_t n = 100000;
    hp_ldv_ent *a = calloc(n, sizeof *a);
    size_t *work = calloc(HP_LDV_SORT_WORK, sizeof *work);
    cr_assert(a && work);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            size_t k = pass ? n - 1 - i : i;
            a[i].gran = (uint32_t)(0x1000000 + 3 * k);
            a[i].idx = (uint32_t)k;
        }
        hp_ldv_sort_ents(a, n, work);
        for (size_t i = 0; i < n; i++) cr_assert_eq(a[i].idx, i, "pass %d, entry %zu", pass, i);
    }
    free(a);
    free(work);
}
