/* hp_ldv_vm_sigsafe: the program's own page protection, and its map
 * entries, in mode ldv. Async-signal-safe (a program calls mprotect from
 * its SIGSEGV handler): atomics and raw system calls only.
 *
 * The program's protection. Every mprotect/pkey_mprotect the program makes
 * (through the interposers in preload/hp_vm_wrappers.c, or a raw system
 * call seen by syscall dispatch) is recorded per page in a sparse table:
 * one byte per page, 0 for "as the collector maps heap pages" (read-write,
 * or read-write-execute when the collector's pages are executable), else
 * OWNED | pkey << 3 | prot. A new mapping or an unmapping clears its range
 * (mremap moves it). heapprof then never gives a page more access than the
 * program gave it:
 *   - every opening of heapprof's (a fault's page, a system call's buffer,
 *     a collection's start, the end) goes through hp_ldv_open_span, which
 *     opens an owned page to the program's protection, not to read-write;
 *     a page the program protects between the look-up and the mprotect is
 *     put back to the program's protection after it (the table is written
 *     before the program's mprotect, so the second look finds it);
 *   - heapprof's PROT_NONE is never less than the program's, so the protect
 *     pass protects owned pages as any other: an access the program allows
 *     is a use as before and opens the page to the program's protection;
 *   - a fault the program's protection would have raised anyway (a write
 *     to a page it made read-only) is the program's: hp_ldv_prog_denies
 *     says so and the handler chains it at once;
 *   - after the program's own mprotect succeeds on pages heapprof holds
 *     protected, heapprof protects them again (as the fault handler's
 *     protocol: `handlers` raised, never while a collection has them open),
 *     so its view of uses survives the program's calls.
 * Table: top[addr >> 30] -> a leaf of 2^18 bytes (one per page of that
 * GiB), mapped on first use with a raw mmap and installed by compare-and-
 * swap. Addresses at or above 2^47 are not recorded.
 *
 * Map entries. A memory-map call of the program that fails with ENOMEM
 * while heapprof holds pages protected (each run of protected pages splits
 * a mapping: up to two entries) may have failed for want of entries
 * (vm.max_map_count): heapprof gives way at once -- opens every protected
 * page for the rest of the period, refuses new single-page opens, re-reads
 * the map count at the next pass -- and the call is made again. */
#include "core/hp_sys.h"
#include "ldv/hp_ldv_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#define TOP_SHIFT 30
#define TOP_N (1u << (47 - TOP_SHIFT))
#define LEAF_N (1u << (TOP_SHIFT - HP_PAGE_SHIFT))
#define OWNED 0x80u

static _Atomic(unsigned char *) top[TOP_N];
static _Atomic long owned_pages;   /* pages whose byte is not 0 */
static _Atomic long owned_max;     /* the most at once (for .prof) */
_Atomic uint64_t hp_ldv_vm_enomem, hp_ldv_vm_gave_way;

/* How heapprof opens a page: as the collector maps its heap (set at each
 * protect pass from hp_ldv_gc_pages_executable). */
int hp_ldv_open_prot = PROT_READ | PROT_WRITE;
int (*hp_ldv_gc_pages_executable)(void);

static _Atomic unsigned char *leaf(uintptr_t page, int make)
{
    uintptr_t t = page >> TOP_SHIFT;
    if (t >= TOP_N) return NULL;
    unsigned char *l = atomic_load_explicit(&top[t], memory_order_acquire);
    if (l || !make) return (_Atomic unsigned char *)l;
    void *m = hp_sys_mmap(NULL, LEAF_N, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    unsigned char *expect = NULL;
    if (!atomic_compare_exchange_strong(&top[t], &expect, (unsigned char *)m)) {
        hp_sys_munmap(m, LEAF_N);
        return (_Atomic unsigned char *)expect;
    }
    return (_Atomic unsigned char *)m;
}

static unsigned byte_of(uintptr_t page)
{
    _Atomic unsigned char *l = leaf(page, 0);
    return l ? atomic_load_explicit(&l[(page >> HP_PAGE_SHIFT) & (LEAF_N - 1)],
                                    memory_order_relaxed) : 0;
}

static void set_byte(uintptr_t page, unsigned v)
{
    _Atomic unsigned char *l = leaf(page, v != 0);
    if (!l) return;
    unsigned old = atomic_exchange(&l[(page >> HP_PAGE_SHIFT) & (LEAF_N - 1)], (unsigned char)v);
    if (!old && v) {
        long n = atomic_fetch_add(&owned_pages, 1) + 1, m = atomic_load(&owned_max);
        while (n > m && !atomic_compare_exchange_weak(&owned_max, &m, n)) ;
    }
    if (old && !v) atomic_fetch_sub(&owned_pages, 1);
}

/* Record [lo, hi) (page-aligned) as protected by the program to prot with
 * pkey (-1: none), or as back to the collector's (clear: prot < 0). */
static void record(uintptr_t lo, uintptr_t hi, int prot, int pkey)
{
    unsigned v = 0;
    if (prot >= 0 && !(prot == hp_ldv_open_prot && pkey <= 0))
        v = OWNED | (unsigned)((pkey > 0 ? pkey : 0) & 15) << 3 | (unsigned)(prot & 7);
    for (uintptr_t p = lo; p < hi; p += HP_PAGE) {
        if (!v) {   /* skip whole GiBs never recorded */
            if (!leaf(p, 0)) {
                p = ((p >> TOP_SHIFT) + 1) << TOP_SHIFT;
                if (p >= hi || p < lo) break;
                p -= HP_PAGE;
                continue;
            }
            if (!atomic_load(&owned_pages)) break;
        }
        set_byte(p, v);
    }
}

long hp_ldv_prog_pages(void) { return atomic_load(&owned_max); }

int hp_ldv_prog_denies(uintptr_t addr, unsigned long err)
{
    if (!atomic_load_explicit(&owned_pages, memory_order_relaxed)) return 0;
    unsigned v = byte_of(addr & ~(uintptr_t)(HP_PAGE - 1));
    if (!v) return 0;
    int prot = (int)(v & 7);
    if (err & 16) return !(prot & PROT_EXEC);    /* instruction fetch */
    if (err & 2) return !(prot & PROT_WRITE);
    return !(prot & (PROT_READ | PROT_WRITE | PROT_EXEC));
}

static int apply(uintptr_t lo, uintptr_t hi, unsigned v)
{
    if (!v) return hp_sys_mprotect((void *)lo, hi - lo, hp_ldv_open_prot);
    int pkey = (int)((v >> 3) & 15);
    if (pkey)
        return (int)HP_SYS6(SYS_pkey_mprotect, lo, hi - lo, v & 7, pkey, 0, 0);
    return hp_sys_mprotect((void *)lo, hi - lo, (int)(v & 7));
}

/* Put the owned pages of [lo, hi) back to the program's protection. */
static void restore_owned(uintptr_t lo, uintptr_t hi)
{
    for (uintptr_t p = lo; p < hi; p += HP_PAGE) {
        unsigned v = byte_of(p);
        if (!v) continue;
        uintptr_t q = p + HP_PAGE;
        while (q < hi && byte_of(q) == v) q += HP_PAGE;
        apply(p, q, v);
        p = q - HP_PAGE;
    }
}

int hp_ldv_open_span(uintptr_t lo, uintptr_t hi)
{
    int r = 0;
    hp_ldv_opening_begin();   /* no peek in flight meanwhile (hp_ldv_peek_sigsafe.c) */
    if (!atomic_load(&owned_pages)) {
        r = hp_sys_mprotect((void *)lo, hi - lo, hp_ldv_open_prot);
    } else {
        /* Stretches of one protection, each with one mprotect. */
        for (uintptr_t p = lo; p < hi;) {
            unsigned v = byte_of(p);
            uintptr_t q = p + HP_PAGE;
            while (q < hi && byte_of(q) == v) q += HP_PAGE;
            if (apply(p, q, v) != 0) r = -1;
            p = q;
        }
    }
    /* The program protected a page of it meanwhile. */
    if (atomic_load(&owned_pages)) restore_owned(lo, hi);
    hp_ldv_opening_end();
    return r;
}

/* ---- The program's calls ---- */

/* After the program's mprotect of [lo, hi) succeeded: protect again the
 * pages of it that heapprof holds protected (in a run; not open for a
 * thread's instruction, a system call in flight or the rest of the period). */
static void keep_watching(uintptr_t lo, uintptr_t hi)
{
    if (!hp_ldv.active || atomic_load(&hp_ldv.stopped) || hi <= hp_ldv.lo || lo >= hp_ldv.hi)
        return;
    atomic_fetch_add(&hp_ldv.handlers, 1);
    if (!atomic_load(&hp_ldv.collecting) && !hp_ldv_given_way()) {
        if (lo < hp_ldv.lo) lo = hp_ldv.lo;
        if (hi > hp_ldv.hi) hi = hp_ldv.hi;
        for (uintptr_t p = lo; p < hi; p += HP_PAGE) {
            if (!hp_ldv_page_held(p)) continue;
            uintptr_t q = p + HP_PAGE;   /* one mprotect for a stretch */
            while (q < hi && hp_ldv_page_held(q)) q += HP_PAGE;
            hp_sys_mprotect((void *)p, q - p, PROT_NONE);
            p = q;
        }
    }
    atomic_fetch_sub(&hp_ldv.handlers, 1);
}

long hp_ldv_map_entries(char *buf, size_t n)
{
    int fd = (int)HP_SYS6(SYS_openat, -100, "/proc/self/maps", O_RDONLY | O_CLOEXEC, 0, 0, 0);
    if (fd < 0) return -1;
    long lines = 0, got;
    while ((got = hp_sys_raw6(SYS_read, fd, (long)buf, (long)n, 0, 0, 0)) > 0)
        for (long i = 0; i < got; i++) lines += buf[i] == '\n';
    hp_sys_raw6(SYS_close, fd, 0, 0, 0, 0, 0);
    return lines;
}

/* The program's call failed with ENOMEM: if the map is (nearly) full and
 * heapprof holds entries, give them way; 1: make the call again. */
static int enomem(void)
{
    if (!hp_ldv.active || !hp_ldv.nruns) return 0;
    char b[2048];   /* this may run on a small signal stack */
    long m = hp_ldv_map_entries(b, sizeof b);
    if (m < 0 || m + 64 < hp_ldv.max_map_count) return 0;
    atomic_fetch_add(&hp_ldv_vm_enomem, 1);
    return hp_ldv_give_way();
}

int hp_ldv_vm_handles(long nr)
{
    return nr == SYS_mmap || nr == SYS_mprotect || nr == SYS_pkey_mprotect ||
           nr == SYS_munmap || nr == SYS_mremap || nr == SYS_madvise ||
           nr == SYS_mlock || nr == SYS_mlock2 || nr == SYS_munlock;
}


static uintptr_t page_lo(long a) { return (uintptr_t)a & ~(uintptr_t)(HP_PAGE - 1); }
static uintptr_t page_hi(long a, long n)
{
    uintptr_t e = (uintptr_t)a + (uintptr_t)n;
    if (e < (uintptr_t)a) return UINTPTR_MAX & ~(uintptr_t)(HP_PAGE - 1);
    return (e + HP_PAGE - 1) & ~(uintptr_t)(HP_PAGE - 1);
}

/* May the call make a page of the runs heapprof protects accessible? An
 * mprotect over them, a fixed mapping or a move onto them (a mapping
 * elsewhere, an unmapping or madvise gives no access to a protected page:
 * a peek there fails and the handler opens the page as before). */
static int overlaps_runs(uintptr_t a, uintptr_t n)
{
    uintptr_t lo = hp_ldv.lo, hi = hp_ldv.hi;
    return lo < hi && a < hi && a + n > lo && a + n >= a;
}

static int may_open_heap(long nr, long a0, long a1, long a2, long a3, long a4)
{
    switch (nr) {
    case SYS_mprotect: case SYS_pkey_mprotect:
        return overlaps_runs((uintptr_t)a0, (uintptr_t)a1);
    case SYS_mmap:
        return (a3 & MAP_FIXED) && overlaps_runs((uintptr_t)a0, (uintptr_t)a1);
    case SYS_mremap:
        return overlaps_runs((uintptr_t)a0, (uintptr_t)a1) ||
               ((a3 & 2 /* MREMAP_FIXED */) && overlaps_runs((uintptr_t)a4, (uintptr_t)a2));
    default:
        return 0;
    }
}

/* The program's call itself; `opening`: as an opening of a heap page. */
static long raw_call(int opening, long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
    if (opening) hp_ldv_opening_begin();
    long r = hp_sys_raw6(nr, a0, a1, a2, a3, a4, a5);
    if (opening) hp_ldv_opening_end();
    return r;
}

long hp_ldv_vm_call(long nr, long a0, long a1, long a2, long a3, long a4, long a5)
{
    int prot_call = nr == SYS_mprotect || nr == SYS_pkey_mprotect;
    /* (Pages seen readable before this call may not be after it -- any
     * call but a new mapping that replaces none.) */
    if (nr != SYS_mmap || (a3 & MAP_FIXED))
        atomic_fetch_add_explicit(&hp_ldv.map_gen, 1, memory_order_seq_cst);
    /* Record first: an opening of heapprof's that races this call finds
     * the page owned when it looks again after its own mprotect. */
    if (prot_call && hp_ldv.active && a1 > 0 && !((uintptr_t)a0 & (HP_PAGE - 1)))
        record(page_lo(a0), page_hi(a0, a1), (int)a2, nr == SYS_pkey_mprotect ? (int)a3 : -1);
    /* (A map call may make a heap page accessible: not while a fault
     * handler emulates an access to it through /proc/self/mem.) */
    int opening = hp_ldv.active && may_open_heap(nr, a0, a1, a2, a3, a4);
    long r = raw_call(opening, nr, a0, a1, a2, a3, a4, a5);
    if (r == -ENOMEM && enomem()) r = raw_call(opening, nr, a0, a1, a2, a3, a4, a5);
    if (!hp_ldv.active || (unsigned long)r > (unsigned long)-4096L) return r;
    switch (nr) {
    case SYS_mprotect: case SYS_pkey_mprotect:
        keep_watching(page_lo(a0), page_hi(a0, a1));
        break;
    case SYS_mmap:   /* a new mapping: the collector's protection until told */
        if (atomic_load(&owned_pages)) record((uintptr_t)r, page_hi(r, a1), -1, -1);
        break;
    case SYS_munmap:
        if (atomic_load(&owned_pages)) record(page_lo(a0), page_hi(a0, a1), -1, -1);
        break;
    case SYS_mremap:
        if (atomic_load(&owned_pages) && (uintptr_t)r != (uintptr_t)a0) {
            /* The mapping moved with its protection. */
            uintptr_t from = page_lo(a0), to = (uintptr_t)r;
            size_t n = (size_t)(a1 < a2 ? a1 : a2);
            for (size_t o = 0; o < n; o += HP_PAGE) set_byte(to + o, byte_of(from + o));
            record(page_hi(to, (long)n), page_hi(to, a2), -1, -1);
            if (!(a3 & 4 /* MREMAP_DONTUNMAP */)) record(from, page_hi(a0, a1), -1, -1);
        } else if (atomic_load(&owned_pages) && a2 > a1) {
            record(page_hi(a0, a1), page_hi(a0, a2), -1, -1);
        }
        break;
    default:
        break;
    }
    return r;
}
