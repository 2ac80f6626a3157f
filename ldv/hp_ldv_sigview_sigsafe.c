/* hp_ldv_sigview_sigsafe: in mode ldv, heapprof's own signals (SIGSEGV for
 * protected pages, SIGTRAP for single steps, SIGSYS for system calls) are
 * never really blocked, and the program is shown the mask it asked for.
 *
 * Why: the kernel delivers a fault (SIGSEGV, SIGTRAP, SIGSYS raised by an
 * instruction) to a thread that blocks it by killing the process. Programs
 * block every signal routinely: a worker thread with pthread_sigmask, a
 * daemon reading signals through signalfd, a runtime's signal handler
 * installed with a full sa_mask (ECL's thread-interrupt handler), a fork
 * for exec done with everything blocked (crystal). Under ldv any of them
 * touching a protected page died.
 *
 * How: the interposers of sigprocmask, pthread_sigmask and sigaction
 * (preload/hp_sigaction_wrappers.c) pass masks to the kernel without these
 * signals, and keep, per thread, which of them the program believes
 * blocked (its "view"); the old masks they return carry the view, so the
 * program reads back what it set. A signal of the three that the program
 * has blocked (in its view) is handled as the kernel would have: a fault
 * (sent by the kernel) takes the default action, a signal sent by kill or
 * sigqueue is held and raised when the program unblocks it. A new thread
 * starts with its creator's view (the pthread_create interposer), as the
 * kernel would give it its creator's mask; exec gets the program's mask
 * really applied just before (the exec interposers), and back if it fails.
 *
 * Invariant: outside the interposers' critical part, for each of the three
 * signals, (really blocked) == 0, and (blocked in the program's view) ==
 * view bit. Async-signal-safe: per-thread state, system calls only. */
#include "ldv/hp_ldv_internal.h"
#include "core/hp_sys.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#define NKEPT 3
static const int kept[NKEPT] = {SIGSEGV, SIGTRAP, SIGSYS};

static __thread unsigned view __attribute__((tls_model("initial-exec")));     /* bit k: kept[k] */
static __thread unsigned pending __attribute__((tls_model("initial-exec")));  /* held, sent ones */
/* Per signal: which kept signals the program put in its handler's sa_mask
 * (shown back in the old action; the kernel is given the mask without
 * them). */
static _Atomic unsigned char in_sa_mask[_NSIG];

/* From the moment libgc is first used (hp_ldv_attach): a process that
 * never uses it (a command the program runs, with heapprof inherited) keeps
 * its mask exactly as it is. */
static _Atomic int attached;
static int active(void)
{
    return hp_ldv.active && atomic_load(&attached) && !atomic_load(&hp_ldv.stopped);
}

static int bit_of(int sig)
{
    for (int k = 0; k < NKEPT; k++)
        if (kept[k] == sig) return 1 << k;
    return 0;
}

static unsigned bits_in(const sigset_t *s)
{
    unsigned b = 0;
    for (int k = 0; k < NKEPT; k++)
        if (sigismember(s, kept[k]) == 1) b |= 1u << k;
    return b;
}

static void strip(sigset_t *s)
{
    for (int k = 0; k < NKEPT; k++) sigdelset(s, kept[k]);
}

static void add_bits(sigset_t *s, unsigned b)
{
    for (int k = 0; k < NKEPT; k++)
        if (b & (1u << k)) sigaddset(s, kept[k]);
}

/* Raise the held signals the program no longer blocks. */
static void release(void)
{
    unsigned now = pending & ~view;
    if (!now) return;
    pending &= ~now;
    for (int k = 0; k < NKEPT; k++)
        if (now & (1u << k))
            hp_sys_raw6(SYS_tgkill, hp_sys_getpid(), hp_sys_gettid(), kept[k], 0, 0, 0);
}

int hp_ldv_sigmask(int how, const sigset_t *set, sigset_t *old,
                   int (*real)(int, const sigset_t *, sigset_t *), int posix)
{
    if (!active()) return real(how, set, old);
    unsigned was = view;
    sigset_t s;
    if (set) {
        s = *set;
        strip(&s);
        /* As the C library does: its own two signals (cancellation and
         * setxid, 32 and 33) are never blocked. */
        s.__val[0] &= ~((1ul << 31) | (1ul << 32));
    }
    /* The system call from heapprof's text, not the C library's: there a
     * dispatched call (a SIGSYS, about 2 us) each time. libunwind masks
     * signals around its cache twice a step: ECL's list workload made
     * 92,552 such calls under ldv, 0.23 s of a 0.08 s program. */
    long r = hp_sys_raw6(SYS_rt_sigprocmask, how, set ? (long)&s : 0, (long)old, _NSIG / 8, 0, 0);
    if (r < 0) {   /* EINVAL, EFAULT: nothing changed */
        if (posix) return (int)-r;
        errno = (int)-r;
        return -1;
    }
    if (old) {
        strip(old);     /* what the kernel has of them is heapprof's, not the program's */
        add_bits(old, was);
    }
    if (set) {
        unsigned b = bits_in(set);
        if (how == SIG_BLOCK) view |= b;
        else if (how == SIG_UNBLOCK) view &= ~b;
        else view = b;
        release();
    }
    return 0;
}

void hp_ldv_sigaction_in(int sig, struct sigaction *act)
{
    if (!active() || sig <= 0 || sig >= _NSIG) return;
    atomic_store(&in_sa_mask[sig], (unsigned char)bits_in(&act->sa_mask));
    strip(&act->sa_mask);
}

void hp_ldv_sigaction_out(int sig, struct sigaction *oact, unsigned char before)
{
    if (!atomic_load(&attached) || sig <= 0 || sig >= _NSIG) return;
    add_bits(&oact->sa_mask, before);
}

unsigned char hp_ldv_sigaction_kept(int sig)
{
    if (sig <= 0 || sig >= _NSIG) return 0;
    return atomic_load(&in_sa_mask[sig]);
}

/* At start: the process may have been started with some of them blocked
 * (exec keeps the mask): that is the program's view; unblock them. */
void hp_ldv_sigview_start(void)
{
    sigset_t now, s;
    atomic_store(&attached, 1);
    if (hp_sys_raw6(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)&now, _NSIG / 8, 0, 0) != 0) return;
    view = bits_in(&now);
    if (!view) return;
    sigemptyset(&s);
    add_bits(&s, view);
    hp_sys_raw6(SYS_rt_sigprocmask, SIG_UNBLOCK, (long)&s, 0, _NSIG / 8, 0, 0);
}

unsigned hp_ldv_sigview(void) { return view; }
void hp_ldv_sigview_inherit(unsigned v) { view = v; }

/* exec: the new program gets the mask the program asked for. */
void hp_ldv_sigview_exec(int failed)
{
    if (!active()) return;
    if (!failed) hp_ldv_sud_exec(0);   /* SIGSYS may be blocked next */
    else hp_ldv_sud_exec(1);
    if (!view) return;
    sigset_t s;
    sigemptyset(&s);
    add_bits(&s, view);
    hp_sys_raw6(SYS_rt_sigprocmask, failed ? SIG_UNBLOCK : SIG_BLOCK, (long)&s, 0, _NSIG / 8, 0, 0);
}

/* hp_ldv_internal.h: the program blocks sig in its view. A fault is then
 * fatal (the default action, as the kernel forces it); a sent signal is
 * held until the program unblocks it. Returns 1 when the signal was dealt
 * with that way (the caller returns), 0 when the program's action applies. */
int hp_ldv_sigview_blocked(int sig, const siginfo_t *si)
{
    int b = bit_of(sig);
    if (!b || !(view & (unsigned)b)) return 0;
    if (si->si_code <= 0) {          /* kill, tgkill, sigqueue: hold it */
        pending |= (unsigned)b;
        return 1;
    }
    struct sigaction d;
    memset(&d, 0, sizeof d);
    d.sa_handler = SIG_DFL;
    hp_sys_sigaction(sig, &d, NULL);   /* the fault repeats and kills */
    if (sig != SIGSEGV) hp_sys_raw6(SYS_tgkill, hp_sys_getpid(), hp_sys_gettid(), sig, 0, 0, 0);
    return 1;
}
