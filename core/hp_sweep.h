/* hp_sweep: the store's one sweep (level 6, model).
 *
 * After each completed collection every record is judged, in the table and
 * still in the threads' logs (judged as they are taken from the logs: only
 * survivors are copied to the table, so the many that die young never
 * enter it):
 *   - a record seen for the first time has its allocation tallied (its
 *     stack's figures, the run totals, the report's kind breakdown);
 *   - a record freed explicitly (hp_shadow_note_free) or left unmarked by
 *     the collector dies: its age goes to the report's breakdown, and the
 *     observer hears of it (`gone`, unless it said such a death has
 *     nothing to tell it: quiet_young), then it is dropped;
 *   - a survivor ages (saturating at HP_AGE_MAX), is compacted towards the
 *     front of the table (the observer hears the move), and at a census is
 *     counted live: by stack, or where the observer's `census` says.
 * A census without a collection (spec.judge 0: the collector is disabled at
 * exit) judges nothing: it tallies and marks records HP_REC_TALLIED and
 * counts every record live.
 *
 * Invariants: every record of the table and the logs is reported exactly
 * once per sweep, as gone (but for quiet deaths from the logs) or as moved
 * (alone or in a run), in increasing index order (table
 * records first, 0..len-1, then the logs' records from len on); no record
 * outlives its object by more than one collection; the table never holds a
 * dead record after a sweep.
 *
 * Owner context: the caller holds the collector's allocation lock and the
 * world is running. Nothing here allocates from malloc or the GC heap. */
#ifndef HP_SWEEP_H
#define HP_SWEEP_H
#include <stddef.h>
#include <stdint.h>

#include "core/hp_breakdown.h"
#include "core/hp_ccstats.h"
#include "core/hp_shadow.h"

/* Who else hears of the sweep (the census's filters and labels, ldv's
 * address index and biography). Any function may be NULL. */
typedef struct hp_sweep_observer {
    void *ctx;
    /* A record leaves the table: ev HP_EV_DIED or HP_EV_FREED. `idx` is its
     * index in this sweep's order; `in_table`: it was in the table (not a
     * log). Called before it is dropped. */
    void (*gone)(void *ctx, const hp_rec *r, hp_event ev, size_t idx, int in_table);
    /* A survivor moves from index `idx` to table slot `to` (<= idx), after
     * it has aged and been copied there (with side entries, both are
     * ordinals: core/hp_shadow.h, Note [Side entries]; `idx` is so in
     * every call). (No ctx: it is called for every
     * survivor, so a scheme's function is called directly.) */
    void (*moved)(size_t idx, size_t to);
    /* At a census: is this live record in it? (filters; labels other than
     * stacks are counted here). NULL: every live record, by its stack. */
    int (*census)(void *ctx, hp_rec *r, size_t idx);
    /* A record was counted live at census `t` (no ctx, likewise). */
    void (*counted)(const hp_rec *r, uint32_t t);
    /* At a census, when `census` depends on a record's shape alone (its
     * stack, sizes, kind and how: hp_scheme.label_by_shape): census() of
     * `k` live records of first's shape at once, 1 if they are in it. With
     * it, and no gone, moved or counted, the sweep judges a table's runs
     * whole at a census too (core/hp_sweep.c, Note [Runs judged whole]). */
    int (*census_run)(void *ctx, hp_rec *first, uint64_t k);
    /* With it, survivors are heard in runs: `k` records in a row, from
     * index `idx` on, moved to table slots `to` on (in place of k calls of
     * `moved`, which is still set; the order of every record's report is
     * kept). */
    void (*moved_run)(size_t idx, size_t to, size_t k);
    /* quiet_young set: a record from a log (not in the table) whose mode
     * word is 0 and whose birth is quiet_birth or later has nothing to
     * tell `gone` (mode ldv: an object neither used nor censused), and
     * its death is not reported. */
    int quiet_young;
    uint32_t quiet_birth;
} hp_sweep_observer;

typedef struct hp_sweep_spec {
    int judge;                   /* a collection ran: judge every record */
    hp_live_fn live;             /* NULL: the collector's marks (the census) */
    void *live_ctx;
    int logs;                    /* also take the records still in the logs */
    int census;                  /* a census is being taken (number period+1) */
    uint32_t period;
    hp_ccs_stats *stats;         /* room for every stack, or NULL */
    hp_breakdown *bds;           /* the report's breakdowns, or NULL */
    const hp_sweep_observer *obs;/* or NULL */
} hp_sweep_spec;

typedef struct hp_sweep_result {
    uint64_t live_bytes, live_objects;              /* counted by the census */
    uint64_t objects, bytes, requested, survived;   /* tallied by this sweep */
    uint64_t moves;   /* times a compact table's unread entries were moved up */
} hp_sweep_result;

hp_sweep_result hp_sweep(const hp_sweep_spec *spec);

#endif
