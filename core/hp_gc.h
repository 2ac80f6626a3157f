/* hp_gc: the bdwgc headers heapprof compiles against (types and prototypes
 * only: libheapprof.so never links libgc; it finds the real functions at run
 * time, see hp_real.h). GC_THREADS is not defined so that gc.h does not
 * redirect pthread calls inside heapprof. */
#ifndef HP_GC_H
#define HP_GC_H
#define GC_DONT_INCLUDE_WINDOWS_H
/* Every GC_ function heapprof defines is exported (the library is built
 * with -fvisibility=hidden). */
#define GC_API extern __attribute__((visibility("default")))
/* heapprof wraps the deprecated entry points too. */
#define GC_ATTR_DEPRECATED
#include <gc/gc.h>
#include <gc/gc_mark.h>
#include <gc/gc_typed.h>
#include <gc/gc_gcj.h>
#include <gc/gc_disclaim.h>
#include <gc/gc_inline.h>
/* Without GC_THREADS, gc_inline.h turns GC_malloc_kind_global into a macro
 * for GC_malloc_kind; the threaded libgc exports both. */
#undef GC_malloc_kind_global
GC_API void *GC_CALL GC_malloc_kind_global(size_t, int);
/* Thread registration (declared by gc.h only under GC_THREADS). */
GC_API void GC_CALL GC_allow_register_threads(void);
GC_API int GC_CALL GC_register_my_thread(const struct GC_stack_base *);
GC_API int GC_CALL GC_thread_is_registered(void);
GC_API int GC_CALL GC_unregister_my_thread(void);
#endif
