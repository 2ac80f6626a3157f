/* hp_ldv_emul_sigsafe: performs, inside the SIGSEGV handler, the one
 * instruction that faulted on a protected page, so that the handler can
 * protect the page again at once: the same effect as single-stepping the
 * instruction with the trap flag, without the SIGTRAP, which costs several
 * times the fault itself (about 18 us against 4 us on a VM).
 *
 * The instruction is performed by the bursts' interpreter
 * (hp_ldv_x86_sigsafe.c: the common integer subset of x86-64), restricted
 * to the faulting page: every memory access it makes must lie on that
 * page (read or written in place when the page is open, or through the
 * descriptor on /proc/self/mem when it is not: hp_ldv_peek_sigsafe.c), and
 * it must make one -- an instruction that reaches no byte of the page did
 * not fault there. Anything else (an access elsewhere, AVX, string and
 * locked instructions, FS/GS-relative or 32-bit addressing) is declined,
 * nothing changed, and single-stepped as before. The 16-byte SSE moves
 * are performed on the interrupted context's XMM registers (its FXSAVE
 * area, restored by sigreturn) when the caller gives them: a compiled
 * memset or struct copy of 16 to 64 bytes is such moves (until
 * 2026-11-29 they were stepped, a SIGTRAP and two mprotects each, where
 * the adaptive policy runs no burst: a fault on an object made since the
 * pass, bench/ldv_precision.c's new objects' initialisation, a fifth of
 * its faults).
 *
 * ---- Async-signal-safe throughout: pure computation on the interrupted
 * context and the faulting page. ---- */
#include "ldv/hp_ldv_internal.h"
#include "ldv/hp_ldv_x86.h"

#include <string.h>

typedef struct on_page {
    uintptr_t lo, hi;   /* the page */
    int fd;             /* /proc/self/mem, or -1: in place */
    int reached;        /* an access was made on it */
} on_page;

static int within(const on_page *o, uintptr_t a, int n)
{
    return a >= o->lo && a + (uintptr_t)n <= o->hi && a + (uintptr_t)n > a;
}

static int page_read(void *ctx, uintptr_t a, void *buf, int n)
{
    on_page *o = ctx;
    if (!within(o, a, n)) return -1;
    if (o->fd >= 0) {
        if (hp_ldv_peek(o->fd, a, buf, (size_t)n) != 0) return -1;
    } else {
        memcpy(buf, (const void *)a, (size_t)n);
    }
    o->reached = 1;
    return 0;
}

static int page_write(void *ctx, uintptr_t a, const void *buf, int n)
{
    on_page *o = ctx;
    if (!within(o, a, n)) return -1;
    if (o->fd >= 0) {
        if (hp_ldv_poke(o->fd, a, buf, (size_t)n) != 0) return -1;
    } else {
        memcpy((void *)a, buf, (size_t)n);
    }
    o->reached = 1;
    return 0;
}

int hp_ldv_emulate(greg_t *g, uint8_t (*xmm)[16], uintptr_t lo, uintptr_t hi, int fd)
{
    greg_t before[NGREG];
    memcpy(before, g, sizeof before);
    on_page o = {lo, hi, fd, 0};
    int xmm_written = 0;
    hp_x86_mem m = {page_read, page_write, &o, xmm, &xmm_written};
    uint8_t xmm_before[16][16];
    if (xmm) memcpy(xmm_before, xmm, sizeof xmm_before);
    uint64_t undef;
    if (!hp_x86_step(g, &m, &undef)) return 0;
    if (!o.reached) {   /* (registers only: not the faulting access) */
        memcpy(g, before, sizeof before);
        if (xmm_written) memcpy(xmm, xmm_before, sizeof xmm_before);
        return 0;
    }
    return 1;
}
/* ---- end of signal-handler code ---- */
