/* hp_libc_wrappers: heapprof's definitions of the system calls and stdio
 * calls that take a buffer or a path (entry points, level 1), for mode
 * ldv: a buffer in the GC heap on a protected page would make the kernel
 * fail with EFAULT instead of faulting. Each interposer hands its buffers
 * to ldv (ldv/hp_ldv.h: hp_ldv_sys_*, which records the use, opens the
 * pages and marks the span in flight), calls the real function, retries
 * an EFAULT that a protect pass caused, keeps its errno. In other modes
 * ldv does nothing and each interposer only forwards. The real functions
 * are found with dlsym(RTLD_NEXT) before any other constructor runs.
 * Async-signal-safe where the real function is (a program may call write()
 * from a signal handler): ldv's part is. */
#undef _FILE_OFFSET_BITS   /* pread and pread64 are two symbols here */
#include "core/hp_sys.h"
#include "core/hp_unwind.h"
#include "ldv/hp_ldv.h"

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#undef fputs_unlocked
#undef fwrite_unlocked
#undef fread_unlocked
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <spawn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>

#define HP_SYS_FUNCTIONS(X)                                                 \
    X(read) X(write) X(readv) X(writev) X(pread) X(pwrite) X(pread64) X(pwrite64) \
    X(recv) X(recvfrom) X(recvmsg) X(send) X(sendto) X(sendmsg)             \
    X(fwrite) X(fwrite_unlocked) X(fread) X(fread_unlocked) X(fputs) X(fputs_unlocked) \
    X(puts)                                                                 \
    X(open) X(open64) X(openat) X(openat64) X(creat) X(fopen) X(fopen64) X(freopen) \
    X(stat) X(lstat) X(fstatat) X(stat64) X(lstat64) X(access) X(faccessat) X(opendir) \
    X(mkdir) X(rmdir) X(unlink) X(unlinkat) X(rename) X(chdir) X(readlink) X(realpath) \
    X(truncate) X(chmod) X(execve) X(execv) X(execvp) X(execvpe) X(fexecve) \
    X(system) X(popen) X(posix_spawn) X(posix_spawnp)                      \
    X(__read_chk) X(__pread_chk) X(__pread64_chk) X(__recv_chk) X(__recvfrom_chk) \
    X(__fread_chk) X(__fread_unlocked_chk) X(__readlink_chk) X(__realpath_chk) \
    X(__open_2) X(__open64_2) X(__openat_2) X(__openat64_2) X(pipe2) X(close)   \
    X(lseek) X(lseek64) X(fseek) X(fseeko) X(fseeko64) X(ftell) X(ftello) X(ftello64)

/* glibc's _FORTIFY_SOURCE entry points (programs built with it, as Debian
 * builds its packages, call these instead); declared here since the
 * headers declare them only for such programs. */
ssize_t __read_chk(int fd, void *b, size_t n, size_t blen);
ssize_t __pread_chk(int fd, void *b, size_t n, off_t o, size_t blen);
ssize_t __pread64_chk(int fd, void *b, size_t n, off64_t o, size_t blen);
ssize_t __recv_chk(int fd, void *b, size_t n, size_t blen, int f);
ssize_t __recvfrom_chk(int fd, void *b, size_t n, size_t blen, int f, struct sockaddr *a,
                       socklen_t *al);
size_t __fread_chk(void *p, size_t plen, size_t sz, size_t n, FILE *f);
size_t __fread_unlocked_chk(void *p, size_t plen, size_t sz, size_t n, FILE *f);
ssize_t __readlink_chk(const char *p, char *b, size_t n, size_t blen);
char *__realpath_chk(const char *p, char *out, size_t outlen);
int __open_2(const char *p, int flags);
int __open64_2(const char *p, int flags);
int __openat_2(int d, const char *p, int flags);
int __openat64_2(int d, const char *p, int flags);

static struct {
#define FIELD(name) __typeof__(&name) name;
    HP_SYS_FUNCTIONS(FIELD)
#undef FIELD
} real;

static void resolve(void)
{
#define FIND(name) real.name = (__typeof__(&name))dlsym(RTLD_NEXT, #name);
    HP_SYS_FUNCTIONS(FIND)
#undef FIND
}

__attribute__((constructor(101))) static void early(void) { resolve(); }

#define REAL(name) (real.name ? real.name : (resolve(), real.name))

#define CALL(ret_t, call, failed)                                           \
    int saved_ = errno, tries_ = 0;                                         \
    hp_ldv_sys_begin(&s_);                                                  \
    ret_t r_;                                                               \
    do { errno = saved_; r_ = call; } while ((failed) && hp_ldv_sys_retry(&s_, &tries_)); \
    int e_ = errno;                                                         \
    hp_ldv_sys_end(&s_);                                                    \
    errno = e_;                                                             \
    return r_;

#define EXPORT __attribute__((visibility("default")))

/* A call given one buffer `p` of `len` bytes that the kernel reads
 * (writes = 0) or writes (writes = 1). */
#define BUFCALL(ret_t, name, params, args, p, len, writes, failed)          \
    EXPORT ret_t name params                                                \
    {                                                                       \
        hp_ldv_span s_ = HP_LDV_SPAN_INIT;                                  \
        hp_ldv_sys_buf(&s_, (uintptr_t)(p), len, writes);                   \
        CALL(ret_t, REAL(name) args, failed)                                \
    }
/* The same for a call that is one system call with exactly that buffer:
 * its buffers opened here, the system call need not be dispatched too
 * (hp_ldv_sys_direct). */
#define SYSBUFCALL(ret_t, name, params, args, p, len, writes, failed)       \
    EXPORT ret_t name params                                                \
    {                                                                       \
        hp_ldv_span s_ = HP_LDV_SPAN_INIT;                                  \
        hp_ldv_sys_direct(&s_);                                             \
        hp_ldv_sys_buf(&s_, (uintptr_t)(p), len, writes);                   \
        CALL(ret_t, REAL(name) args, failed)                                \
    }

SYSBUFCALL(ssize_t, read, (int fd, void *b, size_t n), (fd, b, n), b, n, 1, r_ < 0)

SYSBUFCALL(ssize_t, write, (int fd, const void *b, size_t n), (fd, b, n), b, n, 0, r_ < 0)

EXPORT ssize_t readv(int fd, const struct iovec *v, int c)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_direct(&s_);
    hp_ldv_sys_iov(&s_, v, c, 1);
    CALL(ssize_t, REAL(readv)(fd, v, c), r_ < 0)
}

EXPORT ssize_t writev(int fd, const struct iovec *v, int c)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_direct(&s_);
    hp_ldv_sys_iov(&s_, v, c, 0);
    CALL(ssize_t, REAL(writev)(fd, v, c), r_ < 0)
}

SYSBUFCALL(ssize_t, pread, (int fd, void *b, size_t n, off_t o), (fd, b, n, o), b, n, 1, r_ < 0)

SYSBUFCALL(ssize_t, pwrite, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o), b, n, 0, r_ < 0)

SYSBUFCALL(ssize_t, pread64, (int fd, void *b, size_t n, off64_t o), (fd, b, n, o), b, n, 1, r_ < 0)

SYSBUFCALL(ssize_t, pwrite64, (int fd, const void *b, size_t n, off64_t o), (fd, b, n, o), b, n, 0, r_ < 0)

/* Seeks and tells: lseek, one system call with no buffer, and stdio's
 * seek and tell, whose system calls (lseek; a flush's write from the
 * stream's buffer, a refill's read into it) touch no memory of the
 * caller's but the stream's buffer -- which setvbuf may have put on a
 * heap page: opened first. Then the call runs undispatched (no SIGSYS per
 * lseek). GNU poke reads its file through ftello and fseeko: ten million
 * lseeks a run, each dispatched before this (about 5 us a call on the VM
 * of 2026-11-29: 73-100 s under ldv against 18-24 s plain). */
static void stream_buffer(hp_ldv_span *s, FILE *f)
{
    if (f && f->_IO_buf_base && f->_IO_buf_end > f->_IO_buf_base)
        hp_ldv_sys_buf(s, (uintptr_t)f->_IO_buf_base, (size_t)(f->_IO_buf_end - f->_IO_buf_base), 1);
}

#define SEEKCALL(ret_t, name, params, args)                                 \
    EXPORT ret_t name params                                                \
    {                                                                       \
        hp_ldv_span s_ = HP_LDV_SPAN_INIT;                                  \
        hp_ldv_sys_direct(&s_);                                             \
        CALL(ret_t, REAL(name) args, 0)                                     \
    }
#define STREAMCALL(ret_t, name, params, args)                               \
    EXPORT ret_t name params                                                \
    {                                                                       \
        hp_ldv_span s_ = HP_LDV_SPAN_INIT;                                  \
        hp_ldv_sys_direct(&s_);                                             \
        stream_buffer(&s_, f);                                              \
        CALL(ret_t, REAL(name) args, r_ < 0)                                \
    }

SEEKCALL(off_t, lseek, (int fd, off_t o, int w), (fd, o, w))
SEEKCALL(off64_t, lseek64, (int fd, off64_t o, int w), (fd, o, w))
STREAMCALL(int, fseek, (FILE *f, long o, int w), (f, o, w))
STREAMCALL(int, fseeko, (FILE *f, off_t o, int w), (f, o, w))
STREAMCALL(int, fseeko64, (FILE *f, off64_t o, int w), (f, o, w))
STREAMCALL(long, ftell, (FILE *f), (f))
STREAMCALL(off_t, ftello, (FILE *f), (f))
STREAMCALL(off64_t, ftello64, (FILE *f), (f))

SYSBUFCALL(ssize_t, recv, (int fd, void *b, size_t n, int f), (fd, b, n, f), b, n, 1, r_ < 0)

EXPORT ssize_t recvfrom(int fd, void *b, size_t n, int f, struct sockaddr *a, socklen_t *al)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_buf(&s_, (uintptr_t)(b), n, 1);
    if (al) {
        hp_ldv_sys_buf(&s_, (uintptr_t)(al), sizeof *al, 1);
        hp_ldv_sys_buf(&s_, (uintptr_t)(a), *al, 1);
    }
    CALL(ssize_t, REAL(recvfrom)(fd, b, n, f, a, al), r_ < 0)
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *m, int f)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_msg(&s_, m, 1);
    CALL(ssize_t, REAL(recvmsg)(fd, m, f), r_ < 0)
}

SYSBUFCALL(ssize_t, send, (int fd, const void *b, size_t n, int f), (fd, b, n, f), b, n, 0, r_ < 0)

EXPORT ssize_t sendto(int fd, const void *b, size_t n, int f, const struct sockaddr *a,
                      socklen_t al)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_buf(&s_, (uintptr_t)(b), n, 0);
    hp_ldv_sys_buf(&s_, (uintptr_t)(a), al, 0);
    CALL(ssize_t, REAL(sendto)(fd, b, n, f, a, al), r_ < 0)
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *m, int f)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_msg(&s_, m, 0);
    CALL(ssize_t, REAL(sendmsg)(fd, m, f), r_ < 0)
}

/* stdio writes large blocks (and everything on unbuffered streams) straight
 * from the caller's buffer with an internal write(2) that no wrapper sees,
 * and reads large blocks straight into it: open those buffers first. Short
 * counts are not retried (stdio has already set the stream's error flag). */
BUFCALL(size_t, fwrite, (const void *p, size_t sz, size_t n, FILE *f), (p, sz, n, f), p, sz * n, 0, 0)

BUFCALL(size_t, fwrite_unlocked, (const void *p, size_t sz, size_t n, FILE *f), (p, sz, n, f), p, sz * n, 0, 0)

BUFCALL(size_t, fread, (void *p, size_t sz, size_t n, FILE *f), (p, sz, n, f), p, sz * n, 1, 0)

BUFCALL(size_t, fread_unlocked, (void *p, size_t sz, size_t n, FILE *f), (p, sz, n, f), p, sz * n, 1, 0)

EXPORT int fputs(const char *str, FILE *f)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    if (hp_ldv_sys_active()) hp_ldv_sys_buf(&s_, (uintptr_t)(str), strlen(str), 0);
    CALL(int, REAL(fputs)(str, f), 0)
}

EXPORT int fputs_unlocked(const char *str, FILE *f)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    if (hp_ldv_sys_active()) hp_ldv_sys_buf(&s_, (uintptr_t)(str), strlen(str), 0);
    CALL(int, REAL(fputs_unlocked)(str, f), 0)
}

EXPORT int puts(const char *str)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    if (hp_ldv_sys_active()) hp_ldv_sys_buf(&s_, (uintptr_t)(str), strlen(str), 0);
    CALL(int, REAL(puts)(str), 0)
}
/* A call taking up to two paths; `failed` tests its result r_. */
#define PATHCALL_IF(ret_t, name, params, args, p1, p2, failed)              \
    EXPORT ret_t name params                                                \
    {                                                                       \
        hp_ldv_span s_ = HP_LDV_SPAN_INIT;                                  \
        hp_ldv_sys_path(&s_, p1);                                           \
        hp_ldv_sys_path(&s_, p2);                                           \
        CALL(ret_t, REAL(name) args, failed)                                \
    }
#define PATHCALL(ret_t, name, params, args, p1, p2)                         \
    PATHCALL_IF(ret_t, name, params, args, p1, p2, r_ == (ret_t)-1)
#define PATHCALLP(ret_t, name, params, args, p1, p2)                        \
    PATHCALL_IF(ret_t, name, params, args, p1, p2, r_ == NULL)

static mode_t mode_arg(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

/* open and its kin: the mode argument is read only when the flags say it
 * is there (O_CREAT, O_TMPFILE), as libc reads it. */
#define OPENCALL(name, params, args)                                        \
    EXPORT int name params                                                  \
    {                                                                       \
        va_list ap;                                                         \
        va_start(ap, flags);                                                \
        mode_t m = mode_arg(flags, ap);                                     \
        va_end(ap);                                                         \
        hp_ldv_span s_ = HP_LDV_SPAN_INIT;                                  \
        hp_ldv_sys_direct(&s_);                                             \
        hp_ldv_sys_path(&s_, p);                                            \
        CALL(int, REAL(name) args, r_ < 0)                                  \
    }
OPENCALL(open, (const char *p, int flags, ...), (p, flags, m))
OPENCALL(open64, (const char *p, int flags, ...), (p, flags, m))
OPENCALL(openat, (int d, const char *p, int flags, ...), (d, p, flags, m))
OPENCALL(openat64, (int d, const char *p, int flags, ...), (d, p, flags, m))

PATHCALL(int, creat, (const char *p, mode_t m), (p, m), p, NULL)
PATHCALLP(FILE *, fopen, (const char *p, const char *m), (p, m), p, m)
PATHCALLP(FILE *, fopen64, (const char *p, const char *m), (p, m), p, m)
PATHCALLP(FILE *, freopen, (const char *p, const char *m, FILE *f), (p, m, f), p, m)
PATHCALL(int, stat, (const char *p, struct stat *b), (p, b), p, NULL)
PATHCALL(int, lstat, (const char *p, struct stat *b), (p, b), p, NULL)
PATHCALL(int, fstatat, (int d, const char *p, struct stat *b, int f), (d, p, b, f), p, NULL)
PATHCALL(int, stat64, (const char *p, struct stat64 *b), (p, b), p, NULL)
PATHCALL(int, lstat64, (const char *p, struct stat64 *b), (p, b), p, NULL)
PATHCALL(int, access, (const char *p, int m), (p, m), p, NULL)
PATHCALL(int, faccessat, (int d, const char *p, int m, int f), (d, p, m, f), p, NULL)
PATHCALLP(DIR *, opendir, (const char *p), (p), p, NULL)
PATHCALL(int, mkdir, (const char *p, mode_t m), (p, m), p, NULL)
PATHCALL(int, rmdir, (const char *p), (p), p, NULL)
PATHCALL(int, unlink, (const char *p), (p), p, NULL)
PATHCALL(int, unlinkat, (int d, const char *p, int f), (d, p, f), p, NULL)
PATHCALL(int, rename, (const char *a, const char *b), (a, b), a, b)
PATHCALL(int, chdir, (const char *p), (p), p, NULL)
PATHCALL(int, truncate, (const char *p, off_t l), (p, l), p, NULL)
PATHCALL(int, chmod, (const char *p, mode_t m), (p, m), p, NULL)

EXPORT ssize_t readlink(const char *restrict p, char *restrict b, size_t n)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_path(&s_, p);
    hp_ldv_sys_buf(&s_, (uintptr_t)b, n, 1);
    CALL(ssize_t, REAL(readlink)(p, b, n), r_ < 0)
}

EXPORT char *realpath(const char *restrict p, char *restrict out)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_path(&s_, p);
    if (out) hp_ldv_sys_buf(&s_, (uintptr_t)out, PATH_MAX, 1);
    CALL(char *, REAL(realpath)(p, out), r_ == NULL)
}

/* The new program gets the signal mask the program asked for (in mode ldv
 * heapprof keeps SIGSEGV, SIGTRAP and SIGSYS unblocked): applied just
 * before, undone if exec fails. */
#define exec_with_program_mask(call) (hp_ldv_sigview_exec(0), exec_done(call))
static int exec_done(int r)
{
    int e = errno;
    hp_ldv_sigview_exec(1);
    errno = e;
    return r;
}

static int do_execve(const char *p, char *const a[], char *const e[])
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_path(&s_, p);
    hp_ldv_sys_argv(&s_, a);
    hp_ldv_sys_argv(&s_, e);
    CALL(int, exec_with_program_mask(REAL(execve)(p, a, e)), r_ < 0)
}

EXPORT int execve(const char *p, char *const a[], char *const e[])
{
    return do_execve(p, a, e);
}

EXPORT int execv(const char *p, char *const a[])
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_path(&s_, p);
    hp_ldv_sys_argv(&s_, a);
    CALL(int, exec_with_program_mask(REAL(execv)(p, a)), r_ < 0)
}

static int do_execvp(const char *p, char *const a[])
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_path(&s_, p);
    hp_ldv_sys_argv(&s_, a);
    CALL(int, exec_with_program_mask(REAL(execvp)(p, a)), r_ < 0)
}

EXPORT int execvp(const char *p, char *const a[])
{
    return do_execvp(p, a);
}

EXPORT int execvpe(const char *p, char *const a[], char *const e[])
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_path(&s_, p);
    hp_ldv_sys_argv(&s_, a);
    hp_ldv_sys_argv(&s_, e);
    CALL(int, exec_with_program_mask(REAL(execvpe)(p, a, e)), r_ < 0)
}

EXPORT int fexecve(int fd, char *const a[], char *const e[])
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_argv(&s_, a);
    hp_ldv_sys_argv(&s_, e);
    CALL(int, exec_with_program_mask(REAL(fexecve)(fd, a, e)), r_ < 0)
}

/* system, popen, posix_spawn(p): the C library runs the new program from a
 * child that shares the parent's memory and is not seen by heapprof (its
 * exec of a command or vector on a protected page would fail with EFAULT),
 * so the strings are opened here and kept open until the call returns. */
EXPORT int system(const char *cmd)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_path(&s_, cmd);
    CALL(int, REAL(system)(cmd), 0)
}

EXPORT FILE *popen(const char *cmd, const char *type)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_path(&s_, cmd);
    hp_ldv_sys_path(&s_, type);
    CALL(FILE *, REAL(popen)(cmd, type), 0)
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                       const posix_spawnattr_t *at, char *const a[], char *const e[])
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_path(&s_, path);
    hp_ldv_sys_argv(&s_, a);
    hp_ldv_sys_argv(&s_, e);
    if (pid) hp_ldv_sys_buf(&s_, (uintptr_t)pid, sizeof *pid, 1);
    CALL(int, REAL(posix_spawn)(pid, path, fa, at, a, e), 0)
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                        const posix_spawnattr_t *at, char *const a[], char *const e[])
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_path(&s_, file);
    hp_ldv_sys_argv(&s_, a);
    hp_ldv_sys_argv(&s_, e);
    if (pid) hp_ldv_sys_buf(&s_, (uintptr_t)pid, sizeof *pid, 1);
    CALL(int, REAL(posix_spawnp)(pid, file, fa, at, a, e), 0)
}

/* execl, execlp, execle: the C library makes an argument vector and calls
 * execve itself (not through these interposers); so does this, on the
 * stack, and calls the interposed execve/execvp. */
#define HP_EXECL_ARGS(first, ap, extra)                                     \
    va_list ap;                                                             \
    size_t n_ = 1;                                                          \
    va_start(ap, first);                                                    \
    while (va_arg(ap, char *)) n_++;                                        \
    va_end(ap);                                                             \
    char *argv_[n_ + 1];                                                    \
    argv_[0] = (char *)(first);                                             \
    va_start(ap, first);                                                    \
    for (size_t i_ = 1; i_ <= n_; i_++) argv_[i_] = va_arg(ap, char *);     \
    extra;                                                                  \
    va_end(ap);

EXPORT int execl(const char *p, const char *arg, ...)
{
    HP_EXECL_ARGS(arg, ap, (void)0)
    return do_execve(p, argv_, environ);
}

EXPORT int execlp(const char *p, const char *arg, ...)
{
    HP_EXECL_ARGS(arg, ap, (void)0)
    return do_execvp(p, argv_);
}

EXPORT int execle(const char *p, const char *arg, ...)
{
    char **envp_;
    HP_EXECL_ARGS(arg, ap, envp_ = va_arg(ap, char **))
    return do_execve(p, argv_, envp_);
}
EXPORT ssize_t __read_chk(int fd, void *b, size_t n, size_t blen)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_buf(&s_, (uintptr_t)b, n, 1);
    CALL(ssize_t, REAL(__read_chk)(fd, b, n, blen), r_ < 0)
}

EXPORT ssize_t __pread_chk(int fd, void *b, size_t n, off_t o, size_t blen)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_buf(&s_, (uintptr_t)b, n, 1);
    CALL(ssize_t, REAL(__pread_chk)(fd, b, n, o, blen), r_ < 0)
}

EXPORT ssize_t __pread64_chk(int fd, void *b, size_t n, off64_t o, size_t blen)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_buf(&s_, (uintptr_t)b, n, 1);
    CALL(ssize_t, REAL(__pread64_chk)(fd, b, n, o, blen), r_ < 0)
}

EXPORT ssize_t __recv_chk(int fd, void *b, size_t n, size_t blen, int f)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_buf(&s_, (uintptr_t)b, n, 1);
    CALL(ssize_t, REAL(__recv_chk)(fd, b, n, blen, f), r_ < 0)
}

EXPORT ssize_t __recvfrom_chk(int fd, void *b, size_t n, size_t blen, int f,
                              struct sockaddr *a, socklen_t *al)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_buf(&s_, (uintptr_t)b, n, 1);
    if (al) {
        hp_ldv_sys_buf(&s_, (uintptr_t)al, sizeof *al, 1);
        hp_ldv_sys_buf(&s_, (uintptr_t)a, *al, 1);
    }
    CALL(ssize_t, REAL(__recvfrom_chk)(fd, b, n, blen, f, a, al), r_ < 0)
}

EXPORT size_t __fread_chk(void *p, size_t plen, size_t sz, size_t n, FILE *f)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_buf(&s_, (uintptr_t)p, sz * n, 1);
    CALL(size_t, REAL(__fread_chk)(p, plen, sz, n, f), 0)
}

EXPORT size_t __fread_unlocked_chk(void *p, size_t plen, size_t sz, size_t n, FILE *f)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_buf(&s_, (uintptr_t)p, sz * n, 1);
    CALL(size_t, REAL(__fread_unlocked_chk)(p, plen, sz, n, f), 0)
}

EXPORT ssize_t __readlink_chk(const char *p, char *b, size_t n, size_t blen)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_path(&s_, p);
    hp_ldv_sys_buf(&s_, (uintptr_t)b, n, 1);
    CALL(ssize_t, REAL(__readlink_chk)(p, b, n, blen), r_ < 0)
}

EXPORT char *__realpath_chk(const char *p, char *out, size_t outlen)
{
    hp_ldv_span s_ = HP_LDV_SPAN_INIT;
    hp_ldv_sys_path(&s_, p);
    if (out) hp_ldv_sys_buf(&s_, (uintptr_t)out, outlen, 1);
    CALL(char *, REAL(__realpath_chk)(p, out, outlen), r_ == NULL)
}

PATHCALL(int, __open_2, (const char *p, int f), (p, f), p, NULL)
PATHCALL(int, __open64_2, (const char *p, int f), (p, f), p, NULL)
PATHCALL(int, __openat_2, (int d, const char *p, int f), (d, p, f), p, NULL)
PATHCALL(int, __openat64_2, (int d, const char *p, int f), (d, p, f), p, NULL)

/* ---- libunwind's address-validation pipe. libunwind (loaded by heapprof,
 * privately) validates addresses by writing them to a pipe it makes once
 * with pipe2; when a write fails with EBADF (the program closed every
 * descriptor, as daemons and shells do) it closes both fds, whatever they
 * now are, and makes the pipe again. So: its pipe is moved to descriptors
 * far above the program's (the lowest free 64 below the soft limit), and
 * its close of a descriptor that is no longer its pipe is not done (the
 * number belongs to the program by then). Other callers go straight
 * through. ---- */
static struct { int fd; uint64_t dev, ino; } unw_pipe[2] = {{-1, 0, 0}, {-1, 0, 0}};

static int fd_identity(int fd, uint64_t *dev, uint64_t *ino)
{
    struct stat st;
    if (HP_SYS6(SYS_fstat, fd, &st, 0, 0, 0, 0) != 0) return -1;
    *dev = st.st_dev;
    *ino = st.st_ino;
    return 0;
}

static int move_high(int fd)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < 128) return fd;
    rlim_t top = rl.rlim_cur > (1 << 20) ? (1 << 20) : rl.rlim_cur;
    int hi = (int)HP_SYS6(SYS_fcntl, fd, F_DUPFD_CLOEXEC, top - 64, 0, 0, 0);
    if (hi < 0) return fd;
    hp_sys_close(fd);
    return hi;
}

EXPORT int pipe2(int fds[2], int flags)
{
    int r = REAL(pipe2)(fds, flags);
    if (r == 0 && hp_unwind_called_from((uintptr_t)__builtin_return_address(0))) {
        int saved = errno;
        for (int i = 0; i < 2; i++) {
            fds[i] = move_high(fds[i]);
            unw_pipe[i].fd = fds[i];
            if (fd_identity(fds[i], &unw_pipe[i].dev, &unw_pipe[i].ino) != 0) unw_pipe[i].fd = -1;
        }
        errno = saved;
    }
    return r;
}

EXPORT int close(int fd)
{
    if (hp_unwind_called_from((uintptr_t)__builtin_return_address(0))) {
        uint64_t dev, ino;
        int ours = 0;
        for (int i = 0; i < 2; i++)
            if (unw_pipe[i].fd == fd && fd_identity(fd, &dev, &ino) == 0 &&
                dev == unw_pipe[i].dev && ino == unw_pipe[i].ino)
                ours = 1;
        if (!ours) return 0;   /* not libunwind's any more: the program's */
    }
    return REAL(close)(fd);
}
