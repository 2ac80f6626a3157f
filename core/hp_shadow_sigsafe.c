/* hp_shadow_sigsafe: the record store's consumer side (see hp_shadow.h):
 * taking the logs' records (drains, and the sweep's spans), the read-only
 * views (every record, the table, its sizes) and whether a record was
 * freed since the last sweep. Async-signal-safe and safe with the world
 * stopped: no lock is taken (chunks go back to the pool with a lock-free
 * push), so neither the SIGINT/SIGTERM finisher nor the traversal's drain at
 * MARK_END can wait for a thread the collector stopped. */
#include "core/hp_shadow.h"
#include "core/hp_shadow_internal.h"
#include "core/hp_assert.h"

#include <stdatomic.h>
#include <string.h>

#define registry hp_store_.registry
#define meta_arena hp_store_.meta_arena
#define table hp_store_.table
#define table_len hp_store_.table_len
#define freed_vec hp_store_.freed_vec
#define freed_cap hp_store_.freed_cap
#define freed_len hp_store_.freed_len

static hp_rec *table_recs(void) { return (hp_rec *)table.base; }

/* A compact table's last record, for the next one appended (Note [Runs of
 * the same]); the sweep sets it when it rewrites the table. */
#define table_last hp_store_.table_last

/* Objects not recorded for want of memory (a log chunk, room in the table):
 * the profile undercounts them, and says so at exit. */
static _Atomic uint64_t lost_objects, lost_bytes;

void hp_shadow_lost_one(size_t granted)
{
    atomic_fetch_add_explicit(&lost_objects, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&lost_bytes, granted, memory_order_relaxed);
}

void hp_shadow_lost_recs(const hp_rec *recs, size_t n)
{
    uint64_t b = 0;
    for (size_t i = 0; i < n; i++) b += recs[i].granted;
    atomic_fetch_add_explicit(&lost_objects, n, memory_order_relaxed);
    atomic_fetch_add_explicit(&lost_bytes, b, memory_order_relaxed);
}

uint64_t hp_shadow_lost(uint64_t *bytes)
{
    if (bytes) *bytes = atomic_load_explicit(&lost_bytes, memory_order_relaxed);
    return atomic_load_explicit(&lost_objects, memory_order_relaxed);
}

void *hp_shadow_room(size_t need)
{
    size_t bytes = need * hp_shadow_unit();
    if (bytes > table.committed && hp_vec_ensure(&table, bytes) != 0) return NULL;
    return table.base;
}

/* Append n records in one copy (encoded one by one if compact); 0, or -1
 * when out of memory. */
static int table_push_many(const hp_rec *r, size_t n)
{
    if (hp_store_.compact) {
        uint64_t *t = hp_shadow_room(table_len + HP_LONG_WORDS * n);
        if (!t) return -1;
        for (size_t i = 0; i < n; i++) {
            hp_rec c;
            if (hp_store_.side && hp_side_put(hp_store_.table_recs, &r[i]) != 0) {
                hp_shadow_lost_recs(&r[i], 1);
                continue;
            }
            table_len += hp_tab_put(t + table_len, hp_side_strip(&r[i], &c), &table_last);
            hp_store_.table_recs++;
        }
        return 0;
    }
    hp_rec *t = hp_shadow_room(table_len + n);
    if (!t) return -1;
    memcpy(t + table_len, r, n * sizeof *r);
    table_len += n;
    return 0;
}

static inline uint64_t freed_val(uint64_t key);

/* Mark HP_REC_FREED the record at position `pos` of log `id` if a free
 * was noted against that log after it (Note [Frees against a log]). */
static inline void mark_freed(hp_rec *r, uint32_t id, uint64_t pos)
{
    if (hp_store_.logpos_n == 0 || !hp_shadow_freed_maybe(r->base)) return;
    uint64_t v = freed_val((uint64_t)r->base | HP_FREED_LOGPOS);
    if (v >> HP_LOGPOS_BITS == id && pos < (v & (((uint64_t)1 << HP_LOGPOS_BITS) - 1)))
        r->flags |= HP_REC_FREED;
}

/* The records of words [from, to) of chunk `c`, decoded into a buffer
 * (Note [The log's entries]; `st` the state at `from`, left where it
 * stops) and given to `fn` a buffer at a time. Unless the chunk is `final`
 * (its producer gone from it), it stops on a last entry that is a same
 * entry, whose run the producer may still grow (Note [Runs down a
 * block]), after handing out the objects it has: returns where it
 * stopped, the word to start from next time (st->run says how many of
 * that entry's objects were handed out). The chunk's words are at
 * positions at + i of log `id` (Note [Frees against a log]). */
#define DECODED 64   /* 2 KiB of stack */
static uint32_t take_entries(const hp_chunk *c, uint32_t from, uint32_t to, hp_lsame *st,
                             int final, uint32_t id, uint64_t at, hp_span_fn fn, hp_run_fn run,
                             void *ctx)
{
    hp_rec buf[DECODED];
    size_t k = 0;
    uint32_t i = from;
    while (i < to) {
        uint64_t w = __atomic_load_n(&c->w[i], __ATOMIC_RELAXED);
        unsigned how = (unsigned)(w & 15);
        if (how == HP_LOG_PAD) {
            i++;
            continue;
        }
        /* (a same entry of one object, which its producer can no longer
         * grow, decodes as a short one does: most of a runtime's, whose
         * sites take turns, Note [Recent sites]) */
        if (how == HP_LOG_SAME &&
            (hp_lrun_extra(w) != 0 || st->run != 0 || (i + 1 == to && !final))) {
            /* A run's objects (those the last drain stopped short of, if
             * it stopped here), from its word as it is now. */
            unsigned m = st->run, extra = hp_lrun_extra(w);
            hp_rec one;
            st->run = 0;
            hp_log_decode(&c->w[i], c->period0, st, &one);   /* (its first object) */
            st->run = 0;
            if (run && m < extra) {   /* (two or more: offered whole, after what came before) */
                if (k) fn(buf, k, ctx);
                k = 0;
                if (run(&one, m, extra, ctx)) m = extra + 1;
            }
            for (; m <= extra; m++) {
                buf[k] = one;
                buf[k].base = one.base - (uintptr_t)m * one.granted;
                mark_freed(&buf[k], id, at + i);
                if (++k == DECODED) {
                    fn(buf, k, ctx);
                    k = 0;
                }
            }
            if (i + 1 == to && !final) {   /* the producer may grow it still */
                st->run = extra + 1;
                break;
            }
            i++;
            continue;
        }
        uint64_t pos = at + i;
        i += hp_log_decode(&c->w[i], c->period0, st, &buf[k]);
        mark_freed(&buf[k], id, pos);
        if (++k == DECODED) {
            fn(buf, k, ctx);
            k = 0;
        }
    }
    if (k) fn(buf, k, ctx);
    return i;
}

/* Give one log's unconsumed records to `fn` span by span; each span is
 * consumed once `fn` returns, and an exited thread's log is recycled once
 * empty. */
static void take_log(hp_tlog *log, hp_span_fn fn, hp_run_fn run, void *ctx)
{
    int state = atomic_load_explicit(&log->state, memory_order_acquire);
    if (state == LOG_FREE || state == LOG_CLAIMED) return;
    hp_chunk *c = log->head;
    for (;;) {
        uint32_t n = atomic_load_explicit(&c->count, memory_order_acquire);
        hp_chunk *next = atomic_load_explicit(&c->next, memory_order_acquire);
        /* (A chunk with a successor, or an exited thread's, is final.) */
        int final = (n == HP_CHUNK_WORDS && next) || state == LOG_EXITED;
        if (n > log->consumed)
            log->consumed = take_entries(c, log->consumed, n, &log->read, final, log->id,
                                         log->read_at, fn, run, ctx);
        if (n == HP_CHUNK_WORDS && next) {
            hp_shadow_chunk_put(c);
            c = next;
            log->read_at += HP_CHUNK_WORDS;
            log->consumed = 0;
            hp_lsame_reset(&log->read);
            log->read.run = 0;
            continue;
        }
        break;
    }
    log->head = c;
    if (state == LOG_EXITED && log->consumed ==
            atomic_load_explicit(&c->count, memory_order_acquire)) {
        hp_shadow_chunk_put(c);
        log->head = log->tail = NULL;
        atomic_store_explicit(&log->state, LOG_FREE, memory_order_release);
    }
}

/* Note [Set aside at a traversal]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A traversal (modes retainer and roots, rset=) runs at the mark phase's
 * end and needs every record in the table; but most records logged since
 * the last collection are of objects the collector did not mark, which no
 * walk reaches, and 32 bytes each in the table they were a third of what
 * retainer held at its peak. hp_shadow_drain_marked takes into the table
 * only the records its test keeps (the marked) and sets the rest aside in
 * the log's forms (8 to 16 bytes, Note [The log's entries]), to be taken
 * before the logs by the next drain or sweep: they are still judged, in
 * order, and a record set aside whose object the collector marks after
 * the mark phase (for finalization) survives as a record from the logs
 * does. Indexes: the records set aside come after the table's and before
 * the logs' (hp_shadow_set_aside says how many there were). */
static int aside_put(const hp_rec *r)
{
    size_t n = hp_store_.aside_len;
    if (hp_vec_ensure(&hp_store_.aside_vec, (n + HP_LONG_WORDS) * sizeof(uint64_t)) != 0)
        return -1;
    uint64_t *w = (uint64_t *)hp_store_.aside_vec.base + n;
    if (hp_store_.aside_recs == 0) {
        hp_store_.aside_p0 = r->birth;
        hp_lsame_reset(&hp_store_.aside_st);
    }
    n += hp_log_put(w, r, hp_store_.aside_p0, &hp_store_.aside_st);
    hp_store_.aside_len = n;
    hp_store_.aside_recs++;
    return 0;
}

/* The records set aside, to `fn` a buffer at a time; then none. */
static void take_aside(hp_span_fn fn, void *ctx)
{
    if (!hp_store_.aside_recs) return;
    const uint64_t *w = (const uint64_t *)hp_store_.aside_vec.base;
    size_t len = hp_store_.aside_len;
    hp_lsame st = {0};
    hp_rec buf[DECODED];
    size_t k = 0;
    for (size_t i = 0; i < len;) {
        i += hp_log_decode(&w[i], hp_store_.aside_p0, &st, &buf[k]);
        if (++k == DECODED) {
            fn(buf, k, ctx);
            k = 0;
        }
    }
    if (k) fn(buf, k, ctx);
    hp_store_.aside_len = hp_store_.aside_recs = 0;
}

static void take_logs(hp_span_fn fn, hp_run_fn run, void *ctx)
{
    for (hp_tlog *l = atomic_load_explicit(&registry, memory_order_acquire); l;
         l = l->next_all)
        take_log(l, fn, run, ctx);
}

void hp_shadow_take_pending_runs(hp_span_fn fn, hp_run_fn run, void *ctx)
{
    take_aside(fn, ctx);
    take_logs(fn, run, ctx);
}

void hp_shadow_take_pending(hp_span_fn fn, void *ctx)
{
    hp_shadow_take_pending_runs(fn, NULL, ctx);
}

typedef struct drain_ctx { hp_visit_fn visit; void *ctx; } drain_ctx;

static void copy_span(hp_rec *recs, size_t n, void *arg)
{
    drain_ctx *d = arg;
    if (!d->visit) {
        if (table_push_many(recs, n) != 0) hp_shadow_lost_recs(recs, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (hp_store_.compact) {   /* (visited first: what the visit sets is kept) */
            if (hp_shadow_room(table_len + HP_LONG_WORDS)) {
                d->visit(&recs[i], HP_EV_NEW, d->ctx);
                (void)table_push_many(&recs[i], 1);
            } else {
                hp_shadow_lost_recs(&recs[i], 1);
            }
        } else if (table_push_many(&recs[i], 1) == 0) {
            d->visit(&((hp_rec *)table.base)[table_len - 1], HP_EV_NEW, d->ctx);
        } else {
            hp_shadow_lost_recs(&recs[i], 1);
        }
    }
}

void hp_shadow_drain(hp_visit_fn visit, void *ctx)
{
    HP_ASSERT_OWNER();
    drain_ctx d = {visit, ctx};
    hp_shadow_take_pending(copy_span, &d);
}

typedef struct split_ctx { hp_live_fn keep; void *ctx; size_t aside; } split_ctx;

static void split_span(hp_rec *recs, size_t n, void *arg)
{
    split_ctx *sp = arg;
    for (size_t i = 0; i < n; i++) {
        /* (a record freed against its log goes to the table, where the
         * sweep drops it, unasked: its address may no longer start an
         * object, nor its page a block, and the test reads the block's
         * header, Note [Frees against a log]) */
        if (!(recs[i].flags & HP_REC_FREED) && !sp->keep(recs[i].base, sp->ctx) &&
            aside_put(&recs[i]) == 0) {
            sp->aside++;
            continue;
        }
        if (table_push_many(&recs[i], 1) != 0) hp_shadow_lost_recs(&recs[i], 1);
    }
}

size_t hp_shadow_drain_marked(hp_live_fn keep, void *ctx)
{
    HP_ASSERT_OWNER();
    drain_ctx d = {NULL, NULL};
    take_aside(copy_span, &d);   /* (older than any log's records) */
    split_ctx sp = {keep, ctx, 0};
    take_logs(split_span, NULL, &sp);
    hp_store_.aside_split = sp.aside;
    return sp.aside;
}

size_t hp_shadow_set_aside(void) { return hp_store_.aside_split; }


size_t hp_shadow_freed_slot(uint64_t key)
{
    uint64_t h = hp_shadow_freed_key_hash(key);
    size_t i = (size_t)(h ^ (h >> 32)) & (freed_cap - 1);
    hp_freed *f = (hp_freed *)freed_vec.base;
    while (f[i].key != 0 && f[i].key != key) i = (i + 1) & (freed_cap - 1);
    return i;
}

/* The val of `key`'s entry, or 0 if it has none. */
static inline uint64_t freed_val(uint64_t key)
{
    const hp_freed *f = (const hp_freed *)freed_vec.base + hp_shadow_freed_slot(key);
    return f->key == key ? f->val : 0;
}

/* Records of one address before its last free are freed; the one after
 * it, if allocated before the last resize, takes the resized sizes (Note
 * [The frees' table]). */
static int was_freed(hp_rec *r, size_t idx)
{
    if (r->flags & HP_REC_FREED) return 1;
    if (freed_len == 0 || !hp_shadow_freed_maybe(r->base)) return 0;
    if (idx < freed_val((uint64_t)r->base | HP_FREED_FREE)) return 1;
    if (hp_store_.resized_n && idx < freed_val((uint64_t)r->base | HP_FREED_RESIZE)) {
        uint64_t z = freed_val((uint64_t)r->base | HP_FREED_SIZES);
        r->granted = (uint32_t)(z >> 32);
        r->req = (uint32_t)z;
    }
    return 0;
}

hp_rec *hp_shadow_table(size_t *len)
{
    if (hp_store_.compact) {   /* (not for this table: see hp_shadow.h) */
        *len = 0;
        return NULL;
    }
    *len = table_len;
    return table_recs();
}

/* Visit a compact table's records (copies), those not freed if `unfreed`. */
static void foreach_compact(hp_visit_fn visit, void *ctx, int unfreed)
{
    const uint64_t *t = (const uint64_t *)table.base;
    size_t len = table_len;
    hp_same st = {0};
    size_t ord = 0, nside = hp_store_.side ? hp_store_.table_recs : 0;
    for (size_t i = 0; i < len;) {
        if (i + hp_ent_words(t[i]) > len) break;   /* (peek: a table a sweep is rewriting) */
        hp_rec r;
        size_t at = i;
        i += hp_tab_get(&t[i], &r, &st);
        if (ord < nside) hp_side_get(&r, ord);
        ord++;
        if (!unfreed || !was_freed(&r, at)) visit(&r, HP_EV_SURVIVED, ctx);
    }
}

hp_rec_side *hp_shadow_sides(size_t *n)
{
    *n = hp_store_.side ? hp_store_.table_recs : 0;
    return hp_store_.side ? (hp_rec_side *)hp_store_.side_vec.base : NULL;
}

void hp_shadow_foreach_ord(size_t from, hp_ord_fn fn, void *ctx)
{
    const uint64_t *t = (const uint64_t *)table.base;
    size_t len = table_len, ord = 0;
    if (!hp_store_.compact) {
        for (size_t i = from; i < len; i++) {
            hp_rec r = table_recs()[i];
            fn(&r, i, ctx);
        }
        return;
    }
    hp_same st = {0};
    size_t i = 0;
    /* Whole entries before `from` are passed over undecoded, but for
     * those a same entry after them repeats (short ones), and a run's
     * objects count at once (Note [Runs down a block]). */
    while (i < len && ord < from) {
        uint64_t w = t[i];
        if ((w & 15) == HP_LOG_SAME && st.run == 0) {
            size_t k = (size_t)hp_run_extra(w) + 1;
            if (ord + k > from) break;
            ord += k;
            i++;
            continue;
        }
        hp_rec r;
        i += hp_tab_get(&t[i], &r, &st);
        ord++;
    }
    for (; i < len;) {
        hp_rec r;
        i += hp_tab_get(&t[i], &r, &st);
        if (hp_store_.side) hp_side_get(&r, ord);
        if (ord >= from) fn(&r, ord, ctx);
        ord++;
    }
}

void hp_shadow_foreach(hp_visit_fn visit, void *ctx)
{
    if (hp_store_.compact) {
        foreach_compact(visit, ctx, 0);
        return;
    }
    hp_rec *recs = table_recs();
    for (size_t i = 0; i < table_len; i++) visit(&recs[i], HP_EV_SURVIVED, ctx);
}

void hp_shadow_peek(hp_visit_fn visit, void *ctx)
{
    hp_rec *recs = table_recs();
    size_t len = table_len;
    if (hp_store_.compact) foreach_compact(visit, ctx, 1);
    else
        for (size_t i = 0; i < len; i++)
            if (!was_freed(&recs[i], i)) visit(&recs[i], HP_EV_SURVIVED, ctx);
    /* Records set aside at a traversal (Note [Set aside at a traversal]). */
    const uint64_t *aw = (const uint64_t *)hp_store_.aside_vec.base;
    size_t alen = hp_store_.aside_recs ? hp_store_.aside_len : 0;
    hp_lsame ast = {0};
    for (size_t i = 0; i < alen;) {
        if (i + hp_ent_words(aw[i]) > alen) break;
        hp_rec r;
        i += hp_log_decode(&aw[i], hp_store_.aside_p0, &ast, &r);
        if (!(r.flags & HP_REC_FREED)) visit(&r, HP_EV_NEW, ctx);
    }
    for (hp_tlog *l = atomic_load_explicit(&registry, memory_order_acquire); l;
         l = l->next_all) {
        int st = atomic_load_explicit(&l->state, memory_order_acquire);
        if (st == LOG_FREE || st == LOG_CLAIMED) continue;
        uint32_t from = l->consumed;
        hp_lsame prev = l->read;
        uint64_t at = l->read_at;
        for (hp_chunk *c = l->head; c;
             c = atomic_load_explicit(&c->next, memory_order_acquire), at += HP_CHUNK_WORDS) {
            uint32_t n = atomic_load_explicit(&c->count, memory_order_acquire);
            if (prev.run && from < n && from < HP_CHUNK_WORDS) {
                /* A run the last drain stopped in (Note [Runs down a
                 * block]): its objects from prev.run on, if any. */
                uint64_t w = __atomic_load_n(&c->w[from], __ATOMIC_RELAXED);
                if (prev.run > hp_lrun_extra(w)) {
                    prev.run = 0;
                    from++;
                } else {
                    prev.runw = w;
                }
            }
            for (uint32_t i = from; i < n && i < HP_CHUNK_WORDS;) {
                if ((c->w[i] & 15) == HP_LOG_PAD) {
                    i++;
                    continue;
                }
                unsigned need = hp_ent_words(c->w[i]);
                if (i + need > n || i + need > HP_CHUNK_WORDS) break;   /* (a view in flux) */
                hp_rec r;
                uint64_t pos = at + i;
                i += hp_log_decode(&c->w[i], c->period0, &prev, &r);
                mark_freed(&r, l->id, pos);
                if (!(r.flags & HP_REC_FREED)) visit(&r, HP_EV_NEW, ctx);
            }
            from = 0;
            hp_lsame_reset(&prev);
            prev.run = 0;
        }
    }
}

size_t hp_shadow_records(void) { return hp_store_.compact ? hp_store_.table_recs : table_len; }

size_t hp_shadow_record_bytes(void)
{
    return hp_store_.compact ? 16 + (hp_store_.side ? sizeof(hp_rec_side) : 0) : sizeof(hp_rec);
}

size_t hp_shadow_bytes(void)
{
    return table.committed + freed_vec.committed + hp_store_.side_vec.committed;
}
size_t hp_shadow_log_bytes(void) { return meta_arena.vec.committed; }


int hp_shadow_freed_at(hp_rec *r, size_t idx) { return was_freed(r, idx); }

int hp_shadow_is_freed(const hp_rec *r, size_t idx)
{
    if (r->flags & HP_REC_FREED) return 1;
    if (freed_len == 0 || !hp_shadow_freed_maybe(r->base)) return 0;
    return idx < freed_val((uint64_t)r->base | HP_FREED_FREE);
}

int hp_shadow_has_frees(void) { return freed_len != 0; }
