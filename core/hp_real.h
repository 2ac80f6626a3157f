/* hp_real: the collector's own functions, found at run time.
 * libheapprof.so defines the GC_ allocation entry points itself (so the
 * program's and the collector's calls reach heapprof first); the real ones
 * are looked up with dlsym(RTLD_NEXT), or in a libgc that was dlopen'ed
 * privately (RTLD_LOCAL) when RTLD_NEXT cannot see it. A program that
 * dlopen()s libgc itself and calls what dlsym() gives it bypasses heapprof
 * (doc/limitations.md). */
#ifndef HP_REAL_H
#define HP_REAL_H
#include "core/hp_gc.h"

/* Every collector function heapprof wraps or calls. */
#define HP_REAL_FUNCTIONS(X) \
    X(GC_malloc) X(GC_malloc_atomic) X(GC_strdup) X(GC_strndup) \
    X(GC_malloc_uncollectable) X(GC_malloc_stubborn) X(GC_memalign) \
    X(GC_posix_memalign) X(GC_free) X(GC_realloc) X(GC_malloc_ignore_off_page) \
    X(GC_malloc_atomic_ignore_off_page) X(GC_malloc_atomic_uncollectable) \
    X(GC_debug_malloc_atomic_uncollectable) X(GC_debug_malloc) \
    X(GC_debug_malloc_atomic) X(GC_debug_strdup) X(GC_debug_strndup) \
    X(GC_debug_malloc_uncollectable) X(GC_debug_malloc_stubborn) \
    X(GC_debug_malloc_ignore_off_page) X(GC_debug_malloc_atomic_ignore_off_page) \
    X(GC_debug_free) X(GC_debug_realloc) X(GC_debug_malloc_replacement) \
    X(GC_debug_realloc_replacement) X(GC_malloc_many) X(GC_generic_malloc) \
    X(GC_generic_malloc_ignore_off_page) X(GC_generic_malloc_uncollectable) \
    X(GC_generic_or_special_malloc) X(GC_debug_generic_or_special_malloc) \
    X(GC_generic_malloc_many) X(GC_malloc_kind) X(GC_malloc_kind_global) \
    X(GC_malloc_explicitly_typed) X(GC_malloc_explicitly_typed_ignore_off_page) \
    X(GC_calloc_explicitly_typed) X(GC_gcj_malloc) X(GC_gcj_malloc_ignore_off_page) \
    X(GC_debug_gcj_malloc) X(GC_finalized_malloc) \
    X(GC_invoke_finalizers) X(GC_set_on_collection_event) \
    X(GC_get_on_collection_event) X(GC_register_has_static_roots_callback) \
    X(GC_base) X(GC_is_heap_ptr) X(GC_size) X(GC_is_marked) X(GC_get_kind_and_size) X(GC_gcollect) \
    X(GC_call_with_alloc_lock) X(GC_is_incremental_mode) X(GC_get_gc_no) \
    X(GC_allow_register_threads) X(GC_register_my_thread) X(GC_thread_is_registered) \
    X(GC_unregister_my_thread) X(GC_get_stack_base) X(GC_is_disabled) \
    X(GC_push_all) X(GC_push_all_eager) X(GC_push_conditional) X(GC_push_finalizer_structures) X(GC_get_all_interior_pointers) \
    X(GC_gcollect_and_unmap) X(GC_try_to_collect) X(GC_collect_a_little) \
    X(GC_is_init_called) X(GC_get_finalize_on_demand) X(GC_set_finalize_on_demand) \
    X(GC_get_finalizer_notifier) X(GC_set_finalizer_notifier) \
    X(GC_set_start_callback) X(GC_new_proc) X(GC_new_proc_inner) X(GC_register_displacement) X(GC_add_roots) X(GC_mark_and_push) X(GC_set_push_other_roots) \
    X(GC_register_disclaim_proc) X(GC_enumerate_reachable_objects_inner) X(GC_get_total_bytes) \
    X(GC_register_finalizer) X(GC_register_finalizer_ignore_self) \
    X(GC_register_finalizer_no_order) X(GC_register_finalizer_unreachable) \
    X(GC_debug_register_finalizer) X(GC_debug_register_finalizer_ignore_self) \
    X(GC_debug_register_finalizer_no_order) X(GC_debug_register_finalizer_unreachable) \
    X(GC_register_disappearing_link) X(GC_general_register_disappearing_link) \
    X(GC_register_long_link)

typedef struct hp_real_fns {
#define HP_REAL_FIELD(name) __typeof__(&name) name;
    HP_REAL_FUNCTIONS(HP_REAL_FIELD)
#undef HP_REAL_FIELD
} hp_real_fns;

extern hp_real_fns hp_real;

/* Look every function up. Returns 0 when libgc is loaded and complete,
 * -1 otherwise (then hp_real is left unusable). Call from one thread at a
 * time, outside collector callbacks (dlsym may allocate). */
int hp_real_resolve(void);

#endif
