/* Unit tests for ldv/hp_ldv_emul (the faulting instruction, by
 * ldv/hp_ldv_x86_sigsafe.c's interpreter kept to the page; that file's own
 * test, test_ldv_x86.c, checks every form against the CPU): the flags of CMP and TEST against the
 * CPU's own, each instruction form the emulator takes (done, RIP past it,
 * the right register or memory), and each form it must decline (nothing
 * changed). tests/progs/ldv_emul.c checks the same forms end to end, with
 * the CPU as the oracle, under the fault handler.
 * Built with -mno-red-zone: the CPU's flags are read with pushfq.
 * Built again with HP_TEST_THROUGH_MEM: the page has no access while each
 * instruction is emulated, its operand read and written through a
 * descriptor on /proc/self/mem (ldv/hp_ldv_peek_sigsafe.c). */
#include <criterion/criterion.h>

#include "test_rand.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "ldv/hp_ldv_internal.h"
#include "ldv/hp_ldv_x86.h"

#define ARITH 0x8d5ull   /* CF PF AF ZF SF OF */
#define AF 0x10ull

static uint64_t cpu_cmp(uint64_t a, uint64_t b, int size)
{
    uint64_t f;
    switch (size) {
    case 1: __asm__("cmpb %b2, %b1\n\tpushfq\n\tpopq %0" : "=r"(f) : "q"(a), "q"(b) : "cc"); break;
    case 2: __asm__("cmpw %w2, %w1\n\tpushfq\n\tpopq %0" : "=r"(f) : "r"(a), "r"(b) : "cc"); break;
    case 4: __asm__("cmpl %k2, %k1\n\tpushfq\n\tpopq %0" : "=r"(f) : "r"(a), "r"(b) : "cc"); break;
    default: __asm__("cmpq %2, %1\n\tpushfq\n\tpopq %0" : "=r"(f) : "r"(a), "r"(b) : "cc"); break;
    }
    return f & ARITH;
}

static uint64_t cpu_test(uint64_t a, uint64_t b, int size)
{
    uint64_t f;
    switch (size) {
    case 1: __asm__("testb %b2, %b1\n\tpushfq\n\tpopq %0" : "=r"(f) : "q"(a), "q"(b) : "cc"); break;
    case 2: __asm__("testw %w2, %w1\n\tpushfq\n\tpopq %0" : "=r"(f) : "r"(a), "r"(b) : "cc"); break;
    case 4: __asm__("testl %k2, %k1\n\tpushfq\n\tpopq %0" : "=r"(f) : "r"(a), "r"(b) : "cc"); break;
    default: __asm__("testq %2, %1\n\tpushfq\n\tpopq %0" : "=r"(f) : "r"(a), "r"(b) : "cc"); break;
    }
    return f & ARITH & ~AF;   /* AF is undefined after TEST */
}


Test(ldv_emul, flags_match_the_cpu)
{
    static const uint64_t edges[] = {0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
                                     0x7fffffff, 0x80000000, 0xffffffff,
                                     0x7fffffffffffffffull, 0x8000000000000000ull,
                                     0xffffffffffffffffull, 0x10, 0x0f};
    int ne = sizeof edges / sizeof edges[0];
    static const int sizes[] = {1, 2, 4, 8};
    for (int s = 0; s < 4; s++) {
        int size = sizes[s];
        for (int i = 0; i < ne + 20000; i++) {
            uint64_t a = i < ne ? edges[i] : test_rand();
            for (int j = 0; j < (i < ne ? ne : 1); j++) {
                uint64_t b = i < ne ? edges[j] : (i % 3 ? test_rand() : a);
                cr_assert_eq(hp_x86_flags_sub(a, b, size), cpu_cmp(a, b, size),
                             "cmp size %d %#llx - %#llx", size, (unsigned long long)a,
                             (unsigned long long)b);
                cr_assert_eq(hp_x86_flags_and(a, b, size) & ~AF, cpu_test(a, b, size),
                             "test size %d %#llx & %#llx", size, (unsigned long long)a,
                             (unsigned long long)b);
            }
        }
    }
}

/* A page of memory, an instruction, and registers. */
static unsigned char page[8192] __attribute__((aligned(4096)));
static gregset_t g;
/* The XMM registers given to the emulator (NULL: SSE moves decline). */
static uint8_t xmm_area[16][16];
static uint8_t (*xmm_regs)[16];

static void setup(const unsigned char *code, size_t len)
{
    static unsigned char text[32];
    memset(g, 0, sizeof g);
    memcpy(text, code, len);
    memset(text + len, 0x90, sizeof text - len);
    g[REG_RIP] = (greg_t)(uintptr_t)text;
    for (int i = 0; i < 4096; i++) page[i] = (unsigned char)(i * 7 + 3);
    g[REG_R14] = (greg_t)(uintptr_t)page;
    g[REG_RBX] = (greg_t)(uintptr_t)page;
    for (int r = 0; r < 16; r++)
        for (int i = 0; i < 16; i++) xmm_area[r][i] = (uint8_t)(r * 16 + i + 1);
}

#ifdef HP_TEST_THROUGH_MEM
static int run(void)
{
    static int fd = -1;
    if (fd < 0) fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
    cr_assert(fd >= 0, "cannot open /proc/self/mem");
    cr_assert_eq(mprotect(page, 4096, PROT_NONE), 0);
    int r = hp_ldv_emulate(g, xmm_regs, (uintptr_t)page, (uintptr_t)page + 4096, fd);
    cr_assert_eq(mprotect(page, 4096, PROT_READ | PROT_WRITE), 0);
    return r;
}
#else
static int run(void) { return hp_ldv_emulate(g, xmm_regs, (uintptr_t)page, (uintptr_t)page + 4096, -1); }
#endif

static uint64_t word(size_t off, int size)
{
    uint64_t v = 0;
    memcpy(&v, page + off, (size_t)size);
    return v;
}

/* Emulate the instruction whose bytes follow (after setup and pre()):
 * done, and RIP past its `len_` bytes. */
#define TAKES(len_, ...)                                                        \
    do {                                                                        \
        static const unsigned char c_[] = {__VA_ARGS__};                        \
        setup(c_, sizeof c_);                                                   \
        pre();                                                                  \
        uintptr_t rip_ = (uintptr_t)g[REG_RIP];                                 \
        cr_assert_eq(run(), 1, "%s not emulated", #__VA_ARGS__);               \
        cr_assert_eq((uintptr_t)g[REG_RIP], rip_ + (len_), "%s: RIP", #__VA_ARGS__); \
    } while (0)

static void nothing(void) {}

static void ones(void) { g[REG_RCX] = g[REG_RDX] = g[REG_R8] = -1; }

Test(ldv_emul, loads)
{
    void (*pre)(void) = ones;
    /* mov 8(%r14), %rax */
    TAKES(4, 0x49, 0x8b, 0x46, 0x08);
    cr_assert_eq((uint64_t)g[REG_RAX], word(8, 8));
    /* mov 4(%r14), %ecx: the upper half cleared */
    TAKES(4, 0x41, 0x8b, 0x4e, 0x04);
    cr_assert_eq((uint64_t)g[REG_RCX], word(4, 4));
    /* mov 2(%r14), %dx: the rest of rdx kept */
    TAKES(5, 0x66, 0x41, 0x8b, 0x56, 0x02);
    cr_assert_eq((uint64_t)g[REG_RDX], ~0xffffull | word(2, 2));
    /* mov 3(%rbx), %bl: low byte only */
    TAKES(3, 0x8a, 0x5b, 0x03);
    cr_assert_eq((uint64_t)g[REG_RBX], ((uintptr_t)page & ~0xffull) | word(3, 1));
    /* mov 0x1f0(%r14), %rdi (disp32) */
    TAKES(7, 0x49, 0x8b, 0xbe, 0xf0, 0x01, 0x00, 0x00);
    cr_assert_eq((uint64_t)g[REG_RDI], word(0x1f0, 8));
    /* movsbq 15(%r14), %r9 */
    TAKES(5, 0x4d, 0x0f, 0xbe, 0x4e, 0x0f);
    cr_assert_eq((uint64_t)g[REG_R9], (uint64_t)(int64_t)(int8_t)word(15, 1));
    /* movslq 16(%r14), %rdx */
    TAKES(4, 0x49, 0x63, 0x56, 0x10);
    cr_assert_eq((uint64_t)g[REG_RDX], (uint64_t)(int64_t)(int32_t)word(16, 4));
    /* movzwl 6(%r14), %r8d */
    TAKES(5, 0x45, 0x0f, 0xb7, 0x46, 0x06);
    cr_assert_eq((uint64_t)g[REG_R8], word(6, 2));
}

static void index_three(void) { g[REG_RCX] = 3; }

Test(ldv_emul, sib_and_stores)
{
    void (*pre)(void) = index_three;
    /* mov 8(%r14,%rcx,4), %rsi with rcx = 3: offset 20 */
    TAKES(5, 0x49, 0x8b, 0x74, 0x8e, 0x08);
    cr_assert_eq((uint64_t)g[REG_RSI], word(20, 8));
    /* mov %rcx, 0x20(%r14,%rcx,8): offset 56 */
    TAKES(5, 0x49, 0x89, 0x4c, 0xce, 0x20);
    cr_assert_eq(word(56, 8), 3);
    pre = nothing;
    /* movq $-5, 24(%r14) */
    TAKES(8, 0x49, 0xc7, 0x46, 0x18, 0xfb, 0xff, 0xff, 0xff);
    cr_assert_eq(word(24, 8), (uint64_t)-5);
    /* movw $0x1234, 36(%r14): the bytes after it kept */
    TAKES(7, 0x66, 0x41, 0xc7, 0x46, 0x24, 0x34, 0x12);
    cr_assert_eq(word(36, 2), 0x1234);
    cr_assert_eq(word(38, 1), (uint64_t)(unsigned char)(38 * 7 + 3));
    /* movb $0x7f, 38(%r14) */
    TAKES(5, 0x41, 0xc6, 0x46, 0x26, 0x7f);
    cr_assert_eq(word(38, 1), 0x7f);
}

Test(ldv_emul, compares_set_flags_only)
{
    void (*pre)(void) = nothing;
    /* cmpq $0, 48(%r14) with the word made 0: ZF and PF, nothing else */
    static const unsigned char c[] = {0x49, 0x83, 0x7e, 0x30, 0x00};
    setup(c, sizeof c);
    memset(page + 48, 0, 8);
    g[REG_EFL] = 0x202 | 0x1;   /* IF, and CF left from before */
    cr_assert_eq(run(), 1);
    cr_assert_eq((uint64_t)g[REG_EFL], 0x202 | 0x40 | 0x4);
    /* testb $1, 3(%r14) */
    TAKES(5, 0x41, 0xf6, 0x46, 0x03, 0x01);
    cr_assert_eq((uint64_t)g[REG_EFL] & 0x40, (word(3, 1) & 1) ? 0 : 0x40);
}

/* Declined: returns 0 with registers and memory untouched. */
static void declines(const unsigned char *code, size_t len, const char *what)
{
    setup(code, len);
    gregset_t before;
    memcpy(before, g, sizeof g);
    unsigned char mem[4096];
    memcpy(mem, page, sizeof mem);
    uint8_t xmm_before[16][16];
    memcpy(xmm_before, xmm_area, sizeof xmm_before);
    cr_assert_eq(run(), 0, "%s was emulated", what);
    cr_assert_eq(memcmp(before, g, sizeof g), 0, "%s changed registers", what);
    cr_assert_eq(memcmp(mem, page, sizeof mem), 0, "%s changed memory", what);
    cr_assert_eq(memcmp(xmm_before, xmm_area, sizeof xmm_before), 0, "%s changed XMM registers",
                 what);
}

#define DECLINES(what, ...)                            \
    do {                                               \
        static const unsigned char c_[] = {__VA_ARGS__}; \
        declines(c_, sizeof c_, what);                 \
    } while (0)

/* Arithmetic and logic with a memory operand (the CPU oracle,
 * tests/progs/ldv_emul.c, checks their results and flags). */
Test(ldv_emul, takes_arithmetic_and_logic)
{
    void (*pre)(void) = nothing;
    TAKES(4, 0x49, 0x01, 0x4e, 0x38);         /* add %rcx, 56(%r14) */
    TAKES(5, 0x49, 0x83, 0x46, 0x08, 0x07);   /* addq $7, 8(%r14) */
    TAKES(4, 0x49, 0x03, 0x46, 0x08);         /* add 8(%r14), %rax */
    TAKES(4, 0x49, 0x2b, 0x5e, 0x10);         /* sub 16(%r14), %rbx */
    TAKES(4, 0x41, 0x22, 0x56, 0x03);         /* and 3(%r14), %dl */
    TAKES(4, 0x4d, 0x33, 0x46, 0x20);         /* xor 32(%r14), %r8 */
    TAKES(5, 0x41, 0x80, 0x76, 0x10, 0x55);   /* xorb $0x55, 16(%r14) */
    TAKES(4, 0x41, 0xf7, 0x56, 0x08);         /* notl 8(%r14) */
    /* mov 1(%rbx), %ah: the second byte of rax, the rest kept */
    pre = ones;
    TAKES(3, 0x8a, 0x63, 0x01);
    cr_assert_eq((uint64_t)g[REG_RAX], word(1, 1) << 8);
}

/* The 16-byte SSE moves, given the context's XMM registers (a compiled
 * memset or struct copy): the store writes the register's bytes, the load
 * sets them, RIP past; without the registers, each declines. */
Test(ldv_emul, sse_moves_with_the_registers)
{
    void (*pre)(void) = nothing;
    xmm_regs = xmm_area;
    /* movups %xmm1, (%rbx) */
    TAKES(3, 0x0f, 0x11, 0x0b);
    cr_assert_eq(memcmp(page, xmm_area[1], 16), 0);
    /* movups %xmm1, 0x20(%rbx): memset's last 16 of 48 bytes */
    TAKES(4, 0x0f, 0x11, 0x4b, 0x20);
    cr_assert_eq(memcmp(page + 0x20, xmm_area[1], 16), 0);
    /* movdqu 0x10(%r14), %xmm0 */
    TAKES(6, 0xf3, 0x41, 0x0f, 0x6f, 0x46, 0x10);
    cr_assert_eq(memcmp(xmm_area[0], page + 0x10, 16), 0);
    /* movaps 0x30(%rbx), %xmm9 */
    TAKES(5, 0x44, 0x0f, 0x28, 0x4b, 0x30);
    cr_assert_eq(memcmp(xmm_area[9], page + 0x30, 16), 0);
    /* vmovdqu %ymm0, (%rbx) (AVX): declined, nothing changed */
    DECLINES("vmovdqu", 0xc5, 0xfe, 0x7f, 0x03);
    xmm_regs = NULL;
    DECLINES("movups without the registers", 0x0f, 0x11, 0x0b);
}

Test(ldv_emul, declines_what_it_does_not_know)
{
    DECLINES("RIP-relative load", 0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00);
    DECLINES("lock add", 0xf0, 0x49, 0x83, 0x46, 0x08, 0x07);
    DECLINES("rep stos", 0xf3, 0x48, 0xab);
    DECLINES("fs: load", 0x64, 0x49, 0x8b, 0x46, 0x08);
    DECLINES("32-bit address", 0x67, 0x41, 0x8b, 0x46, 0x08);
    DECLINES("movdqu", 0xf3, 0x41, 0x0f, 0x6f, 0x46, 0x10);
    DECLINES("adc to memory", 0x49, 0x11, 0x4e, 0x38);
    DECLINES("xchg with memory", 0x49, 0x87, 0x56, 0x40);
    DECLINES("register to register", 0x4c, 0x89, 0xf0);
    DECLINES("sbb $7 (group 1 /3)", 0x49, 0x83, 0x5e, 0x08, 0x07);
    DECLINES("adc $7 (group 1 /2)", 0x49, 0x83, 0x56, 0x08, 0x07);
    DECLINES("a push from the page (to the stack: off the page)", 0x41, 0xff, 0x76, 0x08);
    /* An access that leaves the page: mov 4092(%r14), %rax */
    DECLINES("load across the page end", 0x49, 0x8b, 0x86, 0xfc, 0x0f, 0x00, 0x00);
    /* Below the page: mov -8(%r14), %rax */
    DECLINES("load below the page", 0x49, 0x8b, 0x46, 0xf8);
}
