/* sf_selfexec: a program that forks and execs itself (as servers and
 * build drivers do); both processes allocate. Each must get a profile of
 * its own, never one file written by both. Issue: safe on any program,
 * point 8. */
#include <gc/gc.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void work(int n)
{
    void *keep[64];
    for (int round = 0; round < 10; round++) {
        for (int i = 0; i < 2000; i++) {
            void *p = GC_MALLOC(48);
            if (i % 64 == 0) keep[(i / 64) % 64] = p;
        }
        GC_gcollect();
    }
    printf("%s done %d\n", n ? "child" : "parent", keep[0] != NULL);
}

int main(int argc, char **argv)
{
    GC_INIT();
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        work(1);
        return 0;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl(argv[0], argv[0], "child", (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    work(0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
