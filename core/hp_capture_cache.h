/* hp_capture_cache: the per-thread caches of stack capture (level 5): a
 * return address's function, the cost-centre stack edges, the unwind
 * recipes and the last capture. They live in profiler memory (not TLS:
 * they are large), one set per thread, recycled from exited threads. */
#ifndef HP_CAPTURE_CACHE_H
#define HP_CAPTURE_CACHE_H
#include <stdint.h>

#include "core/hp_config.h"

#define HP_PCFN_SLOTS 1024

#define HP_EDGE_SLOTS 4096

/* Return address -> start of its function, cached per thread. */
typedef struct hp_pcfn { uintptr_t pc, fn; } hp_pcfn;

/* A cost-centre stack is built as GHC builds one: from the outermost frame
 * in, each frame pushed onto the stack so far. This per-thread cache maps
 * (stack so far, frame) -> the stack after the push, so a hit costs a hash
 * and a compare per frame. The frame is its return address (unwind=fp,
 * libunwind-raw) or its function (unwind=libunwind, whose walk knows the
 * function: hp_recipe.fn); a process uses one kind of key. */
typedef struct hp_edge {
    uintptr_t pc;
    uint32_t parent, child;   /* stack ids; child + 1, 0 = empty slot */
} hp_edge;

/* 8192 recipes (256 KiB a thread): a runtime's allocating paths can pass
 * through more than 2000 distinct return addresses (ECL's do), and a
 * cuckoo table holds them all only while under about two fifths full. */
#define HP_RECIPE_BITS 13
#define HP_RECIPE_SLOTS (1 << HP_RECIPE_BITS)

/* How to find the caller of a frame at return address `ip` (hp_unwind):
 * CFA = (RBP if HP_RECIPE_CFA_RBP else RSP) + cfa_off; the return address
 * is at CFA - 8; the caller's RSP is the CFA; its RBP is at CFA + rbp_off
 * when HP_RECIPE_RBP_SAVED, else unchanged. HP_RECIPE_LAST: the outermost
 * frame. `fn`: the start of the function `ip` returns into, the frame's
 * cost centre, kept here so a walk names its frames without another lookup
 * (HP_FN_UNKNOWN until noted). ip 0: an empty slot. HP_RECIPE_END and
 * HP_RECIPE_START (noted with fn) end a walk at main(), or before the C
 * library's start code: a stack's name ends there (semantics.md, "cut at
 * main"), so the frames beyond would be walked and pushed for nothing. */
#define HP_RECIPE_CFA_RBP 1
#define HP_RECIPE_RBP_SAVED 2
#define HP_RECIPE_LAST 4
#define HP_RECIPE_END 8         /* fn is main(): stacks are named up to here */
#define HP_RECIPE_START 16      /* fn is the C library's start code, where
                                   names end when main() has no symbol */
#define HP_RECIPE_LEFT_OUT 32   /* fn is libgc's or heapprof's: the frame is
                                   not part of a stack's name, so it does not
                                   count toward the walk's depth */
#define HP_RECIPE_THREAD_START 64 /* ip is the return address of this
                                   thread's start code's frame: at
                                   t->start_sp the walk ends before it
                                   (core/hp_capture.c, Note [Where a
                                   thread's stacks end]) */
typedef struct hp_recipe {
    uintptr_t ip;
    uintptr_t fn;
    int32_t cfa_off, rbp_off;
    uint32_t flags;
} hp_recipe;

/* The thread's last capture (hp_capture): its frames from the outermost
 * in, and the stack id (and frames left out) after each. */
typedef struct hp_memo {
    uint32_t n;
    uintptr_t key[HP_MAX_DEPTH];
    uint32_t id[HP_MAX_DEPTH];
    uint16_t skipped[HP_MAX_DEPTH];
} hp_memo;

typedef struct hp_caches {
    /* Whole cache lines (the arena hands caches out one after another): a
     * thread's memo, written at every capture, never shares a line with
     * the next thread's slots. */
    _Alignas(64) hp_pcfn pcfn[HP_PCFN_SLOTS];
    hp_edge edge[HP_EDGE_SLOTS];
    hp_recipe recipe[HP_RECIPE_SLOTS];
    hp_memo memo;
    struct hp_caches *next_free;
} hp_caches;
_Static_assert(sizeof(hp_caches) % 64 == 0, "a thread's caches fill whole cache lines");

/* A thread's caches, zeroed (NULL when out of memory); and back. The
 * hooks hp_thread calls (hp_thread_set_cache_hooks). */
hp_caches *hp_capture_caches_get(void);
/* Reserve their memory and register the hooks (stack capture's start-up). */
void hp_capture_caches_init(void);
void hp_capture_caches_put(hp_caches *c);

#endif
