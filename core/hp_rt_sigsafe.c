/* hp_rt_sigsafe: process-wide state, clocks and messages (see hp_rt.h).
 * Async-signal-safe: clock_gettime and raw writes only. */
#include "core/hp_rt.h"
#include "core/hp_sys.h"

#include <string.h>
#include <sys/stat.h>
#include <time.h>

hp_runtime hp_rt;

uint64_t hp_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t hp_coarse_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double hp_profile_seconds(uint64_t mono_ns)
{
    uint64_t ex = atomic_load_explicit(&hp_rt.excluded_ns, memory_order_relaxed);
    uint64_t since = mono_ns > hp_rt.start_ns ? mono_ns - hp_rt.start_ns : 0;
    return since > ex ? (double)(since - ex) / 1e9 : 0.0;
}

void hp_rt_exclude(uint64_t ns) { atomic_fetch_add(&hp_rt.excluded_ns, ns); }

void hp_rt_exclude_reset(void)
{
    atomic_store(&hp_rt.excluded_ns, 0);
    atomic_store(&hp_rt.handler_ns, 0);   /* (a forked child's budget starts afresh) */
    atomic_store(&hp_rt.forced_collections, 0);   /* (and its forced collections) */
    atomic_store(&hp_rt.forced_ns, 0);
    atomic_store(&hp_rt.forced_declined, 0);
}

uint64_t hp_rt_excluded(void) { return atomic_load(&hp_rt.excluded_ns); }

/* Time in fault handlers, on any thread (each with the kernel's part of a
 * fault, measured at start-up by the mode that takes faults): the union of the intervals in
 * which at least one thread is inside one (never more than the time that
 * passed, however many threads fault at once). The thread that leaves last
 * reads the interval's start after its decrement: a thread entering in
 * between has just set a new start, which only shortens the interval. */
static _Atomic int in_handlers;
static _Atomic uint64_t handlers_since;
static uint64_t fault_cost_ns;   /* the kernel's part of a fault, before the handler */

/* CLOCK_MONOTONIC by a system call from heapprof's own text: the vDSO's
 * clock_gettime may fall back to a system call of its own, which system
 * call dispatch (mode ldv) would trap inside heapprof's fault handler. */
uint64_t hp_rt_raw_mono_ns(void)
{
    struct timespec ts;
    hp_sys_raw6(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&ts, 0, 0, 0, 0);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void hp_rt_set_fault_cost(uint64_t ns) { fault_cost_ns = ns; }

void hp_rt_handler_enter(void)
{
    if (atomic_fetch_add(&in_handlers, 1) == 0)
        atomic_store(&handlers_since, hp_rt_raw_mono_ns() - fault_cost_ns);
}

void hp_rt_handler_leave(void)
{
    if (atomic_fetch_sub(&in_handlers, 1) != 1) return;
    uint64_t t0 = atomic_load(&handlers_since), now = hp_rt_raw_mono_ns();
    if (now > t0) {
        atomic_fetch_add(&hp_rt.excluded_ns, now - t0);
        atomic_fetch_add_explicit(&hp_rt.handler_ns, now - t0, memory_order_relaxed);
    }
}

uint64_t hp_rt_exclude_since(uint64_t t0)
{
    uint64_t now = hp_mono_ns();
    atomic_fetch_add(&hp_rt.excluded_ns, now - t0);
    return now;
}

void hp_rt_exclude_coarse_since(uint64_t t0)
{
    uint64_t now = hp_coarse_ns();
    if (now != t0) atomic_fetch_add(&hp_rt.excluded_ns, now - t0);
}

/* Standard error as the program was started with it: heapprof writes there
 * only while fd 2 is still that file (a program that closed fd 2 and
 * opened its own data file there never receives heapprof's lines). */
static struct { uint64_t dev, ino; int known; } stderr_id;

static int stderr_identity(uint64_t *dev, uint64_t *ino)
{
    struct stat st;
    if (HP_SYS6(SYS_fstat, 2, &st, 0, 0, 0, 0) != 0) return -1;
    *dev = st.st_dev;
    *ino = st.st_ino;
    return 0;
}

void hp_say_init(void)
{
    stderr_id.known = stderr_identity(&stderr_id.dev, &stderr_id.ino) == 0 ? 1 : -1;
}

void hp_say(const char *msg)
{
    int saved = errno;
    uint64_t dev, ino;
    int ours = stderr_id.known == 0 ||   /* before start-up: as it is */
               (stderr_id.known > 0 && stderr_identity(&dev, &ino) == 0 &&
                dev == stderr_id.dev && ino == stderr_id.ino);
    if (ours) {
        hp_sys_write_all(2, msg, strlen(msg));
        hp_sys_write_all(2, "\n", 1);
    }
    errno = saved;
}
