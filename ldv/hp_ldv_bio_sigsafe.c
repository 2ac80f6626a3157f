/* hp_ldv_bio_sigsafe: the biography of mode ldv (see hp_ldv.c for the
 * scheme): censuses, deaths, uses, and the .hp bands and .prof tables at
 * the end. Async-signal-safe: the fault handlers mark uses, and the
 * SIGINT/SIGTERM finisher takes the last census and writes the output. */
#include "ldv/hp_ldv_internal.h"
#include "core/hp_rt.h"
#include "core/hp_stacks.h"
#include "core/hp_hash.h"
#include "hp_writer/hp_hpfile.h"
#include "hp_writer/hp_names.h"

#include <string.h>

hp_ldv_bio hp_ldv_bio_;
#define census_vec hp_ldv_bio_.census_vec
#define ncensus hp_ldv_bio_.ncensus
#define cost_vec hp_ldv_bio_.cost_vec
#define ncost hp_ldv_bio_.ncost
#define name_cost_vec hp_ldv_bio_.name_cost_vec
#define nname_cost hp_ldv_bio_.nname_cost
#define out hp_ldv_bio_.out
typedef hp_ldv_census census;
typedef hp_ldv_cost ccs_cost;

static census *cen(void) { return (census *)census_vec.base; }

/* ---- Census and sweep (owner context, or the SIGINT/SIGTERM path). ---- */
void hp_ldv_census_begin(uint32_t t, double seconds)
{
    if (hp_vec_ensure(&census_vec, ((size_t)t + 2) * sizeof(census)) != 0) return;
    if (t > ncensus) ncensus = t;
    cen()[t].time = seconds;
}

void hp_ldv_census_rec(const hp_rec *r, uint32_t t)
{
    if (t > ncensus) return;
    uint32_t w = __atomic_load_n(hp_ldv_word_of(r), __ATOMIC_RELAXED);
    census *c = &cen()[t];
    if (w & HP_LDV_INHERENT) c->inh += r->granted;
    else if (w & HP_LDV_USED) c->used += r->granted;
    else c->notused += r->granted;
}

static ccs_cost *cost_of(uint32_t ccs)
{
    if (ccs >= ncost) {
        uint32_t n = hp_stacks_count();
        if (n <= ccs) n = ccs + 1;
        if (hp_vec_ensure(&cost_vec, (size_t)n * sizeof(ccs_cost)) != 0) return NULL;
        ncost = n;
    }
    return &((ccs_cost *)cost_vec.base)[ccs];
}

/* ---- bands= : the chosen bands by cost-centre stack ---- */

typedef hp_ldv_cross_ent cross_ent;

/* Add `delta` at census t of label l (a difference entry). */
void hp_ldv_cross_add(uint32_t l, uint32_t t, int64_t delta)
{
    hp_ldv_cross *b = hp_ldv_bio_.cross_into ? hp_ldv_bio_.cross_into : &hp_ldv_bio_.cross;
    cross_ent *e = hp_keyed_slot(&b->vec, &b->cap, &b->n, ((uint64_t)l + 1) << 32 | t,
                                 sizeof(cross_ent), 4096, NULL);
    if (!e) return;
    e->delta += delta;
    if (l + 1 > b->labels) b->labels = l + 1;
}

/* The object was live at censuses b+1 .. d: its VOID or DRAG range goes
 * into the difference arrays of `c` (the biography, or a checkpoint's
 * copy), its byte-seconds into `k` when given. */
static void die_into(census *c, const hp_rec *r, uint32_t w, uint32_t d, ccs_cost *k, int cross)
{
    if (w & HP_LDV_INHERENT) return;
    if (d > ncensus) d = ncensus;
    uint32_t from = (w & HP_LDV_USED) ? (w & HP_LDV_PERIOD) + 1 : r->birth + 1;
    if (from > d || from == 0) return;
    int64_t g = r->granted;
    double bs = (double)r->granted * (c[d].time - c[from - 1].time);
    int unsure = (r->flags & HP_REC_UNWATCHED) != 0;
    /* bands=: the same range for the object's stack, when its band is
     * one of those chosen (`cross`: the biography, or a checkpoint's copy
     * of its entries). */
    int band = (w & HP_LDV_USED) ? HP_BAND_DRAG : HP_BAND_VOID;
    if (cross && !hp_ldv_sides && (hp_rt.cfg.ldv_bands & band)) {
        uint32_t l = hp_names_label_of(r->ccs);
        hp_ldv_cross_add(l, from, g);
        hp_ldv_cross_add(l, d + 1, -g);
    }
    if (w & HP_LDV_USED) {
        c[from].ddrag += g;
        c[d + 1].ddrag -= g;
        if (k) {
            k->drag_bs += bs;
            if (unsure) k->drag_unsure_bs += bs;
        }
    } else {
        c[from].dvoid += g;
        c[d + 1].dvoid -= g;
        if (k) {
            k->void_bs += bs;
            if (unsure) k->void_unsure_bs += bs;
        }
    }
}

static void die_at(const hp_rec *r, uint32_t w, uint32_t d)
{
    if (w & HP_LDV_INHERENT) return;
    uint32_t from = (w & HP_LDV_USED) ? (w & HP_LDV_PERIOD) + 1 : r->birth + 1;
    if (from > (d > ncensus ? ncensus : d) || from == 0) return;
    die_into(cen(), r, w, d, cost_of(r->ccs), 1);
}

void hp_ldv_death(const hp_rec *r, uint32_t d)
{
    die_at(r, __atomic_load_n(hp_ldv_word_of(r), __ATOMIC_RELAXED), d);
}

/* (die_at with word 0: from = birth + 1, nothing when from > min(d, ncensus)) */
uint32_t hp_ldv_death_quiet_from(uint32_t d)
{
    return d > ncensus ? ncensus : d;
}

/* Tracking ends at census t: the object's biography so far is settled as
 * if it died after census t-1; from census t on it is INHERENT_USE. */
void hp_ldv_make_inherent(hp_rec *r, size_t idx, uint32_t t)
{
    uint32_t *wp = hp_ldv_word_at(r, idx);
    uint32_t w = __atomic_load_n(wp, __ATOMIC_RELAXED);
    if (w & HP_LDV_INHERENT) return;
    if (t > 0) {
        die_at(r, w, t - 1);
        if (hp_ldv_sides) hp_ldv_byret_death(r, w, t - 1);
    }
    __atomic_fetch_or(wp, HP_LDV_INHERENT, __ATOMIC_RELAXED);
    hp_ldv.inherent_objects++;
}

/* ---- Async-signal-safe from here: fault handlers and wrappers. ---- */
/* The object's first use, in period q (word w before it): its LAG ran over
 * censuses birth+1 .. q; when a period p >= birth left its page open before
 * it was seen used, a use then would have shown from census p+1, so the
 * LAG of censuses p+1 .. q is uncertain. (The census array only grows, in
 * place: its entries up to the current period are set.) */
static void lag_seen(uint32_t b, uint32_t granted, uint32_t w, uint32_t q)
{
    if (q <= b || q > ncensus) return;
    const census *c = cen();
    double g = (double)granted;
    atomic_fetch_add_explicit(&hp_ldv.lag_bus, (uint64_t)(g * (c[q].time - c[b].time) * 1e6),
                              memory_order_relaxed);
    uint32_t stamp = w & HP_LDV_PERIOD;
    if (stamp && stamp - 1 < q) {
        uint32_t p = stamp - 1 < b ? b : stamp - 1;
        atomic_fetch_add_explicit(&hp_ldv.lag_unsure_bus,
                                  (uint64_t)(g * (c[q].time - c[p].time) * 1e6),
                                  memory_order_relaxed);
    }
}

/* The record of index entry e: NULL in mode ldv, whose handlers read the
 * side entry at its idx instead (Note [Side entries]), else the table's;
 * 0 when the table's record is no longer the one indexed (cannot
 * happen). */
static inline int rec_of_ent(const hp_ldv_ent *e, hp_rec **r)
{
    *r = NULL;
    if (hp_ldv_rsides) return 1;
    *r = &hp_ldv.recs[hp_ldv_ent_idx(e)];
    return (*r)->base == hp_ldv_ent_base(e);
}

int hp_ldv_use(const hp_ldv_ent *e, int is_write)
{
    size_t idx = hp_ldv_ent_idx(e);
    hp_rec *r;
    if (!rec_of_ent(e, &r)) return 0;
    hp_rec_side *sd = r ? NULL : &hp_ldv_rsides[idx];
    uint32_t birth = sd ? __atomic_load_n(&sd->bits, __ATOMIC_RELAXED) & HP_SIDE_BIRTH
                        : r->birth;
    uint32_t period = atomic_load_explicit(&hp_rt.period, memory_order_relaxed);
    if (is_write && birth >= period) return -1;   /* initialisation */
    uint32_t want = HP_LDV_USED | (period & HP_LDV_PERIOD);
    uint32_t *wp = hp_ldv_word_at(r, idx);
    uint32_t w = __atomic_load_n(wp, __ATOMIC_RELAXED);
    /* The index's bit: nothing left to learn of this object this period
     * (the next pass inside the period need not protect it). */
    if (hp_ldv.used_bits && e >= hp_ldv.ents && e < hp_ldv.ents + hp_ldv.nents) {
        size_t i = (size_t)(e - hp_ldv.ents);
        __atomic_fetch_or(&hp_ldv.used_bits[i >> 6], 1ull << (i & 63), __ATOMIC_RELAXED);
    }
    while (!(w & HP_LDV_INHERENT) &&
           (!(w & HP_LDV_USED) || (w & HP_LDV_PERIOD) < (period & HP_LDV_PERIOD))) {
        if (__atomic_compare_exchange_n(wp, &w, want, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED)) {
            atomic_fetch_add_explicit(&hp_ldv.uses, 1, memory_order_relaxed);
            if (!(w & HP_LDV_USED))
                lag_seen(birth, sd ? hp_ldv_ent_size(e) : r->granted, w, period & HP_LDV_PERIOD);
            if (sd) {
                uint32_t bits = __atomic_load_n(&sd->bits, __ATOMIC_RELAXED);
                if (bits & HP_SIDE_UNWATCHED)
                    __atomic_fetch_and(&sd->bits, ~HP_SIDE_UNWATCHED, __ATOMIC_RELAXED);
                return (bits & HP_SIDE_OLD) ? 2 : 1;
            }
            if (__atomic_load_n(&r->flags, __ATOMIC_RELAXED) & HP_REC_UNWATCHED)
                __atomic_fetch_and(&r->flags, (uint8_t)~HP_REC_UNWATCHED, __ATOMIC_RELAXED);
            return __atomic_load_n(&r->age, __ATOMIC_RELAXED) >= 2 ? 2 : 1;
        }
    }
    return 0;
}

/* The first index entry whose object ends after addr: the last whose
 * base is at or below addr if it covers addr (objects do not overlap:
 * the ones before it end before its base), else the next. */
static size_t first_ent_after(uintptr_t addr)
{
    int64_t g = hp_ldv_gran_of(addr);
    if (g < 0) return 0;
    size_t lo = hp_ldv_upper(hp_ldv.ents, 0, hp_ldv.nents, g);
    return lo > 0 && hp_ldv_covering(lo, addr) ? lo - 1 : lo;
}

/* The mode word says: used in `period`. */
static inline int used_in(uint32_t w, uint32_t period)
{
    return (w & HP_LDV_USED) && (w & HP_LDV_PERIOD) >= (period & HP_LDV_PERIOD);
}

/* Is index entry i's bit set: used this period? (0 when there are no bits.) */
static inline int entry_used(size_t i)
{
    const uint64_t *b = hp_ldv.used_bits;
    return b && ((__atomic_load_n(&b[i >> 6], __ATOMIC_RELAXED) >> (i & 63)) & 1);
}

/* The object of r (its LDV word at wp), not used in `period`, may have
 * had a use no fault saw: marked unwatched (a use recorded later clears
 * the mark); never used yet, its word keeps the first period its LAG is
 * uncertain from (a use racing this is kept: the exchange fails on its
 * word). INHERENT_USE objects are left alone. */
static inline void unwatch(hp_rec *r, size_t idx, uint32_t period)
{
    uint32_t *wp = hp_ldv_word_at(r, idx);
    uint32_t w = __atomic_load_n(wp, __ATOMIC_RELAXED);
    if ((w & HP_LDV_INHERENT) || used_in(w, period)) return;
    hp_ldv_set_unwatched(r, idx);
    if (!(w & (HP_LDV_USED | HP_LDV_PERIOD)))
        __atomic_compare_exchange_n(wp, &w, ((period & HP_LDV_PERIOD) + 1) & HP_LDV_PERIOD, 0,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

void hp_ldv_span_unwatched(uintptr_t lo_addr, uintptr_t hi_addr)
{
    uint32_t period = atomic_load_explicit(&hp_rt.period, memory_order_relaxed);
    size_t first = first_ent_after(lo_addr), end = first;
    while (end < hp_ldv.nents && hp_ldv_ent_base(&hp_ldv.ents[end]) < hi_addr) end++;
    /* A page's objects were made at different times, so their records lie
     * far apart in the table: each a cache miss, one after another, made
     * this function the first of heapprof's in a Guile run under ldv (6%
     * of the samples). Entries whose bit says used skip their record; the
     * others' records are asked for all at once first. */
    for (size_t i = first; i < end; i++) {
        if (entry_used(i)) continue;
        size_t idx = hp_ldv_ent_idx(&hp_ldv.ents[i]);
        if (hp_ldv_rsides) {
            __builtin_prefetch(&hp_ldv_rsides[idx]);
            continue;
        }
        __builtin_prefetch(&hp_ldv.recs[idx]);
        if (hp_ldv_sides) __builtin_prefetch(&hp_ldv_sides[idx]);
    }
    for (size_t i = first; i < end; i++) {
        if (entry_used(i)) continue;
        hp_rec *r;
        if (rec_of_ent(&hp_ldv.ents[i], &r)) unwatch(r, hp_ldv_ent_idx(&hp_ldv.ents[i]), period);
    }
}

void hp_ldv_all_unwatched(hp_rec *recs, size_t n, uint32_t period)
{
    if (hp_ldv_rsides) {   /* (recs NULL: the side entries, n of them) */
        for (size_t i = 0; i < n; i++)
            if ((hp_ldv_rsides[i].bits & HP_SIDE_BIRTH) < period) unwatch(NULL, i, period);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        hp_rec *r = &recs[i];
        /* (Made in the period: its creation period is never watched.) */
        if (r->granted == 0 || r->birth >= period) continue;
        unwatch(r, i, period);
    }
}

/* Is there nothing left to learn on [page, page + HP_PAGE) this period?
 * Every indexed object on it is used this period (or INHERENT_USE, or its
 * record no longer the one indexed): a later access there can find no
 * first use, so the precise policy may leave the page open until the next
 * protect pass without losing one. Objects allocated since the pass are
 * not indexed (their creation period is not watched). */
int hp_ldv_page_settled(uintptr_t page)
{
    uintptr_t end = page + HP_PAGE;
    uint32_t period = atomic_load_explicit(&hp_rt.period, memory_order_relaxed);
    for (size_t i = first_ent_after(page); i < hp_ldv.nents && hp_ldv_ent_base(&hp_ldv.ents[i]) < end; i++) {
        if (entry_used(i)) continue;   /* (without reading its record) */
        hp_rec *r;
        if (!rec_of_ent(&hp_ldv.ents[i], &r)) continue;
        uint32_t w = __atomic_load_n(hp_ldv_word_at(r, hp_ldv_ent_idx(&hp_ldv.ents[i])),
                                     __ATOMIC_RELAXED);
        if (w & HP_LDV_INHERENT) continue;
        if (!used_in(w, period)) return 0;
    }
    return 1;
}

void hp_ldv_use_range(uintptr_t p, size_t n, int is_write)
{
    if (n == 0 || hp_ldv.nents == 0) return;
    uintptr_t end = p + n;
    if (end < p) end = UINTPTR_MAX;
    for (size_t i = first_ent_after(p); i < hp_ldv.nents && hp_ldv_ent_base(&hp_ldv.ents[i]) < end; i++) {
        hp_ldv_use(&hp_ldv.ents[i], is_write);
        atomic_fetch_add_explicit(&hp_ldv.sys_uses, 1, memory_order_relaxed);
    }
}

/* ---- Output (exit, or the SIGINT/SIGTERM path). ---- */
/* Censuses 1 .. n of `c` as samples (VOID, LAG from the prefix sums of the
 * difference arrays), formatted in `b`: 0, or -1 when a write failed. */
static int write_bands(hp_buf *b, int fd, const census *c, uint32_t n)
{
    int rc = 0;
    static const char *const labels[5] = {"VOID", "LAG", "USE", "INHERENT_USE", "DRAG"};
    int64_t vd = 0, dr = 0;
    double last = 0;
    for (uint32_t t = 1; t <= n; t++) {
        vd += c[t].dvoid;
        dr += c[t].ddrag;
        uint64_t v[5];
        v[0] = vd > 0 ? (uint64_t)vd : 0;
        v[1] = c[t].notused > v[0] ? c[t].notused - v[0] : 0;
        v[4] = dr > 0 ? (uint64_t)dr : 0;
        v[2] = c[t].used > v[4] ? c[t].used - v[4] : 0;
        v[3] = c[t].inh;
        double when = c[t].time < last ? last : c[t].time;
        last = when;
        if (hp_hp_sample(b, fd, when, labels, v, 5) != 0) rc = -1;
    }
    return rc;
}

/* bands=: one sample per census, each stack's bytes in the chosen bands
 * (the difference entries summed over the censuses). */
static int write_cross(hp_buf *b, int fd, const census *c, uint32_t n, const hp_ldv_cross *x,
                       hp_vec *dense_vec)
{
    uint32_t nl = x->labels;
    size_t cells = (size_t)nl * (n + 2);
    if (hp_vec_ensure(dense_vec, cells * sizeof(int64_t) + 1)) return -1;
    int64_t *dense = (int64_t *)dense_vec->base;
    memset(dense, 0, cells * sizeof(int64_t));
    const cross_ent *e = (const cross_ent *)x->vec.base;
    for (uint64_t i = 0; i < x->cap; i++) {
        if (!e[i].key) continue;
        uint32_t l = (uint32_t)(e[i].key >> 32) - 1, t = (uint32_t)e[i].key;
        if (t <= n + 1) dense[(size_t)l * (n + 2) + t] += e[i].delta;
    }
    static hp_vec names_main, values_main, names_ckpt, values_ckpt;
    int ckpt = dense_vec != &hp_ldv_bio_.cross_dense_vec;
    hp_vec *nv = ckpt ? &names_ckpt : &names_main, *vv = ckpt ? &values_ckpt : &values_main;
#define names_vec (*nv)
#define values_vec (*vv)
    if ((!names_vec.base && hp_vec_reserve(&names_vec, (size_t)1 << 30)) ||
        (!values_vec.base && hp_vec_reserve(&values_vec, (size_t)1 << 30)) ||
        hp_vec_ensure(&names_vec, (size_t)(nl + 1) * sizeof(char *)) ||
        hp_vec_ensure(&values_vec, (size_t)(nl + 1) * sizeof(uint64_t)))
        return -1;
    const char **names = (const char **)names_vec.base;
    uint64_t *vals = (uint64_t *)values_vec.base;
    /* Running sums per label, census by census. */
    for (uint32_t l = 0; l < nl; l++)
        for (uint32_t t = 1; t <= n; t++)
            dense[(size_t)l * (n + 2) + t] += dense[(size_t)l * (n + 2) + t - 1];
    int rc = 0;
    double last = 0;
    for (uint32_t t = 1; t <= n; t++) {
        size_t k = 0;
        for (uint32_t l = 0; l < nl; l++) {
            int64_t v = dense[(size_t)l * (n + 2) + t];
            if (v <= 0) continue;
            names[k] = hp_names_label(l);
            vals[k++] = (uint64_t)v;
        }
        double when = c[t].time < last ? last : c[t].time;
        last = when;
        if (hp_hp_sample(b, fd, when, names, vals, k) != 0) rc = -1;
    }
    return rc;
#undef names_vec
#undef values_vec
}

void hp_ldv_write_samples(int fd)
{
    if (hp_rt.cfg.ldv_bands)
        write_cross(&out, fd, cen(), ncensus, &hp_ldv_bio_.cross, &hp_ldv_bio_.cross_dense_vec);
    else write_bands(&out, fd, cen(), ncensus);
}

/* ---- Checkpoints (owner context, after census t): the biography as if
 * the program ended at census t. The difference arrays are copied, every
 * record still live dies at census t in the copy (as at exit), and the
 * copy is written; the biography itself is not changed. ---- */
#define ckpt_vec hp_ldv_bio_.ckpt_vec
#define ckpt_out hp_ldv_bio_.ckpt_out
static uint32_t ckpt_n;    /* the census the checkpoint ends at; 0: none begun */

int hp_ldv_checkpoint_begin(uint32_t t)
{
    ckpt_n = 0;
    if (t == 0 || t > ncensus) return -1;
    size_t bytes = ((size_t)t + 2) * sizeof(census);
    if (hp_vec_ensure(&ckpt_vec, bytes) != 0) return -1;
    memcpy(ckpt_vec.base, cen(), bytes);
    if (hp_rt.cfg.ldv_bands) {
        /* bands=: the difference entries copied too; the records still
         * live die into the copy. */
        const hp_ldv_cross *m = &hp_ldv_bio_.cross;
        hp_ldv_cross *k = &hp_ldv_bio_.ckpt_cross;
        if (m->cap && hp_vec_ensure(&k->vec, (size_t)m->cap * sizeof(cross_ent)) != 0) return -1;
        if (m->cap) memcpy(k->vec.base, m->vec.base, (size_t)m->cap * sizeof(cross_ent));
        k->n = m->n;
        k->cap = m->cap;
        k->labels = m->labels;
    }
    ckpt_n = t;
    return 0;
}

void hp_ldv_checkpoint_rec(const hp_rec *r)
{
    if (!ckpt_n) return;
    uint32_t w = __atomic_load_n(hp_ldv_word_of(r), __ATOMIC_RELAXED);
    hp_ldv_bio_.cross_into = &hp_ldv_bio_.ckpt_cross;
    die_into((census *)ckpt_vec.base, r, w, ckpt_n, NULL, 1);
    if (hp_ldv_sides) hp_ldv_byret_settle_copy(r, w, ckpt_n);
    hp_ldv_bio_.cross_into = NULL;
}

int hp_ldv_checkpoint_samples(int fd)
{
    if (!ckpt_n) return -1;
    int rc = hp_rt.cfg.ldv_bands
                 ? write_cross(&ckpt_out, fd, (const census *)ckpt_vec.base, ckpt_n,
                               &hp_ldv_bio_.ckpt_cross, &hp_ldv_bio_.ckpt_dense_vec)
                 : write_bands(&ckpt_out, fd, (const census *)ckpt_vec.base, ckpt_n);
    ckpt_n = 0;
    return rc;
}

static void row(uint32_t name, double bs, double total)
{
    hp_buf_str(&out, "  ");
    hp_buf_fixed(&out, bs, 3);
    hp_buf_str(&out, "  ");
    hp_buf_fixed(&out, total > 0 ? 100.0 * bs / total : 0, 1);
    hp_buf_str(&out, "%  ");
    hp_buf_str(&out, hp_names_full(name));
    hp_buf_chr(&out, '\n');
}

/* Stacks that print the same are one row, as in the .prof table above:
 * fold the costs by full name. */
static void fold_by_name(void)
{
    const ccs_cost *k = (const ccs_cost *)cost_vec.base;
    if (nname_cost) memset(name_cost_vec.base, 0, (size_t)nname_cost * sizeof(ccs_cost));
    for (uint32_t i = 0; i < ncost; i++) {
        if (k[i].drag_bs <= 0 && k[i].void_bs <= 0) continue;
        uint32_t id = hp_names_full_of(i);
        if (id >= nname_cost) {
            if (hp_vec_ensure(&name_cost_vec, ((size_t)id + 1) * sizeof(ccs_cost)) != 0) continue;
            memset((ccs_cost *)name_cost_vec.base + nname_cost, 0,
                   ((size_t)id + 1 - nname_cost) * sizeof(ccs_cost));
            nname_cost = id + 1;
        }
        ccs_cost *c = &((ccs_cost *)name_cost_vec.base)[id];
        c->drag_bs += k[i].drag_bs;
        c->void_bs += k[i].void_bs;
        c->drag_unsure_bs += k[i].drag_unsure_bs;
        c->void_unsure_bs += k[i].void_unsure_bs;
    }
}

/* How far DRAG and VOID can be trusted: the byte-seconds of objects a page
 * left open for the rest of a period hid after their last recorded use
 * (after fold_by_name). */
static void uncertain_lines(void)
{
    const ccs_cost *k = (const ccs_cost *)name_cost_vec.base;
    double t[4] = {0, 0, 0, 0};
    for (uint32_t i = 0; i < nname_cost; i++) {
        t[0] += k[i].drag_bs;
        t[1] += k[i].drag_unsure_bs;
        t[2] += k[i].void_bs;
        t[3] += k[i].void_unsure_bs;
    }
    hp_buf_str(&out, "Uncertain DRAG and VOID (objects on a page left open for the rest of "
                     "a period before they were seen used -- by the policy, or for a system "
                     "call's buffer: a use there may have been missed, so part of their DRAG "
                     "or VOID may be USE or LAG)\n");
    for (int b = 0; b < 2; b++) {
        hp_buf_str(&out, b ? "  VOID byte-seconds " : "  DRAG byte-seconds ");
        hp_buf_fixed(&out, t[2 * b], 3);
        hp_buf_str(&out, ", uncertain ");
        hp_buf_fixed(&out, t[2 * b + 1], 3);
        hp_buf_str(&out, " (");
        hp_buf_fixed(&out, t[2 * b] > 0 ? 100.0 * t[2 * b + 1] / t[2 * b] : 0, 1);
        hp_buf_str(&out, "%)\n");
    }
    hp_buf_chr(&out, '\n');
    double lag = (double)atomic_load(&hp_ldv.lag_bus) / 1e6;
    double lag_unsure = (double)atomic_load(&hp_ldv.lag_unsure_bus) / 1e6;
    hp_buf_str(&out, "Uncertain LAG (objects first seen used after a period in which their "
                     "page was left open before they were seen used: their first use may have "
                     "come earlier, so part of their LAG may be USE or DRAG)\n");
    hp_buf_str(&out, "  LAG byte-seconds ");
    hp_buf_fixed(&out, lag, 3);
    hp_buf_str(&out, ", uncertain ");
    hp_buf_fixed(&out, lag_unsure, 3);
    hp_buf_str(&out, " (");
    hp_buf_fixed(&out, lag > 0 ? 100.0 * lag_unsure / lag : 0, 1);
    hp_buf_str(&out, "%)\n\n");
}

/* The exit's warning when a tenth or more of the DRAG and VOID
 * byte-seconds are uncertain (see uncertain_lines): the .hp alone shows
 * them as fact. Says why pages were left open and what sees more. */
void hp_ldv_warnings(hp_buf *b)
{
    const ccs_cost *k = (const ccs_cost *)cost_vec.base;
    double all = 0, unsure = 0;
    for (uint32_t i = 0; i < ncost; i++) {
        all += k[i].drag_bs + k[i].void_bs;
        unsure += k[i].drag_unsure_bs + k[i].void_unsure_bs;
    }
    if (all <= 0 || unsure < all / 10) return;
    hp_buf_str(b, "warning: ");
    hp_buf_fixed(b, 100.0 * unsure / all, 1);
    hp_buf_str(b, "% of the DRAG and VOID byte-seconds are uncertain (part of them may be "
                  "LAG or USE): ");
    uint64_t past = atomic_load(&hp_ldv.budget_first_ns);
    if (!hp_ldv.precise) {
        hp_buf_str(b, "ldv=page leaves a page open for the rest of a period at its first "
                      "fault, so later first uses of its other objects are not seen; the "
                      "default policy (ldv=adaptive) or ldv=precise sees them, at more cost");
    } else if (hp_ldv.repeat && past) {
        hp_buf_str(b, "the policy's budget was spent at ");
        hp_buf_fixed(b, (double)past / 1e9, 2);
        hp_buf_str(b, " s of the program's time, and pages were left open from then on "
                      "before their objects were seen used");
        if (hp_ldv.rested) {
            hp_buf_str(b, " (");
            hp_buf_u64(b, hp_ldv.rested);
            hp_buf_str(b, " of ");
            hp_buf_u64(b, hp_ldv.rested + hp_ldv.passes);
            hp_buf_str(b, " periods not watched at all)");
        }
        hp_buf_str(b, "; a larger budget (budget=X: what watching may cost, floor= seconds, "
                      "default 0.5, or faults= faults, default 65536, where more, plus X "
                      "times the program's time, default 0.3; heapprof --budget=X --floor=S "
                      "--faults=N) or ldv=precise sees more, at more cost");
    } else if (hp_ldv.repeat) {
        hp_buf_str(b, "the policy left pages open after faults that found no new use, "
                      "before their other objects were seen used; repeat=16 (heapprof "
                      "--repeat=16) or ldv=precise sees more, at more cost");
    } else {
        hp_buf_str(b, "pages were left open for system calls' buffers or for want of "
                      "map entries");
    }
    hp_buf_str(b, "; the .prof's \"Uncertain DRAG and VOID\" gives the figures\n");
}

/* The top names by drag (which = 0) or void (1), 20 rows (after
 * fold_by_name). */
static void table(int which)
{
    ccs_cost *k = (ccs_cost *)name_cost_vec.base;
    uint32_t nnames = nname_cost;
    double total = 0;
    for (uint32_t i = 0; i < nnames; i++) total += which ? k[i].void_bs : k[i].drag_bs;
    hp_buf_str(&out, which ? "\nTop cost-centre stacks by VOID (bytes x seconds never used):\n"
                           : "\nTop cost-centre stacks by DRAG (bytes x seconds held after last use):\n");
    hp_buf_str(&out, "  byte-seconds  share  cost-centre stack\n");
    double prev = -1;
    uint32_t prev_id = UINT32_MAX;
    for (int n = 0; n < 20; n++) {
        /* The next largest after (prev, prev_id), ties by id. */
        uint32_t best = UINT32_MAX;
        double bv = 0;
        for (uint32_t i = 0; i < nnames; i++) {
            double v = which ? k[i].void_bs : k[i].drag_bs;
            if (v <= 0) continue;
            if (prev >= 0 && (v > prev || (v == prev && i <= prev_id))) continue;
            if (best == UINT32_MAX || v > bv) { best = i; bv = v; }
        }
        if (best == UINT32_MAX) break;
        row(best, bv, total);
        prev = bv;
        prev_id = best;
    }
    if (prev < 0) hp_buf_str(&out, "  (none)\n");
    if (which) hp_buf_chr(&out, '\n');
}

static void line_u64(const char *key, uint64_t v)
{
    hp_buf_strw(&out, key, 28);
    if (strlen(key) >= 28) hp_buf_chr(&out, ' ');
    hp_buf_u64(&out, v);
    hp_buf_chr(&out, '\n');
}

void hp_ldv_write_prof(int fd)
{
    hp_buf_reset(&out);
    hp_buf_str(&out, hp_ldv_sides ? "\nLag, drag, void, use (HEAPPROF=retainer,bands=, policy "
                                  : "\nLag, drag, void, use (HEAPPROF=ldv, policy ");
    hp_buf_str(&out, !hp_ldv.precise ? "page" : hp_ldv.repeat ? "adaptive" : "precise");
    if (hp_ldv.repeat) {
        hp_buf_str(&out, ", repeat=");
        hp_buf_u64(&out, hp_ldv.repeat);
        hp_buf_str(&out, ", budget=");
        hp_buf_fixed(&out, hp_ldv.budget_ratio, 2);
    }
    hp_buf_str(&out, ")\n");
    if (hp_rt.cfg.ldv_bands) {
        hp_buf_str(&out, "  (the .hp shows the bytes in ");
        hp_buf_str(&out, hp_rt.cfg.ldv_bands == (HP_BAND_DRAG | HP_BAND_VOID) ? "DRAG and VOID"
                         : hp_rt.cfg.ldv_bands == HP_BAND_DRAG ? "DRAG" : "VOID");
        hp_buf_str(&out, hp_ldv_sides
                         ? " by retainer set (mode retainer, bands=, GHC's -hr -hb<bands> in one "
                           "run): each object's band at each census, known when it died, under "
                           "its retainer set at that census; the figures below are the whole "
                           "biography's, by stack)\n"
                         : " by cost-centre stack (bands=, GHC's -hc -hb<bands>): each object's "
                           "band at each census, known when it died; the figures below are the "
                           "whole biography's)\n");
        if (hp_ldv_sides) hp_ldv_byret_prof(&out);
    }
    line_u64("  censuses", ncensus);
    line_u64("  protect passes", hp_ldv.passes);
    line_u64("  periods rested past the budget", hp_ldv.rested);
    {
        uint64_t allow = 0;
        uint64_t spent = hp_ldv_watch_cost(&allow, NULL);
        line_u64("  watching cost (ms)", spent / 1000000);
        if (hp_ldv.repeat && hp_ldv.budget_ratio > 0) {
            line_u64("  watching allowance (ms)", allow / 1000000);
            hp_buf_str(&out, "    of it the floor (ms)      ");
            hp_buf_u64(&out, hp_ldv_budget_floor_ns() / 1000000);
            hp_buf_str(&out, " (the larger of floor= ");
            hp_buf_fixed(&out, hp_rt.cfg.ldv_floor, 2);
            hp_buf_str(&out, " s and faults= ");
            hp_buf_u64(&out, hp_ldv.budget_floor_faults);
            hp_buf_str(&out, " faults at a fault's kernel cost)\n");
        }
    }
    if (hp_rt.cfg.ldv_window) {
        /* (window=: reads soon after an object is made are watched) */
        hp_buf_str(&out, "  window collections        ");
        hp_buf_u64(&out, atomic_load(&hp_rt.window_collections));
        hp_buf_str(&out, " (window=");
        hp_buf_u64(&out, hp_rt.cfg.ldv_window);
        hp_buf_str(&out, ": one after every window's bytes allocated by a thread)\n");
    } else {
        hp_buf_str(&out, "  (not watched: reads of an object between its making and the next "
                         "collection; an object read only then is VOID here, DRAG in truth. "
                         "window=BYTES watches them, at a cost, to measure how much of VOID "
                         "that is: doc/options.md)\n");
    }
    line_u64("  index build (ms)", hp_ldv.index_ns / 1000000);
    line_u64("  index built whole (passes)", hp_ldv.index_whole);
    line_u64("  protect (ms)", hp_ldv.protect_ns / 1000000);
    line_u64("  open at collections (ms)", hp_ldv.open_ns / 1000000);
    line_u64("  pages protected (last)", hp_ldv.pages_protected);
    line_u64("  runs protected (most)", hp_ldv.max_runs);
    line_u64("  faults", atomic_load(&hp_ldv.faults));
    line_u64("  a fault in the kernel (ns, measured)", hp_ldv_trap_.fault_ns);
    line_u64("  a page's first touch after a protection change (ns, measured)",
             hp_ldv_trap_.retouch_ns);
    line_u64("  collector faults", atomic_load(&hp_ldv.gc_faults));
    line_u64("  faults on objects used already", atomic_load(&hp_ldv.stale_faults));
    line_u64("  faults initialising new objects", atomic_load(&hp_ldv.init_faults));
    line_u64("  faults on objects made since the pass, or free memory", atomic_load(&hp_ldv.free_faults));
    line_u64("  pages left open, nothing to learn", atomic_load(&hp_ldv.settled_opens));
    line_u64("  objects a pass left open, used this period", hp_ldv.settled_skipped);
    if (hp_ldv.repeat) {
        uint64_t first = atomic_load(&hp_ldv.budget_first_ns);
        if (first) {
            hp_buf_str(&out, "  past the budget first at (s)     ");
            hp_buf_fixed(&out, (double)first / 1e9, 3);
            hp_buf_chr(&out, '\n');
        } else {
            hp_buf_str(&out, "  past the budget first at (s)     never\n");
        }
        line_u64("  pages left open while past the budget", atomic_load(&hp_ldv.budget_opens));
        line_u64("  pages left open at a fault that could teach nothing",
                 atomic_load(&hp_ldv.alien_opens));
        line_u64("    protected again once the allocator worked elsewhere",
                 atomic_load(&hp_ldv.alien_rearms));
        line_u64("      whose next fault found a use", atomic_load(&hp_ldv.rearms_paid));
        line_u64("      whose next fault could teach nothing", atomic_load(&hp_ldv.rearms_wasted));
        _Static_assert(HP_LDV_GROUP_PAGES == 16, "the line below names the group's size");
        line_u64("    with their group of 16 (64 KiB)", atomic_load(&hp_ldv.group_opens));
    }
    line_u64("  re-armed, emulated", atomic_load(&hp_ldv.emulated));
    line_u64("  re-armed, single-stepped", atomic_load(&hp_ldv.steps));
    line_u64("  bursts (emulated on after a fault)", atomic_load(&hp_ldv.bursts));
    line_u64("    not made after a fault on a used object, for want of uses",
             atomic_load(&hp_ldv.stale_bursts_skipped));
    line_u64("    instructions emulated in them", atomic_load(&hp_ldv.burst_insns));
    line_u64("    first uses they saw", atomic_load(&hp_ldv.burst_uses));
    line_u64("    protected pages read through the descriptor", atomic_load(&hp_ldv.burst_peeks));
    line_u64("  emulated without opening the page", atomic_load(&hp_ldv_peek_.peeks));
    line_u64("    the descriptor's identity checked", atomic_load(&hp_ldv_peek_.identity_checks));
    line_u64("    of them while other threads ran", atomic_load(&hp_ldv_peek_.shared_peeks));
    line_u64("  opened for one instruction while other threads ran", atomic_load(&hp_ldv.shared_opens));
    line_u64("  uses recorded", atomic_load(&hp_ldv.uses));
    line_u64("  system-call buffer uses", atomic_load(&hp_ldv.sys_uses));
    line_u64("  EFAULT retries", atomic_load(&hp_ldv.efault_retries));
    hp_buf_str(&out, hp_ldv_sud_.usable ? "  system calls seen by dispatch\n"
                     : hp_ldv.sud_wanted ? "  system calls seen by the C library interposers only "
                                           "(this kernel has no syscall user dispatch)\n"
                                         : "  system calls seen by the C library interposers only "
                                           "(syscalls=wrappers)\n");
    line_u64("  system calls dispatched", atomic_load(&hp_ldv_sud_.dispatched));
    line_u64("  a dispatched call in the kernel (ns, measured)", hp_ldv_sud_.sys_ns);
    line_u64("  dispatch, profiler time (ms)", atomic_load(&hp_rt.dispatch_ns) / 1000000);
    line_u64("  system calls re-run by their thread", atomic_load(&hp_ldv_sud_.stepped));
    line_u64("  map-entry budget", hp_ldv.map_budget > 0 ? (uint64_t)hp_ldv.map_budget : 0);
    line_u64("  coarse opens (budget)", atomic_load(&hp_ldv.coarse_opens));
    line_u64("  runs left unprotected", hp_ldv.runs_skipped);
    line_u64("  objects made INHERENT_USE", hp_ldv.inherent_objects);
    line_u64("  pages the program protected (most)", (uint64_t)hp_ldv_prog_pages());
    line_u64("  map calls failed near the limit", atomic_load(&hp_ldv_vm_enomem));
    line_u64("  gave way to the program (periods)", atomic_load(&hp_ldv_vm_gave_way));
    if (atomic_load(&hp_ldv_vm_gave_way))
        hp_buf_str(&out, "  (precision degraded: the program needed heapprof's map entries\n"
                         "   (vm.max_map_count); every object on a protected page counts as\n"
                         "   used in the period heapprof gave them way; see doc/limitations.md)\n");
    if (hp_ldv.runs_skipped || hp_ldv.inherent_objects || atomic_load(&hp_ldv.coarse_opens) ||
        atomic_load(&hp_ldv.enomem))
        hp_buf_str(&out, "  (precision degraded: the kernel's map-entry budget (vm.max_map_count)\n"
                         "   did not allow protecting or opening every page singly; see\n"
                         "   doc/limitations.md)\n");
    fold_by_name();
    table(0);
    table(1);
    if (hp_ldv_sides) hp_ldv_byret_tables(&out);
    uncertain_lines();
    hp_buf_write(&out, fd);
}
/* ---- end of async-signal-safe code ---- */
