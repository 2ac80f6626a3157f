/* hp_capture: stack capture by libunwind or by frame pointers. */
#include "hp_capture.h"
#include "hp_stacks.h"
#include "hp_config.h"
#include "hp_unwind.h"
#include "../hp_writer/hp_symbols.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

static int capture_mode;        /* 0 fp, 1 libunwind (cached), 2 libunwind-raw */
static int capture_depth = 8;
static uint32_t empty_stack;   /* id of the stack with no frames */

#define HP_MAX_EXCLUDED 4
static uintptr_t excl_lo[HP_MAX_EXCLUDED], excl_hi[HP_MAX_EXCLUDED];
static int nexcl;

void hp_capture_exclude_module_of(uintptr_t addr)
{
    uintptr_t lo, hi;
    if (nexcl < HP_MAX_EXCLUDED && hp_symbols_module_span(addr, &lo, &hi) == 0) {
        excl_lo[nexcl] = lo;
        excl_hi[nexcl] = hi;
        nexcl++;
    }
}

/* Drop frames of excluded modules in place; returns the new count. */
static int drop_excluded(uintptr_t *f, int n)
{
    int out = 0;
    for (int i = 0; i < n; i++) {
        int keep = 1;
        for (int k = 0; k < nexcl; k++)
            if (f[i] >= excl_lo[k] && f[i] < excl_hi[k]) keep = 0;
        if (keep) f[out++] = f[i];
    }
    return out;
}

void hp_capture_init(int unwind, int depth)
{
    capture_depth = depth;
    empty_stack = hp_stacks_intern(NULL, 0);
    if (unwind == HP_UNWIND_FP) return;
    if (hp_unwind_init() == 0) {
        capture_mode = unwind == HP_UNWIND_LIBUNWIND_RAW ? 2 : 1;
        return;
    }
    char msg[512];
    int n = snprintf(msg, sizeof msg,
        "heapprof: cannot load libunwind.so.8 (%s); using frame pointers instead. "
        "Install Debian's libunwind8, or set unwind=fp to silence this.\n", dlerror());
    if (n > 0) (void)!write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
}

int hp_fp_walk(void *frame, void *ret, uintptr_t lo, uintptr_t hi,
               uintptr_t *out, int max)
{
    int n = 0;
    if (max <= 0) return 0;
    out[n++] = (uintptr_t)ret;
    uintptr_t fp = (uintptr_t)frame;
    while (n < max) {
        if (fp < lo || fp + 16 > hi || (fp & 7)) break;
        uintptr_t next = ((uintptr_t *)fp)[0];
        /* Frames grow down: the caller's frame is strictly above ours. */
        if (next <= fp || next + 16 > hi || (next & 7)) break;
        uintptr_t pc = ((uintptr_t *)next)[1];
        if (pc < 4096) break;
        out[n++] = pc;
        fp = next;
    }
    return n;
}

static int walk(hp_thread *t, void *frame, void *ret, uintptr_t *out, int max)
{
    switch (capture_mode) {
    case 1: return hp_unwind_walk(t, frame, ret, out, max);
    case 2: return hp_unwind_walk_raw(ret, out, max);
    default: return hp_fp_walk(frame, ret, t->stack_lo, t->stack_hi, out, max);
    }
}

int hp_collapse_recursion(uintptr_t *f, int n)
{
    /* GHC's rule, applied from the outermost frame in: pushing a frame that
     * is already on the stack cuts the stack back to it. */
    uintptr_t st[HP_MAX_DEPTH];
    int len = 0;
    for (int i = n - 1; i >= 0; i--) {
        int k = len - 1;
        while (k >= 0 && st[k] != f[i]) k--;
        if (k >= 0) len = k + 1;
        else st[len++] = f[i];
    }
    for (int i = 0; i < len; i++) f[i] = st[len - 1 - i];
    return len;
}

/* The function a return address belongs to: frames of a cost-centre stack
 * are functions (cost centres), so that call sites within one function and
 * recursion through inlined copies all name the same centre. */
static inline uintptr_t function_of(hp_thread *t, uintptr_t pc)
{
    hp_pcfn *e = t->caches ? &t->caches->pcfn[(pc ^ (pc >> 10)) & (HP_PCFN_SLOTS - 1)] : NULL;
    if (e && e->pc == pc) return e->fn;
    uintptr_t fn = hp_symbols_function_start(pc - 1);
    if (e) {
        e->pc = pc;
        e->fn = fn;
    }
    return fn;
}

/* The stack `parent` with the function of return address `pc` pushed on
 * top, GHC's way: a function already on the stack cuts it back to there. */
#define HP_EDGE_SKIP 0x80000000u   /* in hp_edge.child: the frame is left out */

static int excluded(uintptr_t pc)
{
    for (int k = 0; k < nexcl; k++)
        if (pc >= excl_lo[k] && pc < excl_hi[k]) return 1;
    return 0;
}

/* The stack `parent` with the function of return address `pc` pushed on
 * top, GHC's way: a function already on the stack cuts it back to there.
 * Frames of libgc and heapprof, and addresses in no module (a frame-pointer
 * chain that went through a function without one), are left out: the
 * result is then `parent`, flagged HP_EDGE_SKIP. */
static uint32_t push_slow(hp_thread *t, uint32_t parent, uintptr_t pc)
{
    if (excluded(pc)) return parent | HP_EDGE_SKIP;
    uintptr_t fn = function_of(t, pc);
    if (fn == 0) return parent | HP_EDGE_SKIP;
    const hp_stack *p = hp_stacks_get(parent);
    uintptr_t frames[HP_MAX_DEPTH + 1];
    uint32_t n = p->n < HP_MAX_DEPTH ? p->n : HP_MAX_DEPTH;
    frames[0] = fn;
    for (uint32_t i = 0; i < n; i++) frames[i + 1] = p->frames[i];
    uint32_t id = hp_stacks_intern(frames, (uint32_t)hp_collapse_recursion(frames, (int)n + 1));
    return id == UINT32_MAX ? parent : id;   /* table full: the shorter stack */
}

/* Push through the thread's edge cache; returns the child id, with
 * HP_EDGE_SKIP set when the frame was left out. */
static inline uint32_t push(hp_thread *t, uint32_t parent, uintptr_t pc)
{
    if (!t->caches) return push_slow(t, parent, pc);
    uint64_t h = (pc ^ ((uint64_t)parent << 20)) * 0x9e3779b97f4a7c15ull;
    hp_edge *e = &t->caches->edge[h >> (64 - 12)];
    if (e->pc == pc && e->parent == parent && e->child) return e->child - 1;
    uint32_t child = push_slow(t, parent, pc);
    e->pc = pc;
    e->parent = parent;
    e->child = child + 1;
    return child;
}

/* Push raw frames, outermost first; returns the stack id and counts the
 * frames left out in *skipped. */
static uint32_t push_all(hp_thread *t, const uintptr_t *raw, int n, int *skipped)
{
    uint32_t id = empty_stack;
    for (int i = n - 1; i >= 0; i--) {
        uint32_t next = push(t, id, raw[i]);
        if (next & HP_EDGE_SKIP) (*skipped)++;
        id = next & ~HP_EDGE_SKIP;
    }
    return id;
}

uint32_t hp_capture_ccs(hp_thread *t, void *frame, void *ret)
{
    uintptr_t raw[HP_MAX_DEPTH + 24];
    int n;
    if (t->cc_depth > 0) {
        int have = t->cc_depth < HP_CC_MAX ? t->cc_depth : HP_CC_MAX;
        n = have < capture_depth ? have : capture_depth;
        for (int i = 0; i < n; i++)
            raw[i] = HP_FRAME_EXPLICIT | t->cc[have - 1 - i];
        uint32_t id = hp_stacks_intern(raw, (uint32_t)n);
        return id == UINT32_MAX ? empty_stack : id;
    }
    int got = walk(t, frame, ret, raw, capture_depth);
    int skipped = 0;
    uint32_t id = push_all(t, raw, got, &skipped);
    if (!skipped || got < capture_depth) return id;
    /* Frames left out used up the depth: walk further, drop libgc's and
     * heapprof's frames, then cut to depth. (Rare: finalizers, callbacks.) */
    int want = capture_depth + 24;
    got = walk(t, frame, ret, raw, want);
    n = drop_excluded(raw, got);
    if (n > capture_depth) n = capture_depth;
    skipped = 0;
    return push_all(t, raw, n, &skipped);
}
