/* hp_ldv_peek_sigsafe: reading and writing a protected heap page without
 * opening it, for the instruction emulator (hp_ldv_emul_sigsafe.c).
 *
 * /proc/self/mem reaches pages whatever their protection (the kernel
 * accesses them on the process's behalf, as a debugger's peek and poke
 * do), so an emulated load or store costs one pread or pwrite instead of
 * an mprotect that opens the page and one that protects it again -- each
 * of which splits or merges a map entry and flushes the TLB -- and the page
 * is never open for another thread to use unseen.
 *
 * The descriptor is used only while it is certainly this process's own
 * /proc/self/mem (hp_ldv_peek.c opened it):
 *   - a fork's child inherits the descriptor, which still reaches the
 *     parent's memory: the token page is MADV_WIPEONFORK, so in any child
 *     (fork, vfork excepted, or a raw clone) it reads zero and the
 *     descriptor is not used;
 *   - the program may close the number and get another file there: the
 *     descriptor's identity (device, inode) is checked before each use;
 *   - threads: a load or store through the kernel is a copy that another
 *     CPU may see in pieces (or, for a store, done twice), unlike the one
 *     instruction it stands for; so the descriptor is used only while the
 *     program runs one thread. libgc's marker threads do not count: they
 *     touch the heap only while a collection runs, when every page is
 *     open. Each protect pass counts the threads (hp_ldv_peek_recheck);
 *     a thread's creation (pthread_create, or a raw clone seen by system
 *     call dispatch) stops the use at once, until the next count.
 * Whenever the descriptor will not serve, the caller opens the page as
 * before. Async-signal-safe throughout. */
#include "ldv/hp_ldv_internal.h"
#include "core/hp_sys.h"

#include <fcntl.h>
#include <sys/stat.h>

hp_ldv_peek_state hp_ldv_peek_;

int hp_ldv_peek_fd(void)
{
    const volatile uint64_t *tok = hp_ldv_peek_.token;
    if (!tok || *tok != HP_LDV_PEEK_MAGIC) return -1;   /* not set up, or a child */
    if (atomic_load(&hp_ldv_peek_.solo_gen) != atomic_load(&hp_ldv_peek_.gen)) return -1;
    int fd = hp_ldv_peek_.fd;
    struct stat st;
    if (HP_SYS6(SYS_fstat, fd, &st, 0, 0, 0, 0) != 0 ||
        (uint64_t)st.st_dev != hp_ldv_peek_.dev || (uint64_t)st.st_ino != hp_ldv_peek_.ino)
        return -1;
    return fd;
}

int hp_ldv_peek_solo(void)
{
    return atomic_load(&hp_ldv_peek_.solo_gen) == atomic_load(&hp_ldv_peek_.gen);
}

void hp_ldv_peek_creating(int phase)
{
    atomic_fetch_add(&hp_ldv_peek_.gen, phase == 2 ? 2 : 1);
    atomic_store(&hp_ldv_peek_.created_pass, atomic_load(&hp_ldv_peek_.passes) + 1);
}

int hp_ldv_peek_created_lately(void)
{
    uint64_t c = atomic_load(&hp_ldv_peek_.created_pass);
    return c && c >= atomic_load(&hp_ldv_peek_.passes);
}

/* Threads of this process, from /proc/self/stat (field 20), or -1. */
static long count_threads(void)
{
    char b[1024];
    int fd = hp_sys_open("/proc/self/stat", O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return -1;
    long n = hp_sys_read(fd, b, sizeof b - 1);
    hp_sys_close(fd);
    if (n <= 0) return -1;
    b[n] = 0;
    /* After the command name's closing parenthesis: fields 3, 4, ... */
    long i = n - 1;
    while (i > 0 && b[i] != ')') i--;
    if (i <= 0) return -1;
    int field = 2;
    long v = -1;
    for (long k = i + 1; k < n; k++) {
        if (b[k] == ' ') {
            if (++field == 20) {
                v = 0;
                for (long j = k + 1; j < n && b[j] >= '0' && b[j] <= '9'; j++) v = v * 10 + (b[j] - '0');
                return v;
            }
        }
    }
    return -1;
}

void hp_ldv_peek_recheck(void)
{
    atomic_fetch_add(&hp_ldv_peek_.passes, 1);
    if (hp_ldv_peek_.fd < 0 || !hp_ldv_peek_.token) return;
    uint64_t g1 = atomic_load(&hp_ldv_peek_.gen);
    long n = count_threads();
    long markers = hp_ldv_peek_.gc_get_parallel ? hp_ldv_peek_.gc_get_parallel() : 0;
    uint64_t g2 = atomic_load(&hp_ldv_peek_.gen);
    if (n >= 1 && n - markers <= 1 && g1 == g2 && !(g1 & 1))
        atomic_store(&hp_ldv_peek_.solo_gen, g1);
    else
        atomic_store(&hp_ldv_peek_.solo_gen, g1 ^ 1);   /* never equal to gen until the next count */
}

int hp_ldv_peek(int fd, uintptr_t addr, void *buf, size_t n)
{
    long r = hp_sys_raw6(SYS_pread64, fd, (long)buf, (long)n, (long)addr, 0, 0);
    return r == (long)n ? 0 : -1;
}

int hp_ldv_poke(int fd, uintptr_t addr, const void *buf, size_t n)
{
    long r = hp_sys_raw6(SYS_pwrite64, fd, (long)buf, (long)n, (long)addr, 0, 0);
    return r == (long)n ? 0 : -1;
}
