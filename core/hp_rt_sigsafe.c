/* hp_rt_sigsafe: process-wide state, clocks and messages (see hp_rt.h).
 * Async-signal-safe: clock_gettime and raw writes only. */
#include "core/hp_rt.h"
#include "core/hp_sys.h"

#include <string.h>
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

void hp_rt_exclude_reset(void) { atomic_store(&hp_rt.excluded_ns, 0); }

uint64_t hp_rt_excluded(void) { return atomic_load(&hp_rt.excluded_ns); }

uint64_t hp_rt_exclude_since(uint64_t t0)
{
    uint64_t now = hp_mono_ns();
    atomic_fetch_add(&hp_rt.excluded_ns, now - t0);
    return now;
}

void hp_say(const char *msg)
{
    int saved = errno;
    hp_sys_write_all(2, msg, strlen(msg));
    hp_sys_write_all(2, "\n", 1);
    errno = saved;
}
