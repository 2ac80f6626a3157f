/* hp_shadow: the record store (level 6, model): one record per tracked
 * object.
 *
 * Allocation path: each thread appends new records to its own log (no lock,
 * no atomic read-modify-write: one release store). Everything else runs in
 * the single "owner" context: a thread holding the collector's allocation
 * lock (a collection callback, or GC_call_with_alloc_lock). The owner takes
 * the logs' records (judged as they are taken by a sweep, survivors appended
 * to the main table; or drained into it whole), notes explicit frees, and
 * sweeps: every record is judged live or dead at every collection, so no
 * record outlives its
 * object by more than one collection and an address reused by the collector
 * is never confused with the object that held it before. */
#ifndef HP_SHADOW_H
#define HP_SHADOW_H
#include <stddef.h>
#include <stdint.h>

/* How an object was allocated (the entry-point family). */
enum {
    HP_HOW_NORMAL, HP_HOW_ATOMIC, HP_HOW_UNCOLLECTABLE, HP_HOW_ATOMIC_UNCOLLECTABLE,
    HP_HOW_TYPED, HP_HOW_GCJ, HP_HOW_FINALIZED, HP_HOW_KIND, HP_HOW_DEBUG,
    HP_HOW_MANY, HP_HOW_REALLOC, HP_HOW_COUNT
};

/* hp_rec.age stops here: the report's last bucket is "4 or more", and a
 * record that has stopped ageing is not written by the sweep. */
#define HP_AGE_MAX 4

/* hp_rec.flags */
#define HP_REC_TALLIED 1   /* allocation already counted (by a census without
                              a collection), though not yet judged */
#define HP_REC_UNWATCHED 2 /* ldv: since its last recorded use (or birth), a page
                              holding it was left open for the rest of a period
                              before it was seen used: a use may be missed */
#define HP_REC_FREED 4     /* freed by the program while its record was in a
                              log (core/hp_shadow_internal.h, Note [Frees
                              against a log]): it dies as freed at the next
                              sweep */

/* Note [The mode word]
 * ~~~~~~~~~~~~~~~~~~~~~
 * hp_rec.word is the one field whose meaning depends on the profile
 * (HEAPPROF's mode); it is 0 when a record is logged, and only the scheme
 * of the run writes it:
 *   - ldv (ldv/hp_ldv_internal.h): bit 31 HP_LDV_USED (used at least once),
 *     bit 30 HP_LDV_INHERENT (could not be protected: INHERENT_USE from
 *     then on), bits 0-29 the period of its last use;
 *   - retainer, roots and the rset= filter (retainer/hp_trace.h): bit 31 the
 *     parity of the traversal that set it (HP_TRACE_PARITY_BIT: a word of
 *     the other parity is stale, so records are never cleared between
 *     censuses), bit 30 HP_TRACE_SET_BIT (a label was set), bits 0-29 the
 *     label (a retainer set id, a root bin);
 *   - cc, module, kind: unused (sample=: the record's weight, core/hp_sample.h).
 * A run has one mode, so the layouts never meet in one record: rset= (a
 * traversal label) is refused in modes ldv and roots (core/hp_config.c);
 * mode retainer with bands= (both profiles in one run) keeps the traversal
 * label here and moves the LDV word to a side entry per record
 * (ldv/hp_ldv_byret_sigsafe.c). */
typedef struct hp_rec {
    uintptr_t base;    /* object base (GC_base) */
    uint32_t ccs;      /* cost-centre stack id (hp_stacks) */
    uint32_t req;      /* bytes the program asked for (saturating) */
    uint32_t granted;  /* bytes the collector granted, GC_size (saturating) */
    uint32_t birth;    /* census period at creation */
    uint32_t word;     /* the mode word: see Note [The mode word] */
    uint8_t kind;      /* collector object kind */
    uint8_t how;       /* HP_HOW_* */
    uint8_t age;       /* collections survived (saturating at HP_AGE_MAX) */
    uint8_t flags;
} hp_rec;

/* Allocated uncollectable (GC_malloc_uncollectable and its atomic kin):
 * a root for the collector. */
static inline int hp_rec_uncollectable(const hp_rec *r)
{
    return r->how == HP_HOW_UNCOLLECTABLE || r->how == HP_HOW_ATOMIC_UNCOLLECTABLE;
}

typedef struct hp_tlog hp_tlog;

int hp_shadow_init(void);
/* Keep the table compact (core/hp_shadow_internal.h, Note [The compact
 * table]): 16 bytes a record (8 for one repeating the record before it),
 * its birth and mode word not kept (on == HP_COMPACT_SIDE: kept in side
 * entries, below), and hp_shadow_table not available. For modes that read
 * neither; before the first record enters the table. */
void hp_shadow_set_compact(int on);
/* Note [Side entries]
 * ~~~~~~~~~~~~~~~~~~~~
 * Mode ldv reads a record's birth and mode word (the LDV word), which the
 * compact table does not keep, and its fault handlers change the word
 * while the program runs. With side entries (hp_shadow_set_compact(
 * HP_COMPACT_SIDE)) the table is compact and each record's birth and word
 * are kept apart, 8 bytes a record, in an array by the record's ordinal
 * (its place among the table's records, 0 first: the sweep keeps them in
 * order, hp_sweep.h), which the sweep moves with the records: 8 bytes
 * where the record was 32. Every record a reader is handed (the sweep's
 * observers, hp_shadow_foreach, hp_shadow_foreach_ord) has its birth,
 * word and HP_REC_UNWATCHED flag filled in from its entry; what a reader
 * changes in it is lost, so the word and that flag are changed in the
 * entry (hp_shadow_sides), by ordinal. `bits`: the birth (bits 0-29),
 * HP_SIDE_OLD (age 2 or more, set by the sweep), HP_SIDE_UNWATCHED (the
 * record's HP_REC_UNWATCHED). The sweep's observers are told ordinals
 * (hp_sweep_observer's idx and to) in this mode. */
#define HP_COMPACT_SIDE 2
typedef struct hp_rec_side {
    uint32_t word;
    uint32_t bits;
} hp_rec_side;
#define HP_SIDE_BIRTH 0x3fffffffu
#define HP_SIDE_OLD 0x40000000u
#define HP_SIDE_UNWATCHED 0x80000000u
/* The side entries (records 0..*n-1, by ordinal; their base never moves),
 * or NULL when the table keeps none. */
hp_rec_side *hp_shadow_sides(size_t *n);
/* Visit the table's records from ordinal `from` on, in order, each a copy
 * (side entries filled in) with its ordinal. Owner context. */
typedef void (*hp_ord_fn)(hp_rec *r, size_t ord, void *ctx);
void hp_shadow_foreach_ord(size_t from, hp_ord_fn fn, void *ctx);

/* --- thread side --- */
hp_tlog *hp_shadow_log_new(void);          /* for a new thread; NULL if out of memory */
/* Append a new record (age and flags 0) to the log of the calling thread
 * (its owner); 0, or -1 when out of memory. Logged, it takes 16 bytes, 8
 * where it repeats the record before it (Note [The log's entries],
 * core/hp_shadow_log.h). */
int hp_shadow_log_append(hp_tlog *log, const hp_rec *r);
void hp_shadow_log_exit(hp_tlog *log);     /* owner thread is exiting */

/* --- owner side (caller holds the collector's allocation lock) --- */
typedef enum { HP_EV_NEW, HP_EV_SURVIVED, HP_EV_DIED, HP_EV_FREED } hp_event;
typedef void (*hp_visit_fn)(hp_rec *r, hp_event ev, void *ctx);
typedef int (*hp_live_fn)(uintptr_t base, void *ctx);

/* Move every logged record into the main table; visit each with HP_EV_NEW
 * (`visit` may be NULL: then records are copied in bulk). */
void hp_shadow_drain(hp_visit_fn visit, void *ctx);
/* The same for a traversal at the mark phase's end (world stopped): only
 * the records `keep` keeps (their objects are marked) enter the table;
 * the rest are set aside, judged by the next sweep after the table's
 * records and before the logs' (core/hp_shadow_sigsafe.c, Note [Set aside
 * at a traversal]). Returns how many were set aside. */
size_t hp_shadow_drain_marked(hp_live_fn keep, void *ctx);
/* How many records the last hp_shadow_drain_marked set aside: their
 * indexes at the sweep that follows it are the table's length and the
 * next ones. */
size_t hp_shadow_set_aside(void);
/* The program freed the object at `base` (explicitly, GC_free), on the
 * thread whose log is `mine` (NULL: unknown). The free applies to the
 * records allocated before it only: the logs are drained first, unless
 * every log but `mine` is empty, when the free is noted against `mine`'s
 * position instead (core/hp_shadow_internal.h, Note [Frees against a
 * log]; `visit` then hears nothing). */
void hp_shadow_note_free(uintptr_t base, hp_tlog *mine, hp_visit_fn visit, void *ctx);
/* The program resized the object at `base` in place (GC_realloc that
 * returned the same pointer): from the next sweep on, the record allocated
 * before this call counts `granted` and `req` bytes. Drains first. */
void hp_shadow_note_resize(uintptr_t base, uint32_t granted, uint32_t req);
/* Judge every record of the table (not the logs): freed ones and those
 * `live` rejects are removed (HP_EV_FREED / HP_EV_DIED); the rest survive
 * (age+1, HP_EV_SURVIVED). The one sweep (hp_sweep) run with `live` as
 * its liveness test and `visit` as its observer; defined in hp_sweep.c. */
void hp_shadow_sweep(hp_live_fn live, hp_visit_fn visit, void *ctx);
/* Visit every record without changing anything (event HP_EV_SURVIVED; a
 * compact table's records are visited as copies). */
void hp_shadow_foreach(hp_visit_fn visit, void *ctx);

/* The table, read-only for the traversal and, in mode retainer with
 * bands=, ldv's index (records 0..*len-1; owner context); NULL when the
 * table is compact (mode ldv reads its records through
 * hp_shadow_foreach_ord and hp_shadow_sides). The sweep itself is hp_sweep
 * (hp_sweep.h). */
hp_rec *hp_shadow_table(size_t *len);
int hp_shadow_has_frees(void);    /* frees or in-place resizes noted since the sweep */
/* Apply what was noted for record `idx` since the last sweep: returns 1
 * when it was freed; applies an in-place resize (after the caller has
 * tallied the allocation) and returns 0 otherwise. Owner context or world
 * stopped (the traversal applies resizes before it scans). */
int hp_shadow_freed_at(hp_rec *r, size_t idx);
/* Record `idx` of the table was freed by the program since the last sweep
 * (it goes at the next; its block may already belong to another object).
 * Read-only; owner context or world stopped. */
int hp_shadow_is_freed(const hp_rec *r, size_t idx);

/* Visit every record not freed, in the main table (HP_EV_SURVIVED) and still in the
 * logs (HP_EV_NEW), without taking anything or changing anything: for the
 * SIGINT/SIGTERM path, which cannot be the owner. Async-signal-safe; a
 * concurrent owner may make the view inexact, never unsafe. */
void hp_shadow_peek(hp_visit_fn visit, void *ctx);

size_t hp_shadow_records(void);      /* records in the main table */
size_t hp_shadow_bytes(void);        /* main table bytes committed */
/* A record in the table: 32 bytes, or if compact 16 (8 for one repeating
 * the stack, sizes and kind of the one before; 48 for the few written
 * whole). */
size_t hp_shadow_record_bytes(void);
size_t hp_shadow_log_bytes(void);    /* allocation logs (chunks) committed */
/* Objects not recorded for want of memory (no log chunk, no room in the
 * table): one, with its granted bytes; or records taken from a log; and
 * the totals (objects; *bytes). Async-signal-safe. */
void hp_shadow_lost_one(size_t granted);
void hp_shadow_lost_recs(const hp_rec *recs, size_t n);
uint64_t hp_shadow_lost(uint64_t *bytes);

/* Around fork(): in the child only the forking thread survives. */
void hp_shadow_prefork(void);
void hp_shadow_postfork_parent(void);
void hp_shadow_postfork_child(hp_tlog *survivor);

#endif
