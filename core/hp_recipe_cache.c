/* hp_recipe_cache: cuckoo insertion into the recipe cache (see
 * hp_recipe_cache.h). */
#include "core/hp_recipe_cache.h"

int hp_recipe_put(hp_recipe *tab, const hp_recipe *rec)
{
    hp_recipe *same = (hp_recipe *)hp_recipe_find(tab, rec->ip);
    if (same) {
        *same = *rec;
        return 0;
    }
    hp_recipe cur = *rec;
    hp_recipe *slot = (hp_recipe *)hp_recipe_slot1(tab, cur.ip);
    for (int kick = 0; kick < HP_RECIPE_KICKS; kick++) {
        if (slot->ip == 0) {
            *slot = cur;
            return 0;
        }
        hp_recipe moved = *slot;
        *slot = cur;
        cur = moved;
        /* The recipe moved out goes to its other slot. */
        hp_recipe *first = (hp_recipe *)hp_recipe_slot1(tab, cur.ip);
        slot = slot == first ? &tab[hp_recipe_hash2(cur.ip)] : first;
    }
    return -1;   /* `cur` is dropped: a later walk learns it again */
}
