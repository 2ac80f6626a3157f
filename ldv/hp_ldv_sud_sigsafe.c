/* hp_ldv_sud_sigsafe: every system call a thread makes while heap pages are
 * protected is seen before the kernel runs it, through Linux's syscall user
 * dispatch (prctl PR_SET_SYSCALL_USER_DISPATCH, 5.11+). A buffer on a
 * protected page would make the kernel fail with EFAULT instead of
 * faulting (fstat into a heap struct stat, futex on a heap mutex, a heap
 * command string given to system(), stdout's setvbuf buffer...); wrapping
 * calls one by one always misses some (glibc makes system calls inside
 * itself, programs call syscall()).
 *
 * How: each thread of the program turns dispatch on with libheapprof's own
 * text as the one region whose system calls always run, and a selector
 * byte of its own (a slot of `selector`, BLOCK while pages are protected,
 * ALLOW otherwise: hp_ldv_sud_arm). A system call from anywhere else then
 * raises SIGSYS instead of running; the handler (hp_ldv_sud_on_sys):
 *  - opens every protected object an argument points into (and, for the
 *    calls that take arrays of pointers -- readv/writev and friends,
 *    sendmsg/recvmsg, sendmmsg/recvmmsg, execve's vectors, futex_waitv --
 *    the objects those point into), counting it a use and marking the span
 *    in flight (the next protect pass leaves it open while the call blocks);
 *  - runs the call itself, from heapprof's text, and puts the result in the
 *    thread's saved RAX -- except the calls that cannot run inside a signal
 *    handler: rt_sigreturn (sent to heapprof's own restorer with the same
 *    stack), rt_sigprocmask and sigaltstack (they change what sigreturn
 *    restores: done on the saved context), and clone with a new stack or
 *    shared memory, clone3, vfork, execve and execveat (the thread is set
 *    to ALLOW and the call re-run by the thread itself with the trap flag
 *    set: the SIGTRAP right after it sets BLOCK again; a new thread, which
 *    inherits the trap flag, is recognised by the address).
 * heapprof's signal handlers return through hp_ldv_sud_restore_rt, in its
 * own text, so their rt_sigreturn always runs.
 *
 * Cost: one signal per system call while pages are protected; none while
 * nothing is (collections, mode ldv not in use). Async-signal-safe. */
#include "ldv/hp_ldv_internal.h"
#include "core/hp_rt.h"
#include "core/hp_sys.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <ucontext.h>

#define SEL_ALLOW 0
#define SEL_BLOCK 1
#define TF 0x100
#define SYS_USER_DISPATCH_CODE 2

hp_ldv_sud_state hp_ldv_sud_;
#define S hp_ldv_sud_

/* The restorer of heapprof's handlers: the exact bytes libgcc's unwinder
 * recognises as a signal frame (mov $15,%rax; syscall). */
__asm__(".text\n"
        ".globl hp_ldv_sud_restore_rt\n"
        ".hidden hp_ldv_sud_restore_rt\n"
        ".type hp_ldv_sud_restore_rt,@function\n"
        "hp_ldv_sud_restore_rt:\n"
        "  movq $15, %rax\n"
        "  syscall\n"
        "  hlt\n"
        ".size hp_ldv_sud_restore_rt, .-hp_ldv_sud_restore_rt\n");

/* Per thread: its selector slot (+1; 0: dispatch off), and the stepped
 * system call in progress. */
static __thread int my_slot __attribute__((tls_model("initial-exec")));
static __thread uintptr_t step_ip __attribute__((tls_model("initial-exec")));

int hp_ldv_sud_thread_on(void)
{
    if (!S.usable) return -1;
    if (my_slot) return 0;
    int slot = HP_LDV_SUD_SLOTS - 1;   /* shared by the overflow */
    for (int i = 0; i < HP_LDV_SUD_SLOTS - 1; i++) {
        int z = 0;
        if (atomic_load_explicit(&S.used[i], memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong(&S.used[i], &z, 1)) {
            slot = i;
            break;
        }
    }
    atomic_store(&S.selector[slot], atomic_load(&S.armed) ? SEL_BLOCK : SEL_ALLOW);
    long r = hp_sys_raw6(SYS_prctl, 59 /* PR_SET_SYSCALL_USER_DISPATCH */, 1 /* ON */,
                         (long)S.lo, (long)(S.hi - S.lo), (long)&S.selector[slot], 0);
    if (r != 0) {
        if (slot < HP_LDV_SUD_SLOTS - 1) atomic_store(&S.used[slot], 0);
        hp_ldv_peek_distrust(1);   /* (a thread whose calls are never seen) */
        return -1;
    }
    my_slot = slot + 1;
    return 0;
}

void hp_ldv_sud_thread_off(void)
{
    if (!my_slot) return;
    hp_sys_raw6(SYS_prctl, 59, 0, 0, 0, 0, 0);
    int slot = my_slot - 1;
    my_slot = 0;
    if (slot < HP_LDV_SUD_SLOTS - 1) atomic_store(&S.used[slot], 0);
}

/* In a forked child: dispatch is not inherited; the child has one thread. */
void hp_ldv_sud_after_fork_child(void)
{
    if (!my_slot) return;
    for (int i = 0; i < HP_LDV_SUD_SLOTS; i++) atomic_store(&S.used[i], 0);
    my_slot = 0;
    hp_ldv_sud_thread_on();
}

/* Around an exec by the C library's exec* (preload's interposers, which
 * have opened its arguments and applied the program's signal mask, with
 * SIGSYS perhaps among it): the thread's calls run undispatched until the
 * exec fails (end) or the new program starts (dispatch ends with exec). */
void hp_ldv_sud_exec(int end)
{
    if (!my_slot) return;
    hp_ldv_peek_distrust(0);   /* (its calls now run unseen) */
    atomic_store(&S.selector[my_slot - 1],
                 end && atomic_load(&S.armed) ? SEL_BLOCK : SEL_ALLOW);
}

int hp_ldv_sud_armed(void) { return S.usable && atomic_load(&S.armed); }

void hp_ldv_sud_arm(int on)
{
    if (!S.usable) return;
    if (!on) hp_ldv_peek_dispatch(0);
    atomic_store(&S.armed, on);
    for (int i = 0; i < HP_LDV_SUD_SLOTS; i++)
        if (i == HP_LDV_SUD_SLOTS - 1 || atomic_load(&S.used[i]))
            atomic_store(&S.selector[i], on ? SEL_BLOCK : SEL_ALLOW);
    if (on) hp_ldv_peek_dispatch(1);   /* (once every selector blocks) */
}

/* ---- the arguments ---- */

/* addr lies on a protected page: open the object it is in (or the page). */
static void note(hp_ldv_span *s, uintptr_t a)
{
    if (a < hp_ldv.lo || a >= hp_ldv.hi) return;
    const hp_ldv_ent *e = hp_ldv_find(a);
    if (e) hp_ldv_sys_buf(s, hp_ldv_ent_base(e), hp_ldv_ent_size(e), 0);
    else if (hp_ldv_find_run(a)) hp_ldv_sys_buf(s, a & ~(uintptr_t)(HP_PAGE - 1), HP_PAGE, 0);
}

static int in_span(uintptr_t a) { return a >= hp_ldv.lo && a < hp_ldv.hi; }

/* Read a word the program gave: directly where it lies in the heap (its
 * page opened by note() just before), else with process_vm_readv, which
 * fails instead of faulting: an array off the heap is read for every call
 * that takes one, and a program may pass a bad pointer expecting EFAULT.
 * 0 when unreadable. */
static uintptr_t word(uintptr_t a)
{
    if (in_span(a) && in_span(a + sizeof(uintptr_t) - 1)) return *(const volatile uintptr_t *)a;
    uintptr_t v = 0;
    return hp_sys_read_own_memory(&v, (const void *)a, sizeof v) == (ssize_t)sizeof v ? v : 0;
}

static void note_iov(hp_ldv_span *s, uintptr_t v, long n)
{
    if (!v || n <= 0 || n > 1024) return;
    note(s, v);
    for (long i = 0; i < n; i++) note(s, word(v + (uintptr_t)i * sizeof(struct iovec)));
}

static void note_msg(hp_ldv_span *s, uintptr_t m)
{
    if (!m) return;
    note(s, m);
    note(s, word(m + offsetof(struct msghdr, msg_name)));
    note(s, word(m + offsetof(struct msghdr, msg_control)));
    note_iov(s, word(m + offsetof(struct msghdr, msg_iov)),
             (long)word(m + offsetof(struct msghdr, msg_iovlen)));
}

static void note_vector(hp_ldv_span *s, uintptr_t v)
{
    if (!v) return;
    note(s, v);
    for (int i = 0; i < 65536; i++) {
        uintptr_t p = word(v + (uintptr_t)i * sizeof(void *));
        if (!p) break;
        note(s, p);
        if (i % 64 == 63) note(s, v + (uintptr_t)(i + 1) * sizeof(void *));
    }
}

static void note_args(hp_ldv_span *s, long nr, const greg_t *g)
{
    uintptr_t a[6] = {(uintptr_t)g[REG_RDI], (uintptr_t)g[REG_RSI], (uintptr_t)g[REG_RDX],
                      (uintptr_t)g[REG_R10], (uintptr_t)g[REG_R8], (uintptr_t)g[REG_R9]};
    for (int i = 0; i < 6; i++) note(s, a[i]);
    switch (nr) {
    case SYS_readv: case SYS_writev: case SYS_preadv: case SYS_pwritev:
    case SYS_preadv2: case SYS_pwritev2: case SYS_vmsplice:
        note_iov(s, a[1], (long)a[2]);
        break;
    case SYS_process_vm_readv: case SYS_process_vm_writev:
        note_iov(s, a[1], (long)a[2]);
        break;
    case SYS_sendmsg: case SYS_recvmsg:
        note_msg(s, a[1]);
        break;
    case SYS_sendmmsg: case SYS_recvmmsg:
        if (a[1] && a[2] <= 1024)
            for (uintptr_t i = 0; i < a[2]; i++) note_msg(s, a[1] + i * sizeof(struct mmsghdr));
        break;
    case SYS_execve:
        note_vector(s, a[1]);
        note_vector(s, a[2]);
        break;
    case SYS_execveat:
        note_vector(s, a[2]);
        note_vector(s, a[3]);
        break;
#ifdef SYS_futex_waitv
    case SYS_futex_waitv:   /* struct futex_waitv { u64 val, uaddr; u32 flags, pad; } */
        if (a[0] && a[1] <= 128)
            for (uintptr_t i = 0; i < a[1]; i++) note(s, word(a[0] + i * 24 + 8));
        break;
#endif
    default:
        break;
    }
}

/* Could the call reach a protected page? An argument in the protected
 * span, or a call that takes an array of pointers (which may lie outside
 * the span, on the stack, and point into it: preadv with a stack iovec). */
static int may_reach_span(long nr, const greg_t *g)
{
    if (in_span((uintptr_t)g[REG_RDI]) || in_span((uintptr_t)g[REG_RSI]) ||
        in_span((uintptr_t)g[REG_RDX]) || in_span((uintptr_t)g[REG_R10]) ||
        in_span((uintptr_t)g[REG_R8]) || in_span((uintptr_t)g[REG_R9]))
        return 1;
    switch (nr) {
    case SYS_readv: case SYS_writev: case SYS_preadv: case SYS_pwritev:
    case SYS_preadv2: case SYS_pwritev2: case SYS_vmsplice:
    case SYS_process_vm_readv: case SYS_process_vm_writev:
    case SYS_sendmsg: case SYS_recvmsg: case SYS_sendmmsg: case SYS_recvmmsg:
    case SYS_execve: case SYS_execveat:
#ifdef SYS_futex_waitv
    case SYS_futex_waitv:
#endif
        return 1;
    default:
        return 0;
    }
}

/* The call failed with EFAULT having noted nothing (`s` is empty): it came
 * while a collection had every page open (a collection's calls note
 * nothing, the index being rebuilt), and the protect pass closed the page
 * of one of its buffers before the kernel read it (a thread's futex on a
 * heap mutex, woken as the world restarts: glibc aborts on EFAULT). Wait
 * for the pass to end, note the arguments now and keep their pages open
 * while the call is made again: 1 to retry. Bounded: the thread may be the
 * collecting one itself, whose pass cannot end while it waits. */
static int note_late(hp_ldv_span *s, long nr, const greg_t *g)
{
    if (!hp_ldv_sys_wait_collection() || !may_reach_span(nr, g)) return 0;
    note_args(s, nr, g);
    if (!s->any) return 0;
    hp_ldv_sys_begin(s);
    atomic_fetch_add(&hp_ldv.efault_retries, 1);
    return 1;
}

/* ---- the calls that cannot run inside the handler ---- */

/* Re-run the call from the thread itself, allowed, with the trap flag. A
 * new thread (clone with CLONE_VM) inherits the flag: its first trap is
 * recognised by the address in a slot of S.step_slot, which counts the
 * new threads still to trap there. Address and count are one word: when
 * they were two, a new thread's trap could take a count to 0 and then
 * clear the address after another clone from the same call had added its
 * count, whose thread's trap then found no slot and killed the program
 * (SIGTRAP: bdwgc's gctest under ldv, once in a suite run). */
#define STEP_COUNT 0xffffu   /* a step slot's low bits: the threads to come */

static void step(ucontext_t *uc, int child_too)
{
    greg_t *g = uc->uc_mcontext.gregs;
    uintptr_t ip = (uintptr_t)g[REG_RIP];
    if (child_too)
        for (int i = 0; i < HP_LDV_SUD_STEPS; i++) {
            uint64_t v = atomic_load(&S.step_slot[i]);
            for (;;) {
                uint64_t want;
                if ((v & STEP_COUNT) == 0) want = (uint64_t)ip << 16 | 1;
                else if (v >> 16 == ip && (v & STEP_COUNT) != STEP_COUNT) want = v + 1;
                else break;   /* another call's slot: the next */
                if (atomic_compare_exchange_weak(&S.step_slot[i], &v, want)) goto counted;
            }
        }
counted:
    step_ip = ip;
    hp_ldv_peek_distrust(0);   /* (its calls now run unseen) */
    atomic_store(&S.selector[my_slot - 1], SEL_ALLOW);
    g[REG_RIP] = (greg_t)(ip - 2);
    g[REG_EFL] |= TF;
    atomic_fetch_add_explicit(&S.stepped, 1, memory_order_relaxed);
}

int hp_ldv_sud_on_trap(void *ucv)
{
    ucontext_t *uc = ucv;
    greg_t *g = uc->uc_mcontext.gregs;
    uintptr_t ip = (uintptr_t)g[REG_RIP];
    if (step_ip && ip - step_ip <= 16) {   /* the thread that stepped (the trap comes
                                            * after the call, or the next instruction) */
        step_ip = 0;
        g[REG_EFL] &= ~(greg_t)TF;
        if (my_slot)
            atomic_store(&S.selector[my_slot - 1], atomic_load(&S.armed) ? SEL_BLOCK : SEL_ALLOW);
        return 1;
    }
    /* A thread it made: it does not trap at the return of the call but
     * after its first instruction (ret_from_fork reports no system-call
     * step), a few bytes on. */
    for (int i = 0; i < HP_LDV_SUD_STEPS; i++) {
        uint64_t v = atomic_load(&S.step_slot[i]);
        while ((v & STEP_COUNT) != 0 && ip - (uintptr_t)(v >> 16) <= 16) {
            uint64_t want = (v & STEP_COUNT) == 1 ? 0 : v - 1;
            if (atomic_compare_exchange_weak(&S.step_slot[i], &v, want)) {
                g[REG_EFL] &= ~(greg_t)TF;
                return 1;
            }
        }
    }
    return 0;
}

/* rt_sigprocmask on the saved context (sigreturn restores that mask). */
static long sigprocmask_on(ucontext_t *uc, long how, const sigset_t *set, sigset_t *old,
                           long size)
{
    if (size != _NSIG / 8) return -EINVAL;
    sigset_t cur = uc->uc_sigmask;
    if (set) {
        sigset_t n;
        memcpy(&n, set, sizeof n);
        if (how == SIG_BLOCK) {
            for (int sig = 1; sig < _NSIG; sig++)
                if (sigismember(&n, sig) == 1) sigaddset(&uc->uc_sigmask, sig);
        } else if (how == SIG_UNBLOCK) {
            for (int sig = 1; sig < _NSIG; sig++)
                if (sigismember(&n, sig) == 1) sigdelset(&uc->uc_sigmask, sig);
        } else if (how == SIG_SETMASK) {
            uc->uc_sigmask = n;
        } else {
            return -EINVAL;
        }
        sigdelset(&uc->uc_sigmask, SIGKILL);
        sigdelset(&uc->uc_sigmask, SIGSTOP);
        /* heapprof's own signals are never really blocked (a fault or a
         * dispatched call with them blocked kills): glibc blocks "all"
         * around clone and fork. */
        sigdelset(&uc->uc_sigmask, SIGSEGV);
        sigdelset(&uc->uc_sigmask, SIGTRAP);
        sigdelset(&uc->uc_sigmask, SIGSYS);
    }
    if (old) memcpy(old, &cur, (size_t)size);
    return 0;
}

/* A copy of the mask at `p` (of `size` bytes) without heapprof's signals;
 * p itself when there is none or it is not a kernel sigset. */
static long strip_mask(long p, long size, sigset_t *copy)
{
    if (!p || size != _NSIG / 8) return p;
    memcpy(copy, (const void *)p, _NSIG / 8);
    sigdelset(copy, SIGSEGV);
    sigdelset(copy, SIGTRAP);
    sigdelset(copy, SIGSYS);
    return (long)copy;
}

static void on_sys(siginfo_t *si, void *ucv);

/* The handler's time is profiler time (hp_rt_sys_enter), the dispatched
 * call's is not: GNU poke makes ten million system calls a run, and with
 * their dispatch on the program's clock its run time read 25 s (3 s
 * unprofiled), its interval stretched into 4x the censuses and 33 forced
 * collections, and its ldv budget grew with the dispatch it paid. */
void hp_ldv_sud_on_sys(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    int saved = errno;
    if (si->si_code != SYS_USER_DISPATCH_CODE) {   /* seccomp's, or sent: the program's */
        hp_ldv_sud_chain(si, ucv);
        errno = saved;
        return;
    }
    hp_rt_sys_enter(1);
    int timed = atomic_load_explicit(&S.measuring, memory_order_relaxed);
    uint64_t t0 = timed ? hp_rt_handler_clock() : 0;
    on_sys(si, ucv);
    if (timed) S.last_inner_ns = hp_rt_handler_clock() - t0;
    hp_rt_sys_leave();
    errno = saved;
}

static void on_sys(siginfo_t *si, void *ucv)
{
    int saved = errno;
    ucontext_t *uc = ucv;
    greg_t *g = uc->uc_mcontext.gregs;
    long nr = (long)g[REG_RAX];
    atomic_fetch_add_explicit(&S.dispatched, 1, memory_order_relaxed);
    /* Calls that may free a descriptor's number (hp_ldv_peek_sigsafe.c,
     * Note [Trusting the descriptor]), before they run. */
    if (si->si_arch != 0xc000003e /* AUDIT_ARCH_X86_64: an int $0x80 call, whose numbers
                                      are i386's */)
        hp_ldv_peek_distrust(1);
    else if (nr == SYS_close || nr == SYS_close_range || nr == SYS_dup2 || nr == SYS_dup3)
        hp_ldv_peek_distrust(0);
    else if (nr == SYS_io_uring_setup || nr == SYS_io_uring_enter || nr == SYS_io_uring_register)
        hp_ldv_peek_distrust(1);
    else if (nr == SYS_clone || nr == SYS_clone3) {
        /* A child process (no CLONE_VM) that shares the descriptor table
         * (CLONE_FILES): its calls are dispatched in its own memory, never
         * seen here. (clone3's flags: the first word of its clone_args.) */
        uint64_t flags = (uint64_t)g[REG_RDI];
        if (nr == SYS_clone3 &&
            hp_sys_read_own_memory(&flags, (const void *)g[REG_RDI], sizeof flags) != sizeof flags)
            flags = 0x400;
        if ((flags & 0x400 /* CLONE_FILES */) && !(flags & 0x100 /* CLONE_VM */))
            hp_ldv_peek_distrust(1);
    }
    hp_ldv_span s = HP_LDV_SPAN_INIT;
    if (!atomic_load(&hp_ldv.collecting) && may_reach_span(nr, g)) note_args(&s, nr, g);
    long a0 = (long)g[REG_RDI], a1 = (long)g[REG_RSI], a2 = (long)g[REG_RDX];
    long a3 = (long)g[REG_R10], a4 = (long)g[REG_R8], a5 = (long)g[REG_R9];
    sigset_t wait_mask;
    unsigned long ps6[2];
    switch (nr) {
    case SYS_rt_sigreturn:
        g[REG_RIP] = (greg_t)(uintptr_t)hp_ldv_sud_restore_rt;
        errno = saved;
        return;
    case SYS_rt_sigprocmask:
        g[REG_RAX] = sigprocmask_on(uc, a0, (const sigset_t *)a1, (sigset_t *)a2, a3);
        errno = saved;
        return;
    case SYS_rt_sigaction:
        if (a1) {   /* a raw call (or the C library's own): the same masks rule */
            struct { void *h; unsigned long flags; void *restorer; sigset_t mask; } k;
            memcpy(&k, (const void *)a1, 24 + 8);
            sigdelset(&k.mask, SIGSEGV);
            sigdelset(&k.mask, SIGTRAP);
            sigdelset(&k.mask, SIGSYS);
            a1 = (long)&k;
            g[REG_RAX] = hp_sys_raw6(nr, a0, a1, a2, a3, 0, 0);
            errno = saved;
            return;
        }
        break;
    /* Calls that wait with a mask of the caller's: heapprof's signals are
     * taken out of it (a signal taken during the wait would otherwise run
     * with SIGSYS blocked, and its handler's return -- a dispatched
     * rt_sigreturn -- kill the process). */
    case SYS_rt_sigsuspend:
        a0 = strip_mask(a0, a1, &wait_mask);
        break;
    case SYS_ppoll:
        a3 = strip_mask(a3, a4, &wait_mask);
        break;
    case SYS_epoll_pwait:
    case SYS_epoll_pwait2:
        a4 = strip_mask(a4, a5, &wait_mask);
        break;
    case SYS_pselect6:
        if (a5) {
            memcpy(ps6, (const void *)a5, sizeof ps6);
            ps6[0] = (unsigned long)strip_mask((long)ps6[0], (long)ps6[1], &wait_mask);
            a5 = (long)ps6;
        }
        break;
    case SYS_sigaltstack: {
        long r = hp_sys_raw6(SYS_sigaltstack, a0, a1, 0, 0, 0, 0);
        if (r == 0 && a0) hp_sys_raw6(SYS_sigaltstack, 0, (long)&uc->uc_stack, 0, 0, 0, 0);
        g[REG_RAX] = r;
        errno = saved;
        return;
    }
    case SYS_clone:
        if (!(a0 & 0x100 /* CLONE_VM */) && a1 == 0) break;   /* a fork: run it here */
        hp_ldv_peek_creating(2);   /* a thread, maybe: no more peeks until a count */
        step(uc, 1);
        errno = saved;
        return;
    case SYS_clone3:
        hp_ldv_peek_creating(2);
        /* fall through */
    case SYS_vfork:
        step(uc, 1);
        errno = saved;
        return;
    case SYS_execve: case SYS_execveat:
        step(uc, 0);
        errno = saved;
        return;
    default:
        if (hp_ldv_vm_handles(nr)) {   /* the program's own protection and map */
            g[REG_RAX] = hp_ldv_vm_call(nr, a0, a1, a2, a3, a4, a5);
            errno = saved;
            return;
        }
        break;
    }
    hp_ldv_sys_begin(&s);
    hp_rt_sys_leave();   /* the call's own time is the program's */
    long r = hp_sys_raw6(nr, a0, a1, a2, a3, a4, a5);
    hp_rt_sys_enter(0);
    /* A protect pass raced it: again, a few times at most. */
    for (int tries = 0; r == -EFAULT;) {
        errno = EFAULT;
        if (s.any ? !hp_ldv_sys_retry(&s, &tries) : (tries++ || !note_late(&s, nr, g))) break;
        hp_rt_sys_leave();
        r = hp_sys_raw6(nr, a0, a1, a2, a3, a4, a5);
        hp_rt_sys_enter(0);
    }
    hp_ldv_sys_end(&s);
    if ((nr == SYS_clone || nr == SYS_fork) && r == 0) hp_ldv_sud_after_fork_child();
    g[REG_RAX] = r;
    errno = saved;
}
