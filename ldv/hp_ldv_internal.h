/* hp_ldv_internal: what the files of ldv/ share: the LDV word, the address
 * index and the protected runs, the per-thread trap state. Not for use
 * outside ldv/ (the rest of heapprof calls hp_ldv.h). */
#ifndef HP_LDV_INTERNAL_H
#define HP_LDV_INTERNAL_H
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "ldv/hp_ldv.h"
#include "core/hp_buf.h"
#include "core/hp_mem.h"

/* The LDV word (hp_rec.word in ldv mode; Note [The mode word] in
 * core/hp_shadow.h): the creation period is the
 * record's `birth`; the word holds whether the object was used, whether it
 * became untrackable (INHERENT_USE from then on), and its last-use period. */
#define HP_LDV_USED 0x80000000u
#define HP_LDV_INHERENT 0x40000000u
#define HP_LDV_PERIOD 0x3fffffffu

#define HP_PAGE 4096u
#define HP_PAGE_SHIFT 12

/* One live record in the address index, sorted by base. */
typedef struct hp_ldv_ent {
    uintptr_t base;
    uint32_t size;    /* granted bytes */
    uint32_t idx;     /* index in the shadow table */
} hp_ldv_ent;

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
    unsigned repeat;                /* adaptive: fruitless faults before a page
                                       stays open; 0 = never (precise) */
    _Atomic int collecting;         /* between START and the protect pass */
    _Atomic int opening;            /* START is opening the runs */
    _Atomic int handlers;           /* fault handlers and wrappers inside the index */
    _Atomic int stopped;            /* at exit: no more protection */
    hp_ldv_ent *ents; size_t nents;
    hp_ldv_run *runs; size_t nruns;
    uintptr_t lo, hi;               /* span of the runs */
    hp_rec *recs;                   /* the shadow table when the index was built */
    uintptr_t gc_lo, gc_hi;         /* libgc's text (its accesses are not uses) */
    uintptr_t self_lo, self_hi;     /* heapprof's */
    /* Map-entry budget. */
    long max_map_count;
    long map_budget;                /* entries heapprof may add */
    _Atomic long opens;             /* single pages opened since the last pass */
    _Atomic long coarse_opens;      /* opened a whole block or run for the budget */
    /* Figures for .prof. */
    _Atomic uint64_t faults, uses, gc_faults, sys_uses, efault_retries, enomem;
    _Atomic uint64_t steps, emulated;   /* re-armed after a single step / an emulation */
    uint64_t passes, pages_protected, runs_protected, runs_skipped, max_runs;
    uint64_t inherent_objects;
    uint64_t index_ns, protect_ns, open_ns;   /* time in the passes */
} hp_ldv_state;

extern hp_ldv_state hp_ldv;

/* The biography's state (hp_ldv_bio_sigsafe.c; reserved by hp_ldv.c). */
typedef struct hp_ldv_census {
    double time;                  /* profile seconds */
    uint64_t notused, used, inh;  /* live bytes by state at this census */
    int64_t dvoid, ddrag;         /* difference arrays (voidNew, dragNew) */
} hp_ldv_census;
typedef struct hp_ldv_cost { double drag_bs, void_bs; } hp_ldv_cost;  /* byte-seconds */
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
} hp_ldv_bio;
extern hp_ldv_bio hp_ldv_bio_;

/* hp_ldv_prot.c and hp_ldv_prot_sigsafe.c share: system-call spans in
 * flight, the protect pass's flag, the per-page counters of the adaptive
 * policy. */
#define HP_LDV_INFLIGHT_SLOTS 256
#define HP_LDV_BLOCK_PAGES 256u             /* coarse open: 1 MiB */
typedef struct hp_ldv_inflight { _Atomic uintptr_t lo; _Atomic uintptr_t hi; } hp_ldv_inflight;
typedef struct hp_ldv_prot_state {
    hp_ldv_inflight slots[HP_LDV_INFLIGHT_SLOTS];
    _Atomic int protecting;
    hp_vec waste_vec;                       /* fruitless faults per page */
} hp_ldv_prot_state;
extern hp_ldv_prot_state hp_ldv_prot_;

/* hp_ldv_prot.c */
int hp_ldv_prot_init(void);
/* The index entry covering addr, or NULL. Handler-safe. */
const hp_ldv_ent *hp_ldv_find(uintptr_t addr);
/* The run holding addr, or NULL. Handler-safe. */
const hp_ldv_run *hp_ldv_find_run(uintptr_t addr);
/* Open the page holding addr (within its run `run`), degrading to a
 * larger block when the map-entry budget is spent. 0 or -1. */
int hp_ldv_open_page(uintptr_t addr, const hp_ldv_run *run);
/* Open every protected page of [p, p+n). */
void hp_ldv_open_range(uintptr_t p, size_t n);
/* Re-protect one page (precise mode, after the step) unless a system call
 * in flight uses it. */
void hp_ldv_reprotect_page(uintptr_t page);
/* ldv=adaptive: one more fault without a new use on this page; returns 1
 * when the page should now stay open for the rest of the period. */
int hp_ldv_fruitless(uintptr_t addr, const hp_ldv_run *run);

/* hp_ldv_emul.c: perform the faulting instruction at g[REG_RIP] on the
 * (opened) page [lo, hi) when it is a plain load, store, compare or test
 * of general registers: registers, flags and memory as the instruction
 * leaves them, RIP past it; 1. Anything else: 0, nothing changed.
 * Handler-safe. */
int hp_ldv_emulate(greg_t *g, uintptr_t lo, uintptr_t hi);
/* The arithmetic flags (CF PF AF ZF SF OF) of a - b and of a & b at an
 * operand size of `size` bytes, as CMP and TEST set them (exposed for tests). */
uint64_t hp_ldv_flags_sub(uint64_t a, uint64_t b, int size);
uint64_t hp_ldv_flags_and(uint64_t a, uint64_t b, int size);
/* A protect pass is applying protection right now. */
int hp_ldv_protecting(void);
/* A system call on [p, p+n) is in flight on this thread: the protect pass
 * leaves those pages open. Returns a slot for hp_ldv_inflight_end, or -1. */
int hp_ldv_inflight_begin(uintptr_t p, size_t n);
void hp_ldv_inflight_end(int slot);

/* hp_ldv.c: mark the object holding addr used in the current period (a
 * write in its creation period is not a use). Handler-safe. */
int hp_ldv_use(const hp_ldv_ent *e, int is_write);   /* 1: a new use */
/* Every object overlapping [p, p+n) (a system call's buffer). */
void hp_ldv_use_range(uintptr_t p, size_t n, int is_write);
/* Mark a record inherent at census t (it could not be protected). */
void hp_ldv_make_inherent(hp_rec *r, uint32_t t);

/* hp_ldv_trap.c: install the handlers. */
int hp_ldv_trap_init(char *err, unsigned long errlen);
/* hp_ldv_trap_sigsafe.c: the handlers, and what they share with
 * hp_ldv_trap.c: the program's actions, chained to, and the mask the
 * handlers run with. */
typedef struct hp_ldv_trap_state {
    int installed;
    struct sigaction prev_segv, prev_trap;
    sigset_t handler_mask;
} hp_ldv_trap_state;
extern hp_ldv_trap_state hp_ldv_trap_;
void hp_ldv_on_segv(int sig, siginfo_t *si, void *ucv);
void hp_ldv_on_trap(int sig, siginfo_t *si, void *ucv);

/* hp_ldv_syscall_sigsafe.c: the collector's heap test, found once libgc
 * is known (hp_ldv_trap.c's attach). */
extern int (*hp_ldv_gc_is_heap_ptr)(const void *);
extern int (*hp_ldv_gc_is_init_called)(void);

#endif
