/* hp_ldv_altstack_sigsafe: the program's alternate signal stack, kept as
 * the program's view while mode ldv's handlers are installed; the kernel
 * is given a stand-in of heapprof's.
 *
 * heapprof's SIGSEGV and SIGTRAP handlers take SA_ONSTACK, so that a fault
 * the program's own handler must see on its alternate stack (a stack
 * overflow: nothing else can run then) reaches it there. But in mode ldv
 * these signals come thousands of times a second, for heapprof, and the
 * alternate stack is the program's, sized and placed for its own rare
 * handler. Asymptote (through libsigsegv) gives a local array of a
 * function that has returned: memory that the frames of the functions it
 * calls next reuse. Each of heapprof's faults wrote its signal frame over
 * live frames of the program, which died ("runtime: Segmentation fault",
 * SIGABRT); without heapprof no signal ever ran there. A small alternate
 * stack (MINSIGSTKSZ) could also be too small for heapprof's handler under
 * a program's handler that faults on a protected page.
 *
 * So, while ldv's handlers are installed, when a thread asks for an
 * alternate stack (or had one when they were installed), the kernel is
 * given one of heapprof's own: a private mapping of the program's size
 * plus HP_ALT_EXTRA, with an inaccessible guard page below it. What the
 * program asked for is kept per thread and is what sigaltstack tells it
 * (flags SS_ONSTACK while the thread runs on the stand-in, as the kernel
 * says). The program's handlers, chained to from heapprof's, run on the
 * stand-in: the same signals, handlers and masks, on a stack at least the
 * size the program gave. Threads that never ask have none, as before.
 *
 * Invariants (per thread): `virt` says the kernel holds this thread's
 * stand-in for `prog`; a stand-in is never unmapped while it is the
 * kernel's (nor while the thread runs on it: changing the stack then fails
 * with EPERM, as the kernel would answer); a thread's mapping is kept for
 * reuse and unmapped when the thread ends (hp_ldv_altstack_thread_end, from
 * hp_ldv_trap.c's thread-exit key) after the kernel is told to drop it.
 *
 * Async-signal-safe: raw system calls and this thread's own state. */
#include "core/hp_sys.h"
#include "ldv/hp_ldv_internal.h"

#include <errno.h>
#include <signal.h>
#include <sys/mman.h>

/* Room for heapprof's handler (and the emulator) below the program's own
 * handler's frames. */
#define HP_ALT_EXTRA ((size_t)64 << 10)
#define HP_ALT_GUARD ((size_t)4096)
#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31)   /* linux/signal.h; glibc 2.36 does not say it */
#endif

typedef struct alt_tls {
    stack_t prog;        /* what the program asked for (when virt) */
    int virt;            /* the kernel holds the stand-in for prog */
    int registered;      /* the thread-exit hook knows this thread */
    char *map;           /* the stand-in's mapping (guard page first), or NULL */
    size_t map_size;
} alt_tls;
static __thread alt_tls at __attribute__((tls_model("initial-exec")));

static int kernel_altstack(const stack_t *ss, stack_t *old)
{
    return (int)HP_SYS6(SYS_sigaltstack, ss, old, 0, 0, 0, 0);
}

static void kernel_altstack_off(void)
{
    stack_t off = {.ss_sp = NULL, .ss_flags = SS_DISABLE, .ss_size = 0};
    kernel_altstack(&off, NULL);
}

/* Give the kernel a stand-in for `want` (the program's): 0, or -1 (out of
 * memory: then the kernel keeps what it has). The thread must not be
 * running on the kernel's alternate stack. */
static int stand_in(const stack_t *want)
{
    size_t need = (want->ss_size + HP_ALT_EXTRA + HP_ALT_GUARD + 4095) & ~(size_t)4095;
    if (!at.map || at.map_size < need) {
        long p = hp_sys_raw6(SYS_mmap, 0, (long)need, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        if (p < 0 && p > -4096) return -1;
        hp_sys_raw6(SYS_mprotect, p, (long)HP_ALT_GUARD, PROT_NONE, 0, 0, 0);
        if (at.map) {
            kernel_altstack_off();   /* (the old mapping stops being the kernel's first) */
            hp_sys_raw6(SYS_munmap, (long)at.map, (long)at.map_size, 0, 0, 0, 0);
        }
        at.map = (char *)p;
        at.map_size = need;
    }
    stack_t mine = {.ss_sp = at.map + HP_ALT_GUARD,
                    .ss_flags = want->ss_flags & SS_AUTODISARM,
                    .ss_size = at.map_size - HP_ALT_GUARD};
    return kernel_altstack(&mine, NULL) == 0 ? 0 : -1;
}

int hp_ldv_altstack(const stack_t *ss, stack_t *old, int *register_thread)
{
    *register_thread = 0;
    stack_t k;
    if (!hp_ldv_trap_.installed || kernel_altstack(NULL, &k) != 0)
        return kernel_altstack(ss, old);   /* not mode ldv: the call itself */
    int on = (k.ss_flags & SS_ONSTACK) != 0;
    stack_t told = k;   /* (no stand-in: the kernel's own, none or set before ldv) */
    if (at.virt) {
        told = at.prog;
        told.ss_flags = (at.prog.ss_flags & SS_AUTODISARM) | (on ? SS_ONSTACK : 0);
    }
    if (ss) {
        if (on) {   /* as the kernel answers a change made on the stack */
            errno = EPERM;
            return -1;
        }
        /* The kernel judges the request (flags, size) as it would without
         * heapprof, and holds it until the stand-in replaces it. */
        if (kernel_altstack(ss, NULL) != 0) return -1;
        if (ss->ss_flags & SS_DISABLE) {
            at.virt = 0;
        } else if (stand_in(ss) == 0) {
            at.prog = *ss;
            at.prog.ss_flags &= SS_AUTODISARM;
            at.virt = 1;
            if (!at.registered) {
                at.registered = 1;
                *register_thread = 1;
            }
        } else {
            at.virt = 0;   /* (out of memory: the program's own stack stays) */
        }
    }
    if (old) *old = told;
    return 0;
}

void hp_ldv_altstack_adopt(void)
{
    stack_t k;
    if (at.virt || kernel_altstack(NULL, &k) != 0) return;
    if ((k.ss_flags & (SS_DISABLE | SS_ONSTACK)) || !k.ss_size) return;
    if (stand_in(&k) == 0) {
        at.prog = k;
        at.prog.ss_flags &= SS_AUTODISARM;
        at.virt = 1;
    }
}

void hp_ldv_altstack_thread_end(void)
{
    if (!at.map) return;
    stack_t k;
    if (kernel_altstack(NULL, &k) != 0 || (k.ss_flags & SS_ONSTACK)) return;
    if (at.virt) {
        kernel_altstack_off();
        at.virt = 0;
    }
    hp_sys_raw6(SYS_munmap, (long)at.map, (long)at.map_size, 0, 0, 0, 0);
    at.map = NULL;
    at.map_size = 0;
}
