/* sf_forkworker: forked workers that allocate: one ends with _exit (no
 * atexit handler runs, as a worker process often does), one returns. A
 * worker's profile is complete or absent, never a .hp without its end.
 * Issue: safe on any program, point 11. */
#include <gc/gc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void work(void)
{
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 3000; i++) (void)GC_MALLOC(32);
        GC_gcollect();
    }
}

int main(void)
{
    GC_INIT();
    for (int k = 0; k < 2; k++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            work();
            if (k == 0) _exit(0);
            exit(0);
        }
        int st;
        waitpid(pid, &st, 0);
        printf("worker %d: %d\n", k, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    work();
    return 0;
}
