/* hp_bits: bit counts inline (level 7, the base; no state). Debian builds for the
 * x86-64 baseline, which has no POPCNT instruction: __builtin_popcount
 * there is a call into libgcc (__popcountdi2, a table walk), made for
 * every entry of ldv's index at every pass (Note [Kept bits],
 * ldv/hp_ldv_prot.c) and for every emulated instruction that sets the
 * parity flag (ldv/hp_ldv_x86_sigsafe.c). These are a few shifts and
 * masks, inline; async-signal-safe. */
#ifndef HP_BITS_H
#define HP_BITS_H
#include <stdint.h>

/* The number of bits set in x (SWAR: pairs, nibbles, bytes, then one
 * multiply sums the bytes into the top one). */
static inline unsigned hp_popcount64(uint64_t x)
{
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

/* 1 if the byte b has an even number of bits set (x86's PF). 0x9669 is
 * the even-parity bit of each nibble value. */
static inline unsigned hp_even_parity8(unsigned b)
{
    b &= 0xff;
    b ^= b >> 4;
    return (0x9669u >> (b & 15)) & 1;
}

#endif
