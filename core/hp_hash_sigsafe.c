/* hp_hash_sigsafe: keyed tables of fixed-size entries (see hp_hash.h):
 * open addressing with linear probing on hp_mix64 of the key, doubled at
 * half full by moving the old slots above the new ones in the same
 * reservation and placing them again. Async-signal-safe: the profiler's
 * own memory only (the pprof writer and ldv's bands= tables use it from
 * the SIGINT/SIGTERM finisher). */
#include "core/hp_hash.h"

void *hp_keyed_slot(hp_vec *v, uint64_t *cap, uint64_t *count, uint64_t key, size_t size,
                    uint64_t first_cap, int *fresh)
{
    if ((*count + 1) * 2 > *cap) {
        uint64_t ncap = *cap ? *cap * 2 : first_cap;
        if (hp_vec_ensure(v, (size_t)(ncap + *cap) * size)) return NULL;
        unsigned char *base = v->base, *old = base + ncap * size;
        memmove(old, base, (size_t)*cap * size);
        memset(base, 0, (size_t)ncap * size);
        for (uint64_t i = 0; i < *cap; i++) {
            uint64_t k;
            memcpy(&k, old + i * size, 8);
            if (!k) continue;
            uint64_t j = hp_mix64(k) & (ncap - 1);
            for (;; j = (j + 1) & (ncap - 1)) {
                uint64_t o;
                memcpy(&o, base + j * size, 8);
                if (!o) break;
            }
            memcpy(base + j * size, old + i * size, size);
        }
        *cap = ncap;
    }
    unsigned char *base = v->base;
    uint64_t j = hp_mix64(key) & (*cap - 1);
    for (;; j = (j + 1) & (*cap - 1)) {
        uint64_t k;
        memcpy(&k, base + j * size, 8);
        if (k == key) {
            if (fresh) *fresh = 0;
            return base + j * size;
        }
        if (!k) break;
    }
    memcpy(base + j * size, &key, 8);
    (*count)++;
    if (fresh) *fresh = 1;
    return base + j * size;
}
