/* hp_ldv_x86: one x86-64 instruction of the common integer subset,
 * performed on a saved context (hp_ldv_x86_sigsafe.c), for the bursts of
 * hp_ldv_burst_sigsafe.c. Memory is reached only through the caller's
 * callbacks, so the caller decides what may be touched and how. */
#ifndef HP_LDV_X86_H
#define HP_LDV_X86_H
#include <stdint.h>
#include <ucontext.h>

typedef struct hp_x86_mem {
    /* Read or write n (1, 2, 4, 8 or 16) bytes at a: 0, or -1 to decline the
     * instruction (nothing has changed yet when a read declines; a write
     * is the instruction's last side effect before its registers). */
    int (*read)(void *ctx, uintptr_t a, void *buf, int n);
    int (*write)(void *ctx, uintptr_t a, const void *buf, int n);
    void *ctx;
    /* The 16 XMM registers, 16 bytes each (the context's FXSAVE area), or
     * NULL: then SSE moves decline. */
    uint8_t (*xmm)[16];
    /* Set to 1 when an instruction loads an XMM register (NULL: not told). */
    int *xmm_written;
} hp_x86_mem;

#define HP_X86_FLAGS 0x8d5u   /* CF PF AF ZF SF OF */

/* Perform the instruction at g[REG_RIP]: 1 when done (registers, the
 * arithmetic flags, memory and RIP as the CPU would leave them; *undef
 * gets the flags the instruction leaves undefined, which may differ from
 * the CPU's), 0 when declined (nothing changed: an instruction outside
 * the subset, or a memory callback said no). Instruction bytes are read
 * directly: the caller knows the code is readable. */
int hp_x86_step(greg_t *g, const hp_x86_mem *m, uint64_t *undef);

/* The arithmetic flags CMP (a - b) and TEST (a & b) leave, on operands of
 * `size` bytes (TEST: AF 0, as the CPU leaves it). */
uint64_t hp_x86_flags_sub(uint64_t a, uint64_t b, int size);
uint64_t hp_x86_flags_and(uint64_t a, uint64_t b, int size);

#endif
