/* hp_shadow: per-thread allocation logs and the main record table (see
 * hp_shadow.h for the concurrency contract).
 *
 * A log is a chain of fixed-size chunks. The producer (the owning thread)
 * fills the tail chunk and publishes each entry with a release store of the
 * chunk's count; the consumer (the owner context) reads up to the count with
 * an acquire load, and recycles a chunk only once the producer has linked a
 * successor, after which the producer never touches it again. */
#include "core/hp_shadow.h"
#include "core/hp_assert.h"
#include "core/hp_shadow_internal.h"
#include "core/hp_mem.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

hp_store hp_store_;
#define meta_arena hp_store_.meta_arena
#define registry hp_store_.registry
#define table hp_store_.table
#define table_len hp_store_.table_len
#define freed_vec hp_store_.freed_vec
#define freed_cap hp_store_.freed_cap
#define freed_len hp_store_.freed_len
/* pool_lock serialises taking chunks from the pool and the arena; giving a
 * chunk back is a lock-free push (hp_shadow_chunk_put), so the consumer,
 * even with the world stopped, never waits for a thread that the collector
 * stopped while it held pool_lock. Pops under the lock are ABA-safe: no
 * other pop can run between reading the head and swapping it. */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t next_log_id = 1;   /* (registry_lock) */

int hp_shadow_init(void)
{
    if (hp_arena_init(&meta_arena, (size_t)16 << 30) != 0) return -1;
    meta_arena.vec.grow_pct = 10;   /* the allocation logs' chunks: the same */
    if (hp_vec_reserve(&table, (size_t)1 << 35) != 0) return -1;
    table.grow_pct = 10;   /* a tenth at a time: committed is the .prof's figure */
    if (hp_vec_reserve(&freed_vec, (size_t)1 << 32) != 0 ||
        hp_vec_reserve(&hp_store_.freed_filter_vec, (size_t)1 << 30) != 0 ||
        hp_vec_reserve(&hp_store_.aside_vec, (size_t)1 << 34) != 0 ||
        hp_vec_reserve(&hp_store_.side_vec, (size_t)1 << 34) != 0 ||
        /* (core/hp_sweep.c, YOUNG_CHUNK entries and their lists: 40 KiB) */
        hp_vec_reserve(&hp_store_.young_vec, (size_t)1 << 20) != 0)
        return -1;
    hp_store_.aside_vec.grow_pct = 10;
    hp_store_.side_vec.grow_pct = 10;
    return 0;
}

static hp_chunk *chunk_get(void)
{
    pthread_mutex_lock(&pool_lock);
    hp_chunk *c = atomic_load_explicit(&hp_store_.pool, memory_order_acquire);
    while (c && !atomic_compare_exchange_weak_explicit(
                    &hp_store_.pool, &c, atomic_load_explicit(&c->next, memory_order_relaxed),
                    memory_order_acquire, memory_order_acquire))
        ;
    if (!c) c = hp_arena_alloc(&meta_arena, sizeof *c);
    pthread_mutex_unlock(&pool_lock);
    if (c) {
        atomic_store_explicit(&c->next, NULL, memory_order_relaxed);
        atomic_store_explicit(&c->count, 0, memory_order_relaxed);
    }
    return c;
}

#define chunk_put hp_shadow_chunk_put

hp_tlog *hp_shadow_log_new(void)
{
    hp_chunk *c = chunk_get();
    if (!c) return NULL;
    pthread_mutex_lock(&registry_lock);
    hp_tlog *log = NULL;
    int fresh = 0;
    /* Reuse the log of a thread that has exited and been fully drained. */
    for (hp_tlog *l = atomic_load(&registry); l; l = l->next_all) {
        int expect = LOG_FREE;
        if (atomic_load_explicit(&l->state, memory_order_relaxed) == LOG_FREE &&
            atomic_compare_exchange_strong(&l->state, &expect, LOG_CLAIMED)) {
            log = l;
            break;
        }
    }
    if (!log) {
        pthread_mutex_lock(&pool_lock);     /* the arena's lock (order: registry, pool) */
        log = hp_arena_alloc(&meta_arena, sizeof *log);
        pthread_mutex_unlock(&pool_lock);
        if (!log) {
            pthread_mutex_unlock(&registry_lock);
            chunk_put(c);
            return NULL;
        }
        atomic_init(&log->state, LOG_CLAIMED);
        log->id = next_log_id++;
        log->wrote_at = 0;
        fresh = 1;
    } else {
        /* (past every position of its last thread's: Note [Frees against
         * a log]) */
        log->wrote_at += HP_CHUNK_WORDS;
    }
    log->read_at = log->wrote_at;
    c->period0 = 0;   /* (set by the first entry) */
    log->tail = log->head = c;
    log->consumed = 0;
    hp_lsame_reset(&log->wrote);
    hp_lsame_reset(&log->read);
    log->read.run = 0;
    if (fresh) {
        log->next_all = atomic_load(&registry);
        atomic_store_explicit(&registry, log, memory_order_release);
    }
    atomic_store_explicit(&log->state, LOG_ACTIVE, memory_order_release);
    pthread_mutex_unlock(&registry_lock);
    return log;
}

/* Write `r` at word n of the tail `c`, which has room for it (Note [The
 * log's entries]), and publish it. */
static inline void put(hp_tlog *log, hp_chunk *c, uint32_t n, const hp_rec *r)
{
    n += hp_log_put(&c->w[n], r, c->period0, &log->wrote);
    atomic_store_explicit(&c->count, n, memory_order_release);
}

/* A chunk for `log` with room for `need` more words: the tail, or a new
 * one started at `period0` and linked after it (the tail's unused words
 * padded, and published); NULL when out of memory. */
static hp_chunk *room_for(hp_tlog *log, uint32_t need, uint32_t period0)
{
    hp_chunk *c = log->tail;
    uint32_t n = atomic_load_explicit(&c->count, memory_order_relaxed);
    if (n + need <= HP_CHUNK_WORDS) return c;
    hp_chunk *nc = chunk_get();
    if (!nc) return NULL;
    nc->period0 = period0;
    for (uint32_t i = n; i < HP_CHUNK_WORDS; i++) c->w[i] = HP_LOG_PAD;
    atomic_store_explicit(&c->count, HP_CHUNK_WORDS, memory_order_release);
    atomic_store_explicit(&c->next, nc, memory_order_release);
    log->tail = nc;
    log->wrote_at += HP_CHUNK_WORDS;
    hp_lsame_reset(&log->wrote);   /* (a chunk's first entry repeats nothing) */
    return nc;
}

/* A new chunk, or a record written whole (Note [The log's entries]). */
__attribute__((noinline)) int hp_shadow_append_slow(hp_tlog *log, const hp_rec *r)
{
    hp_chunk *c = room_for(log, 2, r->birth);
    if (!c) return -1;
    uint32_t n = atomic_load_explicit(&c->count, memory_order_relaxed);
    if (n == 0) c->period0 = r->birth;   /* (published with the first entry) */
    if (!hp_log_fits(r, c->period0)) {
        if (!(c = room_for(log, HP_LONG_WORDS, r->birth))) return -1;
        n = atomic_load_explicit(&c->count, memory_order_relaxed);
        if (n == 0) c->period0 = r->birth;
    }
    put(log, c, n, r);
    return 0;
}

int hp_shadow_log_append(hp_tlog *log, const hp_rec *r) { return hp_shadow_log_append_inline(log, r); }

void hp_shadow_log_exit(hp_tlog *log)
{
    atomic_store_explicit(&log->state, LOG_EXITED, memory_order_release);
}


static void filter_set(uintptr_t base)
{
    uint64_t bit = hp_shadow_freed_bit(base);
    ((uint64_t *)hp_store_.freed_filter_vec.base)[bit >> 6] |= (uint64_t)1 << (bit & 63);
}

/* The filter's size for the table's capacity: 16 bits an entry. */
static size_t filter_bytes(size_t cap) { return cap * 16 / 8; }

static int freed_grow(void)
{
    size_t old_cap = freed_cap, cap = old_cap ? old_cap * 2 : 1024;
    /* Rebuild in the upper half of the reservation, then move down; the
     * copy's pages are given back after (Note [The frees' table]). */
    size_t bytes = cap * sizeof(hp_freed);
    if (hp_vec_ensure(&freed_vec, bytes + old_cap * sizeof(hp_freed)) != 0 ||
        hp_vec_ensure(&hp_store_.freed_filter_vec, filter_bytes(cap)) != 0)
        return -1;
    memset(hp_store_.freed_filter_vec.base, 0, filter_bytes(cap));
    hp_store_.freed_filter_shift = 64 - (unsigned)__builtin_ctzll((uint64_t)cap * 16);
    hp_freed *f = (hp_freed *)freed_vec.base;
    hp_freed *save = (hp_freed *)(freed_vec.base + bytes);
    memcpy(save, f, old_cap * sizeof(hp_freed));
    memset(f, 0, bytes);
    freed_cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (save[i].key) {
            f[hp_shadow_freed_slot(save[i].key)] = save[i];
            filter_set(save[i].key & ~(uint64_t)15);
        }
    hp_vec_trim(&freed_vec, bytes);
    return 0;
}

/* The entry for `key` (a base | HP_FREED_*; created with val 0 if new),
 * or NULL when out of memory. */
static hp_freed *note_entry(uint64_t key)
{
    if ((freed_len + 1) * 2 > freed_cap && freed_grow() != 0) return NULL;
    hp_freed *f = (hp_freed *)freed_vec.base + hp_shadow_freed_slot(key);
    if (f->key == 0) {
        freed_len++;
        f->key = key;
        f->val = 0;
        filter_set(key & ~(uint64_t)15);
    }
    return f;
}

/* Does log `l` hold records no drain has taken? (Owner; a run the last
 * drain stopped in counts, though it may not have grown since.) */
static int log_pending(hp_tlog *l)
{
    int state = atomic_load_explicit(&l->state, memory_order_acquire);
    if (state == LOG_FREE || state == LOG_CLAIMED) return 0;
    hp_chunk *c = l->head;
    if (atomic_load_explicit(&c->count, memory_order_acquire) > l->consumed) return 1;
    hp_chunk *next = atomic_load_explicit(&c->next, memory_order_acquire);
    return next && atomic_load_explicit(&next->count, memory_order_acquire) > 0;
}

/* Can a free on the thread whose log is `mine` be noted against it (Note
 * [Frees against a log])? Nothing set aside, no other log with records. */
static int free_against(const hp_tlog *mine)
{
    if (!mine || hp_store_.aside_recs) return 0;
    for (hp_tlog *l = atomic_load_explicit(&registry, memory_order_acquire); l; l = l->next_all)
        if (l != mine && log_pending(l)) return 0;
    return 1;
}

void hp_shadow_note_free(uintptr_t base, hp_tlog *mine, hp_visit_fn visit, void *ctx)
{
    HP_ASSERT_OWNER();
    if (!free_against(mine) || mine->id >> (64 - HP_LOGPOS_BITS)) {
        hp_shadow_drain(visit, ctx);
        mine = NULL;
    }
    hp_store_.table_last.last = NULL;   /* (Note [Runs down a block]) */
    if (mine) {
        /* (room for both: a LOGPOS entry never without its FREE entry) */
        if ((freed_len + 2) * 2 > freed_cap && freed_grow() != 0) return;
        mine->wrote.last = NULL;   /* (its own run ends here: this thread writes it) */
        uint64_t at = mine->wrote_at + atomic_load_explicit(&mine->tail->count,
                                                            memory_order_relaxed);
        hp_freed *g = note_entry((uint64_t)base | HP_FREED_LOGPOS);
        if (!g) return;
        if (g->val == 0) hp_store_.logpos_n++;
        g->val = (uint64_t)mine->id << HP_LOGPOS_BITS | at;
    }
    hp_freed *f = note_entry((uint64_t)base | HP_FREED_FREE);
    if (f) f->val = table_len;
}

void hp_shadow_note_resize(uintptr_t base, uint32_t granted, uint32_t req)
{
    HP_ASSERT_OWNER();
    hp_shadow_drain(NULL, NULL);
    hp_store_.table_last.last = NULL;   /* (Note [Runs down a block]) */
    /* (the sizes first: a resize entry is looked for only with its sizes
     * there; room for both, so that neither is made without the other) */
    if ((freed_len + 3) * 2 > freed_cap && freed_grow() != 0) return;
    hp_freed *z = note_entry((uint64_t)base | HP_FREED_SIZES);
    hp_freed *f = note_entry((uint64_t)base | HP_FREED_RESIZE);
    if (!z || !f) return;
    z->val = (uint64_t)granted << 32 | req;
    if (f->val == 0) hp_store_.resized_n++;
    f->val = table_len;
}


void hp_shadow_set_compact(int on)
{
    if (table_len != 0) return;   /* (too late: unchanged) */
    hp_store_.compact = on != 0;
    hp_store_.side = on == HP_COMPACT_SIDE;
}

void hp_shadow_sweep_done(size_t new_len, size_t nrecs, const hp_same *last)
{
    table_len = new_len;
    hp_store_.table_recs = nrecs;
    if (last) hp_store_.table_last = *last;
    else hp_store_.table_last.kh = 0;
    if (freed_len) {
        memset(freed_vec.base, 0, freed_cap * sizeof(hp_freed));
        memset(hp_store_.freed_filter_vec.base, 0, filter_bytes(freed_cap));
        freed_len = 0;
        hp_store_.resized_n = 0;
        hp_store_.logpos_n = 0;
    }
    /* Give memory back when the table has shrunk a lot. */
    size_t unit = hp_shadow_unit();
    if (table.committed > 4 * (table_len * unit) + ((size_t)8 << 20))
        hp_vec_trim(&table, 2 * table_len * unit);
    size_t side = hp_store_.side ? nrecs * sizeof(hp_rec_side) : 0;
    if (hp_store_.side_vec.committed > 4 * side + ((size_t)8 << 20))
        hp_vec_trim(&hp_store_.side_vec, 2 * side);
}

void hp_shadow_prefork(void)
{
    pthread_mutex_lock(&registry_lock);
    pthread_mutex_lock(&pool_lock);
}

void hp_shadow_postfork_parent(void)
{
    pthread_mutex_unlock(&pool_lock);
    pthread_mutex_unlock(&registry_lock);
}

void hp_shadow_postfork_child(hp_tlog *survivor)
{
    pthread_mutex_unlock(&pool_lock);
    pthread_mutex_unlock(&registry_lock);
    for (hp_tlog *l = atomic_load(&registry); l; l = l->next_all)
        if (l != survivor && atomic_load(&l->state) == LOG_ACTIVE)
            atomic_store(&l->state, LOG_EXITED);
}
