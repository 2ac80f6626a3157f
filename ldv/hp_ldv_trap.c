/* hp_ldv_trap: the SIGSEGV handler that turns a fault on a protected page
 * into a use, the SIGTRAP handler of the precise policy (single-step the
 * faulting instruction, then protect the page again), and sigaction/signal
 * interposition so heapprof's handler stays first and chains to the
 * program's (or to the default action: a real crash still crashes). */
#include "core/hp_sys.h"
#include "ldv/hp_ldv_internal.h"
#include "core/hp_real.h"
#include "core/hp_rt.h"
#include "core/hp_thread.h"
#include "core/hp_symbols.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#define TF 0x100   /* EFLAGS trap flag */
#define PEND_MAX 8

static int installed;
static struct sigaction prev_segv, prev_trap;   /* the program's, chained to */
static sigset_t handler_mask;

/* Per-thread: pages opened for the instruction being stepped, and the last
 * fault (a fault that repeats at once was not cured by opening the page). */
typedef struct trap_tls {
    uintptr_t pend[PEND_MAX];
    int npend;
    uintptr_t last_addr;
    uint64_t last_pass;
    int repeats;
    uintptr_t coll_addr;   /* the same, for faults while a collection runs */
    uint64_t coll_pass;
    int coll_tries;
    uintptr_t code_ok[8];  /* code pages (page number + 1) seen readable */
} trap_tls;
static __thread trap_tls tt __attribute__((tls_model("initial-exec")));

/* ---- Signal handlers: async-signal-safe from here. ---- */
static void chain(int sig, siginfo_t *si, void *uc, struct sigaction *p)
{
    if ((p->sa_flags & SA_SIGINFO) && p->sa_sigaction) {
        void (*fn)(int, siginfo_t *, void *) = p->sa_sigaction;
        if (p->sa_flags & SA_RESETHAND) p->sa_handler = SIG_DFL, p->sa_flags = 0;
        pthread_sigmask(SIG_BLOCK, &p->sa_mask, NULL);
        fn(sig, si, uc);
        return;
    }
    if (!(p->sa_flags & SA_SIGINFO) && p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN) {
        void (*fn)(int) = p->sa_handler;
        if (p->sa_flags & SA_RESETHAND) p->sa_handler = SIG_DFL, p->sa_flags = 0;
        pthread_sigmask(SIG_BLOCK, &p->sa_mask, NULL);
        fn(sig);
        return;
    }
    if (sig == SIGTRAP && !(p->sa_flags & SA_SIGINFO) && p->sa_handler == SIG_IGN) return;
    /* The default action: restore it; a fault re-executes the instruction
     * and dies of it (core and all), a sent signal is sent again. */
    struct sigaction d;
    memset(&d, 0, sizeof d);
    d.sa_handler = SIG_DFL;
    hp_sys_sigaction(sig, &d, NULL);
    if (si->si_code <= 0 || sig == SIGTRAP) raise(sig);
}

/* The collector's or heapprof's own access: code in libgc or heapprof, or
 * the C library called from inside a GC_ entry point (memset, memcpy). */
static int is_collector(uintptr_t pc)
{
    return (pc >= hp_ldv.gc_lo && pc < hp_ldv.gc_hi) ||
           (pc >= hp_ldv.self_lo && pc < hp_ldv.self_hi) ||
           hp_tls.depth > 0;
}

/* May the emulator read the instruction at pc? Code is readable unless it
 * sits on an execute-only page (memory protection keys), where a read would
 * fault inside this handler. Learnt once per page and thread by reading
 * through process_vm_readv, which fails instead of faulting. */
static int code_readable(uintptr_t pc)
{
    for (uintptr_t pg = pc >> 12; pg <= (pc + 15) >> 12; pg++) {
        int known = 0;
        for (int i = 0; i < 8; i++)
            if (tt.code_ok[i] == pg + 1) known = 1;
        if (known) continue;
        unsigned char b;
        struct iovec local = {&b, 1}, remote = {(void *)(pg << 12), 1};
        if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != 1) return 0;
        memmove(&tt.code_ok[1], &tt.code_ok[0], 7 * sizeof tt.code_ok[0]);
        tt.code_ok[0] = pg + 1;
    }
    return 1;
}

static void on_segv(int sig, siginfo_t *si, void *ucv)
{
    int saved = errno;
    ucontext_t *uc = ucv;
    uintptr_t addr = (uintptr_t)si->si_addr;
    if (si->si_code != SEGV_ACCERR) goto chain;
    for (;;) {
        atomic_fetch_add(&hp_ldv.handlers, 1);
        if (!atomic_load(&hp_ldv.collecting)) break;
        atomic_fetch_sub(&hp_ldv.handlers, 1);
        if (hp_ldv_protecting()) {
            while (hp_ldv_protecting()) ;       /* the pass ends soon */
            continue;
        }
        /* A collection has begun: the page faulted while still protected
         * and START opens it (wait for that, then run the instruction
         * again); a fault that repeats once every page is open is not ours. */
        while (atomic_load(&hp_ldv.opening)) ;
        if (addr == tt.coll_addr && tt.coll_pass == hp_ldv.passes) {
            if (++tt.coll_tries > 2) {
                tt.coll_addr = 0;
                goto chain;
            }
        } else {
            tt.coll_addr = addr;
            tt.coll_pass = hp_ldv.passes;
            tt.coll_tries = 0;
        }
        errno = saved;
        return;
    }
    tt.coll_addr = 0;
    const hp_ldv_run *run = hp_ldv_find_run(addr);
    if (!run) {
        atomic_fetch_sub(&hp_ldv.handlers, 1);
        goto chain;
    }
    if (addr == tt.last_addr && tt.last_pass == hp_ldv.passes && ++tt.repeats > 3) {
        /* Opening did not cure it: the page is not (only) ours to open. */
        atomic_fetch_sub(&hp_ldv.handlers, 1);
        tt.repeats = 0;
        goto chain;
    }
    if (addr != tt.last_addr || tt.last_pass != hp_ldv.passes) tt.repeats = 0;
    tt.last_addr = addr;
    tt.last_pass = hp_ldv.passes;
    atomic_fetch_add_explicit(&hp_ldv.faults, 1, memory_order_relaxed);
    int fresh = 0;   /* the fault found a new use */
    if (is_collector((uintptr_t)uc->uc_mcontext.gregs[REG_RIP])) {
        atomic_fetch_add_explicit(&hp_ldv.gc_faults, 1, memory_order_relaxed);
    } else {
        const hp_ldv_ent *e = hp_ldv_find(addr);
        if (e) fresh = hp_ldv_use(e, (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0);
    }
    int ok;
    int step = hp_ldv.precise && tt.npend < PEND_MAX &&
               (fresh || !hp_ldv.repeat || !hp_ldv_fruitless(addr, run));
    if (step) {
        uintptr_t page = addr & ~(uintptr_t)(HP_PAGE - 1);
        ok = hp_sys_mprotect((void *)page, HP_PAGE, PROT_READ | PROT_WRITE) == 0;
        if (ok && tt.npend == 0 && code_readable((uintptr_t)uc->uc_mcontext.gregs[REG_RIP]) &&
            hp_ldv_emulate(uc->uc_mcontext.gregs, page, page + HP_PAGE)) {
            /* Done here: protect the page again at once, no trap. */
            if (!atomic_load(&hp_ldv.collecting)) hp_ldv_reprotect_page(page);
            atomic_fetch_add_explicit(&hp_ldv.emulated, 1, memory_order_relaxed);
            tt.last_addr = 0;
        } else if (ok) {
            tt.pend[tt.npend++] = page;
            uc->uc_mcontext.gregs[REG_EFL] |= TF;
            atomic_fetch_add_explicit(&hp_ldv.steps, 1, memory_order_relaxed);
        } else {
            ok = hp_ldv_open_page(addr, run) >= 0;
        }
    } else {
        ok = hp_ldv_open_page(addr, run) >= 0;
    }
    atomic_fetch_sub(&hp_ldv.handlers, 1);
    if (!ok) goto chain;
    errno = saved;
    return;
chain:
    chain(sig, si, ucv, &prev_segv);
    errno = saved;
}

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
    int saved = errno;
    ucontext_t *uc = ucv;
    if (tt.npend == 0) {
        chain(sig, si, ucv, &prev_trap);
        errno = saved;
        return;
    }
    uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)TF;
    atomic_fetch_add(&hp_ldv.handlers, 1);
    if (!atomic_load(&hp_ldv.collecting))
        for (int i = 0; i < tt.npend; i++) hp_ldv_reprotect_page(tt.pend[i]);
    atomic_fetch_sub(&hp_ldv.handlers, 1);
    tt.npend = 0;
    tt.last_addr = 0;
    errno = saved;
}
/* ---- end of signal-handler code ---- */

static int install(int sig, void (*fn)(int, siginfo_t *, void *), struct sigaction *prev)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = fn;
    sa.sa_mask = handler_mask;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    return hp_sys_sigaction(sig, &sa, prev);
}

int hp_ldv_trap_init(char *err, unsigned long errlen)
{
    (void)err;
    (void)errlen;
    /* The collector's suspend and restart signals wait while a handler runs
     * (a thread is never stopped halfway through one). */
    sigemptyset(&handler_mask);
    sigaddset(&handler_mask, SIGPWR);
    sigaddset(&handler_mask, SIGXCPU);
    if (install(SIGSEGV, on_segv, &prev_segv) != 0 ||
        (hp_ldv.precise && install(SIGTRAP, on_trap, &prev_trap) != 0)) {
        strncpy(err, "ldv mode cannot install its SIGSEGV handler", errlen - 1);
        err[errlen - 1] = 0;
        return -1;
    }
    installed = 1;
    return 0;
}

void hp_ldv_attach(void)
{
    if (!hp_ldv.active) return;
    hp_symbols_module_span((uintptr_t)hp_real.GC_malloc, &hp_ldv.gc_lo, &hp_ldv.gc_hi);
    hp_symbols_module_span((uintptr_t)hp_ldv_attach, &hp_ldv.self_lo, &hp_ldv.self_hi);
    hp_ldv_sys_attach();
    int (*get_sus)(void) = (int (*)(void))dlsym(RTLD_NEXT, "GC_get_suspend_signal");
    int (*get_rst)(void) = (int (*)(void))dlsym(RTLD_NEXT, "GC_get_thr_restart_signal");
    int s1 = get_sus ? get_sus() : -1, s2 = get_rst ? get_rst() : -1;
    if ((s1 > 0 && !sigismember(&handler_mask, s1)) || (s2 > 0 && !sigismember(&handler_mask, s2))) {
        if (s1 > 0) sigaddset(&handler_mask, s1);
        if (s2 > 0) sigaddset(&handler_mask, s2);
        install(SIGSEGV, on_segv, NULL);
        if (hp_ldv.precise) install(SIGTRAP, on_trap, NULL);
    }
}

void hp_ldv_stop(void)
{
    if (!hp_ldv.active) return;
    atomic_store(&hp_ldv.stopped, 1);
}

/* ---- Interposed: the program's handlers for our signals are kept here and
 * chained to; every other signal goes straight through. ---- */
static struct sigaction *ours(int sig)
{
    if (!installed) return NULL;
    if (sig == SIGSEGV) return &prev_segv;
    if (sig == SIGTRAP && hp_ldv.precise) return &prev_trap;
    return NULL;
}

__attribute__((visibility("default"))) int sigaction(int sig, const struct sigaction *act,
                                                     struct sigaction *oact)
{
    struct sigaction *p = ours(sig);
    if (!p) {
        return hp_sys_sigaction(sig, act, oact);
    }
    struct sigaction old = *p;
    if (act) *p = *act;
    if (oact) *oact = old;
    return 0;
}

__attribute__((visibility("default"))) sighandler_t signal(int sig, sighandler_t fn)
{
    struct sigaction *p = ours(sig);
    if (!p) {
        static sighandler_t (*real_signal)(int, sighandler_t);
        if (!real_signal)
            real_signal = (sighandler_t (*)(int, sighandler_t))dlsym(RTLD_NEXT, "signal");
        return real_signal(sig, fn);
    }
    sighandler_t old = (p->sa_flags & SA_SIGINFO) ? (sighandler_t)(void *)p->sa_sigaction
                                                  : p->sa_handler;
    memset(p, 0, sizeof *p);
    p->sa_handler = fn;
    p->sa_flags = SA_RESTART;
    return old;
}
