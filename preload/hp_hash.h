/* hp_hash: the 64-bit mixing function of heapprof's own hash tables
 * (interned retainer sets, root bins, the traversal's indexes). Pure. */
#ifndef HP_HASH_H
#define HP_HASH_H
#include <stdint.h>

static inline uint64_t hp_mix64(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dull;
    return x ^ (x >> 33);
}

#endif
