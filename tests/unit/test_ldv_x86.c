/* Unit test for ldv/hp_ldv_x86_sigsafe.c, with the CPU as the oracle:
 * compiled code (tests/unit/x86_work.c, and the C library it calls) is
 * single-stepped with the trap flag; before each instruction the emulator
 * performs it on a copy of the context, its stores recorded instead of
 * made; after it, every general register, RIP, the XMM registers, the
 * arithmetic flags the instruction defines, and the bytes of every store
 * must be what the CPU left. Instructions the emulator declines are left
 * to the CPU and counted.
 * Built with -mno-red-zone: stepping is switched on with pushfq/popfq. */
#include <criterion/criterion.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#include "ldv/hp_ldv_x86.h"

long x86_work(void);

#define TF 0x100

typedef struct store { uintptr_t a; int n; uint8_t b[16]; } store;

static volatile int stepping;
static int have_pred;
static greg_t pred[NGREG];
static uint8_t pred_xmm[16][16];
static uint64_t pred_undef;
/* The XMM registers before the instruction, and whether the emulator said
 * it loaded one (hp_x86_mem.xmm_written: the bursts copy them only then). */
static uint8_t before_xmm[16][16];
static int pred_xmm_written;
static unsigned long xmm_loads;
static uintptr_t pred_pc;
static store stores[4];
static int nstores;
static uint64_t compared, declined, mismatches;
static char first_bad[512];

static int t_read(void *ctx, uintptr_t a, void *buf, int n)
{
    (void)ctx;
    memcpy(buf, (const void *)a, (size_t)n);
    return 0;
}

static int t_write(void *ctx, uintptr_t a, const void *buf, int n)
{
    (void)ctx;
    if (nstores == 4) return -1;
    stores[nstores].a = a;
    stores[nstores].n = n;
    memcpy(stores[nstores].b, buf, (size_t)n);
    nstores++;
    return 0;
}

static void bad(const char *what, uint64_t want, uint64_t got)
{
    mismatches++;
    if (first_bad[0]) return;
    const uint8_t *p = (const uint8_t *)pred_pc;
    snprintf(first_bad, sizeof first_bad,
             "at %#lx (%02x %02x %02x %02x %02x %02x %02x %02x): %s: emulated %#lx, cpu %#lx",
             (unsigned long)pred_pc, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], what,
             (unsigned long)want, (unsigned long)got);
}

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    (void)si;
    ucontext_t *uc = ucv;
    greg_t *g = uc->uc_mcontext.gregs;
    uint8_t (*xmm)[16] = (uint8_t (*)[16])uc->uc_mcontext.fpregs->_xmm;
    if (have_pred) {
        static const int regs[] = {REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI, REG_RDI, REG_RBP,
                                   REG_RSP, REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13,
                                   REG_R14, REG_R15, REG_RIP};
        static const char *const names[] = {"rax", "rbx", "rcx", "rdx", "rsi", "rdi",
                                            "rbp", "rsp", "r8",  "r9",  "r10", "r11",
                                            "r12", "r13", "r14", "r15", "rip"};
        for (unsigned i = 0; i < sizeof regs / sizeof regs[0]; i++)
            if (pred[regs[i]] != g[regs[i]])
                bad(names[i], (uint64_t)pred[regs[i]], (uint64_t)g[regs[i]]);
        uint64_t fm = HP_X86_FLAGS & ~pred_undef;
        if (((uint64_t)pred[REG_EFL] & fm) != ((uint64_t)g[REG_EFL] & fm))
            bad("flags", (uint64_t)pred[REG_EFL] & fm, (uint64_t)g[REG_EFL] & fm);
        for (int i = 0; i < 16; i++)
            if (memcmp(pred_xmm[i], xmm[i], 16) != 0) bad("xmm", (uint64_t)i, 0);
        if (memcmp(before_xmm, xmm, sizeof before_xmm) != 0) {
            xmm_loads++;
            if (!pred_xmm_written) bad("an XMM register loaded, not told", 1, 0);
        }
        for (int i = 0; i < nstores; i++)
            if (memcmp((const void *)stores[i].a, stores[i].b, (size_t)stores[i].n) != 0)
                bad("store", stores[i].a, (uint64_t)stores[i].n);
        compared++;
        have_pred = 0;
    }
    if (!stepping) {
        g[REG_EFL] &= ~(greg_t)TF;
        return;
    }
    memcpy(pred, g, sizeof pred);
    memcpy(pred_xmm, xmm, sizeof pred_xmm);
    memcpy(before_xmm, xmm, sizeof before_xmm);
    pred_xmm_written = 0;
    nstores = 0;
    pred_pc = (uintptr_t)g[REG_RIP];
    hp_x86_mem m = {t_read, t_write, NULL, pred_xmm, &pred_xmm_written};
    if (hp_x86_step(pred, &m, &pred_undef)) have_pred = 1;
    else declined++;
}

static long stepped(long (*fn)(void))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_trap;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTRAP, &sa, NULL);
    stepping = 1;
    __asm__ volatile("pushfq\n\torq $0x100, (%%rsp)\n\tpopfq" ::: "memory", "cc");
    long r = fn();
    stepping = 0;
    __asm__ volatile("nop" ::: "memory");
    return r;
}

Test(ldv_x86, every_emulated_instruction_does_what_the_cpu_does)
{
    long want = x86_work();
    long got = stepped(x86_work);
    cr_assert_eq(got, want, "the stepped run computed %ld, not %ld", got, want);
    cr_assert_eq(mismatches, 0, "%lu mismatches in %lu instructions; first %s",
                 (unsigned long)mismatches, (unsigned long)compared, first_bad);
    /* Enough was compared to mean something: the tree walk, the sorts and
     * every hand-written form ran many times. */
    cr_assert_gt(compared, 100000, "only %lu instructions compared (%lu declined)",
                 (unsigned long)compared, (unsigned long)declined);
    cr_assert_lt(declined * 5, compared, "%lu declined against %lu done",
                 (unsigned long)declined, (unsigned long)compared);
    /* (the SSE loads of x86_work changed registers, and said so) */
    cr_assert_gt(xmm_loads, 0, "no instruction loaded an XMM register");
}

/* A callback that says no leaves the context as it was. */
static int no_read(void *ctx, uintptr_t a, void *buf, int n)
{
    (void)ctx, (void)a, (void)buf, (void)n;
    return -1;
}

Test(ldv_x86, a_refused_access_changes_nothing)
{
    /* add %rax, 8(%rbx) ; push %rax ; movups %xmm0, (%rbx) */
    static const uint8_t code[][8] = {{0x48, 0x01, 0x43, 0x08}, {0x50}, {0x0f, 0x11, 0x03}};
    uint64_t cell[4] = {1, 2, 3, 4};
    uint8_t xmm[16][16];
    memset(xmm, 0x5a, sizeof xmm);
    for (unsigned i = 0; i < 3; i++) {
        greg_t g[NGREG], before[NGREG];
        memset(g, 0, sizeof g);
        g[REG_RIP] = (greg_t)(uintptr_t)code[i];
        g[REG_RBX] = (greg_t)(uintptr_t)cell;
        g[REG_RSP] = (greg_t)(uintptr_t)&cell[3];
        g[REG_RAX] = 7;
        memcpy(before, g, sizeof g);
        hp_x86_mem m = {no_read, (int (*)(void *, uintptr_t, const void *, int))no_read, NULL, xmm,
                        NULL};
        uint64_t undef;
        cr_assert_eq(hp_x86_step(g, &m, &undef), 0, "form %u done without its memory", i);
        cr_assert_eq(memcmp(g, before, sizeof g), 0, "form %u changed the context", i);
        cr_assert_eq(cell[1], 2);
    }
}
