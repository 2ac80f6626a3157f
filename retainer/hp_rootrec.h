/* hp_rootrec: the root ranges the collector scans, seen as it pushes them.
 *
 * bdwgc has no call that lists its roots, but it pushes every root range
 * (static data of each module less its exclusions, each thread's stack and
 * saved registers, GC_add_roots ranges, its own finalization structures,
 * and whatever a program's GC_push_other_roots pushes) through the exported
 * GC_push_all / GC_push_all_eager, through the PLT. heapprof defines both
 * (preload/hp_push_wrappers.c), records each range pushed between
 * MARK_START and MARK_END here, and forwards.
 * The collecting thread's own stack part near its stack pointer is copied
 * when pushed: by MARK_END the profiler's own frames overwrite it. */
#ifndef HP_ROOTREC_H
#define HP_ROOTREC_H
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>

typedef struct hp_root_range {
    uintptr_t lo, hi;         /* as pushed */
    const unsigned char *copy;/* a snapshot of [lo, lo + copied), or NULL */
    size_t copied;
    uint8_t eager;            /* pushed with GC_push_all_eager: interior pointers valid */
    uint8_t role;             /* HP_ROLE_*: pushed inside a libgc function of known role */
    uintptr_t pusher;         /* return address of the push call (who pushed it) */
} hp_root_range;

/* The role of a libgc function that pushes roots through the exported
 * push calls, when heapprof wraps it (preload/hp_push_wrappers.c). */
enum { HP_ROLE_NONE, HP_ROLE_FINALIZATION };

/* A range the program registered with GC_add_roots, and the stack that
 * registered it (its name in the profile). */
typedef struct hp_root_reg { uintptr_t lo, hi; uint32_t ccs; } hp_root_reg;
#define HP_ROOT_REGS 4096

/* What a program's mark procedure pushed while marking the object at
 * `src` (one mark-stack entry): [start, start+len) for a length
 * descriptor, else the object at start (len 0). */
typedef struct hp_proc_push { uintptr_t src, start, len, proc; } hp_proc_push;
#define HP_PROC_PUSHES ((size_t)1 << 20)        /* the most a collection records */
#define HP_PROC_PUSHES_FIRST ((size_t)1 << 10)  /* room at start (Guile: 78); grows as needed */

#include "core/hp_mem.h"

#define HP_RANGES_MAX 65536
#define HP_RANGES_FIRST 1024    /* room at start; grows as needed, to HP_RANGES_MAX */
#define HP_SNAPSHOT_BYTES ((size_t)256 << 10)

/* The ranges recorded and the snapshots of stack parts (hp_rootrec_sigsafe.c;
 * reserved by hp_rootrec_init). */
#define HP_DISPLACEMENTS 4096   /* bdwgc accepts displacements below HBLKSIZE */
typedef struct hp_rootrec_state {
    hp_vec range_vec, snap_vec;
    /* Offsets registered with GC_register_displacement: a pointer to
     * base + d keeps an object alive even without interior pointers (ECL
     * tags its conses so). */
    _Atomic uint64_t displacement[HP_DISPLACEMENTS / 64];
    hp_root_reg regs[HP_ROOT_REGS];
    _Atomic uint32_t nregs;
    _Atomic size_t range_cap;     /* ranges range_vec has room for */
    hp_vec push_vec;              /* hp_proc_push[push_cap] */
    _Atomic size_t push_cap;      /* grown as pushes come, up to HP_PROC_PUSHES */
    _Atomic int growing;          /* a recording thread is growing one of the vecs */
    _Atomic size_t npushes;       /* (counts on past push_cap: what was wanted) */
    _Atomic int push_overflow;
    _Atomic uint32_t nranges;
    _Atomic size_t snap_used;
    _Atomic int overflow;
    int role;                     /* HP_ROLE_* of the push under way (collecting thread) */
} hp_rootrec_state;
extern hp_rootrec_state hp_rootrec_;

int hp_rootrec_init(void);
/* The collector pushed [bottom, top) (eager: with GC_push_all_eager, so
 * interior pointers are valid): record it, copying the part of the pushing
 * thread's own stack near its stack pointer. Mark phase, world stopped. */
void hp_rootrec_pushed(void *bottom, void *top, int eager, uintptr_t pusher);
/* Recording is on (a profile that traverses the heap is active). */
static inline int hp_rootrec_on(void) { return hp_rootrec_.range_vec.base != NULL; }
/* A mark procedure `proc` marking `src` moved the mark-stack top from
 * `before` to `after` (entries of 16 bytes: start, descriptor). Marker
 * threads, in parallel: lock-free. */
void hp_rootrec_proc_pushed(uintptr_t proc, const void *src, const void *before,
                            const void *after);
/* The procedure `proc` marked `obj` through GC_mark_and_push. */
void hp_rootrec_proc_edge(uintptr_t proc, const void *src, const void *obj);
/* The pushes recorded since the last reset. */
const hp_proc_push *hp_rootrec_proc_pushes(size_t *n, int *overflowed);
/* GC_add_roots(lo, hi) by the stack `ccs` (program context). */
void hp_rootrec_registered(uintptr_t lo, uintptr_t hi, uint32_t ccs);
/* The registering stack + 1 of the latest registered range holding addr,
 * or 0. Lock-free. */
uint32_t hp_rootrec_registrar(uintptr_t addr);
/* The ranges pushed since the last reset (world stopped, lock held). In
 * incremental mode the collector pushes roots in the first increment of a
 * mark cycle and stacks again in later ones, so ranges accumulate over the
 * whole cycle; a later push of a thread's stack supersedes earlier ones. */
const hp_root_range *hp_rootrec_ranges(size_t *n, int *overflowed);
/* The program registered displacement d (GC_register_displacement). */
void hp_rootrec_displacement(size_t d);
static inline int hp_rootrec_displaced(uintptr_t d)
{
    return d < HP_DISPLACEMENTS &&
           (atomic_load_explicit(&hp_rootrec_.displacement[d / 64], memory_order_relaxed) >> (d % 64)) & 1;
}
/* A mark cycle is complete (MARK_END): start afresh. */
void hp_rootrec_reset(void);

#endif
