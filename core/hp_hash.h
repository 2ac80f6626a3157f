/* hp_hash: the 64-bit mixing function of heapprof's own hash tables
 * (interned retainer sets, root bins, the traversal's indexes), and the
 * growth of their open-addressing indexes of ids. */
#ifndef HP_HASH_H
#define HP_HASH_H
#include <stdint.h>
#include <string.h>

#include "core/hp_mem.h"

static inline uint64_t hp_mix64(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dull;
    return x ^ (x >> 33);
}

/* A keyed table of `size`-byte entries whose first 8 bytes are their key
 * (never 0; 0 marks an empty slot), in `v`: *count used of *cap slots, a
 * power of two from first_cap, doubled at half full. The entry of `key`,
 * made when absent (zeroed, key set; *fresh says which, when given); NULL
 * when out of memory. (hp_hash_sigsafe.c) */
void *hp_keyed_slot(hp_vec *v, uint64_t *cap, uint64_t *count, uint64_t key, size_t size,
                    uint64_t first_cap, int *fresh);

/* The slots (id + 1, 0 = empty, linear probing) of an interning table
 * whose entries the caller keeps. hp_idindex_room makes room for one more
 * of `count` entries: at half full the index doubles (first 1024 slots)
 * and entries first..count-1 are placed again by hash_of(id). Returns the
 * slots, or NULL when out of memory. */
typedef struct hp_idindex {
    hp_vec vec;       /* uint32_t slots; reserved by the caller */
    uint32_t cap;     /* slots in use (a power of two), 0 before the first */
} hp_idindex;

static inline uint32_t *hp_idindex_room(hp_idindex *x, uint32_t count, uint32_t first,
                                        uint64_t (*hash_of)(uint32_t id))
{
    if ((count + 1) * 2 > x->cap) {
        uint32_t cap = x->cap ? x->cap * 2 : 1024;
        if (hp_vec_ensure(&x->vec, (size_t)cap * 4)) return NULL;
        uint32_t *t = (uint32_t *)x->vec.base;
        memset(t, 0, (size_t)cap * 4);
        x->cap = cap;
        for (uint32_t i = first; i < count; i++) {
            uint32_t j = (uint32_t)hash_of(i) & (cap - 1);
            while (t[j]) j = (j + 1) & (cap - 1);
            t[j] = i + 1;
        }
    }
    return (uint32_t *)x->vec.base;
}

#endif
