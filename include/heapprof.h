/* heapprof.h: the public API of heapprof, the heap profiler for programs
 * that allocate with the Boehm-Demers-Weiser collector.
 *
 * A program that includes this header needs no link-time dependency on
 * heapprof: every call looks the profiler up at run time and does nothing
 * when the program runs without LD_PRELOAD=libheapprof.so.
 *
 * Explicit cost centres (GHC's SCC annotations, for C):
 *
 *     heapprof_cc_push("parse");
 *     ... allocations here are attributed to the stack parse/<outer centres>
 *     heapprof_cc_pop();
 *
 * While a thread has pushed any centre, its allocations are attributed to
 * the stack of pushed names (innermost first) instead of the machine call
 * stack, and no unwinding is done. Names are copied; pushes and pops are
 * per thread and must balance. */
#ifndef HEAPPROF_H
#define HEAPPROF_H

#include <dlfcn.h>

#ifdef __cplusplus
extern "C" {
#endif

/* RTLD_DEFAULT is (void *)0 in glibc; spelled out so that _GNU_SOURCE is
 * not required of the includer. */
#define HEAPPROF__LOOKUP(name) dlsym((void *)0, name)

/* Is the profiler loaded in this process? */
static inline int heapprof_loaded(void)
{
    return HEAPPROF__LOOKUP("heapprof_rt_version") != 0;
}

/* Enter a named cost centre on this thread. */
static inline void heapprof_cc_push(const char *name)
{
    static void (*fn)(const char *);
    static int looked;
    if (!looked) {
        *(void **)&fn = HEAPPROF__LOOKUP("heapprof_rt_cc_push");
        looked = 1;
    }
    if (fn) fn(name);
}

/* Leave the innermost cost centre pushed on this thread. */
static inline void heapprof_cc_pop(void)
{
    static void (*fn)(void);
    static int looked;
    if (!looked) {
        *(void **)&fn = HEAPPROF__LOOKUP("heapprof_rt_cc_pop");
        looked = 1;
    }
    if (fn) fn();
}

#ifdef __cplusplus
}
#endif
#endif
