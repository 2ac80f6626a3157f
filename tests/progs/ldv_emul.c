/* ldv_emul: the CPU as the oracle for ldv's instruction emulation
 * (ldv/hp_ldv_emul.c), for tests/integration/test_ldv.py.
 *
 * Each case is one instruction, run twice from the same registers, flags
 * and memory bytes: on a malloc() buffer (the CPU executes it) and on a GC
 * object whose page a collection has protected (under HEAPPROF=ldv the
 * access faults and heapprof performs it, or single-steps it when the
 * instruction is one it declines). The registers, the arithmetic flags and
 * the object's bytes afterwards must be the same. Every case uses its own
 * object, so each access is the first on a protected object.
 *
 * Prints "cases N emulable E declined D", a "fail NAME ..." line per
 * difference, and "mismatches M"; exits 1 on any mismatch.
 * Built with -mno-red-zone: the cases push the flags inside inline asm. */
#include <gc/gc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progs.h"

#define OBJ 512          /* bytes per object: room for disp32 offsets */
#define NREG 12          /* rax rcx rdx rbx rsi rdi r8 r9 r10 r11 r12 r13 */
#define FLAGS_MASK 0x8d5 /* CF PF AF ZF SF OF */

typedef struct io {
    uint64_t r[NREG];
    uint64_t flags;
    unsigned char *m;    /* the object: in r14 during the instruction */
} io;

/* Load the registers from io, set the flags by a compare of r12 with r13
 * (the same in both runs), run `insn` (memory through r14), store the
 * registers and flags back. r15 holds the io pointer. */
#define CASE(name, insn)                                                           \
    static void name(io *x)                                                       \
    {                                                                             \
        __asm__ volatile(                                                         \
            "push %%rbx\n\tpush %%r12\n\tpush %%r13\n\tpush %%r14\n\tpush %%r15\n\t" \
            "mov %0, %%r15\n\t"                                                   \
            "mov 104(%%r15), %%r14\n\t"                                           \
            "mov 0(%%r15), %%rax\n\tmov 8(%%r15), %%rcx\n\tmov 16(%%r15), %%rdx\n\t" \
            "mov 24(%%r15), %%rbx\n\tmov 32(%%r15), %%rsi\n\tmov 40(%%r15), %%rdi\n\t" \
            "mov 48(%%r15), %%r8\n\tmov 56(%%r15), %%r9\n\tmov 64(%%r15), %%r10\n\t" \
            "mov 72(%%r15), %%r11\n\tmov 80(%%r15), %%r12\n\tmov 88(%%r15), %%r13\n\t" \
            "cmp %%r13, %%r12\n\t"                                                \
            insn "\n\t"                                                           \
            "pushfq\n\tpopq 96(%%r15)\n\t"                                        \
            "mov %%rax, 0(%%r15)\n\tmov %%rcx, 8(%%r15)\n\tmov %%rdx, 16(%%r15)\n\t" \
            "mov %%rbx, 24(%%r15)\n\tmov %%rsi, 32(%%r15)\n\tmov %%rdi, 40(%%r15)\n\t" \
            "mov %%r8, 48(%%r15)\n\tmov %%r9, 56(%%r15)\n\tmov %%r10, 64(%%r15)\n\t" \
            "mov %%r11, 72(%%r15)\n\tmov %%r12, 80(%%r15)\n\tmov %%r13, 88(%%r15)\n\t" \
            "pop %%r15\n\tpop %%r14\n\tpop %%r13\n\tpop %%r12\n\tpop %%rbx\n\t"   \
            :                                                                     \
            : "r"(x)                                                              \
            : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",        \
              "xmm0", "memory", "cc");                                           \
    }

/* Loads: every width, extensions, addressing forms. */
CASE(ld64, "mov 8(%%r14), %%rax")
CASE(ld64_r9, "mov (%%r14), %%r9")
CASE(ld32, "mov 4(%%r14), %%ecx")
CASE(ld32_r10, "mov 12(%%r14), %%r10d")
CASE(ld16, "mov 2(%%r14), %%dx")
CASE(ld8_rex, "mov 1(%%r14), %%sil")
CASE(ld8_bl, "mov 3(%%r14), %%bl")
CASE(ld8_r11, "mov 5(%%r14), %%r11b")
CASE(ld_disp32, "mov 0x1f0(%%r14), %%rdi")
CASE(ld_sib, "mov 8(%%r14,%%rcx,4), %%rsi")
CASE(ld_sib_r9, "mov 0x40(%%r14,%%r9,8), %%r12")
/* mov 24(%r14), %r8 with a SIB byte and no index (4d 8b 44 26 18) */
CASE(ld_sib_noidx, ".byte 0x4d, 0x8b, 0x44, 0x26, 0x18")
CASE(movzb, "movzbl 5(%%r14), %%eax")
CASE(movzw, "movzwl 6(%%r14), %%r8d")
CASE(movzbq, "movzbq 7(%%r14), %%r13")
CASE(movzb16, "movzbw 9(%%r14), %%dx")
CASE(movsb, "movsbl 10(%%r14), %%ebx")
CASE(movsw, "movswq 12(%%r14), %%rcx")
CASE(movsbq, "movsbq 15(%%r14), %%r9")
CASE(movsxd, "movslq 16(%%r14), %%rdx")
/* Stores. */
CASE(st64, "mov %%rdx, 16(%%r14)")
CASE(st32, "mov %%r10d, 20(%%r14)")
CASE(st16, "mov %%r11w, 22(%%r14)")
CASE(st8, "mov %%r12b, 23(%%r14)")
CASE(st8_cl, "mov %%cl, 25(%%r14)")
CASE(st_sib, "mov %%rax, 0x20(%%r14,%%rcx,8)")
CASE(st_imm64, "movq $-5, 24(%%r14)")
CASE(st_imm32, "movl $0x12345678, 32(%%r14)")
CASE(st_imm16, "movw $0x1234, 36(%%r14)")
CASE(st_imm8, "movb $0x7f, 38(%%r14)")
/* Compares and tests: the flags. */
CASE(cmp_m_r, "cmp %%rax, 8(%%r14)")
CASE(cmp_r_m, "cmp 8(%%r14), %%rax")
CASE(cmp_m_r32, "cmp %%ecx, 4(%%r14)")
CASE(cmp_r_m16, "cmp 2(%%r14), %%dx")
CASE(cmp_m_r8, "cmp %%sil, 1(%%r14)")
CASE(cmp_r_m8, "cmp 1(%%r14), %%r9b")
CASE(cmp_imm8q, "cmpq $3, 8(%%r14)")
CASE(cmp_imm8l, "cmpl $-1, 12(%%r14)")
CASE(cmp_imm32q, "cmpq $0x7ffffff0, 40(%%r14)")
CASE(cmp_imm16, "cmpw $0x4000, 44(%%r14)")
CASE(cmp_imm_b, "cmpb $0x80, 46(%%r14)")
CASE(cmp_zero, "cmpq $0, 48(%%r14)")
CASE(test_m_r, "test %%rcx, 8(%%r14)")
CASE(test_m_r8, "test %%bl, 3(%%r14)")
CASE(test_imm8, "testb $1, 3(%%r14)")
CASE(test_imm32, "testl $0xf0f0, 4(%%r14)")
CASE(test_imm16, "testw $0x8001, 50(%%r14)")
/* Declined (single-stepped): SSE, locked, AH, exchange, add with carry. */
CASE(sse_load, "movdqu 16(%%r14), %%xmm0\n\tmovq %%xmm0, %%rax")
CASE(lock_add, "lock addq $7, 8(%%r14)")
CASE(ah_load, "push %%rdi\n\tmov %%r14, %%rdi\n\tmov 1(%%rdi), %%ah\n\tpop %%rdi")
CASE(xchg_mem, "xchg %%rdx, 64(%%r14)")
CASE(adc_mem, "adc 16(%%r14), %%rax")
/* Arithmetic and logic with a memory operand: the result and the flags. */
CASE(add_mem, "add %%rcx, 56(%%r14)")
CASE(add_r_m, "add 8(%%r14), %%rax")
CASE(add_r_m32, "add 12(%%r14), %%r10d")
CASE(add_r_m8, "add 3(%%r14), %%dl")
CASE(add_m_r16, "add %%si, 60(%%r14)")
CASE(sub_r_m, "sub 16(%%r14), %%rbx")
CASE(sub_m_r32, "sub %%ecx, 68(%%r14)")
CASE(sub_r_m8, "sub 5(%%r14), %%r11b")
CASE(and_r_m, "and 24(%%r14), %%rdi")
CASE(and_m_r8, "and %%cl, 70(%%r14)")
CASE(or_r_m16, "or 26(%%r14), %%dx")
CASE(or_m_r, "or %%r9, 72(%%r14)")
CASE(xor_r_m, "xor 32(%%r14), %%r8")
CASE(xor_m_r32, "xor %%eax, 80(%%r14)")
CASE(add_imm8q, "addq $-3, 88(%%r14)")
CASE(add_imm32l, "addl $0x7fff0000, 92(%%r14)")
CASE(sub_imm8b, "subb $0x81, 96(%%r14)")
CASE(sub_imm16, "subw $0x1234, 98(%%r14)")
CASE(and_imm32q, "andq $0xff00ff, 104(%%r14)")
CASE(or_imm8l, "orl $0x40, 112(%%r14)")
CASE(xor_imm8b, "xorb $0x55, 116(%%r14)")
CASE(xor_imm32q, "xorq $-2, 120(%%r14)")

typedef struct kase {
    const char *name;
    void (*fn)(io *);
    int emulable;
} kase;

static const kase cases[] = {
    {"ld64", ld64, 1}, {"ld64_r9", ld64_r9, 1}, {"ld32", ld32, 1}, {"ld32_r10", ld32_r10, 1},
    {"ld16", ld16, 1}, {"ld8_rex", ld8_rex, 1}, {"ld8_bl", ld8_bl, 1}, {"ld8_r11", ld8_r11, 1},
    {"ld_disp32", ld_disp32, 1}, {"ld_sib", ld_sib, 1}, {"ld_sib_r9", ld_sib_r9, 1},
    {"ld_sib_noidx", ld_sib_noidx, 1}, {"movzb", movzb, 1}, {"movzw", movzw, 1},
    {"movzbq", movzbq, 1}, {"movzb16", movzb16, 1}, {"movsb", movsb, 1}, {"movsw", movsw, 1},
    {"movsbq", movsbq, 1}, {"movsxd", movsxd, 1},
    {"st64", st64, 1}, {"st32", st32, 1}, {"st16", st16, 1}, {"st8", st8, 1},
    {"st8_cl", st8_cl, 1}, {"st_sib", st_sib, 1}, {"st_imm64", st_imm64, 1},
    {"st_imm32", st_imm32, 1}, {"st_imm16", st_imm16, 1}, {"st_imm8", st_imm8, 1},
    {"cmp_m_r", cmp_m_r, 1}, {"cmp_r_m", cmp_r_m, 1}, {"cmp_m_r32", cmp_m_r32, 1},
    {"cmp_r_m16", cmp_r_m16, 1}, {"cmp_m_r8", cmp_m_r8, 1}, {"cmp_r_m8", cmp_r_m8, 1},
    {"cmp_imm8q", cmp_imm8q, 1}, {"cmp_imm8l", cmp_imm8l, 1}, {"cmp_imm32q", cmp_imm32q, 1},
    {"cmp_imm16", cmp_imm16, 1}, {"cmp_imm_b", cmp_imm_b, 1}, {"cmp_zero", cmp_zero, 1},
    {"test_m_r", test_m_r, 1}, {"test_m_r8", test_m_r8, 1}, {"test_imm8", test_imm8, 1},
    {"test_imm32", test_imm32, 1}, {"test_imm16", test_imm16, 1},
    {"sse_load", sse_load, 0}, {"lock_add", lock_add, 0}, {"ah_load", ah_load, 0},
    {"xchg_mem", xchg_mem, 0}, {"adc_mem", adc_mem, 0},
    {"add_mem", add_mem, 1}, {"add_r_m", add_r_m, 1}, {"add_r_m32", add_r_m32, 1},
    {"add_r_m8", add_r_m8, 1}, {"add_m_r16", add_m_r16, 1}, {"sub_r_m", sub_r_m, 1},
    {"sub_m_r32", sub_m_r32, 1}, {"sub_r_m8", sub_r_m8, 1}, {"and_r_m", and_r_m, 1},
    {"and_m_r8", and_m_r8, 1}, {"or_r_m16", or_r_m16, 1}, {"or_m_r", or_m_r, 1},
    {"xor_r_m", xor_r_m, 1}, {"xor_m_r32", xor_m_r32, 1}, {"add_imm8q", add_imm8q, 1},
    {"add_imm32l", add_imm32l, 1}, {"sub_imm8b", sub_imm8b, 1}, {"sub_imm16", sub_imm16, 1},
    {"and_imm32q", and_imm32q, 1}, {"or_imm8l", or_imm8l, 1}, {"xor_imm8b", xor_imm8b, 1},
    {"xor_imm32q", xor_imm32q, 1},
};
#define NCASES (sizeof cases / sizeof cases[0])
#define ROUNDS 8   /* register and memory patterns per case */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Registers of round k: small indexes in rcx and r9 (the SIB cases), the
 * rest mixed, some equal to memory words so compares hit equality. */
static void fill(io *x, const unsigned char *mem, int k)
{
    for (int i = 0; i < NREG; i++) x->r[i] = next();
    x->r[1] = (uint64_t)(k % 4);          /* rcx */
    x->r[7] = (uint64_t)(k % 3);          /* r9 */
    if (k % 2) memcpy(&x->r[0], mem + 8, 8);   /* rax == the word at 8 */
    if (k % 3 == 0) x->r[10] = x->r[11];        /* r12 == r13: ZF before */
    x->flags = 0;
    x->m = NULL;
}

int main(void)
{
    GC_set_max_heap_size(0);
    GC_INIT();
    int n = (int)NCASES * ROUNDS;
    unsigned char **objs = GC_malloc((size_t)n * sizeof *objs);   /* keeps them live */
    unsigned char *pattern = malloc((size_t)n * OBJ);
    for (int i = 0; i < n * OBJ; i++) pattern[i] = (unsigned char)next();
    for (int i = 0; i < n * OBJ; i += 37) pattern[i] = 0;   /* zeros and sign edges */
    for (int i = 5; i < n * OBJ; i += 41) pattern[i] = 0x80;
    /* Between the objects, as many never used: no page ever has every
     * object used, so none is left open for the rest of the period (the
     * precise policy's exact shortcut) and every case faults. */
    unsigned char **cold = GC_malloc((size_t)n * sizeof *cold);
    for (int i = 0; i < n; i++) {
        objs[i] = GC_malloc_atomic(OBJ);
        cold[i] = GC_malloc_atomic(OBJ);
        memcpy(objs[i], pattern + (size_t)i * OBJ, OBJ);
    }
    GC_gcollect();   /* a census: the objects' pages are protected from here */

    int mismatches = 0, emulable = 0;
    unsigned char buf[OBJ];
    for (int c = 0; c < (int)NCASES; c++) {
        emulable += cases[c].emulable;
        for (int k = 0; k < ROUNDS; k++) {
            int i = c * ROUNDS + k;
            const unsigned char *mem = pattern + (size_t)i * OBJ;
            io native, emul;
            fill(&native, mem, k);
            emul = native;
            memcpy(buf, mem, OBJ);
            native.m = buf;
            emul.m = objs[i];
            cases[c].fn(&native);
            cases[c].fn(&emul);
            for (int r = 0; r < NREG; r++)
                if (native.r[r] != emul.r[r]) {
                    printf("fail %s round %d register %d: cpu %#llx heapprof %#llx\n",
                           cases[c].name, k, r, (unsigned long long)native.r[r],
                           (unsigned long long)emul.r[r]);
                    mismatches++;
                }
            /* TEST leaves AF undefined. */
            uint64_t mask = strncmp(cases[c].name, "test", 4) == 0 ? FLAGS_MASK & ~0x10ull
                                                                   : FLAGS_MASK;
            if ((native.flags & mask) != (emul.flags & mask)) {
                printf("fail %s round %d flags: cpu %#llx heapprof %#llx\n", cases[c].name, k,
                       (unsigned long long)(native.flags & mask),
                       (unsigned long long)(emul.flags & mask));
                mismatches++;
            }
            if (memcmp(buf, objs[i], OBJ) != 0) {
                printf("fail %s round %d memory\n", cases[c].name, k);
                mismatches++;
            }
        }
    }
    printf("cases %d emulable %d declined %d\n", (int)NCASES * ROUNDS, emulable * ROUNDS,
           ((int)NCASES - emulable) * ROUNDS);
    printf("mismatches %d\n", mismatches);
    GC_reachable_here(cold);
    return mismatches != 0;
}
