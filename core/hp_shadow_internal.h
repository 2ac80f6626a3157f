/* hp_shadow_internal: the record store's own state and accessors, shared
 * by its files only (core/hp_shadow.c: the logs, frees and drains;
 * core/hp_shadow_sigsafe.c: the read-only views and the frees' lookup;
 * core/hp_sweep.c: the sweep). Nothing else drives the store through
 * these. */
#ifndef HP_SHADOW_INTERNAL_H
#define HP_SHADOW_INTERNAL_H
#include <stddef.h>

#include "core/hp_mem.h"
#include "core/hp_shadow.h"

#include <stdatomic.h>

/* Note [The log's entries]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A log holds what the allocation path knows of a new object in 16 bytes,
 * half a record (hp_rec): at the peak of a run the logs hold every object
 * allocated since the last collection, as many as the live ones or more.
 *   a:     the base (bits 4-47: 16-aligned, below 2^48), HP_HOW_* (bits
 *          0-3), the kind (bits 48-55), the birth less the chunk's
 *          period0 (bits 56-63);
 *   ccs:   the cost-centre stack;
 *   sizes: the granted bytes in 16-byte granules (bits 16-31), the granted
 *          bytes less the requested (bits 0-15).
 * A record these fields cannot hold (a mode word, as sample='s weight; a
 * size of 1 MiB or more, or not a multiple of 16; a slop of 64 KiB or
 * more; a birth 256 periods after the chunk's first; an age or flags) is
 * written whole: an
 * entry of how HP_LOG_LONG, then the hp_rec itself in the next two
 * entries, published together. A chunk without room for those three ends
 * with entries of how HP_LOG_PAD. Age and flags are 0 in every new record,
 * and nothing writes a record while it is logged. */
#define HP_LOG_LONG 15
#define HP_LOG_PAD 14
_Static_assert(HP_HOW_COUNT <= HP_LOG_PAD, "HP_HOW_* values must fit below the log's markers");

typedef struct hp_logent {
    uint64_t a;
    uint32_t ccs;
    uint32_t sizes;
} hp_logent;
_Static_assert(sizeof(hp_logent) * 2 == sizeof(hp_rec), "a long entry is two entries");

#define HP_CHUNK_ENTS 4095   /* a chunk is 64 KiB */

typedef struct hp_chunk {
    struct hp_chunk *_Atomic next;
    _Atomic uint32_t count;     /* entries published */
    uint32_t period0;           /* the period when the chunk was started */
    hp_logent ents[HP_CHUNK_ENTS];
} hp_chunk;
_Static_assert(sizeof(hp_chunk) % 64 == 0, "a chunk fills whole cache lines");

/* The record of the entry at `e` (which is not HP_LOG_PAD) into *r;
 * returns how many entries it took (1, or 3 for a long one). */
static inline unsigned hp_log_decode(const hp_logent *e, uint32_t period0, hp_rec *r)
{
    unsigned how = (unsigned)(e->a & 15);
    if (how == HP_LOG_LONG) {
        __builtin_memcpy(r, e + 1, sizeof *r);
        return 3;
    }
    r->base = (uintptr_t)(e->a & 0x0000fffffffffff0ull);
    r->ccs = e->ccs;
    r->granted = (e->sizes >> 16) * 16;
    r->req = r->granted - (e->sizes & 0xffff);
    r->birth = period0 + (uint32_t)(e->a >> 56);
    r->word = 0;
    r->kind = (uint8_t)(e->a >> 48);
    r->how = (uint8_t)how;
    r->age = 0;
    r->flags = 0;
    return 1;
}

/* Note [The compact table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * In modes cc, module and kind, without rset= or sample=, nothing reads a
 * record's birth or mode word (Note [The mode word]): the table then holds
 * each record in one 16-byte entry (hp_logent) instead of a 32-byte hp_rec,
 * halving what the table costs per live object (hp_store_.compact):
 *   a:     the base (bits 4-47), HP_HOW_* (bits 0-3), the kind (bits
 *          48-55), the age (bits 56-58), the flags (bits 59-63);
 *   ccs, sizes: as in the log (Note [The log's entries]).
 * Only records of less than 64 KiB are short, so that an in-place resize,
 * which keeps the granted bytes, never makes a short record long (its slop
 * stays below 64 KiB). Any other record is written whole after an entry of
 * how HP_LOG_LONG, as in the logs. A record's index is then the position
 * of its first entry: indexes still grow in the order records were
 * appended, which is all the frees' bookkeeping asks of them. Readers go
 * through hp_shadow_foreach, hp_shadow_peek and the sweep;
 * hp_shadow_table, which hands out hp_rec[], is for the other modes. */
static inline int hp_tab_fits(const hp_rec *r)
{
    return ((r->base | r->granted) & 15) == 0 && r->base < ((uint64_t)1 << 48) &&
           r->granted < ((uint32_t)1 << 16) && r->req <= r->granted && r->word == 0 &&
           r->how < HP_LOG_PAD && r->age < 8 && r->flags < 32;
}

/* Write record *r at `e`; returns the entries written (1, or 3). */
static inline unsigned hp_tab_put(hp_logent *e, const hp_rec *r)
{
    if (__builtin_expect(hp_tab_fits(r), 1)) {
        e->a = (uint64_t)r->base | r->how | (uint64_t)r->kind << 48 |
               (uint64_t)r->age << 56 | (uint64_t)r->flags << 59;
        e->ccs = r->ccs;
        e->sizes = (r->granted >> 4) << 16 | (r->granted - r->req);
        return 1;
    }
    e[0] = (hp_logent){HP_LOG_LONG, 0, 0};
    __builtin_memcpy(&e[1], r, sizeof *r);
    return 3;
}

/* The record at `e` into *r (birth and word 0 in a short entry); returns
 * the entries it takes. */
static inline unsigned hp_tab_get(const hp_logent *e, hp_rec *r)
{
    unsigned how = (unsigned)(e->a & 15);
    if (how == HP_LOG_LONG) {
        __builtin_memcpy(r, e + 1, sizeof *r);
        return 3;
    }
    r->base = (uintptr_t)(e->a & 0x0000fffffffffff0ull);
    r->ccs = e->ccs;
    r->granted = (e->sizes >> 16) * 16;
    r->req = r->granted - (e->sizes & 0xffff);
    r->birth = 0;
    r->word = 0;
    r->kind = (uint8_t)(e->a >> 48);
    r->how = (uint8_t)how;
    r->age = (uint8_t)((e->a >> 56) & 7);
    r->flags = (uint8_t)(e->a >> 59);
    return 1;
}

/* FREE -> CLAIMED (being set up by a new thread; drains skip it) ->
 * ACTIVE -> EXITED (owner gone; drained, then FREE again). */
enum { LOG_FREE, LOG_ACTIVE, LOG_EXITED, LOG_CLAIMED };

/* A log and a chunk fill whole cache lines (the meta arena allocates them
 * one after another, 16-aligned): a thread's log shared a line with the
 * next thread's first chunk, whose count that thread stores at every
 * allocation, and two threads allocating at once spent 8.9% of the run on
 * the two loads of the append (trees_threads 16 2: 0.27 s against
 * 0.03 s for one thread). */
struct hp_tlog {
    _Alignas(64) hp_tlog *next_all;   /* registry: immutable once published */
    _Atomic int state;
    hp_chunk *tail;             /* producer */
    hp_chunk *head;             /* consumer */
    uint32_t consumed;          /* consumer: entries of head already drained */
};
_Static_assert(sizeof(hp_tlog) % 64 == 0, "a log fills whole cache lines");

typedef struct hp_freed {       /* frees and resizes since the last sweep */
    uintptr_t base;             /* 0 = empty slot */
    size_t seq;                 /* main-table length at the last free (0: none) */
    size_t resize_seq;          /* ... at the last in-place resize (0: none) */
    uint32_t granted, req;      /* sizes after that resize */
} hp_freed;

/* The store's state: the logs' registry and memory, the table, the frees
 * and resizes noted since the last sweep. */
typedef struct hp_store {
    hp_arena meta_arena;                    /* hp_tlog and hp_chunk: pool_lock */
    _Atomic(hp_tlog *) registry;
    hp_vec table;                           /* hp_rec[], or hp_logent[] if compact */
    size_t table_len;                       /* records, or entries if compact */
    size_t table_recs;                      /* records (compact) */
    int compact;                            /* Note [The compact table] */
    hp_vec freed_vec;                       /* hp_freed[freed_cap] */
    size_t freed_cap, freed_len;
    /* A filter in front of the frees' table: bit hp_shadow_freed_bit(base)
     * is set for every address noted (16 bits an entry of the table's
     * capacity: a few percent of false hits). Every record is asked
     * whether it was freed, at the sweep and at a traversal; a program
     * that frees much (w3m) made the table's probes, a cache miss each,
     * 6% of the run under mode retainer. */
    hp_vec freed_filter_vec;                /* uint64_t[freed_cap / 4] */
    unsigned freed_filter_shift;            /* 64 - log2(bits) */
    _Atomic(hp_chunk *) pool;               /* recycled chunks (hp_shadow.c) */
} hp_store;
extern hp_store hp_store_;

/* Give a chunk back to the pool: a lock-free push (see hp_shadow.c). */
static inline void hp_shadow_chunk_put(hp_chunk *c)
{
    hp_chunk *head = atomic_load_explicit(&hp_store_.pool, memory_order_relaxed);
    do atomic_store_explicit(&c->next, head, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&hp_store_.pool, &head, c,
                                                  memory_order_release, memory_order_relaxed));
}

/* The slot of `base` in the frees' table (freed_cap > 0). */
size_t hp_shadow_freed_slot(uintptr_t base);

/* The hash of a base in the frees' table: its low bits pick the table's
 * slot, its high bits the filter's bit. */
static inline uint64_t hp_shadow_freed_hash(uintptr_t base)
{
    return (uint64_t)(base >> 4) * 0x9e3779b97f4a7c15ull;
}

static inline uint64_t hp_shadow_freed_bit(uintptr_t base)
{
    return hp_shadow_freed_hash(base) >> hp_store_.freed_filter_shift;
}

/* Could `base` have been noted freed or resized since the last sweep?
 * (freed_cap > 0; 0: certainly not.) */
static inline int hp_shadow_freed_maybe(uintptr_t base)
{
    uint64_t bit = hp_shadow_freed_bit(base);
    const uint64_t *w = (const uint64_t *)hp_store_.freed_filter_vec.base;
    return (int)((w[bit >> 6] >> (bit & 63)) & 1);
}

/* Hand the records still in the logs to `fn`, span by span (decoded from
 * the log's entries into a buffer of the caller's stack, 2 KiB: `fn` must
 * not keep the pointer), then count them as drained. Indexes of these records, for
 * hp_shadow_freed_at, are the table length or more (records logged after
 * every noted free). */
typedef void (*hp_span_fn)(hp_rec *recs, size_t n, void *ctx);
void hp_shadow_take_pending(hp_span_fn fn, void *ctx);
/* The table with room for `need` records, or entries if compact (its base
 * never moves), or NULL when out of memory. */
void *hp_shadow_room(size_t need);
/* The size of the table's unit: a record, or an entry if compact. */
static inline size_t hp_shadow_unit(void)
{
    return hp_store_.compact ? sizeof(hp_logent) : sizeof(hp_rec);
}
/* The sweep is over: the table holds `new_len` records (entries, holding
 * `nrecs` records, if compact); frees are forgotten. */
void hp_shadow_sweep_done(size_t new_len, size_t nrecs);

#endif
