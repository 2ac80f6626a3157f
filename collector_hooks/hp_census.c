/* hp_census: the census driver (level 2; see hp_census.h). What a completed
 * collection does, top to bottom (census_pass): decide whether a census is
 * due, let the schemes prepare, run the store's one sweep (hp_sweep) with
 * the census's observer, note the peak, write the sample, tell the schemes
 * the census is done. The census never asks what the mode is: it calls the
 * operations of the schemes chosen at start-up (hp_schemes.h).
 *
 * Owner context throughout (hp_assert.h): the caller holds the collector's
 * allocation lock; nothing here allocates from malloc or the GC heap. */
#include "collector_hooks/hp_census.h"
#include "collector_hooks/hp_census_enum.h"
#include "collector_hooks/hp_census_checkpoint.h"
#include "collector_hooks/hp_census_filter.h"
#include "collector_hooks/hp_census_output.h"
#include "collector_hooks/hp_census_state.h"
#include "collector_hooks/hp_schemes.h"
#include "core/hp_assert.h"
#include "core/hp_breakdown.h"
#include "core/hp_ccstats.h"
#include "core/hp_rt.h"
#include "core/hp_shadow.h"
#include "core/hp_stacks.h"
#include "core/hp_symbols.h"
#include "core/hp_sweep.h"
#include "roots/hp_roots.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static hp_sweep_observer observer;
static int observer_used;         /* some function of `observer` is set */

/* ---- The sweep's observer: the census's filters and labels, the primary
 * scheme's biography and index (ldv). ---- */
static uint32_t gone_period;
static void (*on_death)(const hp_rec *r, uint32_t period);   /* the primary scheme's */
static void (*dropped)(size_t idx);

static void gone_filtered(void *ctx, const hp_rec *r, hp_event ev, size_t idx, int in_table)
{
    (void)ctx;
    (void)ev;
    if (on_death && hp_filter_passes(r)) on_death(r, gone_period);
    if (in_table && dropped) dropped(idx);   /* (records from the logs need not be) */
}

static void gone_all(void *ctx, const hp_rec *r, hp_event ev, size_t idx, int in_table)
{
    (void)ctx;
    (void)ev;
    if (on_death) on_death(r, gone_period);
    if (in_table && dropped) dropped(idx);
}

static int census_in(void *ctx, hp_rec *r, size_t idx)
{
    (void)ctx;
    return hp_census_add(r, idx);
}

static int census_run_in(void *ctx, hp_rec *first, uint64_t k)
{
    (void)ctx;
    return hp_census_add_run(first, k);
}

static void observer_init(void)
{
    const hp_scheme *p = hp_schemes_primary();
    on_death = p->on_death;
    dropped = p->dropped;
    if (on_death || dropped) observer.gone = hp_filter_any() ? gone_filtered : gone_all;
    observer.moved = p->moved;
    observer.moved_run = p->moved_run;
    observer.quiet_young = p->death_quiet_from != NULL;
    if (p->label_of || hp_filter_any()) observer.census = census_in;
    /* (a band and a verdict that depend on the shape alone: the sweep may
     * count a run of one shape at once, core/hp_sweep.h) */
    if (observer.census && p->label_by_shape && !hp_rt.cfg.filter_rset[0])
        observer.census_run = census_run_in;
    observer.counted = p->census_rec;
    observer_used = observer.gone || observer.moved || observer.census || observer.counted;
}

int hp_census_init(void)
{
    hp_schemes_select(&hp_rt.cfg);
    hp_cf.mode_name = hp_mode_name(hp_rt.cfg.mode);
    if (hp_symbols_init() != 0) return -1;
    if (hp_ccstats_init() != 0 || hp_report_init(hp_rt.cfg.report) != 0 ||
        hp_filter_init(&hp_rt.cfg) != 0 || hp_output_init() != 0)
        return -1;
    int n;
    const hp_scheme *const *s = hp_schemes_active(&n);
    for (int i = 0; i < n; i++)
        if (s[i]->init && s[i]->init() != 0) return -1;
    if (hp_roots_init() != 0) return -1;   /* the API keeps roots in any mode */
    observer_init();
    return 0;
}

int hp_census_start(void)
{
    const char *inc = getenv("GC_ENABLE_INCREMENTAL");
    if (hp_schemes_traverse() && inc && *inc && strcmp(inc, "0") != 0) {
        hp_say("heapprof: a retainer or named-roots profile (and rset=) cannot follow "
               "incremental collection, and GC_ENABLE_INCREMENTAL is set: unset it (or "
               "choose another mode)");
        return -1;
    }
    int n;
    const hp_scheme *const *s = hp_schemes_active(&n);
    for (int i = 0; i < n; i++)
        if (s[i]->start && s[i]->start() != 0) return -1;
    return 0;
}

void hp_census_attach(void) { HP_SCHEMES_EACH(attach); }

int hp_census_due(int force, uint64_t start_ns)
{
    double now = hp_profile_seconds(start_ns);
    /* Without interval=, the first HP_EARLY_CENSUSES collections each take
     * a census: a run of 20 collections or more gets 20 censuses or more,
     * however short (their cost: the heap is small then) -- while the
     * profiler's time stays within a fifth of the run's so far (a census
     * that walks the heap, on a short run, soon costs more). Counted:
     * the time of the passes that took a census and of their traversals;
     * not the sweeps, protect passes (mode ldv) and fault handlers every
     * collection or run pays with or without censuses -- counting them
     * left a short ldv run with one census, or none, in the middle, as
     * the speed of the machine's faults decided. */
    double census_s = (double)hp_cf.census_ns / 1e9;
    int early = !hp_rt.cfg.interval_given && hp_cf.censuses < HP_EARLY_CENSUSES &&
                census_s <= 0.2 * now;
    return force || early || hp_rt.cfg.interval <= 0 ||
           now - hp_cf.last_census_time >= hp_rt.cfg.interval || hp_cf.censuses == 0;
}

int hp_census_wants_traversal(void) { return hp_schemes_traverse(); }

void hp_census_collection_start(void) { HP_SCHEMES_EACH(collection_start); }

void hp_census_before_stop(void) { HP_SCHEMES_EACH(before_stop); }

/* One pass over the records after a collection (judge) or without one,
 * with a census when one is due. */
static void census_pass(int force, int judge, uint64_t start_ns)
{
    HP_ASSERT_OWNER();
    uint64_t t0 = hp_mono_ns();
    double now = hp_profile_seconds(start_ns);
    if (judge) hp_cf.collections++;
    int census = hp_census_due(force, start_ns);
    /* A census in a traversal mode is taken where the traversal was, and
     * wherever it was (a census forced while this collection ran waits for
     * the next one). The traversal was made because a census was due when
     * the collection began; asking again now would count the traversal's
     * own time against the early censuses' share (hp_census_due) and drop
     * the census it was made for: ECL's list workload made 10 traversals
     * for 5 censuses. */
    if (hp_schemes_traverse() && judge) census = hp_census_traversed;
    hp_census_traversed = 0;
    if (judge) HP_SCHEMES_EACH(after_collection, now);
    uint32_t period = atomic_load(&hp_rt.period);
    if (census)
        HP_SCHEMES_EACH(census_begin, period + 1,
                        now < hp_cf.last_census_time ? hp_cf.last_census_time : now);
    const hp_scheme *p = hp_schemes_primary();
    if (p->sweep_begin) p->sweep_begin(hp_shadow_records());

    hp_sweep_spec spec = {0};
    spec.judge = judge;
    spec.logs = 1;
    spec.census = census;
    spec.period = period;
    spec.stats = hp_ccstats_all();
    spec.bds = hp_report_table(hp_stacks_count());
    gone_period = period;
    if (p->death_quiet_from) observer.quiet_birth = p->death_quiet_from(period);
    spec.obs = observer_used && (census || observer.gone || observer.moved) ? &observer : NULL;
    hp_sweep_result res = {0};
    hp_census_add_forget();
    if (spec.stats) res = hp_sweep(&spec);
    hp_totals.objects += res.objects;
    hp_totals.bytes += res.bytes;
    hp_totals.requested += res.requested;
    hp_totals.survived += res.survived;
    /* stacks=no: no records; the census is the collector's walk of what
     * this collection marked (none without a collection). */
    if (census && hp_rt.cfg.no_stacks && judge)
        hp_census_enumerate(&res.live_bytes, &res.live_objects);

    if (census) {
        uint64_t c0 = hp_mono_ns();   /* (the census's own work, for hp_census_due) */
        if (now < hp_cf.last_census_time) now = hp_cf.last_census_time;
        hp_cf.last_census_time = now;
        hp_cf.censuses++;
        atomic_fetch_add(&hp_rt.period, 1);
        int peak = hp_census_note_peak(res.live_bytes, res.live_objects, now);
        if (peak) {
            hp_cf.shadow_at_peak = hp_shadow_bytes();
            hp_cf.logs_at_peak = hp_shadow_log_bytes();
        }
        if (hp_output_take_role()) {
            if (!p->write_samples) hp_output_write_sample(now);
            else hp_output_open_hp();   /* the scheme writes its samples at exit */
            hp_output_release_role();
        }
        HP_SCHEMES_EACH(census_done, now);
        hp_checkpoint_after_census(atomic_load(&hp_rt.period), now);
        hp_census_reset_stacks(peak);
        hp_cf.census_ns += hp_mono_ns() - c0;
    }
    HP_SCHEMES_EACH(after_sweep);
    hp_rt_exclude_since(t0);
}

void hp_census_on_collection(int force, uint64_t start_ns) { census_pass(force, 1, start_ns); }

void hp_census_without_collection(const char *why)
{
    hp_cf.unjudged_census = 1;
    hp_cf.unjudged_why = why;
    hp_rt.census_no_collection_why = why;
    census_pass(1, 0, hp_mono_ns());
    hp_rt.census_no_collection_why = NULL;
}

void hp_census_note_free(uintptr_t base, hp_tlog *mine)
{
    HP_ASSERT_OWNER();
    uint64_t t0 = hp_coarse_ns();   /* (a program may free millions of times) */
    hp_shadow_note_free(base, mine, NULL, NULL);
    HP_SCHEMES_EACH(on_free, base);
    hp_rt_exclude_coarse_since(t0);
}

void hp_census_note_resize(uintptr_t base, uint32_t granted, uint32_t req)
{
    uint64_t t0 = hp_coarse_ns();
    hp_shadow_note_resize(base, granted, req);
    hp_rt_exclude_coarse_since(t0);
}

int hp_census_refuse_incremental(void)
{
    if (!hp_schemes_traverse()) return 0;
    static _Atomic int warned;
    if (!atomic_exchange(&warned, 1))
        hp_say("heapprof: GC_enable_incremental ignored: a retainer or named-roots profile "
               "(and rset=) needs full, stop-the-world collections, where the heap it traces "
               "is the heap the collector marked (the program runs non-incrementally)");
    return 1;
}

double hp_census_last_time(void) { return hp_cf.last_census_time; }

uint64_t hp_census_collections(void) { return __atomic_load_n(&hp_cf.collections, __ATOMIC_RELAXED); }

void hp_census_postfork_child(void)
{
    hp_output_postfork_child();
    hp_cf.collections = hp_cf.censuses = hp_cf.peak_bytes = hp_cf.peak_objects = 0;
    hp_cf.peak_seen = 0;
    hp_cf.peak_time = hp_cf.last_census_time = 0;
    hp_ccstats_reset();
    HP_SCHEMES_EACH(postfork_child);
}
