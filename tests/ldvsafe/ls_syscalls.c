/* ls_syscalls: system calls given buffers on protected heap pages. Under
 * ldv each buffer is allocated, then a collection protects its page, then
 * the call is made; every result is printed and must equal an unprofiled
 * run's (they failed with EFAULT, or worse, before: a child's status lost,
 * a futex on a heap mutex aborting, stdout's heap buffer losing all output).
 * Issue "ldv never breaks a program", point 5. */
#define GC_THREADS
#include <gc/gc.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
static void *keep[256];
static int nkeep;

/* A zeroed heap buffer of n bytes whose page is protected (under ldv) by
 * the time it is returned. */
static void *heap(size_t n)
{
    void *p = GC_MALLOC_ATOMIC(n);
    memset(p, 0, n);
    keep[nkeep++ % 256] = p;
    GC_gcollect();
    return p;
}

static void say(const char *what, long r) { printf("%-12s %ld %s\n", what, r, r < 0 ? "fail" : "ok"); }

static pthread_mutex_t *shared_mutex;
static long counter;
static void *contend(void *arg)
{
    (void)arg;
    for (int i = 0; i < 200; i++) {
        pthread_mutex_lock(shared_mutex);
        counter++;
        if (i % 50 == 0) usleep(2000);
        pthread_mutex_unlock(shared_mutex);
    }
    return NULL;
}

int main(void)
{
    GC_INIT();
    GC_allow_register_threads();
    int fd = open("data.txt", O_RDWR | O_CREAT | O_TRUNC, 0644);
    const char text[] = "0123456789abcdefghijklmnopqrstuvwxyz\n";
    if (write(fd, text, sizeof text - 1) != (ssize_t)(sizeof text - 1)) return 9;
    if (symlink("data.txt", "link") != 0) return 9;
    mkdir("dir", 0755);
    for (int i = 0; i < 5; i++) {
        char n[32];
        snprintf(n, sizeof n, "dir/f%d", i);
        close(open(n, O_CREAT | O_WRONLY, 0644));
    }

    struct stat *st = heap(sizeof *st);
    say("fstat", fstat(fd, st));
    printf("  size %ld\n", (long)st->st_size);
    st = heap(sizeof *st);
    say("stat", stat("data.txt", st));
    printf("  size %ld\n", (long)st->st_size);
    st = heap(sizeof *st);
    say("lstat", lstat("link", st));
    printf("  link %d\n", S_ISLNK(st->st_mode));
    struct statx *sx = heap(sizeof *sx);
    say("statx", statx(AT_FDCWD, "data.txt", 0, STATX_SIZE, sx));
    printf("  size %ld\n", (long)sx->stx_size);

    int *pfd = heap(2 * sizeof(int));
    say("pipe", pipe(pfd));
    char *rb = heap(64);
    if (write(pfd[1], "through", 7) != 7) return 9;
    say("read(pipe)", read(pfd[0], rb, 64));
    printf("  %s\n", rb);
    int *sv = heap(2 * sizeof(int));
    say("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));

    char *cwd = heap(4096);
    char plain[4096];
    say("getcwd", getcwd(cwd, 4096) ? 0 : -1);
    printf("  same %d\n", strcmp(cwd, getcwd(plain, sizeof plain)) == 0);
    say("getrandom", getrandom(heap(16), 16, 0));
    struct utsname *u = heap(sizeof *u);
    say("uname", uname(u));
    printf("  %s\n", u->sysname);
    say("getrusage", getrusage(RUSAGE_SELF, heap(sizeof(struct rusage))));
    struct timespec *ts = heap(2 * sizeof *ts);
    say("clock_gettime", clock_gettime(CLOCK_MONOTONIC, ts));
    ts = heap(2 * sizeof *ts);
    ts[0].tv_nsec = 1000000;
    say("nanosleep", nanosleep(&ts[0], &ts[1]));
    struct pollfd *pf = heap(sizeof *pf);
    pf->fd = fd;
    pf->events = POLLIN;
    say("poll", poll(pf, 1, 0));
    fd_set *rs = heap(sizeof *rs);
    FD_SET(fd, rs);
    struct timeval *tv = heap(sizeof *tv);
    say("select", select(fd + 1, rs, NULL, NULL, tv));

    int dfd = open("dir", O_RDONLY | O_DIRECTORY);
    char *dents = heap(4096);
    long got = syscall(SYS_getdents64, dfd, dents, 4096);
    int names = 0;
    for (long off = 0; off < got;) {
        unsigned short reclen = *(unsigned short *)(dents + off + 16);
        if (dents[off + 19] == 'f') names++;
        off += reclen;
    }
    say("getdents64", got > 0 ? 0 : got);
    printf("  %d files\n", names);
    char *sb = heap(64);
    say("syscall pread", syscall(SYS_pread64, fd, sb, 10, 0));
    printf("  %s\n", sb);
    char *sr = heap(64);
    lseek(fd, 20, SEEK_SET);
    say("syscall read", syscall(SYS_read, fd, sr, 6));
    printf("  %s\n", sr);

    struct iovec *iov = heap(2 * sizeof *iov);
    char *b1 = heap(8), *b2 = heap(8);
    iov[0].iov_base = b1;
    iov[0].iov_len = 5;
    iov[1].iov_base = b2;
    iov[1].iov_len = 5;
    GC_gcollect();
    say("preadv", preadv(fd, iov, 2, 10));
    printf("  %s %s\n", b1, b2);
    /* The same with the vector on the stack: only what it points to is
     * on the heap. */
    char *c1 = heap(8), *c2 = heap(8);
    struct iovec siov[2] = {{c1, 5}, {c2, 5}};
    GC_gcollect();
    say("preadv stack", preadv(fd, siov, 2, 10));
    printf("  %s %s\n", c1, c2);
    /* And a vector the program should not have passed: EFAULT, as without
     * heapprof (which reads it too, now that a vector off the heap may
     * point into it). */
    struct iovec *volatile badv = (struct iovec *)8;
    long bad = preadv(fd, badv, 1, 10);
    printf("preadv of a bad vector: %s\n", bad < 0 && errno == EFAULT ? "EFAULT" : "not EFAULT");
    char *lb = heap(256);
    say("readlinkat", readlinkat(AT_FDCWD, "link", lb, 255));
    printf("  %s\n", lb);

    int out = open("copy.txt", O_RDWR | O_CREAT | O_TRUNC, 0644);
    off_t *off = heap(sizeof *off);
    *off = 4;
    say("sendfile", sendfile(out, fd, off, 6));
    printf("  offset now %ld\n", (long)*off);
    int p2[2];
    if (pipe(p2) != 0) return 9;
    loff_t *soff = heap(sizeof *soff);
    *soff = 2;
    say("splice", splice(fd, soff, p2[1], NULL, 4, 0));
    printf("  offset now %ld\n", (long)*soff);
    struct iovec *viov = heap(sizeof *viov);
    char *vb = heap(16);
    memcpy(vb, "spliced", 8);
    viov->iov_base = vb;
    viov->iov_len = 7;
    GC_gcollect();
    say("vmsplice", vmsplice(p2[1], viov, 1, 0));
    char drain[64];
    say("read(drain)", read(p2[0], drain, sizeof drain));

    if (write(sv[0], "one", 3) != 3 || write(sv[0], "two", 3) != 3) return 9;
    struct mmsghdr *mm = heap(2 * sizeof *mm);
    struct iovec *miov = heap(2 * sizeof *miov);
    char *m1 = heap(16);
    miov[0].iov_base = m1;
    miov[0].iov_len = 6;
    mm[0].msg_hdr.msg_iov = &miov[0];
    mm[0].msg_hdr.msg_iovlen = 1;
    GC_gcollect();
    say("recvmmsg", recvmmsg(sv[1], mm, 1, 0, NULL));
    printf("  %s (%u)\n", m1, mm[0].msg_len);
    int *ov = heap(sizeof(int));
    socklen_t *ol = heap(sizeof(socklen_t));
    *ol = sizeof(int);
    say("getsockopt", getsockopt(sv[0], SOL_SOCKET, SO_TYPE, ov, ol));
    printf("  type %d len %u\n", *ov, *ol);

    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) _exit(42);
    int *status = heap(sizeof(int));
    say("waitpid", waitpid(pid, status, 0) == pid ? 0 : -1);
    printf("  exit %d\n", WEXITSTATUS(*status));

    shared_mutex = heap(sizeof *shared_mutex);
    pthread_mutex_init(shared_mutex, NULL);
    GC_gcollect();
    pthread_t th[3];
    for (int i = 0; i < 3; i++) pthread_create(&th[i], NULL, contend, NULL);
    for (int k = 0; k < 10; k++) {
        usleep(3000);
        GC_gcollect();
    }
    for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
    printf("futex: counter %ld\n", counter);

    char *cmd = heap(64);
    strcpy(cmd, "echo from system");
    GC_gcollect();
    fflush(stdout);
    say("system", system(cmd));
    char **argv = heap(4 * sizeof(char *));
    argv[0] = heap(16);
    strcpy(argv[0], "echo");
    argv[1] = heap(32);
    strcpy(argv[1], "from posix_spawn");
    GC_gcollect();
    pid_t sp;
    fflush(stdout);
    say("posix_spawnp", posix_spawnp(&sp, "echo", NULL, NULL, argv, environ));
    waitpid(sp, NULL, 0);
    char *arg = heap(32);
    strcpy(arg, "from execl");
    GC_gcollect();
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        execl("/bin/echo", "echo", arg, (char *)NULL);
        _exit(127);
    }
    waitpid(pid, NULL, 0);

    /* stdout through a buffer on the heap: every line must come out. */
    char *obuf = heap(4096);
    fflush(stdout);
    setvbuf(stdout, obuf, _IOFBF, 4096);
    for (int i = 0; i < 20000; i++) {
        printf("line %d\n", i);
        if (i % 2000 == 0) GC_gcollect();
    }
    fflush(stdout);
    return 0;
}
