/* hp_assert: the context rules of heapprof, checked in debug builds
 * (level 7, base), as jemalloc's malloc_mutex_assert_owner does.
 *
 * Two rules carry the design (doc/design.md, "Contexts"):
 *   - the owner context: the record store, the census and the schemes'
 *     tables are changed only by a thread holding the collector's
 *     allocation lock (a collection callback, or a function run by
 *     GC_call_with_alloc_lock). Such regions are bracketed with
 *     HP_OWNER_ENTER / HP_OWNER_LEAVE; HP_ASSERT_OWNER checks the calling
 *     thread is inside one.
 *   - the world stopped: the heap traversal runs between the collector's
 *     POST_STOP_WORLD and PRE_START_WORLD events, when no program thread
 *     can move a pointer; HP_ASSERT_WORLD_STOPPED checks it.
 * The checks are armed once heapprof is attached to the collector (unit
 * tests drive the modules without a collector: nothing is checked there).
 * Without NDEBUG (the default build, debugoptimized) they cost a thread-
 * local load and a compare; with NDEBUG they are gone. Async-signal-safe. */
#ifndef HP_ASSERT_H
#define HP_ASSERT_H
#include <stdatomic.h>

#ifndef NDEBUG
extern _Atomic int hp_assert_armed;
extern _Atomic int hp_assert_world_stopped;
extern __thread int hp_assert_owner_depth __attribute__((tls_model("initial-exec")));
/* Say which rule broke, where, and abort. */
_Noreturn void hp_assert_fail(const char *rule, const char *file, int line);

#define HP_ASSERT_ARM() atomic_store(&hp_assert_armed, 1)
#define HP_OWNER_ENTER() (hp_assert_owner_depth++)
#define HP_OWNER_LEAVE() (hp_assert_owner_depth--)
#define HP_WORLD_STOPPED(v) atomic_store_explicit(&hp_assert_world_stopped, (v), \
                                                  memory_order_relaxed)
#define HP_ASSERT_OWNER()                                                            \
    ((void)(!atomic_load_explicit(&hp_assert_armed, memory_order_relaxed) ||        \
            hp_assert_owner_depth > 0 ||                                             \
            (hp_assert_fail("owner context (the collector's allocation lock held)", \
                            __FILE__, __LINE__), 0)))
#define HP_ASSERT_WORLD_STOPPED()                                                    \
    ((void)(!atomic_load_explicit(&hp_assert_armed, memory_order_relaxed) ||        \
            (atomic_load_explicit(&hp_assert_world_stopped, memory_order_relaxed) &&  \
             hp_assert_owner_depth > 0) ||                                           \
            (hp_assert_fail("world stopped (between POST_STOP_WORLD and "            \
                            "PRE_START_WORLD, lock held)", __FILE__, __LINE__), 0)))
#else
#define HP_ASSERT_ARM() ((void)0)
#define HP_OWNER_ENTER() ((void)0)
#define HP_OWNER_LEAVE() ((void)0)
#define HP_WORLD_STOPPED(v) ((void)0)
#define HP_ASSERT_OWNER() ((void)0)
#define HP_ASSERT_WORLD_STOPPED() ((void)0)
#endif

#endif
