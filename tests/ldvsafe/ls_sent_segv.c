/* ls_sent_segv: a SIGSEGV sent with kill while the program blocks it is
 * held until it unblocks it, then reaches the program's handler (not
 * before, and not lost). Issue "ldv never breaks a program", points 1-2
 * (heapprof never really blocks SIGSEGV, so it must hold it itself). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "ls_common.h"

static volatile int got;
static void on_segv(int sig) { (void)sig; got++; }

int main(void)
{
    GC_INIT();
    ls_node *list = ls_build(5000);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_segv;
    sigaction(SIGSEGV, &sa, NULL);
    sigset_t segv, pend;
    sigemptyset(&segv);
    sigaddset(&segv, SIGSEGV);
    sigprocmask(SIG_BLOCK, &segv, NULL);
    kill(getpid(), SIGSEGV);
    printf("while blocked: handler ran %d times, sum %ld\n", got, ls_touch(list));
    sigprocmask(SIG_UNBLOCK, &segv, NULL);
    printf("after unblocking: handler ran %d times\n", got);
    sigpending(&pend);
    printf("pending SIGSEGV: %d\n", sigismember(&pend, SIGSEGV));
    return 0;
}
