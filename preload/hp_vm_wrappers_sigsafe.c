/* hp_vm_wrappers_sigsafe: heapprof's definitions of the C library's memory-map
 * calls (entry points, level 1): mmap, mmap64, munmap, mremap, mprotect,
 * pkey_mprotect, madvise, mlock, mlock2, munlock. Each makes its one
 * system call through ldv (ldv/hp_ldv.h: hp_ldv_vm_call), which in mode
 * ldv records the program's own page protection (so heapprof never opens
 * a page wider than the program left it, and never undoes it) and gives
 * heapprof's map entries way when the program's call fails for want of
 * them. In other modes the call is only made. Async-signal-safe, as the
 * C library's are (a program calls mprotect from its SIGSEGV handler).
 * Raw calls made with syscall() are seen by ldv's system-call dispatch. */
#undef _FILE_OFFSET_BITS   /* mmap and mmap64 are two symbols here */
#include "core/hp_sys.h"
#include "ldv/hp_ldv.h"

#include <errno.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define EXPORT __attribute__((visibility("default")))

static long call(long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
    return hp_sys_ret(hp_ldv_vm_call(nr, a0, a1, a2, a3, a4, a5));
}

static void *map(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (off & 4095) {   /* as the C library checks */
        errno = EINVAL;
        return MAP_FAILED;
    }
    return (void *)call(SYS_mmap, (long)addr, (long)len, prot, flags, fd, (long)off);
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return map(addr, len, prot, flags, fd, off);
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return map(addr, len, prot, flags, fd, off);
}

EXPORT int munmap(void *addr, size_t len)
{
    return (int)call(SYS_munmap, (long)addr, (long)len, 0, 0, 0, 0);
}

EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
    void *new_addr = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        new_addr = va_arg(ap, void *);
        va_end(ap);
    }
    return (void *)call(SYS_mremap, (long)old, (long)old_len, (long)new_len, flags,
                        (long)new_addr, 0);
}

EXPORT int mprotect(void *addr, size_t len, int prot)
{
    return (int)call(SYS_mprotect, (long)addr, (long)len, prot, 0, 0, 0);
}

EXPORT int pkey_mprotect(void *addr, size_t len, int prot, int pkey)
{
    return (int)call(SYS_pkey_mprotect, (long)addr, (long)len, prot, pkey, 0, 0);
}

EXPORT int madvise(void *addr, size_t len, int advice)
{
    return (int)call(SYS_madvise, (long)addr, (long)len, advice, 0, 0, 0);
}

EXPORT int mlock(const void *addr, size_t len)
{
    return (int)call(SYS_mlock, (long)addr, (long)len, 0, 0, 0, 0);
}

EXPORT int mlock2(const void *addr, size_t len, unsigned int flags)
{
    return (int)call(SYS_mlock2, (long)addr, (long)len, (long)flags, 0, 0, 0);
}

EXPORT int munlock(const void *addr, size_t len)
{
    return (int)call(SYS_munlock, (long)addr, (long)len, 0, 0, 0, 0);
}
