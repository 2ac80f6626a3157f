/* hp_recipe_cache: the per-thread cache of unwind recipes (level 5), a
 * cuckoo hash of two ways. A recipe lives in the slot of its first hash or
 * in that of its second; a lookup reads at most those two. Inserting into
 * a full slot moves its recipe to that recipe's other slot, and so on (at
 * most HP_RECIPE_KICKS moves; then the last one moved is dropped, to be
 * learnt again). So no two return addresses evict each other on every
 * walk because of where the code happens to be placed: the earlier scheme
 * (second slot overwritten unconditionally) let two hot return addresses
 * whose first slots were taken share one second slot and thrash, making a
 * run 10-20 times slower by chance of address randomisation. With the
 * table under two fifths full, insertion succeeds with overwhelming
 * probability (a two-way cuckoo table fills to about half);
 * the table is sized for the distinct return addresses a thread's walks
 * meet (HP_RECIPE_SLOTS).
 * Pure functions on the caller's table (unit-tested). */
#ifndef HP_RECIPE_CACHE_H
#define HP_RECIPE_CACHE_H
#include <stdint.h>

#include "core/hp_capture_cache.h"

#define HP_RECIPE_KICKS 32

/* The second slot's index. */
static inline uint32_t hp_recipe_hash2(uintptr_t ip)
{
    return (uint32_t)((ip * 0x9e3779b97f4a7c15ull) >> (64 - HP_RECIPE_BITS));
}

/* The first slot: ((ip >> 2) ^ (ip >> 13)) % HP_RECIPE_SLOTS, computed as a
 * byte offset in three steps rather than five (the walk waits for it at
 * every frame). */
static inline const hp_recipe *hp_recipe_slot1(const hp_recipe *tab, uintptr_t ip)
{
    _Static_assert(sizeof(hp_recipe) == 32, "slot1 assumes 32-byte recipes");
    uintptr_t off = ((ip << 3) ^ (ip >> 8)) & ((uintptr_t)(HP_RECIPE_SLOTS - 1) << 5);
    return (const hp_recipe *)((const char *)tab + off);
}

/* The recipe for ip, or NULL. */
static inline const hp_recipe *hp_recipe_find(const hp_recipe *tab, uintptr_t ip)
{
    const hp_recipe *r = hp_recipe_slot1(tab, ip);
    if (r->ip == ip) return r;
    r = &tab[hp_recipe_hash2(ip)];
    return r->ip == ip ? r : NULL;
}

/* Keep `rec` (replacing the recipe of the same ip, if any). Returns 0, or
 * -1 when a recipe had to be dropped after HP_RECIPE_KICKS moves. */
int hp_recipe_put(hp_recipe *tab, const hp_recipe *rec);

#endif
