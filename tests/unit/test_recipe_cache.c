/* Unit tests of the unwind recipe cache (core/hp_recipe_cache): return
 * addresses chosen to collide in the way that made the former two-way
 * cache thrash (both first slots taken, one shared second slot) all stay
 * cached; a table two fifths full keeps every recipe; replacing a recipe
 * keeps one copy. */
#include <criterion/criterion.h>

#include <stdint.h>
#include <string.h>

#include "core/hp_recipe_cache.h"

static hp_recipe tab[HP_RECIPE_SLOTS];

static hp_recipe rec(uintptr_t ip)
{
    hp_recipe r;
    memset(&r, 0, sizeof r);
    r.ip = ip;
    r.fn = ip - 0x40;
    r.cfa_off = 16;
    return r;
}

static uint32_t s1(uintptr_t ip) { return (uint32_t)(hp_recipe_slot1(tab, ip) - tab); }

/* A, B, X, Y: slot1(A) == slot1(X), slot1(B) == slot1(Y), hash2(A) ==
 * hash2(B), and no other coincidence: the former cache, with X and Y
 * cached first, evicted A and B from their shared second slot on every
 * walk. */
static void find_colliding(uintptr_t *a, uintptr_t *b, uintptr_t *x, uintptr_t *y)
{
    const uintptr_t base = 0x7f0000400000u;
    for (uintptr_t i = 1; i < 1u << 20; i++) {
        uintptr_t A = base + i * 5;
        for (uintptr_t j = i + 1; j < i + 200000; j++) {
            uintptr_t B = base + j * 5;
            if (hp_recipe_hash2(A) != hp_recipe_hash2(B) || s1(A) == s1(B)) continue;
            if (s1(A) == hp_recipe_hash2(A) || s1(B) == hp_recipe_hash2(B)) continue;
            /* X and Y: other addresses whose first slots are A's and B's. */
            uintptr_t X = 0, Y = 0;
            for (uintptr_t k = 1; k < 1u << 22 && (!X || !Y); k++) {
                uintptr_t c = base + 0x100000 + k * 3;
                if (!X && s1(c) == s1(A) && hp_recipe_hash2(c) != hp_recipe_hash2(A) &&
                    hp_recipe_hash2(c) != s1(B)) X = c;
                else if (!Y && s1(c) == s1(B) && hp_recipe_hash2(c) != hp_recipe_hash2(A) &&
                         hp_recipe_hash2(c) != s1(A) && (!X || hp_recipe_hash2(c) != hp_recipe_hash2(X)))
                    Y = c;
            }
            if (X && Y) {
                *a = A; *b = B; *x = X; *y = Y;
                return;
            }
        }
    }
    cr_assert_fail("no colliding addresses found");
}

Test(recipe_cache, colliding_hot_addresses_do_not_evict_each_other)
{
    memset(tab, 0, sizeof tab);
    uintptr_t A, B, X, Y;
    find_colliding(&A, &B, &X, &Y);
    hp_recipe r;
    r = rec(X); cr_assert_eq(hp_recipe_put(tab, &r), 0);
    r = rec(Y); cr_assert_eq(hp_recipe_put(tab, &r), 0);
    r = rec(A); cr_assert_eq(hp_recipe_put(tab, &r), 0);
    r = rec(B); cr_assert_eq(hp_recipe_put(tab, &r), 0);
    /* Walks alternating through A and B, as two hot allocation sites: a
     * recipe missing means a walk by libunwind and a put. */
    int misses = 0;
    for (int walk = 0; walk < 1000; walk++) {
        uintptr_t ip = walk & 1 ? B : A;
        if (!hp_recipe_find(tab, ip)) {
            misses++;
            r = rec(ip);
            hp_recipe_put(tab, &r);
        }
    }
    cr_assert_eq(misses, 0, "%d of 1000 walks missed their recipe", misses);
    uintptr_t all[4] = {A, B, X, Y};
    for (int i = 0; i < 4; i++) {
        const hp_recipe *f = hp_recipe_find(tab, all[i]);
        cr_assert_not_null(f);
        cr_assert_eq(f->fn, all[i] - 0x40);
    }
}

Test(recipe_cache, table_two_fifths_full_keeps_every_recipe)
{
    memset(tab, 0, sizeof tab);
    uint64_t x = 0x243f6a8885a308d3ull;
    uintptr_t ips[HP_RECIPE_SLOTS * 2 / 5];
    for (int i = 0; i < HP_RECIPE_SLOTS * 2 / 5; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;   /* xorshift: return addresses */
        ips[i] = 0x7f0000000000u + (x & 0xffffffu);
        hp_recipe r = rec(ips[i]);
        hp_recipe_put(tab, &r);
    }
    int missing = 0;
    for (int i = 0; i < HP_RECIPE_SLOTS * 2 / 5; i++) missing += hp_recipe_find(tab, ips[i]) == NULL;
    cr_assert_eq(missing, 0, "%d of %d recipes lost", missing, HP_RECIPE_SLOTS * 2 / 5);
}

Test(recipe_cache, replacing_a_recipe_keeps_one_copy)
{
    memset(tab, 0, sizeof tab);
    hp_recipe r = rec(0x401234);
    hp_recipe_put(tab, &r);
    r.cfa_off = 48;
    hp_recipe_put(tab, &r);
    int copies = 0;
    for (int i = 0; i < HP_RECIPE_SLOTS; i++) copies += tab[i].ip == 0x401234;
    cr_assert_eq(copies, 1);
    cr_assert_eq(hp_recipe_find(tab, 0x401234)->cfa_off, 48);
}
