/* hp_capture: stack capture by libunwind or by frame pointers. */
#include "core/hp_sys.h"
#include "core/hp_capture.h"
#include "core/hp_capture_cache.h"
#include "core/hp_stacks.h"
#include "core/hp_config.h"
#include "core/hp_unwind.h"
#include "core/hp_unwind_walk.h"
#include "core/hp_symbols.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

int hp_capture_mode_;            /* 0 fp, 1 libunwind (cached), 2 libunwind-raw */
#define capture_mode hp_capture_mode_
static int capture_depth = 8;
static int by_call;            /* frames=call: frames are call sites */
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

void hp_capture_init(int unwind, int depth, int frames_by_call)
{
    capture_depth = depth;
    by_call = frames_by_call;
    hp_capture_caches_init();
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
    if (n > 0) (void)!hp_sys_write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
}

/* main()'s bytes (looked up before the first frame-pointer walk): a
 * stack's name ends at main() (semantics.md, "cut at main"), so walks stop
 * there. */
static _Atomic uintptr_t main_lo, main_len;


int hp_fp_walk(void *frame, void *ret, uintptr_t lo, uintptr_t hi,
               uintptr_t *out, int max)
{
    int n = 0;
    if (max <= 0) return 0;
    uintptr_t end_len = atomic_load_explicit(&main_len, memory_order_acquire);
    uintptr_t end_lo = atomic_load_explicit(&main_lo, memory_order_relaxed);
    out[n++] = (uintptr_t)ret;
    if ((uintptr_t)ret - 1 - end_lo < end_len) return n;
    uintptr_t fp = (uintptr_t)frame;
    while (n < max) {
        if (fp < lo || fp + 16 > hi || (fp & 7)) break;
        uintptr_t next = ((uintptr_t *)fp)[0];
        /* Frames grow down: the caller's frame is strictly above ours. */
        if (next <= fp || next + 16 > hi || (next & 7)) break;
        uintptr_t pc = ((uintptr_t *)next)[1];
        if (pc < 4096) break;
        out[n++] = pc;
        if (pc - 1 - end_lo < end_len) break;
        fp = next;
    }
    return n;
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
 * recursion through inlined copies all name the same centre. With
 * frames=call, the return address itself (each call site its own centre,
 * as GHC's -fprof-auto-calls). */
static inline uintptr_t function_of(hp_thread *t, uintptr_t pc)
{
    hp_pcfn *e = t->caches ? &t->caches->pcfn[(pc ^ (pc >> 10)) & (HP_PCFN_SLOTS - 1)] : NULL;
    if (e && e->pc == pc) return e->fn;
    uintptr_t fn = hp_symbols_function_start(pc - 1);
    /* frames=call: the call site itself (in a module, as a function). */
    if (by_call && fn) fn = pc;
    /* In no module: with libunwind, JIT-compiled code (its return address
     * is real: libunwind's step from the frame below found it); with
     * frame pointers, more likely a chain broken by a function without
     * one (left out: fn 0). */
    if (!fn && capture_mode != 0 && pc >= 4096) fn = HP_FRAME_JIT;
    if (e) {
        e->pc = pc;
        e->fn = fn;
    }
    return fn;
}

/* Where a walk through a frame of function fn may stop: the name of a
 * stack ends at main(), or before the C library's start code when main()
 * has no symbol (hp_names.c); frames beyond never show. */
static uint32_t walk_end_at(uintptr_t fn)
{
    if (fn == 0 || fn == HP_FN_UNKNOWN || fn == HP_FRAME_JIT) return 0;
    hp_sym_info info = hp_symbols_lookup(fn);
    if (!info.function) return 0;
    if (strcmp(info.function, "main") == 0) return HP_RECIPE_END;
    if (strcmp(info.function, "__libc_start_main") == 0 ||
        strcmp(info.function, "__libc_start_call_main") == 0)
        return HP_RECIPE_START;
    return 0;
}

/* Is function fn the C library's? (Its frames beyond a stack's outermost
 * named one are cut from names: hp_writer/hp_names_sigsafe.c.) */
static int in_libc(uintptr_t fn)
{
    if (fn == 0 || fn == HP_FN_UNKNOWN || fn == HP_FRAME_JIT) return 0;
    hp_sym_info info = hp_symbols_lookup(fn);
    return info.module && strncmp(info.module, "libc.so", 7) == 0;
}

#define HP_EDGE_SKIP 0x80000000u   /* in hp_edge.child: the frame is left out */

static int excluded(uintptr_t pc)
{
    for (int k = 0; k < nexcl; k++)
        if (pc >= excl_lo[k] && pc < excl_hi[k]) return 1;
    return 0;
}

/* The stack `parent` with function `fn` pushed on top, GHC's way: a
 * function already on the stack cuts it back to there (so pushing the top
 * function again changes nothing). Functions of libgc and heapprof, and
 * frames in no module (fn 0: a frame-pointer chain that went through a
 * function without one), are left out: the result is then `parent`,
 * flagged HP_EDGE_SKIP. */
static uint32_t push_fn_slow(uint32_t parent, uintptr_t fn)
{
    if (fn == 0 || excluded(fn)) return parent | HP_EDGE_SKIP;
    const hp_stack *p = hp_stacks_get(parent);
    uintptr_t frames[HP_MAX_DEPTH + 1];
    uint32_t n = p->n < HP_MAX_DEPTH ? p->n : HP_MAX_DEPTH;
    frames[0] = fn;
    for (uint32_t i = 0; i < n; i++) frames[i + 1] = p->frames[i];
    uint32_t id = hp_stacks_intern(frames, (uint32_t)hp_collapse_recursion(frames, (int)n + 1));
    return id == UINT32_MAX ? parent : id;   /* table full: the shorter stack */
}

/* Push function `fn` through the thread's edge cache; returns the child
 * id, with HP_EDGE_SKIP set when the frame was left out. */
static inline uint32_t push(hp_thread *t, uint32_t parent, uintptr_t fn)
{
    if (!t->caches) return push_fn_slow(parent, fn);
    uint64_t h = (fn ^ ((uint64_t)parent << 20)) * 0x9e3779b97f4a7c15ull;
    hp_edge *e = &t->caches->edge[h >> (64 - 12)];
    if (e->pc == fn && e->parent == parent && e->child) return e->child - 1;
    uint32_t child = push_fn_slow(parent, fn);
    e->pc = fn;
    e->parent = parent;
    e->child = child + 1;
    return child;
}

/* Push frames (functions), outermost first; returns the stack id and
 * counts the frames left out in *skipped.
 *
 * The stack so far after each frame depends only on the frames pushed so
 * far, and consecutive captures on a thread share their outer frames (the
 * program's main and the C library's start, an outer loop): the thread's
 * memo keeps the last capture's frames and the stack after each, so only
 * the frames below the part shared with the last capture are pushed. A
 * run of frames of one function (a recursion, or call sites within one
 * function) is one push: the pushes after the first change nothing. */
static inline __attribute__((always_inline)) uint32_t
push_fns(hp_thread *t, const uintptr_t *keys, int n, int *skipped)
{
    hp_memo *m = t->caches ? &t->caches->memo : NULL;
    int j = 0;
    if (m) {
        int lim = n < (int)m->n ? n : (int)m->n;
        while (j < lim && keys[n - 1 - j] == m->key[j]) j++;
    }
    uint32_t id = j ? m->id[j - 1] : empty_stack;
    int sk = j ? m->skipped[j - 1] : 0;
    uintptr_t prev = j ? keys[n - j] : HP_FN_UNKNOWN;
    for (int k = j; k < n; k++) {
        uintptr_t key = keys[n - 1 - k];
        if (key != prev) {
            prev = key;
            uint32_t next = push(t, id, key);
            if (next & HP_EDGE_SKIP) sk++;
            id = next & ~HP_EDGE_SKIP;
        }
        if (m) {
            m->key[k] = key;
            m->id[k] = id;
            m->skipped[k] = (uint16_t)sk;
        }
    }
    if (m) m->n = (uint32_t)n;
    *skipped = sk;
    return id;
}

/* unwind=libunwind: the walk names each frame's function from its recipe;
 * a frame whose recipe does not know it yet is looked up once and noted
 * (libgc's and heapprof's functions noted left out: later walks go on past
 * them, see hp_unwind_walk_inline). */
__attribute__((noinline)) static int name_fns(hp_thread *t, uintptr_t *raw, uintptr_t *fns,
                                              int i, int n);

static inline __attribute__((always_inline)) int
walk_fns(hp_thread *t, void *frame, void *ret, uintptr_t *raw, uintptr_t *fns, int max)
{
    int n = hp_unwind_walk_inline(t, frame, ret, raw, fns, max);
    for (int i = 0; i < n; i++)
        if (fns[i] == HP_FN_UNKNOWN) return name_fns(t, raw, fns, i, n);
    return n;
}

_Atomic uint64_t hp_capture_frames_named_;   /* read by hp_capture_frames_named */

/* walk_fns from frame i, the first whose recipe does not name it. */
static int name_fns(hp_thread *t, uintptr_t *raw, uintptr_t *fns, int i, int n)
{
    for (; i < n; i++) {
        if (fns[i] != HP_FN_UNKNOWN) continue;
        atomic_fetch_add_explicit(&hp_capture_frames_named_, 1, memory_order_relaxed);
        fns[i] = function_of(t, raw[i]);
        uint32_t end = walk_end_at(fns[i]);
        if (excluded(fns[i])) end |= HP_RECIPE_LEFT_OUT;
        hp_unwind_note_fn(t, raw[i], fns[i], end);
        /* Stop where later walks through this frame will stop. */
        if (end & HP_RECIPE_END) return i + 1;
        if ((end & HP_RECIPE_START) && i > 0) return i;
    }
    return n;
}

/* Note [Where a thread's stacks end]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A stack's name ends at main() (walk_end_at), and in a thread other than
 * the first, at its outermost frame that is neither the C library's nor
 * left out (libgc's, heapprof's): the C library's frames beyond it, its
 * thread start code, are cut from names (hp_writer/hp_names_sigsafe.c),
 * libgc's (GC_inner_start_routine, through which GC_pthread_create starts
 * a thread) are never part of one. Those outer frames stay as they are
 * for the thread's life, yet the walk went through them at every capture
 * of a shallow stack: four frames of bench/trees_threads.c's twelve. So
 * the first walk of a thread that reaches the outermost frame
 * (HP_RECIPE_LAST) looks, once, for the first frame beyond the outermost
 * named one, and the thread's walks stop there (hp_unwind_walk_inline:
 * the frame with that stack pointer and return address, so that a walk
 * on another stack, a coroutine's, never stops early; its return
 * address's recipe, in the thread's own table, is flagged
 * HP_RECIPE_THREAD_START, so that the test costs nothing at other
 * frames -- a test of every frame's stack pointer cost the main thread's
 * walks 9 instructions an allocation on trees.c depth 14). A recipe
 * taught again after its slot was taken loses the flag: the walk then
 * goes on to the end, as before. A stack then holds fewer frames, the
 * same name. unwind=libunwind only (the frame-pointer walk's chain ends
 * there by itself, or breaks sooner). */
__attribute__((noinline, cold)) static void learn_thread_start(hp_thread *t, void *frame,
                                                               void *ret)
{
    t->walk_reached_last = 0;
    uintptr_t ip[HP_WALK_LIMIT], sp[HP_WALK_LIMIT], fn[HP_WALK_LIMIT];
    hp_uw_frame f;
    f.ip = (uintptr_t)ret;
    f.sp = (uintptr_t)frame + 16;
    f.bp = ((const uintptr_t *)frame)[0];
    hp_uw_span span = hp_uw_span_of(t);
    int n = 0;
    for (;;) {
        const hp_recipe *r = hp_recipe_find(t->caches->recipe, f.ip);
        if (!r || r->fn == HP_FN_UNKNOWN) return;   /* (looked for again at the next) */
        ip[n] = f.ip;
        sp[n] = f.sp;
        fn[n] = r->fn;
        n++;
        if (r->flags & (HP_RECIPE_START | HP_RECIPE_END)) break;   /* (a main thread's) */
        if (r->flags & HP_RECIPE_LAST) {
            int p = n - 1;
            while (p >= 0 && (excluded(fn[p]) || in_libc(fn[p]))) p--;
            if (p >= 0 && p + 1 < n) {
                t->start_sp = sp[p + 1];
                hp_unwind_note_fn(t, ip[p + 1], fn[p + 1], HP_RECIPE_THREAD_START);
            }
            break;
        }
        if (n == HP_WALK_LIMIT || !hp_uw_apply(span, r, &f)) break;
    }
    t->start_learned = 1;
}

static inline __attribute__((always_inline)) uint32_t
capture_by_fn(hp_thread *t, void *frame, void *ret)
{
    uintptr_t raw[HP_WALK_LIMIT], fns[HP_WALK_LIMIT];
    int got = walk_fns(t, frame, ret, raw, fns, capture_depth);
    if (__builtin_expect(t->walk_reached_last, 0) && !t->start_learned && t->caches)
        learn_thread_start(t, frame, ret);
    int skipped = 0;
    uint32_t id = push_fns(t, fns, got, &skipped);
    if (!skipped) return id;
    /* Frames left out: the walk went on past those it knew to be libgc's
     * or heapprof's. Walk again, further, only where it stopped at its
     * count (the stack goes on) with fewer than `capture_depth` frames
     * kept: some were named libgc's or heapprof's only after it (a first
     * walk through them). Then drop those and cut to depth. */
    /* (The frames kept are counted only where the walk stopped at its
     * count: a thread's walk, which goes through libgc's start routine to
     * its start below that count, counted them at every capture --
     * bench/trees_threads.c depth 14, one thread, under callgrind: 125
     * instructions an allocation of the 962 heapprof added.) */
    if (got != capture_depth + t->walk_left_out || got >= HP_WALK_LIMIT) return id;
    int kept = 0;
    for (int i = 0; i < got; i++) kept += !excluded(fns[i]);
    if (kept >= capture_depth) return id;
    got = walk_fns(t, frame, ret, raw, fns, capture_depth + 24);
    int n = drop_excluded(fns, got);
    if (n > capture_depth) n = capture_depth;
    return push_fns(t, fns, n, &skipped);
}

static int walk_pcs(hp_thread *t, void *frame, void *ret, uintptr_t *out, int max)
{
    if (capture_mode == 2) return hp_unwind_walk_raw(ret, out, max);
    return hp_fp_walk(frame, ret, t->stack_lo, t->stack_hi, out, max);
}

/* Find main() before the first frame-pointer walk, so that every capture
 * stops there, the first as the rest (one stack per call path). */
static _Atomic int main_looked_up;

static void look_up_main(void)
{
    uintptr_t lo, hi;
    if (hp_symbols_program_function("main", &lo, &hi) == 0) {
        atomic_store_explicit(&main_lo, lo, memory_order_relaxed);
        atomic_store_explicit(&main_len, hi - lo, memory_order_release);
    }
    atomic_store_explicit(&main_looked_up, 1, memory_order_release);
}

/* The functions of return addresses pc[0..n-1], in place (function_of,
 * through the thread's cache), so that the pushes go by function: a run
 * of frames of one function (a recursion: trees.c's make() is eight of
 * them) is one push instead of one per frame. The stack is the same. */
static void to_functions(hp_thread *t, uintptr_t *pc, int n)
{
    for (int i = 0; i < n; i++) pc[i] = function_of(t, pc[i]);
}

static uint32_t capture_by_pc(hp_thread *t, void *frame, void *ret)
{
    if (!atomic_load_explicit(&main_looked_up, memory_order_acquire)) look_up_main();
    uintptr_t raw[HP_MAX_DEPTH + 24];
    int got = walk_pcs(t, frame, ret, raw, capture_depth);
    int skipped = 0;
    to_functions(t, raw, got);
    uint32_t id = push_fns(t, raw, got, &skipped);
    if (!skipped || got < capture_depth) return id;
    got = walk_pcs(t, frame, ret, raw, capture_depth + 24);
    to_functions(t, raw, got);
    int n = drop_excluded(raw, got);
    if (n > capture_depth) n = capture_depth;
    return push_fns(t, raw, n, &skipped);
}

uint32_t hp_capture_ccs(hp_thread *t, void *frame, void *ret)
{
    if (t->cc_depth > 0) {
        uintptr_t raw[HP_MAX_DEPTH];
        int have = t->cc_depth < HP_CC_MAX ? t->cc_depth : HP_CC_MAX;
        int n = have < capture_depth ? have : capture_depth;
        for (int i = 0; i < n; i++)
            raw[i] = HP_FRAME_EXPLICIT | t->cc[have - 1 - i];
        uint32_t id = hp_stacks_intern(raw, (uint32_t)n);
        return id == UINT32_MAX ? empty_stack : id;
    }
    return capture_mode == 1 ? capture_by_fn(t, frame, ret) : capture_by_pc(t, frame, ret);
}
