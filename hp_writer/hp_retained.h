/* hp_retained: retained sizes per allocation stack, for the writers of the
 * CSV (breakdown `retained`) and the pprof export (retained_objects and
 * retained_space). The retainer scheme fills it from the dominator tree of
 * the census with the most bytes reached (dominators=yes,
 * retainer/hp_retainer_census_sigsafe.c); empty otherwise. Indexed by
 * stack name id (hp_names: a full name), as the writers' rows are.
 * Signal-safe: memory reserved at start-up, no locks. */
#ifndef HP_RETAINED_H
#define HP_RETAINED_H
#include <stdint.h>

int hp_retained_init(void);
/* Replace the table: per[2 * id] bytes, per[2 * id + 1] objects, ids 0 ..
 * n - 1 (world stopped). 0, or -1 when out of memory (the table is then
 * empty). */
int hp_retained_set(const uint64_t *per, uint32_t n);
/* 1 and the figures when stack name `id` keeps something alive, else 0. */
int hp_retained_get(uint32_t id, uint64_t *bytes, uint64_t *objects);
/* 1 when the table holds a census's figures. */
int hp_retained_known(void);

#endif
