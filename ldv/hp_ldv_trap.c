/* hp_ldv_trap: installing mode ldv's fault handlers (hp_ldv_trap_sigsafe.c)
 * first, in front of whatever the program installs (the sigaction and
 * signal interposers of preload/ keep the program's action here, and the
 * handlers chain to it, or to the default action: a real crash still
 * crashes); learning libgc's text and heap test once it is known; and
 * stopping at exit. */
#include "core/hp_sys.h"
#include "ldv/hp_ldv_internal.h"
#include "core/hp_real.h"
#include "core/hp_rt.h"
#include "core/hp_thread.h"
#include "core/hp_symbols.h"

#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#define installed hp_ldv_trap_.installed
#define prev_segv hp_ldv_trap_.prev_segv
#define prev_trap hp_ldv_trap_.prev_trap
#define handler_mask hp_ldv_trap_.handler_mask


static int install(int sig, void (*fn)(int, siginfo_t *, void *), struct sigaction *prev)
{
    /* SA_NODEFER: the signal is not blocked while heapprof's handler runs,
     * so that the program's handler, when heapprof chains to it, runs with
     * the mask the program asked for (chain() adds the signal unless the
     * program said SA_NODEFER), and a program handler that leaves by
     * longjmp leaves the mask as it would have without heapprof. The
     * restorer is heapprof's own (hp_ldv_install_handler): its rt_sigreturn
     * runs even while system calls are dispatched. */
    return hp_ldv_install_handler(sig, fn, SA_RESTART | SA_ONSTACK | SA_NODEFER,
                                  &handler_mask, prev);
}

/* A thread's alternate-stack stand-in (hp_ldv_altstack_sigsafe.c) goes
 * with it. */
static pthread_key_t altstack_key;

static void altstack_gone(void *p)
{
    (void)p;
    hp_ldv_altstack_thread_end();
}

void hp_ldv_altstack_register(void)
{
    /* (glibc's first keys live in the thread's own descriptor: no
     * allocation, safe in a handler) */
    pthread_setspecific(altstack_key, (void *)1);
}

/* What a fault costs in the kernel (delivering the signal, returning from
 * it): measured once on a page of heapprof's own, the least of 32 faults
 * of a load the handler skips (movb (%rdi),%al: it moves the saved
 * instruction pointer past it), the page left protected throughout. The
 * profile clock counts it as heapprof's time with each fault
 * (hp_rt_handler_enter), so that censuses follow the program's own work
 * and not the faults it takes, and the ldv budget weighs it. (Until
 * 2026-11-29 the handler opened the page and the load was retried: the
 * figure held an mprotect, half made up for by subtracting half a
 * protect-and-open pair, and the first touch of a page after its
 * protection changed -- 3 to 5 us on a VM whose hypervisor shadows the
 * page tables, where a real fault, emulated without opening the page,
 * pays none: 13-17 us measured there, run to run, where precise mode's
 * faults cost 19 us in all, handler included.) */
static inline void calib_load(const volatile char *p)
{
    __asm__ volatile("movb (%0), %%al" : : "D"(p) : "rax", "memory");
}

static void calibrate(void)
{
    long p = hp_sys_raw6(SYS_mmap, 0, HP_PAGE, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p < 0 && p > -4096) return;
    uint64_t best_fault = UINT64_MAX;
    /* (A process may start with every signal blocked: SIGSEGV is let
     * through while heapprof faults on its own page.) */
    sigset_t segv, old;
    sigemptyset(&segv);
    sigaddset(&segv, SIGSEGV);
    hp_sys_raw6(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&segv, (long)&old, _NSIG / 8, 0, 0);
    atomic_store(&hp_ldv_trap_.calib_page, (uintptr_t)p);
    hp_sys_raw6(SYS_mprotect, p, HP_PAGE, PROT_NONE, 0, 0, 0);
    for (int i = 0; i < 32; i++) {
        uint64_t t0 = hp_mono_ns();
        calib_load((const volatile char *)p);   /* the handler skips it */
        uint64_t t1 = hp_mono_ns();
        if (t1 - t0 < best_fault) best_fault = t1 - t0;
    }
    atomic_store(&hp_ldv_trap_.calib_page, 0);
    hp_sys_raw6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, _NSIG / 8, 0, 0);
    hp_sys_raw6(SYS_munmap, p, HP_PAGE, 0, 0, 0, 0);
    hp_ldv_trap_.fault_ns = best_fault;
    hp_rt_set_fault_cost(hp_ldv_trap_.fault_ns);
}

/* What the machine charges, after a page's protection changed, for the
 * first touch of it (Note [Resting past the budget], hp_ldv_prot.c): a
 * TLB miss on most machines; on a VM whose hypervisor shadows the page
 * tables, a trip to the hypervisor that no counter of the guest shows
 * (5 us a page on the 2-CPU VM of 2026-11-29, where the same touch
 * without the change costs 20 ns). The least of 8 rounds over 64 pages,
 * each round's touches less those of a round without the change. */
#define RETOUCH_PAGES 64
static void calibrate_retouch(void)
{
    long p = hp_sys_raw6(SYS_mmap, 0, RETOUCH_PAGES * HP_PAGE, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p < 0 && p > -4096) return;
    volatile char *m = (volatile char *)p;
    for (int k = 0; k < RETOUCH_PAGES; k++) m[(size_t)k * HP_PAGE] = 1;
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 8; i++) {
        uint64_t t0 = hp_mono_ns();
        for (int k = 0; k < RETOUCH_PAGES; k++) m[(size_t)k * HP_PAGE]++;
        uint64_t plain = hp_mono_ns() - t0;
        hp_sys_raw6(SYS_mprotect, p, RETOUCH_PAGES * HP_PAGE, PROT_NONE, 0, 0, 0);
        hp_sys_raw6(SYS_mprotect, p, RETOUCH_PAGES * HP_PAGE, PROT_READ | PROT_WRITE, 0, 0, 0);
        t0 = hp_mono_ns();
        for (int k = 0; k < RETOUCH_PAGES; k++) m[(size_t)k * HP_PAGE]++;
        uint64_t changed = hp_mono_ns() - t0;
        uint64_t d = changed > plain ? changed - plain : 0;
        if (d < best) best = d;
    }
    hp_sys_raw6(SYS_munmap, p, RETOUCH_PAGES * HP_PAGE, 0, 0, 0, 0);
    hp_ldv_trap_.retouch_ns = best / RETOUCH_PAGES;
}

int hp_ldv_trap_init(char *err, unsigned long errlen)
{
    (void)err;
    (void)errlen;
    /* Every asynchronous signal waits while a handler runs: the collector's
     * suspend and restart signals (a thread is never stopped halfway through
     * one), and the program's own (a program handler run inside heapprof's,
     * as crystal's SIGCHLD handler was, then faulted on a protected page
     * and died: a fault inside heapprof's handler is not taken as a use).
     * The synchronous ones stay open; chain() gives a program handler the
     * mask it would have had without heapprof. */
    sigfillset(&handler_mask);
    sigdelset(&handler_mask, SIGSEGV);
    sigdelset(&handler_mask, SIGBUS);
    sigdelset(&handler_mask, SIGILL);
    sigdelset(&handler_mask, SIGFPE);
    sigdelset(&handler_mask, SIGTRAP);
    sigdelset(&handler_mask, SIGSYS);
    /* SIGTRAP: single steps (precise, adaptive) and stepped system calls. */
    hp_ldv_trap_.trap_installed = hp_ldv.precise || hp_ldv.sud_wanted;
    if (install(SIGSEGV, hp_ldv_on_segv, &prev_segv) != 0 ||
        (hp_ldv_trap_.trap_installed && install(SIGTRAP, hp_ldv_on_trap, &prev_trap) != 0)) {
        strncpy(err, "ldv mode cannot install its SIGSEGV handler", errlen - 1);
        err[errlen - 1] = 0;
        return -1;
    }
    pthread_key_create(&altstack_key, altstack_gone);
    installed = 1;
    hp_ldv_altstack_adopt();
    hp_rt_clock_init();
    calibrate();
    calibrate_retouch();
    hp_ldv_peek_open();
    return 0;
}

void hp_ldv_attach(void)
{
    if (!hp_ldv.active) return;
    hp_ldv_sigview_start();
    hp_symbols_module_span((uintptr_t)hp_ldv_attach, &hp_ldv.self_lo, &hp_ldv.self_hi);
    hp_ldv_gc_is_init_called = (int (*)(void))dlsym(RTLD_NEXT, "GC_is_init_called");
    hp_ldv_peek_.gc_get_parallel = (int (*)(void))dlsym(RTLD_NEXT, "GC_get_parallel");
    hp_ldv_gc_is_heap_ptr = (int (*)(const void *))dlsym(RTLD_NEXT, "GC_is_heap_ptr");
    hp_ldv_gc_pages_executable = (int (*)(void))dlsym(RTLD_NEXT, "GC_get_pages_executable");
    int (*get_sus)(void) = (int (*)(void))dlsym(RTLD_NEXT, "GC_get_suspend_signal");
    int (*get_rst)(void) = (int (*)(void))dlsym(RTLD_NEXT, "GC_get_thr_restart_signal");
    int s1 = get_sus ? get_sus() : -1, s2 = get_rst ? get_rst() : -1;
    if ((s1 > 0 && !sigismember(&handler_mask, s1)) || (s2 > 0 && !sigismember(&handler_mask, s2))) {
        if (s1 > 0) sigaddset(&handler_mask, s1);
        if (s2 > 0) sigaddset(&handler_mask, s2);
        install(SIGSEGV, hp_ldv_on_segv, NULL);
        if (hp_ldv_trap_.trap_installed) install(SIGTRAP, hp_ldv_on_trap, NULL);
    }
    hp_ldv_sud_start();
}


/* The program's action for a signal heapprof handles itself (hp_ldv.h). */
struct sigaction *hp_ldv_program_action(int sig)
{
    if (!installed) return NULL;
    if (sig == SIGSEGV) return &prev_segv;
    if (sig == SIGTRAP && hp_ldv_trap_.trap_installed) return &prev_trap;
    if (sig == SIGSYS && hp_ldv_sud_.usable) return &hp_ldv_trap_.prev_sys;
    return NULL;
}
