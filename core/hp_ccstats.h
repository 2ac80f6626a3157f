/* hp_ccstats: the figures kept per cost-centre stack (level 6, model):
 * what it allocated, what of that survived a collection, its live bytes at
 * the census being taken and at the peak census; and the run's allocation
 * totals. Filled by the sweep (hp_sweep) and the census; read by the
 * writers. Owner context (allocation lock held), or the signal finisher,
 * which only runs when no census holds the output role. */
#ifndef HP_CCSTATS_H
#define HP_CCSTATS_H
#include <stdint.h>

#include "core/hp_sample.h"
#include "core/hp_shadow.h"

typedef struct hp_ccs_stats {
    uint64_t objects, bytes, requested;  /* allocated in all */
    uint64_t survived;                   /* bytes that survived >= 1 collection */
    uint64_t census;                     /* bytes live at the census being taken */
    uint64_t at_peak;                    /* bytes live at the peak census */
    uint64_t census_objects, at_peak_objects;   /* the same in objects */
} hp_ccs_stats;

/* The run's allocation totals (the .prof summary). */
typedef struct hp_alloc_totals {
    uint64_t objects, bytes, requested, survived;
} hp_alloc_totals;
extern hp_alloc_totals hp_totals;

int hp_ccstats_init(void);
/* The figures of every stack interned so far (room made on demand; fresh
 * entries read zero), or NULL when out of memory. */
hp_ccs_stats *hp_ccstats_all(void);
/* The table as it is, without making room, and its length. */
hp_ccs_stats *hp_ccstats_table(uint32_t *n);
/* Zero every figure (a forked child starts afresh). */
void hp_ccstats_reset(void);

/* An allocation is tallied the first time a sweep (or the signal census)
 * sees its record: age 0 and not yet marked HP_REC_TALLIED (a census
 * without a collection tallies and marks it; a sweep ages it). */
static inline int hp_ccstats_untallied(const hp_rec *r)
{
    return r->age == 0 && !(r->flags & HP_REC_TALLIED);
}

static inline void hp_ccstats_tally(hp_ccs_stats *st, const hp_rec *r)
{
    st->objects += hp_rec_count(r);
    st->bytes += hp_rec_bytes(r);
    st->requested += hp_rec_req(r);
}

#endif
