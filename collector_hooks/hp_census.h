/* hp_census: the census driver (level 2): what happens at each completed
 * collection, and at the end.
 *
 * All functions here run in the owner context: the caller holds the
 * collector's allocation lock (a collection callback at RECLAIM_END, when
 * the world has been restarted, or GC_call_with_alloc_lock). They never
 * allocate from malloc or the GC heap and never call back into the
 * collector except GC_base/GC_is_marked (lock-free reads).
 *
 * Output (the .hp and .prof files, name resolution) is done by whoever holds
 * the output role (hp_census_output.h), an atomic flag also taken by the
 * SIGINT/SIGTERM path, so that a signal never interleaves with a census
 * half-written. */
#ifndef HP_CENSUS_H
#define HP_CENSUS_H
#include <stdint.h>

/* Start-up: choose the schemes (hp_schemes.h) and reserve memory: 0, or
 * -1 when out of memory. */
int hp_census_init(void);
/* Then let the schemes start (ldv installs its handlers): 0, or -1 after a
 * scheme said on stderr why it cannot run. */
int hp_census_start(void);
/* GC_enable_incremental was called: when a scheme of the run traverses
 * the heap (retainer, roots, rset=), say once that it is ignored and
 * return 1 (an incremental mark cycle lets the program change the heap
 * while the collector marks it, so the traversal at its end would not see
 * the heap the marks describe); else 0 (the call goes through). */
int hp_census_refuse_incremental(void);
/* libgc's functions are known (hp_real resolved). */
void hp_census_attach(void);
/* START of every collection (the world still runs). */
void hp_census_collection_start(void);
/* A collection has completed (marks final, finalization done). Drains the
 * logs, judges every record, and takes a census when one is due or
 * `force` is set, stamped with the profile time at `start_ns` (when the
 * collection began). */
void hp_census_on_collection(int force, uint64_t start_ns);
/* Would a collection that started at `start_ns` take a census? */
int hp_census_due(int force, uint64_t start_ns);
/* Traversal modes (retainer, rset=): the census needs a heap traversal at
 * MARK_END; these are called from the collection events. */
int hp_census_wants_traversal(void);
void hp_census_before_stop(void);          /* lock held, world running */
void hp_census_traverse(uint64_t mark_ns); /* MARK_END, world stopped */
void hp_census_mark_end(void);             /* every MARK_END, after the above */
/* A census when no collection can be had (the collector is disabled at
 * exit): every record not yet found dead counts as live. Lock held. */
void hp_census_without_collection(const char *why);
/* The program freed the object at `base`, on the thread whose log is
 * `mine` (NULL: none or unknown) (caller holds the lock). */
typedef struct hp_tlog hp_tlog;   /* (core/hp_shadow.h) */
void hp_census_note_free(uintptr_t base, hp_tlog *mine);
/* The program resized the object at `base` in place (lock held). */
void hp_census_note_resize(uintptr_t base, uint32_t granted, uint32_t req);
/* Seconds (profile clock) of the last census, or 0. */
double hp_census_last_time(void);
/* Collections seen so far. */
uint64_t hp_census_collections(void);
/* Finish the files: closing sample, .prof, and the line on stderr.
 * `from_signal`: called from a SIGINT/SIGTERM handler (async-signal-safe
 * path; skips output if a census is being written). */
void hp_census_finish(int from_signal);
/* After fork() in the child: new files, new clock, same records. */
void hp_census_postfork_child(void);

#endif
