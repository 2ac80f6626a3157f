/* hp_fast_alloc: GC_malloc and GC_malloc_atomic straight to libgc under
 * sample= and stacks=no (hp_rt.fast_alloc), where most calls record
 * nothing: the allowance that lets a call skip heapprof's whole path
 * (enter and leave, preload/hp_wrappers.c), and how the calls libgc makes
 * from inside such a call are known. Inline only; the caller's thread.
 *
 * Note [The fast path's allowance]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A thread's fast_left is the bytes its GC_malloc and GC_malloc_atomic may
 * still hand out without the whole path: a call of lb bytes (1 for 0) that
 * leaves it above 0 takes them from it and jumps to libgc's GC_malloc_kind
 * (a tail call, no frame: 17 instructions, where the old fast path's
 * countdowns, frame and call took 37 under sample=, 29 under stacks=no;
 * callgrind, trees.c 14, 3.2 million calls). The whole path arms it when
 * it leaves the
 * program's outermost call (fast_left = fast_armed): at most the bytes to
 * the thread's next sample, and 16 bytes for each call the clock check
 * lets pass (check_every: at most 64 KiB). The next outermost call into
 * the whole path settles it first: the bytes the fast path took
 * (fast_armed - fast_left) come off sample_left, and the allowance is 0
 * until that call leaves. So every byte counts once towards the next
 * sample, in order, and the sample falls in the same allocation as without
 * the fast path (a call that would reach 0 takes the whole path). While a
 * call is inside (depth > 0) there is no allowance: a GC_malloc nested in
 * another entry point takes the whole path and counts nothing.
 *
 * Note [Nested by address]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The fast path does not count itself in depth, so the entry points libgc
 * calls from inside it come to heapprof at depth 0:
 *  - the refill of a thread's free lists, GC_generic_malloc_many, and any
 *    other call from libgc's own text (hp_rt.gc_lo, gc_hi): nested when
 *    the return address is there;
 *  - GC_malloc_kind_global, which GC_malloc_kind tail-calls for the first
 *    objects of a size and for large ones: its return address is then the
 *    program's, and its stack top (CFA) and return address are those the
 *    fast path left in fast_cfa and fast_ret. The outermost calls of the
 *    whole path clear them. So a program's own call of
 *    GC_malloc_kind_global is taken as nested only if it came through the
 *    same call instruction, at the same stack depth, as a GC_malloc just
 *    before it that took the fast path, with no other GC_ call between (a
 *    call through a pointer that is GC_malloc one time and
 *    GC_malloc_kind_global the next): that object would not be sampled.
 * A nested call is forwarded: no record, no clock check, no allowance
 * counted (the fast call counted its bytes). libgc calls an allocation
 * entry point from its own text only from inside another; one it made on
 * its own, outside any call of the program's, would not be sampled.
 * tests/progs/sampled.c's direct site fails without the return address's
 * test (half its objects), its medium site without the stack top's (78%
 * too many). */
#ifndef HP_FAST_ALLOC_H
#define HP_FAST_ALLOC_H
#include "core/hp_rt.h"
#include "core/hp_sample.h"
#include "core/hp_thread.h"

#define HP_FAST_BYTES_PER_CHECK 16

/* Was this entry point called from libgc's own code? */
static inline int hp_fast_from_libgc(const void *ret)
{
    return (uintptr_t)ret - hp_rt.gc_lo < hp_rt.gc_hi - hp_rt.gc_lo;
}

/* The outermost call into the whole path: the bytes the fast path took
 * count towards the next sample; no allowance while the call is inside. */
static inline void hp_fast_settle(hp_thread *t)
{
    if (t->fast_armed) {
        if (hp_sample_on) t->sample_left -= t->fast_armed - t->fast_left;
        t->fast_left = t->fast_armed = 0;
    }
}

/* The program's outermost call leaves the whole path: a new allowance. */
static inline void hp_fast_arm(hp_thread *t)
{
    if (!hp_rt.fast_alloc || !t->ready) return;
    int64_t a = (int64_t)(t->check_every ? t->check_every : 1) * HP_FAST_BYTES_PER_CHECK;
    if (hp_sample_on) {
        if (!t->sample_state) return;   /* (the sampler starts in the whole path) */
        if (t->sample_left < a) a = t->sample_left;
    }
    if (a > 0) t->fast_left = t->fast_armed = a;
}
#endif
