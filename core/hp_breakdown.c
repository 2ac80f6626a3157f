/* hp_report: allocation-report breakdowns and object kind names (see
 * hp_report.h). */
#include "core/hp_breakdown.h"
#include "core/hp_mem.h"
#include "core/hp_stacks.h"

#include <string.h>

static int bits;
static hp_vec breakdowns;     /* hp_breakdown[ccs] */
static uint32_t nbreakdowns;

static const char *const cat_names[HP_CAT_COUNT] = {
    "normal", "atomic", "uncollectable", "typed", "gcj", "finalized", "other"};

int hp_kind_category(const hp_rec *r)
{
    switch (r->how) {
    case HP_HOW_TYPED: return HP_CAT_TYPED;
    case HP_HOW_GCJ: return HP_CAT_GCJ;
    case HP_HOW_FINALIZED: return HP_CAT_FINALIZED;
    default: break;
    }
    switch (r->kind) {   /* the collector's predefined kinds */
    case 0: return HP_CAT_ATOMIC;
    case 1: return HP_CAT_NORMAL;
    case 2: case 3: return HP_CAT_UNCOLLECTABLE;   /* and atomic uncollectable */
    default: return HP_CAT_OTHER;
    }
}

const char *hp_kind_category_name(int cat) { return cat_names[cat]; }

void hp_kind_name(const hp_rec *r, char *out, size_t cap)
{
    int cat = hp_kind_category(r);
    const char *name = cat_names[cat];
    char tmp[16];
    if (cat == HP_CAT_OTHER) {
        /* "kind" and the kind number, without stdio. */
        unsigned k = r->kind, n = 0;
        char digits[4];
        do { digits[n++] = (char)('0' + k % 10); k /= 10; } while (k);
        memcpy(tmp, "kind", 4);
        for (unsigned i = 0; i < n; i++) tmp[4 + i] = digits[n - 1 - i];
        tmp[4 + n] = 0;
        name = tmp;
    }
    size_t len = strlen(name);
    if (len >= cap) len = cap - 1;
    memcpy(out, name, len);
    out[len] = 0;
}

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
