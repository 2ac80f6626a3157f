/* hp_capture: the allocating call stack, as a cost-centre stack id.
 * Runs on the allocation path of the allocating thread (never in a signal
 * handler or collector callback). */
#ifndef HP_CAPTURE_H
#define HP_CAPTURE_H
#include <stdatomic.h>
#include <stdint.h>

#include "core/hp_thread.h"
#include "core/hp_unwind.h"

/* Prepare the chosen unwinder (HP_UNWIND_*): frame-pointer walk, or
 * libunwind with cached recipes (hp_unwind.h), or libunwind for every walk;
 * libunwind falls back to frame pointers, with a warning, when it cannot be
 * loaded. */
void hp_capture_init(int unwind, int depth, int frames_by_call);
/* Frames inside the module containing `addr` (libgc, heapprof itself) are
 * left out of every stack, before it is cut to depth. */
void hp_capture_exclude_module_of(uintptr_t addr);
/* The cost-centre stack of the current allocation. `frame` is the wrapper's
 * frame address and `ret` its return address (into the program). */
uint32_t hp_capture_ccs(hp_thread *t, void *frame, void *ret);
/* With unwind=libunwind, how many stacks libunwind walked itself (the rest
 * were walked by cached recipes); -1 with another unwinder. */
extern int hp_capture_mode_;   /* 0 fp, 1 libunwind (cached), 2 libunwind-raw */
static inline int64_t hp_capture_libunwind_walks(void)
{
    return hp_capture_mode_ == 1 ? (int64_t)hp_unwind_slow_walks() : -1;
}
/* ... and how many frames its walks did not find named by their recipes,
 * named by symbol look-up instead (a few per return address; one per
 * object would be a walk that never learns). */
extern _Atomic uint64_t hp_capture_frames_named_;
static inline uint64_t hp_capture_frames_named(void)
{
    return atomic_load_explicit(&hp_capture_frames_named_, memory_order_relaxed);
}
/* Pure frame-pointer walk, exposed for tests: follows the saved-frame-pointer
 * chain from `frame` while it stays inside [lo, hi), strictly upward and
 * aligned; stops safely on a broken chain. */
int hp_fp_walk(void *frame, void *ret, uintptr_t lo, uintptr_t hi,
               uintptr_t *out, int max);

/* Collapse recursion in place, GHC's way (a frame already on the stack
 * cuts the stack back to it); frames innermost first. Returns the new
 * length. Exact addresses here; hp_names does the same with functions. */
int hp_collapse_recursion(uintptr_t *frames, int n);

#endif
