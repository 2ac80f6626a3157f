/* ls_fork_writes: a child writes every heap object its parent made, by
 * fork() and by the raw fork system call (no atfork handlers run), and
 * exits; the parent's objects must be as they were. Under ldv the fault
 * handler emulates plain loads and stores through /proc/self/mem: a
 * child that used its parent's descriptor would write into the parent
 * (ldv/hp_ldv_peek_sigsafe.c). */
#include "ls_common.h"

#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void child_writes(ls_node *list)
{
    ls_touch(list);   /* (+1 each) */
    for (ls_node *x = list; x; x = x->next) x->value = -1000000;
    long s = 0;
    for (ls_node *x = list; x; x = x->next) s += x->value;
    _exit(s == -1000000L * 20000 ? 7 : 8);
}

int main(void)
{
    GC_INIT();
    ls_node *list = ls_build(20000);
    for (int k = 0; k < 2; k++) {
        GC_gcollect();   /* every page protected again (the parent read them all) */
        fflush(stdout);
        pid_t pid = k == 0 ? fork() : (pid_t)syscall(SYS_fork);
        if (pid == 0) child_writes(list);
        int st = 0;
        waitpid(pid, &st, 0);
        long s = 0;
        for (ls_node *x = list; x; x = x->next) s += x->value;
        printf("%s child: exit %d; parent's sum %ld\n", k == 0 ? "fork" : "raw fork",
               WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st), s);
    }
    return 0;
}
