/* hp_shadow: per-thread allocation logs and the main record table (see
 * hp_shadow.h for the concurrency contract).
 *
 * A log is a chain of fixed-size chunks. The producer (the owning thread)
 * fills the tail chunk and publishes each record with a release store of the
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
static hp_chunk *chunk_pool;                /* recycled chunks */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

int hp_shadow_init(void)
{
    if (hp_arena_init(&meta_arena, (size_t)16 << 30) != 0) return -1;
    if (hp_vec_reserve(&table, (size_t)1 << 35) != 0) return -1;
    if (hp_vec_reserve(&freed_vec, (size_t)1 << 32) != 0) return -1;
    return 0;
}

static hp_chunk *chunk_get(void)
{
    pthread_mutex_lock(&pool_lock);
    hp_chunk *c = chunk_pool;
    if (c) chunk_pool = atomic_load_explicit(&c->next, memory_order_relaxed);
    else c = hp_arena_alloc(&meta_arena, sizeof *c);
    pthread_mutex_unlock(&pool_lock);
    if (c) {
        atomic_store_explicit(&c->next, NULL, memory_order_relaxed);
        atomic_store_explicit(&c->count, 0, memory_order_relaxed);
    }
    return c;
}

static void chunk_put(hp_chunk *c)
{
    pthread_mutex_lock(&pool_lock);
    atomic_store_explicit(&c->next, chunk_pool, memory_order_relaxed);
    chunk_pool = c;
    pthread_mutex_unlock(&pool_lock);
}

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
        fresh = 1;
    }
    log->tail = log->head = c;
    log->consumed = 0;
    if (fresh) {
        log->next_all = atomic_load(&registry);
        atomic_store_explicit(&registry, log, memory_order_release);
    }
    atomic_store_explicit(&log->state, LOG_ACTIVE, memory_order_release);
    pthread_mutex_unlock(&registry_lock);
    return log;
}

hp_rec *hp_shadow_log_slot(hp_tlog *log)
{
    hp_chunk *c = log->tail;
    uint32_t n = atomic_load_explicit(&c->count, memory_order_relaxed);
    if (n == HP_CHUNK_RECS) {
        hp_chunk *nc = chunk_get();
        if (!nc) return NULL;
        atomic_store_explicit(&c->next, nc, memory_order_release);
        log->tail = c = nc;
        n = 0;
    }
    return &c->recs[n];
}

void hp_shadow_log_publish(hp_tlog *log)
{
    hp_chunk *c = log->tail;
    uint32_t n = atomic_load_explicit(&c->count, memory_order_relaxed);
    atomic_store_explicit(&c->count, n + 1, memory_order_release);
}

int hp_shadow_log_append(hp_tlog *log, const hp_rec *r)
{
    hp_rec *slot = hp_shadow_log_slot(log);
    if (!slot) return -1;
    *slot = *r;
    hp_shadow_log_publish(log);
    return 0;
}

void hp_shadow_log_exit(hp_tlog *log)
{
    atomic_store_explicit(&log->state, LOG_EXITED, memory_order_release);
}


hp_rec *hp_shadow_room(size_t need)
{
    if (need * sizeof(hp_rec) > table.committed &&
        hp_vec_ensure(&table, need * sizeof(hp_rec)) != 0)
        return NULL;
    return ((hp_rec *)table.base);
}

/* Append n records in one copy; 0, or -1 when out of memory. */
static int table_push_many(const hp_rec *r, size_t n)
{
    hp_rec *t = hp_shadow_room(table_len + n);
    if (!t) return -1;
    memcpy(t + table_len, r, n * sizeof *r);
    table_len += n;
    return 0;
}

/* Give one log's unconsumed records to `fn` span by span; each span is
 * consumed once `fn` returns, and an exited thread's log is recycled once
 * empty. */
static void take_log(hp_tlog *log, hp_span_fn fn, void *ctx)
{
    int state = atomic_load_explicit(&log->state, memory_order_acquire);
    if (state == LOG_FREE || state == LOG_CLAIMED) return;
    hp_chunk *c = log->head;
    for (;;) {
        uint32_t n = atomic_load_explicit(&c->count, memory_order_acquire);
        if (n > log->consumed) fn(&c->recs[log->consumed], n - log->consumed, ctx);
        log->consumed = n;
        hp_chunk *next = atomic_load_explicit(&c->next, memory_order_acquire);
        if (n == HP_CHUNK_RECS && next) {
            chunk_put(c);
            c = next;
            log->consumed = 0;
            continue;
        }
        break;
    }
    log->head = c;
    if (state == LOG_EXITED && log->consumed ==
            atomic_load_explicit(&c->count, memory_order_acquire)) {
        chunk_put(c);
        log->head = log->tail = NULL;
        atomic_store_explicit(&log->state, LOG_FREE, memory_order_release);
    }
}

void hp_shadow_take_pending(hp_span_fn fn, void *ctx)
{
    for (hp_tlog *l = atomic_load_explicit(&registry, memory_order_acquire); l;
         l = l->next_all)
        take_log(l, fn, ctx);
}

typedef struct drain_ctx { hp_visit_fn visit; void *ctx; } drain_ctx;

static void copy_span(hp_rec *recs, size_t n, void *arg)
{
    drain_ctx *d = arg;
    if (!d->visit) {
        table_push_many(recs, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (table_push_many(&recs[i], 1) == 0)
            d->visit(&((hp_rec *)table.base)[table_len - 1], HP_EV_NEW, d->ctx);
}

void hp_shadow_drain(hp_visit_fn visit, void *ctx)
{
    HP_ASSERT_OWNER();
    drain_ctx d = {visit, ctx};
    hp_shadow_take_pending(copy_span, &d);
}

static int freed_grow(void)
{
    size_t old_cap = freed_cap, cap = old_cap ? old_cap * 2 : 1024;
    /* Rebuild in the upper half of the reservation, then move down. */
    size_t bytes = cap * sizeof(hp_freed);
    if (hp_vec_ensure(&freed_vec, bytes + old_cap * sizeof(hp_freed)) != 0) return -1;
    hp_freed *f = (hp_freed *)freed_vec.base;
    hp_freed *save = (hp_freed *)(freed_vec.base + bytes);
    memcpy(save, f, old_cap * sizeof(hp_freed));
    memset(f, 0, bytes);
    freed_cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (save[i].base) f[hp_shadow_freed_slot(save[i].base)] = save[i];
    return 0;
}

/* The entry for `base` (created empty if new), or NULL when out of memory. */
static hp_freed *note_entry(uintptr_t base)
{
    if ((freed_len + 1) * 2 > freed_cap && freed_grow() != 0) return NULL;
    hp_freed *f = (hp_freed *)freed_vec.base + hp_shadow_freed_slot(base);
    if (f->base == 0) {
        freed_len++;
        memset(f, 0, sizeof *f);
        f->base = base;
    }
    return f;
}

void hp_shadow_note_free(uintptr_t base, hp_visit_fn visit, void *ctx)
{
    HP_ASSERT_OWNER();
    hp_shadow_drain(visit, ctx);
    hp_freed *f = note_entry(base);
    if (f) f->seq = table_len;
}

void hp_shadow_note_resize(uintptr_t base, uint32_t granted, uint32_t req)
{
    HP_ASSERT_OWNER();
    hp_shadow_drain(NULL, NULL);
    hp_freed *f = note_entry(base);
    if (!f) return;
    f->resize_seq = table_len;
    f->granted = granted;
    f->req = req;
}

int hp_shadow_has_frees(void) { return freed_len != 0; }

void hp_shadow_sweep_done(size_t new_len)
{
    table_len = new_len;
    if (freed_len) {
        memset(freed_vec.base, 0, freed_cap * sizeof(hp_freed));
        freed_len = 0;
    }
    /* Give memory back when the table has shrunk a lot. */
    if (table.committed > 4 * (table_len * sizeof(hp_rec)) + ((size_t)8 << 20))
        hp_vec_trim(&table, 2 * table_len * sizeof(hp_rec));
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
