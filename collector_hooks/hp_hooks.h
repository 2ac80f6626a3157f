/* hp_hooks: heapprof's place in the collector: its collection-event
 * callback and static-roots filter, installed once, with whatever the
 * program sets through the interposed setters chained behind them; and the
 * forced collection when a census is due and no collection came. */
#ifndef HP_HOOKS_H
#define HP_HOOKS_H
#include "collector_hooks/hp_schemes.h"
#include "core/hp_gc.h"
#include "core/hp_sample.h"
#include "core/hp_thread.h"

/* Install the hooks (hp_real must be resolved). */
void hp_hooks_install(void);
/* Allocation path, outermost call, when the thread's countdown reaches 0:
 * read the clock and force a collection when a census is overdue. */
void hp_hooks_clock_check(hp_thread *t);
/* Without interval= written, a collection is forced only while forced
 * collections so far have taken at most this share of the program's own
 * time: a forced collection marks the whole live heap, so on a big heap
 * (1 GB: about a second each) forcing one every 1.25 intervals would cost
 * more than everything else heapprof does. */
#define HP_FORCE_SHARE 0.10
/* ... and under sample=, the mode for a program in production, a
 * hundredth. Its censuses are estimates from a few objects, and an
 * unsampled allocation costs a few instructions, so the forced
 * collections were its largest cost: trees.c depth 18 (30 MB live, 119
 * collections of its own) forced 0-6 of them, up to 0.125 s of a 3 s run;
 * at a hundredth 0-3 (0.053 s at most), at the same 41-49 censuses (seven
 * interleaved runs of each). Go's heap profile never forces one. */
#define HP_FORCE_SHARE_SAMPLED 0.01

/* A census due but not taken is forced this many intervals after the
 * last (doc/semantics.md): half an interval after it fell due, or a
 * quarter in the modes whose census walks the heap (retainer, roots,
 * retainer with bands=). A quarter, the wait of every mode until
 * 2026-11-29, forced 11-22 of trees.c depth 18's 125 collections in mode
 * cc and 4-15 in mode ldv, where a collection also rebuilds the address
 * index and protects the heap; half an interval 0-6 and 0-4, for 6-12%
 * fewer censuses (ldv: 8.98 -> 8.27 s, medians of five interleaved
 * runs). The traversing modes keep the quarter: walk=auto chooses a
 * census's walk from the census before, and with half an interval Guile
 * sorting 300,000 strings had a depth-first walk given up mid-sort in 4
 * runs of 20 (traversal 3.3-4.8 times its mark), against 1 of 20 with
 * the quarter (5.2), interleaved. */
#define HP_FORCE_AFTER 1.5
#define HP_FORCE_AFTER_TRAVERSING 1.25
static inline double hp_hooks_force_after(void)
{
    return hp_schemes_traverse() ? HP_FORCE_AFTER_TRAVERSING : HP_FORCE_AFTER;
}

/* Without interval= written, a forced collection also waits until this
 * many times the last collection's length (the collector's run and
 * heapprof's work in it) has passed since the last census. Where a
 * collection is quick (small heaps: a few milliseconds) this changes
 * nothing; where it is long, forced collections take at most about a
 * tenth of the time between censuses, and none is forced while the
 * collector runs often enough by itself. On bench/heap_sweep.c with 1 GB
 * live the collector's own collections (0.85 s each) came about once a
 * second, and the share alone let five forced ones cost a tenth of the
 * run; with this wait none is forced (512 MB: 30 censuses with 4 forced,
 * 29 without). */
#define HP_FORCE_COST 10.0

/* The share forced collections may take without interval= written. */
static inline double hp_hooks_force_share(void)
{
    return hp_sample_on ? HP_FORCE_SHARE_SAMPLED : HP_FORCE_SHARE;
}

/* window=: a collection now (the allocation path, outside the collector). */
void hp_hooks_window(void);
/* The program gave the collector code of its own to run at collections (a
 * start callback, mark procedures, a push_other_roots procedure, a
 * disclaim procedure): `ret` is the return address of the call that gave
 * it (calls from inside libgc itself do not count). */
void hp_hooks_program_code(uintptr_t ret);

/* A final collection with a census, at exit. */
void hp_hooks_final_collection(void);

/* The program's view of the chained slots (used by the setter wrappers). */
void hp_hooks_set_program_event_cb(GC_on_collection_event_proc fn);
GC_on_collection_event_proc hp_hooks_program_event_cb(void);
void hp_hooks_set_program_roots_cb(GC_has_static_roots_func fn);

#endif
