/* ls_fork_blocked: blocks every signal around fork (as crystal does for
 * fork-for-exec); the child uses heap objects before it execs a command
 * that prints the signal mask it was given (the same as without
 * heapprof), and another child exits after using them. Issue "ldv never
 * breaks a program", point 1. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ls_common.h"

int main(void)
{
    GC_INIT();
    ls_node *list = ls_build(20000);
    sigset_t all, old;
    sigfillset(&all);
    for (int k = 0; k < 2; k++) {
        fflush(stdout);
        sigprocmask(SIG_BLOCK, &all, &old);
        pid_t pid = fork();
        if (pid == 0) {
            long s = ls_touch(list);
            if (k == 0) {
                printf("child: sum %ld\n", s);
                fflush(stdout);
                execl("/bin/grep", "grep", "^SigBlk", "/proc/self/status", (char *)NULL);
                _exit(127);
            }
            _exit(s == 199990000L ? 3 : 4);
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
        int st = 0;
        waitpid(pid, &st, 0);
        printf("child %d: %s %d\n", k, WIFEXITED(st) ? "exit" : "signal",
               WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    }
    printf("parent: sum %ld\n", ls_touch(list));
    return 0;
}
