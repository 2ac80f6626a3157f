/* hp_ldv_internal: what the files of ldv/ share: the LDV word, the address
 * index and the protected runs, the per-thread trap state. Not for use
 * outside ldv/ (the rest of heapprof calls hp_ldv.h). */
#ifndef HP_LDV_INTERNAL_H
#define HP_LDV_INTERNAL_H
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#include "ldv/hp_ldv.h"
#include "core/hp_sys.h"
#include "core/hp_buf.h"
#include "core/hp_mem.h"
#include "core/hp_real.h"
#include "core/hp_shadow.h"

/* The LDV word (hp_rec.word in ldv mode; Note [The mode word] in
 * core/hp_shadow.h): the creation period is the
 * record's `birth`; the word holds whether the object was used, whether it
 * became untrackable (INHERENT_USE from then on), and its last-use period.
 * Until its first use the period bits hold 0, or 1 + the first period in
 * which the object's page was left open before it was seen used
 * (hp_ldv_span_unwatched): from then on its LAG is uncertain. */
#define HP_LDV_USED 0x80000000u
#define HP_LDV_INHERENT 0x40000000u
#define HP_LDV_PERIOD 0x3fffffffu

/* Mode retainer with bands= (the biography's bands by retainer set,
 * hp_ldv_byret_sigsafe.c): the record's word holds its retainer label (the
 * traversal's), and the LDV word moves to a side entry per table slot,
 * beside the record's retainer-set history. hp_ldv_sides is NULL in every
 * other mode. */
typedef struct hp_ldv_side {
    uint32_t word;     /* the LDV word */
    uint32_t label;    /* band (label id + 1; 0: attributed to no set) of its
                          retainer set from census `since` on */
    uint32_t since;    /* first census of that run; 0: never counted */
    uint32_t older;    /* earlier runs still of use: pool index + 1, newest first */
} hp_ldv_side;
extern hp_ldv_side *hp_ldv_sides;
/* The side entry of a record: a table slot's, by its address (slots the
 * sweep has not seen yet are zeroed first), or a scratch entry for a
 * record still in a thread's log. */
hp_ldv_side *hp_ldv_side_of(const hp_rec *r);
/* The LDV word of table record idx / of record r (the fault handlers use
 * the first: their records are indexed, so their slots exist). */
/* Mode ldv keeps its records in the compact table with side entries
 * (core/hp_shadow.h, Note [Side entries]): hp_ldv_rsides, the entries,
 * by ordinal -- an index entry's idx -- where the handlers read a
 * record's birth and change its word; the records the sweep and
 * hp_shadow_foreach_ord hand out are copies. NULL in mode retainer with
 * bands=, whose table holds hp_rec (hp_ldv.recs, by index). */
extern hp_rec_side *hp_ldv_rsides;
static inline uint32_t *hp_ldv_word_at(hp_rec *r, size_t idx)
{
    return hp_ldv_sides ? &hp_ldv_sides[idx].word
           : hp_ldv_rsides ? &hp_ldv_rsides[idx].word : &r->word;
}
/* Record r (table index idx; NULL in mode ldv: ordinal idx) may have had
 * a use no fault saw. */
static inline void hp_ldv_set_unwatched(hp_rec *r, size_t idx)
{
    if (!r) {
        uint32_t *b = &hp_ldv_rsides[idx].bits;
        if (!(__atomic_load_n(b, __ATOMIC_RELAXED) & HP_SIDE_UNWATCHED))
            __atomic_fetch_or(b, HP_SIDE_UNWATCHED, __ATOMIC_RELAXED);
    } else if (!(__atomic_load_n(&r->flags, __ATOMIC_RELAXED) & HP_REC_UNWATCHED)) {
        __atomic_fetch_or(&r->flags, (uint8_t)HP_REC_UNWATCHED, __ATOMIC_RELAXED);
    }
}
static inline uint32_t *hp_ldv_word_of(const hp_rec *r)
{
    return hp_ldv_sides ? &hp_ldv_side_of(r)->word : (uint32_t *)&r->word;
}

/* hp_ldv_byret_sigsafe.c: the scheme's operations in that mode (each
 * calls the plain ldv one and keeps the side entries). */
int hp_ldv_byret_init(void);
uint32_t hp_ldv_byret_label_of(hp_rec *r, size_t idx);
void hp_ldv_byret_census_rec(const hp_rec *r, uint32_t t);
void hp_ldv_byret_on_death(const hp_rec *r, uint32_t d);
void hp_ldv_byret_death(const hp_rec *r, uint32_t w, uint32_t d);
/* The same without forgetting the runs or counting the (set, stack)
 * pairs: a checkpoint's copy (hp_ldv_bio_.cross_into set to it). */
void hp_ldv_byret_settle_copy(const hp_rec *r, uint32_t w, uint32_t d);
/* (the sweep's: the side entries' part only) */
void hp_ldv_byret_sweep_begin(size_t len);
void hp_ldv_byret_moved(size_t from, size_t to);
void hp_ldv_byret_after_sweep(void);
void hp_ldv_byret_write_prof(int fd);
void hp_ldv_byret_postfork_child(void);
void hp_ldv_byret_prof(hp_buf *b);
/* Its tables: DRAG and VOID by (retainer set, stack). */
void hp_ldv_byret_tables(hp_buf *b);
/* A difference entry of bands=: `delta` bytes from census t on, in band
 * (label id) l. */
void hp_ldv_cross_add(uint32_t l, uint32_t t, int64_t delta);

#define HP_PAGE 4096u
#define HP_PAGE_SHIFT 12

/* Note [Eight-byte entries]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The address index holds an entry per live record, sorted by base: with
 * the records themselves, the largest thing ldv keeps, and read whole
 * twice at every protect pass (ldv/hp_ldv_prot.c, Note [One index
 * buffer]). An entry is 8 bytes:
 *   gran: the base, in 16-byte granules above the index's origin
 *         (hp_ldv.origin, at or below every indexed base: a whole build
 *         takes the lowest, an update lowers it to an addition below it
 *         and moves the old entries up; a heap spread over at most 64
 *         GiB; a record outside that, or not 16-aligned, is not indexed
 *         but made INHERENT_USE, hp_ldv_prot.c);
 *   idx:  the record's index in the shadow table (bits 0-29: at most 2^30
 *         records), HP_LDV_ENT_PAST (bit 30) when the object ends past
 *         the page its base is on (a large one: the pass builds its runs
 *         of pages without reading the records of the others), bit 31
 *         the pass's own.
 * The object's size is its record's granted bytes (hp_ldv_ent_size): read
 * for the one entry a search ends on, whose record the use reads next
 * anyway. 16 bytes an entry before (base, size, idx): trees.c 18 held 16.8
 * MB of index and 5.5 MB of entries added since the pass at its peak.
 * In mode ldv the table is compact (core/hp_shadow.h, Note [Side
 * entries]): idx is the record's ordinal, its side entry's place, and the
 * size is the collector's for the block (GC_base, then GC_size: what the
 * record's granted bytes were set from). */
typedef struct hp_ldv_ent {
    uint32_t gran;    /* (base - origin) / 16 */
    uint32_t idx;     /* record index | HP_LDV_ENT_PAST */
} hp_ldv_ent;
#define HP_LDV_ENT_PAST (1u << 30)
#define HP_LDV_IDX_MASK (HP_LDV_ENT_PAST - 1)
#define HP_LDV_GRAN_SHIFT 4

/* Sort a[0, n) by gran, in place (hp_ldv_sort_sigsafe.c); `work` holds
 * HP_LDV_SORT_WORK words of counters. Collector-callback safe. */
#define HP_LDV_SORT_WORK ((size_t)4 * 512)   /* 2 x 256 words a level, 4 levels of 8 bits */
void hp_ldv_sort_ents(hp_ldv_ent *a, size_t n, size_t *work);

/* A run of adjacent pages protected together (one mprotect, one map entry). */
typedef struct hp_ldv_run {
    uintptr_t lo, hi;
    size_t off;       /* index of its first page in the per-page counters */
} hp_ldv_run;

/* State shared by the handler, the wrappers and the protect pass. The
 * arrays are rebuilt by the owner (lock held) while `collecting` is set, and
 * only read by handlers while it is clear. */
typedef struct hp_ldv_state {
    int active;                     /* ldv mode is on (set once at start) */
    int precise;                    /* single-step faults (ldv=precise, adaptive) */
    int sud_wanted;                 /* syscalls=dispatch */
    unsigned repeat;                /* adaptive: fruitless faults before a page
                                       stays open; 0 = never (precise) */
    /* Adaptive: exact re-arming (a page's fruitless faults offset by the
     * new uses found on it) while the cost of watching (hp_ldv_watch_cost)
     * stays within the larger of budget_floor_ns and budget_floor_faults
     * x a fault's kernel cost, plus budget_ratio x the program's own time
     * (Note [A floor in faults], hp_ldv_prot_sigsafe.c); past it,
     * `repeat` fruitless faults leave a page open (hp_ldv_trap_sigsafe.c),
     * and a pass protects nothing (hp_ldv_prot.c, Note [Resting past the
     * budget]). budget_ratio 0 (budget=0): no budget. */
    double budget_ratio;
    uint64_t budget_floor_ns;
    uint64_t budget_floor_faults;
    _Atomic int within_budget;      /* 1 while the credit may be spent */
    _Atomic uint64_t budget_first_ns;   /* mutator ns when first past it; 0 never */
    _Atomic uint64_t budget_opens;  /* pages left open while past it */
    _Atomic uint64_t alien_opens;   /* ... at a fault that could teach nothing (hp_ldv_alien) */
    _Atomic uint64_t alien_rearms;  /* such pages protected again once the allocator
                                       worked elsewhere (hp_ldv_rearm_page) */
    _Atomic uint64_t rearms_paid;   /* ... whose next fault found a new use */
    _Atomic uint64_t rearms_wasted; /* ... whose next fault could teach nothing */
    _Atomic int rearm_paid_recent;  /* the same, halved at each pass (the decision's) */
    _Atomic int rearm_wasted_recent;
    /* Bursts after a fault that found no new use: their reads of protected
     * pages and the new uses they saw, halved at each pass (Note [Bursts
     * after a fault on a used object], ldv/hp_ldv_trap_sigsafe.c); and how
     * many were not made for want of uses. */
    _Atomic int stale_burst_peeks_recent;
    _Atomic int stale_burst_uses_recent;
    _Atomic uint64_t stale_bursts_skipped;
    _Atomic uint64_t group_opens;   /* ... with their group (hp_ldv_open_group) */
    _Atomic int collecting;         /* between START and the protect pass */
    _Atomic int opening;            /* START is opening the runs */
    _Atomic int handlers;           /* fault handlers and wrappers inside the index */
    _Atomic int stopped;            /* at exit: no more protection */
    hp_ldv_ent *ents; size_t nents;
    uint64_t *used_bits;            /* a bit per entry of ents: used this period (hp_ldv_prot.c) */
    hp_ldv_run *runs; size_t nruns;
    uintptr_t lo, hi;               /* span of the runs */
    hp_rec *recs;                   /* the shadow table when the index was built */
    uintptr_t origin;               /* the entries' granule 0 (Note [Eight-byte entries]) */
    uintptr_t self_lo, self_hi;     /* heapprof's */
    /* Map-entry budget. */
    long max_map_count;
    long map_budget;                /* entries heapprof may add */
    _Atomic long opens;             /* single pages opened since the last pass */
    _Atomic long coarse_opens;      /* opened a whole block or run for the budget */
    /* Figures for .prof. */
    _Atomic uint64_t faults, uses, gc_faults, sys_uses, efault_retries, enomem;
    _Atomic uint64_t steps, emulated;   /* re-armed after a single step / an emulation */
    int use_bursts;                     /* burst=on, and a policy that re-arms at once
                                           (hp_ldv_burst_sigsafe.c) */
    _Atomic uint64_t map_gen;           /* +1 at each memory-map call of the program's
                                           (hp_ldv_vm_call): pages known readable
                                           before may not be (hp_ldv_known_readable) */
    _Atomic uint64_t lag_bus, lag_unsure_bus;   /* LAG of objects seen used, and the part
                                           of it after a period unwatched (byte-us) */
    _Atomic uint64_t bursts, burst_insns, burst_uses, burst_peeks;   /* bursts that went on, their
                                           instructions, the first uses they saw */
    _Atomic uint64_t stale_faults;      /* found an object used already this period */
    _Atomic uint64_t init_faults;       /* a write initialising a new object */
    _Atomic uint64_t free_faults;       /* no object indexed there: made since the pass, or free */
    _Atomic uint64_t settled_opens;     /* pages opened with nothing left to learn */
    uint64_t settled_skipped;           /* objects a pass left open, used already in the period */
    _Atomic uint64_t shared_opens;      /* opened for one instruction while other
                                           threads ran: their uses there unseen */
    uint64_t passes, pages_protected, runs_protected, runs_skipped, max_runs;
    uint64_t inherent_objects;
    uint64_t index_ns, protect_ns, open_ns;   /* time in the passes */
    uint64_t index_whole;           /* passes that built the index whole (not updated) */
    uint64_t rested;                /* periods rested past the budget (Note [Resting
                                       past the budget], hp_ldv_prot.c) */
    uint64_t pages_protected_all;   /* pages protected, summed over the passes */
    /* Published by the owner after each pass and open, for the handlers'
     * budget (hp_ldv_watch_cost): the passes' and opens' time with the
     * first touches of the pages protected, and those touches alone. */
    _Atomic uint64_t pass_cost_ns, touch_ns;
    int resting;                    /* the period now running is rested */
} hp_ldv_state;

extern hp_ldv_state hp_ldv;

/* The biography's state (hp_ldv_bio_sigsafe.c; reserved by hp_ldv.c). */
typedef struct hp_ldv_census {
    double time;                  /* profile seconds */
    uint64_t notused, used, inh;  /* live bytes by state at this census */
    int64_t dvoid, ddrag;         /* difference arrays (voidNew, dragNew) */
} hp_ldv_census;
/* Byte-seconds of DRAG and VOID, and the part of each from objects whose
 * uses since their last recorded one were not all watched (uncertain). */
typedef struct hp_ldv_cost { double drag_bs, void_bs, drag_unsure_bs, void_unsure_bs; } hp_ldv_cost;
/* bands=: difference entries keyed (label + 1) << 32 | census, open
 * addressing. */
typedef struct hp_ldv_cross_ent { uint64_t key; int64_t delta; } hp_ldv_cross_ent;
typedef struct hp_ldv_cross {
    hp_vec vec;
    uint64_t n, cap;
    uint32_t labels;              /* highest label + 1 seen */
} hp_ldv_cross;
typedef struct hp_ldv_bio {
    hp_vec census_vec;            /* hp_ldv_census[t], t = 0 .. ncensus + 1 */
    uint32_t ncensus;             /* highest census number begun */
    hp_vec cost_vec;              /* hp_ldv_cost[ccs] */
    uint32_t ncost;
    hp_vec name_cost_vec;         /* hp_ldv_cost[full name id]: stacks folded by name */
    uint32_t nname_cost;
    hp_buf out;
    hp_vec ckpt_vec;              /* a checkpoint's copy of census_vec */
    hp_buf ckpt_out;              /* and its samples */
    /* bands= (the chosen bands by cost-centre stack): difference entries
     * keyed (label + 1) << 32 | census, open addressing; and, at the end,
     * the dense [label][census] values. */
    hp_ldv_cross cross;           /* the biography's */
    hp_ldv_cross ckpt_cross;      /* a checkpoint's copy, with its deaths */
    hp_ldv_cross *cross_into;     /* where hp_ldv_cross_add writes (NULL: cross) */
    hp_vec cross_dense_vec, ckpt_dense_vec;
} hp_ldv_bio;
extern hp_ldv_bio hp_ldv_bio_;

/* hp_ldv_prot.c and hp_ldv_prot_sigsafe.c share: system-call spans in
 * flight, the protect pass's flag, the per-page counters of the adaptive
 * policy. */
#define HP_LDV_INFLIGHT_SLOTS 256
#define HP_LDV_BLOCK_PAGES 256u             /* coarse open: 1 MiB */
#define HP_LDV_GROUP_PAGES 16u              /* past the budget: 64 KiB (hp_ldv_open_group) */
typedef struct hp_ldv_inflight { _Atomic uintptr_t lo; _Atomic uintptr_t hi; } hp_ldv_inflight;
#define HP_LDV_STEP_SLOTS 1024
/* A page opened for a thread's instruction (stepped or emulated): how many
 * threads have it open so (it is protected again when the last is done). */
typedef struct hp_ldv_stepping { _Atomic uintptr_t page; _Atomic int count; } hp_ldv_stepping;
typedef struct hp_ldv_prot_state {
    hp_ldv_inflight slots[HP_LDV_INFLIGHT_SLOTS];
    hp_ldv_stepping stepping[HP_LDV_STEP_SLOTS];
    _Atomic int protecting;
    hp_vec waste_vec;                       /* per page: int16 balance of fruitless
                                               faults against new uses */
    hp_vec opened_vec;                      /* a byte a page: HP_LDV_OPENED, HP_LDV_SHARED_MARKED */
    int opened_ok;                          /* opened_vec covers every run's pages */
    _Atomic int gave_way;                   /* 1 opening, 2 done: the rest of the
                                               period has every page open */
} hp_ldv_prot_state;
extern hp_ldv_prot_state hp_ldv_prot_;

/* A wait on another thread's short step (a protect pass, an opening, a
 * handler leaving): spin, and after a while give the processor away (with
 * more threads than processors the one being waited for may not run). */
static inline void hp_ldv_pause(unsigned *spins)
{
    if (++*spins < 1000) __builtin_ia32_pause();
    else hp_sys_sched_yield();
}

/* hp_ldv_prot.c */
int hp_ldv_prot_init(void);

/* An entry's record index, object base and size (Note [Eight-byte
 * entries]). Handler-safe while the index is valid. */
static inline uint32_t hp_ldv_ent_idx(const hp_ldv_ent *e) { return e->idx & HP_LDV_IDX_MASK; }
static inline uintptr_t hp_ldv_ent_base(const hp_ldv_ent *e)
{
    return hp_ldv.origin + ((uintptr_t)e->gran << HP_LDV_GRAN_SHIFT);
}
static inline uint32_t hp_ldv_ent_size(const hp_ldv_ent *e)
{
    if (hp_ldv_rsides) {
        /* Mode ldv keeps no size by ordinal: the collector's block header
         * gives it (no lock; GC_base first, which says 0 where the block
         * is free -- an object the program freed since the pass, whose
         * header may be gone: GC_size would read through NULL there). */
        void *b = (void *)hp_ldv_ent_base(e);
        if (hp_real.GC_base(b) != b) return 0;
        size_t g = hp_real.GC_size(b);
        return g > UINT32_MAX ? UINT32_MAX : (uint32_t)g;
    }
    return hp_ldv.recs[hp_ldv_ent_idx(e)].granted;
}
/* addr's granule above the origin, saturated: entries whose gran is at
 * most this have their base at or below addr (addr below the origin: none,
 * UINT64_MAX past the 64 GiB any entry can reach). */
static inline int64_t hp_ldv_gran_of(uintptr_t addr)
{
    if (addr < hp_ldv.origin) return -1;
    uintptr_t g = (addr - hp_ldv.origin) >> HP_LDV_GRAN_SHIFT;
    return g > UINT32_MAX ? (int64_t)UINT32_MAX + 1 : (int64_t)g;
}
/* Entry lo - 1 (the last whose base is at or below addr, gran <= g) if
 * it covers addr, else NULL. */
static inline const hp_ldv_ent *hp_ldv_covering(size_t lo, uintptr_t addr)
{
    if (lo == 0) return NULL;
    const hp_ldv_ent *e = &hp_ldv.ents[lo - 1];
    return addr - hp_ldv_ent_base(e) < hp_ldv_ent_size(e) ? e : NULL;
}

/* The first entry whose base is above granule g, in [lo, hi). */
static inline size_t hp_ldv_upper(const hp_ldv_ent *ents, size_t lo, size_t hi, int64_t g)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((int64_t)ents[mid].gran <= g) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The index entry covering addr, or NULL: a binary search of the whole
 * index. Handler-safe. */
static inline const hp_ldv_ent *hp_ldv_find(uintptr_t addr)
{
    int64_t g = hp_ldv_gran_of(addr);
    if (g < 0) return NULL;
    return hp_ldv_covering(hp_ldv_upper(hp_ldv.ents, 0, hp_ldv.nents, g), addr);
}

/* hp_ldv_find(addr), searched from the index entry `near` outwards:
 * galloping (1, 2, 4, ... entries away, towards addr), then halving what
 * is left. A burst that walks a structure goes from an object to one a
 * few entries away (trees.c 18: of 1.9 million searches the entry before
 * and after did not answer, 1.5 million found it within 16 entries): a few
 * probes near entries just read, where a search of the whole index took
 * 22, most of them cache misses. Handler-safe. */
static inline const hp_ldv_ent *hp_ldv_find_from(const hp_ldv_ent *near, uintptr_t addr)
{
    const hp_ldv_ent *ents = hp_ldv.ents;
    size_t n = hp_ldv.nents, i = (size_t)(near - ents);
    if (i >= n) return hp_ldv_find(addr);
    int64_t g = hp_ldv_gran_of(addr);
    if (g < 0) return NULL;
    /* The first entry whose base is above addr lies in [lo, hi]: every
     * entry before lo has its base at or below addr, none from hi on. */
    size_t lo, hi;
    if ((int64_t)ents[i].gran <= g) {
        lo = i + 1;
        hi = n;
        for (size_t step = 1; i + step < n; step *= 2) {
            if ((int64_t)ents[i + step].gran > g) {
                hi = i + step;
                break;
            }
            lo = i + step + 1;
        }
    } else {
        lo = 0;
        hi = i;
        for (size_t step = 1; step <= i; step *= 2) {
            if ((int64_t)ents[i - step].gran <= g) {
                lo = i - step + 1;
                break;
            }
            hi = i - step;
        }
    }
    return hp_ldv_covering(hp_ldv_upper(ents, lo, hi, g), addr);
}
/* The run holding addr, or NULL. Handler-safe. */
const hp_ldv_run *hp_ldv_find_run(uintptr_t addr);
/* Open the page holding addr (within its run `run`), degrading to a
 * larger block when the map-entry budget is spent. 0 or -1. */
int hp_ldv_open_page(uintptr_t addr, const hp_ldv_run *run);
int hp_ldv_open_group(uintptr_t addr, const hp_ldv_run *run);
/* Open every protected page of [p, p+n). */
void hp_ldv_open_range(uintptr_t p, size_t n);
/* The same, opening again pages flagged open for the period. */
void hp_ldv_open_range_again(uintptr_t p, size_t n);
/* Open a page for one thread's instruction (to step or emulate it):
 * counted, so that another thread's step over the same page does not
 * protect it under this one. 0, or -1 when mprotect failed. */
int hp_ldv_step_open(uintptr_t page);
/* The instruction is done: protect the page again when no other thread
 * has it open for an instruction, no system call in flight uses it, and
 * the adaptive policy has not left it open for the period. */
void hp_ldv_reprotect_page(uintptr_t page);
/* ldv=adaptive: one more fault without a new use on this page; returns 1
 * when the page should now stay open for the rest of the period. `rich`:
 * within the budget for exact re-arming (credit from new uses counts). */
int hp_ldv_fruitless(uintptr_t addr, const hp_ldv_run *run, int rich);
/* ldv=adaptive: a fault that could teach nothing (the collector's own
 * access, or the program's on memory no indexed object holds: an object
 * made since the pass, or free memory): the page stays open for the rest
 * of the period, credit or not (doc/semantics.md, Re-arming, and
 * hp_ldv_trap_sigsafe.c, Note [Faults that teach nothing]). */
void hp_ldv_alien(uintptr_t addr, const hp_ldv_run *run, int rich);
/* Protect again a page hp_ldv_alien left open, now that the allocator
 * works on another (Note [The allocator moves on],
 * ldv/hp_ldv_trap_sigsafe.c): 1 when done, 0 when the page must stay
 * open (not open for the period, protected again HP_LDV_REARM_MAX times
 * since its last new use, protecting again has not paid lately, a
 * system call's buffer or another thread's instruction on it, a
 * collection or the map-entry budget).
 * Handler-safe; for a thread that runs alone. */
int hp_ldv_rearm_page(uintptr_t page);
/* A fault on `addr` found a new use: a page protected again there has
 * paid for it, and may be so again in the period. */
void hp_ldv_rearm_paid(uintptr_t addr, const hp_ldv_run *run);
/* A fault on `addr` could teach nothing: a page protected again there
 * (and not opened since) has not paid for it. */
void hp_ldv_rearm_wasted(uintptr_t addr, const hp_ldv_run *run);
/* A fault on the page found the first use this period of an object:
 * `credit` more fruitless faults before the page stays open --
 * HP_LDV_CREDIT for an object that has survived two or more collections,
 * HP_LDV_CREDIT_YOUNG for the first write to one born the period before
 * (a node whose second field is written after its first: see
 * doc/semantics.md, Re-arming); a young object's read earns nothing. */
void hp_ldv_fruitful(uintptr_t addr, const hp_ldv_run *run, int credit);
#define HP_LDV_CREDIT 4
#define HP_LDV_CREDIT_YOUNG 1

/* hp_ldv_emul_sigsafe.c: perform the faulting instruction at g[REG_RIP]
 * when it is one the interpreter knows (hp_ldv_x86.h) and every access it
 * makes lies on the page [lo, hi) (open, or reached through the
 * descriptor fd): registers (the XMM ones in xmm, the context's FXSAVE
 * area; NULL: SSE moves decline), flags and memory as the instruction
 * leaves them, RIP past it; 1. Anything else: 0, nothing changed.
 * Handler-safe. */
int hp_ldv_emulate(greg_t *g, uint8_t (*xmm)[16], uintptr_t lo, uintptr_t hi, int fd);
/* A context's XMM registers for the emulator (hp_ldv_emulate, the
 * bursts), or NULL (then SSE moves decline): the signal frame's FXSAVE
 * area -- unless the frame is in XSAVE form (the software bytes at 464
 * hold FP_XSTATE_MAGIC1) with the SSE component's bit clear in its
 * XSTATE_BV (offset 512): the registers were in their initial state,
 * the area was not written (it holds whatever the stack held), and
 * sigreturn would not read it back either. */
static inline uint8_t (*hp_ldv_xmm_of(ucontext_t *uc))[16]
{
    const uint8_t *fx = (const uint8_t *)uc->uc_mcontext.fpregs;
    if (!fx) return NULL;
    uint32_t magic1;
    uint64_t xstate_bv;
    memcpy(&magic1, fx + 464, 4);
    if (magic1 == 0x46505853u) {
        memcpy(&xstate_bv, fx + 512, 8);
        if (!(xstate_bv & 2)) return NULL;
    }
    return (uint8_t (*)[16])uc->uc_mcontext.fpregs->_xmm;
}
/* hp_ldv_burst_sigsafe.c: after the faulting instruction, emulate the
 * program's next ones while they reach protected pages; returns the
 * instructions done (uc updated to the point reached), *uses the first
 * uses seen, *peeks its reads of protected pages through the descriptor;
 * `credit`: each new use of an older object earns the page faults, as the
 * fault finding it would have (ldv=adaptive within its budget). The
 * caller holds hp_ldv.handlers. */
int hp_ldv_burst(ucontext_t *uc, int fd, int credit, uint64_t *uses, uint64_t *peeks);
/* May the emulator read the instruction at pc? (hp_ldv_trap_sigsafe.c) */
int hp_ldv_code_readable(uintptr_t pc);
/* Is the page of `a` readable (process_vm_readv says so, remembered per
 * thread until the program's next memory-map call)? `code`: a separate
 * memory for instruction pages. (hp_ldv_burst_sigsafe.c) */
int hp_ldv_known_readable(uintptr_t a, int code);

/* hp_ldv_peek*.c: protected pages read and written through /proc/self/mem. */
#define HP_LDV_PEEK_MAGIC 0x6b656570706c6468u
typedef struct hp_ldv_peek_state {
    int fd;                  /* -1: none */
    uint64_t dev, ino;       /* what it is */
    uint64_t *token;         /* HP_LDV_PEEK_MAGIC while fd is this process's (MADV_WIPEONFORK) */
    _Atomic uint64_t gen;    /* +1 around each thread creation (odd: one under way) */
    _Atomic uint64_t solo_gen; /* == gen: the program runs one thread (libgc's markers aside) */
    _Atomic uint64_t passes;       /* protect passes so far (hp_ldv_peek_recheck) */
    _Atomic uint64_t created_pass; /* passes + 1 when a thread was last created */
    int (*gc_get_parallel)(void);
    _Atomic uint64_t peeks;  /* instructions emulated through the descriptor (.prof) */
    /* Threads: a peek holds `lock`; whatever makes a heap page accessible
     * announces itself in `opening` and waits for the lock to be free
     * (hp_ldv_peek_sigsafe.c gives the protocol). */
    _Atomic int lock;
    _Atomic int opening;
    _Atomic uint64_t shared_peeks;   /* peeks while other threads ran (.prof) */
    /* The descriptor's identity was checked at the last protect pass and
     * nothing could have changed it since (hp_ldv_peek_sigsafe.c, Note
     * [Trusting the descriptor]); `never`: not again in this process. */
    _Atomic int trusted, never;
    _Atomic int dispatched;   /* system call dispatch is armed (hp_ldv_sud_arm) */
    _Atomic uint64_t identity_checks;   /* (for tests: fstat calls made) */
} hp_ldv_peek_state;
extern hp_ldv_peek_state hp_ldv_peek_;
void hp_ldv_peek_open(void);   /* at start-up and in a forked child */
/* At each protect pass: count the threads (/proc/self/stat) and allow the
 * descriptor again while the program has one (libgc's markers aside). */
void hp_ldv_peek_recheck(void);
/* A thread is being created (hp_ldv_peek_creating(1) before, (0) after;
 * a raw clone: (2)): no descriptor until the next count. */
void hp_ldv_peek_creating(int phase);
/* The descriptor, when it may be used now; else -1. Handler-safe. */
int hp_ldv_peek_fd(void);
/* Something may have closed or replaced a descriptor (a dispatched close,
 * close_range, dup2 or dup3; a thread let through undispatched): check the
 * peek descriptor's identity again before its next use. `forever`: a call
 * that can close descriptors out of sight (io_uring): always check. */
void hp_ldv_peek_distrust(int forever);
/* System call dispatch armed (1) or not (0): hp_ldv_sud_arm. */
void hp_ldv_peek_dispatch(int on);
/* Around an emulation through the descriptor of an access at addr (on a
 * page heapprof protected): 1 when it may go ahead (then
 * hp_ldv_peek_end), 0 when the page may be open now or is being opened
 * (the caller opens it as without the descriptor). Handler-safe. */
int hp_ldv_peek_begin(uintptr_t addr);
void hp_ldv_peek_end(void);
/* Around every mprotect or map call that may make a heap page accessible
 * (heapprof's openings, the program's calls): waits for a peek in flight
 * to end. Handler-safe; never waits on a thread that can be stopped. */
void hp_ldv_opening_begin(void);
void hp_ldv_opening_end(void);
/* 1 while the program runs one thread (libgc's markers aside), as counted
 * at the last protect pass and since then: no other thread can touch a
 * page the handler opens for one instruction. */
int hp_ldv_peek_solo(void);
/* Was a thread created since the protect pass before the last one? */
int hp_ldv_peek_created_lately(void);
/* n bytes at addr, through fd: 0, or -1. Handler-safe. */
int hp_ldv_peek(int fd, uintptr_t addr, void *buf, size_t n);
int hp_ldv_poke(int fd, uintptr_t addr, const void *buf, size_t n);
/* A protect pass is applying protection right now. */
int hp_ldv_protecting(void);
/* A system call on [p, p+n) is in flight on this thread: the protect pass
 * leaves those pages open. Returns a slot for hp_ldv_inflight_end, or -1. */
int hp_ldv_inflight_begin(uintptr_t p, size_t n);
void hp_ldv_inflight_end(int slot);

/* hp_ldv.c: mark the object holding addr used in the current period (a
 * write in its creation period is not a use). Handler-safe. */
/* 2: a new use of an object that has survived two or more collections
 * (hp_rec.age); 1: another new
 * use; 0: used already this period; -1: a write initialising an object
 * made this period (not a use). */
int hp_ldv_use(const hp_ldv_ent *e, int is_write);
int hp_ldv_page_settled(uintptr_t page);
/* [lo, hi) was opened for the rest of the period now ending: every indexed
 * object there not used in it is marked HP_REC_UNWATCHED (a use recorded
 * later clears it). Called at the collection's start, for the pages opened
 * in the period (opened_vec). */
void hp_ldv_span_unwatched(uintptr_t lo, uintptr_t hi);
/* The same for every record of the table (recs[0, n)) made before
 * `period`: the period ending now was rested, no page protected in it
 * (hp_ldv_prot.c, Note [Resting past the budget]). Owner, at the
 * collection's start. */
void hp_ldv_all_unwatched(hp_rec *recs, size_t n, uint32_t period);
/* What watching has cost so far (fault handlers with the kernel's part,
 * the passes, the opens at collections, the first touches after them),
 * and, in *allow_ns, the budget's allowance at the program's time so far
 * (*mut_ns, the touches taken out). Any context: reads only what the owner
 * published (hp_ldv_prot.c, Note [Resting past the budget]). */
uint64_t hp_ldv_watch_cost(uint64_t *allow_ns, uint64_t *mut_ns);
/* The allowance's floor: the larger of floor= seconds and faults= times
 * a fault's kernel cost (Note [A floor in faults]). Any context. */
uint64_t hp_ldv_budget_floor_ns(void);
/* opened_vec's bits: heapprof opened the page for the rest of the period;
 * the page's objects not yet used were marked unwatched, for an opening
 * while other threads ran (hp_ldv_trap_sigsafe.c). */
#define HP_LDV_OPENED 1
#define HP_LDV_SHARED_MARKED 2
/* ... and: opened for the rest of the period, then protected again
 * (hp_ldv_rearm_page): its objects not used in the period are uncertain
 * as if it had stayed open. */
#define HP_LDV_WAS_OPENED 4
/* Bits 3-7: times protected again so in the period since its last new use
 * (at most HP_LDV_REARM_MAX; Note [The allocator moves on]). */
#define HP_LDV_REARM_SHIFT 3
#define HP_LDV_REARM_MAX 2u
/* Is this the pass's first opening of `page` (in `run`, the handler's
 * look-up) for one instruction while other threads ran? Only the first needs hp_ldv_span_unwatched: the
 * objects it leaves alone are used already in the period, and a pass
 * lies within one period, so a later call would mark nothing new. */
int hp_ldv_page_first_shared_open(uintptr_t page, const hp_ldv_run *run);
/* Every object overlapping [p, p+n) (a system call's buffer). */
void hp_ldv_use_range(uintptr_t p, size_t n, int is_write);
/* Mark a record inherent at census t (it could not be protected). */
void hp_ldv_make_inherent(hp_rec *r, size_t idx, uint32_t t);

/* hp_ldv_trap.c: install the handlers. */
int hp_ldv_trap_init(char *err, unsigned long errlen);
/* hp_ldv_trap_sigsafe.c: the handlers, and what they share with
 * hp_ldv_trap.c: the program's actions, chained to, and the mask the
 * handlers run with. */
typedef struct hp_ldv_trap_state {
    int installed;
    int trap_installed;             /* SIGTRAP: steps (precise, adaptive) or dispatch */
    struct sigaction prev_segv, prev_trap, prev_sys;
    sigset_t handler_mask;
    _Atomic uintptr_t calib_page;   /* heapprof's page faulted on at start-up */
    uint64_t fault_ns;              /* a fault's cost in the kernel, measured there */
    uint64_t retouch_ns;            /* a page's first touch after its protection was
                                       changed, less a touch of a page whose protection
                                       was not (Note [Resting past the budget]) */
} hp_ldv_trap_state;
extern hp_ldv_trap_state hp_ldv_trap_;
void hp_ldv_on_segv(int sig, siginfo_t *si, void *ucv);
void hp_ldv_on_trap(int sig, siginfo_t *si, void *ucv);

/* hp_ldv_sigview_sigsafe.c: sig (a kept signal) is blocked in the
 * program's view: a fault took the default action, a sent signal is held;
 * 1 (the handler returns), or 0 (the program's action applies). */
int hp_ldv_sigview_blocked(int sig, const siginfo_t *si);
/* At start-up (hp_ldv_trap_init): take the inherited mask as the view. */
void hp_ldv_sigview_start(void);

/* hp_ldv_sud*.c: system calls seen through syscall user dispatch. */
#define HP_LDV_SUD_SLOTS 4096   /* selector bytes; the last is shared */
#define HP_LDV_SUD_STEPS 64     /* clone calls stepped at once */
typedef struct hp_ldv_sud_state {
    int usable;                           /* dispatch works on this kernel */
    uintptr_t lo, hi;                     /* heapprof's text: always allowed */
    _Atomic int armed;                    /* pages are protected: BLOCK */
    _Atomic char selector[HP_LDV_SUD_SLOTS];
    _Atomic int used[HP_LDV_SUD_SLOTS];
    /* A clone stepped (hp_ldv_sud_sigsafe.c, step): its address << 16 |
     * the new threads still to trap there; 0 free. One word, so that a
     * slot is never freed while a count is added to it. */
    _Atomic uint64_t step_slot[HP_LDV_SUD_STEPS];
    _Atomic uint64_t dispatched, stepped;   /* for .prof */
    _Atomic int measuring;                /* hp_ldv_sud_measure is timing the handler */
    uint64_t last_inner_ns;               /* ... its last run, call included */
    uint64_t sys_ns;                      /* the kernel's part of a dispatched call */
} hp_ldv_sud_state;
extern hp_ldv_sud_state hp_ldv_sud_;
/* heapprof's restorer (hp_ldv_sud_sigsafe.c). */
void hp_ldv_sud_restore_rt(void);
/* Install heapprof's handler for sig with its own restorer (so that its
 * rt_sigreturn is always allowed); the old action into prev. */
int hp_ldv_install_handler(int sig, void (*fn)(int, siginfo_t *, void *), int flags,
                           const sigset_t *mask, struct sigaction *prev);
/* Dispatch for the calling thread (at attach, in new threads, in forked
 * children); off at thread exit. */
int hp_ldv_sud_thread_on(void);
void hp_ldv_sud_thread_off(void);
/* Once dispatch is armed (owner context, the first protect pass): time a
 * dispatched call on this thread against its handler's own time, for the
 * kernel's part that the handlers' clock cannot see (hp_rt_set_sys_cost). */
void hp_ldv_sud_measure(void);
void hp_ldv_sud_after_fork_child(void);
/* Around an interposed C library call (its buffers opened by the
 * interposer) or exec*: undispatched (0), dispatched again (1). */
void hp_ldv_sud_exec(int end);
/* Pages are protected (1) or all open (0): every thread's selector. */
void hp_ldv_sud_arm(int on);
int hp_ldv_sud_armed(void);   /* dispatch is on */
/* The handlers: SIGSYS; and the SIGTRAP after a stepped call (1: it was
 * one, handled). */
void hp_ldv_sud_on_sys(int sig, siginfo_t *si, void *ucv);
int hp_ldv_sud_on_trap(void *ucv);
/* A SIGSYS that is not dispatch's: the program's action (hp_ldv_trap_sigsafe.c). */
void hp_ldv_sud_chain(siginfo_t *si, void *ucv);
/* hp_ldv_sud.c: turn dispatch on at attach (0), or say why not (-1). */
int hp_ldv_sud_start(void);

/* hp_ldv_vm_sigsafe.c: the program's own page protection and map entries
 * (see the file's comment). How heapprof opens a page the program did not
 * protect (read-write, or read-write-execute when the collector's pages
 * are executable; set at attach). */
extern int hp_ldv_open_prot;
/* The most pages at once whose protection the program set (for .prof). */
long hp_ldv_prog_pages(void);
/* The program's own protection of addr's page forbids this access (err:
 * the fault's REG_ERR: 2 write, 16 instruction fetch): the fault is the
 * program's. */
int hp_ldv_prog_denies(uintptr_t addr, unsigned long err);
/* Open [lo, hi) (page-aligned) for heapprof: to the program's protection
 * where it set one, else to hp_ldv_open_prot. 0, or -1 when an mprotect
 * failed. */
int hp_ldv_open_span(uintptr_t lo, uintptr_t hi);
/* A memory-map system call (mmap, mprotect, pkey_mprotect, munmap, mremap,
 * madvise, mlock, mlock2, munlock): made for the program by
 * hp_ldv_vm_call, which returns the raw result (-errno on failure). */
int hp_ldv_vm_handles(long nr);
/* The map entries in use (lines of /proc/self/maps, read through buf of
 * n bytes), or -1. */
long hp_ldv_map_entries(char *buf, size_t n);
/* hp_ldv_vm_call: in hp_ldv.h (the interposers call it). */
/* Map calls that failed with ENOMEM near vm.max_map_count and times
 * heapprof gave way (for .prof). */
extern _Atomic uint64_t hp_ldv_vm_enomem, hp_ldv_vm_gave_way;

/* hp_ldv_prot_sigsafe.c: give the program heapprof's map entries: open
 * every protected page for the rest of the period, counting the objects
 * on them used in it (their uses can no longer be seen). 1 when pages
 * were opened (the failed call is worth making again), else 0. */
int hp_ldv_give_way(void);
/* heapprof gave way in this period: no page is protected again. */
int hp_ldv_given_way(void);
/* heapprof holds page p protected: in a run, not open for a thread's
 * instruction, for a system call in flight or for the rest of the period.
 * Call with `handlers` raised and `collecting` clear. */
int hp_ldv_page_held(uintptr_t p);

/* hp_ldv_syscall_sigsafe.c: the collector's heap test, found once libgc
 * is known (hp_ldv_trap.c's attach). */
extern int (*hp_ldv_gc_is_heap_ptr)(const void *);
extern int (*hp_ldv_gc_is_init_called)(void);
/* hp_ldv_vm_sigsafe.c: whether the collector maps its heap executable. */
extern int (*hp_ldv_gc_pages_executable)(void);

#endif
