/* hp_ldv_sud: turning syscall user dispatch on (see hp_ldv_sud_sigsafe.c
 * for what it does): once libgc is known (hp_ldv_attach), check that the
 * kernel offers it, install the SIGSYS handler, turn it on for the calling
 * thread and in forked children (new threads: preload's pthread_create
 * interposer; a thread's slot is given back by a key destructor). Where the
 * kernel has no dispatch (before 5.11, or a seccomp policy that forbids the
 * prctl), ldv keeps to its interposers and says so in the .prof. HEAPPROF
 * option ldv_syscalls=0 turns it off. Also: installing heapprof's handlers
 * with its own restorer; and measuring what a dispatched call costs. */
#include "ldv/hp_ldv_internal.h"
#include "core/hp_sys.h"
#include "core/hp_rt.h"

#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SA_RESTORER_FLAG 0x04000000

struct kernel_sigaction {
    void *handler;
    unsigned long flags;
    void (*restorer)(void);
    uint64_t mask;
};

int hp_ldv_install_handler(int sig, void (*fn)(int, siginfo_t *, void *), int flags,
                           const sigset_t *mask, struct sigaction *prev)
{
    if (prev && hp_sys_sigaction(sig, NULL, prev) != 0) return -1;
    struct kernel_sigaction k;
    memset(&k, 0, sizeof k);
    k.handler = (void *)fn;
    k.flags = (unsigned long)flags | SA_SIGINFO | SA_RESTORER_FLAG;
    k.restorer = hp_ldv_sud_restore_rt;
    memcpy(&k.mask, mask, sizeof k.mask);
    return (int)HP_SYS6(SYS_rt_sigaction, sig, &k, 0, 8, 0, 0);
}

static pthread_key_t slot_key;

static void thread_gone(void *p)
{
    (void)p;
    hp_ldv_sud_thread_off();
}

static void fork_child(void) { hp_ldv_sud_after_fork_child(); }

int hp_ldv_sud_start(void)
{
    if (!hp_ldv.sud_wanted || hp_ldv_sud_.usable) return hp_ldv_sud_.usable ? 0 : -1;
    hp_ldv_sud_.lo = hp_ldv.self_lo;
    hp_ldv_sud_.hi = hp_ldv.self_hi;
    if (!hp_ldv_sud_.lo || hp_ldv_sud_.hi <= hp_ldv_sud_.lo) return -1;
    sigset_t m;
    sigemptyset(&m);
    if (hp_ldv_install_handler(SIGSYS, hp_ldv_sud_on_sys, SA_NODEFER | SA_RESTART,
                               &m, &hp_ldv_trap_.prev_sys) != 0)
        return -1;
    hp_ldv_sud_.usable = 1;
    if (hp_ldv_sud_thread_on() != 0) {
        hp_ldv_sud_.usable = 0;
        hp_sys_sigaction(SIGSYS, &hp_ldv_trap_.prev_sys, NULL);
        return -1;
    }
    pthread_key_create(&slot_key, thread_gone);
    pthread_atfork(NULL, NULL, fork_child);
    return 0;
}

void hp_ldv_thread_creating(int phase) { hp_ldv_peek_creating(phase); }

/* A new thread (preload's pthread_create interposer): dispatch on, and off
 * when it ends. */
void hp_ldv_thread_start(void)
{
    if (!hp_ldv_sud_.usable) return;
    if (hp_ldv_sud_thread_on() == 0) pthread_setspecific(slot_key, (void *)1);
}

void hp_ldv_sud_measure(void)
{
    if (!hp_ldv_sud_.usable || hp_ldv_sud_.sys_ns) return;
    uint64_t best = UINT64_MAX;
    atomic_store(&hp_ldv_sud_.measuring, 1);
    for (int i = 0; i < 16; i++) {
        uint64_t before = atomic_load(&hp_ldv_sud_.dispatched);
        hp_ldv_sud_.last_inner_ns = 0;
        uint64_t t0 = hp_rt_handler_clock();
        (void)syscall(SYS_getppid);   /* the C library's instruction: dispatched */
        uint64_t t1 = hp_rt_handler_clock();
        if (atomic_load(&hp_ldv_sud_.dispatched) == before) continue;   /* not dispatched here */
        uint64_t inner = hp_ldv_sud_.last_inner_ns;
        if (t1 - t0 > inner && t1 - t0 - inner < best) best = t1 - t0 - inner;
    }
    atomic_store(&hp_ldv_sud_.measuring, 0);
    if (best == UINT64_MAX) return;
    hp_ldv_sud_.sys_ns = best ? best : 1;
    hp_rt_set_sys_cost(best);
}
