/* hp_wrappers: heapprof's definitions of every public bdwgc allocation and
 * deallocation entry point (gc.h, gc_mark.h, gc_inline.h, gc_typed.h,
 * gc_gcj.h, gc_disclaim.h) and of the callback setters it chains.
 *
 * Each wrapper calls the real function. A per-thread depth counts nested
 * GC_ calls (the collector calls itself through the PLT), and only the
 * outermost call of a nest records an object: its stack is captured and a
 * record appended to the thread's log. GC_invoke_finalizers resets the depth,
 * so that allocations made by finalizers (which run inside an allocation
 * call) count as the program's own. */
#include "core/hp_assert.h"
#include "core/hp_capture.h"
#include "core/hp_real.h"
#include "retainer/hp_rootrec.h"
#include "preload/hp_markproc_wrappers.h"
#include "core/hp_rt.h"
#include "core/hp_sample.h"
#include "preload/hp_lifecycle.h"
#include "preload/hp_fast_alloc.h"
#include "core/hp_thread.h"
#include "core/hp_shadow_log.h"
#include "collector_hooks/hp_census.h"
#include "collector_hooks/hp_hooks.h"
#include "ldv/hp_ldv.h"

#include <dlfcn.h>

#include <stdlib.h>
#include <string.h>

#define HP_FRAME __builtin_frame_address(0)
#define HP_RET __builtin_return_address(0)

static inline int attached(void)
{
    return atomic_load_explicit(&hp_rt.attached, memory_order_relaxed);
}

/* The real functions must be known before any wrapper can forward. */
__attribute__((noinline, cold)) static void attach_or_die(void)
{
    if (!hp_ensure_attached()) {
        hp_say("heapprof: a GC_ function was called but libgc's functions cannot be "
               "found in this process; is libgc loaded?");
        abort();
    }
}

/* A GC_ entry point is called from `ret`. */
static inline hp_thread *enter(void *ret)
{
    hp_thread *t = &hp_tls;
    if (__builtin_expect(!attached(), 0)) attach_or_die();
    if (t->depth == 0) {
        if (__builtin_expect(hp_rt.fast_alloc, 0)) {
            hp_fast_settle(t);
            if (hp_fast_from_libgc(ret)) {
                t->depth = 1;   /* nested in a fast call (hp_fast_alloc.h) */
                return t;
            }
            t->fast_cfa = 0;
        }
        /* Where the program's frames end, should a collection run inside
         * this call (the retainer profile's roots on this thread's stack). */
        if (hp_rt.entry_frames) hp_thread_note_entry(t);
    }
    if (++t->depth == 1 && t->ready && --t->countdown == 0) hp_hooks_clock_check(t);
    return t;
}

/* The program's outermost call of a GC_ entry point called from `ret`
 * returns now (depth 0)? Not one nested in a fast call. */
static inline int leaving_outermost(hp_thread *t, void *ret)
{
    return --t->depth == 0 && !(__builtin_expect(hp_rt.fast_alloc, 0) && hp_fast_from_libgc(ret));
}

static inline uint32_t sat32(size_t v) { return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

/* sample=: the thread's first allocation: its generator and first
 * distance; then the sampled allocation's weight and the next distance. */
__attribute__((noinline)) static int sample_slow(hp_thread *t, size_t req)
{
    if (!t->sample_state) {
        t->sample_state = hp_rt.cfg.seed ^ ((uint64_t)(uintptr_t)t * 0x9e3779b97f4a7c15ull);
        t->sample_left = hp_sample_next(&t->sample_state, hp_rt.cfg.sample) -
                         (int64_t)(req ? req : 1);
        if (t->sample_left > 0) return 0;
    }
    t->sample_count = hp_sample_count_of(req, hp_rt.cfg.sample, &t->sample_state);
    t->sample_left = hp_sample_next(&t->sample_state, hp_rt.cfg.sample);
    atomic_fetch_add_explicit(&hp_sample_taken, 1, memory_order_relaxed);
    return 1;
}

/* sample=: is this allocation of `req` bytes the one in which the thread's
 * count of bytes passes its next sampling point? (A thread not yet started
 * has sample_left 0: its first allocation starts it.) */
static inline int sample_here(hp_thread *t, size_t req)
{
    t->sample_left -= (int64_t)(req ? req : 1);
    if (__builtin_expect(t->sample_left > 0, 1)) return 0;
    return sample_slow(t, req);
}

/* Append one object to the thread's log (allocation path). */
static inline __attribute__((always_inline)) void
log_object(hp_thread *t, void *p, size_t req, int how, int need_base, uint32_t ccs)
{
    void *base = need_base ? hp_real.GC_base(p) : p;
    if (!base) return;
    /* Asked for every object: the same request can be granted different
     * sizes (a thread's first allocations of a size go through the global
     * size map, which may round up further than the thread-local lists).
     * But a heap block holds objects of one kind and size until it is
     * freed (hp_rt.block_epoch moves then): an object on the page of the
     * thread's last one, at the same epoch, has its kind and size. (The
     * epoch is read first: a block freed meanwhile moves it on.) */
    size_t granted = 0;
    int kind;
    uintptr_t page = (uintptr_t)base >> 12;
    uint64_t epoch = atomic_load_explicit(&hp_rt.block_epoch, memory_order_acquire);
    if (page == t->kc_page && epoch == t->kc_epoch) {
        granted = t->kc_size;
        kind = t->kc_kind;
    } else {
        kind = hp_real.GC_get_kind_and_size(base, &granted);
        t->kc_page = page;
        t->kc_epoch = epoch;
        t->kc_size = (uint32_t)(granted < UINT32_MAX ? granted : UINT32_MAX);
        t->kc_kind = kind;
        if (granted >= UINT32_MAX) t->kc_page = 0;   /* (not cached) */
    }
    hp_rec r;
    r.base = (uintptr_t)base;
    r.ccs = ccs;
    r.req = sat32(req);
    r.granted = sat32(granted);
    r.birth = atomic_load_explicit(&hp_rt.period, memory_order_relaxed);
    r.word = 0;
    if (hp_sample_on) r.word = t->sample_count;   /* its weight (core/hp_sample.h) */
    r.kind = (uint8_t)kind;
    r.how = (uint8_t)how;
    r.age = 0;
    r.flags = 0;
    if (hp_shadow_log_append_inline(t->log, &r) != 0)   /* out of memory for the log: said at exit */
        hp_shadow_lost_one(granted);
}

__attribute__((noinline)) static void record(hp_thread *t, void *p, size_t req, int how,
                                              int need_base, void *frame, void *ret)
{
    if (!t->ready && hp_thread_setup(t) != 0) {   /* out of memory: said at exit */
        void *base = need_base ? hp_real.GC_base(p) : p;
        if (base) hp_shadow_lost_one(hp_real.GC_size(base));
        return;
    }
    log_object(t, p, req, how, need_base, hp_capture_ccs(t, frame, ret));
}

/* A NULL-terminated batch chained through each object's first word. */
__attribute__((noinline)) static void record_list(hp_thread *t, void *list, size_t req,
                                                  void *frame, void *ret)
{
    if (hp_rt.cfg.no_stacks) return;   /* stacks=no: no records */
    if (!t->ready && hp_thread_setup(t) != 0) {   /* out of memory: said at exit */
        for (void *p = list; p; p = *(void **)p)
            if (!hp_sample_on || sample_here(t, req)) hp_shadow_lost_one(hp_real.GC_size(p));
        return;
    }
    uint32_t ccs = UINT32_MAX;   /* captured at the first object recorded */
    for (void *p = list; p; p = *(void **)p) {
        if (hp_sample_on && !sample_here(t, req)) continue;
        if (ccs == UINT32_MAX) ccs = hp_capture_ccs(t, frame, ret);
        log_object(t, p, req, HP_HOW_MANY, 0, ccs);
    }
}

static inline void leave_outermost(hp_thread *t, void *p, size_t req, int how, int need_base,
                                   void *frame, void *ret)
{
    if (hp_rt.cfg.no_stacks) {
        /* No record; but the thread's clock checks need it ready. */
        if (__builtin_expect(!t->ready, 0)) hp_thread_setup(t);
    } else if (!hp_sample_on || sample_here(t, req)) {
        record(t, p, req, how, need_base, frame, ret);
    }
    /* window= (mode ldv): the object is recorded; a collection after every
     * window's bytes (collector_hooks/hp_hooks.c, hp_hooks_window). */
    if (__builtin_expect(hp_rt.cfg.ldv_window != 0, 0)) {
        if (t->window_left == 0) t->window_left = (int64_t)hp_rt.cfg.ldv_window;   /* (its first) */
        if ((t->window_left -= (int64_t)(req ? req : 1)) <= 0) {
            t->window_left = (int64_t)hp_rt.cfg.ldv_window;
            hp_hooks_window();
        }
    }
}

static inline void leave(hp_thread *t, void *p, size_t req, int how, int need_base,
                         void *frame, void *ret)
{
    if (!leaving_outermost(t, ret)) return;
    if (p && !hp_rt.passive) leave_outermost(t, p, req, how, need_base, frame, ret);
    hp_fast_arm(t);   /* (after this call's bytes came off sample_left) */
}

#define WRAP(ret_t, name, how, need_base, req, params, args)                  \
    ret_t name params                                                         \
    {                                                                         \
        hp_thread *t_ = enter(HP_RET);                                        \
        ret_t r_ = hp_real.name args;                                         \
        leave(t_, (void *)r_, (req), how, need_base, HP_FRAME, HP_RET);       \
        return r_;                                                            \
    }

#define D_PARAMS const char *s_, int i_   /* GC_EXTRA_PARAMS */
#define STRLEN1(p) ((p) ? strlen(p) + 1 : 0)

/* The two calls almost every program makes. libgc 8's GC_malloc and
 * GC_malloc_atomic are GC_malloc_kind(lb, NORMAL / PTRFREE) (malloc.c):
 * calling that directly saves a pass through heapprof's own GC_malloc_kind
 * on every allocation. (A libgc without GC_malloc_kind is called as is.) */
/* sample= and stacks=no: a call within the thread's allowance goes
 * straight to libgc's GC_malloc_kind, a tail call (hp_fast_alloc.h, Note
 * [The fast path's allowance]); it leaves its stack top and return address
 * for GC_malloc_kind_global (Note [Nested by address]). Every other call
 * takes the whole path, a function of its own, tail-called, so that the
 * fast path saves no registers (the whole path's frame and return address
 * are then the caller's; were it not a tail call, the capture leaves
 * heapprof's own frames out anyway). */
#define WRAP_KIND(name, how, kind)                                             \
    __attribute__((noinline)) static void *name##_whole(size_t lb)            \
    {                                                                         \
        hp_thread *t_ = enter(HP_RET);                                        \
        void *r_ = hp_real.GC_malloc_kind ? hp_real.GC_malloc_kind(lb, kind)  \
                                          : hp_real.name(lb);                 \
        leave(t_, r_, lb, how, 0, HP_FRAME, HP_RET);                          \
        return r_;                                                            \
    }                                                                         \
    __attribute__((optimize("omit-frame-pointer"))) void *name(size_t lb)      \
    {                                                                         \
        hp_thread *t_ = &hp_tls;                                              \
        int64_t left_ = t_->fast_left - (int64_t)(lb ? lb : 1);               \
        if (__builtin_expect(left_ > 0, 1)) {                                 \
            t_->fast_left = left_;                                            \
            t_->fast_cfa = (uintptr_t)__builtin_dwarf_cfa();                  \
            t_->fast_ret = HP_RET;                                            \
            return hp_real.GC_malloc_kind(lb, kind);                          \
        }                                                                     \
        return name##_whole(lb);                                              \
    }
WRAP_KIND(GC_malloc, HP_HOW_NORMAL, GC_I_NORMAL)
WRAP_KIND(GC_malloc_atomic, HP_HOW_ATOMIC, GC_I_PTRFREE)
WRAP(char *, GC_strdup, HP_HOW_ATOMIC, 0, STRLEN1(r_), (const char *s), (s))
WRAP(char *, GC_strndup, HP_HOW_ATOMIC, 0, STRLEN1(r_), (const char *s, size_t n), (s, n))
WRAP(void *, GC_malloc_uncollectable, HP_HOW_UNCOLLECTABLE, 0, lb, (size_t lb), (lb))
WRAP(void *, GC_malloc_stubborn, HP_HOW_NORMAL, 0, lb, (size_t lb), (lb))
WRAP(void *, GC_memalign, HP_HOW_NORMAL, 1, lb, (size_t al, size_t lb), (al, lb))
WRAP(void *, GC_malloc_ignore_off_page, HP_HOW_NORMAL, 0, lb, (size_t lb), (lb))
WRAP(void *, GC_malloc_atomic_ignore_off_page, HP_HOW_ATOMIC, 0, lb, (size_t lb), (lb))
WRAP(void *, GC_malloc_atomic_uncollectable, HP_HOW_ATOMIC_UNCOLLECTABLE, 0, lb,
     (size_t lb), (lb))
WRAP(void *, GC_debug_malloc_atomic_uncollectable, HP_HOW_DEBUG, 1, lb,
     (size_t lb, D_PARAMS), (lb, s_, i_))
WRAP(void *, GC_debug_malloc, HP_HOW_DEBUG, 1, lb, (size_t lb, D_PARAMS), (lb, s_, i_))
WRAP(void *, GC_debug_malloc_atomic, HP_HOW_DEBUG, 1, lb, (size_t lb, D_PARAMS), (lb, s_, i_))
WRAP(char *, GC_debug_strdup, HP_HOW_DEBUG, 1, STRLEN1(r_), (const char *s, D_PARAMS),
     (s, s_, i_))
WRAP(char *, GC_debug_strndup, HP_HOW_DEBUG, 1, STRLEN1(r_),
     (const char *s, size_t n, D_PARAMS), (s, n, s_, i_))
WRAP(void *, GC_debug_malloc_uncollectable, HP_HOW_DEBUG, 1, lb, (size_t lb, D_PARAMS),
     (lb, s_, i_))
WRAP(void *, GC_debug_malloc_stubborn, HP_HOW_DEBUG, 1, lb, (size_t lb, D_PARAMS),
     (lb, s_, i_))
WRAP(void *, GC_debug_malloc_ignore_off_page, HP_HOW_DEBUG, 1, lb, (size_t lb, D_PARAMS),
     (lb, s_, i_))
WRAP(void *, GC_debug_malloc_atomic_ignore_off_page, HP_HOW_DEBUG, 1, lb,
     (size_t lb, D_PARAMS), (lb, s_, i_))
WRAP(void *, GC_debug_malloc_replacement, HP_HOW_DEBUG, 1, lb, (size_t lb), (lb))
WRAP(void *, GC_generic_malloc, HP_HOW_KIND, 0, lb, (size_t lb, int k), (lb, k))
WRAP(void *, GC_generic_malloc_ignore_off_page, HP_HOW_KIND, 0, lb, (size_t lb, int k), (lb, k))
WRAP(void *, GC_generic_malloc_uncollectable, HP_HOW_KIND, 0, lb, (size_t lb, int k), (lb, k))
WRAP(void *, GC_generic_or_special_malloc, HP_HOW_KIND, 0, lb, (size_t lb, int k), (lb, k))
WRAP(void *, GC_debug_generic_or_special_malloc, HP_HOW_DEBUG, 1, lb,
     (size_t lb, int k, D_PARAMS), (lb, k, s_, i_))
WRAP(void *, GC_malloc_kind, HP_HOW_KIND, 0, lb, (size_t lb, int k), (lb, k))

/* Tail-called by libgc's GC_malloc_kind inside a fast call, it has that
 * call's stack top and return address: nested (hp_fast_alloc.h, Note
 * [Nested by address]), forwarded as the fast call was. */
void *GC_malloc_kind_global(size_t lb, int k)
{
    hp_thread *t = &hp_tls;
    if (t->depth == 0 && t->fast_cfa && t->fast_cfa == (uintptr_t)__builtin_dwarf_cfa() &&
        t->fast_ret == HP_RET) {
        t->fast_cfa = 0;
        return hp_real.GC_malloc_kind_global(lb, k);
    }
    t = enter(HP_RET);
    void *r = hp_real.GC_malloc_kind_global(lb, k);
    leave(t, r, lb, HP_HOW_KIND, 0, HP_FRAME, HP_RET);
    return r;
}
WRAP(void *, GC_malloc_explicitly_typed, HP_HOW_TYPED, 0, lb, (size_t lb, GC_descr d), (lb, d))
WRAP(void *, GC_malloc_explicitly_typed_ignore_off_page, HP_HOW_TYPED, 0, lb,
     (size_t lb, GC_descr d), (lb, d))
WRAP(void *, GC_calloc_explicitly_typed, HP_HOW_TYPED, 0, n * lb,
     (size_t n, size_t lb, GC_descr d), (n, lb, d))
WRAP(void *, GC_gcj_malloc, HP_HOW_GCJ, 0, lb, (size_t lb, void *vt), (lb, vt))
WRAP(void *, GC_gcj_malloc_ignore_off_page, HP_HOW_GCJ, 0, lb, (size_t lb, void *vt), (lb, vt))
WRAP(void *, GC_debug_gcj_malloc, HP_HOW_DEBUG, 1, lb, (size_t lb, void *vt, D_PARAMS),
     (lb, vt, s_, i_))
WRAP(void *, GC_finalized_malloc, HP_HOW_FINALIZED, 1, lb,
     (size_t lb, const struct GC_finalizer_closure *fc), (lb, fc))

int GC_posix_memalign(void **memptr, size_t align, size_t lb)
{
    hp_thread *t = enter(HP_RET);
    int rc = hp_real.GC_posix_memalign(memptr, align, lb);
    leave(t, rc == 0 ? *memptr : NULL, lb, HP_HOW_NORMAL, 1, HP_FRAME, HP_RET);
    return rc;
}

typedef struct resize_note { uintptr_t base; uint32_t granted, req; } resize_note;

static void *resize_under_lock(void *arg)
{
    resize_note *n = arg;
    HP_OWNER_ENTER();
    hp_census_note_resize(n->base, n->granted, n->req);
    HP_OWNER_LEAVE();
    return NULL;
}

/* The same object, now of another size (large objects grow and shrink
 * inside their blocks): it keeps its cost centre, with its new sizes. */
static void note_resize(void *p, size_t lb)
{
    if (hp_rt.passive) return;
    resize_note n;
    n.base = (uintptr_t)hp_real.GC_base(p);
    if (!n.base) return;
    n.granted = sat32(hp_real.GC_size((void *)n.base));
    n.req = sat32(lb);
    hp_real.GC_call_with_alloc_lock(resize_under_lock, &n);
}

/* A moved object is a new object; the old one was freed by the nested
 * GC_free (or GC_debug_free), which notes it. */
#define WRAP_REALLOC(name, params, args)                                      \
    void *name params                                                         \
    {                                                                         \
        hp_thread *t_ = enter(HP_RET);                                        \
        atomic_fetch_add_explicit(&hp_rt.block_epoch, 1, memory_order_release); \
        void *r_ = hp_real.name args;                                         \
        if (t_->depth == 1 && r_ && r_ == p) note_resize(r_, lb);             \
        leave(t_, r_ != p ? r_ : NULL, lb, HP_HOW_REALLOC, 1, HP_FRAME, HP_RET); \
        return r_;                                                            \
    }

WRAP_REALLOC(GC_realloc, (void *p, size_t lb), (p, lb))
WRAP_REALLOC(GC_debug_realloc, (void *p, size_t lb, D_PARAMS), (p, lb, s_, i_))
WRAP_REALLOC(GC_debug_realloc_replacement, (void *p, size_t lb), (p, lb))

void *GC_malloc_many(size_t lb)
{
    hp_thread *t = enter(HP_RET);
    void *r = hp_real.GC_malloc_many(lb);
    if (leaving_outermost(t, HP_RET)) {
        if (r && !hp_rt.passive) record_list(t, r, lb, HP_FRAME, HP_RET);
        hp_fast_arm(t);
    }
    return r;
}

void GC_generic_malloc_many(size_t lb, int k, void **result)
{
    hp_thread *t = enter(HP_RET);
    hp_real.GC_generic_malloc_many(lb, k, result);
    if (leaving_outermost(t, HP_RET)) {
        if (*result && !hp_rt.passive) record_list(t, *result, lb, HP_FRAME, HP_RET);
        hp_fast_arm(t);
    }
}

/* ---- Deallocation: the record goes at once (under the allocation lock,
 * noted so that the free applies to the records allocated before it). */
static void *free_under_lock(void *base)
{
    HP_OWNER_ENTER();
    /* (this thread's log: the free is noted against it when no other log
     * holds records, core/hp_shadow_internal.h, Note [Frees against a
     * log]) */
    hp_census_note_free((uintptr_t)base, hp_tls.ready ? hp_tls.log : NULL);
    HP_OWNER_LEAVE();
    return NULL;
}

static void note_free(void *p)
{
    if (!p || hp_rt.passive || hp_rt.cfg.no_stacks) return;
    void *base = hp_real.GC_base(p);
    if (base) hp_real.GC_call_with_alloc_lock(free_under_lock, base);
}

void GC_free(void *p)
{
    if (__builtin_expect(!attached(), 0)) attach_or_die();
    atomic_fetch_add_explicit(&hp_rt.block_epoch, 1, memory_order_release);
    note_free(p);
    hp_tls.depth++;   /* its accesses are the collector's (ldv) */
    hp_real.GC_free(p);
    hp_tls.depth--;
}

void GC_debug_free(void *p)
{
    if (__builtin_expect(!attached(), 0)) attach_or_die();
    atomic_fetch_add_explicit(&hp_rt.block_epoch, 1, memory_order_release);
    note_free(p);
    hp_tls.depth++;
    hp_real.GC_debug_free(p);
    hp_tls.depth--;
}

/* Explicit collections: only to mark where the program's frames end on
 * the collecting thread (see enter()); no clock check (the program is
 * collecting already). */
static inline hp_thread *enter_collect(void)
{
    hp_thread *t = &hp_tls;
    if (__builtin_expect(!attached(), 0)) attach_or_die();
    if (t->depth++ == 0) hp_thread_note_entry(t);
    return t;
}

#define WRAP_COLLECT(ret_t, name, params, args)                               \
    ret_t name params                                                         \
    {                                                                         \
        hp_thread *t_ = enter_collect();                                      \
        ret_t r_ = hp_real.name args;                                         \
        t_->depth--;                                                          \
        return r_;                                                            \
    }

void GC_gcollect(void)
{
    hp_thread *t = enter_collect();
    hp_real.GC_gcollect();
    t->depth--;
}

void GC_gcollect_and_unmap(void)
{
    hp_thread *t = enter_collect();
    hp_real.GC_gcollect_and_unmap();
    t->depth--;
}

WRAP_COLLECT(int, GC_try_to_collect, (GC_stop_func f), (f))
WRAP_COLLECT(int, GC_collect_a_little, (void), ())

/* Finalizers run inside allocation calls; what they allocate is theirs. */
int GC_invoke_finalizers(void)
{
    if (__builtin_expect(!attached(), 0)) attach_or_die();
    hp_thread *t = &hp_tls;
    int saved = t->depth;
    t->depth = 0;
    int r = hp_real.GC_invoke_finalizers();
    t->depth = saved;
    /* (inside a call again: no allowance, hp_fast_alloc.h) */
    if (saved) hp_fast_settle(t);
    return r;
}

/* ---- Callback slots: heapprof keeps its own callback installed and
 * chains the program's behind it. */
void GC_set_on_collection_event(GC_on_collection_event_proc fn)
{
    if (__builtin_expect(!attached(), 0)) attach_or_die();
    if (hp_rt.passive) hp_real.GC_set_on_collection_event(fn);   /* no hooks of ours */
    else hp_hooks_set_program_event_cb(fn);
}

GC_on_collection_event_proc GC_get_on_collection_event(void)
{
    if (__builtin_expect(!attached(), 0)) attach_or_die();
    if (hp_rt.passive) return hp_real.GC_get_on_collection_event();
    return hp_hooks_program_event_cb();
}

void GC_register_has_static_roots_callback(GC_has_static_roots_func fn)
{
    if (__builtin_expect(!attached(), 0)) attach_or_die();
    if (hp_rt.passive && hp_real.GC_register_has_static_roots_callback)
        hp_real.GC_register_has_static_roots_callback(fn);
    else hp_hooks_set_program_roots_cb(fn);
}

/* ---- Mode ldv (ldv/hp_ldv.c) and the heap traversals (retainer, roots,
 * rset=) cannot follow incremental collections. */
void GC_enable_incremental(void)
{
    if (__builtin_expect(!attached(), 0)) attach_or_die();
    if (hp_ldv_refuse_incremental() || hp_census_refuse_incremental()) return;
    void (*fn)(void) = (void (*)(void))dlsym(RTLD_NEXT, "GC_enable_incremental");
    if (fn) fn();
}

/* ---- Code the program gives the collector to run at collections: noted
 * (heapprof's exit-time census then takes no collection, which would run
 * it after the program's atexit handlers), then given to libgc. */
#define HP_NOTE_CODE() hp_hooks_program_code((uintptr_t)__builtin_return_address(0))

void GC_set_start_callback(GC_start_callback_proc fn)
{
    if (__builtin_expect(!attached(), 0)) attach_or_die();
    if (fn) HP_NOTE_CODE();
    if (hp_real.GC_set_start_callback) hp_real.GC_set_start_callback(fn);
}

/* A root range the program registers: named in retainer profiles by the
 * stack that registered it. */
void GC_add_roots(void *lo, void *hi)
{
    hp_thread *t = enter(HP_RET);
    hp_real.GC_add_roots(lo, hi);
    if (leaving_outermost(t, HP_RET) && !hp_rt.passive && (t->ready || hp_thread_setup(t) == 0))
        hp_rootrec_registered((uintptr_t)lo, (uintptr_t)hi,
                              hp_capture_ccs(t, HP_FRAME, HP_RET));
}

/* Displacements the program makes valid (tagged pointers): the heap
 * traversal accepts them as the collector does. */
void GC_register_displacement(size_t d)
{
    if (__builtin_expect(!attached(), 0)) attach_or_die();
    hp_rootrec_displacement(d);
    hp_real.GC_register_displacement(d);
}

void GC_set_push_other_roots(GC_push_other_roots_proc fn)
{
    if (__builtin_expect(!attached(), 0)) attach_or_die();
    if (fn) HP_NOTE_CODE();
    if (hp_real.GC_set_push_other_roots) hp_real.GC_set_push_other_roots(fn);
}

unsigned GC_new_proc(GC_mark_proc fn)
{
    if (__builtin_expect(!attached(), 0)) attach_or_die();
    HP_NOTE_CODE();
    return hp_real.GC_new_proc(hp_markproc_wrap(fn));
}

unsigned GC_new_proc_inner(GC_mark_proc fn)
{
    if (__builtin_expect(!attached(), 0)) attach_or_die();
    HP_NOTE_CODE();
    return hp_real.GC_new_proc_inner(hp_markproc_wrap(fn));
}

void GC_register_disclaim_proc(int kind, GC_disclaim_proc fn, int mark_from_all)
{
    if (__builtin_expect(!attached(), 0)) attach_or_die();
    HP_NOTE_CODE();
    if (hp_real.GC_register_disclaim_proc) hp_real.GC_register_disclaim_proc(kind, fn, mark_from_all);
}
