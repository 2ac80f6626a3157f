/* hp_report: the allocation report's breakdowns (MLWorks' space profile):
 * per cost-centre stack, objects / bytes / overhead (granted - requested)
 * by the number of collections an object survived (0, 1, 2, 3, 4+: counted
 * when it dies, or at exit), and by object kind (counted at allocation).
 * Also the names of object kinds, shared by the kind mode and its filter.
 * Owner context (allocation lock held), like hp_census. */
#ifndef HP_REPORT_H
#define HP_REPORT_H
#include <stddef.h>
#include <stdint.h>

#include "../preload/hp_shadow.h"

#define HP_AGE_BUCKETS 5   /* 0, 1, 2, 3, 4+ collections survived */

enum { HP_CAT_NORMAL, HP_CAT_ATOMIC, HP_CAT_UNCOLLECTABLE, HP_CAT_TYPED, HP_CAT_GCJ,
       HP_CAT_FINALIZED, HP_CAT_OTHER, HP_CAT_COUNT };

typedef struct hp_tally { uint64_t objects, bytes, overhead; } hp_tally;

typedef struct hp_breakdown {
    hp_tally age[HP_AGE_BUCKETS];
    hp_tally kind[HP_CAT_COUNT];
} hp_breakdown;

/* The kind category of an object, and its name ("normal", "atomic",
 * "uncollectable", "typed", "gcj", "finalized", "other"). */
int hp_kind_category(const hp_rec *r);
const char *hp_kind_category_name(int cat);
/* The object's exact kind name: the category's, or "kindN" for other kinds. */
void hp_kind_name(const hp_rec *r, char *out, size_t cap);

int hp_report_init(int report_bits);
/* Breakdown of stack `ccs` (room for all stacks interned so far), or NULL
 * when no breakdown was asked for. */
hp_breakdown *hp_report_of(uint32_t ccs);
static inline void hp_tally_add(hp_tally *t, const hp_rec *r)
{
    t->objects++;
    t->bytes += r->granted;
    t->overhead += r->granted > r->req ? r->granted - r->req : 0;
}

#endif
