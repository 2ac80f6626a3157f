/* hp_helper: a second thread for heapprof's own work while the world is
 * stopped (level 7, base): the retainer traversal's walk shares its
 * heaviest step with it (retainer/hp_trace_scc_sigsafe.c, Note [Two
 * walkers]), as the collector's mark shares its work with its marker
 * threads.
 *
 * The thread is made at a traversal's first piece of work and ends at
 * hp_helper_end, before the world restarts, so the program never sees it:
 * it exists only while every thread of the program is stopped (or blocked
 * in the collector). Between pieces it waits (hp_helper_sigsafe.c, Note [A
 * kept helper]). It is made by a raw clone(2)
 * of the calling thread's process (no libc: pthread_create may take locks
 * a stopped thread holds, and would allocate), on a stack heapprof maps
 * at start-up, with every signal blocked (it never runs a handler of the
 * program's), and it shares the caller's thread pointer: the work it does
 * must touch no thread-local variable, take no lock but its own spin
 * locks, and call only heapprof's own code and the collector's read-only
 * queries (GC_base, GC_is_marked, GC_get_kind_and_size). */
#ifndef HP_HELPER_H
#define HP_HELPER_H
#include <stddef.h>

/* At start-up (normal context): map the helper's stack and count the
 * CPUs the process may run on. 0, or -1 (then no helper is ever run). */
int hp_helper_init(void);
/* Whether a helper can run: hp_helper_init succeeded, the process may
 * use two CPUs or more, and no one forbade it. */
int hp_helper_available(void);
/* No helper from now on: the heap may fault when read (ldv's protected
 * pages, whose faults a handler of heapprof's opens): the helper runs with
 * every signal blocked, and a blocked SIGSEGV kills the process. */
void hp_helper_forbid(void);
/* Start fn(arg) on the helper thread: 0, or -1 when it could not be made
 * (the caller then does the work alone). At most one at a time. */
int hp_helper_start(void (*fn)(void *), void *arg);
/* Make the thread now, with no work yet, so that a piece given later
 * (hp_helper_start, hp_helper_both) finds it running: 0, or -1 (then the
 * first hp_helper_start makes it). */
int hp_helper_warm(void);
/* Whether a made thread waits for work. */
int hp_helper_ready(void);
/* Wait until the started fn has returned (the thread stays: hp_helper_end). */
void hp_helper_join(void);
/* fn(mine) on the calling thread and fn(theirs) on the helper at the same
 * time, or both on the calling thread when no helper can be had. */
void hp_helper_both(void (*fn)(void *), void *mine, void *theirs);
/* fn(ctx, from, to, who) over [0, n), in chunks of `chunk` taken in turn
 * by the calling thread (who 0) and the helper (who 1, when one can be
 * had) from a shared counter (hp_helper_sigsafe.c, Note [Work in
 * chunks]); returns when every chunk is done. */
void hp_helper_chunks(void (*fn)(void *ctx, size_t from, size_t to, int who), void *ctx,
                      size_t n, size_t chunk);
/* The thread made by hp_helper_start waits for more work until this is
 * called, which ends it and waits until it is gone: called before the
 * world is restarted by whoever started work on it. */
void hp_helper_end(void);

#endif
