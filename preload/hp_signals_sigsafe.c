/* hp_signals_sigsafe: the SIGINT/SIGTERM handler (see hp_signals.h). It
 * runs on whatever thread the signal lands on, at any point of the
 * program: only async-signal-safe calls, and the census's finisher, which
 * is one (collector_hooks/hp_census_finish_sigsafe.c). */
#include "preload/hp_signals.h"
#include "collector_hooks/hp_census.h"
#include "core/hp_rt.h"
#include "core/hp_sys.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

void hp_on_terminate(int sig)
{
    int saved = errno;
    if (atomic_load(&hp_rt.attached)) hp_census_finish(1);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    hp_sys_sigaction(sig, &sa, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    hp_sys_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    errno = saved;
}
