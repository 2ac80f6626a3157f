/* x86_work: compiled code for test_ldv_x86.c to single-step -- what a
 * program does between heap accesses (a tree built and walked, a list, a
 * sort with a comparator, a switch through a jump table, hashing), and
 * hand-written instructions of every form the emulator knows, run on many
 * operand values so each flag is seen set and clear. Built with -O2. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct node { struct node *l, *r; long v; } node;

static node *make(long v, int d)
{
    node *n = malloc(sizeof *n);
    n->v = v;
    n->l = d ? make(2 * v, d - 1) : NULL;
    n->r = d ? make(2 * v + 1, d - 1) : NULL;
    return n;
}

static long walk(const node *n)
{
    return n->l ? n->v + walk(n->l) - walk(n->r) : n->v;
}

static void drop(node *n)
{
    if (!n) return;
    drop(n->l);
    drop(n->r);
    free(n);
}

static int by_value(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;
    while (*s) h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

static __attribute__((noinline)) long pick(int k, long x)
{
    switch (k) {
    case 0: return x + 3;
    case 1: return x * 5;
    case 2: return x >> 2;
    case 3: return -x;
    case 4: return x ^ 0x55;
    case 5: return (short)x;
    case 6: return (signed char)x;
    case 7: return (unsigned char)x;
    default: return x < 0 ? 1 : 2;
    }
}

/* Every form, in inline assembly, on the values a, b (and memory m). */
static __attribute__((noinline)) uint64_t forms(uint64_t a, uint64_t b, uint64_t *m)
{
    uint64_t r = a, s = b, t = 0;
    __asm__ volatile(
        "movq %[a], %%rax\n\t"
        "movq %[b], %%rbx\n\t"
        "movq %[b], %%rcx\n\t"
        "movq %[a], %%rdx\n\t"
        "addb %%bh, %%al\n\t"
        "subb %%ah, %%bl\n\t"
        "movb %%ch, (%[m])\n\t"
        "movb 1(%[m]), %%dh\n\t"
        "cmpb %%dh, %%al\n\t"
        "setl %%ah\n\t"
        "setbe 2(%[m])\n\t"
        "shlq $3, %%rax\n\t"
        "sarq %%cl, %%rdx\n\t"
        "shrw $1, %%bx\n\t"
        "shll $5, 8(%[m])\n\t"
        "sarb $1, 3(%[m])\n\t"
        "imulq $7, %%rdx, %%rcx\n\t"
        "imull %%ebx, %%edx\n\t"
        "imulq 8(%[m]), %%rax\n\t"
        "testq %%rax, %%rax\n\t"
        "cmovnel (%[m]), %%ecx\n\t"
        "cmovsq %%rbx, %%rdx\n\t"
        "cmpq %%rcx, %%rdx\n\t"
        "cmovgq 8(%[m]), %%rax\n\t"
        "movslq 4(%[m]), %%rbx\n\t"
        "movzbl 5(%[m]), %%ecx\n\t"
        "movswq 6(%[m]), %%rdx\n\t"
        "cqto\n\t"
        "cltq\n\t"
        "negq %%rbx\n\t"
        "notl %%ecx\n\t"
        "incb 9(%[m])\n\t"
        "decw 10(%[m])\n\t"
        "incq %%rdx\n\t"
        "adcq $0, %%rdx\n\t"          /* (declined: the CPU runs it) */
        "andw $0x7ff0, %%cx\n\t"
        "orq $-3, 16(%[m])\n\t"
        "xorl 12(%[m]), %%eax\n\t"
        "subq %%rax, 24(%[m])\n\t"
        "cmpl $0x12345, 20(%[m])\n\t"
        "testb $0x81, 21(%[m])\n\t"
        "testw $0x8001, %%cx\n\t"
        "leaq 8(%%rax,%%rbx,4), %%rdx\n\t"
        "leaq 1f(%%rip), %%rcx\n\t"
        "movups (%[m]), %%xmm1\n\t"
        "movdqu %%xmm1, 32(%[m])\n\t"
        "movdqa 32(%[m]), %%xmm2\n\t"
        "movaps %%xmm2, 48(%[m])\n\t"
        "pushq %%rax\n\t"
        "pushq 8(%[m])\n\t"
        "popq %%rbx\n\t"
        "popq %%rcx\n\t"
        "call 2f\n\t"
        "jmp 1f\n"
        "2:\n\t"
        "pushq %%rbp\n\t"
        "movq %%rsp, %%rbp\n\t"
        "subq $32, %%rsp\n\t"
        "movq %%rax, -8(%%rbp)\n\t"
        "addq -8(%%rbp), %%rax\n\t"
        "leave\n\t"
        "rep ret\n"
        "1:\n\t"
        "nopw 0(%%rax,%%rax,1)\n\t"
        "movq %%rax, %[r]\n\t"
        "movq %%rbx, %[s]\n\t"
        "movq %%rdx, %[t]\n\t"
        : [r] "+r"(r), [s] "+r"(s), [t] "+r"(t)
        : [a] "r"(a), [b] "r"(b), [m] "S"(m)
        : "rax", "rbx", "rcx", "rdx", "xmm1", "xmm2", "memory", "cc");
    return r ^ s ^ t;
}

long x86_work(void)
{
    long sum = 0;
    node *t = make(1, 9);
    sum += walk(t);
    drop(t);
    long v[200];
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 200; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v[i] = (long)(x % 100000) - 50000;
    }
    qsort(v, 200, sizeof v[0], by_value);
    sum += v[0] + v[199];
    static const char *names[] = {"pear", "apple", "fig", "kiwi", "plum", "lime", "date", "yuzu"};
    const char *n[8];
    memcpy(n, names, sizeof n);
    qsort(n, 8, sizeof n[0], by_name);
    for (int i = 0; i < 8; i++) sum += hash(n[i]);
    for (int k = 0; k < 40; k++) sum += pick(k % 9, (long)v[k]);
    static const uint64_t edge[] = {0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff,
                                    0x80000000, 0xffffffff, 0x7fffffffffffffff, 0x8000000000000000,
                                    0xffffffffffffffff, 0x0123456789abcdef};
    uint64_t mem[8] __attribute__((aligned(16)));
    for (unsigned i = 0; i < 15 * 15; i++) {
        for (int k = 0; k < 8; k++) mem[k] = edge[(i + (unsigned)k) % 15] ^ ((uint64_t)k << 40);
        sum += (long)forms(edge[i % 15], edge[i / 15], mem);
    }
    return sum;
}
