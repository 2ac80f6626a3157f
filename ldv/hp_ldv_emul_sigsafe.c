/* hp_ldv_emul_sigsafe: performs, inside the SIGSEGV handler, the one instruction
 * that faulted on a protected page, when it is a plain x86-64 load, store,
 * compare or test of general registers (what compiled code does with heap
 * objects almost always). The handler can then protect the page again at
 * once: the same effect as single-stepping the instruction with the trap
 * flag, without the SIGTRAP, which costs several times the fault itself
 * (about 18 us against 4 us on a VM). Anything else -- SSE, string and
 * locked instructions, RIP-relative or 32-bit addressing, an access that
 * leaves the page, the high-byte registers -- is declined and single-
 * stepped as before.
 *
 * ---- Async-signal-safe throughout: pure computation on the interrupted
 * context and the opened page. ---- */
#include "ldv/hp_ldv_internal.h"

#include <string.h>

/* x86 register number (with REX extension) -> index in mcontext gregs. */
static const int greg_of[16] = {
    REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
    REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
};

#define FL_CF 0x001u
#define FL_PF 0x004u
#define FL_AF 0x010u
#define FL_ZF 0x040u
#define FL_SF 0x080u
#define FL_OF 0x800u
#define FL_ARITH (FL_CF | FL_PF | FL_AF | FL_ZF | FL_SF | FL_OF)

static uint64_t mask_of(int size)
{
    return size == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (size * 8)) - 1;
}

static uint64_t sign_extend(uint64_t v, int size)
{
    switch (size) {
    case 1: return (uint64_t)(int64_t)(int8_t)v;
    case 2: return (uint64_t)(int64_t)(int16_t)v;
    case 4: return (uint64_t)(int64_t)(int32_t)v;
    default: return v;
    }
}

/* ZF, SF and PF of a result of `size` bytes. */
static uint64_t result_flags(uint64_t res, int size)
{
    uint64_t f = 0;
    if ((res & mask_of(size)) == 0) f |= FL_ZF;
    if (res >> (size * 8 - 1) & 1) f |= FL_SF;
    if (!(__builtin_popcount((unsigned)(res & 0xff)) & 1)) f |= FL_PF;
    return f;
}

uint64_t hp_ldv_flags_sub(uint64_t a, uint64_t b, int size)
{
    uint64_t m = mask_of(size);
    a &= m;
    b &= m;
    uint64_t res = (a - b) & m;
    uint64_t f = result_flags(res, size);
    if (a < b) f |= FL_CF;
    if (((a ^ b) & (a ^ res)) >> (size * 8 - 1) & 1) f |= FL_OF;
    if ((a ^ b ^ res) & 0x10) f |= FL_AF;
    return f;
}

uint64_t hp_ldv_flags_and(uint64_t a, uint64_t b, int size)
{
    return result_flags(a & b & mask_of(size), size);   /* CF = OF = 0; AF undefined: 0 */
}

static uint64_t flags_add(uint64_t a, uint64_t b, int size)
{
    uint64_t m = mask_of(size);
    a &= m;
    b &= m;
    uint64_t res = (a + b) & m;
    uint64_t f = result_flags(res, size);
    if (res < a) f |= FL_CF;
    if (((a ^ res) & (b ^ res)) >> (size * 8 - 1) & 1) f |= FL_OF;
    if ((a ^ b ^ res) & 0x10) f |= FL_AF;
    return f;
}

/* ADD, OR, AND, SUB, XOR (the ALU operation numbers 0, 1, 4, 5, 6 of the
 * opcode map and of the group-1 /digit): the result in *res, the flags as
 * the CPU leaves them (logical operations: CF = OF = 0, AF undefined,
 * left 0 as the CPU does). */
static uint64_t alu(int opn, uint64_t a, uint64_t b, int size, uint64_t *res)
{
    switch (opn) {
    case 0: *res = a + b; return flags_add(a, b, size);
    case 5: *res = a - b; return hp_ldv_flags_sub(a, b, size);
    case 1: *res = a | b; break;
    case 4: *res = a & b; break;
    default: *res = a ^ b; break;
    }
    return result_flags(*res & mask_of(size), size);
}

/* The memory operand: read or written in place (the page is open), or
 * through the descriptor `fd` on /proc/self/mem, which reaches a protected
 * page without opening it (hp_ldv_peek_sigsafe.c). 0, or -1 when the
 * descriptor would not serve. */
static int load(int fd, uintptr_t ea, int size, uint64_t *out)
{
    uint8_t b[8];
    if (fd >= 0) {
        if (hp_ldv_peek(fd, ea, b, (size_t)size) != 0) return -1;
    } else {
        memcpy(b, (const void *)ea, (size_t)size);
    }
    uint8_t v8;
    uint16_t v16;
    uint32_t v32;
    uint64_t v64;
    switch (size) {
    case 1: memcpy(&v8, b, 1); *out = v8; break;
    case 2: memcpy(&v16, b, 2); *out = v16; break;
    case 4: memcpy(&v32, b, 4); *out = v32; break;
    default: memcpy(&v64, b, 8); *out = v64; break;
    }
    return 0;
}

static int store(int fd, uintptr_t ea, uint64_t v, int size)
{
    uint8_t b[8];
    uint8_t v8 = (uint8_t)v;
    uint16_t v16 = (uint16_t)v;
    uint32_t v32 = (uint32_t)v;
    switch (size) {
    case 1: memcpy(b, &v8, 1); break;
    case 2: memcpy(b, &v16, 2); break;
    case 4: memcpy(b, &v32, 4); break;
    default: memcpy(b, &v, 8); break;
    }
    if (fd >= 0) return hp_ldv_poke(fd, ea, b, (size_t)size);
    memcpy((void *)ea, b, (size_t)size);
    return 0;
}

/* Write a register as an instruction of operand size `size` does: 32-bit
 * writes clear the upper half, 8- and 16-bit ones keep the rest. */
static void set_reg(greg_t *g, int r, uint64_t v, int size)
{
    uint64_t old = (uint64_t)g[greg_of[r]];
    uint64_t m = mask_of(size);
    uint64_t nv = size == 8 ? v : size == 4 ? (v & m) : ((old & ~m) | (v & m));
    g[greg_of[r]] = (greg_t)nv;
}

static int32_t read_s32(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

int hp_ldv_emulate(greg_t *g, uintptr_t lo, uintptr_t hi, int fd)
{
    const uint8_t *p = (const uint8_t *)g[REG_RIP];
    int osz16 = 0, rex = 0;
    /* Prefixes: operand size, and the segment overrides that mean nothing
     * in 64-bit mode. Others (LOCK, REP, FS/GS, address size) decline. */
    for (int k = 0; k < 4; k++) {
        if (*p == 0x66) osz16 = 1;
        else if (*p == 0x2e || *p == 0x3e || *p == 0x26 || *p == 0x36) ;
        else break;
        p++;
    }
    if ((*p & 0xf0) == 0x40) rex = *p++;
    int two = 0;
    uint8_t op = *p++;
    if (op == 0x0f) {
        two = 1;
        op = *p++;
    }
    int size = (rex & 8) ? 8 : osz16 ? 2 : 4;   /* operand size of the non-byte forms */
    enum { LOAD, STORE, STORE_IMM, MOVZX, MOVSX, CMP_RM_REG, CMP_REG_RM, CMP_IMM, TEST_REG,
           TEST_IMM, ALU_REG_RM, ALU_RM_REG, ALU_RM_IMM } kind;
    int opn = 0;           /* ALU operation: 0 add, 1 or, 4 and, 5 sub, 6 xor */
    int msize = size;      /* size of the memory operand */
    int imm_size = 0;      /* bytes of immediate after the operand */
    int byte_reg = 0;      /* the register operand is 8-bit */
    if (!two) {
        switch (op) {
        case 0x8b: kind = LOAD; break;
        case 0x8a: kind = LOAD; msize = 1; byte_reg = 1; break;
        case 0x89: kind = STORE; break;
        case 0x88: kind = STORE; msize = 1; byte_reg = 1; break;
        case 0xc7: kind = STORE_IMM; imm_size = size == 2 ? 2 : 4; break;
        case 0xc6: kind = STORE_IMM; msize = 1; imm_size = 1; break;
        case 0x63: if (!(rex & 8)) return 0; kind = MOVSX; msize = 4; break;
        case 0x39: kind = CMP_RM_REG; break;
        case 0x38: kind = CMP_RM_REG; msize = 1; byte_reg = 1; break;
        case 0x3b: kind = CMP_REG_RM; break;
        case 0x3a: kind = CMP_REG_RM; msize = 1; byte_reg = 1; break;
        case 0x81: kind = CMP_IMM; imm_size = size == 2 ? 2 : 4; break;
        case 0x83: kind = CMP_IMM; imm_size = 1; break;
        case 0x80: kind = CMP_IMM; msize = 1; imm_size = 1; break;
        case 0x85: kind = TEST_REG; break;
        case 0x84: kind = TEST_REG; msize = 1; byte_reg = 1; break;
        case 0xf7: kind = TEST_IMM; imm_size = size == 2 ? 2 : 4; break;
        case 0xf6: kind = TEST_IMM; msize = 1; imm_size = 1; break;
        default:
            /* op r, r/m (03 0b 23 2b 33; byte forms one less) and
             * op r/m, r (01 09 21 29 31; byte forms one less). */
            if (op < 0x40 && (op & 7) <= 3 && ((op >> 3) == 0 || (op >> 3) == 1 ||
                                               (op >> 3) == 4 || (op >> 3) == 5 ||
                                               (op >> 3) == 6)) {
                opn = op >> 3;
                kind = (op & 2) ? ALU_REG_RM : ALU_RM_REG;
                if (!(op & 1)) {
                    msize = 1;
                    byte_reg = 1;
                }
                break;
            }
            return 0;
        }
    } else {
        switch (op) {
        case 0xb6: kind = MOVZX; msize = 1; break;
        case 0xb7: kind = MOVZX; msize = 2; break;
        case 0xbe: kind = MOVSX; msize = 1; break;
        case 0xbf: kind = MOVSX; msize = 2; break;
        default: return 0;
        }
    }
    uint8_t modrm = *p++;
    int mod = modrm >> 6;
    int reg = ((modrm >> 3) & 7) | ((rex & 4) ? 8 : 0);
    int rm = modrm & 7;
    if (mod == 3) return 0;   /* a register operand: this did not fault */
    /* The /digit of the group opcodes: only MOV (/0), CMP (/7), TEST (/0). */
    if (kind == STORE_IMM && (reg & 7) != 0) return 0;
    if (kind == CMP_IMM && (reg & 7) != 7) {
        /* Group 1: ADD /0, OR /1, AND /4, SUB /5, XOR /6 (not ADC, SBB). */
        opn = reg & 7;
        if (opn != 0 && opn != 1 && opn != 4 && opn != 5 && opn != 6) return 0;
        kind = ALU_RM_IMM;
    }
    if (kind == TEST_IMM && (reg & 7) != 0) return 0;
    /* AH, CH, DH, BH (an 8-bit register 4-7 without REX) decline. */
    int uses_reg = kind == LOAD || kind == STORE || kind == MOVZX || kind == MOVSX ||
                   kind == CMP_RM_REG || kind == CMP_REG_RM || kind == TEST_REG ||
                   kind == ALU_REG_RM || kind == ALU_RM_REG;
    if (uses_reg && byte_reg && !rex && reg >= 4) return 0;
    uintptr_t ea;
    if (rm == 4) {
        uint8_t sib = *p++;
        int scale = 1 << (sib >> 6);
        int index = ((sib >> 3) & 7) | ((rex & 2) ? 8 : 0);
        int base = (sib & 7) | ((rex & 1) ? 8 : 0);
        ea = index == 4 ? 0 : (uintptr_t)g[greg_of[index]] * (uintptr_t)scale;
        if ((sib & 7) == 5 && mod == 0) {
            ea += (uintptr_t)(intptr_t)read_s32(p);
            p += 4;
        } else {
            ea += (uintptr_t)g[greg_of[base]];
        }
    } else if (rm == 5 && mod == 0) {
        return 0;   /* RIP-relative: never a heap object */
    } else {
        ea = (uintptr_t)g[greg_of[rm | ((rex & 1) ? 8 : 0)]];
    }
    if (mod == 1) {
        ea += (uintptr_t)(intptr_t)(int8_t)*p;
        p += 1;
    } else if (mod == 2) {
        ea += (uintptr_t)(intptr_t)read_s32(p);
        p += 4;
    }
    uint64_t imm = 0;
    if (imm_size == 1) imm = (uint64_t)(int64_t)(int8_t)p[0];
    else if (imm_size == 2) imm = (uint64_t)(int64_t)(int16_t)(p[0] | p[1] << 8);
    else if (imm_size == 4) imm = (uint64_t)(int64_t)read_s32(p);
    p += imm_size;
    /* The whole access must lie on the opened page. */
    if (ea < lo || ea + (uintptr_t)msize > hi || ea + (uintptr_t)msize < ea) return 0;
    uint64_t m = 0;
    if (kind != STORE && kind != STORE_IMM && load(fd, ea, msize, &m) != 0) return 0;
    switch (kind) {
    case LOAD: set_reg(g, reg, m, msize); break;
    case STORE: if (store(fd, ea, (uint64_t)g[greg_of[reg]], msize) != 0) return 0; break;
    case STORE_IMM: if (store(fd, ea, imm, msize) != 0) return 0; break;
    case MOVZX: set_reg(g, reg, m, size); break;
    case ALU_REG_RM:
    case ALU_RM_REG:
    case ALU_RM_IMM: {
        uint64_t r, flags;
        uint64_t regv = (uint64_t)g[greg_of[reg]];
        if (kind == ALU_REG_RM) {
            flags = alu(opn, regv, m, msize, &r);
            set_reg(g, reg, r, msize);
        } else {
            flags = alu(opn, m, kind == ALU_RM_IMM ? imm : regv, msize, &r);
            if (store(fd, ea, r, msize) != 0) return 0;
        }
        g[REG_EFL] = (greg_t)(((uint64_t)g[REG_EFL] & ~(uint64_t)FL_ARITH) | flags);
        break;
    }
    case MOVSX: set_reg(g, reg, sign_extend(m, msize), size); break;
    case CMP_RM_REG:
    case CMP_REG_RM:
    case CMP_IMM:
    case TEST_REG:
    case TEST_IMM: {
        uint64_t flags;
        uint64_t other = kind == CMP_IMM || kind == TEST_IMM ? imm : (uint64_t)g[greg_of[reg]];
        if (kind == TEST_REG || kind == TEST_IMM) flags = hp_ldv_flags_and(m, other, msize);
        else if (kind == CMP_REG_RM) flags = hp_ldv_flags_sub(other, m, msize);
        else flags = hp_ldv_flags_sub(m, other, msize);
        g[REG_EFL] = (greg_t)(((uint64_t)g[REG_EFL] & ~(uint64_t)FL_ARITH) | flags);
        break;
    }
    }
    g[REG_RIP] = (greg_t)(uintptr_t)p;
    return 1;
}
/* ---- end of signal-handler code ---- */
