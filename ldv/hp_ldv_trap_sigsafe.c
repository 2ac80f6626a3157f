/* hp_ldv_trap_sigsafe: mode ldv's fault handlers. SIGSEGV on a protected
 * page is a use: the page is opened, and the faulting instruction is
 * performed in the handler (hp_ldv_emul_sigsafe.c) or single-stepped
 * (SIGTRAP, the precise policy) before the page is protected again; a
 * fault that is not ldv's goes to the program's action (hp_ldv_trap.c
 * keeps it) or the default one. Async-signal-safe throughout. */
#include "ldv/hp_ldv_internal.h"
#include "core/hp_real.h"
#include "core/hp_rt.h"
#include "core/hp_sys.h"
#include "core/hp_thread.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <ucontext.h>

#define TF 0x100   /* EFLAGS trap flag */
#define PEND_MAX 8

hp_ldv_trap_state hp_ldv_trap_;
#define installed hp_ldv_trap_.installed
#define prev_segv hp_ldv_trap_.prev_segv
#define prev_trap hp_ldv_trap_.prev_trap
#define handler_mask hp_ldv_trap_.handler_mask

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
    unsigned budget_tick;  /* faults since the budget was last looked at */
    /* The page this thread last left open at a fault that could teach
     * nothing, in pass `alien_pass` (Note [The allocator moves on]). */
    uintptr_t alien_page;
    uint64_t alien_pass;
} trap_tls;
static __thread trap_tls tt __attribute__((tls_model("initial-exec")));

/* Block what the kernel would have blocked for the program's handler: its
 * sa_mask, and the signal itself unless it asked for SA_NODEFER
 * (heapprof's own handler runs with SA_NODEFER; the kernel restores the
 * mask when the handler returns, and a handler that longjmps leaves it as
 * it would have been without heapprof) -- except heapprof's own signals,
 * never really blocked in mode ldv (hp_ldv_sigview_sigsafe.c). */
static void program_mask(int sig, const struct sigaction *p, const ucontext_t *uc)
{
    /* From the mask at the fault (heapprof's handler blocks every
     * asynchronous signal while it runs; the program's would not). */
    sigset_t m = uc->uc_sigmask;
    for (int s = 1; s < _NSIG; s++)
        if (sigismember(&p->sa_mask, s) == 1) sigaddset(&m, s);
    if (!(p->sa_flags & SA_NODEFER)) sigaddset(&m, sig);
    sigdelset(&m, SIGSEGV);
    sigdelset(&m, SIGTRAP);
    sigdelset(&m, SIGSYS);
    hp_sys_raw6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&m, 0, _NSIG / 8, 0, 0);
}

static void chain(int sig, siginfo_t *si, void *uc, struct sigaction *p)
{
    if (hp_ldv_sigview_blocked(sig, si)) return;
    if ((p->sa_flags & SA_SIGINFO) && p->sa_sigaction) {
        void (*fn)(int, siginfo_t *, void *) = p->sa_sigaction;
        program_mask(sig, p, (const ucontext_t *)uc);
        if (p->sa_flags & SA_RESETHAND) p->sa_handler = SIG_DFL, p->sa_flags = 0;
        fn(sig, si, uc);
        return;
    }
    if (!(p->sa_flags & SA_SIGINFO) && p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN) {
        void (*fn)(int) = p->sa_handler;
        program_mask(sig, p, (const ucontext_t *)uc);
        if (p->sa_flags & SA_RESETHAND) p->sa_handler = SIG_DFL, p->sa_flags = 0;
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
    return (pc >= hp_rt.gc_lo && pc < hp_rt.gc_hi) ||
           (pc >= hp_ldv.self_lo && pc < hp_ldv.self_hi) ||
           hp_tls.depth > 0;
}

/* Adaptive: is what watching has cost still within the budget for
 * exact re-arming (hp_ldv_state)? The handlers and the passes (with the
 * touches after them), as a pass weighs it (hp_ldv_watch_cost; Note
 * [Resting past the budget], hp_ldv_prot.c). Looked at every 32nd fault
 * of a thread (a clock read is a system call here). The budget grows
 * with the program's time, so a run past it comes back under it. */
static int within_budget(void)
{
    int in = atomic_load_explicit(&hp_ldv.within_budget, memory_order_relaxed);
    if (!(hp_ldv.budget_ratio > 0) || tt.budget_tick++ % 32) return in;
    uint64_t allow, mut;
    int now_in = hp_ldv_watch_cost(&allow, &mut) <= allow;
    if (now_in != in) {
        atomic_store(&hp_ldv.within_budget, now_in);
        uint64_t zero = 0;
        if (!now_in) atomic_compare_exchange_strong(&hp_ldv.budget_first_ns, &zero, mut ? mut : 1);
    }
    return now_in;
}

/* Has a thread other than this one taken a fault since the last protect
 * pass? A runtime's idle threads (Guile's finalizer and signal threads)
 * never touch the heap: pages this thread opens for one instruction lose
 * nothing to them. A thread that does read the heap takes a fault on its
 * first access to a protected page, unless that access falls in another
 * thread's one-instruction window (a few microseconds). */
/* Has another of the program's threads taken a fault since the protect
 * pass before the last one, or been created since then? (The collector's
 * marker threads are not counted: they run while the program's threads
 * are stopped.) A thread that reads the heap shows itself by a fault at
 * its first access to a protected page -- unless that first access falls
 * in this thread's one-instruction window: a thread just created (two
 * threads reading alternate objects of the same pages lost uses so,
 * counted certain, when only faults since the last pass counted), or one
 * that faulted the period before. A window of a few cycles since that
 * thread's last fault is no evidence it stopped: counting only recent
 * faults was tried and let a missed use pass as certain. */
static _Atomic uintptr_t last_faulter;
static _Atomic uint64_t others_pass;   /* passes + 1 when two threads faulted */

static void note_faulter(void)
{
    uintptr_t me = (uintptr_t)&tt;
    uintptr_t prev = atomic_exchange_explicit(&last_faulter, me, memory_order_relaxed);
    if (prev && prev != me)
        atomic_store_explicit(&others_pass, hp_ldv.passes + 1, memory_order_relaxed);
}

static int others_faulted(void)
{
    uint64_t o = atomic_load_explicit(&others_pass, memory_order_relaxed);
    return (o && o >= hp_ldv.passes) || hp_ldv_peek_created_lately();
}

/* May the emulator read the instruction at pc? Code is readable unless it
 * sits on an execute-only page (memory protection keys), where a read would
 * fault inside this handler. Learnt once per page and thread by reading
 * through process_vm_readv, which fails instead of faulting. */
int hp_ldv_code_readable(uintptr_t pc)
{
    if (!hp_ldv_known_readable(pc, 1)) return 0;
    return ((pc + 15) >> 12) == (pc >> 12) || hp_ldv_known_readable(pc + 15, 1);
}

/* The burst (hp_ldv_burst_sigsafe.c), from the faulting instruction or
 * the one after it: 1 when it did at least one instruction. */
/* Note [Bursts after a fault on a used object]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Within the budget, a fault on an object used already this period, on a
 * page kept protected on credit, is a lookup or a walk going over what it
 * has seen: a burst from it performs the next accesses in the handler
 * rather than faulting at each (ldv_patterns hash, whose lookups read
 * chain heads again and again: 16,071 faults without such bursts, 3,002
 * with, as precise mode). But where such bursts go from page to page
 * finding nothing (w3m -dump of a 5000-row table: 8,000 more bursts,
 * 17,600 more reads of protected pages, fewer uses seen for the same
 * budget, 1.49 s -> 1.62 s), they are dearer than the faults they save.
 * So they are made only while the recent ones (their counts halved at
 * each pass) saw a new use for every 8 reads of a protected page, plus 64
 * reads: hash's see one for every 4 to 8 (one for every 4 asked: 13,168
 * faults), w3m's fewer than one for every 32 (2026-11-29: w3m 1.44-1.46 s
 * again, about 5,900 such bursts not made; hash 3,046 faults). */
static int stale_bursts_pay(void)
{
    return atomic_load_explicit(&hp_ldv.stale_burst_peeks_recent, memory_order_relaxed) <=
           8 * atomic_load_explicit(&hp_ldv.stale_burst_uses_recent, memory_order_relaxed) + 64;
}

static int burst_on(ucontext_t *uc, int fd, int credit, int fresh)
{
    if (!hp_ldv.use_bursts || fd < 0) return 0;
    uint64_t uses = 0, peeks = 0;
    int n = hp_ldv_burst(uc, fd, credit, &uses, &peeks);
    if (!fresh) {
        atomic_fetch_add_explicit(&hp_ldv.stale_burst_peeks_recent, (int)peeks, memory_order_relaxed);
        atomic_fetch_add_explicit(&hp_ldv.stale_burst_uses_recent, (int)uses, memory_order_relaxed);
    }
    if (n <= 0) return 0;
    atomic_fetch_add_explicit(&hp_ldv.bursts, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&hp_ldv.burst_insns, (uint64_t)n, memory_order_relaxed);
    atomic_fetch_add_explicit(&hp_ldv.burst_uses, uses, memory_order_relaxed);
    return 1;
}

/* Note [The allocator moves on]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A page left open at a fault that could teach nothing (Note [Faults that
 * teach nothing]) is where the allocator works now: a lazy reclaim
 * linking a block's free objects, the pops that hand them out, the
 * program's first writes to them. It works there for a few allocations,
 * then takes another block. Left open for the rest of the period, the
 * page hid every later read of its older objects: where a program reads
 * and replaces objects by turns (ldv_patterns churn), every page is taken
 * apart by the allocator some time in each period, and the default policy
 * put only 81-93% of each band where precise mode did. So, within the
 * budget and while the program runs one thread, a thread that opens a
 * page so protects again the page it last opened so (hp_ldv_rearm_page):
 * one mprotect, where keeping the page protected would have cost a fault
 * for each of the allocator's accesses (precise mode pays half its faults
 * on churn there). Its objects not seen used in the period stay uncertain
 * (HP_LDV_WAS_OPENED: a read while it was open may have been missed).
 * Where the allocator works on two pages by turns (two size classes: w3m,
 * ldv_patterns fronts) the next fault on the page is the allocator's
 * again, and protecting again wastes it: so a page is protected again at
 * most HP_LDV_REARM_MAX times since its last new use, and none is while
 * the faults that followed recent re-protections (halved at each pass)
 * taught nothing more than twice as often as they found a use, plus 16.
 * Measured (2026-11-29): churn LAG/USE/DRAG 88.5/80.9/93.0% -> 98.8/96.4/
 * 97.3% of precise's byte-censuses (3,239 -> 3,651 faults; re-protected
 * 208 times, 106 paid, 63 wasted); w3m -dump of a 1000-row table against
 * its precise run 92.3/90.6/97.9% before, 92.6/90.8/97.9% after (89
 * re-protected, 88 wasted); without the feedback 73.8/90.8/85.8% (2 of 10
 * periods rested past the budget: the waste spent it); once a period
 * (HP_LDV_REARM_MAX 1) churn's USE 91.2%; the last four pages kept open
 * instead of one, 92.8%. */
static void allocator_moves_on(uintptr_t page)
{
    if (tt.alien_pass != hp_ldv.passes) {
        tt.alien_page = 0;
        tt.alien_pass = hp_ldv.passes;
    }
    if (!hp_ldv_peek_solo()) return;
    if (tt.alien_page && tt.alien_page != page) (void)hp_ldv_rearm_page(tt.alien_page);
    tt.alien_page = page;
}

/* Note [Faults that teach nothing]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Some faults cannot find a use: the collector's own accesses (libgc
 * taking an object off a free list whose head lies on a protected page,
 * a lazy reclaim writing the list's links into a block's free objects,
 * GC_free linking the freed object) and the program's accesses to memory
 * no indexed object holds (an object made since the pass, on a page
 * protected for its neighbours; free memory). They come where the
 * allocator works, and come again: a page with free slots is taken
 * apart slot by slot (the pop, the program's first writes to the new
 * object, the next pop), each access a fault as dear as one that finds a
 * use. Under the adaptive policy such a fault leaves its page open for
 * the rest of the period at once, whatever credit the page holds
 * (hp_ldv_alien; past the budget with its group, as any page left open
 * then): its objects not yet seen used become uncertain, as on any page
 * left open. On bench/ldv_precision.c, which replaces a twentieth of its
 * objects each period, 13,000 of the default policy's 30,000 faults
 * were of this kind (7,000 the collector's, 6,000 first writes to new
 * objects), the budget ran out after 0.05 s and 5 of 14 periods rested:
 * 79.5% of byte-censuses in precise mode's band. Now 1,031 such faults,
 * never past the budget, 26,419 faults in all, 99.5% (2026-11-29). The
 * ground-truth patterns (tests/progs/ldv_patterns.c) and trees.c stay as
 * they were; on w3m and Crystal these faults are few (2,600 of 25,000,
 * and 64-129 of 30,000), and the cost, bounded by the budget, the same. */
void hp_ldv_on_segv(int sig, siginfo_t *si, void *ucv)
{
    int saved = errno;
    ucontext_t *uc = ucv;
    uintptr_t addr = (uintptr_t)si->si_addr;
    uintptr_t calib = atomic_load_explicit(&hp_ldv_trap_.calib_page, memory_order_relaxed);
    if (calib && addr - calib < HP_PAGE) {   /* start-up's measurement (hp_ldv_trap.c) */
        /* Its load, movb (%rdi),%al, is skipped: the page stays protected
         * (opened, its next touch would cost what a real fault does not). */
        const uint8_t *ip = (const uint8_t *)uc->uc_mcontext.gregs[REG_RIP];
        if (ip[0] == 0x8a && ip[1] == 0x07) uc->uc_mcontext.gregs[REG_RIP] += 2;
        else hp_sys_raw6(SYS_mprotect, (long)calib, HP_PAGE, PROT_READ | PROT_WRITE, 0, 0, 0);
        errno = saved;
        return;
    }
    hp_rt_handler_enter();   /* heapprof's time, not the program's */
    if (si->si_code != SEGV_ACCERR) goto chain;
    /* The program's own protection forbids this access: its fault. */
    if (hp_ldv_prog_denies(addr, (unsigned long)uc->uc_mcontext.gregs[REG_ERR])) goto chain;
    for (;;) {
        atomic_fetch_add(&hp_ldv.handlers, 1);
        if (!atomic_load(&hp_ldv.collecting)) break;
        atomic_fetch_sub(&hp_ldv.handlers, 1);
        if (hp_ldv_protecting()) {
            unsigned spins = 0;   /* the pass ends soon */
            while (hp_ldv_protecting()) hp_ldv_pause(&spins);
            continue;
        }
        /* A collection has begun: the page faulted while still protected
         * and START opens it (wait for that, then run the instruction
         * again); a fault that repeats once every page is open is not ours. */
        unsigned spins = 0;
        while (atomic_load(&hp_ldv.opening)) hp_ldv_pause(&spins);
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
        hp_rt_handler_leave();
        errno = saved;
        return;
    }
    tt.coll_addr = 0;
    const hp_ldv_run *run = hp_ldv_find_run(addr);
    if (!run) {
        atomic_fetch_sub(&hp_ldv.handlers, 1);
        goto chain;
    }
    if (addr == tt.last_addr && tt.last_pass == hp_ldv.passes && ++tt.repeats > 16) {
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
    int alien = 0;   /* it could not have (Note [Faults that teach nothing]) */
    if (is_collector((uintptr_t)uc->uc_mcontext.gregs[REG_RIP])) {
        alien = 1;
        /* (The collector's threads run while the program's are stopped:
         * their faults are no sign of another thread of the program
         * running beside this one.) */
        atomic_fetch_add_explicit(&hp_ldv.gc_faults, 1, memory_order_relaxed);
    } else {
        note_faulter();
        const hp_ldv_ent *e = hp_ldv_find(addr);
        if (!e) {
            alien = 1;
            atomic_fetch_add_explicit(&hp_ldv.free_faults, 1, memory_order_relaxed);
        } else {
            int u = hp_ldv_use(e, (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0);
            fresh = u > 0 ? u : 0;
            if (u == 0) atomic_fetch_add_explicit(&hp_ldv.stale_faults, 1, memory_order_relaxed);
            else if (u < 0) atomic_fetch_add_explicit(&hp_ldv.init_faults, 1, memory_order_relaxed);
        }
    }
    uintptr_t page = addr & ~(uintptr_t)(HP_PAGE - 1);
    int ok;
    int step = hp_ldv.precise && tt.npend < PEND_MAX;
    int wide = 0;   /* past the budget: open the page's group (hp_ldv_open_group) */
    int credit = 0;   /* a burst's new uses earn faults (adaptive, within the budget) */
    int burst_fd = -1;   /* burst after this fault (hp_ldv_burst_sigsafe.c) */
    if (step && hp_ldv.repeat) {
        /* Adaptive: within the budget, the first use found this period of
         * an object that has survived two collections pays for
         * HP_LDV_CREDIT faults that find nothing, a young object's first
         * write for HP_LDV_CREDIT_YOUNG (hp_ldv_internal.h); past it,
         * `repeat` fruitless faults in the period leave the page open. */
        int rich = within_budget();
        credit = rich;
        if (fresh) {
            int write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
            hp_ldv_rearm_paid(addr, run);
            if (rich && (fresh == 2 || write))
                hp_ldv_fruitful(addr, run, fresh == 2 ? HP_LDV_CREDIT : HP_LDV_CREDIT_YOUNG);
        } else if (alien) {
            hp_ldv_rearm_wasted(addr, run);
            hp_ldv_alien(addr, run, rich);
            if (rich) allocator_moves_on(page);
            step = 0;
            wide = !rich;
        } else if (hp_ldv_fruitless(addr, run, rich)) {
            step = 0;
            wide = !rich;
        }
    }
    /* Nothing left to learn on the page this period: open it until the
     * next pass (exact: no first use can be missed there). */
    if (step && hp_ldv_page_settled(page)) {
        step = 0;
        atomic_fetch_add_explicit(&hp_ldv.settled_opens, 1, memory_order_relaxed);
    }
    int peek_fd = -1;
    if (step && tt.npend == 0 && hp_ldv_code_readable((uintptr_t)uc->uc_mcontext.gregs[REG_RIP]))
        peek_fd = hp_ldv_peek_fd();
    int peeked = 0;
    /* Precise: a burst after every fault; adaptive: within its budget,
     * after a fault that found a new use (a walk under way: where bursts
     * pay), after one on an object used already while such bursts pay
     * (Note [Bursts after a fault on a used object]), none after one that
     * could teach nothing (the page is opened), and none past the budget
     * (the cheap regime). */
    if (!hp_ldv.repeat || (fresh && credit)) burst_fd = peek_fd;
    else if (!alien && credit && peek_fd >= 0) {
        if (stale_bursts_pay()) burst_fd = peek_fd;
        else atomic_fetch_add_explicit(&hp_ldv.stale_bursts_skipped, 1, memory_order_relaxed);
    }
    /* A burst starts at the faulting instruction itself (one copy of the
     * page serves it and what follows); without one, or if the burst
     * could not do it, the instruction alone. */
    if (burst_fd >= 0) peeked = burst_on(uc, burst_fd, credit, fresh) ? 2 : 0;
    if (!peeked && peek_fd >= 0 && hp_ldv_peek_begin(addr)) {
        peeked = hp_ldv_emulate(uc->uc_mcontext.gregs, hp_ldv_xmm_of(uc), page, page + HP_PAGE,
                                peek_fd);
        hp_ldv_peek_end();
    }
    if (peeked) {
        /* Done through /proc/self/mem: the page never opened. */
        atomic_fetch_add_explicit(&hp_ldv.emulated, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&hp_ldv_peek_.peeks, 1, memory_order_relaxed);
        tt.last_addr = 0;
        ok = 1;
    } else if (step) {
        /* Opened for one instruction: another thread's first uses on the
         * page meanwhile are not seen. When another thread has taken faults
         * this period, the page's objects not yet seen used this period
         * become uncertain (until a use is seen). */
        if (!hp_ldv_peek_solo() && others_faulted()) {
            if (hp_ldv_page_first_shared_open(page, run))
                hp_ldv_span_unwatched(page, page + HP_PAGE);
            atomic_fetch_add_explicit(&hp_ldv.shared_opens, 1, memory_order_relaxed);
        }
        ok = hp_ldv_step_open(page) == 0;
        if (ok && tt.npend == 0 && hp_ldv_code_readable((uintptr_t)uc->uc_mcontext.gregs[REG_RIP]) &&
            hp_ldv_emulate(uc->uc_mcontext.gregs, hp_ldv_xmm_of(uc), page, page + HP_PAGE, -1)) {
            /* Done here: protect the page again at once, no trap (the
             * count is given back even while a collection runs). */
            hp_ldv_reprotect_page(page);
            atomic_fetch_add_explicit(&hp_ldv.emulated, 1, memory_order_relaxed);
            tt.last_addr = 0;
            (void)burst_on(uc, burst_fd, credit, fresh);
        } else if (ok) {
            tt.pend[tt.npend++] = page;
            uc->uc_mcontext.gregs[REG_EFL] |= TF;
            atomic_fetch_add_explicit(&hp_ldv.steps, 1, memory_order_relaxed);
        } else {
            hp_ldv_reprotect_page(page);   /* gives the count back */
            ok = hp_ldv_open_page(addr, run) >= 0;
        }
    } else if (wide) {
        ok = hp_ldv_open_group(addr, run) >= 0;
    } else {
        ok = hp_ldv_open_page(addr, run) >= 0;
    }
    atomic_fetch_sub(&hp_ldv.handlers, 1);
    if (!ok) goto chain;
    hp_rt_handler_leave();
    errno = saved;
    return;
chain:
    hp_rt_handler_leave();   /* (the program's handler may never return) */
    chain(sig, si, ucv, &prev_segv);
    errno = saved;
}

void hp_ldv_sud_chain(siginfo_t *si, void *ucv)
{
    chain(SIGSYS, si, ucv, &hp_ldv_trap_.prev_sys);
}

void hp_ldv_on_trap(int sig, siginfo_t *si, void *ucv)
{
    int saved = errno;
    ucontext_t *uc = ucv;
    if (hp_ldv_sud_on_trap(ucv)) {   /* after a system call re-run by its thread */
        errno = saved;
        return;
    }
    if (tt.npend == 0) {
        chain(sig, si, ucv, &prev_trap);
        errno = saved;
        return;
    }
    hp_rt_handler_enter();
    uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)TF;
    atomic_fetch_add(&hp_ldv.handlers, 1);
    for (int i = 0; i < tt.npend; i++) hp_ldv_reprotect_page(tt.pend[i]);
    atomic_fetch_sub(&hp_ldv.handlers, 1);
    hp_rt_handler_leave();
    tt.npend = 0;
    tt.last_addr = 0;
    errno = saved;
}

/* No more protection (at exit, or in the SIGINT/SIGTERM finisher). */
void hp_ldv_stop(void)
{
    if (!hp_ldv.active) return;
    atomic_store(&hp_ldv.stopped, 1);
    hp_ldv_sud_arm(0);
}
