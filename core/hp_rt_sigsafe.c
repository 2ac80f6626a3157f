/* hp_rt_sigsafe: process-wide state, clocks and messages (see hp_rt.h).
 * Async-signal-safe: clock_gettime and raw writes only. */
#include "core/hp_rt.h"
#include "core/hp_sys.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

hp_runtime hp_rt;

/* How many threads are inside a handler of heapprof's (see hp_rt_handler_enter). */
static _Atomic int in_handlers;

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
    atomic_store(&hp_rt.dispatch_ns, 0);
    /* (A thread of the parent inside a handler at the fork has no copy
     * here: with its count kept, no interval would ever end.) */
    atomic_store(&in_handlers, 0);
    atomic_store(&hp_rt.forced_collections, 0);   /* (and its forced collections) */
    atomic_store(&hp_rt.forced_ns, 0);
    atomic_store(&hp_rt.forced_max_ns, 0);
    atomic_store(&hp_rt.forced_declined, 0);
    atomic_store(&hp_rt.forced_waited, 0);
    atomic_store(&hp_rt.waited_collection_ns, 0);
    atomic_store(&hp_rt.window_collections, 0);
}

uint64_t hp_rt_excluded(void) { return atomic_load(&hp_rt.excluded_ns); }

/* Time in fault handlers, on any thread (each with the kernel's part of a
 * fault, measured at start-up by the mode that takes faults): the union of the intervals in
 * which at least one thread is inside one (never more than the time that
 * passed, however many threads fault at once). The thread that leaves last
 * reads the interval's start after its decrement: a thread entering in
 * between has just set a new start, which only shortens the interval. */
static _Atomic uint64_t handlers_since;
static _Atomic int since_tsc;    /* handlers_since is on the TSC clock */
static uint64_t fault_cost_ns;   /* the kernel's part of a fault, before the handler */
static uint64_t sys_cost_ns;     /* ... of a dispatched system call's signal */

/* The handlers' clock. A clock read costs a system call in a handler (the
 * vDSO may fall back to one, which dispatch would trap there): 155 ns on
 * the development VM, 1.2 us on the paravirtual VM of 2026-11-29 -- twice
 * a fault (about 22 us there all told: a ninth of it) and four times a
 * dispatched call. Where the TSC is what the kernel keeps time by, the
 * handlers read it instead (9-11 ns), scaled by a ratio measured against
 * CLOCK_MONOTONIC over the first 20 ms or more of collections
 * (hp_rt_clock_calibrate); until then, and elsewhere, the system call.
 * "What the kernel keeps time by" (read at start-up): the clocksource
 * "tsc" (the kernel found it invariant and synchronised across CPUs), or
 * "kvm-clock" on a CPU whose CPUID says its TSC is invariant (leaf
 * 0x80000007, EDX bit 8): kvm-clock is the TSC scaled by the hypervisor,
 * which keeps the guest's TSCs in step (such a guest's kernel may be told
 * not to use the TSC itself, tsc=unstable, and still read the time from
 * it through kvm-clock). Only differences are taken (intervals of a
 * handler), and an interval that comes out negative is dropped. */
static int tsc_usable;
static _Atomic uint64_t tsc_mul;   /* ns per cycle, 32.32 fixed point; 0: not yet */
static uint64_t cal_tsc, cal_ns;

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* CPUID says the TSC runs at a constant rate in every state (leaf
 * 0x80000007, EDX bit 8: "invariant TSC"). */
static int invariant_tsc(void)
{
    uint32_t a, b, c, d;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000000u), "c"(0));
    if (a < 0x80000007u) return 0;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000007u), "c"(0));
    return (d >> 8) & 1;
}

void hp_rt_clock_init(void)
{
    char buf[16] = {0};
    int fd = (int)hp_sys_raw6(SYS_open,
                              (long)"/sys/devices/system/clocksource/clocksource0/current_clocksource",
                              O_RDONLY | O_CLOEXEC, 0, 0, 0, 0);
    if (fd < 0) return;
    long n = hp_sys_raw6(SYS_read, fd, (long)buf, sizeof buf - 1, 0, 0, 0);
    hp_sys_raw6(SYS_close, fd, 0, 0, 0, 0, 0);
    tsc_usable = (n == 4 && memcmp(buf, "tsc\n", 4) == 0) ||
                 (n == 10 && memcmp(buf, "kvm-clock\n", 10) == 0 && invariant_tsc());
}

void hp_rt_clock_calibrate(void)
{
    if (!tsc_usable || atomic_load(&tsc_mul)) return;
    uint64_t ns = hp_mono_ns(), c = rdtsc();
    if (!cal_tsc) {
        cal_tsc = c;
        cal_ns = ns;
        return;
    }
    if (ns - cal_ns < 20000000 || c <= cal_tsc) return;
    atomic_store(&tsc_mul, (uint64_t)((double)(ns - cal_ns) * 4294967296.0 / (double)(c - cal_tsc)));
}

/* Now on the handlers' clock, and which clock that was. */
static inline uint64_t handler_now(int *on_tsc)
{
    uint64_t m = atomic_load_explicit(&tsc_mul, memory_order_relaxed);
    *on_tsc = m != 0;
    return m ? (uint64_t)(((__uint128_t)rdtsc() * m) >> 32) : hp_rt_raw_mono_ns();
}

uint64_t hp_rt_handler_clock(void)
{
    int t;
    return handler_now(&t);
}

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

static void enter(uint64_t kernel_ns)
{
    if (atomic_fetch_add(&in_handlers, 1) == 0) {
        int t;
        uint64_t now = handler_now(&t);
        atomic_store(&since_tsc, t);
        atomic_store(&handlers_since, now - kernel_ns);
    }
}

/* The last thread out counts the interval (as the kind of handler it
 * leaves: with threads in both kinds at once, the split is approximate;
 * the one interval that spans the switch to the TSC is not counted). */
static void leave(_Atomic uint64_t *kind_ns)
{
    if (atomic_fetch_sub(&in_handlers, 1) != 1) return;
    int t;
    uint64_t t0 = atomic_load(&handlers_since), now = handler_now(&t);
    if (t != atomic_load(&since_tsc)) return;
    if (now > t0) {
        atomic_fetch_add(&hp_rt.excluded_ns, now - t0);
        atomic_fetch_add_explicit(kind_ns, now - t0, memory_order_relaxed);
    }
}

void hp_rt_handler_enter(void) { enter(fault_cost_ns); }

void hp_rt_handler_leave(void) { leave(&hp_rt.handler_ns); }

void hp_rt_sys_enter(int from_kernel) { enter(from_kernel ? sys_cost_ns : 0); }

void hp_rt_set_sys_cost(uint64_t ns) { sys_cost_ns = ns; }

void hp_rt_sys_leave(void) { leave(&hp_rt.dispatch_ns); }

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
