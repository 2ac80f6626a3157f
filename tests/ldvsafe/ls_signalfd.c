/* ls_signalfd: a single-threaded daemon that blocks every signal with
 * sigprocmask and takes them through a signalfd, using heap objects between
 * (under ldv the first touch of a protected page with SIGSEGV blocked
 * killed it). Issue "ldv never breaks a program", point 2. */
#include <signal.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include "ls_common.h"

int main(void)
{
    GC_INIT();
    ls_node *list = ls_build(20000);
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
    sigset_t usr;
    sigemptyset(&usr);
    sigaddset(&usr, SIGUSR1);
    sigaddset(&usr, SIGUSR2);
    int fd = signalfd(-1, &usr, 0);
    for (int round = 0; round < 3; round++) {
        kill(getpid(), round % 2 ? SIGUSR2 : SIGUSR1);
        printf("round %d: sum %ld\n", round, ls_touch(list));
        struct signalfd_siginfo si;
        if (read(fd, &si, sizeof si) == (ssize_t)sizeof si)
            printf("round %d: signal %s\n", round, si.ssi_signo == SIGUSR1 ? "USR1" : "USR2");
        GC_gcollect();
    }
    sigset_t now;
    sigprocmask(SIG_SETMASK, NULL, &now);
    printf("SIGSEGV %s\n", sigismember(&now, SIGSEGV) ? "blocked" : "open");
    return 0;
}
