/* Unit tests for preload/hp_shadow: per-thread allocation logs, draining
 * them into the main table, sweeping with an injected liveness function,
 * explicit frees, and the reuse of exited threads' logs. (Criterion runs
 * each test in its own process, so every test starts with an empty table.) */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/hp_shadow.h"
#include "core/hp_shadow_internal.h"

#define CHUNK_RECS (HP_CHUNK_WORDS / 2)   /* short entries per log chunk */

/* Built twice: unit_shadow_compact (HP_TEST_COMPACT) runs every test on
 * the compact table (Note [The compact table]), which keeps no birth. */
#ifdef HP_TEST_COMPACT
#define COMPACT 1
#else
#define COMPACT 0
#endif

static void setup(void)
{
    cr_assert_eq(hp_shadow_init(), 0);
    hp_shadow_set_compact(COMPACT);
}

/* Record i of "thread" t: a 16-aligned base that encodes both. */
static uintptr_t base_of(unsigned t, unsigned i)
{
    return ((uintptr_t)(t + 1) << 32) | ((uintptr_t)i << 4);
}

static hp_rec make_rec(unsigned t, unsigned i)
{
    hp_rec r;
    memset(&r, 0, sizeof r);
    r.base = base_of(t, i);
    r.ccs = t * 1000000u + i;
    r.granted = 16 * (i % 50 + 1);   /* a short entry (Note [The log's entries]) */
    r.req = r.granted - i % 13;
    r.birth = t;
    r.kind = (uint8_t)(i % 3);
    r.how = (uint8_t)(i % HP_HOW_COUNT);
    return r;
}

/* Everything the visitors saw. */
typedef struct {
    size_t n[4];                 /* events by kind */
    size_t next[8];              /* HP_EV_NEW: next index expected per thread */
    int order_ok;
    size_t died_even, died_odd;  /* HP_EV_DIED by parity of base index */
    unsigned age_min, age_max;   /* of HP_EV_SURVIVED */
    uint32_t last_ccs[4];
} seen;

static void seen_init(seen *s)
{
    memset(s, 0, sizeof *s);
    s->order_ok = 1;
    s->age_min = 255;
}

static void visit(hp_rec *r, hp_event ev, void *ctx)
{
    seen *s = ctx;
    s->n[ev]++;
    s->last_ccs[ev] = r->ccs;
    unsigned t = (unsigned)(r->base >> 32) - 1, i = (unsigned)((r->base & 0xffffffffu) >> 4);
    if (ev == HP_EV_NEW) {
        hp_rec want = make_rec(t, i);
        if (t >= 8 || i != s->next[t] || r->ccs != want.ccs || r->req != want.req ||
            r->granted != want.granted || r->kind != want.kind || r->how != want.how ||
            r->age != 0)
            s->order_ok = 0;
        if (t < 8) s->next[t] = i + 1;
    } else if (ev == HP_EV_DIED) {
        if (i % 2) s->died_odd++; else s->died_even++;
    } else if (ev == HP_EV_SURVIVED) {
        if (r->age < s->age_min) s->age_min = r->age;
        if (r->age > s->age_max) s->age_max = r->age;
    }
}

static int live_all(uintptr_t base, void *ctx) { (void)base; (void)ctx; return 1; }
static int live_none(uintptr_t base, void *ctx) { (void)base; (void)ctx; return 0; }
/* Keeps records whose index (base bits 4..31) is even. */
static int live_even(uintptr_t base, void *ctx)
{
    (void)ctx;
    return (((base & 0xffffffffu) >> 4) % 2) == 0;
}

static void append_n(hp_tlog *log, unsigned t, unsigned from, unsigned to)
{
    for (unsigned i = from; i < to; i++) {
        hp_rec r = make_rec(t, i);
        cr_assert_eq(hp_shadow_log_append(log, &r), 0);
    }
}

Test(shadow, drain_visits_each_record_once_in_order, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    cr_assert_not_null(log);
    append_n(log, 0, 0, 10);
    cr_assert_eq(hp_shadow_records(), 0);   /* nothing until drained */
    seen s;
    seen_init(&s);
    hp_shadow_drain(visit, &s);
    cr_assert_eq(s.n[HP_EV_NEW], 10);
    cr_assert_eq(s.n[HP_EV_SURVIVED] + s.n[HP_EV_DIED] + s.n[HP_EV_FREED], 0);
    cr_assert(s.order_ok);
    cr_assert_eq(s.next[0], 10);
    cr_assert_eq(hp_shadow_records(), 10);
    /* A second drain has nothing new. */
    hp_shadow_drain(visit, &s);
    cr_assert_eq(s.n[HP_EV_NEW], 10);
    cr_assert_eq(hp_shadow_records(), 10);
    /* NULL visitor is allowed. */
    append_n(log, 0, 10, 15);
    hp_shadow_drain(NULL, NULL);
    cr_assert_eq(hp_shadow_records(), 15);
    /* foreach sees all, changes nothing. */
    seen f;
    seen_init(&f);
    hp_shadow_foreach(visit, &f);
    cr_assert_eq(f.n[HP_EV_SURVIVED], 15);
    cr_assert_eq(f.age_max, 0);
    cr_assert_eq(hp_shadow_records(), 15);
}

Test(shadow, many_chunks, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    cr_assert_not_null(log);
    append_n(log, 0, 0, 5000);
    seen s;
    seen_init(&s);
    hp_shadow_drain(visit, &s);
    cr_assert_eq(s.n[HP_EV_NEW], 5000);
    cr_assert(s.order_ok);
    cr_assert_eq(s.next[0], 5000);
    cr_assert_eq(hp_shadow_records(), 5000);

    /* Drains in the middle of chunks and exactly at chunk boundaries. */
    const unsigned cuts[] = {5000 + 1, 5000 + 1000, 2 * CHUNK_RECS + 3 * CHUNK_RECS,
                             6 * CHUNK_RECS, 6 * CHUNK_RECS + 1, 9 * CHUNK_RECS - 1,
                             9 * CHUNK_RECS, 10 * CHUNK_RECS + 3};
    unsigned at = 5000;
    for (size_t c = 0; c < sizeof cuts / sizeof *cuts; c++) {
        append_n(log, 0, at, cuts[c]);
        at = cuts[c];
        hp_shadow_drain(visit, &s);
        cr_assert_eq(s.n[HP_EV_NEW], at, "after cut %zu: %zu new, want %u", c,
                     s.n[HP_EV_NEW], at);
        cr_assert(s.order_ok, "order broken at cut %zu", c);
    }
    cr_assert_eq(hp_shadow_records(), 10 * CHUNK_RECS + 3);
    cr_assert_geq(hp_shadow_bytes(), (10 * CHUNK_RECS + 3) * hp_shadow_record_bytes());
    cr_assert_eq(hp_shadow_record_bytes(), COMPACT ? 16 : sizeof(hp_rec));
    /* The logs were drained, but a live thread keeps its current chunk. */
    cr_assert_geq(hp_shadow_log_bytes(), sizeof(uint64_t) * HP_CHUNK_WORDS);
}

/* foreach visitor: records must be thread 0's, indexes 0, 1, 2, ... */
typedef struct { unsigned next; int ok; } in_order;

static void check_order(hp_rec *r, hp_event ev, void *ctx)
{
    in_order *o = ctx;
    hp_rec want = make_rec(0, o->next);
    if (ev != HP_EV_SURVIVED || r->base != want.base || r->ccs != want.ccs ||
        r->req != want.req || r->granted != want.granted || r->kind != want.kind ||
        r->how != want.how)
        o->ok = 0;
    o->next++;
}

/* foreach visitor: thread 0's records 0, 2, 4, ..., each at age 2. */
static void check_evens(hp_rec *r, hp_event ev, void *ctx)
{
    in_order *o = ctx;
    hp_rec want = make_rec(0, o->next);
    if (ev != HP_EV_SURVIVED || r->base != want.base || r->ccs != want.ccs ||
        r->req != want.req || r->granted != want.granted || r->kind != want.kind ||
        r->how != want.how || r->age != 2)
        o->ok = 0;
    o->next += 2;
}

Test(shadow, bulk_drain_without_visitor, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    cr_assert_not_null(log);
    /* Partial chunks, exact chunk ends, several chunks at once. */
    const unsigned cuts[] = {1, 2, CHUNK_RECS - 1, CHUNK_RECS, CHUNK_RECS + 5,
                             4 * CHUNK_RECS, 4 * CHUNK_RECS + 1, 30000};
    unsigned at = 0;
    for (size_t c = 0; c < sizeof cuts / sizeof *cuts; c++) {
        append_n(log, 0, at, cuts[c]);
        at = cuts[c];
        hp_shadow_drain(NULL, NULL);
        cr_assert_eq(hp_shadow_records(), at, "after cut %zu: %zu records, want %u", c,
                     hp_shadow_records(), at);
    }
    hp_shadow_drain(NULL, NULL);
    cr_assert_eq(hp_shadow_records(), 30000);
    in_order o = {0, 1};
    hp_shadow_foreach(check_order, &o);
    cr_assert(o.ok, "bulk-drained records out of order or corrupted");
    cr_assert_eq(o.next, 30000);
}

/* Records a short entry cannot hold are logged whole (Note [The log's
 * entries]), also where a chunk has no room left for one; every record
 * comes back as it went in, in order. */
static hp_rec odd_rec(unsigned i)
{
    hp_rec r = make_rec(0, i);
    r.birth = 1000 + i / 600;   /* 256 periods past the first chunk's start, and more */
    switch (i % 9) {
    case 0: r.word = 7 + i; break;                              /* sample='s weight */
    case 1: r.granted = (uint32_t)3 << 20; r.req = r.granted - 5; break;  /* 3 MiB */
    case 2: r.granted = 40; r.req = 33; break;                  /* not granules */
    case 3: r.granted = (uint32_t)1 << 17; r.req = 1; break;    /* slop of 128 KiB */
    case 4: r.req = r.granted + 1; break;                       /* (asked for more) */
    case 5: r.base |= (uintptr_t)1 << 48; break;                /* above 2^48 */
    case 6: r.birth = 999; break;                               /* before the chunk */
    case 7: r.age = 2; r.flags = HP_REC_TALLIED; break;         /* (not a new record's) */
    default: break;                                             /* short */
    }
    return r;
}

static void check_odd(hp_rec *r, hp_event ev, void *ctx)
{
    unsigned *next = ctx;
    cr_assert_eq(ev, HP_EV_NEW);
    hp_rec want = odd_rec(*next);
    cr_assert(memcmp(r, &want, sizeof want) == 0, "record %u changed in the log", *next);
    ++*next;
}

/* The same in the table: the compact table keeps no birth in a short
 * entry (Note [The compact table]), and keeps only records of less than
 * 64 KiB short. */
static void check_odd_table(hp_rec *r, hp_event ev, void *ctx)
{
    (void)ev;
    unsigned *next = ctx;
    hp_rec want = odd_rec(*next);
    if (COMPACT && hp_tab_fits(&want)) want.birth = 0;
    cr_assert(memcmp(r, &want, sizeof want) == 0, "record %u changed in the table", *next);
    ++*next;
}

Test(shadow, long_and_short_entries, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    cr_assert_not_null(log);
    const unsigned total = 5 * CHUNK_RECS;
    for (unsigned i = 0; i < total; i++) {
        hp_rec r = odd_rec(i);
        cr_assert_eq(hp_shadow_log_append(log, &r), 0);
        if (i == 100) {   /* a drain in the middle of a chunk */
            unsigned next = 0;
            hp_shadow_drain(check_odd, &next);
            cr_assert_eq(next, 101);
        }
    }
    unsigned next = 101;
    hp_shadow_drain(check_odd, &next);
    cr_assert_eq(next, total);
    unsigned again = 0;
    hp_shadow_foreach(check_odd_table, &again);
    cr_assert_eq(again, total);
    cr_assert_eq(hp_shadow_records(), total);
}

Test(shadow, sweep_ages_survivors_and_removes_dead, .init = setup)
{
    enum { N = 5000 };
    hp_tlog *log = hp_shadow_log_new();
    append_n(log, 0, 0, N);
    seen s;
    seen_init(&s);
    hp_shadow_drain(visit, &s);
    cr_assert_eq(hp_shadow_records(), N);

    seen s1;
    seen_init(&s1);
    hp_shadow_sweep(live_even, visit, &s1);
    cr_assert_eq(s1.n[HP_EV_SURVIVED], N / 2);
    cr_assert_eq(s1.n[HP_EV_DIED], N / 2);
    cr_assert_eq(s1.died_odd, N / 2);
    cr_assert_eq(s1.died_even, 0);
    cr_assert_eq(s1.n[HP_EV_FREED] + s1.n[HP_EV_NEW], 0);
    cr_assert_eq(s1.age_min, 1);
    cr_assert_eq(s1.age_max, 1);
    cr_assert_eq(hp_shadow_records(), N / 2);

    seen s2;
    seen_init(&s2);
    hp_shadow_sweep(live_even, visit, &s2);
    cr_assert_eq(s2.n[HP_EV_SURVIVED], N / 2);
    cr_assert_eq(s2.n[HP_EV_DIED], 0);   /* the dead were visited once only */
    cr_assert_eq(s2.age_min, 2);
    cr_assert_eq(s2.age_max, 2);
    cr_assert_eq(hp_shadow_records(), N / 2);

    /* The survivors are the even ones, still in order, with their data. */
    in_order o = {0, 1};
    hp_shadow_foreach(check_evens, &o);
    cr_assert(o.ok, "survivors are not records 0, 2, 4, ... intact");
    cr_assert_eq(o.next, N);

    /* New records start at age 0 next to older ones. */
    append_n(log, 1, 0, 2);    /* base index 0 and 1 of "thread" 1 */
    seen s3;
    seen_init(&s3);
    hp_shadow_drain(visit, &s3);
    cr_assert_eq(s3.n[HP_EV_NEW], 2);
    hp_shadow_sweep(live_even, visit, &s3);
    cr_assert_eq(s3.n[HP_EV_SURVIVED], N / 2 + 1);
    cr_assert_eq(s3.n[HP_EV_DIED], 1);
    cr_assert_eq(s3.age_min, 1);
    cr_assert_eq(s3.age_max, 3);

    seen s4;
    seen_init(&s4);
    hp_shadow_sweep(live_none, visit, &s4);
    cr_assert_eq(s4.n[HP_EV_DIED], N / 2 + 1);
    cr_assert_eq(s4.n[HP_EV_SURVIVED], 0);
    cr_assert_eq(hp_shadow_records(), 0);
}

Test(shadow, age_saturates, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    append_n(log, 0, 0, 1);
    hp_shadow_drain(NULL, NULL);
    for (int k = 0; k < HP_AGE_MAX - 1; k++) hp_shadow_sweep(live_all, NULL, NULL);
    seen f;
    seen_init(&f);
    hp_shadow_foreach(visit, &f);
    cr_assert_eq(f.age_max, HP_AGE_MAX - 1);   /* still counting */
    for (int k = 0; k < 300; k++) hp_shadow_sweep(live_all, NULL, NULL);
    seen_init(&f);
    hp_shadow_foreach(visit, &f);
    cr_assert_eq(f.n[HP_EV_SURVIVED], 1);
    cr_assert_eq(f.age_max, HP_AGE_MAX);
}

Test(shadow, free_applies_to_earlier_records_only, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    hp_rec a1 = make_rec(0, 0), b = make_rec(0, 2);
    a1.ccs = 101;
    b.ccs = 300;
    cr_assert_eq(hp_shadow_log_append(log, &a1), 0);
    cr_assert_eq(hp_shadow_log_append(log, &b), 0);
    seen s;
    seen_init(&s);
    /* Not drained yet: note_free drains first, so the free reaches it. */
    hp_shadow_note_free(a1.base, NULL, visit, &s);
    cr_assert_eq(s.n[HP_EV_NEW], 2);
    cr_assert_eq(s.n[HP_EV_FREED], 0);   /* reported at the sweep */
    cr_assert_eq(hp_shadow_records(), 2);
    /* The collector hands the same address out again. */
    hp_rec a2 = a1;
    a2.ccs = 102;
    cr_assert_eq(hp_shadow_log_append(log, &a2), 0);

    seen w;
    seen_init(&w);
    hp_shadow_drain(visit, &w);
    cr_assert_eq(w.n[HP_EV_NEW], 1);
    hp_shadow_sweep(live_all, visit, &w);
    cr_assert_eq(w.n[HP_EV_FREED], 1);
    cr_assert_eq(w.last_ccs[HP_EV_FREED], 101);
    cr_assert_eq(w.n[HP_EV_SURVIVED], 2);
    cr_assert_eq(w.n[HP_EV_DIED], 0);
    cr_assert_eq(hp_shadow_records(), 2);

    /* The free does not linger into the next sweep. */
    seen x;
    seen_init(&x);
    hp_shadow_sweep(live_all, visit, &x);
    cr_assert_eq(x.n[HP_EV_FREED], 0);
    cr_assert_eq(x.n[HP_EV_SURVIVED], 2);
    cr_assert_eq(x.age_min, 2);
    cr_assert_eq(x.age_max, 2);
}

Test(shadow, free_wins_over_liveness, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    append_n(log, 0, 0, 4);   /* indexes 0..3; live_even keeps 0 and 2 */
    hp_shadow_drain(NULL, NULL);
    hp_shadow_note_free(base_of(0, 0), NULL, NULL, NULL);   /* live but freed */
    hp_shadow_note_free(base_of(0, 1), NULL, NULL, NULL);   /* dead and freed */
    seen s;
    seen_init(&s);
    hp_shadow_sweep(live_even, visit, &s);
    cr_assert_eq(s.n[HP_EV_FREED], 2);
    cr_assert_eq(s.n[HP_EV_DIED], 1);
    cr_assert_eq(s.n[HP_EV_SURVIVED], 1);
    cr_assert_eq(s.last_ccs[HP_EV_SURVIVED], 2);
    cr_assert_eq(hp_shadow_records(), 1);
}

Test(shadow, same_base_freed_twice, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    hp_rec r = make_rec(0, 0);
    r.ccs = 1;
    hp_shadow_log_append(log, &r);
    hp_shadow_note_free(r.base, NULL, NULL, NULL);
    r.ccs = 2;
    hp_shadow_log_append(log, &r);
    hp_shadow_note_free(r.base, NULL, NULL, NULL);
    r.ccs = 3;
    hp_shadow_log_append(log, &r);
    seen s;
    seen_init(&s);
    hp_shadow_drain(visit, &s);
    hp_shadow_sweep(live_all, visit, &s);
    cr_assert_eq(s.n[HP_EV_FREED], 2);
    cr_assert_eq(s.n[HP_EV_SURVIVED], 1);
    cr_assert_eq(s.last_ccs[HP_EV_SURVIVED], 3);
    cr_assert_eq(hp_shadow_records(), 1);
}

Test(shadow, many_frees, .init = setup)
{
    enum { N = 20000 };
    hp_tlog *log = hp_shadow_log_new();
    append_n(log, 0, 0, N);
    /* Free every odd record: the set of frees must grow several times. */
    for (unsigned i = 1; i < N; i += 2) hp_shadow_note_free(base_of(0, i), NULL, NULL, NULL);
    /* A free of an address with no record is harmless. */
    hp_shadow_note_free(base_of(5, 5), NULL, NULL, NULL);
    /* The filter in front of the frees' table: never a miss for an
     * address noted, few hits for the others (16 bits an entry). */
    unsigned false_hits = 0;
    for (unsigned i = 0; i < N; i++) {
        if (i & 1) cr_assert(hp_shadow_freed_maybe(base_of(0, i)), "freed %u missed", i);
        else false_hits += (unsigned)hp_shadow_freed_maybe(base_of(0, i));
    }
    cr_assert_lt(false_hits, N / 2 / 20, "%u of %u", false_hits, N / 2);
    seen s;
    seen_init(&s);
    hp_shadow_sweep(live_all, visit, &s);
    cr_assert_eq(s.n[HP_EV_FREED], N / 2);
    cr_assert_eq(s.n[HP_EV_SURVIVED], N / 2);
    cr_assert_eq(s.n[HP_EV_DIED], 0);
    cr_assert_eq(hp_shadow_records(), N / 2);
    seen s2;
    seen_init(&s2);
    hp_shadow_sweep(live_all, visit, &s2);
    cr_assert_eq(s2.n[HP_EV_FREED], 0);
    cr_assert_eq(s2.n[HP_EV_SURVIVED], N / 2);
    /* The sweep cleared the filter with the table. */
    hp_shadow_note_free(base_of(9, 9), NULL, NULL, NULL);
    for (unsigned i = 1; i < N; i += 2) false_hits += (unsigned)hp_shadow_freed_maybe(base_of(0, i));
    cr_assert_lt(false_hits, N / 2 / 10);
}

/* --- threads --- */

enum { NT = 4, PER_THREAD = 5000 };

typedef struct {
    unsigned t, n;
    hp_tlog *log;
    int failures;
} producer;

static void *produce_and_exit(void *arg)
{
    producer *p = arg;
    p->log = hp_shadow_log_new();
    if (!p->log) { p->failures++; return NULL; }
    for (unsigned i = 0; i < p->n; i++) {
        hp_rec r = make_rec(p->t, i);
        if (hp_shadow_log_append(p->log, &r) != 0) p->failures++;
    }
    hp_shadow_log_exit(p->log);
    return NULL;
}

static void run_round(producer *p, unsigned n)
{
    pthread_t th[NT];
    for (unsigned t = 0; t < NT; t++) {
        p[t].t = t;
        p[t].n = n;
        p[t].log = NULL;
        p[t].failures = 0;
        cr_assert_eq(pthread_create(&th[t], NULL, produce_and_exit, &p[t]), 0);
    }
    for (unsigned t = 0; t < NT; t++) {
        pthread_join(th[t], NULL);
        cr_assert_eq(p[t].failures, 0);
        cr_assert_not_null(p[t].log);
    }
}

Test(shadow, exited_threads_drained_and_logs_reused, .init = setup)
{
    producer p[NT];
    run_round(p, PER_THREAD);
    hp_tlog *first[NT];
    for (unsigned t = 0; t < NT; t++) first[t] = p[t].log;
    for (unsigned a = 0; a < NT; a++)
        for (unsigned b = a + 1; b < NT; b++) cr_assert_neq(first[a], first[b]);

    seen s;
    seen_init(&s);
    hp_shadow_drain(visit, &s);
    cr_assert_eq(s.n[HP_EV_NEW], NT * PER_THREAD);
    cr_assert(s.order_ok);
    for (unsigned t = 0; t < NT; t++) cr_assert_eq(s.next[t], PER_THREAD);
    cr_assert_eq(hp_shadow_records(), NT * PER_THREAD);
    hp_shadow_sweep(live_none, NULL, NULL);
    cr_assert_eq(hp_shadow_records(), 0);
    size_t bytes = hp_shadow_bytes(), log_bytes = hp_shadow_log_bytes();
    cr_assert_gt(log_bytes, 0);

    /* New threads get the drained logs back; memory does not grow. */
    for (int round = 1; round <= 20; round++) {
        run_round(p, PER_THREAD);
        for (unsigned t = 0; t < NT; t++) {
            int reused = 0;
            for (unsigned u = 0; u < NT; u++) reused |= p[t].log == first[u];
            cr_assert(reused, "round %d: thread %u got a new log, not a recycled one",
                      round, t);
        }
        seen r;
        seen_init(&r);
        hp_shadow_drain(visit, &r);
        cr_assert_eq(r.n[HP_EV_NEW], NT * PER_THREAD, "round %d", round);
        cr_assert(r.order_ok);
        hp_shadow_sweep(live_none, NULL, NULL);
        cr_assert_eq(hp_shadow_records(), 0);
        cr_assert_eq(hp_shadow_log_bytes(), log_bytes, "round %d: logs grew from %zu to %zu",
                     round, log_bytes, hp_shadow_log_bytes());
        cr_assert_eq(hp_shadow_bytes(), bytes, "round %d: table grew from %zu to %zu",
                     round, bytes, hp_shadow_bytes());
    }
}

Test(shadow, exited_log_not_reused_before_drain, .init = setup)
{
    hp_tlog *a = hp_shadow_log_new();
    append_n(a, 0, 0, 3);
    hp_shadow_log_exit(a);
    hp_tlog *b = hp_shadow_log_new();     /* a still holds undrained records */
    cr_assert_neq(a, b);
    append_n(b, 1, 0, 2);
    seen s;
    seen_init(&s);
    hp_shadow_drain(visit, &s);
    cr_assert_eq(s.n[HP_EV_NEW], 5);
    cr_assert(s.order_ok);
    hp_tlog *c = hp_shadow_log_new();     /* now a is drained and free */
    cr_assert_eq(c, a);
    append_n(c, 2, 0, 4);
    seen_init(&s);
    hp_shadow_drain(visit, &s);
    cr_assert_eq(s.n[HP_EV_NEW], 4);
    cr_assert_eq(s.next[2], 4);
    cr_assert(s.order_ok);
}

/* Producers append while the owner drains and sweeps concurrently. */
typedef struct {
    unsigned t, n;
    atomic_int *done;
    int failures;
} live_producer;

static void *produce_live(void *arg)
{
    live_producer *p = arg;
    hp_tlog *log = hp_shadow_log_new();
    if (!log) { p->failures++; atomic_fetch_add(p->done, 1); return NULL; }
    for (unsigned i = 0; i < p->n; i++) {
        hp_rec r = make_rec(p->t, i);
        if (hp_shadow_log_append(log, &r) != 0) p->failures++;
    }
    hp_shadow_log_exit(log);
    atomic_fetch_add(p->done, 1);
    return NULL;
}

Test(shadow, concurrent_append_and_drain, .init = setup, .timeout = 50)
{
    enum { N = 200000 };
    atomic_int done = 0;
    live_producer p[NT];
    pthread_t th[NT];
    for (unsigned t = 0; t < NT; t++) {
        p[t] = (live_producer){.t = t, .n = N, .done = &done, .failures = 0};
        cr_assert_eq(pthread_create(&th[t], NULL, produce_live, &p[t]), 0);
    }
    seen s;
    seen_init(&s);
    size_t died = 0, sweeps = 0;
    while (atomic_load(&done) < NT) {
        hp_shadow_drain(visit, &s);
        seen d;
        seen_init(&d);
        hp_shadow_sweep(live_none, visit, &d);
        died += d.n[HP_EV_DIED];
        sweeps++;
    }
    for (unsigned t = 0; t < NT; t++) pthread_join(th[t], NULL);
    hp_shadow_drain(visit, &s);
    seen d;
    seen_init(&d);
    hp_shadow_sweep(live_none, visit, &d);
    died += d.n[HP_EV_DIED];
    for (unsigned t = 0; t < NT; t++) {
        cr_assert_eq(p[t].failures, 0);
        cr_assert_eq(s.next[t], N, "thread %u: %zu records drained, want %u", t,
                     s.next[t], N);
    }
    cr_assert(s.order_ok, "records out of order or corrupted");
    cr_assert_eq(s.n[HP_EV_NEW], (size_t)NT * N);
    cr_assert_eq(died, (size_t)NT * N);
    cr_assert_eq(hp_shadow_records(), 0);
    cr_assert_gt(sweeps, 0);
}

/* Threads start and exit (reusing drained logs) while the owner drains.
 * Each short-lived "thread" k of churner t logs PER records; records of one
 * log arrive in order, logs of different threads in any order. */
enum { NC = 3, ITERS = 100000, PER = 3 };

typedef struct {
    unsigned t;
    atomic_int *done;
    int failures;
} churner;

typedef struct {
    unsigned char next[NC][ITERS];   /* next record expected per thread */
    size_t total, bad;
} churn_seen;

static void *churn(void *arg)
{
    churner *c = arg;
    for (unsigned k = 0; k < ITERS; k++) {
        hp_tlog *log = hp_shadow_log_new();
        if (!log) { c->failures++; continue; }
        for (unsigned j = 0; j < PER; j++) {
            hp_rec r = make_rec(c->t, k * PER + j);
            if (hp_shadow_log_append(log, &r) != 0) c->failures++;
        }
        hp_shadow_log_exit(log);
    }
    atomic_fetch_add(c->done, 1);
    return NULL;
}

static void churn_visit(hp_rec *r, hp_event ev, void *ctx)
{
    churn_seen *s = ctx;
    if (ev != HP_EV_NEW) return;
    s->total++;
    unsigned t = (unsigned)(r->base >> 32) - 1, i = (unsigned)((r->base & 0xffffffffu) >> 4);
    hp_rec want = make_rec(t, i);
    if (t >= NC || i >= ITERS * PER || r->ccs != want.ccs || r->req != want.req ||
        r->granted != want.granted) {
        s->bad++;
        return;
    }
    unsigned k = i / PER, j = i % PER;
    if (s->next[t][k] != j) s->bad++;
    s->next[t][k] = (unsigned char)(j + 1);
}

Test(shadow, thread_churn_while_draining, .init = setup, .timeout = 50)
{
    static churn_seen s;
    atomic_int done = 0;
    churner c[NC];
    pthread_t th[NC];
    for (unsigned t = 0; t < NC; t++) {
        c[t] = (churner){.t = t, .done = &done, .failures = 0};
        cr_assert_eq(pthread_create(&th[t], NULL, churn, &c[t]), 0);
    }
    while (atomic_load(&done) < NC) {
        hp_shadow_drain(churn_visit, &s);
        hp_shadow_sweep(live_none, NULL, NULL);
    }
    for (unsigned t = 0; t < NC; t++) pthread_join(th[t], NULL);
    hp_shadow_drain(churn_visit, &s);
    cr_assert_eq(s.bad, 0, "%zu records corrupted or out of order", s.bad);
    for (unsigned t = 0; t < NC; t++) {
        cr_assert_eq(c[t].failures, 0);
        for (unsigned k = 0; k < ITERS; k++)
            cr_assert_eq(s.next[t][k], PER, "thread %u/%u: %u of %u records drained", t, k,
                         s.next[t][k], PER);
    }
    cr_assert_eq(s.total, (size_t)NC * ITERS * PER);
}

/* Many threads start at once: new logs and new chunks are allocated
 * concurrently. Nothing is drained until the end, so every round allocates
 * fresh logs and chunks; every record must come through intact. */
enum { NB = 16, ROUNDS_B = 300, BATCH = 10 };

typedef struct {
    unsigned t;
    pthread_barrier_t *bar;
    int failures;
} starter;

static void *start_and_log(void *arg)
{
    starter *p = arg;
    pthread_barrier_wait(p->bar);
    hp_tlog *log = hp_shadow_log_new();
    if (!log) { p->failures++; return NULL; }
    for (unsigned i = 0; i < BATCH; i++) {
        hp_rec r = make_rec(p->t, i);
        if (hp_shadow_log_append(log, &r) != 0) p->failures++;
    }
    hp_shadow_log_exit(log);
    return NULL;
}

typedef struct {
    unsigned count[ROUNDS_B * NB];
    size_t total, bad;
} batch_seen;

/* Thread t of round k logs as "thread" k * NB + t: base_of() holds it. */
static void batch_visit(hp_rec *r, hp_event ev, void *ctx)
{
    batch_seen *s = ctx;
    if (ev != HP_EV_NEW) return;
    s->total++;
    unsigned t = (unsigned)(r->base >> 32) - 1, i = (unsigned)((r->base & 0xffffffffu) >> 4);
    hp_rec want = make_rec(t, i);
    if (t >= ROUNDS_B * NB || i != s->count[t] || r->ccs != want.ccs ||
        r->req != want.req || r->granted != want.granted || r->kind != want.kind ||
        r->how != want.how) {
        s->bad++;
        return;
    }
    s->count[t]++;
}

Test(shadow, threads_start_at_once, .init = setup, .timeout = 50)
{
    static starter p[ROUNDS_B * NB];
    for (int round = 0; round < ROUNDS_B; round++) {
        pthread_barrier_t bar;
        pthread_barrier_init(&bar, NULL, NB);
        pthread_t th[NB];
        for (unsigned t = 0; t < NB; t++) {
            starter *q = &p[round * NB + t];
            *q = (starter){.t = round * NB + t, .bar = &bar, .failures = 0};
            cr_assert_eq(pthread_create(&th[t], NULL, start_and_log, q), 0);
        }
        for (unsigned t = 0; t < NB; t++) pthread_join(th[t], NULL);
        pthread_barrier_destroy(&bar);
    }
    static batch_seen s;
    hp_shadow_drain(batch_visit, &s);
    cr_assert_eq(s.bad, 0, "%zu records corrupted", s.bad);
    for (unsigned t = 0; t < ROUNDS_B * NB; t++) {
        cr_assert_eq(p[t].failures, 0);
        cr_assert_eq(s.count[t], BATCH, "thread %u: %u of %u records intact", t,
                     s.count[t], BATCH);
    }
    cr_assert_eq(s.total, (size_t)ROUNDS_B * NB * BATCH);
    cr_assert_eq(hp_shadow_records(), (size_t)ROUNDS_B * NB * BATCH);
}

/* Thread starts in two threads at once, back to back: each hp_shadow_log_new
 * allocates a fresh log and a fresh chunk (nothing is drained, so nothing is
 * recycled). Every log must be distinct and usable. The test is repeated in
 * TRIES fresh processes (short runs overlap the two threads best). */
enum { NSTART = 2, STARTS = 400, TRIES = 100 };

typedef struct {
    pthread_barrier_t *bar;
    hp_tlog *logs[STARTS];
    int failures;
} opener;

static void *open_logs(void *arg)
{
    opener *o = arg;
    pthread_barrier_wait(o->bar);
    for (unsigned k = 0; k < STARTS; k++) {
        o->logs[k] = hp_shadow_log_new();
        if (!o->logs[k]) o->failures++;
    }
    return NULL;
}

typedef struct {
    unsigned char got[NSTART * STARTS];
    size_t total, bad;
} marks;

static void mark(hp_rec *r, hp_event ev, void *ctx)
{
    marks *m = ctx;
    m->total++;
    unsigned t = (unsigned)(r->base >> 32) - 1, i = (unsigned)((r->base & 0xffffffffu) >> 4);
    hp_rec want = make_rec(0, i);
    if (ev != HP_EV_SURVIVED || t != 0 || i >= NSTART * STARTS || r->ccs != want.ccs ||
        r->req != want.req || r->granted != want.granted) {
        m->bad++;
        return;
    }
    m->got[i]++;
}

ParameterizedTestParameters(shadow, concurrent_log_creation)
{
    static int tries[TRIES];
    for (int i = 0; i < TRIES; i++) tries[i] = i;
    return cr_make_param_array(int, tries, TRIES);
}

ParameterizedTest(int *try, shadow, concurrent_log_creation, .init = setup, .timeout = 20)
{
    (void)try;
    static opener o[NSTART];
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, NSTART);
    pthread_t th[NSTART];
    for (unsigned t = 0; t < NSTART; t++) {
        o[t].bar = &bar;
        o[t].failures = 0;
        cr_assert_eq(pthread_create(&th[t], NULL, open_logs, &o[t]), 0);
    }
    for (unsigned t = 0; t < NSTART; t++) pthread_join(th[t], NULL);
    pthread_barrier_destroy(&bar);
    /* One record in every log: record t * STARTS + k in log k of opener t. */
    for (unsigned t = 0; t < NSTART; t++) {
        cr_assert_eq(o[t].failures, 0);
        for (unsigned k = 0; k < STARTS; k++) {
            hp_rec r = make_rec(0, t * STARTS + k);
            cr_assert_eq(hp_shadow_log_append(o[t].logs[k], &r), 0);
        }
    }
    hp_shadow_drain(NULL, NULL);
    cr_assert_eq(hp_shadow_records(), (size_t)NSTART * STARTS);
    static marks m;
    hp_shadow_foreach(mark, &m);
    cr_assert_eq(m.bad, 0, "%zu records corrupted", m.bad);
    cr_assert_eq(m.total, (size_t)NSTART * STARTS);
    for (size_t i = 0; i < NSTART * STARTS; i++)
        cr_assert_eq(m.got[i], 1, "record %zu seen %u times", i, m.got[i]);
}

/* The census's way: judge the table in place, then take the logs' records
 * span by span and keep only the survivors (even indexes)
 * at the table's end through hp_shadow_room. */
typedef struct {
    size_t spans, taken, kept;   /* kept: records, or entries if COMPACT */
    size_t recs;                 /* records kept */
    hp_same same;                /* (compact) the last kept record's state */
    size_t next[2];    /* next index expected per thread */
    int order_ok;
} taker;

static void take_evens(hp_rec *recs, size_t n, void *ctx)
{
    taker *k = ctx;
    k->spans++;
    void *room = hp_shadow_room(k->kept + 3 * n);
    hp_rec *table = room;
    uint64_t *ents = room;
    cr_assert_not_null(room);
    for (size_t i = 0; i < n; i++) {
        unsigned t = (unsigned)(recs[i].base >> 32) - 1;
        unsigned idx = (unsigned)((recs[i].base & 0xffffffffu) >> 4);
        if (t > 1 || idx != k->next[t]) k->order_ok = 0;
        else k->next[t] = idx + 1;
        k->taken++;
        if (idx % 2 != 0) continue;
        k->recs++;
        if (COMPACT) k->kept += hp_tab_put(&ents[k->kept], &recs[i], &k->same);
        else table[k->kept++] = recs[i];
    }
}

/* foreach visitor: the bases in table order. */
typedef struct { uintptr_t bases[8192]; size_t n; } base_list;

static void list_base(hp_rec *r, hp_event ev, void *ctx)
{
    (void)ev;
    base_list *l = ctx;
    if (l->n < 8192) l->bases[l->n] = r->base;
    l->n++;
}

Test(shadow, take_pending_hands_each_record_once, .init = setup)
{
    hp_tlog *a = hp_shadow_log_new(), *b = hp_shadow_log_new();
    append_n(a, 0, 0, 3 * CHUNK_RECS + 5);   /* spans over four chunks */
    append_n(b, 1, 0, 7);
    taker k = {0};
    k.order_ok = 1;
    hp_shadow_take_pending(take_evens, &k);
    cr_assert(k.order_ok);
    cr_assert_eq(k.taken, 3 * CHUNK_RECS + 5 + 7);
    cr_assert_geq(k.spans, 5);
    hp_shadow_sweep_done(k.kept, k.recs, &k.same);
    cr_assert_eq(hp_shadow_records(), (3 * CHUNK_RECS + 5 + 1) / 2 + 4);
    /* Taken means drained: nothing is handed twice, and a drain adds nothing. */
    taker again = {0};
    hp_shadow_take_pending(take_evens, &again);
    cr_assert_eq(again.taken, 0);
    hp_shadow_drain(NULL, NULL);
    cr_assert_eq(hp_shadow_records(), (3 * CHUNK_RECS + 5 + 1) / 2 + 4);
    /* Later records come next, after the kept ones, in order. */
    append_n(a, 0, 3 * CHUNK_RECS + 5, 3 * CHUNK_RECS + 9);
    taker more = {0};
    more.order_ok = 1;
    more.next[0] = 3 * CHUNK_RECS + 5;
    more.kept = k.kept;   /* (entries are records here: every record is short) */
    more.recs = hp_shadow_records();
    more.same = k.same;
    hp_shadow_take_pending(take_evens, &more);
    cr_assert(more.order_ok);
    cr_assert_eq(more.taken, 4);
    hp_shadow_sweep_done(more.kept, more.recs, &more.same);
    static base_list l;
    hp_shadow_foreach(list_base, &l);
    size_t len = l.n;
    cr_assert_eq(len, (3 * CHUNK_RECS + 5 + 1) / 2 + 4 + 2);
    cr_assert_eq(hp_shadow_records(), len);
    for (size_t i = 1; i < len; i++)   /* thread 0's evens, then 1's, then 0's again */
        cr_assert((l.bases[i] & 0xffffffffu) % 32 == 0);
    cr_assert_eq(l.bases[len - 1], base_of(0, (3 * CHUNK_RECS + 8) & ~1u));   /* the last even */
}

/* An in-place resize applied at a sweep: the record takes its new sizes.
 * On the compact table a record resized past what a short entry holds is
 * rewritten whole (three entries where it had one), the entries after it
 * moved up first; every record keeps its place in the order and its fields. */
typedef struct { hp_rec recs[200]; unsigned n; int in_order; } rec_list;

static void list_rec(hp_rec *r, hp_event ev, void *ctx)
{
    (void)ev;
    rec_list *l = ctx;
    unsigned i = (unsigned)((r->base & 0xffffffffu) >> 4);
    if (i != l->n) l->in_order = 0;
    cr_assert_lt(l->n, 200);
    l->recs[l->n] = *r;
    l->recs[l->n++].birth = 7;   /* (compared apart from the birth, which compact drops) */
}

Test(shadow, resize_past_a_short_entry, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    append_n(log, 0, 0, 200);
    hp_shadow_drain(NULL, NULL);
    hp_shadow_note_resize(base_of(0, 0), (uint32_t)3 << 20, 5);
    hp_shadow_note_resize(base_of(0, 150), (uint32_t)5 << 20, (uint32_t)5 << 20);
    hp_shadow_note_resize(base_of(0, 199), 64, 60);
    for (int k = 0; k < 3; k++) hp_shadow_sweep(live_all, NULL, NULL);
    cr_assert_eq(hp_shadow_records(), 200);
    static rec_list got;
    got.in_order = 1;
    hp_shadow_foreach(list_rec, &got);
    cr_assert_eq(got.n, 200);
    cr_assert(got.in_order);
    for (unsigned i = 0; i < 200; i++) {
        hp_rec want = make_rec(0, i);
        want.birth = 7;
        want.age = 3;
        if (i == 0) want.granted = (uint32_t)3 << 20, want.req = 5;
        if (i == 150) want.granted = want.req = (uint32_t)5 << 20;
        if (i == 199) want.granted = 64, want.req = 60;
        cr_assert(memcmp(&got.recs[i], &want, sizeof want) == 0, "record %u", i);
    }
}

/* Note [The frees' table]: one address freed, resized and made again,
 * then 3,000 others freed (the table grows past them, its entries moved
 * to the new slots): each record takes the free or the resize noted after
 * it and before the next record of its address, and no other. */
static void ccs_of_survivors(hp_rec *r, hp_event ev, void *ctx)
{
    rec_list *l = ctx;
    if (ev != HP_EV_SURVIVED || r->base != base_of(1, 0)) return;
    cr_assert_lt(l->n, 200);
    l->recs[l->n++] = *r;
}

Test(shadow, frees_and_resizes_of_one_address, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    uintptr_t a = base_of(1, 0);
    hp_rec r = make_rec(1, 0);
    r.granted = 64;
    r.req = 40;
    r.ccs = 1;   /* resized, then freed: freed */
    hp_shadow_log_append(log, &r);
    hp_shadow_note_resize(a, 128, 100);
    hp_shadow_note_free(a, NULL, NULL, NULL);
    r.ccs = 2;   /* made again, resized twice: the last sizes */
    hp_shadow_log_append(log, &r);
    hp_shadow_note_resize(a, 256, 200);
    hp_shadow_note_resize(a, 512, 500);
    append_n(log, 0, 0, 3000);
    for (unsigned i = 0; i < 3000; i++) hp_shadow_note_free(base_of(0, i), NULL, NULL, NULL);
    r.ccs = 3;   /* made after the resizes (at another size): its own sizes */
    r.granted = 32;
    r.req = 30;
    hp_shadow_log_append(log, &r);
    seen s;
    seen_init(&s);
    static rec_list got;
    got.n = 0;
    hp_shadow_drain(NULL, NULL);
    hp_shadow_sweep(live_all, visit, &s);
    cr_assert_eq(s.n[HP_EV_FREED], 3001);
    cr_assert_eq(s.n[HP_EV_SURVIVED], 2);
    hp_shadow_foreach(ccs_of_survivors, &got);
    cr_assert_eq(got.n, 2);
    cr_assert_eq(got.recs[0].ccs, 2);
    cr_assert_eq(got.recs[0].granted, 512);
    cr_assert_eq(got.recs[0].req, 500);
    cr_assert_eq(got.recs[1].ccs, 3);
    cr_assert_eq(got.recs[1].granted, 32);
    cr_assert_eq(got.recs[1].req, 30);
    /* Forgotten at the sweep: the next one frees and resizes nothing. */
    seen_init(&s);
    hp_shadow_sweep(live_all, visit, &s);
    cr_assert_eq(s.n[HP_EV_FREED], 0);
    cr_assert_eq(s.n[HP_EV_SURVIVED], 2);
}

/* Note [Runs of the same]: record i of a run-heavy stream. Runs of 1 to 7
 * records share stack, sizes, kind and how; a long record now and then
 * breaks a run (what follows it must be written short again). */
static hp_rec run_rec(unsigned i)
{
    hp_rec r;
    memset(&r, 0, sizeof r);
    r.base = base_of(0, i);
    unsigned run = i / 5 + (i % 11 == 0);   /* uneven runs */
    r.ccs = 100 + run % 3;
    r.granted = 16 * (run % 4 + 1);
    r.req = r.granted - run % 5;
    r.kind = (uint8_t)(run % 2);
    r.how = (uint8_t)(run % 3);
    r.birth = 40 + i / 3000;
    if (i % 97 == 0) r.granted = (uint32_t)2 << 20, r.req = r.granted;   /* long */
    return r;
}

typedef struct { unsigned next, bad; unsigned (*expect_index)(unsigned); } run_check;

#define RUN_TOTAL (4 * CHUNK_RECS + 77)
static unsigned identity(unsigned i) { return i; }
static unsigned evens(unsigned i) { return 2 * i; }
/* The evens that survived, then RUN_TOTAL, RUN_TOTAL + 1, ... */
static unsigned evens_then_more(unsigned i)
{
    unsigned kept = (RUN_TOTAL + 1) / 2;
    return i < kept ? 2 * i : RUN_TOTAL + (i - kept);
}

/* A record as it should come back: from a log as it went in; from the
 * table (HP_EV_SURVIVED) aged, and without its birth if compact. */
static void check_run(hp_rec *r, hp_event ev, void *ctx)
{
    run_check *c = ctx;
    hp_rec want = run_rec(c->expect_index(c->next));
    if (ev == HP_EV_SURVIVED) {
        if (COMPACT && hp_tab_fits(&want)) want.birth = 0;
        want.age = r->age;
    }
    if (memcmp(r, &want, sizeof want) != 0) c->bad++;
    c->next++;
}

Test(shadow, runs_of_the_same, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    const unsigned total = RUN_TOTAL;
    unsigned at = 0, cuts[] = {3, 1000, CHUNK_RECS + 1, 2 * CHUNK_RECS + 9, total};
    run_check c = {0, 0, identity};
    for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {   /* drains mid-run */
        for (; at < cuts[k]; at++) {
            hp_rec r = run_rec(at);
            cr_assert_eq(hp_shadow_log_append(log, &r), 0);
        }
        /* What a signal would see before the drain: the table, then the log
         * from where the last drain stopped. */
        run_check p = {0, 0, identity};
        hp_shadow_peek(check_run, &p);
        cr_assert_eq(p.next, at);
        cr_assert_eq(p.bad, 0, "peek: %u records changed", p.bad);
        hp_shadow_drain(check_run, &c);
        cr_assert_eq(c.next, at);
        cr_assert_eq(c.bad, 0, "%u records changed in the log", c.bad);
    }
    /* Runs are one word an entry: the stream took fewer chunks than short
     * entries would have. */
    cr_assert_lt(hp_shadow_log_bytes(), sizeof(uint64_t) * HP_CHUNK_WORDS * (total / CHUNK_RECS));
    run_check t = {0, 0, identity};
    hp_shadow_foreach(check_run, &t);
    cr_assert_eq(t.next, total);
    cr_assert_eq(t.bad, 0, "%u records changed in the table", t.bad);
    /* Every odd record dies: each survivor's entry is rewritten against the
     * one now before it. */
    hp_shadow_sweep(live_even, NULL, NULL);
    run_check e = {0, 0, evens};
    hp_shadow_foreach(check_run, &e);
    cr_assert_eq(e.next, (total + 1) / 2);
    cr_assert_eq(e.bad, 0, "%u records changed by the sweep", e.bad);
    cr_assert_eq(hp_shadow_records(), (total + 1) / 2);
    /* Records drained after the sweep follow its last one (which they may
     * repeat), and a sweep that keeps everything in place changes nothing. */
    for (unsigned i = total; i < total + 60; i++) {
        hp_rec r = run_rec(i);
        cr_assert_eq(hp_shadow_log_append(log, &r), 0);
    }
    hp_shadow_drain(NULL, NULL);
    hp_shadow_sweep(live_all, NULL, NULL);
    run_check more = {0, 0, evens_then_more};
    hp_shadow_foreach(check_run, &more);
    cr_assert_eq(more.next, (total + 1) / 2 + 60);
    cr_assert_eq(more.bad, 0, "%u records changed", more.bad);
}

/* Note [Set aside at a traversal]: a drain that keeps only the records its
 * test keeps sets the rest aside; they come back, in order, after the
 * table's records and before the logs', to a peek, a sweep and a drain. */
static int keep_even(uintptr_t base, void *ctx)
{
    (void)ctx;
    return ((base & 0xffffffffu) >> 4) % 2 == 0;
}

typedef struct { unsigned seen[64]; unsigned n; hp_event ev[64]; } order_log;

static void log_order(hp_rec *r, hp_event ev, void *ctx)
{
    order_log *o = ctx;
    cr_assert_lt(o->n, 64);
    hp_rec want = make_rec(0, (unsigned)((r->base & 0xffffffffu) >> 4));
    if (ev == HP_EV_SURVIVED && COMPACT) want.birth = 0;
    want.age = r->age;
    cr_assert(memcmp(r, &want, sizeof want) == 0, "record %u changed",
              (unsigned)((r->base & 0xffffffffu) >> 4));
    o->ev[o->n] = ev;
    o->seen[o->n++] = (unsigned)((r->base & 0xffffffffu) >> 4);
}

Test(shadow, set_aside_at_a_traversal, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    append_n(log, 0, 0, 10);
    cr_assert_eq(hp_shadow_drain_marked(keep_even, NULL), 5);
    cr_assert_eq(hp_shadow_set_aside(), 5);
    cr_assert_eq(hp_shadow_records(), 5);   /* 0 2 4 6 8 */
    append_n(log, 0, 10, 12);
    static order_log p;
    hp_shadow_peek(log_order, &p);          /* table, set aside, log */
    const unsigned peek_want[] = {0, 2, 4, 6, 8, 1, 3, 5, 7, 9, 10, 11};
    cr_assert_eq(p.n, 12);
    for (unsigned i = 0; i < 12; i++) {
        cr_assert_eq(p.seen[i], peek_want[i], "peek %u: %u", i, p.seen[i]);
        cr_assert_eq(p.ev[i], i < 5 ? HP_EV_SURVIVED : HP_EV_NEW);
    }
    /* A second split takes what was set aside into the table first (it is
     * older than any log's record), then splits the log. */
    cr_assert_eq(hp_shadow_drain_marked(keep_even, NULL), 1);   /* 11 */
    cr_assert_eq(hp_shadow_records(), 11);
    hp_shadow_drain(NULL, NULL);            /* (takes what is set aside, in order) */
    cr_assert_eq(hp_shadow_records(), 12);
    hp_shadow_sweep(live_all, NULL, NULL);
    static order_log t;
    hp_shadow_foreach(log_order, &t);
    const unsigned table_want[] = {0, 2, 4, 6, 8, 1, 3, 5, 7, 9, 10, 11};
    cr_assert_eq(t.n, 12);
    for (unsigned i = 0; i < 12; i++) cr_assert_eq(t.seen[i], table_want[i], "table %u", i);
}

/* ---- Note [Runs down a block] (core/hp_shadow_log.h) ---- */

#include "core/hp_sweep.h"
#include "core/hp_ccstats.h"

#define RUN_TOP ((uintptr_t)0x7000000000u)   /* a block's top: objects go down from it */

static hp_rec block_rec(uintptr_t base, uint32_t ccs)
{
    hp_rec r;
    memset(&r, 0, sizeof r);
    r.base = base;
    r.ccs = ccs;
    r.granted = 32;
    r.req = 24;
    r.kind = 1;
    r.how = 0;
    return r;
}

/* The bases a visitor saw, in order. */
typedef struct { uintptr_t b[4096]; size_t n; unsigned age_min, age_max; } bases_seen;

static void see_base(hp_rec *r, hp_event ev, void *ctx)
{
    bases_seen *s = ctx;
    if (ev == HP_EV_DIED || ev == HP_EV_FREED) return;
    if (s->n < 4096) s->b[s->n] = r->base;
    s->n++;
    if (r->granted != 32 || r->req != 24 || r->kind != 1) s->n += 100000;   /* (fields lost) */
    if (r->age < s->age_min || s->n == 1) s->age_min = r->age;
    if (r->age > s->age_max || s->n == 1) s->age_max = r->age;
}

/* Every record of the table, as see_base sees them, into *s (emptied
 * first). */
static void see_table(bases_seen *s)
{
    memset(s, 0, sizeof *s);
    hp_shadow_foreach(see_base, s);
}

/* got's first n bases are want's: in that order on the table of records;
 * as a set on the compact table, whose sweep writes a young survivor of
 * another site than its neighbours after them, grouped by site (core/
 * hp_sweep.c, Note [Young survivors grouped by site]). */
static int cmp_base(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

static void check_bases(const bases_seen *got, const uintptr_t *want, size_t n)
{
    static uintptr_t g[4096], w[4096];
    cr_assert_leq(n, 4096);
    memcpy(g, got->b, n * sizeof *g);
    memcpy(w, want, n * sizeof *w);
    if (COMPACT) {
        qsort(g, n, sizeof *g, cmp_base);
        qsort(w, n, sizeof *w, cmp_base);
    }
    for (size_t k = 0; k < n; k++)
        cr_assert_eq(g[k], w[k], "record %zu is %#lx, want %#lx%s", k, (unsigned long)g[k],
                     (unsigned long)w[k], COMPACT ? " (both sorted)" : "");
}

/* Sweep `spec` again with every object live: `n` records survive, those
 * of `prev` in its order (as now seen, in *again), and the table keeps its
 * length. */
static void sweep_all_live_keeps(hp_sweep_spec *spec, const bases_seen *prev, size_t n,
                                 bases_seen *again)
{
    size_t words = hp_store_.table_len;
    spec->live = live_all;
    hp_sweep_result res = hp_sweep(spec);
    cr_assert_eq(res.live_objects, n);
    see_table(again);
    cr_assert_eq(again->n, n);
    cr_assert_eq(memcmp(again->b, prev->b, n * sizeof *again->b), 0);
    cr_assert_eq(hp_store_.table_len, words);
}

/* `after` (the table as seen after a first sweep) is n records of age 1;
 * sweep again with every object live: the same, one older. */
static void survivors_age_again(hp_sweep_spec *spec, const bases_seen *after, size_t n)
{
    cr_assert_eq(after->age_min, 1);
    cr_assert_eq(after->age_max, 1);
    static bases_seen again;
    sweep_all_live_keeps(spec, after, n, &again);
    cr_assert_eq(again.age_min, 2);
    cr_assert_eq(again.age_max, 2);
}

/* Object i of the test's sequence: 600 objects down from RUN_TOP, one of
 * another site after the 300th (which breaks the run there). */
static uintptr_t seq_base(size_t i) { return RUN_TOP - 32 * (uintptr_t)i; }

/* Kills objects 200..259 and every seventh from the third. */
static int live_seq(uintptr_t base, void *ctx)
{
    (void)ctx;
    size_t i = (size_t)((RUN_TOP - base) / 32);
    return !(i >= 200 && i < 260) && i % 7 != 3;
}

Test(shadow, runs_down_a_block, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    static bases_seen got;
    memset(&got, 0, sizeof got);
    size_t appended = 0;
    /* Drains in the middle of a run (the log's last entry, which grows
     * after the drain), a peek there, and a run longer than one entry
     * holds (256 objects). */
    const size_t stops[] = {1, 100, 101, 230, 300, 301, 599, 600};
    for (size_t s = 0; s < sizeof stops / sizeof *stops; s++) {
        for (; appended < stops[s]; appended++) {
            hp_rec r = block_rec(seq_base(appended), appended == 300 ? 77 : 5);
            cr_assert_eq(hp_shadow_log_append(log, &r), 0);
        }
        if (s == 3) {   /* a peek sees the table and what the logs hold since */
            static bases_seen p;
            memset(&p, 0, sizeof p);
            hp_shadow_peek(see_base, &p);
            cr_assert_eq(p.n, appended, "peek saw %zu of %zu", p.n, appended);
            for (size_t i = 0; i < p.n; i++) cr_assert_eq(p.b[i], seq_base(i));
        }
        hp_shadow_drain(see_base, &got);
        cr_assert_eq(got.n, appended, "drain %zu: %zu of %zu", s, got.n, appended);
    }
    for (size_t i = 0; i < 600; i++)
        cr_assert_eq(got.b[i], seq_base(i), "object %zu handed out as %#lx", i,
                     (unsigned long)got.b[i]);
    cr_assert_eq(hp_shadow_records(), 600);
    /* 600 objects in a few words: every object of the run after a short
     * entry is in a same entry's count. */
    if (COMPACT) cr_assert_lt(hp_store_.table_len, 20, "%zu words", hp_store_.table_len);

    /* The census's sweep, unobserved (runs kept in place where they
     * survive whole, cut where they do not). */
    hp_sweep_spec spec = {0};
    spec.judge = 1;
    spec.live = live_seq;
    spec.census = 1;
    spec.logs = 1;
    hp_sweep_result res = hp_sweep(&spec);
    size_t want = 0;
    for (size_t i = 0; i < 600; i++) want += live_seq(seq_base(i), NULL);
    cr_assert_eq(res.live_objects, want);
    cr_assert_eq(res.live_bytes, 32 * want);
    cr_assert_eq(hp_shadow_records(), want);
    static bases_seen after;
    see_table(&after);
    cr_assert_eq(after.n, want);
    static uintptr_t wanted[600];
    for (size_t i = 0, k = 0; i < 600; i++)
        if (live_seq(seq_base(i), NULL)) wanted[k++] = seq_base(i);
    check_bases(&after, wanted, want);
    /* Everything survives: the same records, older, the table no longer. */
    survivors_age_again(&spec, &after, want);
}

/* A free noted in the table closes its last run: the collector hands the
 * freed address out again, one object below the run's last, and that new
 * object must not join the run (its index would come before the free, and
 * it would be taken as freed). */
Test(shadow, free_closes_the_last_run, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    uintptr_t a = seq_base(10);
    hp_rec old = block_rec(a, 9);   /* an earlier object at a, another site */
    cr_assert_eq(hp_shadow_log_append(log, &old), 0);
    for (size_t i = 0; i < 10; i++) {   /* a run down to just above a */
        hp_rec r = block_rec(seq_base(i), 5);
        cr_assert_eq(hp_shadow_log_append(log, &r), 0);
    }
    hp_shadow_drain(NULL, NULL);
    hp_shadow_note_free(a, NULL, NULL, NULL);
    hp_rec again = block_rec(a, 5);   /* a again, where the run would go on */
    cr_assert_eq(hp_shadow_log_append(log, &again), 0);
    seen s;
    seen_init(&s);
    hp_shadow_drain(NULL, NULL);
    hp_shadow_sweep(live_all, visit, &s);
    cr_assert_eq(s.n[HP_EV_FREED], 1);
    cr_assert_eq(s.last_ccs[HP_EV_FREED], 9);
    cr_assert_eq(s.n[HP_EV_SURVIVED], 11);
    cr_assert_eq(hp_shadow_records(), 11);
}

/* ---- Note [Frees against a log] (core/hp_shadow_internal.h) ---- */

/* What a sweep that takes the logs hears leave: the frees, with the last
 * freed record's stack. */
typedef struct { size_t freed, died; uint32_t freed_ccs[8]; } gone_seen;
static void hear_gone(void *ctx, const hp_rec *r, hp_event ev, size_t idx, int in_table)
{
    (void)idx;
    (void)in_table;
    gone_seen *g = ctx;
    if (ev == HP_EV_FREED) {
        if (g->freed < 8) g->freed_ccs[g->freed] = r->ccs;
        g->freed++;
    } else {
        g->died++;
    }
}

/* A sweep of the table and the logs, everything live but what was freed. */
static hp_sweep_result sweep_logs(gone_seen *g)
{
    static hp_sweep_observer obs;
    obs.ctx = g;
    obs.gone = hear_gone;
    hp_sweep_spec spec = {0};
    spec.judge = 1;
    spec.live = live_all;
    spec.census = 1;
    spec.logs = 1;
    spec.obs = &obs;
    return hp_sweep(&spec);
}

/* Sweep the table and the logs (sweep_logs): `freed` records freed,
 * whose stacks sum to `ccs_sum`, and `live` counted live. */
static hp_sweep_result sweep_expect(size_t freed, uint32_t ccs_sum, uint64_t live)
{
    gone_seen g = {0};
    hp_sweep_result res = sweep_logs(&g);
    cr_assert_eq(g.freed, freed);
    uint32_t sum = 0;
    for (size_t i = 0; i < g.freed && i < 8; i++) sum += g.freed_ccs[i];
    cr_assert_eq(sum, ccs_sum);
    cr_assert_eq(g.died, 0);
    cr_assert_eq(res.live_objects, live);
    return res;
}

static void see_ccs(hp_rec *r, hp_event ev, void *ctx)
{
    (void)ev;
    uint32_t *acc = ctx;
    acc[0]++;
    acc[1] += r->ccs;
}

/* The only log with records is the freeing thread's: nothing is drained,
 * and the free still reaches the record before it and not the one after
 * (the address handed out again), in a peek, a sweep of the logs, and a
 * drain into the table. */
static void free_against_the_log(int drain_first)
{
    hp_tlog *log = hp_shadow_log_new();
    hp_rec a1 = block_rec(RUN_TOP, 101), b = block_rec(RUN_TOP + 4096, 300);
    cr_assert_eq(hp_shadow_log_append(log, &a1), 0);
    cr_assert_eq(hp_shadow_log_append(log, &b), 0);
    seen s;
    seen_init(&s);
    hp_shadow_note_free(a1.base, log, visit, &s);
    cr_assert_eq(s.n[HP_EV_NEW], 0, "drained %zu", s.n[HP_EV_NEW]);
    cr_assert_eq(hp_shadow_records(), 0);
    hp_rec a2 = block_rec(RUN_TOP, 102);
    cr_assert_eq(hp_shadow_log_append(log, &a2), 0);
    uint32_t peeked[2] = {0, 0};
    hp_shadow_peek(see_ccs, peeked);
    cr_assert_eq(peeked[0], 2);
    cr_assert_eq(peeked[1], 300 + 102);
    if (drain_first) {
        hp_shadow_drain(NULL, NULL);
        cr_assert_eq(hp_shadow_records(), 3);
        uint32_t seen_now[2] = {0, 0};
        hp_shadow_peek(see_ccs, seen_now);   /* (the table's view) */
        cr_assert_eq(seen_now[0], 2);
        cr_assert_eq(seen_now[1], 300 + 102);
    }
    hp_sweep_result res = sweep_expect(1, 101, 2);
    cr_assert_eq(res.objects, 3);   /* (the freed one's allocation counted) */
    cr_assert_eq(hp_shadow_records(), 2);
    sweep_expect(0, 0, 2);   /* (the free does not linger) */
}

Test(shadow, free_against_the_log_swept_from_it, .init = setup) { free_against_the_log(0); }
Test(shadow, free_against_the_log_drained_later, .init = setup) { free_against_the_log(1); }

/* The freeing thread ends its own run: the address handed out again one
 * object below the run's last must not join an entry made before the
 * free. */
Test(shadow, free_against_the_log_ends_its_run, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    uintptr_t a = seq_base(10);
    hp_rec old = block_rec(a, 9);
    cr_assert_eq(hp_shadow_log_append(log, &old), 0);
    for (size_t i = 0; i < 10; i++) {
        hp_rec r = block_rec(seq_base(i), 5);
        cr_assert_eq(hp_shadow_log_append(log, &r), 0);
    }
    hp_shadow_note_free(a, log, NULL, NULL);
    cr_assert_eq(hp_shadow_records(), 0);
    hp_rec again = block_rec(a, 5);
    cr_assert_eq(hp_shadow_log_append(log, &again), 0);
    sweep_expect(1, 9, 11);
    cr_assert_eq(hp_shadow_records(), 11);
}

/* A traversal's drain (world stopped, at the mark phase's end) never asks
 * the collector about a record freed against its log: the freed address
 * may no longer start an object, nor its page a block (a large object
 * freed, its pages reused by a block that begins below them), and the
 * collector's mark test reads the block's header (GC_is_marked crashed
 * Crystal and asy under mode retainer). The record goes to the table,
 * where the sweep drops it as freed. */
static int asked_freed;
static int keep_asking(uintptr_t base, void *ctx)
{
    (void)ctx;
    if (base == RUN_TOP) asked_freed++;
    return 0;   /* (nothing marked: the rest is set aside) */
}

Test(shadow, traversal_drain_never_asks_about_a_freed_record, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    hp_rec a1 = block_rec(RUN_TOP, 101), b = block_rec(RUN_TOP + 4096, 300);
    cr_assert_eq(hp_shadow_log_append(log, &a1), 0);
    cr_assert_eq(hp_shadow_log_append(log, &b), 0);
    hp_shadow_note_free(a1.base, log, NULL, NULL);
    cr_assert_eq(hp_shadow_records(), 0);
    size_t aside = hp_shadow_drain_marked(keep_asking, NULL);
    cr_assert_eq(asked_freed, 0, "the collector was asked about a freed object");
    cr_assert_eq(aside, 1);                  /* b, unmarked */
    cr_assert_eq(hp_shadow_records(), 1);    /* a1, freed, in the table */
    sweep_expect(1, 101, 1);   /* (b: the sweep's own test keeps it) */
}

/* Another log holds records (the freed object may be one of them): the
 * free drains, as before. And a record marked freed against its log is
 * still freed when a later free's drain moves it into the table. */
Test(shadow, free_with_another_log_pending_drains, .init = setup)
{
    hp_tlog *mine = hp_shadow_log_new(), *other = hp_shadow_log_new();
    hp_rec a1 = block_rec(RUN_TOP, 101);
    cr_assert_eq(hp_shadow_log_append(mine, &a1), 0);
    hp_shadow_note_free(a1.base, mine, NULL, NULL);   /* (other is empty) */
    cr_assert_eq(hp_shadow_records(), 0);
    hp_rec a2 = block_rec(RUN_TOP, 102), c = block_rec(RUN_TOP + 4096, 300);
    cr_assert_eq(hp_shadow_log_append(mine, &a2), 0);
    cr_assert_eq(hp_shadow_log_append(other, &c), 0);
    hp_shadow_note_free(c.base, mine, NULL, NULL);    /* other's object: a drain */
    cr_assert_eq(hp_shadow_records(), 3);
    sweep_expect(2, 101 + 300, 1);
    cr_assert_eq(hp_shadow_records(), 1);
}

/* A log taken over by a new thread starts past its old positions: a free
 * noted against it before does not reach the new thread's records. */
Test(shadow, free_against_a_log_then_reused, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    hp_rec a1 = block_rec(RUN_TOP, 101);
    cr_assert_eq(hp_shadow_log_append(log, &a1), 0);
    hp_rec pad = block_rec(RUN_TOP + 4096, 7);
    for (int i = 0; i < 20; i++) cr_assert_eq(hp_shadow_log_append(log, &pad), 0);
    hp_shadow_note_free(a1.base, log, NULL, NULL);
    hp_shadow_log_exit(log);
    hp_shadow_drain(NULL, NULL);   /* (the exited thread's log, taken and freed) */
    hp_tlog *again = hp_shadow_log_new();
    cr_assert_eq(again, log, "the log was not reused");
    hp_rec a2 = block_rec(RUN_TOP, 102);
    cr_assert_eq(hp_shadow_log_append(again, &a2), 0);
    sweep_expect(1, 101, 1 + 20);
}

/* Note [Drained records join runs] (core/hp_sweep.c): a program that
 * frees drains the logs at every free, so a site's objects enter the table
 * as the log had them, short entries between other sites' objects. Once
 * the others die, the sweep writes the survivors as runs: the table
 * shrinks to a few words, every record kept in order, and a free noted
 * after that sweep still applies to its own object only. */
static uintptr_t other_base(size_t i) { return RUN_TOP + 4096 - 48 * (uintptr_t)i; }
static int live_run_only(uintptr_t base, void *ctx)
{
    (void)ctx;
    return base <= RUN_TOP;   /* (site 5's objects; site 9's, above, die) */
}

Test(shadow, drained_records_join_runs, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    enum { N = 600 };
    for (size_t i = 0; i < N; i++) {
        hp_rec keep = block_rec(seq_base(i), 5);
        hp_rec other = block_rec(other_base(i % 80), 9);
        other.granted = 48;
        other.req = 40;
        cr_assert_eq(hp_shadow_log_append(log, &keep), 0);
        cr_assert_eq(hp_shadow_log_append(log, &other), 0);
        if (i % 50 == 49) hp_shadow_drain(NULL, NULL);   /* (as a free does) */
    }
    hp_shadow_drain(NULL, NULL);
    cr_assert_eq(hp_shadow_records(), 2 * N);
    if (COMPACT) cr_assert_geq(hp_store_.table_len, 2 * N, "%zu words", hp_store_.table_len);
    hp_sweep_spec spec = {0};
    spec.judge = 1;
    spec.live = live_run_only;
    spec.census = 1;
    spec.logs = 1;
    hp_sweep_result res = hp_sweep(&spec);
    cr_assert_eq(res.live_objects, N);
    cr_assert_eq(res.live_bytes, 32 * N);
    cr_assert_eq(res.objects, 2 * N);
    cr_assert_eq(res.bytes, (32 + 48) * N);
    cr_assert_eq(res.requested, (24 + 40) * N);
    cr_assert_eq(hp_shadow_records(), N);
    /* 600 objects of one site, each 32 bytes below the last: a short
     * entry (2 words), then same entries of up to 256 objects (a word
     * each). */
    if (COMPACT) cr_assert_leq(hp_store_.table_len, 5, "%zu words", hp_store_.table_len);
    static bases_seen after;
    see_table(&after);
    cr_assert_eq(after.n, N);
    for (size_t i = 0; i < N; i++)
        cr_assert_eq(after.b[i], seq_base(i), "survivor %zu is %#lx", i, (unsigned long)after.b[i]);
    /* Every run survives whole: counted, aged, the table no longer. */
    survivors_age_again(&spec, &after, N);
    /* A free noted now applies to the object it names, not to one made
     * after it at the same address. */
    hp_shadow_note_free(seq_base(300), NULL, NULL, NULL);
    hp_rec reborn = block_rec(seq_base(300), 6);
    cr_assert_eq(hp_shadow_log_append(log, &reborn), 0);
    seen s;
    seen_init(&s);
    hp_shadow_drain(NULL, NULL);
    hp_shadow_sweep(live_all, visit, &s);
    cr_assert_eq(s.n[HP_EV_FREED], 1);
    cr_assert_eq(s.last_ccs[HP_EV_FREED], 5);
    cr_assert_eq(s.n[HP_EV_SURVIVED], N);
    cr_assert_eq(hp_shadow_records(), N);
}

/* Note [Young survivors grouped by site] (core/hp_sweep.c): three sites
 * made in turn, each down a block of its own, 40,000 objects each (more
 * than one batch of those put aside, so batches are written in the middle
 * of the table's own pass and of the logs'), every seventh of site 6
 * dead. From the logs, or drained into the table as frees drain: every
 * survivor is there once, the counts exact, and on the compact table each
 * site's survivors are runs again (a few thousand words, not 2 a record).
 * A second sweep keeps them all and the table's length. */
enum { GROUP_N = 40000 };
static uintptr_t site_base(unsigned t, size_t i)
{
    return ((uintptr_t)(t + 1) << 32) + ((uintptr_t)1 << 24) - 32 * (uintptr_t)(i + 1);
}
static int live_group(uintptr_t base, void *ctx)
{
    (void)ctx;
    unsigned t = (unsigned)(base >> 32) - 1;
    size_t i = (size_t)((((uintptr_t)1 << 24) - (base & 0xffffffffu)) / 32) - 1;
    return !(t == 1 && i % 7 == 3);
}
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
typedef struct { uintptr_t *b; size_t n, cap, bad; } all_bases;
static void see_all(hp_rec *r, hp_event ev, void *ctx)
{
    all_bases *a = ctx;
    (void)ev;
    if (r->granted != 32 || r->req != 24 || r->kind != 1 || r->ccs != 5 + (r->base >> 32) - 1)
        a->bad++;
    if (a->n < a->cap) a->b[a->n] = r->base;
    a->n++;
}

static void young_grouped(int drained)
{
    hp_tlog *log = hp_shadow_log_new();
    static hp_ccs_stats stats[16];
    memset(stats, 0, sizeof stats);
    for (size_t i = 0; i < GROUP_N; i++)
        for (unsigned t = 0; t < 3; t++) {
            hp_rec r = block_rec(site_base(t, i), 5 + t);
            cr_assert_eq(hp_shadow_log_append(log, &r), 0);
            if (drained && (i * 3 + t) % 999 == 998) hp_shadow_drain(NULL, NULL);
        }
    if (drained) hp_shadow_drain(NULL, NULL);
    hp_sweep_spec spec = {0};
    spec.judge = 1;
    spec.live = live_group;
    spec.census = 1;
    spec.logs = 1;
    spec.stats = stats;
    hp_sweep_result res = hp_sweep(&spec);
    static uintptr_t want[3 * GROUP_N];
    size_t nwant = 0;
    for (unsigned t = 0; t < 3; t++)
        for (size_t i = 0; i < GROUP_N; i++)
            if (live_group(site_base(t, i), NULL)) want[nwant++] = site_base(t, i);
    cr_assert_eq(res.objects, 3 * GROUP_N);
    cr_assert_eq(res.live_objects, nwant);
    cr_assert_eq(res.live_bytes, 32 * nwant);
    for (unsigned t = 0; t < 3; t++) {
        size_t live = 0;
        for (size_t i = 0; i < GROUP_N; i++) live += live_group(site_base(t, i), NULL);
        cr_assert_eq(stats[5 + t].objects, GROUP_N);
        cr_assert_eq(stats[5 + t].census_objects, live, "site %u: %lu of %zu", t,
                     (unsigned long)stats[5 + t].census_objects, live);
        cr_assert_eq(stats[5 + t].survived, 32 * live);
    }
    cr_assert_eq(hp_shadow_records(), nwant);
    static uintptr_t got[3 * GROUP_N];
    all_bases a = {got, 0, 3 * GROUP_N, 0};
    hp_shadow_foreach(see_all, &a);
    cr_assert_eq(a.bad, 0, "%zu records with their fields lost", a.bad);
    cr_assert_eq(a.n, nwant);
    qsort(got, nwant, sizeof *got, cmp_u64);
    qsort(want, nwant, sizeof *want, cmp_u64);
    for (size_t k = 0; k < nwant; k++)
        cr_assert_eq(got[k], want[k], "survivor %zu is %#lx, want %#lx", k, (unsigned long)got[k],
                     (unsigned long)want[k]);
    /* Sites 5 and 7: runs of 256 (a word each); site 6: a run between
     * each two of its dead (a word each); a few more where batches end. */
    size_t words = hp_store_.table_len;
    if (COMPACT) cr_assert_leq(words, 7000, "%zu words for %zu records", words, nwant);
    spec.live = live_all;
    res = hp_sweep(&spec);
    cr_assert_eq(res.live_objects, nwant);
    cr_assert_eq(hp_shadow_records(), nwant);
    cr_assert_eq(hp_store_.table_len, words);
}

Test(shadow, young_survivors_grouped_by_site_from_logs, .init = setup) { young_grouped(0); }
Test(shadow, young_survivors_grouped_by_site_drained, .init = setup) { young_grouped(1); }

/* Producers grow runs while the consumer drains (the owner's drains run
 * while other threads allocate): every object is handed out once, in each
 * thread's order, whatever the drains cut. Each thread's objects go down
 * blocks of 128, a site of its own per block. */
enum { RUN_THREADS = 3, RUN_OBJECTS = 200000 };

typedef struct { unsigned t; hp_tlog *log; _Atomic int done; int failures; } run_producer;

static uintptr_t run_base(unsigned t, size_t i)
{
    return ((uintptr_t)(t + 1) << 36) + ((uintptr_t)(i / 128) << 12) + 4096 - 32 * (i % 128 + 1);
}

static void *produce_runs(void *arg)
{
    run_producer *p = arg;
    p->log = hp_shadow_log_new();
    if (!p->log) p->failures++;
    for (size_t i = 0; p->log && i < RUN_OBJECTS; i++) {
        hp_rec r = block_rec(run_base(p->t, i), (uint32_t)(p->t * 1000 + i / 128 % 3));
        if (hp_shadow_log_append(p->log, &r) != 0) p->failures++;
    }
    atomic_store(&p->done, 1);
    return NULL;
}

typedef struct { size_t next[RUN_THREADS]; size_t bad; } run_order;

static void check_run_order(hp_rec *r, hp_event ev, void *ctx)
{
    (void)ev;
    run_order *o = ctx;
    unsigned t = (unsigned)(r->base >> 36) - 1;
    if (t >= RUN_THREADS || o->next[t] >= RUN_OBJECTS || r->base != run_base(t, o->next[t]) ||
        r->ccs != t * 1000 + o->next[t] / 128 % 3) {
        o->bad++;
        return;
    }
    o->next[t]++;
}

Test(shadow, runs_grow_while_drained, .init = setup)
{
    static run_producer p[RUN_THREADS];
    pthread_t th[RUN_THREADS];
    static run_order o;
    memset(&o, 0, sizeof o);
    for (unsigned t = 0; t < RUN_THREADS; t++) {
        p[t].t = t;
        atomic_store(&p[t].done, 0);
        cr_assert_eq(pthread_create(&th[t], NULL, produce_runs, &p[t]), 0);
    }
    for (int all = 0; !all;) {
        all = 1;
        for (unsigned t = 0; t < RUN_THREADS; t++) all &= atomic_load(&p[t].done);
        hp_shadow_drain(check_run_order, &o);
    }
    for (unsigned t = 0; t < RUN_THREADS; t++) pthread_join(th[t], NULL);
    hp_shadow_drain(check_run_order, &o);
    cr_assert_eq(o.bad, 0, "%zu objects out of order or wrong", o.bad);
    for (unsigned t = 0; t < RUN_THREADS; t++) {
        cr_assert_eq(p[t].failures, 0);
        cr_assert_eq(o.next[t], RUN_OBJECTS, "thread %u: %zu of %d", t, o.next[t], RUN_OBJECTS);
    }
    cr_assert_eq(hp_shadow_records(), (size_t)RUN_THREADS * RUN_OBJECTS);
}

/* A sweep that cuts every run of a big table (one object dies in the
 * middle of each block) writes more entries than it read: the entries not
 * yet read are moved up with room to spare, a few times in all, not once
 * per cut (which made a 1 GB heap's sweeps quadratic: 14x the plain run). */
static int live_but_middle(uintptr_t base, void *ctx)
{
    (void)ctx;
    return (base & 4095) != 2048;
}

Test(shadow, cutting_every_run_moves_the_table_rarely, .init = setup)
{
    enum { BLOCKS = 20000 };
    hp_tlog *log = hp_shadow_log_new();
    for (size_t b = 0; b < BLOCKS; b++)
        for (size_t i = 0; i < 128; i++) {
            hp_rec r = block_rec(RUN_TOP + (b << 12) + 4096 - 32 * (i + 1), 5);
            cr_assert_eq(hp_shadow_log_append(log, &r), 0);
        }
    hp_shadow_drain(NULL, NULL);
    hp_sweep_spec spec = {0};
    spec.judge = 1;
    spec.live = live_all;
    hp_sweep(&spec);   /* (the runs now in the table) */
    spec.live = live_but_middle;
    hp_sweep_result res = hp_sweep(&spec);
    cr_assert_eq(hp_shadow_records(), (size_t)BLOCKS * 127);
    if (COMPACT) cr_assert_leq(res.moves, 64, "%lu moves", (unsigned long)res.moves);
    static bases_seen all;
    see_table(&all);
    cr_assert_eq(all.n, (size_t)BLOCKS * 127);
    for (size_t k = 0; k < 4096 && k < all.n; k++) {   /* the first blocks, in order */
        size_t b = k / 127, i = k % 127;
        size_t slot = i < 63 ? i : i + 1;   /* (object 63, at offset 2048, died) */
        cr_assert_eq(all.b[k], RUN_TOP + (b << 12) + 4096 - 32 * (slot + 1));
    }
}

/* Note [Recent sites]: sites allocating in turn. Three sites (each down
 * its own block), or as many as there are slots, take a word an object
 * after their first short entries, wherever the drains cut; one site more
 * than the slots, in turn, overflows them: every entry short; every object
 * is handed out once, in order, with its own stack and sizes. */
static hp_rec site_rec(unsigned site, size_t i)
{
    hp_rec r = block_rec(RUN_TOP + ((uintptr_t)site << 24) - 32 * (uintptr_t)i, 100 + site);
    r.granted = 32 + 16 * site;   /* (each its own size: no run across sites) */
    r.req = r.granted - 8;
    r.base = RUN_TOP + ((uintptr_t)site << 24) - (uintptr_t)r.granted * i;
    return r;
}

typedef struct { size_t n, bad; unsigned sites; } site_check;

static void check_site(hp_rec *r, hp_event ev, void *ctx)
{
    (void)ev;
    site_check *c = ctx;
    hp_rec want = site_rec((unsigned)(c->n % c->sites), c->n / c->sites);
    if (r->base != want.base || r->ccs != want.ccs || r->granted != want.granted ||
        r->req != want.req || r->kind != want.kind)
        c->bad++;
    c->n++;
}

static void sites_in_turn(unsigned sites, size_t per_site, size_t min_words, size_t max_words)
{
    hp_tlog *log = hp_shadow_log_new();
    site_check c = {0, 0, sites};
    size_t words = 0;
    for (size_t i = 0; i < per_site; i++)
        for (unsigned s = 0; s < sites; s++) {
            hp_rec r = site_rec(s, i);
            hp_chunk *t0 = log->tail;
            uint32_t before = atomic_load(&t0->count);
            cr_assert_eq(hp_shadow_log_append(log, &r), 0);
            /* (a new chunk: the words written there) */
            words += log->tail == t0 ? atomic_load(&t0->count) - before
                                     : atomic_load(&log->tail->count);
            if ((i * sites + s) % 997 == 0) hp_shadow_drain(check_site, &c);
        }
    hp_shadow_drain(check_site, &c);
    cr_assert_eq(c.bad, 0, "%zu objects decoded wrong", c.bad);
    cr_assert_eq(c.n, (size_t)sites * per_site);
    cr_assert_leq(words, max_words, "%u sites: %zu words for %zu objects", sites, words,
                  (size_t)sites * per_site);
    cr_assert_geq(words, min_words, "%u sites: %zu words for %zu objects", sites, words,
                  (size_t)sites * per_site);
}

Test(shadow, recent_sites_three_in_turn, .init = setup)
{
    sites_in_turn(3, 1000, 3000, 3 * 2 + 2997 + 8);
}

/* Sixteen slots (ECL makes its objects from nine to fifteen sites in
 * turn); each chunk's start empties them: a few short entries more. */
Test(shadow, recent_sites_sixteen_in_turn, .init = setup)
{
    sites_in_turn(16, 400, 16 * 400, 16 * 2 + 16 * 400 + 4 * 16);
}

Test(shadow, recent_sites_seventeen_in_turn, .init = setup)
{
    sites_in_turn(17, 400, 17 * 400 * 2, 17 * 400 * 2);
}

/* Note [Runs judged whole] (core/hp_sweep.c): runs in the table are
 * judged a run at a time. Blocks of 128 objects from one site, drained
 * into the table (age 0: the first sweep tallies them to their stack),
 * age by one at each sweep to HP_AGE_MAX; a sweep where all survive then
 * leaves the table as it was; then deaths in some runs (block 0 keeps every other object, so
 * its one run becomes 64 entries and the table is moved up, and every
 * later run is read ahead of where it is written), a death in the middle
 * of another run, the first object of another, and a free noted in a
 * fourth: the census and the table hold exactly the survivors, in order,
 * still of age HP_AGE_MAX. */
enum { OLD_BLOCKS = 32, OLD_PER = 128 };
static uintptr_t old_base(size_t b, size_t i) { return RUN_TOP + (b << 12) + 4096 - 32 * (i + 1); }

static int live_old(uintptr_t base, void *ctx)
{
    (void)ctx;
    size_t b = (size_t)((base - RUN_TOP) >> 12), i = (size_t)((RUN_TOP + (b << 12) + 4096 - base) / 32) - 1;
    if (b == 0) return i % 2 == 0;
    if (b == 7) return i != 50;
    if (b == 20) return i != 0;
    return 1;
}

static size_t old_survivors(uintptr_t *out, int all)
{
    size_t n = 0;
    for (size_t b = 0; b < OLD_BLOCKS; b++)
        for (size_t i = 0; i < OLD_PER; i++)
            if (all || (live_old(old_base(b, i), NULL) && !(b == 30 && i == 3)))
                out[n++] = old_base(b, i);
    return n;
}

Test(shadow, old_runs_judged_whole, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    for (size_t b = 0; b < OLD_BLOCKS; b++)
        for (size_t i = 0; i < OLD_PER; i++) {
            hp_rec r = block_rec(old_base(b, i), 5);
            cr_assert_eq(hp_shadow_log_append(log, &r), 0);
        }
    hp_shadow_drain(NULL, NULL);
    static hp_ccs_stats stats[8];
    memset(stats, 0, sizeof stats);
    hp_sweep_spec spec = {0};
    spec.judge = 1;
    spec.census = 1;
    spec.live = live_all;
    spec.stats = stats;
    const uint64_t all = (uint64_t)OLD_BLOCKS * OLD_PER;
    for (unsigned k = 1; k <= HP_AGE_MAX; k++) {
        stats[5].census = stats[5].census_objects = 0;
        hp_sweep_result r = hp_sweep(&spec);
        cr_assert_eq(r.objects, k == 1 ? all : 0, "sweep %u tallied %lu", k, (unsigned long)r.objects);
        cr_assert_eq(r.survived, k == 1 ? 32 * all : 0);
        cr_assert_eq(r.live_objects, all);
        cr_assert_eq(stats[5].objects, all);
        cr_assert_eq(stats[5].bytes, 32 * all);
        cr_assert_eq(stats[5].requested, 24 * all);
        cr_assert_eq(stats[5].survived, 32 * all);
        cr_assert_eq(stats[5].census_objects, all);
        static bases_seen aged;
        see_table(&aged);
        cr_assert_eq(aged.n, all);
        cr_assert_eq(aged.age_min, k);
        cr_assert_eq(aged.age_max, k);
    }
    spec.stats = NULL;
    size_t words = hp_store_.table_len;
    hp_sweep_result res = hp_sweep(&spec);
    cr_assert_eq(res.live_objects, (uint64_t)OLD_BLOCKS * OLD_PER);
    cr_assert_eq(res.live_bytes, (uint64_t)32 * OLD_BLOCKS * OLD_PER);
    cr_assert_eq(hp_store_.table_len, words);
    if (COMPACT) cr_assert_leq(words, 2 * OLD_BLOCKS * 3, "%zu words", words);

    hp_shadow_note_free(old_base(30, 3), NULL, NULL, NULL);
    spec.live = live_old;
    res = hp_sweep(&spec);
    static uintptr_t want[OLD_BLOCKS * OLD_PER];
    size_t n = old_survivors(want, 0);
    cr_assert_eq(n, OLD_BLOCKS * OLD_PER - 64 - 1 - 1 - 1);
    cr_assert_eq(res.live_objects, n);
    cr_assert_eq(res.live_bytes, 32 * n);
    if (COMPACT) cr_assert_gt(res.moves, 0, "block 0's cut run did not move the table");
    cr_assert_eq(hp_shadow_records(), n);
    static bases_seen got;
    see_table(&got);
    cr_assert_eq(got.n, n);
    for (size_t k = 0; k < n; k++)
        cr_assert_eq(got.b[k], want[k], "survivor %zu is %#lx, want %#lx", k,
                     (unsigned long)got.b[k], (unsigned long)want[k]);
    cr_assert_eq(got.age_min, HP_AGE_MAX);
    cr_assert_eq(got.age_max, HP_AGE_MAX);

    /* All survive again: the same records, the table as it was. */
    static bases_seen again;
    sweep_all_live_keeps(&spec, &got, n, &again);
}

/* A run read while a survivor before it is written over its word: one
 * object of another site, then five of one site down a block (a short
 * entry, then a same entry for a run of four). The first two die: the
 * third is then written as a short entry behind the reading, and the
 * fourth as a same entry where the run's word was. The fifth, the run's
 * last, must still be read from the word the reader kept, not from what
 * the table now holds there. */
static int live_but_first_two(uintptr_t base, void *ctx)
{
    (void)ctx;
    return base != RUN_TOP + 4096 - 32 && base != RUN_TOP + 4096 - 64;
}

Test(shadow, run_written_over_while_read, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    hp_rec a = block_rec(RUN_TOP + 8192 + 4096 - 32, 77);
    cr_assert_eq(hp_shadow_log_append(log, &a), 0);
    for (size_t i = 0; i < 5; i++) {
        hp_rec r = block_rec(RUN_TOP + 4096 - 32 * (i + 1), 5);
        cr_assert_eq(hp_shadow_log_append(log, &r), 0);
    }
    hp_shadow_drain(NULL, NULL);
    hp_sweep_spec spec = {0};
    spec.judge = 1;
    spec.census = 1;
    spec.live = live_all;
    hp_sweep(&spec);
    spec.live = live_but_first_two;
    hp_sweep_result res = hp_sweep(&spec);
    cr_assert_eq(res.live_objects, 4);
    static bases_seen got;
    see_table(&got);
    cr_assert_eq(got.n, 4);
    uintptr_t want[4] = {a.base, RUN_TOP + 4096 - 96, RUN_TOP + 4096 - 128,
                         RUN_TOP + 4096 - 160};
    check_bases(&got, want, 4);
}

/* Note [Young runs] (core/hp_sweep.c): a sweep by stack takes a log's run
 * whole. Runs of one site down two blocks (longer than a log's same entry
 * holds), an object of another site between them, a sweep while the last
 * run is still growing (the next takes the rest of it, from where the
 * first stopped), and, after a free, a run through the freed address (the
 * frees' filter names it: that run goes one by one, and the new object
 * there is not taken as freed). Every third object dies. The stacks'
 * tallies, the census and the table are exact. */
static uintptr_t young_base(size_t b, size_t i) { return RUN_TOP + (b << 12) + 4096 - 32 * (i + 1); }
static int live_young(uintptr_t base, void *ctx)
{
    (void)ctx;
    return ((base >> 5) % 3) != 0;
}

Test(shadow, young_runs_judged_whole, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    static hp_ccs_stats stats[128];
    memset(stats, 0, sizeof stats);
    hp_sweep_spec spec = {0};
    spec.judge = 1;
    spec.census = 1;
    spec.logs = 1;
    spec.stats = stats;
    spec.live = live_young;
    static uintptr_t want[1024];
    size_t nwant = 0, appended = 0, other = 0;
    uint64_t live5 = 0;
    /* 100 down block 1, one of site 77, 30 down block 2 */
    for (size_t i = 0; i < 100; i++, appended++) {
        hp_rec r = block_rec(young_base(1, i), 5);
        cr_assert_eq(hp_shadow_log_append(log, &r), 0);
    }
    hp_rec o = block_rec(young_base(5, 0), 77);
    cr_assert_eq(hp_shadow_log_append(log, &o), 0);
    other++;
    for (size_t i = 0; i < 30; i++, appended++) {
        hp_rec r = block_rec(young_base(2, i), 5);
        cr_assert_eq(hp_shadow_log_append(log, &r), 0);
    }
    hp_sweep_result res = hp_sweep(&spec);
    for (size_t i = 0; i < 100; i++) if (live_young(young_base(1, i), NULL)) want[nwant++] = young_base(1, i), live5++;
    if (live_young(o.base, NULL)) want[nwant++] = o.base;
    for (size_t i = 0; i < 30; i++) if (live_young(young_base(2, i), NULL)) want[nwant++] = young_base(2, i), live5++;
    cr_assert_eq(res.objects, appended + other);
    cr_assert_eq(res.live_objects, nwant);
    cr_assert_eq(stats[5].objects, appended);
    cr_assert_eq(stats[5].bytes, 32 * appended);
    cr_assert_eq(stats[5].requested, 24 * appended);
    cr_assert_eq(stats[5].survived, 32 * live5);
    cr_assert_eq(stats[5].census, 32 * live5);
    cr_assert_eq(stats[5].census_objects, live5);
    cr_assert_eq(stats[77].objects, 1);

    /* The run down block 2 goes on in the same log entry. */
    stats[5].census = stats[5].census_objects = 0;
    uint64_t kept5 = live5;   /* (the table's: alive at every sweep now) */
    for (size_t i = 30; i < 70; i++, appended++) {
        hp_rec r = block_rec(young_base(2, i), 5);
        cr_assert_eq(hp_shadow_log_append(log, &r), 0);
        if (live_young(young_base(2, i), NULL)) want[nwant++] = young_base(2, i), live5++;
    }
    res = hp_sweep(&spec);
    cr_assert_eq(res.live_objects, nwant);
    cr_assert_eq(stats[5].objects, appended);
    cr_assert_eq(stats[5].census_objects, live5);
    cr_assert_eq(stats[5].survived, 32 * live5);
    (void)kept5;

    /* A free, then a run through the freed address (block 3's object 10,
     * freed, made again with its neighbours). */
    hp_shadow_note_free(young_base(3, 10), NULL, NULL, NULL);
    for (size_t i = 0; i < 40; i++, appended++) {
        hp_rec r = block_rec(young_base(3, i), 5);
        cr_assert_eq(hp_shadow_log_append(log, &r), 0);
        if (live_young(young_base(3, i), NULL)) want[nwant++] = young_base(3, i), live5++;
    }
    cr_assert(live_young(young_base(3, 10), NULL), "(the test needs the freed address alive)");
    stats[5].census = stats[5].census_objects = 0;
    res = hp_sweep(&spec);
    cr_assert_eq(res.live_objects, nwant);
    cr_assert_eq(stats[5].objects, appended);
    cr_assert_eq(stats[5].census_objects, live5);
    cr_assert_eq(stats[5].survived, 32 * live5);

    static bases_seen got;
    see_table(&got);
    cr_assert_eq(got.n, nwant);
    check_bases(&got, want, nwant);
}

/* An observer that hears survivors in runs and leaves young deaths quiet
 * (mode ldv's: core/hp_sweep.c, Note [Survivors in runs]): every record is
 * still reported once, in index order, as gone or moved, but for the
 * quiet deaths from the logs; runs are as long as the survivors in a row. */
typedef struct {
    size_t next;          /* the index expected next */
    int order_ok;
    size_t moved, runs, gone, gone_in_table;
    size_t to_next;       /* the slot expected next */
} heard;
static heard hd;

static void heard_gone(void *ctx, const hp_rec *r, hp_event ev, size_t idx, int in_table)
{
    (void)ctx;
    (void)ev;
    (void)r;
    if (idx < hd.next) hd.order_ok = 0;
    hd.next = idx + 1;
    hd.gone++;
    hd.gone_in_table += in_table != 0;
}

static void heard_moved(size_t idx, size_t to)
{
    (void)idx;
    (void)to;
    hd.order_ok = 0;   /* (moved_run is set: never called for records) */
}

static void heard_run(size_t idx, size_t to, size_t k)
{
    if (idx < hd.next || to != hd.to_next || k == 0) hd.order_ok = 0;
    hd.next = idx + k;
    hd.to_next = to + k;
    hd.moved += k;
    hd.runs++;
}

/* One sweep of `spec` with `live`, heard afresh into hd (order checked). */
static void sweep_heard(hp_sweep_spec *spec, hp_live_fn live)
{
    memset(&hd, 0, sizeof hd);
    hd.order_ok = 1;
    spec->live = live;
    hp_sweep(spec);
    cr_assert(hd.order_ok);
}

Test(shadow, survivors_in_runs_and_quiet_young_deaths, .init = setup)
{
    if (COMPACT) return;   /* (observers of moves run on a table of records, as mode ldv's) */
    hp_tlog *log = hp_shadow_log_new();
    /* 40 records of "thread" 0 (birth 0) and 40 of thread 3 (birth 3). */
    append_n(log, 0, 0, 40);
    append_n(log, 3, 0, 40);
    hp_sweep_observer obs = {0};
    obs.gone = heard_gone;
    obs.moved = heard_moved;
    obs.moved_run = heard_run;
    obs.quiet_young = 1;
    obs.quiet_birth = 3;   /* thread 3's deaths from the logs are quiet */
    hp_sweep_spec spec = {0};
    spec.judge = 1;
    spec.logs = 1;
    spec.obs = &obs;
    sweep_heard(&spec, live_even);
    cr_assert_eq(hd.moved, 40);             /* the even ones of both */
    cr_assert_eq(hd.gone, 20);              /* thread 0's odd ones; thread 3's quiet */
    cr_assert_eq(hd.gone_in_table, 0);
    cr_assert_eq(hd.runs, 40);              /* (no two survivors in a row) */

    /* In the table, every death is heard (the index must drop it); the
     * survivors before the first death are one run, and so on. */
    sweep_heard(&spec, live_all);
    cr_assert_eq(hd.moved, 40);
    cr_assert_eq(hd.runs, 1);
    cr_assert_eq(hd.gone, 0);
    sweep_heard(&spec, live_none);
    cr_assert_eq(hd.gone, 40);
    cr_assert_eq(hd.gone_in_table, 40);
    cr_assert_eq(hd.moved, 0);
}
