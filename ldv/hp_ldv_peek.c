/* hp_ldv_peek: setting up the /proc/self/mem descriptor through which the
 * fault handler's emulator reaches protected pages (the why and the rules:
 * hp_ldv_peek_sigsafe.c). Opened at start-up and in a forked child, moved
 * above the program's descriptors, close-on-exec; tried once on a page of
 * heapprof's own with no access at all, and not used if the kernel refuses
 * (a kernel booted with proc_mem.force_override=never, a container that
 * hides /proc). */
#include "ldv/hp_ldv_internal.h"
#include "core/hp_outfile.h"
#include "core/hp_sys.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

static int works(int fd)
{
    long p = hp_sys_raw6(SYS_mmap, 0, HP_PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p < 0 && p > -4096) return 0;
    uint64_t v = 0x1122334455667788u, back = 0;
    int ok = hp_ldv_poke(fd, (uintptr_t)p + 64, &v, 8) == 0 &&
             hp_ldv_peek(fd, (uintptr_t)p + 64, &back, 8) == 0 && back == v;
    hp_sys_raw6(SYS_munmap, p, HP_PAGE, 0, 0, 0, 0);
    return ok;
}

void hp_ldv_peek_open(void)
{
    int child = hp_ldv_peek_.token != NULL;
    if (child) {   /* a child: the parent's descriptor reaches the parent */
        if (hp_ldv_peek_.fd >= 0) hp_sys_close(hp_ldv_peek_.fd);
        hp_ldv_peek_.fd = -1;
    } else {
        hp_ldv_peek_.fd = -1;
        long p = hp_sys_raw6(SYS_mmap, 0, HP_PAGE, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p < 0 && p > -4096) return;
        if (hp_sys_raw6(SYS_madvise, p, HP_PAGE, MADV_WIPEONFORK, 0, 0, 0) != 0) {
            hp_sys_raw6(SYS_munmap, p, HP_PAGE, 0, 0, 0, 0);
            return;   /* (before Linux 4.14) */
        }
        hp_ldv_peek_.token = (uint64_t *)p;
    }
    *hp_ldv_peek_.token = 0;
    /* (A child: a peek or an opening of a parent's thread at the fork
     * never ends here.) */
    atomic_store(&hp_ldv_peek_.lock, 0);
    atomic_store(&hp_ldv_peek_.opening, 0);
    atomic_store(&hp_ldv_peek_.trusted, 0);   /* (until a pass checks the new one) */
    atomic_store(&hp_ldv_peek_.solo_gen, atomic_load(&hp_ldv_peek_.gen) ^ 1);   /* until a count */
    int fd = hp_sys_open("/proc/self/mem", O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) return;
    fd = hp_fd_move_high(fd);
    struct stat st;
    if (HP_SYS6(SYS_fstat, fd, &st, 0, 0, 0, 0) != 0 || !works(fd)) {
        hp_sys_close(fd);
        return;
    }
    hp_ldv_peek_.fd = fd;
    hp_ldv_peek_.dev = (uint64_t)st.st_dev;
    hp_ldv_peek_.ino = (uint64_t)st.st_ino;
    *hp_ldv_peek_.token = HP_LDV_PEEK_MAGIC;
    /* A forked child runs one thread: no need to wait for a count. */
    if (child) atomic_store(&hp_ldv_peek_.solo_gen, atomic_load(&hp_ldv_peek_.gen));
}
