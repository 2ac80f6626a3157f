/* hp_ldv_byret_sigsafe: the biography's bands by retainer set, in one run
 * (HEAPPROF=retainer,bands=drag+void; GHC needs two runs for this, -hc
 * -hbdrag,void then -hr -hc<cc>).
 *
 * An object's band at census t is known only when it dies (DRAG: no use
 * after t; VOID: never used), while its retainer set is known only at t
 * and may change from census to census. So each record keeps, from the
 * start of the range its death may settle (the census after its last use,
 * or after its birth while it is unused) on, the runs of censuses over
 * which its set was one set:
 *   - the newest run in its side entry (label, since), the older ones in a
 *     pool, newest first (a run is {label, from, to});
 *   - at each census (census_rec, right after the retainer label of the
 *     record is read): runs that end before that start are freed (a use
 *     moved it on); the newest run goes on, or is closed at t-1 and a run
 *     of the new set begins at t;
 *   - at death d (or when it becomes INHERENT_USE): for each run, its part
 *     of [start, d] goes into the difference entries of its set's band,
 *     when the band (DRAG if used, VOID if not) is one of bands=, and the
 *     runs are freed.
 * Invariants: runs of one record are disjoint, newest first, and lie in
 * [start, last census counted]; a record attributed to no set at a census
 * keeps a run of label 0, never written. The output is the difference
 * entries hp_ldv_bio_sigsafe.c writes for bands= by stack, with retainer
 * sets' labels instead of stacks'.
 *
 * Memory: 16 bytes per record (the side entry, in the table's order: the
 * sweep moves it with the record), and 16 bytes per older run, that is per
 * change of set since the last use.
 *
 * Async-signal-safe: the SIGINT/SIGTERM finisher takes the last census
 * and settles every record through here; nothing allocates but hp_vec's
 * own mappings. */
#include "ldv/hp_ldv_internal.h"
#include "core/hp_hash.h"
#include "core/hp_rt.h"
#include "hp_writer/hp_names.h"
#include "retainer/hp_retainer.h"

#include <string.h>

hp_ldv_side *hp_ldv_sides;

typedef struct byret_run { uint32_t label, from, to, next; } byret_run;

static hp_vec side_vec, pool_vec;
static size_t side_valid;          /* table slots whose side entry is set */
static uint32_t pool_used, pool_free;   /* entries made; free list (index + 1) */
static uint64_t runs_live, runs_most;
static hp_ldv_side scratch;        /* a record still in a log */
/* Byte-seconds of DRAG and VOID per (retainer set's label, stack): who
 * holds what each stack made and did not use, in one table (open
 * addressing on hp_mix64 of the key (label + 1) << 32 | ccs; `folded`:
 * the same by the stack's full name, for the .prof). */
typedef struct pair_ent { uint64_t key; double drag_bs, void_bs; } pair_ent;
typedef struct pair_tab { hp_vec vec; uint64_t n, cap; } pair_tab;
static pair_tab pairs, folded;
/* The record whose retainer label was read last (label_of, then census_rec
 * of the same record), its sweep index and, for a record from the logs,
 * its side entry until the sweep gives it a slot (hp_ldv_byret_moved). */
static const hp_rec *pend_r;
static size_t pend_idx = SIZE_MAX;
static uint32_t pend_label;
static hp_ldv_side pend_side;

static pair_ent *pair_at(pair_tab *p, uint64_t key)
{
    return hp_keyed_slot(&p->vec, &p->cap, &p->n, key, sizeof(pair_ent), 1024, NULL);
}

int hp_ldv_byret_init(void)
{
    if (hp_vec_reserve(&side_vec, (size_t)1 << 34) != 0 ||
        hp_vec_reserve(&pool_vec, (size_t)1 << 34) != 0 ||
        hp_vec_reserve(&pairs.vec, (size_t)1 << 34) != 0 ||
        hp_vec_reserve(&folded.vec, (size_t)1 << 34) != 0 ||
        hp_vec_ensure(&side_vec, 4096) != 0)
        return -1;
    hp_ldv_sides = (hp_ldv_side *)side_vec.base;
    return 0;
}

/* Slots [side_valid, n) zeroed: records the table took from the logs
 * since the last sweep. */
static int fill_to(size_t n)
{
    if (n <= side_valid) return 0;
    if (hp_vec_ensure(&side_vec, n * sizeof(hp_ldv_side)) != 0) return -1;
    memset(&hp_ldv_sides[side_valid], 0, (n - side_valid) * sizeof(hp_ldv_side));
    side_valid = n;
    return 0;
}

hp_ldv_side *hp_ldv_side_of(const hp_rec *r)
{
    size_t n;
    hp_rec *t = hp_shadow_table(&n);
    if (r >= t && r < t + n) {
        size_t i = (size_t)(r - t);
        if (i >= side_valid && fill_to(i + 1) != 0) goto none;
        return &hp_ldv_sides[i];
    }
    if (r == pend_r) return &pend_side;
none:
    memset(&scratch, 0, sizeof scratch);
    return &scratch;
}

static byret_run *pool(void) { return (byret_run *)pool_vec.base; }

static void free_runs(uint32_t head)
{
    while (head) {
        byret_run *e = &pool()[head - 1];
        uint32_t next = e->next;
        e->next = pool_free;
        pool_free = head;
        runs_live--;
        head = next;
    }
}

/* Push run {label, from, to} in front of s's older runs (dropped when the
 * pool cannot grow: the record's earlier censuses then count in no band). */
static void push_run(hp_ldv_side *s, uint32_t label, uint32_t from, uint32_t to)
{
    uint32_t id = pool_free;
    if (id) {
        pool_free = pool()[id - 1].next;
    } else {
        if (hp_vec_ensure(&pool_vec, ((size_t)pool_used + 1) * sizeof(byret_run)) != 0) return;
        id = ++pool_used;
    }
    pool()[id - 1] = (byret_run){label, from, to, s->older};
    s->older = id;
    if (++runs_live > runs_most) runs_most = runs_live;
}

/* Where the range a death may settle begins: the census after the last
 * use, or after the creation period while unused. */
static uint32_t pending_from(const hp_rec *r, uint32_t w)
{
    return (w & HP_LDV_USED) ? (w & HP_LDV_PERIOD) + 1 : r->birth + 1;
}

uint32_t hp_ldv_byret_label_of(hp_rec *r, size_t idx)
{
    uint32_t l = hp_retainer_label_of(r, idx);
    pend_r = r;
    pend_idx = idx;
    pend_label = l == UINT32_MAX ? 0 : l + 1;
    memset(&pend_side, 0, sizeof pend_side);
    /* The census's own sample is not written (the scheme writes its bands
     * at exit): no label. */
    return UINT32_MAX;
}

void hp_ldv_byret_census_rec(const hp_rec *r, uint32_t t)
{
    hp_ldv_census_rec(r, t);
    uint32_t label = r == pend_r ? pend_label : 0;
    hp_ldv_side *s = hp_ldv_side_of(r);
    uint32_t w = __atomic_load_n(&s->word, __ATOMIC_RELAXED);
    if (w & HP_LDV_INHERENT) {
        free_runs(s->older);
        s->older = 0;
        s->label = s->since = 0;
        return;
    }
    uint32_t start = pending_from(r, w);
    if (s->since && s->since < start) {
        /* Used since: what came before the use is settled (USE or LAG). */
        free_runs(s->older);
        s->older = 0;
        s->since = start;
    }
    if (s->since && s->label == label) return;
    if (s->since && s->since < t && s->label) push_run(s, s->label, s->since, t - 1);
    s->label = label;
    s->since = t;
}

/* Settle record r (LDV word w) dead after census d: each run's part of
 * [start, d], in the band's entries of its set (and, unless `copy`, in
 * the (set, stack) byte-seconds). */
static void settle(const hp_ldv_side *s, const hp_rec *r, uint32_t w, uint32_t d, int copy)
{
    uint32_t n = hp_ldv_bio_.ncensus;
    if (d > n) d = n;
    int band = (w & HP_LDV_USED) ? HP_BAND_DRAG : HP_BAND_VOID;
    if ((w & HP_LDV_INHERENT) || !(hp_rt.cfg.ldv_bands & band) || !s->since) return;
    uint32_t start = pending_from(r, w);
    int64_t g = r->granted;
    uint32_t label = s->label, from = s->since, to = d, next = s->older;
    for (;;) {
        uint32_t a = from < start ? start : from, b = to < d ? to : d;
        if (label && a <= b && a > 0) {
            hp_ldv_cross_add(label - 1, a, g);
            hp_ldv_cross_add(label - 1, b + 1, -g);
            const hp_ldv_census *c = (const hp_ldv_census *)hp_ldv_bio_.census_vec.base;
            pair_ent *e = copy ? NULL : pair_at(&pairs, (uint64_t)label << 32 | r->ccs);
            double bs = (double)g * (c[b].time - c[a - 1].time);
            if (e && band == HP_BAND_DRAG) e->drag_bs += bs;
            else if (e) e->void_bs += bs;
        }
        if (!next) break;
        const byret_run *e = &pool()[next - 1];
        label = e->label;
        from = e->from;
        to = e->to;
        next = e->next;
    }
}

void hp_ldv_byret_death(const hp_rec *r, uint32_t w, uint32_t d)
{
    hp_ldv_side *s = hp_ldv_side_of(r);
    settle(s, r, w, d, 0);
    free_runs(s->older);
    s->older = 0;
    s->label = s->since = 0;
}

void hp_ldv_byret_settle_copy(const hp_rec *r, uint32_t w, uint32_t d)
{
    settle(hp_ldv_side_of(r), r, w, d, 1);
}

void hp_ldv_byret_on_death(const hp_rec *r, uint32_t d)
{
    uint32_t w = __atomic_load_n(hp_ldv_word_of(r), __ATOMIC_RELAXED);
    hp_ldv_death(r, d);
    hp_ldv_byret_death(r, w, d);
}

/* ---- The sweep: side entries move with their records (the scheme's
 * sweep operations, hp_ldv_scheme.c, call these beside ldv's own). ---- */
void hp_ldv_byret_sweep_begin(size_t len)
{
    fill_to(len);   /* every slot of the table valid: the sweep reads them */
}

void hp_ldv_byret_moved(size_t from, size_t to)
{
    hp_ldv_side v;
    if (from < side_valid) v = hp_ldv_sides[from];
    else if (from == pend_idx) v = pend_side;   /* from the logs, counted at this census */
    else memset(&v, 0, sizeof v);
    if (to >= side_valid && hp_vec_ensure(&side_vec, (to + 1) * sizeof(hp_ldv_side)) != 0) return;
    hp_ldv_sides[to] = v;
}

void hp_ldv_byret_after_sweep(void)
{
    size_t n;
    (void)hp_shadow_table(&n);
    side_valid = n;   /* the sweep wrote slots 0 .. n-1 */
    pend_r = NULL;
    pend_idx = SIZE_MAX;
}

void hp_ldv_byret_write_prof(int fd)
{
    hp_ldv_write_prof(fd);
    hp_retainer_write_prof(fd);
}

void hp_ldv_byret_postfork_child(void)
{
    /* (hp_ldv.c's own reset clears the LDV words in the records: here they
     * are the side entries'.) */
    for (size_t i = 0; i < side_valid; i++) hp_ldv_sides[i] = (hp_ldv_side){0, 0, 0, 0};
    pool_used = pool_free = 0;
    runs_live = runs_most = 0;
    if (pairs.cap) memset(pairs.vec.base, 0, (size_t)pairs.cap * sizeof(pair_ent));
    pairs.n = 0;
    hp_retainer_postfork_child();
}

/* The .prof's lines on this breakdown's memory. */
void hp_ldv_byret_prof(hp_buf *b)
{
    hp_buf_str(b, "  retainer-set history: 16 bytes per record (");
    hp_buf_u64(b, (uint64_t)side_vec.committed);
    hp_buf_str(b, " bytes at the most), older runs ");
    hp_buf_u64(b, runs_most);
    hp_buf_str(b, " at the most (16 bytes each)\n");
}

/* The pairs, stacks folded by full name (as the .prof's tables are). */
static void fold_pairs(void)
{
    if (folded.cap) memset(folded.vec.base, 0, (size_t)folded.cap * sizeof(pair_ent));
    folded.n = 0;
    const pair_ent *e = (const pair_ent *)pairs.vec.base;
    for (uint64_t i = 0; i < pairs.cap; i++) {
        if (!e[i].key) continue;
        uint32_t full = hp_names_full_of((uint32_t)e[i].key);
        pair_ent *f = pair_at(&folded, (e[i].key & 0xffffffff00000000ull) | full);
        if (!f) continue;
        f->drag_bs += e[i].drag_bs;
        f->void_bs += e[i].void_bs;
    }
}

/* Top 20 (set, stack) pairs by DRAG (which 0) or VOID (1) byte-seconds. */
static void pair_table(hp_buf *b, int which)
{
    const pair_ent *e = (const pair_ent *)folded.vec.base;
    double total = 0;
    for (uint64_t i = 0; i < folded.cap; i++)
        if (e[i].key) total += which ? e[i].void_bs : e[i].drag_bs;
    hp_buf_str(b, which ? "\nTop retainer sets and cost-centre stacks by VOID (bytes x seconds "
                          "never used, under the set that held them):\n"
                        : "\nTop retainer sets and cost-centre stacks by DRAG (bytes x seconds "
                          "held after last use, under the set that held them):\n");
    hp_buf_str(b, "  byte-seconds  share  retainer set  cost-centre stack\n");
    double prev = -1;
    uint64_t prev_i = 0;
    int rows = 0;
    for (; rows < 20; rows++) {
        uint64_t best = UINT64_MAX;
        double bv = 0;
        for (uint64_t i = 0; i < folded.cap; i++) {
            if (!e[i].key) continue;
            double v = which ? e[i].void_bs : e[i].drag_bs;
            if (v <= 0) continue;
            if (prev >= 0 && (v > prev || (v == prev && i <= prev_i))) continue;
            if (best == UINT64_MAX || v > bv) {
                best = i;
                bv = v;
            }
        }
        if (best == UINT64_MAX) break;
        hp_buf_str(b, "  ");
        hp_buf_fixed(b, bv, 3);
        hp_buf_str(b, "  ");
        hp_buf_fixed(b, total > 0 ? 100.0 * bv / total : 0, 1);
        hp_buf_str(b, "%  ");
        hp_buf_str(b, hp_names_label((uint32_t)(e[best].key >> 32) - 1));
        hp_buf_str(b, "  ");
        hp_buf_str(b, hp_names_full((uint32_t)e[best].key));
        hp_buf_chr(b, '\n');
        prev = bv;
        prev_i = best;
    }
    if (!rows) hp_buf_str(b, "  (none)\n");
}

void hp_ldv_byret_tables(hp_buf *b)
{
    fold_pairs();
    if (hp_rt.cfg.ldv_bands & HP_BAND_DRAG) pair_table(b, 0);
    if (hp_rt.cfg.ldv_bands & HP_BAND_VOID) pair_table(b, 1);
    hp_buf_chr(b, '\n');
}
