/* hp_runtime: process-wide state of the profiler: configuration, clocks,
 * output paths, and the life cycle (start, attach to the collector, fork,
 * exit, SIGINT/SIGTERM). */
#ifndef HP_RUNTIME_H
#define HP_RUNTIME_H
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "hp_config.h"

typedef struct hp_runtime {
    hp_config cfg;
    _Atomic int initialised;      /* configuration read */
    _Atomic int attached;         /* collector hooks installed: recording on */
    uint64_t start_ns;            /* CLOCK_MONOTONIC at start (or at fork) */
    _Atomic uint64_t excluded_ns; /* time spent inside the profiler */
    _Atomic uint32_t period;      /* census period: censuses taken so far */
    pid_t pid;
    int forked_child;             /* this process is a fork of a profiled one */
    char program[256];            /* basename of the executable */
    char job[2048];               /* command line for the JOB line */
    char hp_path[HP_OUT_MAX + 64];
    char prof_path[HP_OUT_MAX + 64];
    char csv_path[HP_OUT_MAX + 64];
} hp_runtime;

extern hp_runtime hp_rt;

void hp_ensure_init(void);
/* Install the collector hooks if libgc is present. Returns 1 when attached. */
int hp_ensure_attached(void);
uint64_t hp_mono_ns(void);
uint64_t hp_coarse_ns(void);
/* Mutator (profile) time in seconds: since start, less profiler time. */
double hp_profile_seconds(uint64_t mono_ns);
/* Write a message line to stderr (async-signal-safe). */
void hp_say(const char *msg);

#endif
