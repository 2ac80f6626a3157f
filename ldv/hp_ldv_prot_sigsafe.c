/* hp_ldv_prot_sigsafe: page protection for ldv mode, the handlers' side
 * (see hp_ldv_prot.c for the protocol): finding the record or run of an
 * address, opening a page (or a block, when the map-entry budget is
 * spent), protecting a page again after a step, the adaptive policy's
 * fruitless faults, and system-call buffers in flight. Async-signal-safe. */
#include "core/hp_sys.h"
#include "ldv/hp_ldv_internal.h"
#include "core/hp_rt.h"

#include <string.h>
#include <sys/mman.h>

hp_ldv_prot_state hp_ldv_prot_;
#define slots hp_ldv_prot_.slots
#define protecting hp_ldv_prot_.protecting
#define waste_vec hp_ldv_prot_.waste_vec
#define opened_vec hp_ldv_prot_.opened_vec
#define gave_way hp_ldv_prot_.gave_way
#define BLOCK_PAGES HP_LDV_BLOCK_PAGES
#define INFLIGHT_SLOTS HP_LDV_INFLIGHT_SLOTS

int hp_ldv_protecting(void) { return atomic_load(&protecting); }

const hp_ldv_run *hp_ldv_find_run(uintptr_t addr)
{
    if (addr < hp_ldv.lo || addr >= hp_ldv.hi) return NULL;
    size_t lo = 0, hi = hp_ldv.nruns;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (hp_ldv.runs[mid].hi <= addr) lo = mid + 1;
        else hi = mid;
    }
    if (lo < hp_ldv.nruns && hp_ldv.runs[lo].lo <= addr) return &hp_ldv.runs[lo];
    return NULL;
}

/* Heapprof opened [lo, hi) of run r for the rest of the period. */
static void mark_opened(uintptr_t lo, uintptr_t hi, const hp_ldv_run *r)
{
    if (!r || !hp_ldv_prot_.opened_ok) return;
    if (lo < r->lo) lo = r->lo;
    if (hi > r->hi) hi = r->hi;
    _Atomic uint8_t *o = (_Atomic uint8_t *)opened_vec.base + r->off;
    for (uintptr_t p = lo; p < hi; p += HP_PAGE) {
        _Atomic uint8_t *b = &o[(p - r->lo) >> HP_PAGE_SHIFT];
        if (!(atomic_load_explicit(b, memory_order_relaxed) & HP_LDV_OPENED))
            atomic_fetch_or(b, HP_LDV_OPENED);   /* (before the mprotect: see
                                                    hp_ldv_reprotect_page) */
    }
}

/* The opened_vec byte of `page` in run r (opened_ok). */
static _Atomic uint8_t *opened_byte(uintptr_t page, const hp_ldv_run *r)
{
    return (_Atomic uint8_t *)opened_vec.base + r->off + ((page - r->lo) >> HP_PAGE_SHIFT);
}

static int page_opened(uintptr_t page, const hp_ldv_run *r)
{
    return r && hp_ldv_prot_.opened_ok && (atomic_load(opened_byte(page, r)) & HP_LDV_OPENED);
}

/* Is every page of [lo, hi) (within run r) open for the rest of the
 * period already? */
static int opened_already(uintptr_t lo, uintptr_t hi, const hp_ldv_run *r)
{
    for (uintptr_t p = lo; p < hi; p += HP_PAGE)
        if (!page_opened(p, r)) return 0;
    return 1;
}

int hp_ldv_page_first_shared_open(uintptr_t page, const hp_ldv_run *r)
{
    if (!r || !hp_ldv_prot_.opened_ok) return 1;
    return !(atomic_fetch_or_explicit(opened_byte(page, r), HP_LDV_SHARED_MARKED, memory_order_relaxed) &
             HP_LDV_SHARED_MARKED);
}

static int open_span(uintptr_t lo, uintptr_t hi, const hp_ldv_run *r)
{
    mark_opened(lo, hi, r);
    if (hp_ldv_open_span(lo, hi) == 0) return 0;
    atomic_fetch_add(&hp_ldv.enomem, 1);
    return -1;
}

/* Map entries heapprof's protection holds: up to two per run protected
 * and per opening inside one. */
static long entries_used(void)
{
    return 2 * ((long)hp_ldv.nruns + atomic_load(&hp_ldv.opens));
}

/* The aligned span of `pages` pages around addr, within run r. */
static void aligned_span(uintptr_t addr, const hp_ldv_run *r, uintptr_t pages,
                         uintptr_t *lo, uintptr_t *hi)
{
    uintptr_t span = pages * HP_PAGE;
    *lo = addr & ~(span - 1);
    *hi = *lo + span;
    if (*lo < r->lo) *lo = r->lo;
    if (*hi > r->hi) *hi = r->hi;
}

int hp_ldv_open_page(uintptr_t addr, const hp_ldv_run *run)
{
    uintptr_t page = addr & ~(uintptr_t)(HP_PAGE - 1);
    long used = entries_used();
    if (used + 2 <= hp_ldv.map_budget) {
        atomic_fetch_add(&hp_ldv.opens, 1);
        if (open_span(page, page + HP_PAGE, run) == 0) return 0;
    }
    /* Over budget (or the kernel said ENOMEM): open the aligned block
     * around the page, then the whole run; both merge map entries back. */
    atomic_fetch_add(&hp_ldv.coarse_opens, 1);
    uintptr_t blo, bhi;
    aligned_span(addr, run, BLOCK_PAGES, &blo, &bhi);
    if (used + 2 <= hp_ldv.map_budget + 2 * 4096 && open_span(blo, bhi, run) == 0) {
        atomic_fetch_add(&hp_ldv.opens, 1);
        return 1;
    }
    return open_span(run->lo, run->hi, run) == 0 ? 1 : -1;
}

/* Past the budget, a fruitless fault opens the aligned group of
 * HP_LDV_GROUP_PAGES pages around its page (within the run) for the rest
 * of the period: one mprotect, one map-entry split, and no fault on the
 * group's other pages until the next pass, where opening the page alone
 * left each of them to fault and open in turn. Their objects not yet seen
 * used this period become uncertain, as on any page left open (marked at
 * the next collection's start, from the pages' OPENED flags). Near the
 * map-entry budget, or refused, it is hp_ldv_open_page's opening. */
int hp_ldv_open_group(uintptr_t addr, const hp_ldv_run *run)
{
    if (entries_used() + 2 > hp_ldv.map_budget) return hp_ldv_open_page(addr, run);
    uintptr_t glo, ghi;
    aligned_span(addr, run, HP_LDV_GROUP_PAGES, &glo, &ghi);
    atomic_fetch_add(&hp_ldv.opens, 1);
    if (open_span(glo, ghi, run) == 0) {
        atomic_fetch_add_explicit(&hp_ldv.group_opens, 1, memory_order_relaxed);
        return 0;
    }
    return hp_ldv_open_page(addr, run);
}

static void open_range(uintptr_t p, size_t n, int again);

void hp_ldv_open_range(uintptr_t p, size_t n) { open_range(p, n, 0); }

void hp_ldv_open_range_again(uintptr_t p, size_t n) { open_range(p, n, 1); }

/* again: open even the pages flagged open for the period (a system call
 * found one protected: see hp_ldv_sys_retry). */
static void open_range(uintptr_t p, size_t n, int again)
{
    uintptr_t end = p + n;
    if (end < p) end = UINTPTR_MAX;
    for (uintptr_t a = p & ~(uintptr_t)(HP_PAGE - 1); a < end; a += HP_PAGE) {
        const hp_ldv_run *r = hp_ldv_find_run(a);
        if (!r) {
            /* Skip to the next run. */
            size_t lo = 0, hi = hp_ldv.nruns;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (hp_ldv.runs[mid].lo <= a) lo = mid + 1;
                else hi = mid;
            }
            if (lo >= hp_ldv.nruns || hp_ldv.runs[lo].lo >= end) return;
            a = hp_ldv.runs[lo].lo - HP_PAGE;
            continue;
        }
        uintptr_t hi = r->hi < end ? r->hi : (end + HP_PAGE - 1) & ~(uintptr_t)(HP_PAGE - 1);
        if (hi > r->hi) hi = r->hi;
        /* Open already for the period (an earlier buffer there, or a
         * coarse open of the whole run once the map-entry budget was
         * spent): nothing to do. A program reading into heap buffers
         * after the budget was spent reopened a 64 MiB run, page flags and
         * page tables, at every call: 55% of its run in open_span. */
        if (!again && opened_already(a, hi, r)) {
            a = hi - HP_PAGE;
            continue;
        }
        /* One mprotect for the part of the run under the buffer. */
        if (hi - a > HP_PAGE) {
            if (open_span(a, hi, r) != 0) open_span(r->lo, r->hi, r);
            atomic_fetch_add(&hp_ldv.opens, 1);
        } else {
            hp_ldv_open_page(a, r);
        }
        a = hi - HP_PAGE;
    }
}

static hp_ldv_stepping *stepping_of(uintptr_t page, int make)
{
    size_t h = (size_t)((page >> 12) * 0x9e3779b97f4a7c15u >> 54) % HP_LDV_STEP_SLOTS;
    for (size_t k = 0; k < HP_LDV_STEP_SLOTS; k++) {
        hp_ldv_stepping *e = &hp_ldv_prot_.stepping[(h + k) % HP_LDV_STEP_SLOTS];
        uintptr_t p = atomic_load(&e->page);
        if (p == page) return e;
        if (!make) {
            if (p == 0) return NULL;
            continue;
        }
        /* A free entry, or one no thread holds any more. */
        if ((p == 0 || atomic_load(&e->count) == 0) &&
            atomic_compare_exchange_strong(&e->page, &p, page))
            return e;
        if (atomic_load(&e->page) == page) return e;
    }
    return NULL;
}

int hp_ldv_step_open(uintptr_t page)
{
    hp_ldv_stepping *e = stepping_of(page, 1);
    if (e) atomic_fetch_add(&e->count, 1);
    return hp_ldv_open_span(page, page + HP_PAGE) == 0 ? 0 : -1;
}

/* The adaptive policy left this page open until the next collection. */

static int open_for_period(uintptr_t page);

/* Is `page` open for another thread's instruction, or a system call's
 * buffer in flight? */
static int page_busy(uintptr_t page)
{
    hp_ldv_stepping *e = stepping_of(page, 0);
    if (e && atomic_load(&e->count) > 0) return 1;
    for (int s = 0; s < INFLIGHT_SLOTS; s++) {
        uintptr_t lo = atomic_load(&slots[s].lo);
        if (lo && lo < page + HP_PAGE && atomic_load(&slots[s].hi) > page) return 1;
    }
    return 0;
}

int hp_ldv_page_held(uintptr_t page)
{
    if (atomic_load(&gave_way)) return 0;
    const hp_ldv_run *run = hp_ldv_find_run(page);
    if (!run) return 0;
    if (hp_ldv_prot_.opened_ok &&
        (atomic_load_explicit(opened_byte(page, run), memory_order_relaxed) & HP_LDV_OPENED))
        return 0;
    if (page_busy(page)) return 0;
    return !open_for_period(page);
}

void hp_ldv_reprotect_page(uintptr_t page)
{
    hp_ldv_stepping *e = stepping_of(page, 0);
    if (e && atomic_fetch_sub(&e->count, 1) > 1) return;   /* another thread's step */
    if (atomic_load(&hp_ldv.collecting)) return;           /* every page is open now */
    if (!hp_ldv_page_held(page)) return;
    hp_sys_mprotect((void *)page, HP_PAGE, PROT_NONE);
    /* A thread that opened the page for its step between the count and the
     * mprotect, or heapprof gave way meanwhile, or opened it for the rest
     * of the period (a system call's buffer: its flag is set before its
     * mprotect, so either that mprotect comes after this one or the flag
     * is seen here): give it back. A page flagged open is then open, and
     * later buffers there need not open it again (hp_ldv_open_range). */
    if ((e && atomic_load(&e->count) > 0) || atomic_load(&gave_way) ||
        page_opened(page, hp_ldv_find_run(page)))
        hp_ldv_open_span(page, page + HP_PAGE);
}

int hp_ldv_given_way(void) { return atomic_load(&gave_way) != 0; }

int hp_ldv_give_way(void)
{
    if (!hp_ldv.active || atomic_load(&hp_ldv.stopped)) return 0;
    for (;;) {
        atomic_fetch_add(&hp_ldv.handlers, 1);
        if (!atomic_load(&hp_ldv.collecting)) break;
        atomic_fetch_sub(&hp_ldv.handlers, 1);
        if (!hp_ldv_protecting()) return 0;   /* a collection has every page open */
        unsigned spins = 0;   /* the pass ends soon */
        while (hp_ldv_protecting()) hp_ldv_pause(&spins);
    }
    int r = 0;
    int was = 0;
    if (hp_ldv.nruns && atomic_compare_exchange_strong(&gave_way, &was, 1)) {
        /* Every object on a protected page counts as used in this period:
         * its uses can no longer be seen (a use is the truth for an object
         * that may have been used; "not used" would be a guess). */
        for (size_t i = 0; i < hp_ldv.nents; i++)
            if (hp_ldv_find_run(hp_ldv_ent_base(&hp_ldv.ents[i]))) hp_ldv_use(&hp_ldv.ents[i], 0);
        for (size_t k = 0; k < hp_ldv.nruns; k++)
            hp_ldv_open_span(hp_ldv.runs[k].lo, hp_ldv.runs[k].hi);
        atomic_fetch_add(&hp_ldv_vm_gave_way, 1);
        atomic_store(&gave_way, 2);
        r = 1;
    } else if (was) {
        unsigned spins = 0;   /* another thread is opening */
        while (atomic_load(&gave_way) == 1) hp_ldv_pause(&spins);
        r = 1;
    }
    atomic_fetch_sub(&hp_ldv.handlers, 1);
    return r;
}

/* The page's balance this period: +1 per fault that found no new use,
 * minus the credit of each fault that found a first use
 * (hp_ldv_fruitful: HP_LDV_CREDIT for an object that has survived two
 * collections, HP_LDV_CREDIT_YOUNG for a young one's first write; floor -30000: a page of 256
 * objects can bank every one's credit); the page stays open for the
 * period once it reaches `repeat` (capped at 30000). */
static _Atomic int16_t *balance_of(uintptr_t addr, const hp_ldv_run *run)
{
    return (_Atomic int16_t *)waste_vec.base + run->off + ((addr - run->lo) >> HP_PAGE_SHIFT);
}

static int balance_limit(void) { return hp_ldv.repeat < 30000 ? (int)hp_ldv.repeat : 30000; }

int hp_ldv_fruitless(uintptr_t addr, const hp_ldv_run *run, int rich)
{
    _Atomic int16_t *w = balance_of(addr, run);
    int lim = balance_limit();
    int n = atomic_load_explicit(w, memory_order_relaxed);
    if (!rich && n < 0) n = 0;   /* past the budget: credit no longer counts */
    if (n < 30000) n++;
    /* Past the budget one such fault is enough (the cheap regime, whatever
     * `repeat` buys within it). */
    if (!rich && n < lim) n = lim;
    atomic_store_explicit(w, (int16_t)n, memory_order_relaxed);
    /* Opened while past the budget (a page whose new uses would have paid
     * for it within the budget earns nothing now, banked credit or not). */
    if (!rich && n == lim)
        atomic_fetch_add_explicit(&hp_ldv.budget_opens, 1, memory_order_relaxed);
    return n >= lim;
}

void hp_ldv_alien(uintptr_t addr, const hp_ldv_run *run, int rich)
{
    _Atomic int16_t *w = balance_of(addr, run);
    int lim = balance_limit();
    if (atomic_load_explicit(w, memory_order_relaxed) >= lim) return;
    atomic_store_explicit(w, (int16_t)lim, memory_order_relaxed);
    atomic_fetch_add_explicit(&hp_ldv.alien_opens, 1, memory_order_relaxed);
    if (!rich) atomic_fetch_add_explicit(&hp_ldv.budget_opens, 1, memory_order_relaxed);
}

int hp_ldv_rearm_page(uintptr_t page)
{
    const hp_ldv_run *run = hp_ldv_find_run(page);
    if (!run || !hp_ldv_prot_.opened_ok || atomic_load(&gave_way) ||
        atomic_load(&hp_ldv.collecting) || entries_used() + 2 > hp_ldv.map_budget)
        return 0;
    _Atomic uint8_t *o = opened_byte(page, run);
    uint8_t was = atomic_load(o);
    if (!(was & HP_LDV_OPENED) || (was >> HP_LDV_REARM_SHIFT) >= HP_LDV_REARM_MAX) return 0;
    /* Only while protecting again pays: most next faults find a use. */
    if (atomic_load_explicit(&hp_ldv.rearm_wasted_recent, memory_order_relaxed) >
        2 * atomic_load_explicit(&hp_ldv.rearm_paid_recent, memory_order_relaxed) + 16)
        return 0;
    if (page_busy(page)) return 0;
    /* Flags first (as an opening sets them before its mprotect): a page
     * not flagged open is protected or about to be. */
    atomic_fetch_or(o, HP_LDV_WAS_OPENED);
    atomic_fetch_add(o, 1u << HP_LDV_REARM_SHIFT);
    atomic_fetch_and(o, (uint8_t)~HP_LDV_OPENED);
    atomic_store_explicit(balance_of(page, run), 0, memory_order_relaxed);
    atomic_fetch_add(&hp_ldv.opens, 1);   /* (map entries: counted as an opening) */
    if (hp_sys_mprotect((void *)page, HP_PAGE, PROT_NONE) != 0) {
        atomic_fetch_or(o, HP_LDV_OPENED);
        atomic_store_explicit(balance_of(page, run), (int16_t)balance_limit(), memory_order_relaxed);
        return 0;
    }
    atomic_fetch_add_explicit(&hp_ldv.alien_rearms, 1, memory_order_relaxed);
    return 1;
}

void hp_ldv_rearm_paid(uintptr_t addr, const hp_ldv_run *run)
{
    if (!hp_ldv_prot_.opened_ok) return;
    _Atomic uint8_t *o = opened_byte(addr, run);
    if (atomic_load_explicit(o, memory_order_relaxed) >> HP_LDV_REARM_SHIFT) {
        atomic_fetch_and(o, (uint8_t)((1u << HP_LDV_REARM_SHIFT) - 1));
        atomic_fetch_add_explicit(&hp_ldv.rearms_paid, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&hp_ldv.rearm_paid_recent, 1, memory_order_relaxed);
    }
}

void hp_ldv_rearm_wasted(uintptr_t addr, const hp_ldv_run *run)
{
    if (!hp_ldv_prot_.opened_ok) return;
    _Atomic uint8_t *o = opened_byte(addr, run);
    uint8_t v = atomic_load_explicit(o, memory_order_relaxed);
    if ((v >> HP_LDV_REARM_SHIFT) && !(v & HP_LDV_OPENED)) {
        atomic_fetch_add_explicit(&hp_ldv.rearms_wasted, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&hp_ldv.rearm_wasted_recent, 1, memory_order_relaxed);
    }
}

void hp_ldv_fruitful(uintptr_t addr, const hp_ldv_run *run, int credit)
{
    _Atomic int16_t *w = balance_of(addr, run);
    int n = atomic_load_explicit(w, memory_order_relaxed) - credit;
    atomic_store_explicit(w, (int16_t)(n < -30000 ? -30000 : n), memory_order_relaxed);
}

static int open_for_period(uintptr_t page)
{
    if (!hp_ldv.repeat) return 0;
    const hp_ldv_run *run = hp_ldv_find_run(page);
    if (!run) return 0;
    return atomic_load_explicit(balance_of(page, run), memory_order_relaxed) >= balance_limit();
}

int hp_ldv_inflight_begin(uintptr_t p, size_t n)
{
    if (!p) return -1;
    for (int s = 0; s < INFLIGHT_SLOTS; s++) {
        uintptr_t z = 0;
        if (atomic_load_explicit(&slots[s].lo, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong(&slots[s].lo, &z, UINTPTR_MAX)) {
            atomic_store(&slots[s].hi, p + n);
            atomic_store(&slots[s].lo, p);
            return s;
        }
    }
    return -1;
}

void hp_ldv_inflight_end(int slot)
{
    if (slot >= 0) atomic_store(&slots[slot].lo, 0);
}

/* Note [A floor in faults]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A short program is watched on the budget's floor alone, so what it is
 * told depends on how many faults the floor pays for. A floor in seconds
 * alone paid for 26,300 faults on the 2-CPU VM of 2026-11-29 while its
 * faults cost 12.3 us in the kernel, and for 20,300 twenty minutes later
 * at 15.6 us: bench/ldv_precision.c (26,200 faults under the adaptive
 * policy) fell from 99.99% to 85% of its bytes in precise mode's bands,
 * the same build; under strace, which stops at every signal (faults of
 * 35 us), its LAG and USE bands to 38.7% and 15.6%. So the floor is the
 * larger of floor= seconds and faults= times what a fault costs in the
 * kernel (measured at start-up, hp_ldv_trap.c): 0.5 s or 65,536 faults,
 * 0.81 s on that VM at 12.4 us a fault, and more, in proportion, where
 * faults cost more. Where faults are cheap the seconds decide, as before.
 * 65,536 and not fewer: examples/trees.c at depth 16 (the guide's), a
 * census at each of its 107 collections, costs 1.02-1.07 s to watch
 * whole, most of it the first touch of the pages its passes protect;
 * with 57,344 faults (0.72 s) its allowance was 1.03 s, and the last
 * period (the long-lived tree's walk) went past it: LAG 34-51% of precise
 * mode's byte-censuses (3-4% with the 0.5 s floor); at 65,536, 1.10 s and
 * every band exact in three runs.
 * What it does not follow is the handlers' own part of a fault, which
 * grows with the machine's load: with 40,960 faults (the 0.5 s of before,
 * there) ldv_precision took 24,179 faults and its LAG band was 91% of
 * precise's while another test ran beside it (at 49,152 it passed in
 * that suite; with two other programs running, 22,904 faults and 85.5%).
 * Tried and dropped:
 *   - faults at the run's mean cost of one, handlers included: a fault's
 *     handler is also its burst, which on trees.c depth 18 performs 270
 *     accesses a fault, 112 us; the floor came to 3.2 s there and the run
 *     rested no period, 8.6 s against 6.7;
 *   - the same with the bursts' time left out (it follows the load): 16
 *     us a fault on ldv_precision, but 29 on trees.c depth 18 (its faults
 *     do more besides), a floor of 1.3 s there; and the bursts it leaves
 *     out are still spent, so that at 32,768 faults ldv_precision's LAG
 *     band was 87%. */
uint64_t hp_ldv_budget_floor_ns(void)
{
    uint64_t floor = hp_ldv.budget_floor_ns;
    uint64_t faults = hp_ldv.budget_floor_faults * hp_ldv_trap_.fault_ns;
    return faults > floor ? faults : floor;
}

/* (hp_ldv_prot.c, Note [Resting past the budget]; here because the
 * exit's report reads it too, from any context.) */
uint64_t hp_ldv_watch_cost(uint64_t *allow_ns, uint64_t *mut_ns)
{
    uint64_t now = hp_rt_raw_mono_ns(), ex = hp_rt_excluded();
    uint64_t since = now > hp_rt.start_ns ? now - hp_rt.start_ns : 0;
    uint64_t mut = since > ex ? since - ex : 0;
    /* (The touches after the changes are in the program's clock: moved.) */
    uint64_t touches = atomic_load_explicit(&hp_ldv.touch_ns, memory_order_relaxed);
    mut = mut > touches ? mut - touches : 0;
    if (mut_ns) *mut_ns = mut;
    if (allow_ns)
        *allow_ns = hp_ldv_budget_floor_ns() + (uint64_t)(hp_ldv.budget_ratio * (double)mut);
    return atomic_load_explicit(&hp_rt.handler_ns, memory_order_relaxed) +
           atomic_load_explicit(&hp_ldv.pass_cost_ns, memory_order_relaxed);
}
