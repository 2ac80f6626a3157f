/* hp_shadow_internal: the record store's own state and accessors, shared
 * by its files only (core/hp_shadow.c: the logs, frees and drains;
 * core/hp_shadow_sigsafe.c: the read-only views and the frees' lookup;
 * core/hp_sweep.c: the sweep). Nothing else drives the store through
 * these; the logs' format and the thread side's append are in
 * core/hp_shadow_log.h. */
#ifndef HP_SHADOW_INTERNAL_H
#define HP_SHADOW_INTERNAL_H
#include <stddef.h>

#include "core/hp_mem.h"
#include "core/hp_shadow.h"
#include "core/hp_shadow_log.h"

#include <stdatomic.h>

/* Note [The compact table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * In modes cc, module and kind, without rset=, nothing reads a record's
 * birth or mode word (Note [The mode word]), and mode ldv reads them from
 * side entries (hp_shadow.h, Note [Side entries]): the table then holds each
 * record in the log's forms (Note [The log's entries]) instead of a
 * 32-byte hp_rec (hp_store_.compact), with the age (bits 56-58) and the
 * flags (bits 59-63) where the log keeps the birth: 16 bytes a record, 8
 * for one that repeats the stack, sizes and kind of the record before it
 * (Note [Runs of the same]). Only records of less than 64 KiB are short,
 * so that an in-place resize, which keeps the granted bytes, never makes a
 * short record long (its slop stays below 64 KiB); sample='s records,
 * which carry a weight, are long. A record's index is the position of its
 * first word: the indexes of records appended since the last sweep grow
 * in the order they were appended, above every index the sweep left
 * (which may have reordered what it kept: core/hp_sweep.c, Note [Young
 * survivors grouped by site]), which is all the frees' bookkeeping asks
 * of them. Readers go through
 * hp_shadow_foreach, hp_shadow_peek and the sweep; hp_shadow_table, which
 * hands out hp_rec[], is for the other modes. */
static inline int hp_tab_fits(const hp_rec *r)
{
    return ((r->base | r->granted) & 15) == 0 && r->base < ((uint64_t)1 << 48) &&
           r->granted < ((uint32_t)1 << 16) && r->req <= r->granted && r->word == 0 &&
           r->how < HP_LOG_SAME && r->age < 8 && r->flags < 32;
}

/* Write record *r at `w`, `st` the state of the records before it;
 * returns the words written (1, 2, or HP_LONG_WORDS). */
static inline __attribute__((always_inline)) unsigned
hp_tab_put(uint64_t *w, const hp_rec *r, hp_same *st)
{
    if (__builtin_expect(hp_tab_fits(r), 1))
        return hp_ent_put_short(w, r, (uint64_t)r->age | (uint64_t)r->flags << 3, st);
    return hp_ent_put_long(w, r, st);
}

/* The record at `w` into *r (birth and word 0 unless long), `st` the state
 * of the records before it; returns the words it takes. */
static inline __attribute__((always_inline)) unsigned
hp_tab_get(const uint64_t *w, hp_rec *r, hp_same *st)
{
    int top;
    unsigned n = hp_ent_get(w, r, st, &top);
    if (top >= 0) {
        r->birth = 0;
        r->age = (uint8_t)(top & 7);
        r->flags = (uint8_t)(top >> 3);
    }
    return n;
}

/* Note [The frees' table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * Frees and in-place resizes noted since the last sweep, by address: open
 * addressing, at most half full, 16 bytes an entry. The key is the base
 * with a tag in its low four bits (a base is 16-aligned):
 *   HP_FREED_FREE    val: the table's length at the base's last free (its
 *                    records below it are freed; 0: none);
 *   HP_FREED_RESIZE  val: the table's length at its last in-place resize
 *                    (the record below it, after the last free, takes the
 *                    new sizes);
 *   HP_FREED_SIZES   val: those sizes, granted << 32 | requested;
 *   HP_FREED_LOGPOS  val: the log id << 48 | position of its last free
 *                    noted against a log (Note [Frees against a log]).
 * A free costs one entry (two against a log) and a resize two; resizes are rare (their entries
 * are looked for only when there are some), and a program that frees
 * much (w3m: 65,536 entries a period) held 32 bytes an entry, and again
 * half of that for the last rebuild's copy, 3.1 MB of its 14. */
typedef struct hp_freed {
    uint64_t key;               /* base | HP_FREED_*; 0 = empty slot */
    uint64_t val;
} hp_freed;
#define HP_FREED_FREE 0u
#define HP_FREED_RESIZE 1u
#define HP_FREED_SIZES 2u
#define HP_FREED_LOGPOS 3u
#define HP_LOGPOS_BITS 48

/* Note [Frees against a log]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A free applies to the records of its address allocated before it, and
 * to no later one (the collector may hand the address out again at
 * once). Draining every log into the table first gives those records
 * indexes below the table's length at the free (HP_FREED_FREE); but a
 * drain copies each record into the table, where the sweep would have
 * judged most of them in the log, dead, without a copy: Crystal's hash
 * tables and string builders free (GC_free, a moving GC_realloc) often
 * enough that the drains were a quarter of its run under cc.
 * So when every log but the freeing thread's own (`mine`) is empty --
 * nothing allocated since the last drain by another thread -- nothing is
 * drained: the free notes HP_FREED_FREE with the table's length as before
 * (the table's records of the address) and HP_FREED_LOGPOS with `mine`'s
 * id and position, the log words written so far. An entry's position in
 * its log only grows (a chunk's words follow the chunks before it,
 * hp_tlog.wrote_at and read_at, and a log taken over by a new thread
 * starts past its old positions); the freeing thread ends its own run
 * first (a later object must not join an entry made before the free:
 * Note [Runs down a block]). Whoever takes a log's records (a drain, a
 * sweep, a traversal's drain; take_entries) marks HP_REC_FREED a record
 * whose base has a LOGPOS entry of its own log at a later position, and a
 * record so marked is freed wherever it goes (was_freed). Another log's
 * records are all later than such a free (they were written after it:
 * the address is handed out again only after the free). A later free of
 * the address overwrites the entry, which also covers the earlier ones:
 * they are earlier in the same log, or were drained into the table (and
 * marked as they went) by a free that had to drain. */
/* The store's state: the logs' registry and memory, the table, the frees
 * and resizes noted since the last sweep. */
typedef struct hp_store {
    hp_arena meta_arena;                    /* hp_tlog and hp_chunk: pool_lock */
    _Atomic(hp_tlog *) registry;
    hp_vec table;                           /* hp_rec[], or words if compact */
    size_t table_len;                       /* records, or words if compact */
    size_t table_recs;                      /* records (compact) */
    hp_same table_last;                     /* compact: the last record's state */
    /* Records a traversal's drain set aside (hp_shadow_drain_marked), in
     * the log's forms, period0 aside_p0: taken before the logs. */
    hp_vec aside_vec;
    size_t aside_len, aside_recs, aside_split;
    uint32_t aside_p0;
    hp_lsame aside_st;
    int compact;                            /* Note [The compact table] */
    int side;                               /* hp_shadow.h, Note [Side entries] */
    hp_vec side_vec;                        /* hp_rec_side[table_recs] */
    /* A sweep's young survivors written short, sorted before they are
     * written (core/hp_sweep.c, Note [Young survivors grouped by site]):
     * short entries, two words each. */
    hp_vec young_vec;
    hp_vec freed_vec;                       /* hp_freed[freed_cap]: Note [The frees' table] */
    size_t freed_cap, freed_len;            /* (entries) */
    size_t resized_n;                       /* resizes among them */
    size_t logpos_n;                        /* frees noted against a log among them */
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

/* Side entries (hp_shadow.h, Note [Side entries]): the birth, word and
 * unwatched flag of record `ord` into *r; ... of *r into entry `ord` (0,
 * or -1 when out of memory). */
static inline void hp_side_get(hp_rec *r, size_t ord)
{
    const hp_rec_side *e = (const hp_rec_side *)hp_store_.side_vec.base + ord;
    uint32_t bits = __atomic_load_n(&e->bits, __ATOMIC_RELAXED);
    r->word = __atomic_load_n(&e->word, __ATOMIC_RELAXED);
    r->birth = bits & HP_SIDE_BIRTH;
    if (bits & HP_SIDE_UNWATCHED) r->flags |= HP_REC_UNWATCHED;
}

static inline int hp_side_put(size_t ord, const hp_rec *r)
{
    hp_vec *v = &hp_store_.side_vec;
    if ((ord + 1) * sizeof(hp_rec_side) > v->committed &&
        hp_vec_ensure(v, (ord + 1) * sizeof(hp_rec_side)) != 0)
        return -1;
    hp_rec_side *e = (hp_rec_side *)v->base + ord;
    e->word = r->word;
    e->bits = (r->birth & HP_SIDE_BIRTH) | (r->age >= 2 ? HP_SIDE_OLD : 0) |
              ((r->flags & HP_REC_UNWATCHED) ? HP_SIDE_UNWATCHED : 0);
    return 0;
}

/* What of *r the compact table keeps when the rest is in its side entry:
 * no word, no unwatched flag. */
static inline const hp_rec *hp_side_strip(const hp_rec *r, hp_rec *copy)
{
    if (!hp_store_.side) return r;
    *copy = *r;
    copy->word = 0;
    copy->flags &= (uint8_t)~HP_REC_UNWATCHED;
    return copy;
}

/* Give a chunk back to the pool: a lock-free push (see hp_shadow.c). */
static inline void hp_shadow_chunk_put(hp_chunk *c)
{
    hp_chunk *head = atomic_load_explicit(&hp_store_.pool, memory_order_relaxed);
    do atomic_store_explicit(&c->next, head, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&hp_store_.pool, &head, c,
                                                  memory_order_release, memory_order_relaxed));
}

/* The slot of `key` (a base | HP_FREED_*) in the frees' table
 * (freed_cap > 0): its entry, or the empty slot where it would go. */
size_t hp_shadow_freed_slot(uint64_t key);

/* The hash of a base in the frees' table: its high bits pick the filter's
 * bit; its high half folded onto its low half, the table's slot. (The low
 * bits of the product depend only on the low bits of the address: alone,
 * they put the objects at one offset of their pages -- the same size
 * class freed on many pages, as Inkscape's C++ objects are -- on runs
 * of neighbouring slots: Inkscape's export, 0.24 -> 0.17 probes past the
 * first a lookup, its index builds 3.6 -> 3.4 ms over the run.) */
static inline uint64_t hp_shadow_freed_hash(uintptr_t base)
{
    return (uint64_t)(base >> 4) * 0x9e3779b97f4a7c15ull;
}

/* ... of a key: a base's, its tag in the top bits (tag 0: the base's). */
static inline uint64_t hp_shadow_freed_key_hash(uint64_t key)
{
    return ((key >> 4) | (key & 15) << 60) * 0x9e3779b97f4a7c15ull;
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
/* The same, offering `run` each run of a log's same entry whole (Note
 * [Runs down a block]), in its place in the order: objects `from` to `to`
 * of the run whose first object is *first (object m at first->base - m *
 * first->granted, every other field *first's). `run` returns 1 if it took
 * them (they are then consumed, as a span is), 0 to have them handed to
 * `fn` one by one as records. */
typedef int (*hp_run_fn)(const hp_rec *first, unsigned from, unsigned to, void *ctx);
void hp_shadow_take_pending_runs(hp_span_fn fn, hp_run_fn run, void *ctx);
/* The table with room for `need` records, or words if compact (its base
 * never moves), or NULL when out of memory. */
void *hp_shadow_room(size_t need);
/* The size of the table's unit: a record, or a word if compact. */
static inline size_t hp_shadow_unit(void)
{
    return hp_store_.compact ? sizeof(uint64_t) : sizeof(hp_rec);
}
/* The sweep is over: the table holds `new_len` records (words, holding
 * `nrecs` records, the last of them `last`, if compact); frees are
 * forgotten. */
void hp_shadow_sweep_done(size_t new_len, size_t nrecs, const hp_same *last);

#endif
