/* hp_mem: the profiler's own memory. Every byte heapprof keeps comes from
 * here: anonymous mappings that the collector never scans and that never
 * come from the program's malloc arena or the GC heap.
 *
 * hp_vec: a growable array at a fixed address (a slot of address space
 * that is mapped only as it is committed: nothing is reserved up front, so
 * the program's RLIMIT_AS sees only what heapprof uses), so pointers into it
 * stay valid while it grows and readers never see it move.
 * hp_arena: an append-only bump allocator on top of an hp_vec, for data that
 * lives as long as the process (interned stacks, names, symbols). */
#ifndef HP_MEM_H
#define HP_MEM_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hp_vec {
    unsigned char *base;   /* start of the reservation (NULL until first use) */
    size_t reserved;       /* bytes reserved */
    size_t committed;      /* bytes readable and writable from base */
    int how;               /* slot mapped on demand, or plain reservation */
    unsigned grow_pct;     /* growth step, percent of what is committed; 0: double */
} hp_vec;

/* Claim `max_bytes` of addresses (mapping nothing yet). Returns 0 on
 * success, -1 on failure. Thread-safe. */
int hp_vec_reserve(hp_vec *v, size_t max_bytes);
/* Make at least `bytes` from base usable. Returns 0, or -1 when the
 * reservation is exhausted or the kernel refuses. Not thread-safe: callers
 * serialise growth of one vec. */
int hp_vec_ensure(hp_vec *v, size_t bytes);
/* Under the program's RLIMIT_AS heapprof commits at most half of what the
 * program leaves; at the end (the files are being written, the program is
 * done) it may take what is left. Async-signal-safe. */
void hp_mem_set_final(void);
/* Room for `need` elements of `elem` bytes in a vec that threads append
 * to at once, whose published capacity (in elements) is *cap, at most
 * `max`: 1, or 0 when it cannot grow (past max, or out of memory). The
 * thread that needs room first grows it, doubling, while any other that
 * needs room waits on *growing; nothing else is held meanwhile. Not for a
 * signal handler that could interrupt a thread growing the same vec. */
int hp_vec_room(hp_vec *v, _Atomic size_t *cap, _Atomic int *growing, size_t need, size_t max,
                size_t elem);

/* Give pages beyond `keep_bytes` back to the kernel (they stay reserved). */
void hp_vec_trim(hp_vec *v, size_t keep_bytes);

typedef struct hp_arena {
    hp_vec vec;
    size_t used;
} hp_arena;

int hp_arena_init(hp_arena *a, size_t max_bytes);
/* 16-byte aligned block of `n` bytes, or NULL when exhausted. Not
 * thread-safe: each arena has one owner or one lock (see its user). */
void *hp_arena_alloc(hp_arena *a, size_t n);

/* Total bytes committed by every hp_vec in the process (profiler memory). */
size_t hp_mem_committed(void);
/* The most it has been since start-up (trims at collections lower the
 * committed total; this does not come down). */
size_t hp_mem_committed_peak(void);

#endif
