/* hp_shadow_log: a thread's allocation log (level 6, model), as far as
 * its writer needs it -- the entries' format (Notes below), the log and
 * chunk structures, and the append inline (hp_shadow_log_append_inline)
 * -- so that the allocation path's wrappers (preload/hp_wrappers.c) write
 * to a log with no call, without seeing the rest of the record store
 * (core/hp_shadow_internal.h: the table, the frees, the drains). */
#ifndef HP_SHADOW_LOG_H
#define HP_SHADOW_LOG_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hp_shadow.h"

/* Note [The log's entries]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A log holds what the allocation path knows of a new object in 16 bytes,
 * half a record (hp_rec), or 8 where it repeats the object before: at the
 * peak of a run the logs hold every object allocated since the last
 * collection, as many as the live ones or more. A chunk is an array of
 * 64-bit words; an entry is one or more of them:
 *   short (2 words): the base (bits 4-47: 16-aligned, below 2^48),
 *          HP_HOW_* (bits 0-3), the kind (bits 48-55), the birth less the
 *          chunk's period0 (bits 56-63); then the cost-centre stack (bits
 *          0-31) and the sizes (bits 32-63: the granted bytes in 16-byte
 *          granules, bits 16-31 of them, and the granted bytes less the
 *          requested, bits 0-15);
 *   same (1 word, how HP_LOG_SAME): the base and birth as in a short
 *          entry; the stack, sizes, kind and how those of the last short
 *          entry before it in the chunk (Note [Runs of the same]);
 *   long (6 words, how HP_LOG_LONG): a record these fields cannot hold (a
 *          mode word, as sample='s weight; a size of 1 MiB or more, or not
 *          a multiple of 16; a slop of 64 KiB or more; a birth 256 periods
 *          after the chunk's first; an age or flags), written whole in the
 *          last four words;
 *   pad (1 word, how HP_LOG_PAD): the end of a chunk with no room left.
 * An entry is published whole by one store of the chunk's count. Age and
 * flags are 0 in every new record, and nothing writes a record while it is
 * logged.
 *
 * Note [Runs of the same]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * Consecutive objects of one site mostly share their stack, sizes and kind
 * (a tree's nodes, a string's pieces), so an entry that repeats them all
 * is written as one word. A "same" entry refers to the last short entry
 * before it in its chunk (in the table: to the record before it, short or
 * same); a long entry, and a chunk's start, leave nothing to repeat. The
 * writer and every reader keep that state (hp_same) the same way.
 *
 * Note [Runs down a block]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * The collector hands out a block's free objects from its highest address
 * down (GC_build_fl and the reclaim's lists link each object to the one
 * below it), so consecutive objects of one site are mostly adjacent, each
 * `granted` bytes below the last: 99.2% of trees.c's 67 million. A same
 * entry stands for a run of such objects: bits 48-55 (the kind's byte in
 * a short entry, unused in a same one) count the objects after its first,
 * up to 255, each `granted` bytes below the one before and with the same
 * top byte (in a log, bits 52-55, up to 15: Note [Recent sites]). The
 * writer grows its last same entry in place (one relaxed store of the
 * word; nothing else changes) instead of writing another: 8 bytes cover a
 * block's objects. So:
 *   - a reader hands out a run's objects one by one (hp_ent_get takes no
 *     word until the run's last, and keeps the word it decodes from in
 *     hp_same, so that a sweep may write over it);
 *   - a log's consumer, which reads while the producer writes, stops on a
 *     chunk's last entry if it is a same entry (the producer may still
 *     grow it) and reads its new objects at the next drain; an entry with
 *     another entry after it, published by the release store of the count
 *     that follows the growth, no longer grows;
 *   - a run's objects share their entry's index (its first word's
 *     position), so a free or resize noted in the table closes its last
 *     run: an object allocated after the free must not take an index
 *     before it (hp_shadow_note_free);
 *   - a sweep that keeps some of a run's objects writes them as runs
 *     again. */
#define HP_LOG_LONG 15
#define HP_LOG_PAD 14
#define HP_LOG_SAME 13
_Static_assert(HP_HOW_COUNT <= HP_LOG_SAME, "HP_HOW_* values must fit below the log's markers");

#define HP_LOG_BASE 0x0000fffffffffff0ull
#define HP_CHUNK_WORDS 8190   /* a chunk is 64 KiB */
#define HP_LONG_WORDS 6

typedef struct hp_chunk {
    struct hp_chunk *_Atomic next;
    _Atomic uint32_t count;     /* words published */
    uint32_t period0;           /* the period when the chunk was started */
    uint64_t w[HP_CHUNK_WORDS];
} hp_chunk;
_Static_assert(sizeof(hp_chunk) % 64 == 0, "a chunk fills whole cache lines");
_Static_assert(sizeof(hp_rec) == 4 * sizeof(uint64_t), "a long entry's record is four words");

/* What a "same" entry repeats (Note [Runs of the same]). */
typedef struct hp_same {
    uint32_t ccs, sizes;
    uint32_t kh;                /* kind | how << 8 | HP_SAME_VALID; 0: nothing */
    uint32_t run;               /* reader: objects of the run at hand handed out */
    uint64_t runw;              /* reader: the run's word (Note [Runs down a block]) */
    uint64_t *last;             /* writer: its last entry if a same one, else NULL */
} hp_same;
#define HP_RUN_SHIFT 48
#define HP_RUN_MAX 255u
static inline unsigned hp_run_extra(uint64_t w) { return (unsigned)(w >> HP_RUN_SHIFT) & 255u; }
#define HP_SAME_VALID 0x10000u

static inline uint32_t hp_log_sizes(const hp_rec *r)
{
    return (r->granted >> 4) << 16 | (r->granted - r->req);
}

/* kind | how << 8 | HP_SAME_VALID of `r`: kind and how read apart, `how`
 * through a volatile access, so that the compiler does not merge them (one
 * 16-bit load of two bytes just stored one by one, as the allocation path
 * stores them, cannot be forwarded from those stores and waits for both:
 * 5% of trees.c 18 under cc). hp_same's fields are all 32-bit for the same
 * reason: it is copied whole, and was written a byte at a time. */
static inline uint32_t hp_same_kh(const hp_rec *r)
{
    return (uint32_t)r->kind | (uint32_t)*(const volatile uint8_t *)&r->how << 8 | HP_SAME_VALID;
}

static inline int hp_same_as(const hp_same *p, const hp_rec *r)
{
    return p->kh == hp_same_kh(r) && p->ccs == r->ccs && p->sizes == hp_log_sizes(r);
}

static inline void hp_same_set(hp_same *p, uint32_t ccs, uint32_t sizes, unsigned kind,
                               unsigned how)
{
    p->ccs = ccs;
    p->sizes = sizes;
    p->kh = kind | how << 8 | HP_SAME_VALID;
}

/* The fields of a short or same entry's record that are not in its first
 * word. */
static inline void hp_fill_from(hp_rec *r, uint32_t ccs, uint32_t sizes, unsigned kind,
                                unsigned how)
{
    r->ccs = ccs;
    r->granted = (sizes >> 16) * 16;
    r->req = r->granted - (sizes & 0xffff);
    r->kind = (uint8_t)kind;
    r->how = (uint8_t)how;
}

/* The entry forms shared by the log and the compact table: they differ
 * only in their first word's top byte (bits 56-63): the birth less the
 * chunk's period0 in a log, the age and flags in the table. */

/* Would the run of the same entry whose word is `v` take the object at
 * `base`: is that object one `g` below its last, with top byte `top`, and
 * has the run room (its count: `max` at bit `shift`)? A log's entry must
 * also be of slot `slot` (-1: no slots). (Note [Runs down a block].) */
static inline __attribute__((always_inline)) int
hp_run_takes(uint64_t v, uintptr_t base, uint64_t top, uint64_t g, unsigned shift,
             unsigned max, int slot)
{
    unsigned extra = (unsigned)(v >> shift) & max;
    return (slot < 0 || ((v >> 48) & 15) == (unsigned)slot) && extra < max && v >> 56 == top &&
           (v & HP_LOG_BASE) - (extra + 1) * g == (uint64_t)base;
}

/* Grow the run of the same entry at `l` by the object at `base` if it
 * takes it (hp_run_takes). Returns 1 if it grew. */
static inline __attribute__((always_inline)) int
hp_run_grow(uint64_t *l, uintptr_t base, uint64_t top, uint64_t g, unsigned shift,
            unsigned max, int slot)
{
    uint64_t v = __atomic_load_n(l, __ATOMIC_RELAXED);
    if (hp_run_takes(v, base, top, g, shift, max, slot)) {
        __atomic_store_n(l, v + ((uint64_t)1 << shift), __ATOMIC_RELAXED);
        return 1;
    }
    return 0;
}

/* Object *run of the run whose word is `a` (`extra` objects after its
 * first): r's base moved down to it; returns the words taken, 0 while
 * objects remain (*run and *runw keep the place), 1 after its last. */
static inline __attribute__((always_inline)) unsigned
hp_run_member(hp_rec *r, uint64_t a, unsigned extra, uint32_t *run, uint64_t *runw)
{
    unsigned k = *run;
    r->base -= (uintptr_t)k * r->granted;
    if (k < extra) {
        *run = k + 1;
        *runw = a;
        return 0;
    }
    *run = 0;
    return 1;
}

/* Write `r`, which fits a short entry, at `w` with `top` as that byte: a
 * same entry where it repeats the last short one (`st`), else a short
 * one; returns the words written (1 or 2), or 0 where the last same entry
 * (st->last) grew to take it (Note [Runs down a block]). */
static inline __attribute__((always_inline)) unsigned
hp_ent_put_short(uint64_t *w, const hp_rec *r, uint64_t top, hp_same *st)
{
    uint64_t a = (uint64_t)r->base | top << 56;
    if (hp_same_as(st, r)) {
        if (st->last && hp_run_grow(st->last, r->base, top, (uint64_t)(st->sizes >> 16) << 4,
                                    HP_RUN_SHIFT, HP_RUN_MAX, -1))
            return 0;
        w[0] = a | HP_LOG_SAME;
        st->last = w;
        return 1;
    }
    uint32_t sizes = hp_log_sizes(r);
    unsigned how = *(const volatile uint8_t *)&r->how;   /* (see hp_same_kh) */
    w[0] = a | how | (uint64_t)r->kind << 48;
    w[1] = r->ccs | (uint64_t)sizes << 32;
    hp_same_set(st, r->ccs, sizes, r->kind, how);
    st->last = NULL;
    return 2;
}

/* The words of the entry whose first word is `w0` (a pad is one). */
static inline unsigned hp_ent_words(uint64_t w0)
{
    unsigned how = (unsigned)(w0 & 15);
    return how == HP_LOG_LONG ? HP_LONG_WORDS : how == HP_LOG_SAME || how == HP_LOG_PAD ? 1 : 2;
}

/* Write `r` whole at `w`; returns the words written. */
static inline unsigned hp_ent_put_long(uint64_t *w, const hp_rec *r, hp_same *st)
{
    w[0] = HP_LOG_LONG;
    w[1] = 0;
    __builtin_memcpy(&w[2], r, sizeof *r);
    st->kh = 0;
    st->last = NULL;
    return HP_LONG_WORDS;
}

/* The record of the entry at `w` (not HP_LOG_PAD) into *r, `st` the state
 * of the entries before it; *top is its first word's top byte, or -1 for
 * a whole record (then *r is complete). The caller sets what the top byte
 * holds; returns the words it took: 0 for a run's object before its last
 * (call again at `w` for the next). */
static inline __attribute__((always_inline)) unsigned
hp_ent_get(const uint64_t *w, hp_rec *r, hp_same *st, int *top)
{
    uint64_t a = st->run ? st->runw : __atomic_load_n(&w[0], __ATOMIC_RELAXED);
    unsigned how = (unsigned)(a & 15);
    if (how == HP_LOG_LONG) {
        __builtin_memcpy(r, w + 2, sizeof *r);
        st->kh = 0;
        *top = -1;
        return HP_LONG_WORDS;
    }
    r->base = (uintptr_t)(a & HP_LOG_BASE);
    r->word = 0;
    *top = (int)(a >> 56);
    if (how == HP_LOG_SAME) {
        /* A run's objects one by one (Note [Runs down a block]). */
        hp_fill_from(r, st->ccs, st->sizes, st->kh & 255, (st->kh >> 8) & 255);
        return hp_run_member(r, a, hp_run_extra(a), &st->run, &st->runw);
    }
    uint32_t ccs = (uint32_t)w[1], sizes = (uint32_t)(w[1] >> 32);
    unsigned kind = (unsigned)(a >> 48) & 255;
    hp_fill_from(r, ccs, sizes, kind, how);
    hp_same_set(st, ccs, sizes, kind, how);
    return 2;
}

/* Does `r` fit a short or same entry after `period0`? (A new record's age
 * and flags are 0; one that says otherwise is written whole.) */
static inline int hp_log_fits(const hp_rec *r, uint32_t period0)
{
    /* (granted - req, unsigned, is above 0xffff also when req > granted;
     * the base below 2^48 and the granted bytes below 2^20 in one test) */
    return ((r->base | r->granted) & 15) == 0 &&
           ((r->base >> 48) | (r->granted >> 20)) == 0 &&
           r->granted - r->req <= 0xffff && r->birth - period0 <= 0xff && r->word == 0 &&
           r->how < HP_LOG_SAME && (r->age | r->flags) == 0;
}

/* Note [Recent sites]
 * ~~~~~~~~~~~~~~~~~~~~~
 * A program mostly allocates from a few sites in turn (Guile: a string, its
 * buffer, two pairs; trees.c's small trees: five stacks, one per depth),
 * so in a log a same entry refers to one of the last HP_SITES short
 * entries' states, not only to the last: bits 48-51 of its word say which
 * (its slot), bits 52-55 count the objects of its run after the first (up
 * to 15; Note [Runs down a block]). A short entry's state takes the slot
 * after the last one filled, round the sixteen; a long entry and a chunk's
 * start empty them all. The writer and every reader of a log keep the
 * slots (hp_lsame) the same way. Only logs do this: the compact table,
 * which a sweep rewrites in place, keeps Note [Runs of the same]'s one
 * state and its runs of up to 256.
 * Sixteen, not four: ECL's hash table workload makes its objects from
 * nine to fifteen sites in turn, and with four slots 65% of its log
 * entries were short (10.8 bytes an object in its logs, 5.8 with sixteen,
 * replaying two million of its allocations; Guile's hash table 8.4 ->
 * 4.9, w3m 14.1 -> 9.5, Crystal 8.0 either way). A run's word then holds
 * 16 objects, not 64: a log holds one period's allocations, so that is
 * half a byte an object where a program's runs are long (trees.c). The
 * writer looks first at the slot of the entry it wrote last (a run goes
 * on, or the same site again), then at the one after it (the slots fill
 * in the order sites first come, so sites made in turn follow each other
 * round them), then at the others. */
#define HP_SITES 16
#define HP_LRUN_SHIFT 52
#define HP_LRUN_MAX 15u

typedef struct hp_lsame {
    uint32_t ccs[HP_SITES], sizes[HP_SITES], kh[HP_SITES];   /* kh 0: empty */
    uint32_t next;              /* the slot the next short entry fills */
    uint32_t hint;              /* writer: the slot of the entry written last */
    uint32_t run;               /* reader: objects of the run at hand handed out */
    uint64_t runw;              /* reader: the run's word */
    uint64_t *last;             /* writer: its last entry if a same one, else NULL */
} hp_lsame;

static inline unsigned hp_lrun_extra(uint64_t w) { return (unsigned)(w >> HP_LRUN_SHIFT) & HP_LRUN_MAX; }
static inline unsigned hp_lrun_slot(uint64_t w) { return (unsigned)(w >> 48) & (HP_SITES - 1); }

/* No slot filled (a chunk's start, after a long entry). */
static inline void hp_lsame_reset(hp_lsame *st)
{
    for (int i = 0; i < HP_SITES; i++) st->kh[i] = 0;
    st->next = 0;
    st->hint = 0;
    st->last = NULL;
}

/* Does slot j hold the site kh, ccs, sizes? */
static inline int hp_lsame_holds(const hp_lsame *st, unsigned j, uint32_t kh, uint32_t ccs,
                                 uint32_t sizes)
{
    return st->kh[j] == kh && st->ccs[j] == ccs && st->sizes[j] == sizes;
}

/* Write `r`, which fits (hp_log_fits), at `w`: a same entry where one of
 * the slots holds its stack, sizes and kind (none where the last entry's
 * run grew to take it), else a short entry; returns the words written. */
static inline __attribute__((always_inline)) unsigned
hp_log_put_short(uint64_t *w, const hp_rec *r, uint32_t period0, hp_lsame *st)
{
    uint64_t top = r->birth - period0;
    uint64_t a = (uint64_t)r->base | top << 56;
    uint32_t kh = hp_same_kh(r), sizes = hp_log_sizes(r), ccs = r->ccs;
    unsigned j = st->hint;
    if (!hp_lsame_holds(st, j, kh, ccs, sizes)) {
        j = (j + 1) & (HP_SITES - 1);   /* (the next of sites made in turn) */
        if (!hp_lsame_holds(st, j, kh, ccs, sizes))
            for (j = 0; j < HP_SITES && !hp_lsame_holds(st, j, kh, ccs, sizes); j++) {}
    }
    if (j < HP_SITES) {
        st->hint = j;
        if (st->last && hp_run_grow(st->last, r->base, top, (uint64_t)(sizes >> 16) << 4,
                                    HP_LRUN_SHIFT, HP_LRUN_MAX, (int)j))
            return 0;
        w[0] = a | (uint64_t)j << 48 | HP_LOG_SAME;
        st->last = w;
        return 1;
    }
    unsigned how = (kh >> 8) & 255;
    w[0] = a | how | (uint64_t)(kh & 255) << 48;
    w[1] = ccs | (uint64_t)sizes << 32;
    unsigned k = st->next;
    st->ccs[k] = ccs;
    st->sizes[k] = sizes;
    st->kh[k] = kh;
    st->next = (k + 1) & (HP_SITES - 1);
    st->hint = k;
    st->last = NULL;
    return 2;
}

/* Write `r` at `w` in the log's forms (same, short, or whole), births
 * after `period0`; returns the words written (0, 1, 2 or HP_LONG_WORDS). */
static inline unsigned hp_log_put(uint64_t *w, const hp_rec *r, uint32_t period0, hp_lsame *st)
{
    if (hp_log_fits(r, period0)) return hp_log_put_short(w, r, period0, st);
    w[0] = HP_LOG_LONG;
    w[1] = 0;
    __builtin_memcpy(&w[2], r, sizeof *r);
    hp_lsame_reset(st);
    return HP_LONG_WORDS;
}

/* The record of the entry at `w` (which is not HP_LOG_PAD) into *r, `st`
 * the state of the chunk's entries before it; returns the words it took:
 * 0 for a run's object before its last (call again at `w` for the next). */
static inline __attribute__((always_inline)) unsigned
hp_log_decode(const uint64_t *w, uint32_t period0, hp_lsame *st, hp_rec *r)
{
    uint64_t a = st->run ? st->runw : __atomic_load_n(&w[0], __ATOMIC_RELAXED);
    unsigned how = (unsigned)(a & 15);
    if (how == HP_LOG_LONG) {
        __builtin_memcpy(r, w + 2, sizeof *r);
        hp_lsame_reset(st);
        return HP_LONG_WORDS;
    }
    r->base = (uintptr_t)(a & HP_LOG_BASE);
    r->word = 0;
    r->birth = period0 + (uint32_t)(a >> 56);
    r->age = 0;
    r->flags = 0;
    if (how == HP_LOG_SAME) {
        unsigned j = hp_lrun_slot(a);
        hp_fill_from(r, st->ccs[j], st->sizes[j], st->kh[j] & 255, (st->kh[j] >> 8) & 255);
        return hp_run_member(r, a, hp_lrun_extra(a), &st->run, &st->runw);
    }
    uint32_t ccs = (uint32_t)w[1], sizes = (uint32_t)(w[1] >> 32);
    unsigned kind = (unsigned)(a >> 48) & 255;
    hp_fill_from(r, ccs, sizes, kind, how);
    unsigned k = st->next;
    st->ccs[k] = ccs;
    st->sizes[k] = sizes;
    st->kh[k] = kind | how << 8 | HP_SAME_VALID;
    st->next = (k + 1) & (HP_SITES - 1);
    return 2;
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
    uint32_t id;                /* the log's number, for a free noted against it */
    hp_chunk *tail;             /* producer */
    uint64_t wrote_at;          /* producer: the log's words before tail's */
    hp_lsame wrote;             /* producer: what a "same" entry may repeat */
    hp_chunk *head;             /* consumer */
    uint64_t read_at;           /* consumer: the log's words before head's */
    uint32_t consumed;          /* consumer: words of head already drained */
    hp_lsame read;              /* consumer: the state at `consumed` */
};
/* (An entry's position in its log, read_at or wrote_at plus its first
 * word's index in its chunk, only grows: Note [Frees against a log].) */
_Static_assert(sizeof(hp_tlog) % 64 == 0, "a log fills whole cache lines");

/* hp_shadow_log_append (core/hp_shadow.h), inline: the allocation path's
 * wrappers (preload/hp_wrappers.c) append with it, so that the record
 * they fill is written to the log without a call and a copy (trees.c
 * depth 14 under callgrind, with log_object inline too: 24 and then 20
 * instructions an object fewer). The common case, a short or same entry
 * in the tail chunk; else hp_shadow_append_slow (a new chunk, or a record
 * written whole). */
int hp_shadow_append_slow(hp_tlog *log, const hp_rec *r);

static inline __attribute__((always_inline)) int
hp_shadow_log_append_inline(hp_tlog *log, const hp_rec *r)
{
    hp_chunk *c = log->tail;
    uint32_t n = atomic_load_explicit(&c->count, memory_order_relaxed);
    if (__builtin_expect(n + 2 <= HP_CHUNK_WORDS && hp_log_fits(r, c->period0), 1)) {
        unsigned took = hp_log_put_short(&c->w[n], r, c->period0, &log->wrote);
        /* (0: the last entry's run grew, Note [Runs down a block]: the
         * next entry's count publishes it, and the consumer reads a
         * chunk's last entry again) */
        if (took) atomic_store_explicit(&c->count, n + took, memory_order_release);
        return 0;
    }
    return hp_shadow_append_slow(log, r);
}

#endif
