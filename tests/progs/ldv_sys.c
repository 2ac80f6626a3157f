/* ldv_sys: a program that hands protected GC objects to system calls and
 * stdio, installs its own SIGSEGV handler, or crashes, for
 * tests/integration/test_ldv.py (run with HEAPPROF=ldv).
 *
 *   ldv_sys io        pipe, socketpair, file and stdio I/O from and into GC
 *                     objects after a collection has protected their pages;
 *                     prints "ok NAME" per check, "fail NAME" otherwise
 *   ldv_sys handler   installs a SIGSEGV handler (sigaction, then signal)
 *                     after start, catches faults on its own PROT_NONE page,
 *                     and reads GC objects in between
 *   ldv_sys crash     dereferences NULL after a collection (must die of
 *                     SIGSEGV as without heapprof)
 *   ldv_sys calls N   after a collection, N getppid system calls through
 *                     syscall() (each dispatched under ldv); prints
 *                     "loop SECONDS", the loop's wall time
 *   ldv_sys reads N   after a collection, N reads from /dev/zero into one
 *                     GC object (its page protected until the first);
 *                     prints "read BYTES" */
#define _GNU_SOURCE
#include <gc/gc.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static int failures;

static void check(const char *name, int ok)
{
    printf("%s %s\n", ok ? "ok" : "fail", name);
    if (!ok) failures++;
}

static char *gc_text(size_t n, char c)
{
    char *p = GC_malloc_atomic(n);
    for (size_t i = 0; i < n; i++) p[i] = (char)(c + i % 23);
    return p;
}

static int io(void)
{
    enum { N = 20000 };
    char *src = gc_text(N, 'a'), *dst = gc_text(N, '0');
    char *small = gc_text(64, 'k'), *small2 = gc_text(64, '0');
    char *str = GC_strdup("a GC string printed through stdio");
    struct iovec *iov = GC_malloc(2 * sizeof *iov);   /* the iovec array is a GC object too */
    struct msghdr *mh = GC_malloc(sizeof *mh);
    GC_gcollect();   /* every page above is protected now */

    int p[2];
    if (pipe(p) != 0) return 1;
    errno = 1234;
    ssize_t w = write(p[1], small, 64);
    check("write_ret", w == 64);
    check("write_errno_kept", errno == 1234);
    ssize_t r = read(p[0], small2, 64);
    check("read_ret", r == 64);
    check("read_data", memcmp(small, small2, 64) == 0);

    iov[0].iov_base = src;
    iov[0].iov_len = 1000;
    iov[1].iov_base = src + 5000;
    iov[1].iov_len = 3000;
    check("writev_ret", writev(p[1], iov, 2) == 4000);
    iov[0].iov_base = dst;
    iov[1].iov_base = dst + 5000;
    check("readv_ret", readv(p[0], iov, 2) == 4000);
    check("readv_data", memcmp(src, dst, 1000) == 0 && memcmp(src + 5000, dst + 5000, 3000) == 0);

    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 1;
    check("send_ret", send(sv[0], src + 100, 4096, 0) == 4096);
    check("recv_ret", recv(sv[1], dst + 100, 4096, MSG_WAITALL) == 4096);
    check("recv_data", memcmp(src + 100, dst + 100, 4096) == 0);
    check("sendto_ret", sendto(sv[0], src + 9000, 100, 0, NULL, 0) == 100);
    check("recvfrom_ret", recvfrom(sv[1], dst + 9000, 100, MSG_WAITALL, NULL, NULL) == 100);
    iov[0].iov_base = src + 12000;
    iov[0].iov_len = 2000;
    memset(mh, 0, sizeof *mh);
    mh->msg_iov = iov;
    mh->msg_iovlen = 1;
    check("sendmsg_ret", sendmsg(sv[0], mh, 0) == 2000);
    iov[0].iov_base = dst + 12000;
    check("recvmsg_ret", recvmsg(sv[1], mh, MSG_WAITALL) == 2000);
    check("sock_data", memcmp(src + 9000, dst + 9000, 100) == 0 &&
                       memcmp(src + 12000, dst + 12000, 2000) == 0);

    char path[] = "/tmp/ldv_sysXXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 1;
    unlink(path);
    check("pwrite_ret", pwrite(fd, src, N, 0) == N);
    check("pread_ret", pread(fd, dst, N, 0) == N);
    check("pread_data", memcmp(src, dst, N) == 0);
    memset(dst, 0, N);

    FILE *f = tmpfile();
    check("fwrite_ret", fwrite(src, 1, N, f) == N);   /* larger than stdio's buffer */
    rewind(f);
    check("fread_ret", fread(dst, 1, N, f) == N);
    check("fread_data", memcmp(src, dst, N) == 0);
    fclose(f);
    GC_gcollect();   /* protected again */
    fputs(str, stdout);
    fputs("\n", stdout);
    printf("printf %s\n", str);
    fflush(stdout);
    setvbuf(stderr, NULL, _IONBF, 0);
    fputs(str, stderr);       /* unbuffered: stdio writes from the GC buffer itself */
    fputs("\n", stderr);
    check("stderr_ok", !ferror(stderr));
    return failures != 0;
}

static sigjmp_buf env;
static volatile int caught;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig; (void)si; (void)uc;
    caught++;
    siglongjmp(env, 1);
}

static void on_segv_plain(int sig)
{
    (void)sig;
    caught++;
    siglongjmp(env, 1);
}

static int handler(void)
{
    char *objs[100];
    for (int i = 0; i < 100; i++) objs[i] = gc_text(100, 'x');
    GC_gcollect();
    char *own = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, &old);
    check("old_is_default", !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL);
    long sum = 0;
    for (int i = 0; i < 50; i++) sum += objs[i][10];        /* heapprof's faults */
    if (sigsetjmp(env, 1) == 0) *(volatile char *)own = 1;   /* the program's own fault */
    check("caught_sigaction", caught == 1);
    struct sigaction now;
    sigaction(SIGSEGV, NULL, &now);
    check("sigaction_reports_program_handler", now.sa_sigaction == on_segv);
    signal(SIGSEGV, on_segv_plain);
    GC_gcollect();
    for (int i = 0; i < 100; i++) sum += objs[i][20];
    if (sigsetjmp(env, 1) == 0) *(volatile char *)own = 1;
    check("caught_signal", caught == 2);
    printf("sum %ld\n", sum);
    return failures != 0;
}

static int crash(void)
{
    char *o = gc_text(100, 'c');
    GC_gcollect();
    printf("read %c\n", o[3]);
    fflush(stdout);
    volatile uintptr_t null = o[0] == 'c' ? 0 : 8;   /* NULL, unknown to the compiler */
    *(volatile int *)null = 1;
    return 0;
}

static int calls(long n)
{
    char **keep = GC_malloc(64 * sizeof(char *));
    for (int i = 0; i < 64; i++) keep[i] = gc_text(4096, 'a');
    GC_gcollect();   /* protects their pages: dispatch is on from here */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long sum = 0;
    for (long i = 0; i < n; i++) sum += syscall(SYS_getppid) > 0;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("loop %.6f\n", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    return sum == n && keep[63][0] == 'a' ? 0 : 1;
}

static int reads(long n)
{
    char **keep = GC_malloc(64 * sizeof(char *));
    for (int i = 0; i < 64; i++) keep[i] = gc_text(4096, 'a');
    GC_gcollect();
    int fd = open("/dev/zero", O_RDONLY);
    long total = 0;
    for (long i = 0; i < n; i++) {
        ssize_t r = read(fd, keep[i % 64], 64);
        if (r != 64) return 1;
        total += r;
    }
    close(fd);
    printf("read %ld\n", total);
    return keep[5][0] == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    GC_INIT();
    const char *what = argc > 1 ? argv[1] : "io";
    if (strcmp(what, "reads") == 0) return reads(argc > 2 ? atol(argv[2]) : 100000);
    if (strcmp(what, "calls") == 0) return calls(argc > 2 ? atol(argv[2]) : 100000);
    if (strcmp(what, "io") == 0) return io();
    if (strcmp(what, "handler") == 0) return handler();
    if (strcmp(what, "crash") == 0) return crash();
    return 2;
}
