/* hp_breakdown (level 6, model): the allocation report's breakdowns
 * (MLWorks' space profile):
 * per cost-centre stack, objects / bytes / overhead (granted - requested)
 * by the number of collections an object survived (0, 1, 2, 3, 4+: counted
 * when it dies, or at exit), and by object kind (counted at allocation).
 * The sweep (hp_sweep) counts into them. Owner context (allocation lock
 * held). */
#ifndef HP_BREAKDOWN_H
#define HP_BREAKDOWN_H
#include <stddef.h>
#include <stdint.h>

#include "core/hp_kinds.h"
#include "core/hp_shadow.h"

#define HP_AGE_BUCKETS 5   /* 0, 1, 2, 3, 4+ collections survived */

typedef struct hp_tally { uint64_t objects, bytes, overhead; } hp_tally;

/* Counted cheaply: age bucket 0 and the stack's first kind are not tallied
 * object by object but derived from the stack's totals when the report is
 * written (hp_report_complete): every object lands in exactly one age
 * bucket (at death or at exit) and one kind. */
typedef struct hp_breakdown {
    hp_tally age[HP_AGE_BUCKETS];
    hp_tally kind[HP_CAT_COUNT];
    int8_t first_kind;       /* category of the stack's first object + 1; 0 none yet */
    int8_t complete;         /* derived fields filled in */
} hp_breakdown;

/* Count an object's allocation by kind (only when not of the first kind). */
static inline void hp_report_kind(hp_breakdown *bd, const hp_rec *r, int cat)
{
    if (!bd->first_kind) bd->first_kind = (int8_t)(cat + 1);
    else if (cat + 1 != bd->first_kind) {
        bd->kind[cat].objects++;
        bd->kind[cat].bytes += r->granted;
        bd->kind[cat].overhead += r->granted > r->req ? r->granted - r->req : 0;
    }
}

/* Count an object's death (or survival to exit) by collections survived
 * (bucket 0 is derived). */
static inline void hp_report_death(hp_breakdown *bd, const hp_rec *r)
{
    if (r->age == 0) return;
    hp_tally *t = &bd->age[r->age < 4 ? r->age : 4];
    t->objects++;
    t->bytes += r->granted;
    t->overhead += r->granted > r->req ? r->granted - r->req : 0;
}

/* Fill in the derived figures of stack `ccs` from its allocation totals
 * (objects, granted bytes, requested bytes), once, before writing. */
void hp_report_complete(uint32_t ccs, uint64_t objects, uint64_t bytes, uint64_t requested);

int hp_report_init(int report_bits);
/* Breakdown of stack `ccs` (room for all stacks interned so far), or NULL
 * when no breakdown was asked for. */
hp_breakdown *hp_report_of(uint32_t ccs);
/* All breakdowns, with room for stacks 0..n-1 (NULL when none asked for). */
hp_breakdown *hp_report_table(uint32_t n);

#endif
