/* bh_fork: fork under heapprof, for the behaviour tests.
 * usage: bh_fork alloc|exec|_exit
 * The parent keeps 64 objects from parent_site (48 bytes) and collects,
 * then forks. alloc: the child prints "child PID", keeps 64 objects from
 * child_site (80 bytes), collects and exits normally. exec: the child
 * execs /bin/true. _exit: the child calls _exit(0) at once. The parent
 * waits, prints "parent: child PID exited N", collects and exits 0. */
#define _POSIX_C_SOURCE 200809L
#include <gc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 64

static void *parent_keep[N];
static void *child_keep[N];

__attribute__((noinline)) static void *parent_site(void)
{
    return GC_MALLOC(48);
}

__attribute__((noinline)) static void *child_site(void)
{
    return GC_MALLOC(80);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "alloc";
    GC_set_handle_fork(1);
    GC_INIT();
    GC_expand_hp(256 << 20);
    for (int i = 0; i < N; i++) parent_keep[i] = parent_site();
    GC_gcollect();
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        if (strcmp(mode, "exec") == 0) {
            execl("/bin/true", "true", (char *)NULL);
            _exit(127);
        }
        if (strcmp(mode, "_exit") == 0) _exit(0);
        printf("child %d\n", (int)getpid());
        fflush(stdout);
        for (int i = 0; i < N; i++) child_keep[i] = child_site();
        GC_gcollect();
        exit(0);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) != pid) {
        perror("waitpid");
        return 1;
    }
    printf("parent: child %d exited %d\n", (int)pid, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    GC_gcollect();
    return 0;
}
