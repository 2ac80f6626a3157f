/* Unit tests for hp_ldv_find_from (ldv/hp_ldv_internal.h): the look-up of
 * the index entry covering an address, searched outwards from an entry
 * near it, as a burst does from the object it read last. Checked against
 * hp_ldv_find's search of the whole index (itself checked against a look
 * at every entry on short indexes) for every
 * kind of address -- inside an object, in a gap between two, before the
 * first, after the last -- and hints near, far, before and after. */
#include <criterion/criterion.h>

#include "test_rand.h"

#include <stdint.h>
#include <stdlib.h>

#include "ldv/hp_ldv_internal.h"

hp_ldv_state hp_ldv;
hp_rec_side *hp_ldv_rsides;   /* (NULL: sizes from hp_ldv.recs) */
hp_real_fns hp_real;             /* (unused: hp_ldv_rsides is NULL) */

/* The answer, by looking at every record. */
static const hp_ldv_ent *covering(uintptr_t addr)
{
    for (size_t i = 0; i < hp_ldv.nents; i++) {
        const hp_rec *r = &hp_ldv.recs[hp_ldv.ents[i].idx];
        if (addr - r->base < r->granted) return &hp_ldv.ents[i];
    }
    return NULL;
}

/* The object of entry i (its record's base and size). */
#define BASE(i) (hp_ldv.recs[i].base)
#define SIZE(i) (hp_ldv.recs[i].granted)

/* n objects from 0x10000 (the index's origin: addresses below it are
 * asked too), each 16-256 bytes, gaps of 0-63 granules; entry i is
 * record i. */
static hp_ldv_ent *index_of(size_t n)
{
    hp_ldv_ent *e = calloc(n ? n : 1, sizeof *e);
    free(hp_ldv.recs);
    hp_ldv.recs = calloc(n ? n : 1, sizeof *hp_ldv.recs);
    cr_assert(e && hp_ldv.recs);
    hp_ldv.origin = 0x10000;
    uintptr_t at = 0x10000;
    for (size_t i = 0; i < n; i++) {
        hp_ldv.recs[i].base = at;
        hp_ldv.recs[i].granted = (uint32_t)(16 * (1 + test_rand() % 16));
        e[i].gran = (uint32_t)((at - hp_ldv.origin) >> HP_LDV_GRAN_SHIFT);
        e[i].idx = (uint32_t)i;
        at += hp_ldv.recs[i].granted + 16 * (test_rand() % 64 < 48 ? 0 : test_rand() % 64);
    }
    hp_ldv.ents = e;
    hp_ldv.nents = n;
    return e;
}

static void check(size_t n, size_t tries, size_t reach)
{
    hp_ldv_ent *e = index_of(n);
    uintptr_t end = n ? BASE(n - 1) + SIZE(n - 1) : 0x10000;
    for (size_t t = 0; t < tries; t++) {
        size_t h = n ? test_rand() % n : 0;
        uintptr_t a;
        switch (test_rand() % 4) {
        case 0:   /* anywhere, before the first to past the last */
            a = 0x10000 - 64 + test_rand() % (end - 0x10000 + 128);
            break;
        case 1:   /* inside an object near the hint */
        case 2: {
            size_t k = h + test_rand() % (2 * reach + 1);
            k = k >= reach ? k - reach : 0;
            if (k >= n) k = n ? n - 1 : 0;
            a = n ? BASE(k) + test_rand() % SIZE(k) : 0x10000;
            break;
        }
        default:  /* just past an object: a gap, or the next one's base */
            a = n ? BASE(h) + SIZE(h) : 0x10000;
            break;
        }
        const hp_ldv_ent *want = hp_ldv_find(a);
        if (n <= 64) cr_assert_eq(want, covering(a), "hp_ldv_find: address %#lx", (unsigned long)a);
        const hp_ldv_ent *got = hp_ldv_find_from(n ? &e[h] : e, a);
        cr_assert_eq(got, want, "n %zu hint %zu address %#lx: entry %ld, want %ld", n, h,
                     (unsigned long)a, got ? (long)(got - e) : -1L, want ? (long)(want - e) : -1L);
    }
    free(e);
}

Test(ldv_find, hints_near_the_address) { check(100000, 200000, 20); }
Test(ldv_find, hints_far_from_the_address) { check(100000, 200000, 100000); }
Test(ldv_find, small_indexes) { for (size_t n = 0; n <= 40; n++) check(n, 2000, 50); }
Test(ldv_find, every_hint_for_every_address_of_a_short_index)
{
    hp_ldv_ent *e = index_of(37);
    for (size_t h = 0; h < 37; h++)
        for (uintptr_t a = 0x10000 - 32; a < BASE(36) + SIZE(36) + 32; a += 8)
            cr_assert_eq(hp_ldv_find_from(&e[h], a), covering(a), "hint %zu address %#lx", h,
                         (unsigned long)a);
    free(e);
}
