/* hp_sigaction_wrappers: heapprof's sigaction and signal (entry points,
 * level 1). In mode ldv heapprof's SIGSEGV handler (and SIGTRAP, with
 * single steps) must stay first: the program's action for those signals
 * is kept by ldv (hp_ldv_program_action) and chained to by heapprof's
 * handler; every other signal, and every signal in other modes, goes
 * straight to libc. Async-signal-safe (sigaction is). */
#include "core/hp_sys.h"
#include "ldv/hp_ldv.h"

#include <dlfcn.h>
#include <signal.h>
#include <string.h>

__attribute__((visibility("default"))) int sigaction(int sig, const struct sigaction *act,
                                                     struct sigaction *oact)
{
    struct sigaction *p = hp_ldv_program_action(sig);
    if (!p) return hp_sys_sigaction(sig, act, oact);
    struct sigaction old = *p;
    if (act) *p = *act;
    if (oact) *oact = old;
    return 0;
}

__attribute__((visibility("default"))) sighandler_t signal(int sig, sighandler_t fn)
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
