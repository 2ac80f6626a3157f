/* Unit tests for the compact table with side entries (core/hp_shadow.h,
 * Note [Side entries]), mode ldv's store: each record's birth, word and
 * unwatched flag kept beside the compact table by ordinal. Checked: the
 * records handed out (sweep observers, hp_shadow_foreach,
 * hp_shadow_foreach_ord from any ordinal, mid-run included) carry their
 * entries; an entry changed in place (as the fault handlers change the
 * word) follows its record through sweeps that drop others, through
 * drains and through records from the logs; the observers hear ordinals,
 * in order, as ldv's address index needs (ldv/hp_ldv_prot.c, Note [Kept
 * bits]); the OLD bit follows the age. (Criterion runs each test in its
 * own process: every test starts with an empty table.) */
#include <criterion/criterion.h>

#include <stdint.h>
#include <string.h>

#include "core/hp_shadow.h"
#include "core/hp_shadow_internal.h"
#include "core/hp_sweep.h"

#define CHUNK_RECS (HP_CHUNK_WORDS / 2)
#define TOTAL (3 * CHUNK_RECS + 77)

static void setup(void)
{
    cr_assert_eq(hp_shadow_init(), 0);
    hp_shadow_set_compact(HP_COMPACT_SIDE);
}

/* Record i: runs of 1 to 7 of one site, adjacent (down a block, Note
 * [Runs down a block]) so that the table holds runs; a long one now and
 * then; births that grow. */
static hp_rec rec(unsigned i)
{
    hp_rec r;
    memset(&r, 0, sizeof r);
    unsigned run = i / 5 + (i % 11 == 0);
    r.ccs = 100 + run % 3;
    r.granted = 64;   /* (adjacent objects: each `granted` below the last) */
    r.req = r.granted - run % 5;
    r.kind = (uint8_t)(run % 2);
    r.how = (uint8_t)(run % 3);
    r.base = ((uintptr_t)1 << 40) - (uintptr_t)i * 64;
    r.birth = 7 + i / 1000;
    if (i % 97 == 0) r.granted = (uint32_t)2 << 20, r.req = r.granted;   /* long */
    return r;
}

static unsigned index_of(const hp_rec *r)
{
    return (unsigned)((((uintptr_t)1 << 40) - r->base) / 64);
}

/* The word each record is given once in the table. */
static uint32_t word_of(unsigned i) { return 0x80000000u | (i * 7 + 3); }

static void append(hp_tlog *log, unsigned from, unsigned to)
{
    for (unsigned i = from; i < to; i++) {
        hp_rec r = rec(i);
        cr_assert_eq(hp_shadow_log_append(log, &r), 0);
    }
}

typedef struct {
    size_t next;          /* the ordinal expected next */
    unsigned bad, n;
    int marked;           /* words were set: check them */
    unsigned ages_min;
} walk;

static void check(hp_rec *r, size_t ord, void *ctx)
{
    walk *w = ctx;
    unsigned i = index_of(r);
    hp_rec want = rec(i);
    if (ord != w->next) w->bad++;
    w->next = ord + 1;
    w->n++;
    if (r->ccs != want.ccs || r->granted != want.granted || r->req != want.req ||
        r->kind != want.kind || r->how != want.how || r->birth != want.birth)
        w->bad++;
    if (w->marked) {
        if (r->word != word_of(i)) w->bad++;
        if (!!(r->flags & HP_REC_UNWATCHED) != (i % 3 == 0)) w->bad++;
    } else if (r->word != 0 || (r->flags & HP_REC_UNWATCHED)) {
        w->bad++;
    }
    if (r->age < w->ages_min) w->ages_min = r->age;
}

/* Give each record in the table its word (and every third the unwatched
 * flag), through its side entry: what ldv's fault handlers do. */
static void set_word(hp_rec *r, size_t ord, void *ctx)
{
    (void)ctx;
    size_t n;
    hp_rec_side *s = hp_shadow_sides(&n);
    cr_assert_lt(ord, n);
    unsigned i = index_of(r);
    s[ord].word = word_of(i);
    if (i % 3 == 0) s[ord].bits |= HP_SIDE_UNWATCHED;
}

static int live_even(uintptr_t base, void *ctx)
{
    (void)ctx;
    hp_rec r = {0};
    r.base = base;
    return index_of(&r) % 2 == 0;
}

static int live_all(uintptr_t base, void *ctx) { (void)base; (void)ctx; return 1; }

/* Sweep observers: the ordinals heard, in order, and the records. */
typedef struct {
    size_t next_from, next_to;
    unsigned bad, moved, gone;
    int marked;
} heard;
static heard hd;

static void heard_gone(void *ctx, const hp_rec *r, hp_event ev, size_t idx, int in_table)
{
    (void)ctx;
    (void)ev;
    (void)in_table;
    if (idx < hd.next_from) hd.bad++;
    hd.next_from = idx + 1;
    if (index_of(r) % 2 == 0) hd.bad++;   /* (live_even: only odd ones die) */
    if (hd.marked && r->word != word_of(index_of(r))) hd.bad++;
    hd.gone++;
}

static void heard_moved(size_t idx, size_t to)
{
    if (idx < hd.next_from || to != hd.next_to) hd.bad++;
    hd.next_from = idx + 1;
    hd.next_to = to + 1;
    hd.moved++;
}

static void sweep(hp_live_fn live, int marked, int logs)
{
    memset(&hd, 0, sizeof hd);
    hd.marked = marked;
    hp_sweep_observer obs = {0};
    obs.gone = heard_gone;
    obs.moved = heard_moved;
    hp_sweep_spec spec = {0};
    spec.judge = 1;
    spec.live = live;
    spec.logs = logs;
    spec.obs = &obs;
    hp_sweep(&spec);
    cr_assert_eq(hd.bad, 0, "%u observer reports out of order or wrong", hd.bad);
}

Test(shadow_side, entries_follow_their_records, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    append(log, 0, TOTAL);
    hp_shadow_drain(NULL, NULL);
    cr_assert_eq(hp_shadow_records(), TOTAL);
    cr_assert_eq(hp_shadow_record_bytes(), 24);
    /* Drained: births from the logs, words 0. */
    walk w = {.ages_min = 255};
    hp_shadow_foreach_ord(0, check, &w);
    cr_assert_eq(w.n, TOTAL);
    cr_assert_eq(w.bad, 0, "%u records wrong after the drain", w.bad);
    /* The runs are in the table as runs (a short entry and a same entry
     * for up to 7 records): fewer words than records, where short entries
     * alone take two a record. */
    cr_assert_lt(hp_store_.table_len, TOTAL, "%zu words", hp_store_.table_len);

    hp_shadow_foreach_ord(0, set_word, NULL);
    walk m = {.marked = 1, .ages_min = 255};
    hp_shadow_foreach_ord(0, check, &m);
    cr_assert_eq(m.bad, 0, "%u records without their words", m.bad);

    /* Every odd record dies: the observers hear ordinals; the survivors
     * keep their words, now at their new ordinals. */
    sweep(live_even, 1, 0);
    cr_assert_eq(hd.moved, (TOTAL + 1) / 2);
    cr_assert_eq(hd.gone, TOTAL / 2);
    cr_assert_eq(hp_shadow_records(), (TOTAL + 1) / 2);
    walk e = {.marked = 1, .ages_min = 255};
    hp_shadow_foreach_ord(0, check, &e);
    cr_assert_eq(e.n, (TOTAL + 1) / 2);
    cr_assert_eq(e.bad, 0, "%u records changed by the sweep", e.bad);
    cr_assert_eq(e.ages_min, 1);

    /* From any ordinal, mid-run included, the same records. */
    size_t froms[] = {1, 2, 3, 36, 37, 500, 1001, (TOTAL + 1) / 2 - 1, (TOTAL + 1) / 2};
    for (size_t k = 0; k < sizeof froms / sizeof *froms; k++) {
        walk f = {.next = froms[k], .marked = 1, .ages_min = 255};
        hp_shadow_foreach_ord(froms[k], check, &f);
        cr_assert_eq(f.n, (TOTAL + 1) / 2 - froms[k], "from %zu", froms[k]);
        cr_assert_eq(f.bad, 0, "from %zu: %u wrong", froms[k], f.bad);
    }

    /* A second sweep keeps everything: ages 2, the OLD bit set. */
    sweep(live_all, 1, 0);
    size_t n;
    hp_rec_side *s = hp_shadow_sides(&n);
    cr_assert_eq(n, (TOTAL + 1) / 2);
    for (size_t k = 0; k < n; k++)
        cr_assert(s[k].bits & HP_SIDE_OLD, "entry %zu not OLD after two collections", k);
}

typedef struct { unsigned n, bad; } peeked;

static void peek_check(hp_rec *r, hp_event ev, void *ctx)
{
    peeked *p = ctx;
    unsigned i = index_of(r);
    p->n++;
    if (ev != HP_EV_SURVIVED || r->birth != rec(i).birth ||
        r->word != (i < 1000 ? word_of(i) : 0) ||
        !!(r->flags & HP_REC_UNWATCHED) != (i < 1000 && i % 3 == 0))
        p->bad++;
}

Test(shadow_side, records_from_the_logs_join_after_the_table, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    append(log, 0, 1000);
    hp_shadow_drain(NULL, NULL);
    hp_shadow_foreach_ord(0, set_word, NULL);
    /* More in the log, judged by the sweep as they are taken: the table's
     * first (ordinals 0..999), then the log's (from 1000 on). */
    append(log, 1000, 3000);
    sweep(live_all, 0, 1);
    cr_assert_eq(hd.moved, 3000);
    cr_assert_eq(hp_shadow_records(), 3000);
    size_t n;
    hp_rec_side *s = hp_shadow_sides(&n);
    for (size_t k = 0; k < n; k++) {
        uint32_t want = k < 1000 ? word_of((unsigned)k) : 0;
        cr_assert_eq(s[k].word, want, "entry %zu", k);
        cr_assert_eq(s[k].bits & HP_SIDE_BIRTH, rec((unsigned)k).birth, "entry %zu", k);
        cr_assert_eq(!!(s[k].bits & HP_SIDE_UNWATCHED), k < 1000 && k % 3 == 0, "entry %zu", k);
    }
    /* A peek (the SIGINT path) sees the entries too. */
    peeked pk = {0};
    hp_shadow_peek(peek_check, &pk);
    cr_assert_eq(pk.n, 3000);
    cr_assert_eq(pk.bad, 0, "%u records peeked without their entries", pk.bad);
}

/* As mode ldv hears a sweep: moves in runs, every live record counted at a
 * census. Runs of the table are judged whole there (core/hp_sweep.c,
 * Note [Side entries heard]); their records must still be heard, each
 * with its entry, and their entries moved. */
typedef struct {
    size_t next_from, next_to, moved, runs, counted;
    unsigned bad;
} heard_runs;
static heard_runs hr;

static void run_moved(size_t idx, size_t to, size_t k)
{
    if (idx < hr.next_from || to != hr.next_to || k == 0) hr.bad++;
    hr.next_from = idx + k;
    hr.next_to = to + k;
    hr.moved += k;
    hr.runs++;
}

static void run_gone(void *ctx, const hp_rec *r, hp_event ev, size_t idx, int in_table)
{
    (void)ctx;
    (void)r;
    (void)ev;
    (void)in_table;
    if (idx < hr.next_from) hr.bad++;
    hr.next_from = idx + 1;
}

static void run_counted(const hp_rec *r, uint32_t t)
{
    unsigned i = index_of(r);
    hr.counted++;
    if (t != 5 || r->word != word_of(i) || r->birth != rec(i).birth ||
        !!(r->flags & HP_REC_UNWATCHED) != (i % 3 == 0) || r->granted != rec(i).granted ||
        r->ccs != rec(i).ccs)
        hr.bad++;
}

static void sweep_runs(hp_live_fn live)
{
    memset(&hr, 0, sizeof hr);
    hp_sweep_observer obs = {0};
    obs.gone = run_gone;
    obs.moved = heard_moved;   /* (never called: moved_run is set) */
    obs.moved_run = run_moved;
    obs.counted = run_counted;
    hp_sweep_spec spec = {0};
    spec.judge = 1;
    spec.live = live;
    spec.census = 1;
    spec.period = 4;
    spec.obs = &obs;
    memset(&hd, 0, sizeof hd);
    hp_sweep(&spec);
    cr_assert_eq(hd.moved, 0);
    cr_assert_eq(hr.bad, 0, "%u reports out of order or wrong", (unsigned)hr.bad);
}

/* Keeps every record but the first 50: the runs after them survive whole
 * and move down 50 ordinals. */
static int live_past_50(uintptr_t base, void *ctx)
{
    (void)ctx;
    hp_rec r = {0};
    r.base = base;
    return index_of(&r) >= 50;
}

static int live_even_past_50(uintptr_t base, void *ctx)
{
    return live_past_50(base, ctx) && live_even(base, ctx);
}

Test(shadow_side, runs_judged_whole_are_heard, .init = setup)
{
    hp_tlog *log = hp_shadow_log_new();
    append(log, 0, TOTAL);
    hp_shadow_drain(NULL, NULL);
    hp_shadow_foreach_ord(0, set_word, NULL);
    sweep_runs(live_all);
    cr_assert_eq(hr.moved, TOTAL);
    cr_assert_eq(hr.counted, TOTAL);
    cr_assert_lt(hr.runs, TOTAL / 4, "%zu runs of moves heard", hr.runs);
    sweep_runs(live_all);   /* (kept in place: the same) */
    cr_assert_eq(hr.moved, TOTAL);
    cr_assert_eq(hr.counted, TOTAL);
    sweep_runs(live_past_50);   /* (whole runs move down) */
    cr_assert_eq(hr.moved, TOTAL - 50);
    cr_assert_eq(hr.counted, TOTAL - 50);
    cr_assert_lt(hr.runs, TOTAL / 4, "%zu runs of moves heard", hr.runs);
    walk m = {.marked = 1, .ages_min = 255};
    hp_shadow_foreach_ord(0, check, &m);
    cr_assert_eq(m.n, TOTAL - 50);
    cr_assert_eq(m.bad, 0, "%u records changed by moving whole runs", m.bad);
    sweep_runs(live_even_past_50);
    cr_assert_eq(hr.moved, (TOTAL + 1) / 2 - 25);
    cr_assert_eq(hr.counted, (TOTAL + 1) / 2 - 25);
    walk e = {.marked = 1, .ages_min = 255};
    hp_shadow_foreach_ord(0, check, &e);
    cr_assert_eq(e.n, (TOTAL + 1) / 2 - 25);
    cr_assert_eq(e.bad, 0, "%u records changed by the sweeps", e.bad);
    cr_assert_eq(e.ages_min, 4);
    size_t n;
    hp_rec_side *s = hp_shadow_sides(&n);
    for (size_t k = 0; k < n; k++) cr_assert(s[k].bits & HP_SIDE_OLD, "entry %zu", k);
}
