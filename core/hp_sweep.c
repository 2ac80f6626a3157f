/* hp_sweep: the store's one sweep (see hp_sweep.h).
 *
 * One loop body (judge_range), specialised by the compiler on the flags it
 * is given: the common collections (judged by the collector's marks, no
 * census filter, by stack) run loops whose tests are constants, with or
 * without a census, the report's breakdowns and an observer; anything else
 * (a census without a collection, filters or labels, a caller's own
 * liveness test) runs the generic loop. */
#include "core/hp_sweep.h"
#include "core/hp_sample.h"
#include "core/hp_assert.h"
#include "core/hp_real.h"
#include "core/hp_shadow_internal.h"
#include "core/hp_blocks.h"

typedef struct sweep_run sweep_run;
typedef void (*judge_fn)(sweep_run *s, hp_rec *recs, size_t n, size_t idx0, int in_table);

struct sweep_run {
    const hp_sweep_spec *spec;
    hp_sweep_result res;
    hp_ccs_stats *stats;
    hp_rec *table;        /* where survivors go */
    size_t out;           /* survivors so far */
    size_t next_idx;      /* index of the next record from the logs */
    judge_fn judge_range;
    int frees;
    hp_blocks blocks;     /* is_live's pages in use */
};

/* Is the object at `base` live after this collection? Only if its page
 * still holds a block in use (core/hp_blocks.h); in a block in use, base
 * is either still an object start with a valid mark bit, or (block reused
 * for another size) some granule whose bit is clear. */
static inline int is_live(hp_blocks *b, uintptr_t base)
{
    return hp_blocks_in_use(b, base) && hp_real.GC_is_marked((void *)base) != 0;
}

static inline __attribute__((always_inline)) void
judge_range(sweep_run *s, hp_rec *recs, size_t n, size_t idx0, int in_table, int census,
            int judge, int marks, int breakdown, int simple, int observed)
{
    const hp_sweep_spec *sp = s->spec;
    const hp_sweep_observer *obs = observed ? sp->obs : NULL;
    hp_ccs_stats *stats = s->stats;
    hp_rec *table = s->table;
    hp_breakdown *bds = breakdown ? sp->bds : NULL;
    int frees = s->frees;
    hp_blocks *blocks = &s->blocks;
    uint32_t t = sp->period + 1;
    uint64_t objects = 0, bytes = 0, requested = 0, survived = 0;
    uint64_t live_bytes = 0, live_objects = 0;
    size_t out = s->out;
    for (size_t k = 0; k < n; k++) {
        hp_rec *r = &recs[k];
        size_t i = idx0 + k;
        /* The records stream in from memory (a collection's worth of
         * allocations is far larger than the caches): fetch ahead. */
        __builtin_prefetch(r + 32);
        hp_ccs_stats *st = stats ? &stats[r->ccs] : NULL;
        if (hp_ccstats_untallied(r)) {
            if (st) hp_ccstats_tally(st, r);
            objects += hp_rec_count(r);
            bytes += hp_rec_bytes(r);
            requested += hp_rec_req(r);
            if (bds) hp_report_kind(&bds[r->ccs], r, hp_kind_category(r));
        }
        int freed = frees && hp_shadow_freed_at(r, i);
        if (freed || (judge && !(marks ? is_live(blocks, r->base)
                                       : sp->live(r->base, sp->live_ctx)))) {
            if (bds) hp_report_death(&bds[r->ccs], r);
            if (obs && obs->gone) obs->gone(obs->ctx, r, freed ? HP_EV_FREED : HP_EV_DIED, i,
                                            in_table);
            continue;
        }
        if (judge) {
            if (r->age == 0) {
                uint64_t b = hp_rec_bytes(r);
                if (st) st->survived += b;
                survived += b;
            }
            if (r->age < HP_AGE_MAX) r->age++;
        } else {
            r->flags |= HP_REC_TALLIED;
        }
        if (census && (simple || !obs || !obs->census || obs->census(obs->ctx, r, i))) {
            uint64_t b = hp_rec_bytes(r), c = hp_rec_count(r);
            if (st) {
                st->census += b;
                st->census_objects += c;
            }
            live_bytes += b;
            live_objects += c;
            if (obs && obs->counted) obs->counted(r, t);
        }
        if (!in_table || out != i) table[out] = *r;
        if (obs && obs->moved) obs->moved(i, out);
        out++;
    }
    s->out = out;
    s->res.objects += objects;
    s->res.bytes += bytes;
    s->res.requested += requested;
    s->res.survived += survived;
    s->res.live_bytes += live_bytes;
    s->res.live_objects += live_objects;
}

/* The specialised loops: judged by the collector's marks, census (if any)
 * by stack and unfiltered; observed: an observer hears deaths and moves. */
#define JUDGE_VARIANT(name, census, breakdown, observed)                       \
    static void name(sweep_run *s, hp_rec *recs, size_t n, size_t idx0, int in_table) \
    {                                                                            \
        judge_range(s, recs, n, idx0, in_table, census, 1, 1, breakdown, 1, observed); \
    }
JUDGE_VARIANT(judge_plain, 0, 0, 0)
JUDGE_VARIANT(judge_census, 1, 0, 0)
JUDGE_VARIANT(judge_report, 0, 1, 0)
JUDGE_VARIANT(judge_census_report, 1, 1, 0)
JUDGE_VARIANT(judge_obs, 0, 0, 1)
JUDGE_VARIANT(judge_obs_census, 1, 0, 1)
JUDGE_VARIANT(judge_obs_report, 0, 1, 1)
JUDGE_VARIANT(judge_obs_census_report, 1, 1, 1)

/* [observed][census][breakdown] */
static const judge_fn judge_fast[2][2][2] = {
    {{judge_plain, judge_report}, {judge_census, judge_census_report}},
    {{judge_obs, judge_obs_report}, {judge_obs_census, judge_obs_census_report}},
};

static void judge_generic(sweep_run *s, hp_rec *recs, size_t n, size_t idx0, int in_table)
{
    const hp_sweep_spec *sp = s->spec;
    judge_range(s, recs, n, idx0, in_table, sp->census, sp->judge, sp->live == NULL,
                sp->bds != NULL, 0, sp->obs != NULL);
}

/* A span of records still in a log: make room for its survivors, judge. */
static void judge_span(hp_rec *recs, size_t n, void *arg)
{
    sweep_run *s = arg;
    size_t idx0 = s->next_idx;
    s->next_idx += n;
    hp_rec *table = hp_shadow_room(s->out + n);
    if (!table) {   /* out of memory: these records are lost (said at exit) */
        hp_shadow_lost_recs(recs, n);
        return;
    }
    s->table = table;
    s->judge_range(s, recs, n, idx0, 0);
}

hp_sweep_result hp_sweep(const hp_sweep_spec *spec)
{
    HP_ASSERT_OWNER();
    sweep_run s = {0};
    s.spec = spec;
    s.stats = spec->stats;
    size_t len;
    s.table = hp_shadow_table(&len);
    s.frees = hp_shadow_has_frees();
    const hp_sweep_observer *obs = spec->obs;
    int fast = spec->judge && !spec->live && spec->stats &&
               (!spec->census || !obs || !obs->census);
    s.judge_range = fast ? judge_fast[obs != NULL][spec->census != 0][spec->bds != NULL]
                         : judge_generic;
    s.judge_range(&s, s.table, len, 0, 1);
    s.next_idx = len;
    if (spec->logs) hp_shadow_take_pending(judge_span, &s);
    hp_shadow_sweep_done(s.out);
    return s.res;
}

/* hp_shadow_sweep (hp_shadow.h): the same sweep, judged by the caller's
 * `live`, heard through the visitor; the logs are left alone. */
typedef struct visit_adapter { hp_visit_fn visit; void *ctx; } visit_adapter;
static visit_adapter adapter;   /* the sweep is the owner's: one at a time */

static void adapter_gone(void *c, const hp_rec *r, hp_event ev, size_t idx, int in_table)
{
    (void)idx;
    (void)in_table;
    visit_adapter *a = c;
    if (a->visit) a->visit((hp_rec *)r, ev, a->ctx);
}

static void adapter_moved(size_t idx, size_t to)
{
    (void)idx;
    size_t len;
    if (adapter.visit) adapter.visit(&hp_shadow_table(&len)[to], HP_EV_SURVIVED, adapter.ctx);
}

void hp_shadow_sweep(hp_live_fn live, hp_visit_fn visit, void *ctx)
{
    adapter = (visit_adapter){visit, ctx};
    hp_sweep_observer obs = {&adapter, adapter_gone, adapter_moved, NULL, NULL};
    hp_sweep_spec spec = {0};
    spec.judge = 1;
    spec.live = live;
    spec.live_ctx = ctx;
    spec.obs = &obs;
    hp_sweep(&spec);
}
