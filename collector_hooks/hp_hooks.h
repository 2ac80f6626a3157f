/* hp_hooks: heapprof's place in the collector: its collection-event
 * callback and static-roots filter, installed once, with whatever the
 * program sets through the interposed setters chained behind them; and the
 * forced collection when a census is due and no collection came. */
#ifndef HP_HOOKS_H
#define HP_HOOKS_H
#include "core/hp_gc.h"
#include "core/hp_thread.h"

/* Install the hooks (hp_real must be resolved). */
void hp_hooks_install(void);
/* Allocation path, outermost call, when the thread's countdown reaches 0:
 * read the clock and force a collection when a census is overdue. */
void hp_hooks_clock_check(hp_thread *t);
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
