/* hp_ldv_prot: page protection for ldv mode, the owner's side: the address
 * index of live records, the runs of pages protected after each sweep, the
 * map-entry budget. What fault handlers and the interposers do (find an
 * address, open a page, note a buffer in flight) is in
 * hp_ldv_prot_sigsafe.c.
 *
 * Protocol (see hp_ldv_internal.h): the owner (collection callback, lock
 * held) sets `collecting` and opens every run at START, waiting for fault
 * handlers already inside the index to leave; after the sweep it rebuilds
 * the index and runs, protects them (with `protecting` set, so a thread
 * that faults on a page just protected waits for the pass to end rather
 * than taking the fault for someone else's), then clears `collecting`.
 * Handlers read the arrays only while `collecting` is clear. */
#include "core/hp_sys.h"
#include "core/hp_bits.h"
#include "ldv/hp_ldv_internal.h"
#include "core/hp_real.h"
#include "core/hp_rt.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define slots hp_ldv_prot_.slots
#define protecting hp_ldv_prot_.protecting
#define waste_vec hp_ldv_prot_.waste_vec
#define opened_vec hp_ldv_prot_.opened_vec
#define INFLIGHT_SLOTS HP_LDV_INFLIGHT_SLOTS

static hp_vec ents_vec, tmp_vec, runs_vec, first_vec, count_vec;
/* Where the sweep put each record (Note [Kept bits]): a bit per old
 * index, set if it was kept; and, built by the pass, the kept before each
 * word of them. */
static hp_vec inh_vec;                /* bits by ordinal: made INHERENT_USE (mode ldv) */
static hp_vec kept_vec;               /* uint64_t[old idx / 64] */
static hp_vec rank_vec;               /* uint32_t[old idx / 64] */
static hp_vec bits_vec;               /* used_bits of the index in ents_vec */
static size_t remap_len;              /* records swept since the last pass (0: none) */
static size_t kept_n;                 /* records the sweep kept so far */
static size_t kept_ident;             /* every record below this kept its index */
static int remap_open;                /* a sweep is filling the map */
static int remap_broken;              /* a record did not go where the bits say */
static size_t indexed_len;            /* table length when the index was built */
static int index_valid;
static size_t index_n;                /* entries of the previous index */
static long map_baseline;
static uint64_t baseline_read_ns;
static int gave_way_last;             /* heapprof gave way in the period just ended */

/* After fork() only the forking thread exists in the child: no handler,
 * wrapper or pass of another thread is in progress there. */
static void postfork_child(void)
{
    atomic_store(&hp_ldv.handlers, 0);
    atomic_store(&protecting, 0);
    atomic_store(&hp_ldv.opening, 0);
    for (int s = 0; s < INFLIGHT_SLOTS; s++) atomic_store(&slots[s].lo, 0);
    hp_ldv_peek_open();   /* the inherited descriptor reaches the parent */
}

int hp_ldv_prot_init(void)
{
    pthread_atfork(NULL, NULL, postfork_child);
    if (hp_vec_reserve(&ents_vec, (size_t)1 << 36) != 0 ||
        hp_vec_reserve(&tmp_vec, (size_t)1 << 36) != 0 ||
        hp_vec_reserve(&kept_vec, (size_t)1 << 32) != 0 ||
        hp_vec_reserve(&inh_vec, (size_t)1 << 32) != 0 ||
        hp_vec_reserve(&rank_vec, (size_t)1 << 32) != 0 ||
        hp_vec_reserve(&bits_vec, (size_t)1 << 30) != 0 ||
        hp_vec_reserve(&runs_vec, (size_t)1 << 34) != 0 ||
        hp_vec_reserve(&first_vec, (size_t)1 << 33) != 0 ||
        hp_vec_reserve(&count_vec, HP_LDV_SORT_WORK * sizeof(size_t)) != 0 ||
        hp_vec_reserve(&waste_vec, (size_t)1 << 36) != 0 ||
        hp_vec_reserve(&opened_vec, (size_t)1 << 36) != 0 ||
        hp_vec_ensure(&count_vec, HP_LDV_SORT_WORK * sizeof(size_t)) != 0)
        return -1;
    /* The index, the records added since the last pass and the sweep's
     * map grow with the heap: a tenth at a time, not doubling (doubling
     * left up to half of each committed and unused: 16 of the 73 MB
     * trees.c 18 held under ldv). */
    ents_vec.grow_pct = tmp_vec.grow_pct = 10;
    hp_ldv.max_map_count = 65530;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/sys/vm/max_map_count",
                          O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        char b[32];
        long n = syscall(SYS_read, fd, b, sizeof b - 1), v = 0;
        for (long i = 0; i < n && b[i] >= '0' && b[i] <= '9'; i++) v = v * 10 + (b[i] - '0');
        if (v > 0) hp_ldv.max_map_count = v;
        syscall(SYS_close, fd);
    }
    return 0;
}

/* The map entries in use (no stdio, no malloc). */
static long count_maps(void)
{
    char b[65536];
    return hp_ldv_map_entries(b, sizeof b);
}

/* Every signal but the synchronous ones blocked: a program handler run
 * on this thread while it opens or protects pages would touch a page
 * still protected and wait for this very thread (or, taken for a stray
 * fault, be chained to the program as a crash). */
static void block_signals(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGILL);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGTRAP);
    hp_sys_sigmask(SIG_BLOCK, &all, old);
}

/* ---- Collector-callback code (lock held): no malloc, no GC heap. ---- */
/* The passes' cost, for the handlers' budget (hp_ldv_watch_cost). */
static void publish_cost(void)
{
    uint64_t touches = hp_ldv.pages_protected_all * hp_ldv_trap_.retouch_ns;
    atomic_store(&hp_ldv.touch_ns, touches);
    atomic_store(&hp_ldv.pass_cost_ns,
                 hp_ldv.index_ns + hp_ldv.protect_ns + hp_ldv.open_ns + touches);
}

void hp_ldv_collection_start(void)
{
    if (!hp_ldv.active) return;
    uint64_t t0 = hp_mono_ns();
    sigset_t old;
    block_signals(&old);
    atomic_store(&hp_ldv.opening, 1);
    atomic_store(&hp_ldv.collecting, 1);
    unsigned spins = 0;   /* handlers never block */
    while (atomic_load(&hp_ldv.handlers) != 0) hp_ldv_pause(&spins);
    /* A rested period ends (Note [Resting past the budget]): no page was
     * protected in it, so no use of an object made before it was seen. */
    if (hp_ldv.resting) {
        size_t len;
        hp_rec *recs = hp_ldv_rsides ? (hp_shadow_sides(&len), NULL) : hp_shadow_table(&len);
        hp_ldv_all_unwatched(recs, len, atomic_load(&hp_rt.period));
        hp_ldv.resting = 0;
    }
    /* The pages opened for the rest of the period that ends here: their
     * objects not used in it may have had uses no fault saw (marked
     * unwatched; done here, not in the handlers, which stay short). */
    if (hp_ldv_prot_.opened_ok) {
        const uint8_t *o = (const uint8_t *)opened_vec.base;
        for (size_t i = 0; i < hp_ldv.nruns; i++) {
            const hp_ldv_run *r = &hp_ldv.runs[i];
            size_t np = (r->hi - r->lo) >> HP_PAGE_SHIFT;
            for (size_t k = 0; k < np; k++)
                if (o[r->off + k] & (HP_LDV_OPENED | HP_LDV_WAS_OPENED)) {
                    uintptr_t page = r->lo + (k << HP_PAGE_SHIFT);
                    hp_ldv_span_unwatched(page, page + HP_PAGE);
                }
        }
    }
    for (size_t i = 0; i < hp_ldv.nruns; i++) {
        uintptr_t lo = hp_ldv.runs[i].lo, hi = hp_ldv.runs[i].hi;
        if (hp_ldv_open_span(lo, hi) == 0) continue;
        /* Part of the run is no longer mapped (the collector gave a freed
         * block back to the kernel): open what is left page by page. */
        for (uintptr_t p = lo; p < hi; p += HP_PAGE)
            hp_ldv_open_span(p, p + HP_PAGE);
    }
    hp_ldv.nruns = 0;
    if (atomic_exchange(&hp_ldv_prot_.gave_way, 0)) gave_way_last = 1;
    if (hp_ldv.nents) index_n = hp_ldv.nents;
    hp_ldv.nents = 0;
    atomic_store(&hp_ldv.opening, 0);
    hp_sys_sigmask(SIG_SETMASK, &old, NULL);
    hp_ldv.open_ns += hp_mono_ns() - t0;
    publish_cost();
}

/* Note [Kept bits]
 * ~~~~~~~~~~~~~~~~~~
 * A sweep keeps its survivors in order (core/hp_sweep.c): the table's,
 * then the logs'. So a record's new index is the number of records kept
 * before it, and a bit per old index (kept or not) says where each went:
 * the pass counts the kept before each word of bits (rank_vec) and finds
 * a record's new index as that count plus the kept bits below it in its
 * word. A map of 4 bytes an old index took 6.6 MB at trees.c 18's peak
 * (8 bytes per live object), where the bits take 0.19 bytes an index; and
 * the pass, which looks up the old index's records in the order of their
 * addresses, reads 1/20 as much at random. Indexes come in increasing
 * order; those past the table's length are the records the sweep takes
 * from the logs (the indexes a drain would have given them): the bits
 * grow to cover them, the dead in between clear. A kept record whose new
 * index is not the count (a sweep that did not keep order) breaks the
 * map: the pass then builds the index anew. */
void hp_ldv_sweep_begin(size_t len)
{
    if (!hp_ldv.active) return;
    remap_len = 0;
    remap_open = 0;
    kept_n = 0;
    kept_ident = 0;
    remap_broken = 0;
    size_t words = (len + 63) / 64;
    if (hp_vec_ensure(&kept_vec, (words + 1) * sizeof(uint64_t)) != 0) return;
    memset(kept_vec.base, 0, words * sizeof(uint64_t));
    remap_len = len;
    remap_open = 1;
}

/* The bits cover old index `from` (they grow as the sweep's indexes do,
 * the dead in between clear); out of memory, or no sweep begun: the map
 * is off and the pass builds the index anew. */
static inline void remap_cover(size_t from)
{
    if (from < remap_len || !remap_open) return;
    size_t had = (remap_len + 63) / 64, words = (from + 1 + 63) / 64;
    if (words > had) {
        if (hp_vec_ensure(&kept_vec, words * sizeof(uint64_t)) != 0) {
            remap_open = 0;   /* (the pass builds the index anew) */
            remap_len = 0;
            return;
        }
        memset((uint64_t *)kept_vec.base + had, 0, (words - had) * sizeof(uint64_t));
    }
    remap_len = from + 1;
}

void hp_ldv_moved_run(size_t from, size_t to, size_t k)
{
    if (k == 0) return;
    remap_cover(from + k - 1);
    if (from + k > remap_len) return;   /* (the map is off) */
    if (to != kept_n) remap_broken = 1;
    if (from == to && from == kept_ident) kept_ident += k;
    kept_n += k;
    uint64_t *bits = (uint64_t *)kept_vec.base;
    for (size_t i = from, end = from + k; i < end;) {
        size_t w = i >> 6, lo = i & 63, n = end - i < 64 - lo ? end - i : 64 - lo;
        bits[w] |= (n == 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1)) << lo;
        i += n;
    }
}

void hp_ldv_moved(size_t from, size_t to) { hp_ldv_moved_run(from, to, 1); }

void hp_ldv_dropped(size_t from) { remap_cover(from); }

/* Old index i's new index, or UINT32_MAX if it was not kept (Note [Kept
 * bits]; rank_vec built). */
static inline uint32_t remap_of(const uint64_t *kept, const uint32_t *rank, size_t i)
{
    uint64_t w = kept[i >> 6], below = ((uint64_t)1 << (i & 63)) - 1;
    if (!((w >> (i & 63)) & 1)) return UINT32_MAX;
    return rank[i >> 6] + hp_popcount64(w & below);
}

/* Pages with nothing left to learn this period are not protected. At a
 * pass inside a period (a collection that took no census), an object
 * already used in the period can teach nothing more until the next
 * census: its first use in the period is known, and its last use is at
 * least this period until a later one, which the census pass (that
 * protects every object again: none is used yet in the period it begins)
 * will watch. A page holding only such objects stays open; its faults
 * would all be fruitless. Exact: no first use is missed.
 * Which objects are used this period is a bit per index entry
 * (hp_ldv.used_bits, set by hp_ldv_use), carried from one index to the
 * next by the merge below, which reads it in order: not the records'
 * mode words, which would be a read at random per entry (on trees.c
 * depth 18 the index build went from 185 to 460 ms that way). */
static uint32_t settled_period;   /* the period of the last pass */
static int settled_on;            /* this pass is not the first of its period */

static inline int bit_at(const uint64_t *b, size_t i) { return (int)((b[i >> 6] >> (i & 63)) & 1); }
static inline void set_bit(uint64_t *b, size_t i) { b[i >> 6] |= 1ull << (i & 63); }
/* Note [One index buffer]: an entry's bit carried through the update. */
#define HP_LDV_ENT_USED (1u << 31)

/* Record i (object r) as entry *x above `origin`: 1, or 0 when it cannot
 * be one (below the origin, 64 GiB or more above it, not 16-aligned). */
static inline int make_ent(hp_ldv_ent *x, uintptr_t origin, const hp_rec *r, size_t i)
{
    uintptr_t off = r->base - origin;
    if (r->base < origin || (off & ((1u << HP_LDV_GRAN_SHIFT) - 1)) ||
        (off >> HP_LDV_GRAN_SHIFT) > UINT32_MAX)
        return 0;
    x->gran = (uint32_t)(off >> HP_LDV_GRAN_SHIFT);
    x->idx = (uint32_t)i |
             ((r->base & (HP_PAGE - 1)) + r->granted > HP_PAGE ? HP_LDV_ENT_PAST : 0);
    return 1;
}

/* The end of entry x's pages: of its base's page, unless the object runs
 * past it (only then is its record read). During the pass, which sets
 * hp_ldv.origin and hp_ldv.recs first (no handler reads the index while
 * `collecting` is set). */
static inline uintptr_t ent_page_end(const hp_ldv_ent *x)
{
    uintptr_t b = hp_ldv_ent_base(x);
    if (!(x->idx & HP_LDV_ENT_PAST)) return (b & ~(uintptr_t)(HP_PAGE - 1)) + HP_PAGE;
    return (b + hp_ldv_ent_size(x) + HP_PAGE - 1) & ~(uintptr_t)(HP_PAGE - 1);
}

/* The runs and their first entries are committed as runs are found (a run
 * per index entry, the bound, committed 49 of the 144 MB trees.c 18 held
 * under ldv, untouched: there were some thousand runs). runs_cap runs fit;
 * runs_short: one did not (out of memory: the pass is given up). */
static size_t runs_cap;
static int runs_short;

__attribute__((noinline)) static void runs_grow(size_t need)
{
    size_t cap = runs_cap ? runs_cap : 1024;
    while (cap < need) cap *= 2;
    if (hp_vec_ensure(&runs_vec, cap * sizeof(hp_ldv_run)) != 0 ||
        hp_vec_ensure(&first_vec, (cap + 1) * sizeof(uint32_t)) != 0) {
        runs_short = 1;
        return;
    }
    runs_cap = cap;
}

/* Entry i (in base order) joins the last run of pages or starts one. */
static inline void add_run(hp_ldv_run *runs, uint32_t *first, size_t *nr,
                           const hp_ldv_ent *x, size_t i)
{
    uintptr_t lo = hp_ldv_ent_base(x) & ~(uintptr_t)(HP_PAGE - 1);
    uintptr_t hi = ent_page_end(x);
    if (*nr && lo <= runs[*nr - 1].hi) {
        if (hi > runs[*nr - 1].hi) runs[*nr - 1].hi = hi;
    } else {
        if (__builtin_expect(*nr >= runs_cap, 0)) {
            runs_grow(*nr + 1);
            if (runs_short) return;
        }
        runs[*nr].lo = lo;
        runs[*nr].hi = hi;
        first[(*nr)++] = (uint32_t)i;
    }
}


/* mprotect [lo, hi) to PROT_NONE, leaving out pages of system calls in
 * flight (`fl`, n ranges). Returns the pages protected. */
static size_t protect_run(uintptr_t lo, uintptr_t hi, const uintptr_t (*fl)[2], int nfl)
{
    for (int k = 0; k < nfl; k++) {
        uintptr_t a = fl[k][0] & ~(uintptr_t)(HP_PAGE - 1);
        uintptr_t b = (fl[k][1] + HP_PAGE - 1) & ~(uintptr_t)(HP_PAGE - 1);
        if (b <= lo || a >= hi) continue;
        size_t n = 0;
        if (a > lo) n += protect_run(lo, a, fl + k + 1, nfl - k - 1);
        if (b < hi) n += protect_run(b, hi, fl + k + 1, nfl - k - 1);
        return n;
    }
    if (hp_sys_mprotect((void *)lo, hi - lo, PROT_NONE) != 0) {
        atomic_fetch_add(&hp_ldv.enomem, 1);
        return 0;
    }
    return (hi - lo) >> HP_PAGE_SHIFT;
}

/* Note [Resting past the budget]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Under the adaptive policy the fault handlers keep to a budget (floor=,
 * 0.5 s, plus budget= times the program's own time,
 * hp_ldv_trap_sigsafe.c): past it, a fault that finds nothing new opens
 * the page's group for the rest of the period. Until 2026-11-29 the
 * budget weighed the handlers' time alone, and bounded nothing else:
 * every pass still protected every page, and every page the program
 * touched still took a fault first.
 * And a machine can charge for a page whose protection changed at its
 * next touch, in the program's own time: on the 2-CPU VM of 2026-11-29
 * (a hypervisor that shadows the page tables) 3-5 us a page, where a
 * fault costs 14 us in the kernel; the collector's marking, which reads
 * every page the collection's start opened, took 3.8 s under ldv on
 * trees.c depth 18 against 1.2 s under cc. There, Crystal's work.cr at
 * n=200000 (44 passes of 14,000 pages, 77,000 faults, 80% of DRAG and
 * VOID uncertain anyway) ran 6.5-9.3 s against 1.0 s plain.
 *
 * So the budget weighs the whole cost of watching so far
 * (hp_ldv_watch_cost) -- the handlers (with the kernel's part of each
 * fault), the passes, the opens at collections, and a first touch
 * (measured at start-up, hp_ldv_trap.c) for every page protected,
 * moved from the program's clock to this side -- against the same
 * allowance: the handlers at every 32nd fault (the owner publishes the
 * passes' part after each pass and open), and each pass before it
 * protects. Past it, the pass protects nothing: the period rests. The
 * index is still updated (the next pass that protects updates it in
 * turn), but no run is published, so no handler looks at it. Its
 * objects' uses go unseen, so when it ends (the next collection's start)
 * every record made before it and not used in it is marked unwatched,
 * as the pages opened for the rest of a period are
 * (hp_ldv_all_unwatched): the .prof counts their DRAG and VOID as
 * uncertain. The allowance grows with the program's time, so watching
 * resumes, a period now and then, and costs about budget= times the
 * program's time in all. ldv=precise and ldv=page never rest, nor
 * budget=0 (no budget). */
static int rest_now(uint64_t *mut_out)
{
    if (!hp_ldv.repeat || !(hp_ldv.budget_ratio > 0)) return 0;
    uint64_t allow, mut;
    uint64_t spent = hp_ldv_watch_cost(&allow, &mut);
    *mut_out = mut ? mut : 1;
    return spent > allow;
}

/* Mode ldv's records are copies handed out in order (core/hp_shadow.h,
 * Note [Side entries]): the pass reads them through these. */
typedef struct ord_pass {
    uintptr_t origin;     /* the lowest base so far / the entries' origin */
    hp_ldv_ent *ents;     /* where entries go (n so far, room for room) */
    size_t n, room;
    int grow;             /* ents is tmp_vec's, which may grow */
    int failed;           /* an entry could not be made or placed */
    uint32_t next;        /* (objects made INHERENT_USE from then on) */
    const uint64_t *marks;/* inherent_marked: a bit per ordinal */
} ord_pass;

static void lowest_base(hp_rec *r, size_t ord, void *ctx)
{
    (void)ord;
    ord_pass *p = ctx;
    if (r->granted != 0 && r->base < p->origin) p->origin = r->base;
}

static inline int make_ent(hp_ldv_ent *x, uintptr_t origin, const hp_rec *r, size_t i);

/* An entry for each record (a whole build: one it cannot index is made
 * INHERENT_USE; an update: the pass is given up for a whole build). */
static void ent_of(hp_rec *r, size_t ord, void *ctx)
{
    ord_pass *p = ctx;
    if (r->granted == 0 || p->failed) return;
    if (p->n == p->room) {
        if (!p->grow || hp_vec_ensure(&tmp_vec, (p->n + 1) * sizeof(hp_ldv_ent)) != 0) {
            p->failed = 1;
            return;
        }
        p->ents = (hp_ldv_ent *)tmp_vec.base;
        p->room = tmp_vec.committed / sizeof(hp_ldv_ent);
    }
    if (make_ent(&p->ents[p->n], p->origin, r, ord)) p->n++;
    else if (p->grow) p->failed = 1;
    else hp_ldv_make_inherent(r, ord, p->next);   /* (not indexed: never seen used) */
}

static void inherent_all(hp_rec *r, size_t ord, void *ctx)
{
    hp_ldv_make_inherent(r, ord, *(const uint32_t *)ctx);
}

static void inherent_marked(hp_rec *r, size_t ord, void *ctx)
{
    ord_pass *p = ctx;
    if ((p->marks[ord >> 6] >> (ord & 63)) & 1) hp_ldv_make_inherent(r, ord, p->next);
}

void hp_ldv_protect(void)
{
    if (!hp_ldv.active) return;
    /* A pass without a collection (a census at exit, GC_disable): the old
     * runs are still protected. */
    if (!atomic_load(&hp_ldv.collecting)) hp_ldv_collection_start();
    if (atomic_load(&hp_ldv.stopped) ||
        (hp_real.GC_is_incremental_mode && hp_real.GC_is_incremental_mode())) {
        static int warned;
        if (!warned && !atomic_load(&hp_ldv.stopped)) {
            warned = 1;
            hp_say("heapprof: the collector is in incremental mode: ldv stops protecting "
                   "pages (every object from now on counts as INHERENT_USE)");
            atomic_store(&hp_ldv.stopped, 1);
        }
        size_t len;
        uint32_t next = atomic_load(&hp_rt.period) + 1;
        if (hp_ldv_rsides) {
            hp_shadow_foreach_ord(0, inherent_all, &next);
        } else {
            hp_rec *recs = hp_shadow_table(&len);
            for (size_t i = 0; i < len; i++) hp_ldv_make_inherent(&recs[i], i, next);
        }
        index_valid = 0;
        return;
    }
    uint64_t mut;
    int rest = rest_now(&mut);
    if (hp_ldv_gc_pages_executable)
        hp_ldv_open_prot = PROT_READ | PROT_WRITE |
                           (hp_ldv_gc_pages_executable() ? PROT_EXEC : 0);
    /* The index: every live record, sorted by base. */
    uint64_t t0 = hp_mono_ns();
    uint32_t period_now = atomic_load(&hp_rt.period);
    settled_on = hp_ldv.passes > 0 && period_now == settled_period;
    settled_period = period_now;
    size_t len;
    /* (mode ldv: no table of hp_rec, the records by ordinal, len of them) */
    hp_rec *recs = hp_ldv_rsides ? NULL : hp_shadow_table(&len);
    if (hp_ldv_rsides) len = hp_shadow_records();
    hp_ldv.recs = recs;   /* (the entries' sizes, while the pass builds) */
    uint32_t next = period_now + 1;   /* (objects made INHERENT_USE from then on) */
    runs_cap = runs_vec.committed / sizeof(hp_ldv_run);
    if (first_vec.committed / sizeof(uint32_t) < runs_cap + 1)
        runs_cap = first_vec.committed / sizeof(uint32_t) ? first_vec.committed / sizeof(uint32_t) - 1
                                                          : 0;
    runs_short = 0;
    /* The index's one buffer: the old index (index_n entries) and the new
     * (at most len) in place, with one entry to spare (Note [One index
     * buffer]). */
    size_t cap = (len > index_n ? len : index_n) + 1;
    if (hp_vec_ensure(&ents_vec, cap * sizeof(hp_ldv_ent)) != 0 ||
        hp_vec_ensure(&bits_vec, ((len + 64) / 64) * sizeof(uint64_t)) != 0) {
        atomic_store(&hp_ldv.collecting, 0);
        index_valid = 0;
        return;
    }
    hp_ldv_ent *e = (hp_ldv_ent *)ents_vec.base;
    uint64_t *bits = (uint64_t *)bits_vec.base;
    size_t *work = (size_t *)count_vec.base;
    size_t n = 0;
    /* Runs of adjacent pages; first[k] = first entry of run k. */
    hp_ldv_run *runs = (hp_ldv_run *)runs_vec.base;
    uint32_t *first = (uint32_t *)first_vec.base;
    size_t nr = 0;
    const uint64_t *kept = (const uint64_t *)kept_vec.base;
    const uint32_t *rank = (const uint32_t *)rank_vec.base;
    size_t kwords = (remap_len + 63) / 64;
    if (index_valid && remap_len > 0 && remap_len >= indexed_len && !remap_broken &&
        hp_vec_ensure(&rank_vec, (kwords + 1) * sizeof(uint32_t)) == 0) {
        uint32_t before = 0;   /* (Note [Kept bits]; the base of a vec never moves) */
        for (size_t k = 0; k < kwords; k++) {
            ((uint32_t *)rank_vec.base)[k] = before;
            before += hp_popcount64(kept[k]);
        }
        /* Update: the previous index less the dead, with new positions
         * (a sweep keeps survivors in order), merged with the survivors
         * added since (sorted on their own, in tmp_vec). */
        hp_ldv_ent *add = (hp_ldv_ent *)tmp_vec.base;
        size_t nadd = 0, room = tmp_vec.committed / sizeof(hp_ldv_ent);
        /* The collector maps new heap below the old (mmap hands out
         * addresses downwards): an addition below the origin lowers it,
         * and the old entries move up by `shift` granules in the backward
         * pass, which writes each of them anyway (Note [Eight-byte
         * entries]); one too far above it sends the pass to a whole
         * build. */
        uintptr_t origin = hp_ldv.origin;
        /* (mode ldv: the records added since are the table's from ordinal
         * `since` on, the kept before them being the old index's) */
        size_t since = kept_n;
        if (indexed_len < remap_len)
            since = rank[indexed_len >> 6] +
                    hp_popcount64(kept[indexed_len >> 6] & (((uint64_t)1 << (indexed_len & 63)) - 1));
        if (hp_ldv_rsides) {
            ord_pass p = {.origin = origin};
            if (since < len) hp_shadow_foreach_ord(since, lowest_base, &p);
            origin = p.origin & ~(uintptr_t)((1u << HP_LDV_GRAN_SHIFT) - 1);
        } else {
            for (size_t i = indexed_len; i < remap_len; i++) {
                uint32_t to = remap_of(kept, rank, i);
                if (to != UINT32_MAX && recs[to].granted != 0 && recs[to].base < origin)
                    origin = recs[to].base & ~(uintptr_t)((1u << HP_LDV_GRAN_SHIFT) - 1);
            }
        }
        uint64_t shift = (hp_ldv.origin - origin) >> HP_LDV_GRAN_SHIFT;
        if (index_n && (uint64_t)e[index_n - 1].gran + shift > UINT32_MAX) goto full;
        if (hp_ldv_rsides) {
            ord_pass p = {.origin = origin, .ents = add, .room = room, .grow = 1};
            if (since < len) hp_shadow_foreach_ord(since, ent_of, &p);
            if (p.failed) goto full;
            add = p.ents;
            nadd = p.n;
        } else {
            for (size_t i = indexed_len; i < remap_len; i++) {
                uint32_t to = remap_of(kept, rank, i);
                if (to == UINT32_MAX || recs[to].granted == 0) continue;
                if (__builtin_expect(nadd == room, 0)) {   /* grows geometrically */
                    if (hp_vec_ensure(&tmp_vec, (nadd + 1) * sizeof(hp_ldv_ent)) != 0) goto full;
                    room = tmp_vec.committed / sizeof(hp_ldv_ent);
                }
                if (!make_ent(&add[nadd], origin, &recs[to], to)) goto full;
                nadd++;
            }
        }
        hp_ldv.origin = origin;
        hp_ldv_sort_ents(add, nadd, work);
        /* Note [One index buffer]
         * ~~~~~~~~~~~~~~~~~~~~~~~~
         * The old index becomes the new in its own buffer, in two passes
         * (the index is far larger than the caches: each pass costs its
         * size in memory traffic; a second buffer cost as much memory
         * again, 16.5 of the 100 MB trees.c 18 held under ldv).
         *  1. Backward, the survivors of the old index, renumbered, move
         *     to the buffer's end, [w, cap): the write never passes the
         *     read (cap >= index_n). Whether each was used this period
         *     (its bit, by old position) rides in its idx's top bit
         *     (record indexes are below 2^30: the table holds at most
         *     2^30 records).
         *  2. Forward, they merge with the added into [0, n), finding the
         *     runs of pages. The write never passes the read: the entries
         *     written are the m survivors read plus the added placed, at
         *     most w + read (m + nadd <= len < cap: one entry a live
         *     record).
         * Records before the table's first death kept their place (in a
         * program that keeps what it built first, most of the index): no
         * bits read for them. */
        size_t ident = kept_ident < indexed_len ? kept_ident : indexed_len;
        size_t w = cap;
        for (size_t a = index_n; a-- > 0;) {
            hp_ldv_ent x = e[a];
            uint32_t from = x.idx & HP_LDV_IDX_MASK;
            uint32_t to = from < ident ? from : remap_of(kept, rank, from);
            if (to == UINT32_MAX) continue;
            x.idx = to | (x.idx & HP_LDV_ENT_PAST) |
                    (settled_on && bit_at(bits, a) ? HP_LDV_ENT_USED : 0);
            x.gran += (uint32_t)shift;
            e[--w] = x;
        }
        memset(bits, 0, ((len + 64) / 64) * sizeof(uint64_t));
        uint64_t next_add = nadd ? add[0].gran : UINT64_MAX;
        size_t b = 0;
        for (size_t r = w; r < cap; r++) {
            hp_ldv_ent x = e[r];
            while (next_add < x.gran) {
                add_run(runs, first, &nr, &add[b], n);
                e[n++] = add[b++];
                next_add = b < nadd ? add[b].gran : UINT64_MAX;
            }
            if (x.idx & HP_LDV_ENT_USED) {
                x.idx &= ~HP_LDV_ENT_USED;
                set_bit(bits, n);   /* used this period: nothing to learn */
                hp_ldv.settled_skipped++;
            } else {
                add_run(runs, first, &nr, &x, n);
            }
            e[n++] = x;
        }
        for (; b < nadd; b++) {
            add_run(runs, first, &nr, &add[b], n);
            e[n++] = add[b];
        }
    } else {
    full:
        hp_ldv.index_whole++;
        /* The origin: the lowest base (Note [Eight-byte entries]). */
        uintptr_t origin = UINTPTR_MAX;
        if (hp_ldv_rsides) {
            ord_pass p = {.origin = origin};
            hp_shadow_foreach_ord(0, lowest_base, &p);
            origin = p.origin;
        } else {
            for (size_t i = 0; i < len; i++)
                if (recs[i].granted != 0 && recs[i].base < origin) origin = recs[i].base;
        }
        hp_ldv.origin = origin & ~(uintptr_t)((1u << HP_LDV_GRAN_SHIFT) - 1);
        if (hp_ldv_rsides) {
            ord_pass p = {.origin = hp_ldv.origin, .ents = e, .room = cap, .next = next};
            hp_shadow_foreach_ord(0, ent_of, &p);
            n = p.n;
        } else {
            for (size_t i = 0; i < len; i++) {
                if (recs[i].granted == 0) continue;
                if (make_ent(&e[n], hp_ldv.origin, &recs[i], i)) n++;
                else hp_ldv_make_inherent(&recs[i], i, next);   /* (not indexed: never seen used) */
            }
        }
        hp_ldv_sort_ents(e, n, work);
        memset(bits, 0, ((len + 64) / 64) * sizeof(uint64_t));
        for (size_t i = 0; i < n; i++) add_run(runs, first, &nr, &e[i], i);
    }
    if (runs_short || (nr >= runs_cap && (runs_grow(nr + 1), runs_short))) {
        atomic_store(&hp_ldv.collecting, 0);   /* out of memory: as above */
        index_valid = 0;
        return;
    }
    indexed_len = len;
    index_valid = 1;
    remap_len = 0;
    remap_open = 0;
    index_n = n;
    first[nr] = (uint32_t)n;
    if (rest) {
        /* The index is kept up to date (the next pass updates it); no page
         * is protected, so no handler looks at it. */
        uint64_t zero = 0;
        atomic_compare_exchange_strong(&hp_ldv.budget_first_ns, &zero, mut);
        hp_ldv.resting = 1;
        hp_ldv.rested++;
        hp_ldv.ents = e;
        hp_ldv.nents = n;
        hp_ldv.used_bits = bits;
        hp_ldv.runs = runs;
        hp_ldv.nruns = 0;
        hp_ldv.lo = hp_ldv.hi = 0;
        atomic_store(&hp_ldv.collecting, 0);
        hp_ldv.index_ns += hp_mono_ns() - t0;
        publish_cost();
        return;
    }
    /* The map-entry budget: half of what the kernel has left (read again
     * at once when heapprof gave way to the program's map calls). */
    uint64_t now = hp_coarse_ns();
    if (gave_way_last) baseline_read_ns = 0;
    gave_way_last = 0;
    if (!baseline_read_ns || now - baseline_read_ns > 500000000u) {
        long m = count_maps();
        if (m > 0) map_baseline = m;
        baseline_read_ns = now;
    }
    long budget = (hp_ldv.max_map_count - map_baseline) / 2 - 1000;
    if (budget < 0) budget = 0;
    hp_ldv.map_budget = budget;
    /* Too many runs: protect the longest, leave the shortest (their objects
     * become INHERENT_USE). Runs cost 2 entries; keep half for opens. */
    size_t allowed = (size_t)budget / 4;
    size_t min_pages = 0;
    if (nr > allowed) {
        size_t hist[64] = {0};
        for (size_t k = 0; k < nr; k++)
            hist[63 - __builtin_clzl((runs[k].hi - runs[k].lo) >> HP_PAGE_SHIFT)]++;
        size_t kept = 0;
        int b = 63;
        while (b >= 0 && kept + hist[b] <= allowed) kept += hist[b--];
        min_pages = (size_t)1 << (b + 1);
    }
    size_t out = 0;
    /* (mode ldv: the records to make INHERENT_USE marked by ordinal, then
     * made so in one pass over the table) */
    uint64_t *inh = NULL;
    if (min_pages && hp_ldv_rsides &&
        hp_vec_ensure(&inh_vec, ((len + 64) / 64) * sizeof(uint64_t)) == 0) {
        inh = (uint64_t *)inh_vec.base;
        memset(inh, 0, ((len + 64) / 64) * sizeof(uint64_t));
    }
    for (size_t k = 0; k < nr; k++) {
        if (((runs[k].hi - runs[k].lo) >> HP_PAGE_SHIFT) < min_pages) {
            for (uint32_t i = first[k]; i < first[k + 1]; i++)
                if (hp_ldv_ent_base(&e[i]) < runs[k].hi &&
                    hp_ldv_ent_base(&e[i]) + hp_ldv_ent_size(&e[i]) > runs[k].lo) {
                    size_t idx = hp_ldv_ent_idx(&e[i]);
                    if (!hp_ldv_rsides) hp_ldv_make_inherent(&recs[idx], idx, next);
                    else if (inh) set_bit(inh, idx);
                }
            hp_ldv.runs_skipped++;
            continue;
        }
        runs[out++] = runs[k];
    }
    nr = out;
    if (inh) {
        ord_pass p = {.next = next, .marks = inh};
        hp_shadow_foreach_ord(0, inherent_marked, &p);
    }
    /* Per-page counters of fruitless faults (ldv=adaptive). */
    size_t total = 0;
    for (size_t k = 0; k < nr; k++) {
        runs[k].off = total;
        total += (runs[k].hi - runs[k].lo) >> HP_PAGE_SHIFT;
    }
    if (hp_ldv.repeat) {
        if (hp_vec_ensure(&waste_vec, 2 * (total + 1)) == 0) memset(waste_vec.base, 0, 2 * (total + 1));
        else hp_ldv.repeat = 0;   /* out of memory: precise */
    }
    /* Pages heapprof opens in the period (not protected again when the
     * program's own mprotect covers them). */
    hp_ldv_prot_.opened_ok = hp_vec_ensure(&opened_vec, total + 1) == 0;
    if (hp_ldv_prot_.opened_ok) memset(opened_vec.base, 0, total + 1);
    /* What protecting pages again paid lately: halved at each pass. */
    atomic_store(&hp_ldv.rearm_paid_recent, atomic_load(&hp_ldv.rearm_paid_recent) / 2);
    atomic_store(&hp_ldv.rearm_wasted_recent, atomic_load(&hp_ldv.rearm_wasted_recent) / 2);
    atomic_store(&hp_ldv.stale_burst_peeks_recent, atomic_load(&hp_ldv.stale_burst_peeks_recent) / 2);
    atomic_store(&hp_ldv.stale_burst_uses_recent, atomic_load(&hp_ldv.stale_burst_uses_recent) / 2);
    /* Entries of objects made inherent stay in the index: hp_ldv_use
     * ignores them; their pages are not protected. */
    hp_ldv.ents = e;
    hp_ldv.nents = n;
    hp_ldv.used_bits = (uint64_t *)bits_vec.base;
    hp_ldv.runs = runs;
    hp_ldv.nruns = nr;
    hp_ldv.lo = nr ? runs[0].lo : 0;
    hp_ldv.hi = nr ? runs[nr - 1].hi : 0;
    atomic_store(&hp_ldv.opens, 0);
    /* System calls in flight keep their buffers open. */
    uintptr_t fl[INFLIGHT_SLOTS][2];
    int nfl = 0;
    for (int s = 0; s < INFLIGHT_SLOTS; s++) {
        uintptr_t lo = atomic_load(&slots[s].lo);
        if (!lo) continue;
        fl[nfl][0] = lo;
        fl[nfl][1] = atomic_load(&slots[s].hi);
        nfl++;
    }
    uint64_t t1 = hp_mono_ns();
    sigset_t old;
    block_signals(&old);
    atomic_store(&protecting, 1);
    hp_ldv_peek_recheck();
    /* Dispatch on from the first pass that protects a page, and never off
     * again (until heapprof stops): turning it on is safe only for a
     * thread that has not really blocked SIGSYS, and with dispatch off,
     * glibc's raw block-every-signal (pthread_create, posix_spawn, raise)
     * really blocks it; turned on before that thread's restore, the
     * restore -- a dispatched call with SIGSYS blocked -- kills the
     * process. While dispatch is on no program call can block SIGSYS
     * (hp_ldv_sud_sigsafe.c strips it from every mask it is given). A
     * collection's system calls are dispatched too (pages are open then:
     * nothing to see, a signal each). */
    if (nr > 0 && !hp_ldv_sud_armed()) hp_ldv_sud_arm(1);
    size_t pages = 0;
    for (size_t k = 0; k < nr; k++)
        pages += protect_run(runs[k].lo, runs[k].hi, (const uintptr_t (*)[2])fl, nfl);
    atomic_store(&hp_ldv.collecting, 0);
    atomic_store(&protecting, 0);
    hp_sys_sigmask(SIG_SETMASK, &old, NULL);
    hp_ldv.passes++;
    hp_ldv.pages_protected = pages;
    hp_ldv.pages_protected_all += pages;
    hp_ldv.runs_protected = nr;
    if (nr > hp_ldv.max_runs) hp_ldv.max_runs = nr;
    hp_ldv.index_ns += t1 - t0;
    hp_ldv.protect_ns += hp_mono_ns() - t1;
    publish_cost();
    /* The handlers' clock, and the kernel's part of a dispatched call
     * (once, now that dispatch is armed: signals are this thread's again). */
    hp_rt_clock_calibrate();
    if (hp_ldv_sud_armed()) hp_ldv_sud_measure();
}
/* ---- end of collector-callback code ---- */

