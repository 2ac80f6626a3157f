/* ls_burst: what ldv's bursts (ldv/hp_ldv_burst_sigsafe.c) emulate after a
 * fault must be what the CPU would have done. Under ldv=precise and the
 * default policy, after a collection protects them, the program
 *   - walks a tree recursively (calls, pushes, returns: the handler's own
 *     frames lie below on the same stack) counting visits in each node (a
 *     read-modify-write of protected memory: it must land exactly once);
 *   - has a callee fill its caller's stack array from protected objects;
 *   - copies 16-byte pairs between protected objects (SSE moves);
 *   - dispatches through a table of function pointers and a switch;
 *   - writes, inside a walk, to a heap page it made read-only itself (its
 *     own handler must see each write, at the instruction that made it);
 *   - below the faulting frame, stores an XMM register's value, loads that
 *     register from a protected object, then runs an instruction the
 *     emulator declines: the burst goes back to its last safe point, XMM
 *     registers too, and the CPU stores the register's first value;
 * and prints what it computed. Each works on objects of its own, which
 * the round's collection has just protected, so that each starts with a
 * fault and a burst (the .prof must show bursts). Built -O2, so the code
 * is the compiler's. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <gc/gc.h>

typedef struct node { struct node *l, *r; long v, visits; } node;
typedef struct pair { long a, b; } __attribute__((aligned(16))) pair;

static node *make(long v, int d)
{
    node *n = GC_MALLOC(sizeof *n);
    n->v = v;
    if (d) {
        n->l = make(2 * v, d - 1);
        n->r = make(2 * v + 1, d - 1);
    }
    return n;
}

static __attribute__((noinline)) long walk(node *n)
{
    n->visits++;
    return n->l ? n->v + walk(n->l) - 3 * walk(n->r) : n->v;
}

static __attribute__((noinline)) void fill(node *n, long *out, int k)
{
    for (int i = 0; i < k && n; i++, n = n->l) out[i] = n->v ^ n->visits;
}

static long f_add(long x) { return x + 7; }
static long f_mul(long x) { return x * 3; }
static long f_neg(long x) { return -x; }
static long (*const table[3])(long) = {f_add, f_mul, f_neg};

static __attribute__((noinline)) long dispatch(node *n, int i)
{
    switch ((n->v + i) % 5) {
    case 0: return table[0](n->v);
    case 1: return table[1](n->visits);
    case 2: return table[2](n->v - n->visits);
    case 3: return n->v << 3;
    default: return n->v >> 1;
    }
}

static pair xmm_seen;   /* what the XMM case stored */
static pair *xq;        /* (kept: the XMM case's page's second object) */

/* The XMM case: xmm5 = k; a read of *p (the fault: the burst starts
 * here), a call (below the fault's frame: no safe point), a store of
 * xmm5, a load of xmm5 from *p, rdtsc (declined), a return. */
static __attribute__((noinline)) void xmm_case(const pair *p, long k)
{
    pair seen;   /* (on the stack: a burst writes the stack even while other threads run) */
    __asm__ volatile("sub $128, %%rsp\n\t"     /* (the call must not land in a red zone) */
                     "movq %[k], %%xmm5\n\t"
                     "mov (%[p]), %%rax\n\t"
                     "call 1f\n\t"
                     "jmp 2f\n"
                     "1:\n\t"
                     "movdqu %%xmm5, (%[out])\n\t"
                     "movdqu (%[p]), %%xmm5\n\t"
                     "rdtsc\n\t"
                     "ret\n"
                     "2:\n\t"
                     "add $128, %%rsp"
                     :
                     : [p] "r"(p), [k] "r"(k), [out] "r"(&seen)
                     : "rax", "rdx", "xmm5", "memory", "cc");
    xmm_seen = seen;
}

static unsigned char *ro;             /* a heap page the program made read-only */
static volatile int ro_writes;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)uc;
    if ((unsigned char *)si->si_addr >= ro && (unsigned char *)si->si_addr < ro + 4096) {
        ro_writes++;
        mprotect(ro, 4096, PROT_READ | PROT_WRITE);
        return;
    }
    static const char m[] = "ls_burst: unexpected SIGSEGV\n";
    write(2, m, sizeof m - 1);
    _exit(99);
}

static __attribute__((noinline)) long mark_ro(node *n, int d)
{
    if (!n->l || d == 0) return n->v;
    ro[(n->v * 8) & 4095] += 1;
    return mark_ro(n->l, d - 1) + mark_ro(n->r, d - 1);
}

int main(void)
{
    GC_INIT();
    node *t = make(1, 12), *tb = make(5, 5), *tc = make(9, 8), *td = make(3, 8);
    pair *pairs = GC_MALLOC(512 * sizeof(pair));
    for (int i = 0; i < 512; i++) pairs[i].a = i, pairs[i].b = -i;
    /* (A size of its own, and a second object on its page, never read: a
     * page whose objects are all used is opened at its first fault, and
     * then no burst follows.) */
    pair *xp = GC_MALLOC(200);
    xq = GC_MALLOC(200);
    xp->a = 1111, xp->b = 2222;
    xq->a = 3333;
    unsigned char *raw = GC_MALLOC_ATOMIC(3 * 4096);
    ro = (unsigned char *)(((uintptr_t)raw + 4095) & ~(uintptr_t)4095);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
    if (((uintptr_t)xp ^ (uintptr_t)xq) >> 12) {
        printf("ls_burst: the XMM case's objects are on two pages\n");
        return 1;
    }
    for (int round = 0; round < 4; round++) {
        mprotect(ro, 4096, PROT_READ);
        GC_gcollect();   /* under ldv: every object's page is protected now */
        xmm_case(xp, 777 + round);
        long s = walk(t);
        long local[12];
        fill(tb, local, 12);
        long ls = 0;
        for (int i = 0; i < 12; i++) ls = ls * 31 + local[i];
        for (int i = 0; i + 1 < 512; i += 2) {
            pair x = pairs[i];
            pairs[i] = pairs[i + 1];
            pairs[i + 1] = x;
        }
        long ds = 0;
        node *n = tc;
        for (int i = 0; i < 200; i++, n = (i & 1) ? n->l : n->r) {
            if (!n) n = tc;
            ds += dispatch(n, i);
        }
        ro_writes = 0;
        long ms = mark_ro(td, 6);
        mprotect(ro, 4096, PROT_READ | PROT_WRITE);
        long rs = 0;
        for (int i = 0; i < 4096; i++) rs = rs * 3 + ro[i];
        printf("round %d: walk %ld, root visits %ld, leaf visits %ld, stack %ld, "
               "pairs %ld %ld, dispatch %ld, read-only writes %d, marks %ld, sum %ld, "
               "xmm %ld\n",
               round, s, t->visits, t->l->l->l->l->visits, ls, pairs[0].a, pairs[511].b, ds,
               ro_writes, ms, rs, xmm_seen.a);
    }
    return 0;
}
