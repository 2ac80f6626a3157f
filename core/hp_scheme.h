/* hp_scheme: the table of operations of a profiling scheme (level 6: the
 * interface type only; the schemes themselves are level 3, in retainer/,
 * roots/, ldv/, and the census's own by-stack and by-kind schemes in
 * collector_hooks/).
 *
 * A run's profile is chosen once, at start-up, by the census driver
 * (collector_hooks/hp_schemes.c: the one place that switches on the mode,
 * as GHC's closureIdentity is); from then on the census calls the
 * operations of the active schemes and never asks what the mode is. Every
 * operation may be NULL (nothing to do). Contexts: "lock" is the owner
 * context (hp_assert.h) with the world running; "stopped" is the owner
 * context with the world stopped; "signal" may also run in the
 * SIGINT/SIGTERM finisher. */
#ifndef HP_SCHEME_H
#define HP_SCHEME_H
#include <stddef.h>
#include <stdint.h>

#include "core/hp_shadow.h"
#include "core/hp_buf.h"

typedef struct hp_scheme {
    const char *name;
    /* A census needs a heap traversal at MARK_END of its collection. */
    int traverses;
    /* Start-up, configuration read (not yet attached): 0, or -1 after
     * saying why on stderr. */
    int (*init)(void);
    /* After every scheme's init: may refuse to run (says why on stderr):
     * 0, or -1. */
    int (*start)(void);
    /* Attached to the collector (hp_real resolved). */
    void (*attach)(void);
    /* START of every collection (lock). */
    void (*collection_start)(void);
    /* A census is due: before the world stops (lock). */
    void (*before_stop)(void);
    /* MARK_END of a census's collection (stopped): label the heap. */
    void (*traverse)(uint64_t mark_ns);
    /* Every MARK_END, after traverse (stopped). */
    void (*mark_end)(void);
    /* RECLAIM_END of every collection, before the sweep (lock). */
    void (*after_collection)(double now);
    /* Census number t begins at profile time `now` (lock, signal). */
    void (*census_begin)(uint32_t t, double now);
    /* The band of a live record at this census, or UINT32_MAX when it is
     * in none; `idx` its index in the sweep (SIZE_MAX: not known). NULL:
     * the census is by stack, folded into labels when written (lock,
     * signal). */
    uint32_t (*label_of)(hp_rec *r, size_t idx);
    /* label_of depends only on a record's stack, kind, how and granted
     * size (not on its index, its word or other state): records of one
     * shape in a row share one answer (hp_census_add). */
    int label_by_shape;
    /* A census by stack folds stacks into bands when a sample is written:
     * the band (label id, hp_writer/hp_names.h) of stack `ccs` (signal). */
    uint32_t (*stack_label)(uint32_t ccs);
    /* A record was counted live at census t (lock, signal). */
    void (*census_rec)(const hp_rec *r, uint32_t t);
    /* A record in the profile dies (or is alive at exit): its last census
     * is `period` (lock, signal). */
    void (*on_death)(const hp_rec *r, uint32_t period);
    /* The sweep begins on a table of `len` records; record `from` moves to
     * table slot `to`, or is dropped (lock). */
    void (*sweep_begin)(size_t len);
    void (*moved)(size_t from, size_t to);
    void (*dropped)(size_t from);
    /* Records from..from+k-1 move to slots to..to+k-1: as k calls of
     * moved (lock). */
    void (*moved_run)(size_t from, size_t to, size_t k);
    /* on_death(r, period) does nothing for a record whose mode word is 0
     * and whose birth is the value returned or later: the sweep need not
     * report such deaths from the logs (lock). */
    uint32_t (*death_quiet_from)(uint32_t period);
    /* The program freed the object at `base` (lock). */
    void (*on_free)(uintptr_t base);
    /* The census at profile time `now` is complete (lock). */
    void (*census_done)(double now);
    /* After every sweep (lock). */
    void (*after_sweep)(void);
    /* At exit, before the last pass over the records (lock, signal). */
    void (*stop)(void);
    /* The scheme writes the .hp samples itself, at exit (signal): its
     * censuses write none. */
    void (*write_samples)(int fd);
    /* Its section of the .prof (signal). */
    void (*write_prof)(int fd);
    /* In a forked child, before its first census: forget the parent's
     * censuses, which the parent's own profile has (lock). */
    void (*postfork_child)(void);
    /* What its profile cannot tell, as "warning: ..." lines each ending in
     * a newline, appended to out (the .prof's notes and stderr; signal). */
    void (*warnings)(hp_buf *out);
    /* A scheme that writes its samples at exit can write a checkpoint: the
     * samples as if the program had ended at census t, just taken (lock).
     * begin: 0, or -1 (nothing to write); rec: every record still live
     * that is in the profile; samples: write them to fd (0, or -1 when a
     * write failed). The scheme's own state is not changed. */
    int (*checkpoint_begin)(uint32_t t);
    void (*checkpoint_rec)(const hp_rec *r);
    int (*checkpoint_samples)(int fd);
} hp_scheme;

#endif
