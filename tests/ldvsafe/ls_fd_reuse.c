/* ls_fd_reuse: the program takes the number of heapprof's /proc/self/mem
 * descriptor (mode ldv's fault handler reads and writes protected pages
 * through it: ldv/hp_ldv_peek_sigsafe.c) and puts a file of its own there,
 * in the middle of a period, between walks of protected objects. The
 * handler checks the descriptor's identity only at each protect pass while
 * it can see every call that could change it (Note [Trusting the
 * descriptor]): each such call must make it check again, or the walks
 * after it would read the program's file as memory (/dev/zero here: every
 * read a zero, every write lost). Each round replaces the number another
 * way -- close then F_DUPFD (the C library's), dup2, dup3 and close_range
 * (raw system calls), and dup2 in a child process that shares the
 * descriptor table (a raw clone with CLONE_FILES, not CLONE_VM) -- and prints the sums its walks read (each walk
 * adds 1 to every object it reads), which must be what they are without
 * heapprof. Each round runs in a child of its own: the number it replaces
 * is that child's own descriptor (a fork's child opens its own). */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ls_common.h"

/* The descriptor that reaches this process's memory file, or -1. */
static int mem_fd(void)
{
    char want[64], path[64], link[64];
    snprintf(want, sizeof want, "/proc/%d/mem", (int)getpid());
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    int found = -1;
    for (struct dirent *e; (e = readdir(d));) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] == '.' || fd == dirfd(d)) continue;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n <= 0) continue;
        link[n] = 0;
        if (strcmp(link, want) == 0) found = fd;
    }
    closedir(d);
    return found;
}

/* Put `file` (open, read-write) at number `at`, by way `how`. */
static void replace(int how, int at, int file)
{
    switch (how) {
    case 0:
        close(at);
        if (fcntl(file, F_DUPFD, at) != at) printf("fcntl did not give %d\n", at);
        break;
    case 1:
        syscall(SYS_dup2, file, at);
        break;
    case 2:
        syscall(SYS_dup3, file, at, 0);
        break;
    case 3:
        syscall(SYS_close_range, at, at, 0);
        if (fcntl(file, F_DUPFD, at) != at) printf("fcntl did not give %d\n", at);
        break;
    default: {
        /* A child process sharing the descriptor table (CLONE_FILES, not
         * CLONE_VM; the raw call, without a stack of its own, as fork):
         * its dup2 replaces the number in this process too. */
        long pid = syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
        if (pid == 0) _exit(syscall(SYS_dup2, file, at) == at ? 0 : 1);
        int st = 0;
        if (pid < 0 || waitpid((pid_t)pid, &st, 0) != pid || !WIFEXITED(st) ||
            WEXITSTATUS(st) != 0)
            printf("clone child failed\n");
        break;
    }
    }
}

/* One round, in a child of its own (forked after a collection: heapprof
 * opens a descriptor of the child's own there, which the child then takes
 * over). */
static void round_of(int how)
{
    static const char *ways[] = {"close", "dup2", "dup3", "close_range", "clone CLONE_FILES"};
    ls_node *a = ls_build(3000), *b = ls_build(3000);   /* protected after each */
    long first = ls_touch(a) + ls_touch(a);   /* faults, the descriptor trusted */
    int at = mem_fd();
    int zero = open("/dev/zero", O_RDWR | O_CLOEXEC);
    /* (mem_fd's closedir closed a descriptor: a collection, so that the
     * handler trusts the descriptor again before the replacement, which
     * alone must make it check.) */
    GC_gcollect();
    if (at >= 0 && zero >= 0) replace(how, at, zero);
    long second = ls_touch(b) + ls_touch(a) + ls_touch(b);   /* the number is the program's */
    printf("%s: sums %ld %ld%s\n", ways[how], first, second, zero < 0 ? " (no /dev/zero)" : "");
}

int main(void)
{
    GC_INIT();
    GC_gcollect();
    for (int how = 0; how < 5; how++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            round_of(how);
            fflush(stdout);
            _exit(0);
        }
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            printf("round %d: child failed (status %d)\n", how, st);
    }
    return 0;
}
