/* hp_outfile_sigsafe: opening heapprof's output files safely (see
 * hp_outfile.h). Raw system calls (core/hp_sys.h): async-signal-safe. */
#include "core/hp_outfile.h"
#include "core/hp_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>

static const char *why_of(int err)
{
    switch (err) {
    case ELOOP: return "it is a symbolic link (heapprof never follows one: remove it)";
    case ENXIO: return "it is not a regular file (a FIFO or a socket: remove it)";
    case EACCES: return "Permission denied";
    case EROFS: return "Read-only file system";
    case ENOSPC: return "No space left on device";
    case EDQUOT: return "Disk quota exceeded";
    case ENOENT: return "No such file or directory";
    case ENOTDIR: return "a part of the path is not a directory";
    case EMFILE: return "Too many open files (the process's limit, RLIMIT_NOFILE)";
    case ENFILE: return "Too many open files in system";
    case ENAMETOOLONG: return "File name too long";
    case EISDIR: return "Is a directory";
    case EFBIG: return "File too large";
    case EIO: return "Input/output error";
    default: return "the system refused it";
    }
}

/* Move fd out of the program's way: the lowest free descriptor 64 below
 * the soft limit (a program numbering its own from 3 up never meets it). */
int hp_fd_move_high(int fd)
{
    struct rlimit rl;
    if (HP_SYS6(SYS_getrlimit, RLIMIT_NOFILE, &rl, 0, 0, 0, 0) != 0) return fd;
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 1 << 20) rl.rlim_cur = 1 << 20;
    if (rl.rlim_cur < 128) return fd;
    long hi = HP_SYS6(SYS_fcntl, fd, F_DUPFD_CLOEXEC, rl.rlim_cur - 64, 0, 0, 0);
    if (hi < 0) return fd;
    hp_sys_close(fd);
    return (int)hi;
}

/* Open with the safe flags and check what was opened. */
static int open_checked(const char *path, int flags, const char **why, struct stat *st)
{
    int fd = hp_sys_open(path, flags | O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0) {
        *why = why_of(errno);
        return -1;
    }
    if (HP_SYS6(SYS_fstat, fd, st, 0, 0, 0, 0) != 0) {
        *why = why_of(errno);
        hp_sys_close(fd);
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        *why = "it is not a regular file (remove it)";
        hp_sys_close(fd);
        return -1;
    }
    if (st->st_uid != (uid_t)HP_SYS6(SYS_geteuid, 0, 0, 0, 0, 0, 0)) {
        *why = "it belongs to another user (remove it, or choose another place with "
               "HEAPPROF=...,out=PATH)";
        hp_sys_close(fd);
        return -1;
    }
    return hp_fd_move_high(fd);
}

int hp_outfile_create(const char *path, hp_outfile *f, const char **why)
{
    struct stat st;
    /* No O_TRUNC at open: a file is emptied only once known to be ours. */
    int fd = open_checked(path, O_CREAT, why, &st);
    if (fd < 0) return -1;
    if (HP_SYS6(SYS_ftruncate, fd, 0, 0, 0, 0, 0) != 0) {
        *why = why_of(errno);
        hp_sys_close(fd);
        return -1;
    }
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    f->made = 1;
    return fd;
}

int hp_outfile_claim(const char *path, const char **why)
{
    struct stat st;
    int fd = open_checked(path, O_CREAT, why, &st);
    if (fd < 0) return -1;
    if (HP_SYS6(SYS_flock, fd, LOCK_EX | LOCK_NB, 0, 0, 0, 0) != 0) {
        int err = errno;
        hp_sys_close(fd);
        if (err == EWOULDBLOCK) return -2;
        *why = why_of(err);
        return -1;
    }
    return fd;
}

int hp_outfile_append(const char *path, const hp_outfile *f, const char **why)
{
    struct stat st;
    if (!f->made) {
        *why = "it was never created";
        return -1;
    }
    int fd = open_checked(path, O_APPEND, why, &st);
    if (fd < 0) return -1;
    if (st.st_dev != f->dev || st.st_ino != f->ino) {
        *why = "it was replaced or removed while the program ran";
        hp_sys_close(fd);
        return -1;
    }
    return fd;
}

int64_t hp_outfile_size(int fd)
{
    struct stat st;
    if (HP_SYS6(SYS_fstat, fd, &st, 0, 0, 0, 0) != 0) return -1;
    return (int64_t)st.st_size;
}

void hp_outfile_cut(int fd, int64_t size)
{
    if (size >= 0) HP_SYS6(SYS_ftruncate, fd, size, 0, 0, 0, 0);
}
