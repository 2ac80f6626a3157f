/* Unit tests for core/hp_bits.h: the inline bit counts against the
 * compiler's builtins, on every byte and on a million pseudo-random
 * words (and the words with one bit, none, all). */
#include <criterion/criterion.h>
#include <stdint.h>

#include "core/hp_bits.h"

Test(bits, popcount_matches_the_builtin)
{
    cr_assert_eq(hp_popcount64(0), 0);
    cr_assert_eq(hp_popcount64(~(uint64_t)0), 64);
    for (int i = 0; i < 64; i++) {
        cr_assert_eq(hp_popcount64((uint64_t)1 << i), 1);
        cr_assert_eq(hp_popcount64(~((uint64_t)1 << i)), 63);
        cr_assert_eq(hp_popcount64(((uint64_t)1 << i) - 1), (unsigned)i);
    }
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 1000000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        cr_assert_eq(hp_popcount64(x), (unsigned)__builtin_popcountll(x), "%#llx",
                     (unsigned long long)x);
    }
}

Test(bits, even_parity_of_every_byte)
{
    for (unsigned b = 0; b < 256; b++) {
        cr_assert_eq(hp_even_parity8(b), (unsigned)!(__builtin_popcount(b) & 1), "byte %u", b);
        cr_assert_eq(hp_even_parity8(b | 0xabcd00u), hp_even_parity8(b), "only the low byte counts");
    }
}
