/* hp_unwind_walk: the walk by cached recipes (its contract in
 * core/hp_unwind.h), inline, for the capture on the allocation path
 * (core/hp_capture.c): a call and its prologue less per allocation
 * (trees.c depth 14 under callgrind: 2,619.7M -> 2,533.2M instructions,
 * 27 an object).
 * A frame without a recipe, or a thread without caches, goes to
 * hp_unwind_walk_slow (libunwind, which teaches the cache).
 * Allocation path only (not signal-safe: the slow walk's libunwind may
 * lock). */
#ifndef HP_UNWIND_WALK_H
#define HP_UNWIND_WALK_H
#include <stdint.h>

#include "core/hp_capture_cache.h"
#include "core/hp_recipe_cache.h"
#include "core/hp_thread.h"
#include "core/hp_unwind.h"

/* The thread's stack as one unsigned compare: `a` is a readable, aligned
 * word when a - lo <= span and a % 8 == 0. */
typedef struct { uintptr_t lo, span; } hp_uw_span;

static inline int hp_uw_readable(hp_uw_span s, uintptr_t a)
{
    return a - s.lo <= s.span && !(a & 7);
}

static inline hp_uw_span hp_uw_span_of(const hp_thread *t)
{
    hp_uw_span s = { t->stack_lo, t->stack_hi - t->stack_lo - 8 };
    return s;
}

/* Frame state: what a recipe transforms. */
typedef struct { uintptr_t ip, sp, bp; } hp_uw_frame;

/* Apply a recipe; 0 when the result is not a plausible caller. */
static inline int hp_uw_apply(hp_uw_span s, const hp_recipe *r, hp_uw_frame *f)
{
    uintptr_t cfa = (r->flags & HP_RECIPE_CFA_RBP ? f->bp : f->sp) + (intptr_t)r->cfa_off;
    if (!hp_uw_readable(s, cfa - 8) || cfa <= f->sp) return 0;
    uintptr_t bp = f->bp;
    if (r->flags & HP_RECIPE_RBP_SAVED) {
        uintptr_t a = cfa + (intptr_t)r->rbp_off;
        if (!hp_uw_readable(s, a)) return 0;
        bp = *(const uintptr_t *)a;
    }
    f->ip = *(const uintptr_t *)(cfa - 8);
    f->sp = cfa;
    f->bp = bp;
    return f->ip >= 4096;
}

/* The walk when the recipes cannot make it: libunwind from here (a frame
 * without a recipe, taught to the cache), or unw_backtrace (a thread
 * without caches or a known stack); every fns[i] HP_FN_UNKNOWN. */
int hp_unwind_walk_slow(hp_thread *t, void *ret, uintptr_t *out, uintptr_t *fns, int max);

/* The walk of core/hp_unwind.h: return addresses from `ret` outwards. */
static inline __attribute__((always_inline)) int
hp_unwind_walk_inline(hp_thread *t, void *frame, void *ret, uintptr_t *out, uintptr_t *fns,
                      int max)
{
    t->walk_left_out = 0;
    if (!t->caches || !t->stack_hi) return hp_unwind_walk_slow(t, ret, out, fns, max);
    /* The wrapper keeps a frame pointer: its caller resumes with RSP just
     * above the saved RBP and return address, and RBP as saved. */
    hp_uw_frame f;
    f.ip = (uintptr_t)ret;
    f.sp = (uintptr_t)frame + 16;
    f.bp = ((const uintptr_t *)frame)[0];
    hp_uw_span span = hp_uw_span_of(t);
    const hp_recipe *tab = t->caches->recipe;
    /* The walk ends after `stop` frames: `max`, and one more for each
     * frame left out, up to HP_WALK_LIMIT. */
    int n = 0, stop = max < HP_WALK_LIMIT ? max : HP_WALK_LIMIT;
    for (;;) {
        const hp_recipe *r = hp_recipe_find(tab, f.ip);
        out[n] = f.ip;
        fns[n] = r ? r->fn : HP_FN_UNKNOWN;
        if (r && (r->flags & (HP_RECIPE_START | HP_RECIPE_END | HP_RECIPE_LAST |
                              HP_RECIPE_LEFT_OUT | HP_RECIPE_THREAD_START))) {
            /* The thread's start code, where its stacks end (Note [Where a
             * thread's stacks end], core/hp_capture.c). */
            if ((r->flags & HP_RECIPE_THREAD_START) && f.sp == t->start_sp) break;
            if (r->flags & (HP_RECIPE_START | HP_RECIPE_END | HP_RECIPE_LAST)) {
                if (r->flags & HP_RECIPE_LAST) t->walk_reached_last = 1;
                /* The start code is not part of the stack's name; main() is its end. */
                if (!(r->flags & HP_RECIPE_START) || n == 0) n++;
                break;
            }
            /* libgc's frames (a thread's start routine, a finalizer's
             * caller) are walked through but do not count: a thread's
             * shallow stacks reach them, and counting them cut the walk
             * short of `max` kept frames, to be walked again deeper. */
            if (stop < HP_WALK_LIMIT) {
                stop++;
                t->walk_left_out++;
            }
        }
        /* (A last frame without a recipe goes to the slow walk too, which
         * learns one for it: else its function is looked up by name at
         * every capture, name_fns in core/hp_capture.c -- with depth=2 on
         * trees.c, a symbol look-up and strcmp per object.) */
        if (!r) return hp_unwind_walk_slow(t, ret, out, fns, max);
        if (++n == stop) break;
        if (!hp_uw_apply(span, r, &f)) break;
    }
    return n;
}

#endif
