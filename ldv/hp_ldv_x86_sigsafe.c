/* hp_ldv_x86_sigsafe: one x86-64 instruction of the common integer subset
 * performed on a saved context (see hp_ldv_x86.h): what compiled C does
 * between two heap accesses -- MOV, LEA, MOVZX/MOVSX, ADD/OR/AND/SUB/XOR/
 * CMP/TEST, INC/DEC/NEG/NOT, the shifts by a count, IMUL, CMOVcc, SETcc,
 * PUSH/POP/LEAVE, CALL/RET/JMP (direct and indirect) and Jcc, NOPs and
 * ENDBR64, and the 16-byte SSE moves between an XMM register and memory
 * (MOVUPS/MOVAPS/MOVDQU/MOVDQA: libgc clears memory with them). Everything
 * else declines: string, SSE/AVX, locked and system
 * instructions, ADC/SBB, MUL/DIV, rotations, FS/GS-relative and 16-bit
 * addressing.
 *
 * Invariant: an instruction either completes as the CPU would have done
 * it or changes nothing. It is decoded whole first; its memory read (at
 * most one) comes next, then its result is computed, then its memory
 * write (at most one), and only then are the registers set -- so a
 * callback that declines leaves the context as it was.
 *
 * tests/unit/test_ldv_x86.c checks it against the CPU itself, single-
 * stepping compiled code and comparing every register, the defined flags
 * and every store after each instruction.
 *
 * ---- Async-signal-safe throughout: pure computation on the context. ---- */
#include "ldv/hp_ldv_x86.h"
#include "core/hp_bits.h"

#include <string.h>

static const int greg_of[16] = {
    REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
    REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
};

#define CF 0x001u
#define PF 0x004u
#define AF 0x010u
#define ZF 0x040u
#define SF 0x080u
#define OF 0x800u
#define ARITH (CF | PF | AF | ZF | SF | OF)

static uint64_t mask_of(int size)
{
    return size == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (size * 8)) - 1;
}

static uint64_t sext(uint64_t v, int size)
{
    switch (size) {
    case 1: return (uint64_t)(int64_t)(int8_t)v;
    case 2: return (uint64_t)(int64_t)(int16_t)v;
    case 4: return (uint64_t)(int64_t)(int32_t)v;
    default: return v;
    }
}

static uint64_t msb(uint64_t v, int size) { return v >> (size * 8 - 1) & 1; }

/* ZF, SF, PF of a result. */
static uint64_t szp(uint64_t res, int size)
{
    uint64_t f = 0;
    res &= mask_of(size);
    if (res == 0) f |= ZF;
    if (msb(res, size)) f |= SF;
    if (hp_even_parity8((unsigned)res)) f |= PF;
    return f;
}

static uint64_t flags_add(uint64_t a, uint64_t b, int size)
{
    uint64_t m = mask_of(size), res = (a + b) & m;
    a &= m;
    b &= m;
    uint64_t f = szp(res, size);
    if (res < a) f |= CF;
    if (msb((a ^ res) & (b ^ res), size)) f |= OF;
    if ((a ^ b ^ res) & 0x10) f |= AF;
    return f;
}

uint64_t hp_x86_flags_sub(uint64_t a, uint64_t b, int size)
{
    uint64_t m = mask_of(size), res = (a - b) & m;
    a &= m;
    b &= m;
    uint64_t f = szp(res, size);
    if (a < b) f |= CF;
    if (msb((a ^ b) & (a ^ res), size)) f |= OF;
    if ((a ^ b ^ res) & 0x10) f |= AF;
    return f;
}

uint64_t hp_x86_flags_and(uint64_t a, uint64_t b, int size) { return szp(a & b, size); }

/* The condition of Jcc/SETcc/CMOVcc number cc on flags fl. */
static int cond(int cc, uint64_t fl)
{
    int r;
    int sf = !!(fl & SF), of = !!(fl & OF);
    switch (cc >> 1) {
    case 0: r = !!(fl & OF); break;
    case 1: r = !!(fl & CF); break;
    case 2: r = !!(fl & ZF); break;
    case 3: r = !!(fl & (CF | ZF)); break;
    case 4: r = sf; break;
    case 5: r = !!(fl & PF); break;
    case 6: r = sf != of; break;
    default: r = (fl & ZF) || sf != of; break;
    }
    return (cc & 1) ? !r : r;
}

/* Register r of `size` bytes (with REX: SPL..DIL; without: AH..BH for 4-7). */
static uint64_t get_reg(const greg_t *g, int r, int size, int rex)
{
    if (size == 1 && !rex && r >= 4 && r < 8) return ((uint64_t)g[greg_of[r - 4]] >> 8) & 0xff;
    return (uint64_t)g[greg_of[r]] & mask_of(size);
}

/* Write r as an instruction of operand size `size` does: 32-bit writes
 * clear the upper half, 8- and 16-bit ones keep the rest. */
static void set_reg(greg_t *g, int r, uint64_t v, int size, int rex)
{
    if (size == 1 && !rex && r >= 4 && r < 8) {
        uint64_t old = (uint64_t)g[greg_of[r - 4]];
        g[greg_of[r - 4]] = (greg_t)((old & ~(uint64_t)0xff00) | (v & 0xff) << 8);
        return;
    }
    uint64_t old = (uint64_t)g[greg_of[r]], m = mask_of(size);
    g[greg_of[r]] = (greg_t)(size == 8 ? v : size == 4 ? (v & m) : ((old & ~m) | (v & m)));
}

typedef struct insn {
    const uint8_t *p;     /* cursor */
    int rex, size;        /* REX byte; operand size of the non-byte forms */
    int mod, reg, rm;     /* ModRM: reg with REX.R, rm with REX.B */
    int rip_rel;          /* the memory operand is RIP-relative */
    uintptr_t ea;         /* its address (RIP-relative: less the end; see ea_of) */
} insn;

/* The memory operand's address. Every form takes its immediates before
 * its memory access, so `p` is then the instruction's end, which a
 * RIP-relative address counts from. */
static uintptr_t ea_of(const insn *in)
{
    return in->ea + (in->rip_rel ? (uintptr_t)in->p : 0);
}

static int32_t s32(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* ModRM and, for a memory operand, SIB and displacement. */
static void modrm(const greg_t *g, insn *in)
{
    uint8_t b = *in->p++;
    in->mod = b >> 6;
    in->reg = ((b >> 3) & 7) | ((in->rex & 4) ? 8 : 0);
    int rm = b & 7;
    in->rip_rel = 0;
    in->ea = 0;
    if (in->mod == 3) {
        in->rm = rm | ((in->rex & 1) ? 8 : 0);
        return;
    }
    in->rm = -1;
    uintptr_t ea;
    if (rm == 4) {
        uint8_t sib = *in->p++;
        int index = ((sib >> 3) & 7) | ((in->rex & 2) ? 8 : 0);
        int base = (sib & 7) | ((in->rex & 1) ? 8 : 0);
        ea = index == 4 ? 0 : (uintptr_t)g[greg_of[index]] << (sib >> 6);
        if ((sib & 7) == 5 && in->mod == 0) {
            ea += (uintptr_t)(intptr_t)s32(in->p);
            in->p += 4;
        } else {
            ea += (uintptr_t)g[greg_of[base]];
        }
    } else if (rm == 5 && in->mod == 0) {
        in->rip_rel = 1;
        ea = (uintptr_t)(intptr_t)s32(in->p);
        in->p += 4;
    } else {
        ea = (uintptr_t)g[greg_of[rm | ((in->rex & 1) ? 8 : 0)]];
    }
    if (in->mod == 1) {
        ea += (uintptr_t)(intptr_t)(int8_t)*in->p;
        in->p += 1;
    } else if (in->mod == 2) {
        ea += (uintptr_t)(intptr_t)s32(in->p);
        in->p += 4;
    }
    in->ea = ea;
}

/* Immediate of n bytes (1, 2, 4; 8 only for MOV r64, imm64), sign-extended. */
static uint64_t imm(insn *in, int n)
{
    uint64_t v;
    switch (n) {
    case 1: v = (uint64_t)(int64_t)(int8_t)in->p[0]; break;
    case 2: { int16_t x; memcpy(&x, in->p, 2); v = (uint64_t)(int64_t)x; break; }
    case 4: v = (uint64_t)(int64_t)s32(in->p); break;
    default: memcpy(&v, in->p, 8); break;
    }
    in->p += n;
    return v;
}

static int rd(const hp_x86_mem *m, uintptr_t a, int n, uint64_t *out)
{
    uint8_t b[8];
    if (a + (uintptr_t)n < a || m->read(m->ctx, a, b, n) != 0) return -1;
    uint64_t v = 0;
    memcpy(&v, b, (size_t)n);   /* little-endian */
    *out = v;
    return 0;
}

static int wr(const hp_x86_mem *m, uintptr_t a, uint64_t v, int n)
{
    uint8_t b[8];
    memcpy(b, &v, (size_t)n);
    if (a + (uintptr_t)n < a) return -1;
    return m->write(m->ctx, a, b, n);
}

/* The r/m operand's value (register or memory). */
static int get_rm(const greg_t *g, const hp_x86_mem *m, const insn *in, int size, uint64_t *out)
{
    if (in->mod == 3) {
        *out = get_reg(g, in->rm, size, in->rex);
        return 0;
    }
    return rd(m, ea_of(in), size, out);
}

/* Write the r/m operand: memory now (the last side effect), a register
 * by the caller's commit -- so this only writes memory; a register r/m
 * is set by set_rm_reg after. */
static int put_rm_mem(const hp_x86_mem *m, const insn *in, uint64_t v, int size)
{
    return in->mod == 3 ? 0 : wr(m, ea_of(in), v, size);
}

static void set_rm_reg(greg_t *g, const insn *in, uint64_t v, int size)
{
    if (in->mod == 3) set_reg(g, in->rm, v, size, in->rex);
}

static void set_flags(greg_t *g, uint64_t f, uint64_t which)
{
    g[REG_EFL] = (greg_t)(((uint64_t)g[REG_EFL] & ~which) | (f & which));
}

/* ALU operation opn (0 ADD, 1 OR, 4 AND, 5 SUB, 6 XOR, 7 CMP): result, flags. */
static int alu(int opn, uint64_t a, uint64_t b, int size, uint64_t *res, uint64_t *fl)
{
    switch (opn) {
    case 0: *res = a + b; *fl = flags_add(a, b, size); return 0;
    case 5: case 7: *res = a - b; *fl = hp_x86_flags_sub(a, b, size); return 0;
    case 1: *res = a | b; break;
    case 4: *res = a & b; break;
    case 6: *res = a ^ b; break;
    default: return -1;   /* ADC, SBB */
    }
    *fl = szp(*res, size);   /* CF = OF = 0; AF undefined, 0 on the CPU */
    return 0;
}

static int push(greg_t *g, const hp_x86_mem *m, uint64_t v)
{
    uintptr_t sp = (uintptr_t)g[REG_RSP] - 8;
    if (wr(m, sp, v, 8) != 0) return -1;
    g[REG_RSP] = (greg_t)sp;
    return 0;
}

/* The 16-byte moves between an XMM register and memory (in.p at the
 * second opcode byte): 0F 10/11 MOVUPS, 0F 28/29 MOVAPS, 66: MOVUPD/
 * MOVAPD, 66 0F 6F/7F MOVDQA, F3 0F 6F/7F MOVDQU. Register-to-register
 * forms, VEX forms and the scalar ones (F3/F2 0F 10/11) decline. */
static int sse_move(greg_t *g, const hp_x86_mem *m, insn *in, int osz16, int rep)
{
    uint8_t op = in->p[0];
    if (!m->xmm) return 0;
    if (op == 0x6f || op == 0x7f) {
        if (osz16 == rep) return 0;   /* (0F 6F/7F alone: MMX) */
    } else if (rep) {
        return 0;                     /* MOVSS */
    }
    int aligned = op == 0x28 || op == 0x29 || (op >= 0x6f && osz16);
    int store = op == 0x11 || op == 0x29 || op == 0x7f;
    in->p++;
    modrm(g, in);
    if (in->mod == 3) return 0;
    uintptr_t ea = ea_of(in);
    if (aligned && (ea & 15)) return 0;   /* (#GP on the CPU) */
    uint8_t *x = m->xmm[in->reg];
    if (store) {
        if (ea + 16 < ea || m->write(m->ctx, ea, x, 16) != 0) return 0;
    } else {
        uint8_t b[16];
        if (ea + 16 < ea || m->read(m->ctx, ea, b, 16) != 0) return 0;
        memcpy(x, b, 16);
        if (m->xmm_written) *m->xmm_written = 1;
    }
    g[REG_RIP] = (greg_t)(uintptr_t)in->p;
    return 1;
}

int hp_x86_step(greg_t *g, const hp_x86_mem *m, uint64_t *undef)
{
    insn in;
    memset(&in, 0, sizeof in);
    in.p = (const uint8_t *)g[REG_RIP];
    int osz16 = 0, rep = 0;
    *undef = 0;
    for (int k = 0; k < 4; k++) {
        uint8_t b = *in.p;
        if (b == 0x66) osz16 = 1;
        else if (b == 0xf3) rep = 1;
        else if (b == 0x2e || b == 0x3e || b == 0x26 || b == 0x36) ;
        else break;
        in.p++;
    }
    if ((*in.p & 0xf0) == 0x40) in.rex = *in.p++;
    in.size = (in.rex & 8) ? 8 : osz16 ? 2 : 4;
    uint8_t op = *in.p++;
    int size = in.size;
    uint64_t a, b, res, fl;

    if (op == 0x0f && (in.p[0] == 0x10 || in.p[0] == 0x11 || in.p[0] == 0x28 ||
                       in.p[0] == 0x29 || in.p[0] == 0x6f || in.p[0] == 0x7f))
        return sse_move(g, m, &in, osz16, rep);
    if (rep) {   /* otherwise only ENDBR64 (F3 0F 1E FA) and REP RET */
        if (op == 0x0f && in.p[0] == 0x1e && in.p[1] == 0xfa && !osz16 && !in.rex) {
            g[REG_RIP] = (greg_t)(uintptr_t)(in.p + 2);
            return 1;
        }
        if (op == 0xc3 && !osz16 && !in.rex) goto ret;
        return 0;
    }

    if (op == 0x0f) {
        op = *in.p++;
        if (op >= 0x80 && op <= 0x8f) {   /* Jcc rel32 */
            int32_t d = s32(in.p);
            in.p += 4;
            uintptr_t next = (uintptr_t)in.p;
            g[REG_RIP] = (greg_t)(cond(op & 15, (uint64_t)g[REG_EFL]) ? next + (uintptr_t)(intptr_t)d : next);
            return 1;
        }
        if (op == 0x1f) {   /* NOP r/m: no access */
            modrm(g, &in);
            g[REG_RIP] = (greg_t)(uintptr_t)in.p;
            return 1;
        }
        if (op >= 0x40 && op <= 0x4f) {   /* CMOVcc r, r/m (reads memory either way) */
            modrm(g, &in);
            if (get_rm(g, m, &in, size, &a) != 0) return 0;
            if (cond(op & 15, (uint64_t)g[REG_EFL])) set_reg(g, in.reg, a, size, in.rex);
            else if (size == 4) set_reg(g, in.reg, get_reg(g, in.reg, 4, in.rex), 4, in.rex);
            g[REG_RIP] = (greg_t)(uintptr_t)in.p;
            return 1;
        }
        if (op >= 0x90 && op <= 0x9f) {   /* SETcc r/m8 */
            modrm(g, &in);
            uint64_t v = (uint64_t)cond(op & 15, (uint64_t)g[REG_EFL]);
            if (put_rm_mem(m, &in, v, 1) != 0) return 0;
            set_rm_reg(g, &in, v, 1);
            g[REG_RIP] = (greg_t)(uintptr_t)in.p;
            return 1;
        }
        if (op == 0xaf) {   /* IMUL r, r/m */
            modrm(g, &in);
            if (get_rm(g, m, &in, size, &b) != 0) return 0;
            a = get_reg(g, in.reg, size, in.rex);
            goto imul;
        }
        if (op == 0xb6 || op == 0xb7 || op == 0xbe || op == 0xbf) {   /* MOVZX, MOVSX */
            int ms = (op & 1) ? 2 : 1;
            modrm(g, &in);
            if (get_rm(g, m, &in, ms, &a) != 0) return 0;
            set_reg(g, in.reg, op >= 0xbe ? sext(a, ms) : a, size, in.rex);
            g[REG_RIP] = (greg_t)(uintptr_t)in.p;
            return 1;
        }
        return 0;
    }

    /* One-byte map. */
    if (op < 0x40 && (op & 7) <= 5) {   /* ALU: 00-05 08-0d 20-25 28-2d 30-35 38-3d */
        int opn = op >> 3;
        if (opn == 2 || opn == 3) return 0;   /* ADC, SBB */
        int form = op & 7;
        int bsize = (form & 1) ? size : 1;
        if (form == 4 || form == 5) {   /* AL/eAX, imm */
            a = get_reg(g, 0, bsize, in.rex);
            b = imm(&in, bsize == 1 ? 1 : bsize == 2 ? 2 : 4);
            if (alu(opn, a, b, bsize, &res, &fl) != 0) return 0;
            if (opn != 7) set_reg(g, 0, res, bsize, in.rex);
        } else {
            modrm(g, &in);
            uint64_t rmv;
            if (get_rm(g, m, &in, bsize, &rmv) != 0) return 0;
            uint64_t rv = get_reg(g, in.reg, bsize, in.rex);
            if (form <= 1) {   /* r/m op= r */
                if (alu(opn, rmv, rv, bsize, &res, &fl) != 0) return 0;
                if (opn != 7) {
                    if (put_rm_mem(m, &in, res, bsize) != 0) return 0;
                    set_rm_reg(g, &in, res, bsize);
                }
            } else {           /* r op= r/m */
                if (alu(opn, rv, rmv, bsize, &res, &fl) != 0) return 0;
                if (opn != 7) set_reg(g, in.reg, res, bsize, in.rex);
            }
        }
        set_flags(g, fl, ARITH);
        if (opn == 1 || opn == 4 || opn == 6) *undef = AF;
        g[REG_RIP] = (greg_t)(uintptr_t)in.p;
        return 1;
    }
    if (op >= 0x50 && op <= 0x57) {   /* PUSH r64 */
        if (osz16) return 0;
        int r = (op & 7) | ((in.rex & 1) ? 8 : 0);
        if (push(g, m, (uint64_t)g[greg_of[r]]) != 0) return 0;
        g[REG_RIP] = (greg_t)(uintptr_t)in.p;
        return 1;
    }
    if (op >= 0x58 && op <= 0x5f) {   /* POP r64 */
        if (osz16) return 0;
        int r = (op & 7) | ((in.rex & 1) ? 8 : 0);
        uintptr_t sp = (uintptr_t)g[REG_RSP];
        if (rd(m, sp, 8, &a) != 0) return 0;
        g[REG_RSP] = (greg_t)(sp + 8);
        g[greg_of[r]] = (greg_t)a;   /* (POP RSP: the value read) */
        g[REG_RIP] = (greg_t)(uintptr_t)in.p;
        return 1;
    }
    if (op == 0x63) {   /* MOVSXD r64, r/m32 */
        if (!(in.rex & 8)) return 0;
        modrm(g, &in);
        if (get_rm(g, m, &in, 4, &a) != 0) return 0;
        set_reg(g, in.reg, sext(a, 4), 8, in.rex);
        g[REG_RIP] = (greg_t)(uintptr_t)in.p;
        return 1;
    }
    if (op == 0x69 || op == 0x6b) {   /* IMUL r, r/m, imm */
        modrm(g, &in);
        int n = op == 0x6b ? 1 : size == 2 ? 2 : 4;
        b = imm(&in, n);
        if (get_rm(g, m, &in, size, &a) != 0) return 0;
        goto imul;
    }
    if (op >= 0x70 && op <= 0x7f) {   /* Jcc rel8 */
        int8_t d = (int8_t)*in.p++;
        uintptr_t next = (uintptr_t)in.p;
        g[REG_RIP] = (greg_t)(cond(op & 15, (uint64_t)g[REG_EFL]) ? next + (uintptr_t)(intptr_t)d : next);
        return 1;
    }
    if (op == 0x80 || op == 0x81 || op == 0x83) {   /* group 1: op r/m, imm */
        int bsize = op == 0x80 ? 1 : size;
        modrm(g, &in);
        int opn = in.reg & 7;
        b = imm(&in, op == 0x81 ? (size == 2 ? 2 : 4) : 1);
        if (get_rm(g, m, &in, bsize, &a) != 0) return 0;
        if (alu(opn, a, b, bsize, &res, &fl) != 0) return 0;
        if (opn != 7) {
            if (put_rm_mem(m, &in, res, bsize) != 0) return 0;
            set_rm_reg(g, &in, res, bsize);
        }
        set_flags(g, fl, ARITH);
        if (opn == 1 || opn == 4 || opn == 6) *undef = AF;
        g[REG_RIP] = (greg_t)(uintptr_t)in.p;
        return 1;
    }
    if (op == 0x84 || op == 0x85) {   /* TEST r/m, r */
        int bsize = op == 0x84 ? 1 : size;
        modrm(g, &in);
        if (get_rm(g, m, &in, bsize, &a) != 0) return 0;
        set_flags(g, szp(a & get_reg(g, in.reg, bsize, in.rex), bsize), ARITH);
        *undef = AF;
        g[REG_RIP] = (greg_t)(uintptr_t)in.p;
        return 1;
    }
    if (op >= 0x88 && op <= 0x8b) {   /* MOV */
        int bsize = (op & 1) ? size : 1;
        modrm(g, &in);
        if (op <= 0x89) {   /* r/m <- r */
            uint64_t v = get_reg(g, in.reg, bsize, in.rex);
            if (put_rm_mem(m, &in, v, bsize) != 0) return 0;
            set_rm_reg(g, &in, v, bsize);
        } else {
            if (get_rm(g, m, &in, bsize, &a) != 0) return 0;
            set_reg(g, in.reg, a, bsize, in.rex);
        }
        g[REG_RIP] = (greg_t)(uintptr_t)in.p;
        return 1;
    }
    if (op == 0x8d) {   /* LEA */
        modrm(g, &in);
        if (in.mod == 3) return 0;
        set_reg(g, in.reg, ea_of(&in), size, in.rex);
        g[REG_RIP] = (greg_t)(uintptr_t)in.p;
        return 1;
    }
    if (op == 0x90) {   /* NOP (with REX.B: XCHG r8, RAX) */
        if (in.rex & 1) return 0;
        g[REG_RIP] = (greg_t)(uintptr_t)in.p;
        return 1;
    }
    if (op == 0x98) {   /* CBW/CWDE/CDQE */
        int half = size / 2;
        set_reg(g, 0, sext(get_reg(g, 0, half, in.rex), half), size, in.rex);
        g[REG_RIP] = (greg_t)(uintptr_t)in.p;
        return 1;
    }
    if (op == 0x99) {   /* CWD/CDQ/CQO */
        uint64_t s = msb(get_reg(g, 0, size, in.rex), size) ? ~(uint64_t)0 : 0;
        set_reg(g, 2, s, size, in.rex);
        g[REG_RIP] = (greg_t)(uintptr_t)in.p;
        return 1;
    }
    if (op == 0xa8 || op == 0xa9) {   /* TEST AL/eAX, imm */
        int bsize = op == 0xa8 ? 1 : size;
        b = imm(&in, bsize == 1 ? 1 : bsize == 2 ? 2 : 4);
        set_flags(g, szp(get_reg(g, 0, bsize, in.rex) & b, bsize), ARITH);
        *undef = AF;
        g[REG_RIP] = (greg_t)(uintptr_t)in.p;
        return 1;
    }
    if (op >= 0xb0 && op <= 0xbf) {   /* MOV r, imm */
        int r = (op & 7) | ((in.rex & 1) ? 8 : 0);
        int bsize = op < 0xb8 ? 1 : size;
        uint64_t v = imm(&in, bsize == 8 ? 8 : bsize == 1 ? 1 : bsize == 2 ? 2 : 4);
        set_reg(g, r, v, bsize, in.rex);
        g[REG_RIP] = (greg_t)(uintptr_t)in.p;
        return 1;
    }
    if (op == 0xc0 || op == 0xc1 || op == 0xd0 || op == 0xd1 || op == 0xd2 || op == 0xd3) {
        int bsize = (op & 1) ? size : 1;
        modrm(g, &in);
        int kind = in.reg & 7;   /* 4 SHL, 5 SHR, 7 SAR */
        if (kind != 4 && kind != 5 && kind != 7) return 0;
        unsigned c = op <= 0xc1 ? (unsigned)*in.p++ : op <= 0xd1 ? 1u : (unsigned)g[REG_RCX] & 0xff;
        c &= size == 8 ? 63u : 31u;
        unsigned bits = (unsigned)bsize * 8;
        if (c == 0 || c >= bits) return 0;   /* (no change, or CF undefined) */
        if (get_rm(g, m, &in, bsize, &a) != 0) return 0;
        uint64_t out;
        if (kind == 4) {
            res = a << c;
            out = a >> (bits - c) & 1;
            fl = szp(res, bsize) | (out ? CF : 0) | ((msb(res, bsize) ^ out) ? OF : 0);
        } else if (kind == 5) {
            res = a >> c;
            out = a >> (c - 1) & 1;
            fl = szp(res, bsize) | (out ? CF : 0) | (msb(a, bsize) ? OF : 0);
        } else {
            uint64_t s = sext(a, bsize);
            res = (uint64_t)((int64_t)s >> c);
            out = (uint64_t)((int64_t)s >> (c - 1)) & 1;
            fl = szp(res, bsize) | (out ? CF : 0);
        }
        res &= mask_of(bsize);
        if (put_rm_mem(m, &in, res, bsize) != 0) return 0;
        set_rm_reg(g, &in, res, bsize);
        set_flags(g, fl, ARITH);
        *undef = AF | (c != 1 ? OF : 0);
        g[REG_RIP] = (greg_t)(uintptr_t)in.p;
        return 1;
    }
    if (op == 0xc3) {   /* RET */
    ret:;
        uintptr_t sp = (uintptr_t)g[REG_RSP];
        if (rd(m, sp, 8, &a) != 0) return 0;
        g[REG_RSP] = (greg_t)(sp + 8);
        g[REG_RIP] = (greg_t)a;
        return 1;
    }
    if (op == 0xc6 || op == 0xc7) {   /* MOV r/m, imm */
        int bsize = op == 0xc6 ? 1 : size;
        modrm(g, &in);
        if ((in.reg & 7) != 0) return 0;
        uint64_t v = imm(&in, bsize == 1 ? 1 : bsize == 2 ? 2 : 4);
        if (put_rm_mem(m, &in, v, bsize) != 0) return 0;
        set_rm_reg(g, &in, v, bsize);
        g[REG_RIP] = (greg_t)(uintptr_t)in.p;
        return 1;
    }
    if (op == 0xc9) {   /* LEAVE */
        if (osz16) return 0;
        uintptr_t sp = (uintptr_t)g[REG_RBP];
        if (rd(m, sp, 8, &a) != 0) return 0;
        g[REG_RSP] = (greg_t)(sp + 8);
        g[REG_RBP] = (greg_t)a;
        g[REG_RIP] = (greg_t)(uintptr_t)in.p;
        return 1;
    }
    if (op == 0xe8 || op == 0xe9 || op == 0xeb) {   /* CALL rel32, JMP rel32/rel8 */
        if (osz16) return 0;
        intptr_t d = op == 0xeb ? (intptr_t)(int8_t)*in.p++ : (intptr_t)s32(in.p);
        if (op != 0xeb) in.p += 4;
        uintptr_t next = (uintptr_t)in.p;
        if (op == 0xe8 && push(g, m, next) != 0) return 0;
        g[REG_RIP] = (greg_t)(next + (uintptr_t)d);
        return 1;
    }
    if (op == 0xf6 || op == 0xf7) {   /* group 3: TEST imm, NOT, NEG */
        int bsize = op == 0xf6 ? 1 : size;
        modrm(g, &in);
        int kind = in.reg & 7;
        if (kind == 0 || kind == 1) b = imm(&in, bsize == 1 ? 1 : bsize == 2 ? 2 : 4);
        else if (kind != 2 && kind != 3) return 0;   /* MUL, IMUL, DIV, IDIV */
        if (get_rm(g, m, &in, bsize, &a) != 0) return 0;
        if (kind <= 1) {
            set_flags(g, szp(a & b, bsize), ARITH);
            *undef = AF;
        } else {
            res = kind == 2 ? ~a : (uint64_t)0 - a;
            if (put_rm_mem(m, &in, res & mask_of(bsize), bsize) != 0) return 0;
            set_rm_reg(g, &in, res, bsize);
            if (kind == 3) set_flags(g, hp_x86_flags_sub(0, a, bsize), ARITH);
        }
        g[REG_RIP] = (greg_t)(uintptr_t)in.p;
        return 1;
    }
    if (op == 0xfe || op == 0xff) {   /* group 4/5: INC, DEC, CALL/JMP indirect */
        int bsize = op == 0xfe ? 1 : size;
        modrm(g, &in);
        int kind = in.reg & 7;
        if (kind == 0 || kind == 1) {
            if (get_rm(g, m, &in, bsize, &a) != 0) return 0;
            res = kind == 0 ? a + 1 : a - 1;
            fl = kind == 0 ? flags_add(a, 1, bsize) : hp_x86_flags_sub(a, 1, bsize);
            if (put_rm_mem(m, &in, res & mask_of(bsize), bsize) != 0) return 0;
            set_rm_reg(g, &in, res, bsize);
            set_flags(g, fl, ARITH & ~CF);
            g[REG_RIP] = (greg_t)(uintptr_t)in.p;
            return 1;
        }
        if (op == 0xff && (kind == 2 || kind == 4) && !osz16) {
            if (get_rm(g, m, &in, 8, &a) != 0) return 0;
            if (in.mod == 3) a = (uint64_t)g[greg_of[in.rm]];
            if (kind == 2 && push(g, m, (uint64_t)(uintptr_t)in.p) != 0) return 0;
            g[REG_RIP] = (greg_t)a;
            return 1;
        }
        return 0;
    }
    return 0;

imul: {
        __int128 full = (__int128)(int64_t)sext(a, size) * (__int128)(int64_t)sext(b, size);
        res = (uint64_t)full & mask_of(size);
        int over = full != (__int128)(int64_t)sext(res, size);
        set_reg(g, in.reg, res, size, in.rex);
        set_flags(g, over ? (CF | OF) : 0, CF | OF);
        *undef = SF | ZF | AF | PF;
        g[REG_RIP] = (greg_t)(uintptr_t)in.p;
        return 1;
    }
}
/* ---- end of signal-handler code ---- */
