/* hp_hooks: collection events, static-roots filter, forced collections
 * (see hp_hooks.h). */
#include "collector_hooks/hp_hooks.h"
#include "collector_hooks/hp_census.h"
#include "core/hp_assert.h"
#include "core/hp_real.h"
#include "core/hp_rt.h"
#include "core/hp_thread.h"

#include "core/hp_symbols.h"

static _Atomic(GC_on_collection_event_proc) program_event_cb;
static _Atomic(GC_has_static_roots_func) program_roots_cb;
static uintptr_t self_lo, self_hi;         /* heapprof's own segments */
static _Atomic int program_code;           /* see hp_hooks_program_code */

static _Atomic int forcing;                /* a forced collection is running */
/* The exit-time collection is running: the program's own callbacks are
 * not called (its atexit handlers may have torn down what they use). */
static _Atomic int at_exit_collection;
static _Atomic int force_census;           /* the next collection takes a census */
static _Atomic uint64_t next_force_try_ns; /* after a refused forced collection */
/* The last collection's length, GC_EVENT_START to the end of heapprof's
 * census pass (HP_FORCE_COST). */
static _Atomic uint64_t last_collection_ns;
/* The census period (hp_rt.period) whose due census last waited for the
 * collector: counted once per census in hp_rt.forced_waited. */
static _Atomic uint32_t waited_period = UINT32_MAX;

/* Exclude what a forced collection took, less what the census inside it
 * already excluded for itself. */
static void exclude_since(uint64_t t0, uint64_t excluded_before)
{
    uint64_t spent = hp_mono_ns() - t0;
    uint64_t inner = hp_rt_excluded() - excluded_before;
    if (spent > inner) hp_rt_exclude(spent - inner);
}

/* ---- Collector callback: runs on the collecting thread with the
 * allocation lock held (owner context). It dispatches: what it calls at
 * MARK_END, with the world stopped, is in *_sigsafe.c files
 * (hp_census_traverse, hp_census_mark_end); RECLAIM_END's census runs with
 * the world restarted. For the THREAD_SUSPENDED / THREAD_UNSUSPENDED events
 * and everything between PRE_STOP_WORLD and POST_START_WORLD the world is
 * stopped: nothing here takes a lock or allocates. Only RECLAIM_END does
 * work, and the world is running by then. ---- */
static uint64_t collection_start_ns;       /* allocation lock held when used */
static uint64_t mark_start_ns;
static uint64_t excluded_at_start;         /* profiler time when the collection began */
static int traverse_due;                   /* this collection's census needs a traversal */

/* Clears the stack below the callback's frames once its work at a
 * collection's start is done. That work (ldv opening its runs of pages, a
 * traversal getting ready) leaves heap addresses in dead frames: a run's
 * first page is an object's address. The collector's own frames are laid
 * over that stack next, keep the words they never write, and are scanned
 * conservatively: an object whose address heapprof left there stayed
 * alive one more collection, which it would not without heapprof (tests/
 * progs/drag_held.c: an entry at the start of a page held by libgc's
 * frames, gc:frames, at the next census). HP_SCRUB bytes: more than the
 * callback's deepest path at a start, less than the collector itself
 * needs below this point. */
#define HP_SCRUB 4096
static void __attribute__((noinline)) scrub_stack_below(void)
{
    uint64_t pad[HP_SCRUB / 8];
    volatile uint64_t *p = pad;
    for (size_t i = 0; i < HP_SCRUB / 8; i++) p[i] = 0;
    __asm__ volatile("" : : "r"(p) : "memory");
}

static void hp_on_collection_event(GC_EventType ev)
{
    /* (A sweep may free blocks: the allocation path's page caches go.) */
    atomic_fetch_add_explicit(&hp_rt.block_epoch, 1, memory_order_release);
    HP_OWNER_ENTER();
    if (ev == GC_EVENT_POST_STOP_WORLD) HP_WORLD_STOPPED(1);
    if (ev == GC_EVENT_PRE_START_WORLD) HP_WORLD_STOPPED(0);
    /* A census shows the heap as the collection found it: stamp it with
     * the time the collection started. (Incremental collections have no
     * START; their first stop-the-world stands in for it.) */
    if ((ev == GC_EVENT_START || ev == GC_EVENT_PRE_STOP_WORLD) && !collection_start_ns) {
        collection_start_ns = hp_mono_ns();
        excluded_at_start = hp_rt_excluded();
        /* Traversal modes: the world is still running; get ready. */
        traverse_due = hp_census_wants_traversal() &&
                       hp_census_due(atomic_load(&force_census), collection_start_ns);
        if (traverse_due) {
            uint64_t t0 = hp_mono_ns();
            hp_census_before_stop();
            hp_rt_exclude_since(t0);
        }
    }
    if (ev == GC_EVENT_MARK_START && traverse_due && !mark_start_ns)
        mark_start_ns = hp_mono_ns();
    if (ev == GC_EVENT_MARK_END) {
        if (traverse_due && mark_start_ns) {
            hp_census_traverse(hp_mono_ns() - mark_start_ns);
            mark_start_ns = 0;
            traverse_due = 0;
        }
        hp_census_mark_end();
    }
    if (ev == GC_EVENT_START) hp_census_collection_start();   /* ldv: open protected pages */
    if (ev == GC_EVENT_RECLAIM_END) {
        /* The census's time is the profile time when the collection began:
         * profiler time spent since then (a traversal) does not move it. */
        uint64_t start = collection_start_ns
            ? collection_start_ns + (hp_rt_excluded() - excluded_at_start)
            : hp_mono_ns();
        uint64_t began = collection_start_ns;
        collection_start_ns = 0;
        traverse_due = 0;
        mark_start_ns = 0;
        hp_census_on_collection(atomic_exchange(&force_census, 0), start);
        if (began) atomic_store(&last_collection_ns, hp_mono_ns() - began);
    }
    HP_OWNER_LEAVE();
    if (ev == GC_EVENT_START || ev == GC_EVENT_PRE_STOP_WORLD) scrub_stack_below();
    GC_on_collection_event_proc fn = atomic_load(&program_event_cb);
    if (fn && !atomic_load(&at_exit_collection)) fn(ev);
}

/* Asked by the collector for each writable segment of each module at each
 * collection (allocation lock held): heapprof's own data is never a root. */
static int hp_has_static_roots(const char *name, void *start, size_t size)
{
    uintptr_t a = (uintptr_t)start;
    if (a >= self_lo && a < self_hi) return 0;
    GC_has_static_roots_func fn = atomic_load(&program_roots_cb);
    /* At exit the program's filter is not asked (it is the program's code,
     * after its teardown): every segment is a root, libgc's default. */
    return fn && !atomic_load(&at_exit_collection) ? fn(name, start, size) : 1;
}
/* ---- end of collector-callback code ---- */

void hp_hooks_install(void)
{
    hp_symbols_module_span((uintptr_t)hp_hooks_install, &self_lo, &self_hi);
    GC_on_collection_event_proc prev = hp_real.GC_get_on_collection_event();
    if (prev && prev != hp_on_collection_event) atomic_store(&program_event_cb, prev);
    hp_real.GC_set_on_collection_event(hp_on_collection_event);
    if (hp_real.GC_register_has_static_roots_callback)
        hp_real.GC_register_has_static_roots_callback(hp_has_static_roots);
}

void hp_hooks_set_program_event_cb(GC_on_collection_event_proc fn)
{
    atomic_store(&program_event_cb, fn);
}

GC_on_collection_event_proc hp_hooks_program_event_cb(void)
{
    return atomic_load(&program_event_cb);
}

void hp_hooks_set_program_roots_cb(GC_has_static_roots_func fn)
{
    atomic_store(&program_roots_cb, fn);
}

static void forced_collection(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&forcing, &expect, 1)) return;
    uint64_t t0 = hp_mono_ns(), ex0 = hp_rt_excluded();
    uint32_t before = atomic_load(&hp_rt.period);
    atomic_store(&force_census, 1);
    hp_real.GC_gcollect();
    if (atomic_load(&hp_rt.period) != before) {
        uint64_t took = hp_mono_ns() - t0;
        atomic_fetch_add(&hp_rt.forced_collections, 1);
        atomic_fetch_add(&hp_rt.forced_ns, took);
        if (took > atomic_load(&hp_rt.forced_max_ns)) atomic_store(&hp_rt.forced_max_ns, took);
    } else {
        /* The collector declined (GC_disable, GC_dont_gc): try again later. */
        atomic_store(&force_census, 0);
        atomic_store(&next_force_try_ns,
                     hp_coarse_ns() + (uint64_t)(hp_rt.cfg.interval * 1e9));
    }
    exclude_since(t0, ex0);
    atomic_store(&forcing, 0);
}

/* window= (mode ldv): a collection now, taken by a thread just out of an
 * allocation (no libgc lock held); its protect pass watches what was made
 * since the last (doc/options.md, window=). Its time is the profiler's. */
void hp_hooks_window(void)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&forcing, &expect, 1)) return;
    uint64_t t0 = hp_mono_ns(), ex0 = hp_rt_excluded();
    uint64_t before = hp_census_collections();
    hp_real.GC_gcollect();
    if (hp_census_collections() != before)   /* (not declined) */
        atomic_fetch_add(&hp_rt.window_collections, 1);
    exclude_since(t0, ex0);
    atomic_store(&forcing, 0);
}

/* The most allocations between two looks at the clock. */
#define HP_CHECK_EVERY_MAX 4096

void hp_hooks_clock_check(hp_thread *t)
{
    double interval = hp_rt.cfg.interval;
    if (interval <= 0) {
        /* interval=0: a census at every collection, none ever forced, so
         * the clock has nothing to say (it was read at every allocation:
         * trees.c depth 14, 65 of heapprof's ~650 instructions an object). */
        t->check_every = t->countdown = HP_CHECK_EVERY_MAX;
        return;
    }
    uint64_t now = hp_coarse_ns();
    /* Check the clock about every 1/16 of an interval: often while the
     * program allocates slowly, rarely while it allocates fast. */
    uint64_t slice = (uint64_t)(interval * 1e9 / 16);
    if (now - t->last_check_ns < slice) {
        if (t->check_every < HP_CHECK_EVERY_MAX) t->check_every *= 2;
    } else if (t->check_every > 1) {
        t->check_every /= 2;
    }
    t->countdown = t->check_every;
    t->last_check_ns = now;
    if (now < atomic_load(&next_force_try_ns)) return;
    /* A census is due one interval after the last; the collection that
     * comes next takes it (GHC's way: the census is at the first collection
     * after the tick). If none has come half an interval after that (a
     * quarter in modes that walk the heap: hp_hooks_force_after), one is
     * forced: a collection forced just before one would have come by
     * itself only adds a collection. */
    double prog = hp_profile_seconds(now);
    double last = hp_census_last_time();
    if (prog < last + hp_hooks_force_after() * interval) return;
    if (!hp_rt.cfg.interval_given) {
        /* A collection that takes long is left to the collector
         * (HP_FORCE_COST). */
        uint64_t took = atomic_load(&last_collection_ns);
        if (prog < last + HP_FORCE_COST * (double)took / 1e9) {
            uint32_t p = atomic_load(&hp_rt.period), seen = atomic_load(&waited_period);
            if (seen != p && atomic_compare_exchange_strong(&waited_period, &seen, p)) {
                atomic_fetch_add(&hp_rt.forced_waited, 1);
                if (took > atomic_load(&hp_rt.waited_collection_ns))
                    atomic_store(&hp_rt.waited_collection_ns, took);
            }
            return;
        }
    }
    if (!hp_rt.cfg.interval_given &&
        (double)atomic_load(&hp_rt.forced_ns) > hp_hooks_force_share() * prog * 1e9) {
        /* Forced collections have had their share: the next collection
         * that comes by itself takes the census. Look again an interval
         * later (each such look counts once in the .prof). */
        atomic_fetch_add(&hp_rt.forced_declined, 1);
        atomic_store(&next_force_try_ns, now + (uint64_t)(interval * 1e9));
        return;
    }
    forced_collection();
}

/* Why the last census had no collection (for the .prof). */
static const char *unexit_why = "no collection could be run at exit (GC_disable?)";

static void *census_under_lock(void *unused)
{
    (void)unused;
    HP_OWNER_ENTER();
    hp_census_without_collection(unexit_why);
    HP_OWNER_LEAVE();
    return NULL;
}

static void no_finalizers(void) {}


void hp_hooks_program_code(uintptr_t ret)
{
    if (ret < hp_rt.gc_lo || ret >= hp_rt.gc_hi) atomic_store(&program_code, 1);
}

/* The last census, at exit (after the program's atexit handlers: heapprof's
 * handler was registered before main). A collection here must run none of
 * the program's code that would not have run without heapprof:
 *   - finalizers: the collection runs with finalization on demand and a
 *     notifier of heapprof's that does nothing, so objects found ready stay
 *     queued, never finalized (the program would not have collected);
 *   - the program's collection-event callback and static-roots filter are
 *     not called during it;
 *   - after GC_deinit (a collector shut down) there is no collection at all,
 *     which would start libgc again: the census counts every record not
 *     found dead by an earlier collection, as when the collector is
 *     disabled. */
void hp_hooks_final_collection(void)
{
    if (hp_real.GC_is_init_called && !hp_real.GC_is_init_called()) {
        HP_OWNER_ENTER();   /* no collector any more: no other owner */
        hp_census_without_collection("the collector was shut down (GC_deinit) before exit");
        HP_OWNER_LEAVE();
        return;
    }
    /* A collection would run the program's own collector code (a runtime's
     * mark procedures, start callback...) after its atexit handlers, which
     * may have freed what that code reads: none then. */
    if (atomic_load(&program_code)) {
        unexit_why = "the program gave the collector code of its own (a start callback, "
                     "mark procedures), which heapprof does not run after the program's "
                     "atexit handlers";
        hp_real.GC_call_with_alloc_lock(census_under_lock, NULL);
        return;
    }
    uint64_t t0 = hp_mono_ns(), ex0 = hp_rt_excluded();
    uint32_t before = atomic_load(&hp_rt.period);
    /* A thread that has unregistered itself (bdwgc's own gctest does this
     * before exit) may not collect: register it for the last collection. */
    int registered_here = 0;
    if (hp_real.GC_thread_is_registered && !hp_real.GC_thread_is_registered() &&
        hp_real.GC_allow_register_threads && hp_real.GC_get_stack_base &&
        hp_real.GC_register_my_thread && hp_real.GC_unregister_my_thread) {
        struct GC_stack_base sb;
        hp_real.GC_allow_register_threads();
        if (hp_real.GC_get_stack_base(&sb) == GC_SUCCESS &&
            hp_real.GC_register_my_thread(&sb) == GC_SUCCESS)
            registered_here = 1;
    }
    int may_collect = !hp_real.GC_thread_is_registered || hp_real.GC_thread_is_registered();
    /* Without the calls to defer finalizers, no collection: it could run them. */
    int can_defer = hp_real.GC_get_finalize_on_demand && hp_real.GC_set_finalize_on_demand &&
                    hp_real.GC_get_finalizer_notifier && hp_real.GC_set_finalizer_notifier;
    if (may_collect && can_defer) {
        int on_demand = hp_real.GC_get_finalize_on_demand();
        GC_finalizer_notifier_proc notifier = hp_real.GC_get_finalizer_notifier();
        hp_real.GC_set_finalize_on_demand(1);
        hp_real.GC_set_finalizer_notifier(no_finalizers);
        atomic_store(&at_exit_collection, 1);
        atomic_store(&force_census, 1);
        hp_thread *t = &hp_tls;
        if (t->depth++ == 0) hp_thread_note_entry(t);
        hp_real.GC_gcollect();
        t->depth--;
        atomic_store(&force_census, 0);
        atomic_store(&at_exit_collection, 0);
        hp_real.GC_set_finalizer_notifier(notifier);
        hp_real.GC_set_finalize_on_demand(on_demand);
    }
    if (atomic_load(&hp_rt.period) == before)
        /* The collector declined (GC_disable) or could not run: the last
         * census counts every object not yet found dead. */
        hp_real.GC_call_with_alloc_lock(census_under_lock, NULL);
    if (registered_here) hp_real.GC_unregister_my_thread();
    exclude_since(t0, ex0);
}
