/* hp_breakdown_sigsafe: the allocation report's breakdowns by collections survived
 * and by kind, per stack (see hp_breakdown.h). Async-signal-safe: the
 * finisher counts the objects alive at exit. */
#include "core/hp_breakdown.h"
#include "core/hp_mem.h"
#include "core/hp_stacks.h"

#include <string.h>

static int bits;
static hp_vec breakdowns;     /* hp_breakdown[ccs] */
static uint32_t nbreakdowns;

int hp_report_init(int report_bits)
{
    bits = report_bits;
    if (!bits) return 0;
    return hp_vec_reserve(&breakdowns, (size_t)1 << 34);
}

static void derive(hp_tally *into, const hp_tally *others, int n, int skip, uint64_t objects,
                   uint64_t bytes, uint64_t overhead)
{
    for (int i = 0; i < n; i++) {
        if (i == skip) continue;
        objects -= others[i].objects;
        bytes -= others[i].bytes;
        overhead -= others[i].overhead;
    }
    into->objects = objects;
    into->bytes = bytes;
    into->overhead = overhead;
}

void hp_report_complete(uint32_t ccs, uint64_t objects, uint64_t bytes, uint64_t requested)
{
    hp_breakdown *bd = hp_report_of(ccs);
    if (!bd || bd->complete) return;
    bd->complete = 1;
    uint64_t overhead = bytes - requested;
    derive(&bd->age[0], bd->age, HP_AGE_BUCKETS, 0, objects, bytes, overhead);
    if (bd->first_kind) {
        int k = bd->first_kind - 1;
        derive(&bd->kind[k], bd->kind, HP_CAT_COUNT, k, objects, bytes, overhead);
    }
}

hp_breakdown *hp_report_table(uint32_t n)
{
    if (!bits) return NULL;
    if (n > nbreakdowns) {
        if (hp_vec_ensure(&breakdowns, (size_t)n * sizeof(hp_breakdown)) != 0) return NULL;
        nbreakdowns = n;
    }
    return (hp_breakdown *)breakdowns.base;
}

hp_breakdown *hp_report_of(uint32_t ccs)
{
    if (!bits) return NULL;
    if (ccs >= nbreakdowns) {
        uint32_t n = hp_stacks_count();
        if (n <= ccs) n = ccs + 1;
        if (hp_vec_ensure(&breakdowns, (size_t)n * sizeof(hp_breakdown)) != 0) return NULL;
        nbreakdowns = n;
    }
    return &((hp_breakdown *)breakdowns.base)[ccs];
}
