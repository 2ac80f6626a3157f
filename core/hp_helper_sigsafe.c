/* hp_helper_sigsafe: starting and joining the helper thread (see
 * hp_helper.h), with the world stopped: raw system calls only.
 *
 * hp_helper_clone is clone(2) by hand: the new thread starts on its own
 * stack with no frame to return to, so it calls the work from assembly and
 * ends with the thread-only exit(2) (not exit_group). It shares memory,
 * files, signal handlers and thread group with the caller
 * (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
 * CLONE_SYSVSEM), not its thread pointer's block (no CLONE_SETTLS: libc
 * is never entered on it), and the kernel clears tid_word when it is gone
 * (CLONE_CHILD_CLEARTID), which hp_helper_join waits for. Signals are
 * blocked around the clone so the new thread starts with all of them
 * blocked; the caller's mask is then put back. */
#include "core/hp_helper.h"
#include "core/hp_helper_internal.h"
#include "core/hp_sys.h"

#include <linux/futex.h>
#include <sched.h>
#include <signal.h>

/* long hp_helper_clone(unsigned long flags, void *stack_top, int *ctid,
 *                      void (*fn)(void *), void *arg): the new thread's id
 * to the caller (or -errno); the new thread runs fn(arg), then exit(0). */
long hp_helper_clone(unsigned long flags, void *stack_top, volatile int *ctid,
                     void (*fn)(void *), void *arg);
__asm__(".text\n"
        ".globl hp_helper_clone\n"
        ".hidden hp_helper_clone\n"
        ".type hp_helper_clone, @function\n"
        "hp_helper_clone:\n"
        "    push %r12\n"
        "    push %r13\n"
        "    mov %rcx, %r12\n"      /* fn (kept across the system call) */
        "    mov %r8, %r13\n"       /* arg */
        "    mov %rdx, %r10\n"      /* child_tid */
        "    xor %edx, %edx\n"      /* parent_tid */
        "    xor %r8d, %r8d\n"      /* tls */
        "    mov $56, %eax\n"       /* SYS_clone: flags, stack, ptid, ctid, tls */
        "    syscall\n"
        "    test %rax, %rax\n"
        "    jnz 1f\n"
        /* The new thread, on its own stack (16-byte aligned). */
        "    xor %ebp, %ebp\n"
        "    mov %r13, %rdi\n"
        "    call *%r12\n"
        "    mov $60, %eax\n"       /* SYS_exit: this thread only */
        "    xor %edi, %edi\n"
        "    syscall\n"
        "    hlt\n"
        "1:  pop %r13\n"
        "    pop %r12\n"
        "    ret\n"
        ".size hp_helper_clone, .-hp_helper_clone\n");

int hp_helper_available(void)
{
    return hp_helper_.stack != NULL && hp_helper_.cpus >= 2 && !hp_helper_.forbidden;
}

/* Note [A kept helper]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * A thread made for each piece of work cost its maker the clone and the
 * wait for a CPU to run it: 115 us a start on this 2-CPU VM (Inkscape's
 * export: seven starts, 0.8 ms, and 0.4-0.6 ms of joins, in a 31 ms
 * traversal). So the thread, once made, stays for the rest of the
 * traversal: it runs a piece of work when job_seq moves, sets done_seq,
 * and waits for the next, spinning a while, then asleep on job_seq's
 * futex; hp_helper_end (at the traversal's end, before the world
 * restarts) tells it to quit and waits until the kernel has cleared its
 * tid word. Work is given by one thread (the owner, collector's lock
 * held), one piece at a time.
 * The wait spins HP_HELPER_SPINS pauses (3 ms at this VM's 24 ns a pause)
 * before it sleeps: a helper woken from the futex came 0.1 ms late, and
 * the pieces after a census's serial steps (Tarjan, the sets: 2-3 ms on
 * Inkscape's largest) waited for it -- 0.41 ms of Inkscape's traversal
 * over the run in the labels' join, 0.09-0.13 with this spin (20,000
 * pauses before). The spin only ever runs while the world is stopped. */
#define HP_HELPER_SPINS 125000

static void futex_wake(volatile void *addr)
{
    hp_sys_raw6(SYS_futex, (long)addr, FUTEX_WAKE, 1, 0, 0, 0);
}

static void helper_loop(void *unused)
{
    (void)unused;
    unsigned seen = 0;
    for (;;) {
        unsigned s, spins = 0;
        while ((s = __atomic_load_n(&hp_helper_.job_seq, __ATOMIC_ACQUIRE)) == seen) {
            if (++spins < HP_HELPER_SPINS) {
                __builtin_ia32_pause();
                continue;
            }
            hp_sys_raw6(SYS_futex, (long)&hp_helper_.job_seq, FUTEX_WAIT, (long)seen, 0, 0, 0);
        }
        seen = s;
        if (__atomic_load_n(&hp_helper_.quit, __ATOMIC_ACQUIRE)) return;
        hp_helper_.fn(hp_helper_.arg);
        __atomic_store_n(&hp_helper_.done_seq, s, __ATOMIC_RELEASE);
        futex_wake(&hp_helper_.done_seq);
    }
}

/* Give the waiting thread its next piece of work. */
static void give(void (*fn)(void *), void *arg, int quit)
{
    hp_helper_.fn = fn;
    hp_helper_.arg = arg;
    __atomic_store_n(&hp_helper_.quit, quit, __ATOMIC_RELEASE);
    __atomic_add_fetch(&hp_helper_.job_seq, 1, __ATOMIC_RELEASE);
    futex_wake(&hp_helper_.job_seq);
}

/* Make the thread, waiting for its first piece (job_seq at 0) or with it
 * (fn given: job_seq at 1, which it finds moved). 0, or -1. */
static int make(void (*fn)(void *), void *arg)
{
    hp_helper_.fn = fn;
    hp_helper_.arg = arg;
    hp_helper_.quit = 0;
    hp_helper_.job_seq = fn != NULL;
    hp_helper_.done_seq = 0;
    hp_helper_.tid_word = 1;
    uint64_t all = ~(uint64_t)0, old = 0;
    if (hp_sys_raw6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, (long)&old, 8, 0, 0) != 0)
        return -1;
    unsigned long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
                          CLONE_SYSVSEM | CLONE_CHILD_CLEARTID;
    long r = hp_helper_clone(flags, hp_helper_.stack_top, &hp_helper_.tid_word, helper_loop, NULL);
    hp_sys_raw6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8, 0, 0);
    if (r < 0) {
        hp_helper_.tid_word = 0;
        return -1;
    }
    hp_helper_.alive = 1;
    hp_helper_.running = fn != NULL;
    return 0;
}

int hp_helper_start(void (*fn)(void *), void *arg)
{
    if (!hp_helper_available() || hp_helper_.running) return -1;
    if (hp_helper_.alive) {
        give(fn, arg, 0);
        hp_helper_.running = 1;
        return 0;
    }
    return make(fn, arg);
}

/* Note [A warm helper]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * Made at a traversal's start, the thread's 115 us of making and waiting
 * for a CPU pass while the index is built, and the walk's first piece
 * finds it running. */
int hp_helper_warm(void)
{
    if (!hp_helper_available() || hp_helper_.alive) return hp_helper_.alive ? 0 : -1;
    return make(NULL, NULL);
}

int hp_helper_ready(void) { return hp_helper_.alive && !hp_helper_.running; }

void hp_helper_both(void (*fn)(void *), void *mine, void *theirs)
{
    int two = hp_helper_start(fn, theirs) == 0;
    fn(mine);
    if (two) hp_helper_join();
    else fn(theirs);
}

/* Note [Work in chunks]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * Split in halves, a pass waits for the slower half: the unseen pass's
 * later records (the youngest, more of them unreached, each asking the
 * collector's mark bit) took longer than its earlier ones, 0.26 ms of
 * Inkscape's traversal over the run in its join. In chunks taken from a
 * shared counter, whichever thread is free takes the next. */
typedef struct chunks {
    void (*fn)(void *ctx, size_t from, size_t to, int who);
    void *ctx;
    size_t n, chunk;
    size_t next;   /* the next chunk's start (atomic) */
} chunks;

static void chunks_run(chunks *c, int who)
{
    for (;;) {
        size_t lo = __atomic_fetch_add(&c->next, c->chunk, __ATOMIC_RELAXED);
        if (lo >= c->n) return;
        c->fn(c->ctx, lo, c->n - lo > c->chunk ? lo + c->chunk : c->n, who);
    }
}

static void chunks_on_helper(void *arg) { chunks_run(arg, 1); }

void hp_helper_chunks(void (*fn)(void *ctx, size_t from, size_t to, int who), void *ctx,
                      size_t n, size_t chunk)
{
    chunks c = {fn, ctx, n, chunk ? chunk : 1, 0};
    int two = hp_helper_start(chunks_on_helper, &c) == 0;
    chunks_run(&c, 0);
    if (two) hp_helper_join();
}

void hp_helper_join(void)
{
    if (!hp_helper_.running) return;
    unsigned want = hp_helper_.job_seq, spins = 0;
    for (;;) {
        unsigned d = __atomic_load_n(&hp_helper_.done_seq, __ATOMIC_ACQUIRE);
        if (d == want) break;
        if (++spins < HP_HELPER_SPINS) {
            __builtin_ia32_pause();
            continue;
        }
        hp_sys_raw6(SYS_futex, (long)&hp_helper_.done_seq, FUTEX_WAIT, (long)d, 0, 0, 0);
    }
    hp_helper_.running = 0;
}

void hp_helper_end(void)
{
    if (!hp_helper_.alive) return;
    hp_helper_join();
    give(NULL, NULL, 1);
    for (;;) {
        int v = __atomic_load_n(&hp_helper_.tid_word, __ATOMIC_ACQUIRE);
        if (v == 0) break;
        /* (the kernel's wake at the thread's end is a shared futex's) */
        hp_sys_raw6(SYS_futex, (long)&hp_helper_.tid_word, FUTEX_WAIT, v, 0, 0, 0);
    }
    hp_helper_.alive = 0;
}
