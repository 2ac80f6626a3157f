/* hp_thread: heapprof's per-thread state (level 6, model), in static TLS (initial-exec, so an
 * access is one instruction and never allocates). */
#ifndef HP_THREAD_H
#define HP_THREAD_H
#include <stdint.h>

#include "core/hp_config.h"
#include "core/hp_shadow.h"

#define HP_CC_MAX 256   /* explicit cost centres kept per thread */
/* The stack-capture caches of a thread (core/hp_capture_cache.h, level
 * 5): opaque here; made and given back through hooks that capture
 * registers at start-up (hp_thread_set_cache_hooks). */
struct hp_caches;

typedef struct hp_thread {
    int depth;               /* nesting of GC_ entry points on this thread */
    int ready;               /* log and stack bounds set up */
    /* preload/hp_fast_alloc.h, Note [The fast path's allowance] */
    int64_t fast_left;       /* bytes GC_malloc may still give without the whole path */
    int64_t fast_armed;      /* what fast_left was set to */
    uintptr_t fast_cfa;      /* the last fast call's stack top and return address */
    void *fast_ret;          /* (Note [Nested by address]) */
    hp_tlog *log;
    struct hp_caches *caches; /* or NULL when out of memory */
    uint32_t countdown;      /* allocations until the next clock check */
    uint32_t check_every;
    int walk_left_out;       /* the last walk (hp_unwind_walk_inline): frames it left out */
    /* core/hp_capture.c, Note [Where a thread's stacks end]: the stack
     * pointer of the thread's first frame beyond its outermost named one
     * (its start code, whose return address's recipe is flagged
     * HP_RECIPE_THREAD_START), where walks stop; 0 while not known. */
    uintptr_t start_sp;
    uint8_t walk_reached_last; /* a walk went to the outermost frame */
    uint8_t start_learned;     /* start_sp looked for */
    uint64_t last_check_ns;
    uintptr_t stack_lo, stack_hi;
    uintptr_t gc_entry_frame; /* stack pointer in the outermost GC_ call (valid while depth > 0) */
    uintptr_t gc_entry_regs[6]; /* callee-saved registers at that point (the program's,
                                   or saved above gc_entry_frame) */
    int64_t sample_left;     /* sample=: bytes until the next sample */
    int64_t window_left;     /* window=: bytes until the next collection */
    uint64_t sample_state;   /* sample=: the thread's generator (0: not started) */
    uint32_t sample_count;   /* sample=: the weight of the object being recorded */
    /* The kind and granted size of the objects on page kc_page, as libgc
     * gave them at hp_rt.block_epoch == kc_epoch (preload/hp_wrappers.c). */
    uintptr_t kc_page;
    uint64_t kc_epoch;
    uint32_t kc_size;
    int kc_kind;
    int cc_depth;            /* explicit cost centres pushed (may exceed HP_CC_MAX) */
    uint32_t cc[HP_CC_MAX];  /* their name ids, outermost first */
} hp_thread;

extern __thread hp_thread hp_tls __attribute__((tls_model("initial-exec")));

/* In the program's outermost GC_ call (inlined into the entry point): where
 * its frames end, for the retainer profile's roots on this thread's stack,
 * should a collection run inside the call. A pointer the program holds only
 * in a callee-saved register is either still in that register here (kept
 * in gc_entry_regs) or was saved by the entry point's prologue, above the
 * stack pointer (the scan starts there); libgc's own frames, below, are
 * never scanned. */
static inline __attribute__((always_inline)) void hp_thread_note_entry(hp_thread *t)
{
#if defined(__x86_64__)
    uintptr_t sp;
    __asm__ volatile("mov %%rsp, %0" : "=r"(sp));
    t->gc_entry_frame = sp;
    __asm__ volatile("mov %%rbx, 0(%0)\n\tmov %%rbp, 8(%0)\n\tmov %%r12, 16(%0)\n\t"
                     "mov %%r13, 24(%0)\n\tmov %%r14, 32(%0)\n\tmov %%r15, 40(%0)"
                     : : "r"(t->gc_entry_regs) : "memory");
#else
    t->gc_entry_frame = (uintptr_t)__builtin_frame_address(0);
#endif
}

/* Set up the calling thread (log, stack bounds). Returns 0, or -1 when out
 * of memory (the thread's allocations are then not recorded). */
int hp_thread_setup(hp_thread *t);
void hp_thread_init_key(void);
/* How a thread's capture caches are made (at set-up) and given back (at
 * exit): registered once by stack capture, before any thread is set up. */
void hp_thread_set_cache_hooks(struct hp_caches *(*get)(void), void (*put)(struct hp_caches *));

/* The stacks of every thread set up so far, for naming stack roots
 * (retainer profiling). Appended once per thread (lock-free), never
 * removed: a later thread whose stack reuses the memory is found first.
 * Readable from a collector callback with the world stopped. */
typedef struct hp_stack_entry {
    uintptr_t lo, hi;
    uint32_t ordinal;   /* 0 for the first thread set up (main), then 1, 2, ... */
    uint32_t is_main;
} hp_stack_entry;
/* The registry (hp_thread_stacks_sigsafe.c): reserve it; add a thread's
 * stack [lo, hi) (at its set-up). */
void hp_thread_stacks_init(void);
void hp_thread_register_stack(uintptr_t lo, uintptr_t hi);
/* The entry whose stack holds `addr` (newest first), or NULL. */
const hp_stack_entry *hp_thread_stack_of(uintptr_t addr);

#endif
