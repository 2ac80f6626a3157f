/* ls_masks: sigprocmask and pthread_sigmask as a program sees them, after
 * a collection has protected its objects' pages: the masks read back, the
 * C library's own signals (32, 33) never blocked, errors in each
 * function's convention (pthread_sigmask returns the number, sigprocmask
 * -1 and errno), and 20,000 calls in a loop (libunwind makes two a step:
 * under ldv they ran through the C library's instruction, each a
 * dispatched system call). Prints what it saw; the same with and without
 * heapprof. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "ls_common.h"

int main(void)
{
    GC_INIT();
    ls_node *list = ls_build(5000);
    sigset_t set, old, now;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGSEGV);
    sigaddset(&set, SIGSYS);
    printf("block: %d\n", pthread_sigmask(SIG_BLOCK, &set, &old));
    pthread_sigmask(SIG_SETMASK, NULL, &now);
    printf("now: USR1 %d SEGV %d SYS %d TRAP %d\n", sigismember(&now, SIGUSR1),
           sigismember(&now, SIGSEGV), sigismember(&now, SIGSYS), sigismember(&now, SIGTRAP));
    /* The C library's cancellation and setxid signals cannot be blocked. */
    sigset_t all;
    sigfillset(&all);
    memset(&all, 0xff, sizeof all);
    printf("block everything: %d\n", sigprocmask(SIG_SETMASK, &all, NULL));
    sigprocmask(SIG_SETMASK, NULL, &now);
    printf("now: 32 %d 33 %d INT %d\n", (int)((now.__val[0] >> 31) & 1),
           (int)((now.__val[0] >> 32) & 1), sigismember(&now, SIGINT));
    printf("sum %ld\n", ls_touch(list));
    /* Errors. */
    errno = 0;
    int r = pthread_sigmask(12345, &set, NULL);
    printf("pthread_sigmask bad how: %d (EINVAL %d) errno %d\n", r, r == EINVAL, errno);
    errno = 0;
    r = sigprocmask(12345, &set, NULL);
    printf("sigprocmask bad how: %d errno EINVAL %d\n", r, errno == EINVAL);
    /* Many calls. */
    long flips = 0;
    for (int i = 0; i < 20000; i++) {
        flips += pthread_sigmask(SIG_BLOCK, &set, &old) == 0;
        flips += sigprocmask(SIG_SETMASK, &old, NULL) == 0;
    }
    printf("flips %ld\n", flips);
    sigemptyset(&set);
    printf("unblock: %d\n", sigprocmask(SIG_SETMASK, &set, NULL));
    printf("sum %ld\n", ls_touch(list));
    return 0;
}
