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
 * per thread and must balance.
 *
 * Named roots (HEAPPROF=roots): name the objects whose reach you want to
 * see, and the profile shows, at each census, the bytes reachable from each
 * combination of them (bands "hsc", "hsc-eps", "hsc-eps-fc", ...):
 *
 *     heapprof_set_roots((heapprof_root[]){{"hsc", hsc}, {"eps", hsc->eps},
 *                                          {"fc", hsc->fc}}, 3);
 *
 * At most HEAPPROF_MAX_ROOTS (64) roots. Names are copied; they must be 1-63
 * printable characters without blanks, not start with a digit, and hold
 * none of - " ( ) , (bands join names with '-'). A root must be an object
 * of the collector's heap (an interior pointer names the object holding
 * it). Roots are weak: naming an object never keeps it alive; when it dies
 * it drops out of the profile, and the .prof file says when. Each call
 * returns HEAPPROF_OK or a negative HEAPPROF_E* code (and says why on
 * stderr); a call that fails changes nothing. Without the profiler every
 * call does nothing and returns HEAPPROF_OK. */
#ifndef HEAPPROF_H
#define HEAPPROF_H

#include <dlfcn.h>
#include <stddef.h>

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

#define HEAPPROF_MAX_ROOTS 64
enum {
    HEAPPROF_OK = 0,
    HEAPPROF_EINVAL = -1,   /* NULL, empty, too long or unprintable name; NULL array */
    HEAPPROF_EEXIST = -2,   /* the same name twice */
    HEAPPROF_ENOSPC = -3,   /* more than HEAPPROF_MAX_ROOTS roots */
    HEAPPROF_ENOTGC = -4,   /* the pointer is not an object of the collector's heap */
    HEAPPROF_ENOENT = -5    /* heapprof_remove_root: no root of that name */
};

typedef struct heapprof_root {
    const char *name;
    const void *ptr;
} heapprof_root;

/* Replace every named root by these `n`. */
static inline int heapprof_set_roots(const heapprof_root *roots, size_t n)
{
    static int (*fn)(const heapprof_root *, size_t);
    static int looked;
    if (!looked) {
        *(void **)&fn = HEAPPROF__LOOKUP("heapprof_rt_set_roots");
        looked = 1;
    }
    return fn ? fn(roots, n) : HEAPPROF_OK;
}

/* Name one more root. */
static inline int heapprof_add_root(const char *name, const void *ptr)
{
    static int (*fn)(const char *, const void *);
    static int looked;
    if (!looked) {
        *(void **)&fn = HEAPPROF__LOOKUP("heapprof_rt_add_root");
        looked = 1;
    }
    return fn ? fn(name, ptr) : HEAPPROF_OK;
}

/* Forget the root of this name. */
static inline int heapprof_remove_root(const char *name)
{
    static int (*fn)(const char *);
    static int looked;
    if (!looked) {
        *(void **)&fn = HEAPPROF__LOOKUP("heapprof_rt_remove_root");
        looked = 1;
    }
    return fn ? fn(name) : HEAPPROF_OK;
}

/* Forget every named root. */
static inline int heapprof_clear_roots(void)
{
    static int (*fn)(void);
    static int looked;
    if (!looked) {
        *(void **)&fn = HEAPPROF__LOOKUP("heapprof_rt_clear_roots");
        looked = 1;
    }
    return fn ? fn() : HEAPPROF_OK;
}

#ifdef __cplusplus
}
#endif
#endif
