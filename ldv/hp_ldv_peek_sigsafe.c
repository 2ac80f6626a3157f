/* hp_ldv_peek_sigsafe: reading and writing a protected heap page without
 * opening it, for the instruction emulator (hp_ldv_emul_sigsafe.c).
 *
 * /proc/self/mem reaches pages whatever their protection (the kernel
 * accesses them on the process's behalf, as a debugger's peek and poke
 * do), so an emulated load or store costs one pread or pwrite instead of
 * an mprotect that opens the page and one that protects it again -- each
 * of which splits or merges a map entry and flushes the TLB of every CPU
 * the process runs on -- and the page is never open for another thread to
 * use unseen.
 *
 * The descriptor is used only while it is certainly this process's own
 * /proc/self/mem (hp_ldv_peek.c opened it):
 *   - a fork's child inherits the descriptor, which still reaches the
 *     parent's memory: the token page is MADV_WIPEONFORK, so in any child
 *     (fork, vfork excepted, or a raw clone) it reads zero and the
 *     descriptor is not used;
 *   - the program may close the number and get another file there: the
 *     descriptor's identity (device, inode) is checked before each use.
 *
 * Threads. A load or store through the kernel is a copy, which another
 * CPU may see in pieces; the instruction it stands for is one access. The
 * copy keeps that property when no other access to the same bytes can
 * overlap it: a page heapprof holds protected is reached only through the
 * fault handlers, so two rules suffice.
 *   1. Peeks are serialised: each holds `lock` (a spin lock taken only in
 *      a fault handler, where every asynchronous signal is blocked: its
 *      holder is never stopped by the collector and never waits).
 *   2. Nothing makes a heap page accessible while a peek is in flight:
 *      every opening -- heapprof's (hp_ldv_open_span: a fault's page, a
 *      system call's buffer, a collection's start, giving way) and the
 *      program's own memory-map calls (hp_ldv_vm_call) -- first raises
 *      `opening`, then waits for the lock to be free, and lowers `opening`
 *      after its call. A peek takes the lock, then gives up if `opening`
 *      is raised; otherwise, when other threads may run, it checks that
 *      the page is still protected now (process_vm_readv of one byte
 *      fails on a protected page: a page opened before the lock was taken
 *      is seen so). Both sides use sequentially consistent atomics: either
 *      the opener sees the lock held and waits, or the peek sees `opening`
 *      raised or the page open. A peek that gives up lets the handler open
 *      the page for the instruction, as without the descriptor.
 * While the program runs one thread (libgc's markers aside: they touch the
 * heap only while a collection has every page open), no other thread can
 * open a page during the handler, and the check of rule 2 is skipped.
 * Async-signal-safe throughout. */
#include "ldv/hp_ldv_internal.h"
#include "core/hp_sys.h"

#include <fcntl.h>
#include <sys/stat.h>

hp_ldv_peek_state hp_ldv_peek_;

/* Note [Trusting the descriptor]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The descriptor's identity (fstat: device and inode) was checked before
 * every fault's use of it: a system call, 1.2 us on the paravirtual VM of
 * 2026-11-29, a twentieth of a fault there. It need not be checked again
 * while nothing can have closed or replaced it since the last check. A
 * number changes what it stands for only once it is freed -- close,
 * close_range, dup2 or dup3 onto it, or io_uring's close done by the
 * kernel on the program's behalf -- and so the last check stands
 * ("trusted") while:
 *   - the program runs one thread (hp_ldv_peek_solo: counted at each pass
 *     from the kernel's own figure, and false from any thread creation
 *     until the next count), libgc's markers aside (they never close a
 *     descriptor);
 *   - system call dispatch is armed, so that each system call of that
 *     thread made outside heapprof's text is seen before the kernel runs
 *     it (hp_ldv_sud_sigsafe.c), and none of them was of the kinds above
 *     (each drops the trust before it runs: hp_ldv_peek_distrust); a
 *     thread let through undispatched (around exec*, a stepped clone or
 *     vfork) drops it too; io_uring drops it for good (a kernel thread may
 *     close a descriptor for it with no system call of the program's),
 *     and so does a child process that shares the descriptor table
 *     (CLONE_FILES without CLONE_VM: its calls are dispatched in its own
 *     memory), an int $0x80 call (i386 numbers), and a thread whose
 *     dispatch could not be turned on;
 *   - heapprof's own text, whose calls are not dispatched, never closes
 *     the descriptor.
 * The check is made again at each protect pass (hp_ldv_peek_recheck),
 * which restores the trust if the thread count and the identity agree;
 * otherwise every use checks, as before. */
static int identity_ok(int fd)
{
    struct stat st;
    atomic_fetch_add_explicit(&hp_ldv_peek_.identity_checks, 1, memory_order_relaxed);
    return HP_SYS6(SYS_fstat, fd, &st, 0, 0, 0, 0) == 0 &&
           (uint64_t)st.st_dev == hp_ldv_peek_.dev && (uint64_t)st.st_ino == hp_ldv_peek_.ino;
}

int hp_ldv_peek_fd(void)
{
    const volatile uint64_t *tok = hp_ldv_peek_.token;
    if (!tok || *tok != HP_LDV_PEEK_MAGIC) return -1;   /* not set up, or a child */
    int fd = hp_ldv_peek_.fd;
    if (atomic_load(&hp_ldv_peek_.trusted) && atomic_load(&hp_ldv_peek_.dispatched) &&
        hp_ldv_peek_solo())
        return fd;
    return identity_ok(fd) ? fd : -1;
}

void hp_ldv_peek_dispatch(int on) { atomic_store(&hp_ldv_peek_.dispatched, on); }

void hp_ldv_peek_distrust(int forever)
{
    if (forever) atomic_store(&hp_ldv_peek_.never, 1);
    atomic_store(&hp_ldv_peek_.trusted, 0);
}

int hp_ldv_peek_begin(uintptr_t addr)
{
    unsigned spins = 0;
    int free_ = 0;
    while (!atomic_compare_exchange_weak(&hp_ldv_peek_.lock, &free_, 1)) {
        free_ = 0;
        hp_ldv_pause(&spins);   /* another thread's peek: one system call */
    }
    if (atomic_load(&hp_ldv_peek_.opening) == 0) {
        if (hp_ldv_peek_solo()) return 1;
        unsigned char b;
        if (hp_sys_read_own_memory(&b, (const void *)addr, 1) != 1) {
            atomic_fetch_add_explicit(&hp_ldv_peek_.shared_peeks, 1, memory_order_relaxed);
            return 1;   /* protected, and stays so until the lock is free */
        }
    }
    atomic_store(&hp_ldv_peek_.lock, 0);
    return 0;
}

void hp_ldv_peek_end(void) { atomic_store(&hp_ldv_peek_.lock, 0); }

void hp_ldv_opening_begin(void)
{
    atomic_fetch_add(&hp_ldv_peek_.opening, 1);
    /* (In a fork's child the token reads zero and no peek is made: a lock
     * held by a parent's thread at the fork is never given back there.) */
    const volatile uint64_t *tok = hp_ldv_peek_.token;
    unsigned spins = 0;
    while (atomic_load(&hp_ldv_peek_.lock) && tok && *tok == HP_LDV_PEEK_MAGIC)
        hp_ldv_pause(&spins);
}

void hp_ldv_opening_end(void) { atomic_fetch_sub(&hp_ldv_peek_.opening, 1); }

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
    int solo = n >= 1 && n - markers <= 1 && g1 == g2 && !(g1 & 1);
    /* (Note [Trusting the descriptor]: the trust first, while solo_gen
     * still holds the last count's answer.) */
    atomic_store(&hp_ldv_peek_.trusted, 0);
    atomic_store(&hp_ldv_peek_.solo_gen, solo ? g1 : g1 ^ 1);   /* (never equal to gen until
                                                                    the next count) */
    if (solo && !atomic_load(&hp_ldv_peek_.never) && identity_ok(hp_ldv_peek_.fd))
        atomic_store(&hp_ldv_peek_.trusted, 1);
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
