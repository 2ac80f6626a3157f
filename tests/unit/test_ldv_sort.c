/* Unit tests for ldv/hp_ldv_sort_sigsafe.c: the protect pass's in-place
 * sort of address-index entries. Each case sorts entries whose bases are
 * drawn to exercise one part of it (one level, the 8-bit levels below
 * the first, buckets finished by insertion, keys spanning 2^46 bytes, the
 * small-sort path) and checks the result against qsort of a copy: the
 * same entries (base, size and idx together), in increasing base. */
#include <criterion/criterion.h>

#include "test_rand.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ldv/hp_ldv_internal.h"


static int by_base(const void *x, const void *y)
{
    uintptr_t a = ((const hp_ldv_ent *)x)->base, b = ((const hp_ldv_ent *)y)->base;
    return a < b ? -1 : a > b;
}

/* Up to n distinct bases lo + unit * (random below `span`), with random
 * sizes and their own idx, shuffled; repeats drawn are dropped. */
static void check_unit(size_t n, uintptr_t lo, uint64_t span, uint64_t unit)
{
    hp_ldv_ent *a = calloc(n ? n : 1, sizeof *a), *want = calloc(n ? n : 1, sizeof *want);
    size_t *work = calloc(HP_LDV_SORT_WORK, sizeof *work);
    cr_assert(a && want && work);
    for (size_t i = 0; i < n; i++) {
        want[i].base = lo + (test_rand() % span) * unit;
        want[i].size = (uint32_t)(test_rand() % 4096);
        want[i].idx = (uint32_t)i;
    }
    qsort(want, n, sizeof *want, by_base);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || want[m - 1].base != want[i].base) want[m++] = want[i];
    n = m;
    memcpy(a, want, n * sizeof *a);
    for (size_t i = n; i > 1; i--) {
        size_t j = test_rand() % i;
        hp_ldv_ent t = a[i - 1]; a[i - 1] = a[j]; a[j] = t;
    }
    hp_ldv_sort_ents(a, n, work);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(a[i].base, want[i].base, "entry %zu of %zu: base %#lx, want %#lx", i, n,
                     (unsigned long)a[i].base, (unsigned long)want[i].base);
        cr_assert_eq(a[i].size, want[i].size, "entry %zu: size moved apart from its base", i);
        cr_assert_eq(a[i].idx, want[i].idx, "entry %zu: idx moved apart from its base", i);
    }
    free(a);
    free(want);
    free(work);
}

/* Bases 16-byte granules apart (as the collector's), `stride` of them. */
static void check(size_t n, uintptr_t lo, uint64_t span, uint64_t stride)
{
    check_unit(n, lo, span, 16 * stride);
}

Test(ldv_sort, small_counts) { for (size_t n = 0; n <= 40; n++) check(n, 0x7f0000000000, 1000, 1); }
Test(ldv_sort, one_level_dense) { check(5000, 0x555555000000, 4000, 1); }          /* key below 2^11 */
Test(ldv_sort, a_heap_of_small_objects) { check(300000, 0x7f1200000000, 2000000, 1); }
Test(ldv_sort, levels_below_the_first) { check(200000, 0x10000, (uint64_t)1 << 34, 1); }
Test(ldv_sort, spread_over_2_to_46) { check(100000, 0x1000, (uint64_t)1 << 42, 1); }
Test(ldv_sort, clustered_blocks) { check(120000, 0x7f0000000000, 3000, 256); }    /* 4 KiB apart */
Test(ldv_sort, below_65536_entries) { check(40000, 0x600000000000, 1u << 24, 1); }
/* Keys whose low bits are not all zero: 8-byte apart, and odd, bases (the
 * sort drops only the low zero bits every base has). */
Test(ldv_sort, bases_not_on_granules)
{
    check_unit(50000, 0x7f0000000008, (uint64_t)1 << 22, 8);
    check_unit(50000, 0x7f0000000001, (uint64_t)1 << 20, 1);
    check_unit(3000, 0x7f0000000003, 5000, 3);
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
            a[i].base = 0x7f0000000000 + 48 * k;
            a[i].size = 48;
            a[i].idx = (uint32_t)k;
        }
        hp_ldv_sort_ents(a, n, work);
        for (size_t i = 0; i < n; i++) cr_assert_eq(a[i].idx, i, "pass %d, entry %zu", pass, i);
    }
    free(a);
    free(work);
}
