/* hp_sys: the system calls heapprof makes for itself (level 7, base).
 *
 * Every read, write, open, close, mmap and mprotect of heapprof's own goes
 * through here, as a raw system call (x86-64 `syscall`, no libc): never
 * through a libc symbol that the PLT could bind to heapprof's own
 * interposers (preload/hp_libc_wrappers.c defines read, write, open, ...,
 * and the preloaded library comes first in every lookup), never through
 * code that takes a lock. So each of these is async-signal-safe and can be
 * called from a signal handler or a collector callback with the world
 * stopped. Failures return -1 with errno set, as libc's would. */
#ifndef HP_SYS_H
#define HP_SYS_H
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <signal.h>
#include <sys/types.h>

static inline long hp_sys_raw6(long n, long a, long b, long c, long d, long e, long f)
{
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}

/* -1 with errno for a kernel error (-4095..-1), else the value. */
static inline long hp_sys_ret(long r)
{
    if ((unsigned long)r > (unsigned long)-4096L) {
        errno = (int)-r;
        return -1;
    }
    return r;
}

#define HP_SYS6(n, a, b, c, d, e, f)                                            \
    hp_sys_ret(hp_sys_raw6((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), \
                           (long)(f)))

static inline ssize_t hp_sys_write(int fd, const void *p, size_t n)
{
    return HP_SYS6(SYS_write, fd, p, n, 0, 0, 0);
}

static inline ssize_t hp_sys_read(int fd, void *p, size_t n)
{
    return HP_SYS6(SYS_read, fd, p, n, 0, 0, 0);
}

static inline ssize_t hp_sys_pread(int fd, void *p, size_t n, off_t off)
{
    return HP_SYS6(SYS_pread64, fd, p, n, off, 0, 0);
}

/* open(2) relative to the working directory. */
static inline int hp_sys_open(const char *path, int flags, int mode)
{
    return (int)HP_SYS6(SYS_openat, -100 /* AT_FDCWD */, path, flags, mode, 0, 0);
}

static inline int hp_sys_close(int fd) { return (int)HP_SYS6(SYS_close, fd, 0, 0, 0, 0, 0); }

static inline int hp_sys_unlink(const char *path)
{
    return (int)HP_SYS6(SYS_unlinkat, -100, path, 0, 0, 0, 0);
}

/* rename(2) relative to the working directory: replaces `to` at once
 * (a reader sees the old file or the new one, never a part). */
static inline int hp_sys_rename(const char *from, const char *to)
{
    return (int)HP_SYS6(SYS_renameat, -100, from, -100, to, 0, 0);
}

/* access(2): 0, or -1 with errno. */
static inline int hp_sys_access(const char *path, int mode)
{
    return (int)HP_SYS6(SYS_faccessat, -100, path, mode, 0, 0, 0);
}

static inline ssize_t hp_sys_readlink(const char *path, char *buf, size_t n)
{
    return HP_SYS6(SYS_readlinkat, -100, path, buf, n, 0, 0);
}

static inline void *hp_sys_mmap(void *addr, size_t n, int prot, int flags, int fd, off_t off)
{
    long r = hp_sys_raw6(SYS_mmap, (long)addr, (long)n, prot, flags, fd, (long)off);
    if ((unsigned long)r > (unsigned long)-4096L) {
        errno = (int)-r;
        return (void *)-1;   /* MAP_FAILED */
    }
    return (void *)r;
}

static inline int hp_sys_munmap(void *addr, size_t n)
{
    return (int)HP_SYS6(SYS_munmap, addr, n, 0, 0, 0, 0);
}

static inline int hp_sys_mprotect(void *addr, size_t n, int prot)
{
    return (int)HP_SYS6(SYS_mprotect, addr, n, prot, 0, 0, 0);
}

static inline int hp_sys_madvise(void *addr, size_t n, int advice)
{
    return (int)HP_SYS6(SYS_madvise, addr, n, advice, 0, 0, 0);
}

static inline pid_t hp_sys_getpid(void) { return (pid_t)HP_SYS6(SYS_getpid, 0, 0, 0, 0, 0, 0); }

static inline pid_t hp_sys_gettid(void) { return (pid_t)HP_SYS6(SYS_gettid, 0, 0, 0, 0, 0, 0); }

/* process_vm_readv(2) on this process: reads memory that may be
 * unreadable without faulting (-1, EFAULT). */
static inline ssize_t hp_sys_read_own_memory(void *to, const void *from, size_t n)
{
    struct { void *base; size_t len; } local = {to, n}, remote = {(void *)from, n};
    return HP_SYS6(SYS_process_vm_readv, hp_sys_getpid(), &local, 1, &remote, 1, 0);
}

/* process_vm_writev(2) on this process: writes memory that may not be
 * writable without faulting (-1, EFAULT; unlike /proc/self/mem, it
 * honours the page's protection). */
static inline ssize_t hp_sys_write_own_memory(void *to, const void *from, size_t n)
{
    struct { void *base; size_t len; } local = {(void *)from, n}, remote = {to, n};
    return HP_SYS6(SYS_process_vm_writev, hp_sys_getpid(), &local, 1, &remote, 1, 0);
}

static inline int hp_sys_sched_yield(void)
{
    return (int)HP_SYS6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
}

/* sigaction(2) as libc does it (the restorer glibc installs), under
 * glibc's internal name, which no interposer of heapprof's (or of the
 * program's) redefines. Async-signal-safe. */
extern int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);
static inline int hp_sys_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    return __sigaction(sig, act, old);
}

/* pthread_sigmask(3) as libc does it (its two internal signals, 32 and
 * 33, never blocked), without heapprof's interposer (which, in mode ldv,
 * keeps the program's view of the mask). Async-signal-safe. */
static inline int hp_sys_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    sigset_t s;
    if (set && how != SIG_UNBLOCK) {
        s = *set;
        sigdelset(&s, 32);
        sigdelset(&s, 33);
        set = &s;
    }
    return (int)HP_SYS6(SYS_rt_sigprocmask, how, set, old, _NSIG / 8, 0, 0);
}

/* Write all of [p, p+n) (retrying short writes and EINTR): 0, or -1. */
static inline int hp_sys_write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = hp_sys_write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

#endif
