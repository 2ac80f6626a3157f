/* ls_handler_mask: a signal handler installed with every signal in its
 * sa_mask (as ECL's thread-interrupt handler is) that uses heap objects;
 * the program reads its action back. Issue "ldv never breaks a program",
 * point 1 (the cause of ECL's crashes). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "ls_common.h"

static ls_node *list;
static volatile long seen;

static void on_usr1(int sig)
{
    (void)sig;
    seen = ls_touch(list);
}

int main(void)
{
    GC_INIT();
    list = ls_build(20000);
    struct sigaction sa, back;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigfillset(&sa.sa_mask);
    sigdelset(&sa.sa_mask, SIGINT);
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR1, NULL, &back);
    printf("handler mask: SIGSEGV %d SIGTRAP %d SIGSYS %d SIGINT %d\n",
           sigismember(&back.sa_mask, SIGSEGV), sigismember(&back.sa_mask, SIGTRAP),
           sigismember(&back.sa_mask, SIGSYS), sigismember(&back.sa_mask, SIGINT));
    for (int i = 0; i < 3; i++) {
        raise(SIGUSR1);
        printf("handler read sum %ld\n", seen);
        GC_gcollect();
    }
    return 0;
}
