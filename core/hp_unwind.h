/* hp_unwind: call stacks by libunwind, made fast by caching.
 *
 * libunwind works out from DWARF call-frame information where each frame's
 * caller is. heapprof asks it once per return address and keeps the answer
 * (a recipe): where the canonical frame address (CFA) is -- RSP or RBP plus
 * a constant -- and where the caller's RBP was saved. Later walks through
 * the same code need no libunwind call: a recipe per frame, read from a
 * per-thread cache. A return address with no recipe yet sends the walk to
 * libunwind once (unw_step over the whole stack), which teaches the cache;
 * a frame whose recipe libunwind's own result does not confirm (signal
 * frames, stack realignment) is never cached and always walked by it.
 * Allocation path only (not signal-safe: libunwind may lock). */
#ifndef HP_UNWIND_H
#define HP_UNWIND_H
#include <stdatomic.h>
#include <stdint.h>

#include "core/hp_thread.h"

/* Where libunwind's code is (once loaded; 0, 0 before): its own calls to
 * libc (a pipe it uses to validate addresses) are told apart by return
 * address (preload/hp_libc_wrappers.c). */
extern uintptr_t hp_unwind_lo, hp_unwind_hi;
static inline int hp_unwind_called_from(uintptr_t ret)
{
    return ret >= hp_unwind_lo && ret < hp_unwind_hi;
}

/* Load libunwind privately. 0 when available. */
int hp_unwind_init(void);
/* Return addresses from `ret` (the wrapper's return address) outwards,
 * `max` of them, and one more for each frame whose recipe is noted
 * HP_RECIPE_LEFT_OUT (libgc's and heapprof's, not part of a stack's name:
 * counted in t->walk_left_out), at most HP_WALK_LIMIT in all; fewer where
 * the stack ends (main, the outermost frame, a frame the walk cannot
 * pass). `frame` is the wrapper's frame address. fns[i] is the function
 * of out[i] as noted in its recipe (hp_unwind_note_fn), or HP_FN_UNKNOWN.
 * (Six arguments: all in registers.) */
#define HP_FN_UNKNOWN UINTPTR_MAX
#define HP_WALK_LIMIT (HP_MAX_DEPTH + 24)
/* (That walk is hp_unwind_walk_inline, core/hp_unwind_walk.h: inline in
 * the capture on the allocation path.) */
/* Keep `fn` as the function of return address `ip` in its recipe (when
 * the thread has one for ip), with `end` (HP_RECIPE_END, HP_RECIPE_START,
 * HP_RECIPE_LEFT_OUT or 0): where later walks through ip stop, or that
 * they do not count it. */
void hp_unwind_note_fn(hp_thread *t, uintptr_t ip, uintptr_t fn, uint32_t end);
/* How many walks libunwind made itself (a return address without a recipe
 * in the thread's cache); the rest were walked by recipes. */
extern _Atomic uint64_t hp_unwind_slow_walks_;
static inline uint64_t hp_unwind_slow_walks(void)
{
    return atomic_load_explicit(&hp_unwind_slow_walks_, memory_order_relaxed);
}
/* The same with libunwind's unw_backtrace for every walk (unwind=libunwind-raw). */
int hp_unwind_walk_raw(void *ret, uintptr_t *out, int max);

#endif
