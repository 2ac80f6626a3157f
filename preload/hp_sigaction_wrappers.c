/* hp_sigaction_wrappers: heapprof's sigaction, signal, sigaltstack,
 * sigprocmask and pthread_sigmask (entry points, level 1). In mode ldv
 * heapprof's SIGSEGV handler (and SIGTRAP, with single steps) must stay
 * first: the program's action for those signals is kept by ldv
 * (hp_ldv_program_action) and chained to by heapprof's handler. SIGSEGV,
 * SIGTRAP and SIGSYS are never really blocked (a fault on a protected page
 * with them blocked kills the process): masks reach the kernel without
 * them and the program sees what it asked for
 * (ldv/hp_ldv_sigview_sigsafe.c). A thread's alternate signal stack in the
 * kernel is a stand-in of heapprof's, the program's kept as its view
 * (ldv/hp_ldv_altstack_sigsafe.c). In other modes every call goes straight
 * to libc (sigaltstack: the system call). Async-signal-safe (the calls
 * are). */
#include "core/hp_sys.h"
#include "ldv/hp_ldv.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
    struct sigaction *p = hp_ldv_program_action(sig);
    if (!p) {
        unsigned char before = hp_ldv_sigaction_kept(sig);
        struct sigaction mine;
        if (act) {
            mine = *act;
            hp_ldv_sigaction_in(sig, &mine);
        }
        int r = hp_sys_sigaction(sig, act ? &mine : NULL, oact);
        if (r == 0 && oact) hp_ldv_sigaction_out(sig, oact, before);
        return r;
    }
    struct sigaction old = *p;
    if (act) *p = *act;
    if (oact) *oact = old;
    return 0;
}

EXPORT sighandler_t signal(int sig, sighandler_t fn)
{
    struct sigaction *p = hp_ldv_program_action(sig);
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

EXPORT int sigaltstack(const stack_t *ss, stack_t *old)
{
    int register_thread;
    int r = hp_ldv_altstack(ss, old, &register_thread);
    if (register_thread) hp_ldv_altstack_register();
    return r;
}

typedef int (*mask_fn)(int, const sigset_t *, sigset_t *);

/* The C library's own function (found once; before that, and if it cannot
 * be found, the system call, which is what it makes). */
static int raw_mask(int how, const sigset_t *set, sigset_t *old)
{
    return (int)HP_SYS6(SYS_rt_sigprocmask, how, set, old, _NSIG / 8, 0, 0);
}

static mask_fn real_of(const char *name, _Atomic(mask_fn) *cache)
{
    mask_fn f = atomic_load(cache);
    if (!f) {
        f = (mask_fn)dlsym(RTLD_NEXT, name);
        if (!f) f = raw_mask;
        atomic_store(cache, f);
    }
    return f;
}

EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
    static _Atomic(mask_fn) real;
    return hp_ldv_sigmask(how, set, old, real_of("sigprocmask", &real), 0);
}

EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    static _Atomic(mask_fn) real;
    return hp_ldv_sigmask(how, set, old, real_of("pthread_sigmask", &real), 1);
}
