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

int hp_ldv_trap_init(char *err, unsigned long errlen)
{
    (void)err;
    (void)errlen;
    /* The collector's suspend and restart signals wait while a handler runs
     * (a thread is never stopped halfway through one). */
    sigemptyset(&handler_mask);
    sigaddset(&handler_mask, SIGPWR);
    sigaddset(&handler_mask, SIGXCPU);
    /* SIGTRAP: single steps (precise, adaptive) and stepped system calls. */
    hp_ldv_trap_.trap_installed = hp_ldv.precise || hp_ldv.sud_wanted;
    if (install(SIGSEGV, hp_ldv_on_segv, &prev_segv) != 0 ||
        (hp_ldv_trap_.trap_installed && install(SIGTRAP, hp_ldv_on_trap, &prev_trap) != 0)) {
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
    hp_ldv_sigview_start();
    hp_symbols_module_span((uintptr_t)hp_real.GC_malloc, &hp_ldv.gc_lo, &hp_ldv.gc_hi);
    hp_symbols_module_span((uintptr_t)hp_ldv_attach, &hp_ldv.self_lo, &hp_ldv.self_hi);
    hp_ldv_gc_is_init_called = (int (*)(void))dlsym(RTLD_NEXT, "GC_is_init_called");
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
