/* hp_ldv_burst_sigsafe: at a fault on a protected page, perform the
 * faulting instruction and go on with the program's next ones in the
 * handler (hp_ldv_x86_sigsafe.c), so that one fault sees the uses of
 * several: a walk over a tree or a list touches object after object on the
 * same protected pages, each of which would otherwise fault (about 4 us
 * each on a VM) to find one use. An access to a protected page is made
 * through /proc/self/mem (hp_ldv_peek_sigsafe.c) -- while the program runs
 * one thread, on a copy of the page read once and written back once at
 * the end -- and is a use, as its fault would have been; the page stays
 * protected.
 * libgc's accesses (handing out an object from a free list on a protected
 * page: a read of its link, then a write clearing it) are emulated too,
 * but are no uses.
 *
 * The burst stops (the CPU takes over from there) at an instruction the
 * emulator does not know, at heapprof's own code, at an access it may not
 * make, when a number of instructions have passed without touching a
 * protected page (a loop that never does would cost more emulated than a
 * fault), under the adaptive policy when its last FRUITLESS_PEEKS
 * system calls on the descriptor found no new use (Note [Bursts that
 * find nothing]), or at a hard limit (instructions, or system calls on
 * the descriptor: while a burst runs the thread holds off the collector).
 *
 * Note [Bursts that find nothing]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A burst's cost is mostly its reads of protected pages through the
 * descriptor (and their writes back): w3m -dump of a 1000-row table made
 * 6,663 bursts reading 66,727 pages for 7,599 new uses, and they spent
 * most of the adaptive policy's budget (542 of 550 ms). A burst going from
 * page to page over objects already used this period finds nothing the
 * page's next fault would not; stopped there, the CPU takes over and the
 * policy (its credit, its `repeat`) decides whether the page stays
 * protected. With a stop after 8 fruitless reads: 429 ms, the same bands
 * against w3m's precise run (LAG/USE/DRAG 92.2/90.8/97.9% against
 * 92.4/90.6/97.9%), and the ground-truth patterns, bench/ldv_precision.c
 * and trees.c 10 and 14 unchanged; after 4, USE as before and
 * ldv_precision 98.9% against 99.6%; after 2, w3m's USE 85.3%
 * (2026-11-29). Not under ldv=precise, where a read through the
 * descriptor is cheaper than the fault it saves (ldv_patterns hash: 3,002
 * faults, 4,171 with the stop after 4).
 *
 * Memory. What may be touched:
 *   - a protected page of heapprof's: through the descriptor, under the
 *     peek lock, and a use of the object there;
 *   - this thread's own stack, directly;
 *   - other memory, read directly once process_vm_readv has shown its
 *     page readable (a page the program protected, or no page, stops the
 *     burst, where the CPU will fault as it would have); written directly
 *     (a static variable, a malloc'd buffer) only while the program runs
 *     one thread, once process_vm_writev has written a byte of the page
 *     back as it was (with other threads, that could undo a store of
 *     theirs, so a burst stops at such a write).
 * The descriptor would write even to read-only memory: no write goes
 * through it where the program's own protection forbids one.
 *
 * The handler's own frames. Unless the thread has an alternate signal
 * stack, this handler runs on the program's stack, just below the
 * interrupted frame's red zone: a call or a push emulated from there would
 * write over the signal frame. So every write goes first to a small write
 * buffer (reads see it), which is written out only at a "safe point": an
 * instruction boundary where the emulated stack pointer is back at or
 * above the interrupted one, when everything buffered below the red zone
 * is dead and everything else can be written in order (x86's own
 * store-buffer order: other threads see the stores late but in order).
 * If the burst must stop away from a safe point, it goes back to the last
 * one: registers restored, the buffer dropped -- nothing it did since is
 * visible but the uses it saw, which the CPU then repeats.
 *
 * ---- Async-signal-safe throughout: raw system calls, the index (the
 * caller holds hp_ldv.handlers), and this handler's locals. ---- */
#include "ldv/hp_ldv_internal.h"
#include "ldv/hp_ldv_x86.h"
#include "core/hp_rt.h"
#include "core/hp_sys.h"
#include "core/hp_thread.h"

#include <string.h>

#define WB_MAX 96          /* buffered writes */
#define IDLE_MAX 48        /* instructions without a protected access */
#define HARD_MAX 4096      /* instructions in one burst */
#define PEEKS_MAX 256      /* system calls on the descriptor in one burst: while it
                              runs, the thread holds off the collector's stop
                              signal and other threads' collections (hp_ldv.handlers) */
#define CACHED 2           /* protected pages copied whole this burst */
#define FRUITLESS_PEEKS 8  /* adaptive: system calls on the descriptor since the
                              burst's last new use (Note [Bursts that find nothing]) */

typedef struct wb_ent { uintptr_t a; uint8_t n; uint8_t b[16]; } wb_ent;

typedef struct burst {
    int fd;                        /* /proc/self/mem, or -1 */
    uintptr_t rsp0;                /* the interrupted stack pointer */
    uintptr_t own_lo, own_hi;      /* the handler's frames on the program's stack (or empty) */
    uintptr_t stack_lo, stack_hi;  /* this thread's stack */
    uintptr_t code_pg;             /* page number + 1 of code known readable */
    wb_ent wb[WB_MAX];
    unsigned nwb;
    int solo;                      /* no other thread of the program runs */
    uintptr_t cached[CACHED];      /* page number + 1 of each copy (solo only) */
    unsigned ncached;
    uint8_t copy[CACHED][HP_PAGE];
    uint32_t dirty_lo[CACHED], dirty_hi[CACHED];   /* bytes written to the copy only */
    int touched;                   /* this instruction reached a protected page */
    int collector;                 /* ... and is libgc's: its accesses are not uses */
    int credit;                    /* adaptive, within budget: new uses earn faults */
    const hp_ldv_ent *last;        /* the object last read (its use recorded), or NULL */
    uintptr_t last_base;           /* its base and size (read once from its record) */
    uint32_t last_size;
    const hp_ldv_run *run;         /* the run last found (runs stay put while a handler runs) */
    uint64_t peeks, uses;
    uint64_t peeks_at_use;          /* peeks when the last new use was seen */
} burst;

static int cross_page(uintptr_t a, int n)
{
    return ((a & (HP_PAGE - 1)) + (uintptr_t)n) > HP_PAGE;
}

static int overlaps(uintptr_t a, int n, uintptr_t lo, uintptr_t hi)
{
    return a < hi && a + (uintptr_t)n > lo;
}

/* memcpy of an operand's n bytes (1, 2, 4, 8 or 16: the emulator's
 * accesses): a copy of a known size, a move or two, where memcpy of a
 * variable size was a `rep movs` (its start-up a third of this file's
 * time on trees.c's bursts, in the write-out of buffered pushes). */
static inline __attribute__((always_inline)) void copy_operand(void *d, const void *s, int n)
{
    switch (n) {
    case 1: memcpy(d, s, 1); break;
    case 2: memcpy(d, s, 2); break;
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    case 16: memcpy(d, s, 16); break;
    default: memcpy(d, s, (size_t)n); break;
    }
}

/* Pages seen readable, per thread, direct-mapped: data and code. Valid
 * while hp_ldv.map_gen is `gen` (the program has made no memory-map call
 * since: only one can take a page away -- or the C library's own
 * munmap when system calls are not dispatched, after which the program
 * reading there would fault in any case). */
#define KNOWN 64
typedef struct known_pages { uint64_t gen; uintptr_t pg[3][KNOWN]; } known_pages;
static __thread known_pages known __attribute__((tls_model("initial-exec")));

int hp_ldv_known_readable(uintptr_t a, int code)
{
    uint64_t gen = atomic_load_explicit(&hp_ldv.map_gen, memory_order_acquire) + 1;
    if (known.gen != gen) {
        memset(known.pg, 0, sizeof known.pg);
        known.gen = gen;
    }
    uintptr_t pg = (a >> HP_PAGE_SHIFT) + 1;
    uintptr_t *slot = &known.pg[code ? 1 : 0][pg % KNOWN];
    if (*slot == pg) return 1;
    unsigned char c;
    if (hp_sys_read_own_memory(&c, (const void *)(a & ~(uintptr_t)(HP_PAGE - 1)), 1) != 1)
        return 0;
    *slot = pg;
    return 1;
}

/* Writable: only while the program runs one thread (see above). */
static int writable(burst *b, uintptr_t a)
{
    if (!b->solo || !hp_ldv_known_readable(a, 0)) return 0;
    uintptr_t pg = (a >> HP_PAGE_SHIFT) + 1;
    uintptr_t *slot = &known.pg[2][pg % KNOWN];   /* (same generation: just checked) */
    if (*slot == pg) return 1;
    unsigned char c;
    void *p = (void *)(a & ~(uintptr_t)(HP_PAGE - 1));
    if (hp_sys_read_own_memory(&c, p, 1) != 1 || hp_sys_write_own_memory(p, &c, 1) != 1) return 0;
    *slot = pg;
    return 1;
}


/* hp_ldv_find_run(a), the run found last asked first: every access the
 * emulator makes outside the stack asks. */
static const hp_ldv_run *run_of(burst *b, uintptr_t a)
{
    const hp_ldv_run *r = b->run;
    if (r && a >= r->lo && a < r->hi) return r;
    r = hp_ldv_find_run(a);
    if (r) b->run = r;
    return r;
}

/* The index entry of a, looked for first beside the last one found (a
 * walk goes from object to object), then outwards from it. */
static const hp_ldv_ent *find(burst *b, uintptr_t a)
{
    const hp_ldv_ent *l = b->last;
    if (l) {
        /* Of the entries beside it, only the last whose base is at or
         * below a can hold a: one record read for its size. */
        size_t i = (size_t)(l - hp_ldv.ents), n = hp_ldv.nents;
        int64_t g = hp_ldv_gran_of(a);
        for (size_t k = i + 2; g >= 0 && k-- > (i ? i - 1 : 0);) {
            if (k >= n || (int64_t)hp_ldv.ents[k].gran > g) continue;
            const hp_ldv_ent *e = &hp_ldv.ents[k];
            if (a - hp_ldv_ent_base(e) < hp_ldv_ent_size(e)) return e;
            break;
        }
        return hp_ldv_find_from(l, a);
    }
    return hp_ldv_find(a);
}

/* An access to a protected page is a use of its object (unless libgc's).
 * An object read already in this burst has nothing more to tell. */
static void use(burst *b, uintptr_t a, int is_write)
{
    b->touched = 1;
    if (b->collector) return;
    if (b->last && a - b->last_base < b->last_size) return;
    const hp_ldv_ent *e = find(b, a);
    if (e && !is_write) {
        b->last = e;
        b->last_base = hp_ldv_ent_base(e);
        b->last_size = hp_ldv_ent_size(e);
    }
    int u = e ? hp_ldv_use(e, is_write) : 0;
    if (u > 0) {
        b->uses++;
        b->peeks_at_use = b->peeks;
    }
    /* (as the fault that would have found it: hp_ldv_trap_sigsafe.c) */
    if (b->credit && (u == 2 || (u == 1 && is_write)))
        hp_ldv_fruitful(a, run_of(b, a), u == 2 ? HP_LDV_CREDIT : HP_LDV_CREDIT_YOUNG);
}

/* Write back what the burst wrote to copy `slot`: one system call (or,
 * should the descriptor fail, the page opened for the copy). The
 * program's stores must land: this does not give up. */
static void write_back(burst *b, unsigned slot)
{
    if (b->dirty_hi[slot] <= b->dirty_lo[slot]) return;
    uintptr_t page = (b->cached[slot] - 1) << HP_PAGE_SHIFT;
    uint32_t lo = b->dirty_lo[slot], hi = b->dirty_hi[slot];
    int rc = -1;
    if (hp_ldv_peek_begin(page)) {
        rc = hp_ldv_poke(b->fd, page + lo, b->copy[slot] + lo, hi - lo);
        hp_ldv_peek_end();
    }
    if (rc != 0) {
        if (hp_ldv_step_open(page) == 0) {
            memcpy((void *)(page + lo), b->copy[slot] + lo, hi - lo);
            hp_ldv_reprotect_page(page);
        } else {
            hp_ldv_reprotect_page(page);   /* (gives the count back) */
            while (hp_ldv_open_page(page, hp_ldv_find_run(page)) < 0) hp_sys_sched_yield();
            memcpy((void *)(page + lo), b->copy[slot] + lo, hi - lo);   /* (open until the next pass) */
        }
    }
    b->dirty_lo[slot] = HP_PAGE;
    b->dirty_hi[slot] = 0;
}

/* A buffered store to a protected page, made at a safe point: it must
 * land (the instruction is done), so if the descriptor cannot serve, the
 * page is opened for it, as write_back does. */
static void store_protected(burst *b, uintptr_t a, const uint8_t *buf, int n);

/* Through the descriptor on a protected page. While the program runs one
 * thread, nothing but this handler can read or change the page during the
 * burst, so the burst works on a copy of it: read whole once (a read
 * through the descriptor costs a system call, and a walk reads the same
 * page again and again), written back once at the end. Otherwise each
 * access is its own read or write. */
static int protected_access(burst *b, uintptr_t a, void *buf, int n, int is_write)
{
    if (b->fd < 0) return -1;
    uint8_t *c = NULL;
    unsigned slot = 0;
    if (b->solo) {
        uintptr_t pg = (a >> HP_PAGE_SHIFT) + 1;
        for (slot = 0; slot < b->ncached && slot < CACHED; slot++)
            if (b->cached[slot] == pg) break;
        if (slot == b->ncached || slot == CACHED) {   /* copy the page, in the oldest slot */
            slot = b->ncached++ % CACHED;
            if (b->cached[slot]) write_back(b, slot);
            b->cached[slot] = 0;
            uintptr_t page = a & ~(uintptr_t)(HP_PAGE - 1);
            if (!hp_ldv_peek_begin(a)) return -1;
            int rc = hp_ldv_peek(b->fd, page, b->copy[slot], HP_PAGE);
            hp_ldv_peek_end();
            if (rc != 0) return -1;
            b->peeks++;
            b->cached[slot] = pg;
            b->dirty_lo[slot] = HP_PAGE;
            b->dirty_hi[slot] = 0;
        }
        c = b->copy[slot] + (a & (HP_PAGE - 1));
        if (!is_write) {
            copy_operand(buf, c, n);
            return 0;
        }
        copy_operand(c, buf, n);
        uint32_t off = (uint32_t)(a & (HP_PAGE - 1));
        if (off < b->dirty_lo[slot]) b->dirty_lo[slot] = off;
        if (off + (uint32_t)n > b->dirty_hi[slot]) b->dirty_hi[slot] = off + (uint32_t)n;
        return 0;
    }
    if (!hp_ldv_peek_begin(a)) return -1;
    int rc = is_write ? hp_ldv_poke(b->fd, a, buf, (size_t)n) : hp_ldv_peek(b->fd, a, buf, (size_t)n);
    hp_ldv_peek_end();
    if (rc != 0) return -1;
    b->peeks++;
    return 0;
}

static void store_protected(burst *b, uintptr_t a, const uint8_t *buf, int n)
{
    uint8_t tmp[16];
    memcpy(tmp, buf, (size_t)n);
    if (protected_access(b, a, tmp, n, 1) == 0) return;
    uintptr_t page = a & ~(uintptr_t)(HP_PAGE - 1);
    if (hp_ldv_step_open(page) == 0) {
        memcpy((void *)a, buf, (size_t)n);
        hp_ldv_reprotect_page(page);
        return;
    }
    hp_ldv_reprotect_page(page);   /* (gives the count back) */
    while (hp_ldv_open_page(page, hp_ldv_find_run(page)) < 0) hp_sys_sched_yield();
    memcpy((void *)a, buf, (size_t)n);   /* (open until the next pass) */
}

static int rd(void *ctx, uintptr_t a, void *buf, int n)
{
    burst *b = ctx;
    if (cross_page(a, n)) return -1;
    if (overlaps(a, n, b->own_lo, b->own_hi)) {
        /* Below the red zone, on the handler's frames: only what the
         * burst itself wrote there is the program's. */
        memset(buf, 0, (size_t)n);
    } else if (run_of(b, a)) {
        /* (A page the program itself made inaccessible faults for it.) */
        if (hp_ldv_prog_denies(a, 0) || protected_access(b, a, buf, n, 0) != 0) return -1;
        use(b, a, 0);
    } else {
        if (!hp_ldv_known_readable(a, 0)) return -1;
        copy_operand(buf, (const void *)a, n);
    }
    /* Then what the buffer holds there: the newest store that covers the
     * whole read is the answer (a pop after its push); else every store
     * that overlaps it, oldest first. */
    for (unsigned i = b->nwb; i-- > 0;) {
        const wb_ent *w = &b->wb[i];
        if (!overlaps(a, n, w->a, w->a + w->n)) continue;
        if (w->a <= a && a + (uintptr_t)n <= w->a + w->n) {
            copy_operand(buf, w->b + (a - w->a), n);
            return 0;
        }
        break;
    }
    for (unsigned i = 0; i < b->nwb; i++) {
        const wb_ent *w = &b->wb[i];
        if (!overlaps(a, n, w->a, w->a + w->n)) continue;
        for (int k = 0; k < w->n; k++) {
            uintptr_t x = w->a + (uintptr_t)k;
            if (x >= a && x < a + (uintptr_t)n) ((uint8_t *)buf)[x - a] = w->b[k];
        }
    }
    return 0;
}

static int wr(void *ctx, uintptr_t a, const void *buf, int n)
{
    burst *b = ctx;
    if (cross_page(a, n) || b->nwb == WB_MAX) return -1;
    /* (The descriptor writes even where the program forbade writing.) */
    if (hp_ldv_prog_denies(a, 2)) return -1;
    int on_stack = a >= b->stack_lo && a + (uintptr_t)n <= b->stack_hi;
    if (!on_stack && !overlaps(a, n, b->own_lo, b->own_hi)) {
        if (run_of(b, a)) use(b, a, 1);
        else if (!writable(b, a)) return -1;
    } else if (!overlaps(a, n, b->own_lo, b->own_hi) && !hp_ldv_known_readable(a, 0)) {
        return -1;
    }
    wb_ent *w = &b->wb[b->nwb++];
    w->a = a;
    w->n = (uint8_t)n;
    copy_operand(w->b, buf, n);
    return 0;
}

/* At a safe point: write the buffer out, in order; what lies below the
 * red zone of the stack pointer `sp` is dead and dropped. (At a safe
 * point nothing live lies on the handler's frames.) */
static void flush(burst *b, uintptr_t sp)
{
    for (unsigned i = 0; i < b->nwb; i++) {
        wb_ent *w = &b->wb[i];
        int on_stack = w->a >= b->stack_lo && w->a < b->stack_hi;
        int own = overlaps(w->a, w->n, b->own_lo, b->own_hi);
        if ((on_stack || own) && w->a + w->n <= sp - 128) continue;
        if (own) continue;   /* (cannot be: own_hi <= sp - 128 at a safe point) */
        if (!on_stack && run_of(b, w->a)) store_protected(b, w->a, w->b, w->n);
        else copy_operand((void *)w->a, w->b, w->n);   /* (the stack, or known writable) */
    }
    b->nwb = 0;
}

/* May the instruction at pc be read? (The page last found so, unless the
 * instruction may run into the next one.) */
static inline int code_ok(burst *b, uintptr_t pc)
{
    if ((pc >> HP_PAGE_SHIFT) + 1 == b->code_pg && (pc & (HP_PAGE - 1)) <= HP_PAGE - 16) return 1;
    if (!hp_ldv_code_readable(pc)) return 0;
    b->code_pg = (pc >> HP_PAGE_SHIFT) + 1;
    return 1;
}

int hp_ldv_burst(ucontext_t *uc, int fd, int credit, uint64_t *uses_out, uint64_t *peeks_out)
{
    greg_t *g = uc->uc_mcontext.gregs;
    burst b;
    b.fd = fd;
    b.nwb = 0;
    b.peeks = b.uses = b.peeks_at_use = 0;
    b.ncached = 0;
    for (unsigned i = 0; i < CACHED; i++) b.cached[i] = 0;
    b.solo = hp_ldv_peek_solo();
    b.credit = credit;
    b.last = NULL;
    b.run = NULL;
    b.code_pg = 0;
    b.rsp0 = (uintptr_t)g[REG_RSP];
    b.stack_lo = hp_tls.stack_lo;
    b.stack_hi = hp_tls.stack_hi;
    /* This handler's frames: on the program's stack when they lie just
     * below the interrupted stack pointer (an alternate stack, even one
     * the program placed there, counts the same way). */
    uintptr_t here = (uintptr_t)&b;
    if (here < b.rsp0 && b.rsp0 - here < ((uintptr_t)1 << 20)) {
        b.own_lo = here - ((uintptr_t)64 << 10);
        b.own_hi = b.rsp0 - 128;
    } else {
        b.own_lo = b.own_hi = 0;
    }
    if (!b.stack_hi || b.rsp0 < b.stack_lo || b.rsp0 >= b.stack_hi) b.stack_lo = b.stack_hi = 0;
    greg_t safe[NGREG];
    memcpy(safe, g, sizeof safe);
    /* (XMM registers too, when going back is possible: SSE loads.) */
    uint8_t (*xmm)[16] = hp_ldv_xmm_of(uc);
    uint8_t safe_xmm[16][16];
    if (b.own_hi && xmm) memcpy(safe_xmm, xmm, sizeof safe_xmm);
    /* An XMM register was loaded since safe_xmm was taken (until one is,
     * safe_xmm is what the registers hold: the copy at each safe point
     * waits for it). */
    int xmm_written = 0;
    unsigned n = 0, idle = 0, done = 0;
    for (;;) {
        uintptr_t pc = (uintptr_t)g[REG_RIP];
        int stop = idle >= IDLE_MAX || n >= HARD_MAX || b.peeks >= PEEKS_MAX ||
                   (hp_ldv.repeat && b.peeks - b.peeks_at_use >= FRUITLESS_PEEKS) ||
                   ((uint64_t)g[REG_EFL] & 0x100) ||
                   (pc >= hp_ldv.self_lo && pc < hp_ldv.self_hi) || !code_ok(&b, pc);
        b.collector = (pc >= hp_rt.gc_lo && pc < hp_rt.gc_hi) || hp_tls.depth > 0;
        uint64_t undef;
        hp_x86_mem m = {rd, wr, &b, xmm, &xmm_written};
        b.touched = 0;
        if (!stop && hp_x86_step(g, &m, &undef)) {
            n++;
            idle = b.touched ? 0 : idle + 1;
            if (b.own_hi == 0) {
                /* On heapprof's own signal stack (SA_ONSTACK, the usual
                 * case): every instruction ends at a safe point, and one
                 * that declines changes nothing, so the burst never goes
                 * back: no copy of the registers (184 bytes an
                 * instruction, 40% of this loop's own time on trees.c
                 * under ldv=precise). */
                flush(&b, (uintptr_t)g[REG_RSP]);
                done = n;
            } else if ((uintptr_t)g[REG_RSP] >= b.rsp0) {
                flush(&b, (uintptr_t)g[REG_RSP]);
                memcpy(safe, g, sizeof safe);
                if (xmm && xmm_written) {
                    memcpy(safe_xmm, xmm, sizeof safe_xmm);
                    xmm_written = 0;
                }
                done = n;
            } else if (n - done > HARD_MAX) {
                break;
            }
            continue;
        }
        break;
    }
    /* Back to the last safe point (nothing since is visible); what was
     * written to the copies until then is written back. */
    if (b.own_hi == 0) {
        b.nwb = 0;   /* (the registers are the last safe point's; a declined step buffered nothing) */
    } else if (b.nwb || done != n) {
        memcpy(g, safe, sizeof safe);
        if (xmm && xmm_written) memcpy(xmm, safe_xmm, sizeof safe_xmm);
    }
    for (unsigned i = 0; i < CACHED && i < b.ncached; i++)
        if (b.cached[i]) write_back(&b, i);
    *uses_out = b.uses;
    *peeks_out = b.peeks;
    atomic_fetch_add_explicit(&hp_ldv.burst_peeks, b.peeks, memory_order_relaxed);
    return (int)done;
}
/* ---- end of signal-handler code ---- */
