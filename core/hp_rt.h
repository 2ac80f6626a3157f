/* hp_rt: the process-wide state of the profiler (level 7, base): the
 * configuration as read at start-up, the output paths, the clocks and the
 * profile clock (run time less the time heapprof spent), and the one way
 * heapprof speaks to the user (hp_say). Written by the life cycle
 * (preload/hp_lifecycle.c) at start-up and fork; read by every level. */
#ifndef HP_RT_H
#define HP_RT_H
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/hp_config.h"

typedef struct hp_runtime {
    hp_config cfg;
    _Atomic int initialised;      /* configuration read */
    _Atomic int attached;         /* collector hooks installed: recording on */
    uint64_t start_ns;            /* CLOCK_MONOTONIC at start (or at fork) */
    _Atomic uint64_t excluded_ns; /* time spent inside the profiler */
    _Atomic uint64_t handler_ns;  /* the part of it in fault handlers */
    _Atomic uint64_t dispatch_ns; /* ... and in system-call dispatch (mode ldv) */
    _Atomic uint32_t period;      /* census period: censuses taken so far */
    /* Collections heapprof forced for a census (collector_hooks/hp_hooks.c):
     * how many, their time in all, and how many times a census was due
     * but none was forced because forced ones had cost their share of the
     * run (the default interval only); and of the censuses due, how many
     * were left to the collector's own next collection because one takes
     * so long (HP_FORCE_COST, collector_hooks/hp_hooks.h), and the longest
     * collection that did so; the longest forced collection (with its
     * census), forced_max_ns. */
    _Atomic uint64_t forced_collections, forced_ns, forced_declined, forced_max_ns;
    _Atomic uint64_t forced_waited, waited_collection_ns;
    _Atomic uint64_t window_collections;   /* window= (collector_hooks/hp_hooks.c) */
    /* Bumped whenever a heap block may come to hold objects of another
     * kind or size: at every collection event (a block is freed only by a
     * sweep after a collection) and every explicit free or reallocation (a
     * large object's block is freed at once). A thread's cache of the last
     * page it recorded an object on (preload/hp_wrappers.c) is valid while
     * this has not moved. */
    _Atomic uint64_t block_epoch;   /* (64 bits: never wraps back to a cached value) */
    /* Why the census being taken has no collection (set by
     * collector_hooks before it, for the profiles that walk the heap to
     * say so), or NULL. */
    const char *census_no_collection_why;
    pid_t pid;
    int forked_child;             /* this process is a fork of a profiled one */
    int started_by_profiled;      /* started (exec) by a profiled process */
    int passive;                  /* no profile: GC_ calls only forwarded */
    int entry_frames;             /* note each thread's frames at its outermost
                                     GC_ call (the retainer traversal's stack
                                     roots: modes retainer, roots, rset=) */
    int fast_alloc;               /* sample= or stacks=no: GC_malloc and
                                     GC_malloc_atomic go straight to libgc
                                     when they record nothing
                                     (preload/hp_fast_alloc.h) */
    uintptr_t gc_lo, gc_hi;       /* libgc's text, known at attach: a GC_ call
                                     from there is nested in another
                                     (preload/hp_fast_alloc.h); an access
                                     from there is no use (mode ldv) */
    char program[256];            /* basename of the executable */
    char job[2048];               /* command line for the JOB line */
    char hp_path[HP_OUT_MAX + 64];   /* as the user named them (messages) */
    char prof_path[HP_OUT_MAX + 64];
    char csv_path[HP_OUT_MAX + 64];
    char hp_file[2 * HP_OUT_MAX + 128];   /* the same from the start-up directory: */
    char prof_file[2 * HP_OUT_MAX + 128]; /* what is opened (a program that changes */
    char csv_file[2 * HP_OUT_MAX + 128];  /* directory keeps its profile where it began) */
    /* PROG.pb.gz (pprof), PROG.folded and PROG.live.folded (flame graphs):
     * as named, and from the start-up directory. */
    char pb_path[HP_OUT_MAX + 64], pb_file[2 * HP_OUT_MAX + 128];
    char folded_path[HP_OUT_MAX + 64], folded_file[2 * HP_OUT_MAX + 128];
    char live_folded_path[HP_OUT_MAX + 64], live_folded_file[2 * HP_OUT_MAX + 128];
} hp_runtime;

extern hp_runtime hp_rt;

uint64_t hp_mono_ns(void);
uint64_t hp_coarse_ns(void);
/* Mutator (profile) time in seconds: since start, less profiler time. */
double hp_profile_seconds(uint64_t mono_ns);
/* Count [t0, now) as profiler time, not the program's (the profile clock
 * stops while heapprof works). Returns now. */
uint64_t hp_rt_exclude_since(uint64_t t0);
/* The same on the coarse clock (hp_coarse_ns, a tick of a few ms), for
 * work far shorter than a tick done very often (a GC_free): a duration is
 * then a whole tick or none, with the chance of a tick its share of one,
 * so the sum stays right on average, for a fraction of the clock's cost. */
void hp_rt_exclude_coarse_since(uint64_t t0);
/* Count `ns` as profiler time. */
void hp_rt_exclude(uint64_t ns);
/* A fault handler of heapprof's begins / ends on this thread: the time in
 * between is profiler time (counted once however many threads are in one). */
/* CLOCK_MONOTONIC by a system call from heapprof's text (safe inside the
 * fault handler while system call dispatch is armed). */
uint64_t hp_rt_raw_mono_ns(void);
void hp_rt_handler_enter(void);
void hp_rt_handler_leave(void);
/* The same for the system-call dispatch handler (mode ldv): its time is
 * profiler time, but not the fault handlers' (the ldv budget's), and not
 * the dispatched call's own (a read that waits is the program's time):
 * enter(1) as the handler begins (the kernel's part of the signal counted
 * as a fault's), leave() before the call, enter(0) after it, leave() at
 * the end. */
void hp_rt_sys_enter(int from_kernel);
void hp_rt_sys_leave(void);
/* What the kernel spends on a dispatched call's signal, there and back. */
void hp_rt_set_sys_cost(uint64_t ns);
/* The handlers' clock (ns; only differences mean anything): the TSC where
 * the kernel keeps time by it, once calibrated, else a system call.
 * hp_rt_clock_init at start-up; hp_rt_clock_calibrate now and then in
 * owner context (it begins, then after 20 ms completes, the calibration). */
uint64_t hp_rt_handler_clock(void);
void hp_rt_clock_init(void);
void hp_rt_clock_calibrate(void);
/* What the kernel spends on a fault before the handler runs, and after. */
void hp_rt_set_fault_cost(uint64_t ns);
/* Profiler time starts again from 0 (a forked child). */
void hp_rt_exclude_reset(void);
/* Profiler time so far, in nanoseconds. */
uint64_t hp_rt_excluded(void);
/* Write a message line to stderr (async-signal-safe), while fd 2 is the
 * stderr the program started with (hp_say_init notes it, first thing). */
void hp_say(const char *msg);
void hp_say_init(void);

#endif
