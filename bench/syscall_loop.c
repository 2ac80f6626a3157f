/* syscall_loop: what seeing every system call costs in mode ldv
 * (bench/bench_syscalls.py). Builds a heap of 64 MiB in 64-byte objects
 * (protected after each collection under ldv), then makes N rounds of three
 * system calls that touch no heap buffer (getppid through syscall(), a
 * write of a stack buffer to /dev/null, a read into a stack buffer from
 * /dev/zero) and one that does (a read into a heap buffer), with a
 * collection every N/8 rounds. Prints the seconds the loop took. */
#include <gc/gc.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    GC_INIT();
    long n = argc > 1 ? atol(argv[1]) : 200000;
    void **keep = GC_MALLOC(sizeof(void *) * (1 << 20));
    for (int i = 0; i < (1 << 20); i++) keep[i] = GC_MALLOC_ATOMIC(64);
    GC_gcollect();
    int null = open("/dev/null", O_WRONLY), zero = open("/dev/zero", O_RDONLY);
    char stack[64];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long sum = 0;
    for (long i = 0; i < n; i++) {
        sum += syscall(SYS_getppid) > 0;
        sum += write(null, stack, sizeof stack);
        sum += read(zero, stack, sizeof stack);
        sum += read(zero, keep[i & ((1 << 20) - 1)], 64);
        if (i % (n / 8 + 1) == 0) GC_gcollect();
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%.3f s (%ld)\n", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, sum);
    return 0;
}
