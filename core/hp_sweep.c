/* hp_sweep: the store's one sweep (see hp_sweep.h).
 *
 * One loop body (judge_range), specialised by the compiler on the flags it
 * is given and on where its records come from and go (FORM_*: a table of
 * hp_rec; a log's records into a compact table; a compact table into
 * itself, decoded and written back a record at a time behind the
 * reading). The common collections (judged by the collector's marks, no
 * census filter, by stack) run loops whose tests are constants, with or
 * without a census, the report's breakdowns and an observer; anything else
 * (a census without a collection, filters or labels, a caller's own
 * liveness test) runs the generic loop. */
#include "core/hp_sweep.h"
#include "core/hp_sample.h"
#include "core/hp_assert.h"
#include "core/hp_real.h"
#include "core/hp_shadow_internal.h"
#include "core/hp_blocks.h"

typedef struct sweep_run sweep_run;
/* Judge records recs[0..n-1], whose indexes are idx0 + k; or, for a
 * compact table's own pass (FORM_TABLE), the table's entries. */
typedef void (*judge_fn)(sweep_run *s, hp_rec *recs, size_t n, size_t idx0, int in_table);

/* Where a loop's records come from and where survivors go. */
enum {
    FORM_RECS,      /* records (hp_rec[]) into a table of records */
    FORM_LOGS,      /* records (a log's, decoded) into a compact table */
    FORM_TABLE,     /* a compact table's entries into itself */
    FORM_COUNT
};

struct sweep_run {
    const hp_sweep_spec *spec;
    hp_sweep_result res;
    hp_ccs_stats *stats;
    hp_rec *table;        /* where survivors go */
    size_t out;           /* survivors so far (words, if compact) */
    /* A compact table (Note [The compact table]): survivors are written
     * back as words; the table pass has read the words before `rd`. */
    int compact;
    uint64_t *ctable;
    size_t rd, len, kept;
    hp_same in_prev, out_prev;   /* Note [Runs of the same]: read, written */
    size_t shift;         /* words moved up so far: rd - shift is an index */
    size_t next_idx;      /* index of the next record from the logs */
    /* Side entries (hp_shadow.h, Note [Side entries]): records read from
     * the table so far (the next one's ordinal), the ordinal of the next
     * from the logs and of the first of the span being judged. Observers
     * hear ordinals. */
    int side;
    size_t rord, next_ord, ord0;
    judge_fn judge_range, judge_logs;   /* the table's loop; the logs' */
    int frees;
    int log_runs;         /* the logs' runs judged whole (Note [Young runs]) */
    const hp_sweep_observer *lab;   /* a census labelled by shape (census_run), or NULL */
    /* Note [Young survivors grouped by site]: on, and how many wait in
     * hp_store_.young_vec. */
    int sort_young;
    size_t young_n;
    hp_blocks blocks;     /* is_live's pages in use */
};

/* Is the object at `base` live after this collection? Only if its page
 * still holds a block in use (core/hp_blocks.h); in a block in use, base
 * is either still an object start with a valid mark bit, or (block reused
 * for another size) some granule whose bit is clear. */
static inline int is_live(hp_blocks *b, uintptr_t base)
{
    return hp_blocks_in_use(b, base) && hp_real.GC_is_marked((void *)base) != 0;
}

/* Is the object at `base` live: by the collector's mark (`marks`), or
 * by the sweep's own test? */
static inline int judged_live(sweep_run *s, int marks, uintptr_t base)
{
    return marks ? is_live(&s->blocks, base) : s->spec->live(base, s->spec->live_ctx);
}

/* Where the table pass may write up to: the words it has read, and the
 * run it is in the middle of, whose word it keeps (Note [Runs down a
 * block]). */
static inline size_t read_limit(const sweep_run *s)
{
    return s->rd + (s->in_prev.run != 0 && s->rd < s->len);
}

/* The survivor being written back to a compact table, while its `moved`
 * is heard (hp_shadow_sweep's visitor sees it there). */
static hp_rec *moving;

/* A compact table's survivor `r` at entry `out`, where the table has no
 * room before the entries not yet read (a short record made long by a
 * resize that changed its granted bytes, which the collector does not do:
 * Note [The compact table]; a run cut by deaths into more entries than it
 * took, or a same entry written as a short one: Note [Runs down a
 * block]): those entries are moved up first. Returns the entries
 * written. */
__attribute__((noinline)) static size_t put_compact_slow(sweep_run *s, size_t out,
                                                         const hp_rec *r, const uint64_t *e,
                                                         size_t len, const hp_same *next)
{
    if (out + len > read_limit(s) && s->rd < s->len) {
        /* Room: what this entry needs, and a gap of an eighth of what is
         * left to read, so that the entries still to come move rarely (a
         * run cut by deaths writes more entries than it took: Note [Runs
         * down a block]; moving the rest up for each of them made the
         * sweep quadratic, 14x on a 1 GB heap). */
        size_t need = out + len - s->rd + (s->len - s->rd) / 8 + 512;
        uint64_t *t = hp_shadow_room(s->len + need);
        if (!t) {   /* out of memory: the record is lost (said at exit) */
            hp_shadow_lost_recs(r, 1);
            return 0;
        }
        __builtin_memmove(t + s->rd + need, t + s->rd, (s->len - s->rd) * sizeof *t);
        s->res.moves++;
        s->ctable = t;
        s->rd += need;
        s->len += need;
        s->shift += need;
    }
    __builtin_memcpy(&s->ctable[out], e, len * sizeof *e);
    s->out_prev = *next;
    /* (a same entry's run may grow; a short or long one has none) */
    if (len) s->out_prev.last = len == 1 ? &s->ctable[out] : NULL;
    s->kept++;
    return len;
}

/* A compact table's survivor `r` at entry `out`; returns the entries
 * written. An entry that is already what it would be written as (a record
 * that stays where it was and has stopped ageing: most of a big table) is
 * left alone, so that its cache line is not made dirty. */
static inline __attribute__((always_inline)) size_t put_compact(sweep_run *s, size_t out,
                                                                 const hp_rec *r)
{
    uint64_t e[HP_LONG_WORDS];
    hp_same next = s->out_prev;
    hp_rec c;
    r = hp_side_strip(r, &c);   /* (with side entries: its birth and word beside it) */
    size_t len = hp_tab_put(e, r, &next);   /* (0: grew the run at out_prev.last) */
    if (__builtin_expect(len <= 2 && out + len <= read_limit(s), 1)) {
        uint64_t *dst = &s->ctable[out];
        if (len && dst[0] != e[0]) dst[0] = e[0];
        if (len == 2 && dst[1] != e[1]) dst[1] = e[1];
        if (len == 1) next.last = dst;   /* (a same entry: a run may grow from it) */
        s->out_prev = next;
        s->kept++;
        return len;
    }
    return put_compact_slow(s, out, r, e, len, &next);
}

/* A run kept in place so far (Note [Runs down a block]) ends early, at
 * one of its objects that dies or is written otherwise: its first `kept`
 * objects become the entry at `out` (what the reader saved of the word is
 * in s->in_prev.runw), top byte `top`. Returns the next entry's place. */
static size_t run_cut(sweep_run *s, size_t out, unsigned kept, uint64_t top)
{
    uint64_t w = s->in_prev.runw;
    w = (w & (HP_LOG_BASE | 15)) | (uint64_t)(kept - 1) << HP_RUN_SHIFT | top << 56;
    s->ctable[out] = w;
    s->out_prev.last = &s->ctable[out];
    return out + 1;
}

/* Note [Runs judged whole]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Most of a big live heap sits in the table in runs down a block (Note
 * [Runs down a block], core/hp_shadow_log.h) whose objects all live
 * on from collection to collection. Decoding such a run's objects one by
 * one, judging, counting and writing each back was most of the sweep's
 * time on a heap of a million or more long-lived objects
 * (bench/heap_sweep.c at 512 MB: 18% of the whole run). A same entry at
 * the reading place, with no flags, where the entry written last repeats
 * the same stack, sizes and kind (so the entry means the same where it
 * stands), is judged first as a whole: each of its objects is asked the
 * collector's mark bit (or the sweep's own test) and the frees' filter.
 * If every one is live and none may have been freed, the run is counted
 * in one step: tallied to its stack if its objects are new (age 0: a
 * drain put them in the table), their bytes survived if so, its stack's
 * census; its entry stays (or is copied back where the table is written,
 * out <= at), one older. Otherwise nothing has changed and its objects go
 * through the loop one by one, as any others. Only sweeps that judge,
 * without an observer (which hears of every record, and may filter the
 * census) and, for new objects, without breakdowns, do this; and not
 * under sample= (whose records are weighted, and never same entries).
 * An observer that labels the census by a record's shape alone, and hears
 * nothing else (mode kind: hp_sweep_observer.census_run), is asked about
 * the run's objects at once (`lab`). */
static inline __attribute__((always_inline)) int
run_kept_whole(sweep_run *s, size_t out, int census, int marks, int breakdown,
               const hp_sweep_observer *lab, uint64_t *live_bytes, uint64_t *live_objects)
{
    size_t at = s->rd;
    if (s->in_prev.run != 0 || hp_sample_on) return 0;
    uint64_t w = s->ctable[at];
    unsigned top = (unsigned)(w >> 56), age = top & 7;
    if ((w & 15) != HP_LOG_SAME || (top >> 3) != 0 || (age == 0 && breakdown)) return 0;
    unsigned extra = hp_run_extra(w);
    const hp_same *in = &s->in_prev, *o = &s->out_prev;
    if (extra == 0 || !(in->kh & HP_SAME_VALID) || o->kh != in->kh || o->ccs != in->ccs ||
        o->sizes != in->sizes)
        return 0;
    uintptr_t base = (uintptr_t)(w & HP_LOG_BASE);
    uint64_t g = (uint64_t)(in->sizes >> 16) << 4;
    for (unsigned m = 0; m <= extra; m++) {
        uintptr_t b = base - m * g;
        if ((s->frees && hp_shadow_freed_maybe(b)) ||
            !judged_live(s, marks, b))
            return 0;
    }
    uint64_t k = (uint64_t)extra + 1;
    hp_ccs_stats *st = s->stats ? &s->stats[in->ccs] : NULL;
    if (age == 0) {   /* (new: tallied, and they survived a collection) */
        uint64_t req = g - (in->sizes & 0xffff);
        if (st) {
            st->objects += k;
            st->bytes += k * g;
            st->requested += k * req;
            st->survived += k * g;
        }
        s->res.objects += k;
        s->res.bytes += k * g;
        s->res.requested += k * req;
        s->res.survived += k * g;
    }
    int counted = census;
    if (census && lab) {   /* (the run's first object, as the loop would see it) */
        hp_rec r = {0};
        r.base = base;
        r.ccs = in->ccs;
        r.granted = (uint32_t)g;
        r.req = (uint32_t)(g - (in->sizes & 0xffff));
        r.kind = (uint8_t)(in->kh & 0xff);
        r.how = (uint8_t)((in->kh >> 8) & 0xff);
        r.age = (uint8_t)(age < HP_AGE_MAX ? age + 1 : age);
        counted = lab->census_run(lab->ctx, &r, k);
    }
    if (counted) {
        if (st) {
            st->census += k * g;
            st->census_objects += k;
        }
        *live_bytes += k * g;
        *live_objects += k;
    }
    if (age < HP_AGE_MAX) w = (w & 0x00ffffffffffffffull) | (uint64_t)(age + 1) << 56;
    if (out != at || age < HP_AGE_MAX) s->ctable[out] = w;   /* (out <= at) */
    s->out_prev.run = 0;
    s->out_prev.last = &s->ctable[out];
    s->rd = at + 1;
    s->kept += k;
    return 1;
}

/* Note [Side entries heard]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * With side entries (core/hp_shadow.h, Note [Side entries]) a survivor's
 * entry is written at its new ordinal, and its move heard (runs of moves
 * at once, moved_run), before the survivor itself is written -- as the
 * table's pass writes any survivor: its entry kept in place, a run kept
 * whole, or written anew -- so the ways of keeping the table's entries
 * where they are (Note [Runs judged whole], Note [Runs down a block]),
 * which no observer of moves could hear, serve mode ldv too. Measured on
 * trees.c depth 17 under ldv=page (perf, share of the run): with every
 * survivor written anew and its move heard alone, the sweep took 15% of
 * the run against 5.4% with the 32-byte table. A run judged whole has
 * its objects' entries moved, their censuses heard (`counted`, a record
 * made for each from the run's entry) and their moves heard as a run
 * (side_run_kept). */
static void side_run_kept(sweep_run *s, size_t out, size_t ro, size_t wo, size_t k,
                          void (*counted)(const hp_rec *, uint32_t), uint32_t t)
{
    hp_rec_side *sd = (hp_rec_side *)hp_store_.side_vec.base;
    uint64_t w = s->ctable[out];   /* (the run's entry, one older) */
    unsigned age = (unsigned)(w >> 56) & 7;
    for (size_t j = 0; j < k; j++) {   /* (wo <= ro: never ahead of the reading) */
        hp_rec_side e = sd[ro + j];
        if (age >= 2) e.bits |= HP_SIDE_OLD;
        sd[wo + j] = e;
    }
    if (!counted) return;
    const hp_same *in = &s->in_prev;
    hp_rec r = {0};
    uint64_t g = (uint64_t)(in->sizes >> 16) << 4;
    r.ccs = in->ccs;
    r.granted = (uint32_t)g;
    r.req = (uint32_t)(g - (in->sizes & 0xffff));
    r.kind = (uint8_t)(in->kh & 0xff);
    r.how = (uint8_t)((in->kh >> 8) & 0xff);
    r.age = (uint8_t)age;
    uintptr_t base = (uintptr_t)(w & HP_LOG_BASE);
    for (size_t j = 0; j < k; j++) {
        r.base = base - j * g;
        r.flags = 0;
        hp_side_get(&r, wo + j);
        counted(&r, t);
    }
}

/* Note [Drained records join runs]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A drain (at every explicit free: hp_shadow_note_free) copies a log's
 * entries into the table as they are, and in a log a site's objects seldom
 * follow each other (a program that frees makes other objects between
 * them: Crystal's strings come between their builders' buffers), so they
 * are short entries there. The table pass keeps a short survivor's words
 * in place (below); alone, that would keep them short for good, though
 * the dead between them are gone: Crystal's work.cr n=200000 kept 1.2
 * million strings as 1.18 million short entries, 25 bytes an object live,
 * each judged one by one at every sweep. So a survivor that repeats the
 * entry written before it (its stack, sizes and kind), and is either short
 * or would extend the run written last, is written again
 * (put_compact): as a same entry, or as one more object of that run.
 * It then costs 8 bytes or none, and its run is judged whole (Note [Runs
 * judged whole]). A run's objects share its first's index: no free noted
 * before this sweep is asked of them again (the sweep forgets the frees),
 * and those noted after it come after every index in the table. */
static inline __attribute__((always_inline)) int joins_last(const sweep_run *s, const hp_rec *r,
                                                            unsigned took)
{
    if (!hp_same_as(&s->out_prev, r)) return 0;
    if (took == 2) return 1;
    const uint64_t *l = s->out_prev.last;
    return l && hp_run_takes(*l, r->base, (uint64_t)r->age | (uint64_t)r->flags << 3,
                             (uint64_t)(s->out_prev.sizes >> 16) << 4, HP_RUN_SHIFT, HP_RUN_MAX,
                             -1);
}

/* Note [Young survivors grouped by site]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A runtime makes objects of several sites in turn (ECL: a string, its
 * characters, a cons; Guile: a pair, a string, its buffer), each site's
 * from a block of its own, down the block. The log keeps the last few
 * sites (Note [Recent sites]), but the table repeats only the record
 * before (Note [Runs of the same]), so such survivors were written as
 * short entries, 16 bytes each for good, and judged one by one at every
 * sweep: ECL's hash table workload, 15.4 bytes a live object in the
 * table. So in a sweep that no observer hears (or one labelled by shape
 * alone), a survivor of its first collection (age 1 now) that would be
 * written as a short entry (it repeats neither the record written before
 * it nor, from the table, the run written last) and does not begin a run
 * (the record after it is of another site, or, in the table, no same
 * entry follows it) is put aside as its short entry; those put aside, up
 * to YOUNG_CHUNK at a time (and the rest at the end of the table's pass
 * and of the logs'), are grouped by site (stack, sizes, kind, how, age and flags), each group in the order it
 * came, and written where the table is being written, a site's objects
 * now following each other down their block: as same entries, and runs
 * where they are adjacent. Order in the table means nothing after a sweep
 * (it has applied and forgotten every free, Note [Drained records join
 * runs]). Each record is grouped once, in the sweep after its birth.
 * Measured on the .prof's profiler memory, bytes per object live at the
 * peak, mode cc (one run each, interleaved): ECL's hash table workload
 * 27.8 -> 19.6 (its table 15.4 -> 5.9), Guile's 400,000-entry hash table
 * 15.6 -> 10.3 (11.2 -> 5.2); Crystal's work.cr n=200000, whose strings
 * joined up without this, 12.8 -> 14.6 (the batch's room and the table's
 * for it), profiler time 0.73 -> 0.75 s (medians of five); w3m and
 * trees.c the same. The profiles are the same, file for file (w3m in
 * modes cc, kind, module and cc,report=full, poke, nix).
 * Sorting them instead (by site, then address) cost Guile's hash table
 * 0.28 s more profiler time (3.3 million records sorted once each); all
 * of a sweep's put aside at once, the room for them raised the peak
 * (Crystal 14.0 -> 16.5); a rule that put aside fewer (only after a young
 * survivor of another site) lost most of ECL's gain (15.4 -> 12.8 in the
 * table). Without room for them, they are written as before.
 * Batches of 2,048 instead of 32,768 (40 KiB of room instead of 640, and
 * the table's room for a batch as small) left ECL's table smaller (6.06
 * -> 5.51 MB at its peak: the sites made in turn are grouped within a few
 * hundred objects), Guile's the same, and lowered the peak: ECL 17.2-17.9
 * -> 16.1-16.2 bytes per object (when its logs peaked alike), Crystal 14.6
 * -> 9.5; profiler times the same (medians of three). */
/* Does b repeat a's stack, sizes, kind and how (a same entry after it)? */
static inline int same_site(const hp_rec *a, const hp_rec *b)
{
    return a->ccs == b->ccs && a->granted == b->granted && a->req == b->req &&
           a->kind == b->kind && a->how == b->how;
}

/* At most this many wait at a time (20 bytes each: the entry and its
 * group's list); then they are written, at `out`, grouped, and the sweep
 * goes on: profiler memory for this stays at 40 KiB. */
#define YOUNG_CHUNK ((size_t)1 << 11)
static void young_write(sweep_run *s);

static int young_put(sweep_run *s, const hp_rec *r)
{
    hp_vec *v = &hp_store_.young_vec;
    size_t room = YOUNG_CHUNK * (2 * sizeof(uint64_t) + sizeof(uint32_t));
    if (room > v->committed && hp_vec_ensure(v, room) != 0) return 0;
    if (s->young_n == YOUNG_CHUNK) young_write(s);
    uint64_t *w = (uint64_t *)v->base + 2 * s->young_n;
    hp_same none = {0};
    if (hp_tab_put(w, r, &none) != 2) return 0;   /* (fits a short entry: checked) */
    s->young_n++;
    return 1;
}

/* The sites of a sweep's young survivors: (stack and sizes; how, kind,
 * age and flags) to a group, by open addressing, at most half the slots
 * used; a site that finds no room joins the last group made (in arrival
 * order). Each group is a list through the entries (its first and last;
 * the next of each entry after the entries), in arrival order. Static:
 * the sweep is the owner's, one at a time, and the collecting thread's
 * stack may be small. */
#define YOUNG_SLOTS 2048
#define YOUNG_GROUPS (YOUNG_SLOTS / 2)
#define YOUNG_END UINT32_MAX
typedef struct young_site { uint64_t w1, k0; uint32_t group, used; } young_site;
static young_site young_sites[YOUNG_SLOTS];
static uint32_t young_first[YOUNG_GROUPS], young_last[YOUNG_GROUPS];

/* The group of entry e (two words), made if new. */
static inline uint32_t young_group_of(const uint64_t *e, uint32_t *groups)
{
    uint64_t w1 = e[1], k0 = e[0] & ~HP_LOG_BASE;
    uint64_t h = (w1 ^ k0 * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
    for (size_t k = (size_t)(h >> 53) & (YOUNG_SLOTS - 1);; k = (k + 1) & (YOUNG_SLOTS - 1)) {
        young_site *st = &young_sites[k];
        if (!st->used) {
            if (*groups == YOUNG_GROUPS) return *groups - 1;
            st->used = 1;
            st->w1 = w1;
            st->k0 = k0;
            st->group = *groups;
            young_first[*groups] = YOUNG_END;
            return (*groups)++;
        }
        if (st->w1 == w1 && st->k0 == k0) return st->group;
    }
}

/* Write the young survivors put aside at `out`, group by group (a site's
 * objects come down its block as they were made, so a group is its runs).
 * Their room was made before they were put aside (a record tallied and
 * then lost for want of memory would be counted twice in the .prof): in
 * the table's own pass, room for two words each past the table's length
 * (`out` is behind the reading; what is not yet read moves up if it must:
 * put_compact); from the logs, each span's and run's room includes two
 * words for each put aside. */
static void young_write(sweep_run *s)
{
    size_t n = s->young_n;   /* (at most YOUNG_CHUNK: young_put) */
    s->young_n = 0;
    const uint64_t *e = (const uint64_t *)hp_store_.young_vec.base;
    uint32_t *next = (uint32_t *)(hp_store_.young_vec.base + 2 * YOUNG_CHUNK * sizeof(uint64_t));
    uint32_t groups = 0;
    memset(young_sites, 0, sizeof young_sites);
    for (size_t i = 0; i < n; i++) {
        uint32_t g = young_group_of(&e[2 * i], &groups);
        next[i] = YOUNG_END;
        if (young_first[g] == YOUNG_END) young_first[g] = (uint32_t)i;
        else next[young_last[g]] = (uint32_t)i;
        young_last[g] = (uint32_t)i;
    }
    uint64_t *t = hp_shadow_room(s->out + 2 * n);
    hp_same none = {0};
    for (uint32_t g = 0; g < groups; g++)
        for (uint32_t i = young_first[g]; i != YOUNG_END; i = next[i]) {
            hp_rec r;
            none.kh = 0;
            hp_tab_get(&e[2 * (size_t)i], &r, &none);
            if (t) {
                s->ctable = t;
                s->out += put_compact(s, s->out, &r);
            } else {   /* out of memory: the record is lost (said at exit) */
                hp_shadow_lost_recs(&r, 1);
            }
        }
}

/* Note [Survivors in runs]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Mode ldv hears every survivor of a sweep (its address index follows the
 * records as the table closes up: ldv/hp_ldv_prot.c, Note [Kept bits]), a
 * call through a pointer for each; on trees.c depth 18, about 120 sweeps
 * of a million records, 2% of the run. A table's survivors come in long
 * runs (what a program built together lives together), so an observer
 * with moved_run hears each run of survivors once: records i..i+k-1 to
 * slots out..out+k-1. The run is told before the next record's death is,
 * and at the end of each span: the order of reports is kept.
 * Likewise the deaths of young objects from the logs, most of a
 * program's, which mode ldv's biography would only find had nothing to
 * tell it (never used, born since the last census): quiet_young. */

/* Survivors from index `from` on, k of them, moved to slots from `to` on:
 * added to the run of moves not yet heard (*m_idx, *m_to, *mk), or that
 * run heard and this one begun (Note [Survivors in runs]). */
static inline void hear_moves(const hp_sweep_observer *obs, size_t *m_idx, size_t *m_to,
                              size_t *mk, size_t from, size_t to, size_t k)
{
    if (*mk && *m_idx + *mk == from && *m_to + *mk == to) {
        *mk += k;
        return;
    }
    if (*mk) obs->moved_run(*m_idx, *m_to, *mk);
    *m_idx = from;
    *m_to = to;
    *mk = k;
}

/* labelled: the observer hears only the census, labelled by shape
 * (hp_sweep_observer.census_run): a table's runs and records are kept in
 * place as without one. */
static inline __attribute__((always_inline)) void
judge_range(sweep_run *s, hp_rec *recs, size_t n, size_t idx0, int in_table, int form,
            int census, int judge, int marks, int breakdown, int simple, int observed,
            int labelled)
{
    const hp_sweep_spec *sp = s->spec;
    const hp_sweep_observer *obs = observed ? sp->obs : NULL;
    const hp_sweep_observer *lab = labelled ? sp->obs : NULL;
    /* (no one hears moves; or, with side entries, they are heard before
     * a survivor is written, however it is: Note [Side entries heard]) */
    int unheard = !observed || labelled || s->side;
    int side = s->side;
    /* (the flags a compact entry keeps: not the unwatched flag, if that
     * is in the side entry) */
    uint8_t keep_flags = side ? (uint8_t)~HP_REC_UNWATCHED : 0xff;
    hp_ccs_stats *stats = s->stats;
    hp_rec *table = s->table;
    hp_breakdown *bds = breakdown ? sp->bds : NULL;
    int frees = s->frees;
    uint32_t t = sp->period + 1;
    uint64_t objects = 0, bytes = 0, requested = 0, survived = 0;
    uint64_t live_bytes = 0, live_objects = 0;
    size_t out = s->out;
    /* FORM_TABLE: a run (Note [Runs down a block]) kept where it is while
     * its objects survive: `ip` of them so far, from the entry at `out`
     * (0: none), their new top byte ip_top. */
    unsigned ip = 0;
    uint64_t ip_top = 0;
    /* Survivors not yet heard: mk records from index m_idx, moved to slots
     * from m_to (FORM_RECS with moved_run). */
    size_t m_idx = 0, m_to = 0, mk = 0;
    for (size_t k = 0; form == FORM_TABLE ? s->rd < s->len : k < n; k++) {
        hp_rec one, *r;
        size_t i, at = 0, oi;   /* (oi: the index observers hear) */
        unsigned took = 0;
        if (form == FORM_TABLE && judge && unheard && ip == 0 &&
            /* (with side entries: not where a filter asks of each record,
             * nor where moves are heard one by one, with the record) */
            !(side && obs && ((obs->census && census) || (obs->moved && !obs->moved_run)))) {
            size_t ro = s->rord, wo = s->kept;
            if (run_kept_whole(s, out, census, marks, bds != NULL, lab, &live_bytes,
                               &live_objects)) {
                if (side) {   /* (its objects' side entries, censuses and moves) */
                    size_t k = s->kept - wo;
                    side_run_kept(s, out, ro, wo, k, census && obs ? obs->counted : NULL, t);
                    s->rord = ro + k;
                    if (obs && obs->moved_run) hear_moves(obs, &m_idx, &m_to, &mk, ro, wo, k);
                }
                out++;
                continue;
            }
        }
        /* (FORM_TABLE: the entry at `at` was not begun before this record,
         * so it is as the table had it; in a run, a survivor written at
         * out == at may have taken its place, the reader keeping its word) */
        int fresh = 0;
        if (form == FORM_TABLE) {   /* decoded in place of the entries it takes */
            at = s->rd;
            fresh = s->in_prev.run == 0;
            i = at - s->shift;      /* (its index when the frees were noted) */
            __builtin_prefetch(&s->ctable[at + 32]);
            took = hp_tab_get(&s->ctable[at], &one, &s->in_prev);
            s->rd += took;
            r = &one;
            oi = i;
            if (s->side) {
                hp_side_get(&one, s->rord);
                oi = s->rord;
            }
            s->rord++;
        } else {
            r = &recs[k];
            i = idx0 + k;
            oi = form == FORM_LOGS && s->side ? s->ord0 + k : i;
            /* The records stream in from memory (a collection's worth of
             * allocations is far larger than the caches): fetch ahead. */
            __builtin_prefetch(r + 32);
        }
        hp_ccs_stats *st = stats ? &stats[r->ccs] : NULL;
        if (hp_ccstats_untallied(r)) {
            if (st) hp_ccstats_tally(st, r);
            objects += hp_rec_count(r);
            bytes += hp_rec_bytes(r);
            requested += hp_rec_req(r);
            if (bds) hp_report_kind(&bds[r->ccs], r, hp_kind_category(r));
        }
        /* (noted: a free or resize may have been noted for its base) */
        int noted = frees && hp_shadow_freed_maybe(r->base);
        int freed = noted && hp_shadow_freed_at(r, i);
        if (freed || (judge && !judged_live(s, marks, r->base))) {
            if (form == FORM_TABLE && ip) out = run_cut(s, out, ip, ip_top);
            ip = 0;
            if (bds) hp_report_death(&bds[r->ccs], r);
            if (obs && obs->gone &&
                (in_table || !obs->quiet_young || r->word != 0 || r->birth < obs->quiet_birth)) {
                if (mk) {   /* (the survivors before it, heard first) */
                    obs->moved_run(m_idx, m_to, mk);
                    mk = 0;
                }
                obs->gone(obs->ctx, r, freed ? HP_EV_FREED : HP_EV_DIED, oi, in_table);
            }
            continue;
        }
        if (judge) {
            if (r->age == 0) {
                uint64_t b = hp_rec_bytes(r);
                if (st) st->survived += b;
                survived += b;
            }
            if (r->age < HP_AGE_MAX) r->age++;
        } else {
            r->flags |= HP_REC_TALLIED;
        }
        if (census && (simple || !obs || !obs->census || obs->census(obs->ctx, r, oi))) {
            uint64_t b = hp_rec_bytes(r), c = hp_rec_count(r);
            if (st) {
                st->census += b;
                st->census_objects += c;
            }
            live_bytes += b;
            live_objects += c;
            if (obs && obs->counted) obs->counted(r, t);
        }
        if (side) {   /* (Note [Side entries heard]) */
            if (hp_side_put(s->kept, r) != 0) {   /* out of memory: lost (said at exit) */
                hp_shadow_lost_recs(r, 1);
                if (form == FORM_TABLE && ip) out = run_cut(s, out, ip, ip_top);
                ip = 0;
                continue;
            }
            if (obs && obs->moved_run) {
                hear_moves(obs, &m_idx, &m_to, &mk, oi, s->kept, 1);
            } else if (obs && obs->moved) {
                moving = r;
                obs->moved(oi, s->kept);
            }
        }
        if (form == FORM_TABLE && unheard) {
            uint64_t top = (uint64_t)r->age | (uint64_t)(r->flags & keep_flags) << 3;
            if (ip && !noted && top == ip_top) {   /* the run still kept whole */
                ip++;
                s->kept++;
                if (took) {   /* its last: the entry stays, its top set */
                    uint64_t *w = &s->ctable[out];
                    uint64_t a = (*w & 0x00ffffffffffffffull) | top << 56;
                    if (a != *w) *w = a;
                    s->out_prev.last = w;
                    out++;
                    ip = 0;
                }
                continue;
            }
            if (ip) out = run_cut(s, out, ip, ip_top);
            ip = 0;
            if (!took && !noted && s->in_prev.run == 1 &&
                hp_same_as(&s->out_prev, r)) {   /* a run's first, kept whole so far */
                /* (out < at: its word copied back to where the table is
                 * written; the reader keeps the word at `at` until the
                 * run's last) */
                if (out != at) s->ctable[out] = s->ctable[at];
                ip = 1;
                ip_top = top;
                s->kept++;
                continue;
            }
        }
        if (form != FORM_RECS && s->sort_young && r->age == 1 &&
            (form == FORM_LOGS
                 ? !hp_same_as(&s->out_prev, r) && !(k + 1 < n && same_site(r, &recs[k + 1]))
                 : took == 2 && !joins_last(s, r, took) &&
                       (s->rd >= s->len || (s->ctable[s->rd] & 15) != HP_LOG_SAME) &&
                       hp_shadow_room(s->len + 2 * (s->young_n + 1))) &&   /* (see young_write) */
            hp_tab_fits(r)) {
            /* (written later, grouped: Note [Young survivors grouped by
             * site]; a full batch is written now, at `out`) */
            s->out = out;
            int aside = young_put(s, r);
            out = s->out;
            if (aside) continue;
        }
        if (form == FORM_TABLE && unheard && !noted &&
            (took == 2 || (took == 1 && fresh && hp_run_extra(s->ctable[at]) == 0 &&
                           hp_same_as(&s->out_prev, r))) &&
            !joins_last(s, r, took)) {
            /* A short record (or one repeating the record written before
             * it, not a run of several: Note [Runs down a block]), changed
             * at most in its age and flags (no free or resize was noted
             * for it): its words as they were, its first rewritten if
             * they changed, where it was or (out < at, the table already
             * read there) where the table is written. */
            uint64_t *w = &s->ctable[out];
            const uint64_t *e = &s->ctable[at];
            uint64_t a = (e[0] & 0x00ffffffffffffffull) | (uint64_t)r->age << 56 |
                         (uint64_t)(r->flags & keep_flags) << 59;
            if (out != at) {
                w[0] = a;
                if (took == 2) w[1] = e[1];
            } else if (a != w[0]) {
                w[0] = a;
            }
            if (took == 2) {
                s->out_prev = s->in_prev;   /* (what the short one set) */
                s->out_prev.run = 0;
                s->out_prev.last = NULL;
            } else {
                s->out_prev.last = w;
            }
            s->kept++;
            out += took;
            continue;
        }
        if (form != FORM_RECS) {
            if (obs && obs->moved && !side) {
                moving = r;
                obs->moved(oi, out);
            }
            out += put_compact(s, out, r);
            continue;
        }
        if (!in_table || out != i) table[out] = *r;
        if (obs && obs->moved_run) {   /* (runs: Note [Survivors in runs]) */
            hear_moves(obs, &m_idx, &m_to, &mk, i, out, 1);
        } else if (obs && obs->moved) {
            obs->moved(i, out);
        }
        out++;
    }
    if (mk) obs->moved_run(m_idx, m_to, mk);
    s->out = out;
    s->res.objects += objects;
    s->res.bytes += bytes;
    s->res.requested += requested;
    s->res.survived += survived;
    s->res.live_bytes += live_bytes;
    s->res.live_objects += live_objects;
}

/* The specialised loops: judged by the collector's marks, census (if any)
 * by stack and unfiltered; observed: an observer hears deaths and moves. */
#define JUDGE_VARIANT(name, form, census, breakdown, observed)                 \
    static void name(sweep_run *s, hp_rec *recs, size_t n, size_t idx0, int in_table) \
    {                                                                            \
        judge_range(s, recs, n, idx0, in_table, form, census, 1, 1, breakdown, 1, observed, 0); \
    }
/* A census labelled by shape (hp_sweep_observer.census_run), otherwise as
 * the fast loops. */
#define JUDGE_LABELLED(name, form, breakdown)                                   \
    static void name(sweep_run *s, hp_rec *recs, size_t n, size_t idx0, int in_table) \
    {                                                                            \
        judge_range(s, recs, n, idx0, in_table, form, 1, 1, 1, breakdown, 0, 1, 1); \
    }
#define JUDGE_VARIANTS(name, form)                                              \
    JUDGE_VARIANT(name##_plain, form, 0, 0, 0)                                   \
    JUDGE_VARIANT(name##_census, form, 1, 0, 0)                                  \
    JUDGE_VARIANT(name##_report, form, 0, 1, 0)                                  \
    JUDGE_VARIANT(name##_census_report, form, 1, 1, 0)                           \
    JUDGE_VARIANT(name##_obs, form, 0, 0, 1)                                     \
    JUDGE_VARIANT(name##_obs_census, form, 1, 0, 1)                              \
    JUDGE_VARIANT(name##_obs_report, form, 0, 1, 1)                              \
    JUDGE_VARIANT(name##_obs_census_report, form, 1, 1, 1)                       \
    JUDGE_LABELLED(name##_labelled, form, 0)                                     \
    JUDGE_LABELLED(name##_labelled_report, form, 1)                              \
    static void name##_generic(sweep_run *s, hp_rec *recs, size_t n, size_t idx0, \
                               int in_table)                                     \
    {                                                                            \
        const hp_sweep_spec *sp = s->spec;                                       \
        judge_range(s, recs, n, idx0, in_table, form, sp->census, sp->judge,     \
                    sp->live == NULL, sp->bds != NULL, 0, sp->obs != NULL, 0);   \
    }
JUDGE_VARIANTS(judge_recs, FORM_RECS)
JUDGE_VARIANTS(judge_logs, FORM_LOGS)
JUDGE_VARIANTS(judge_table, FORM_TABLE)

/* [form][observed][census][breakdown], and [form] for the rest */
#define JUDGE_TABLE(name)                                                       \
    {{{name##_plain, name##_report}, {name##_census, name##_census_report}},     \
     {{name##_obs, name##_obs_report}, {name##_obs_census, name##_obs_census_report}}}
static const judge_fn judge_fast[FORM_COUNT][2][2][2] = {
    JUDGE_TABLE(judge_recs), JUDGE_TABLE(judge_logs), JUDGE_TABLE(judge_table)};
static const judge_fn judge_generic[FORM_COUNT] = {judge_recs_generic, judge_logs_generic,
                                                   judge_table_generic};
/* [form][breakdown] */
static const judge_fn judge_labelled[FORM_COUNT][2] = {
    {judge_recs_labelled, judge_recs_labelled_report},
    {judge_logs_labelled, judge_logs_labelled_report},
    {judge_table_labelled, judge_table_labelled_report}};

/* A span of records still in a log: make room for its survivors, judge. */
static void judge_span(hp_rec *recs, size_t n, void *arg)
{
    sweep_run *s = arg;
    size_t idx0 = s->next_idx;
    s->next_idx += n;
    s->ord0 = s->next_ord;
    s->next_ord += n;
    /* (and the room of the young put aside: see young_write) */
    void *table = hp_shadow_room(s->out + (s->compact ? HP_LONG_WORDS * n + 2 * s->young_n : n));
    if (!table) {   /* out of memory: these records are lost (said at exit) */
        hp_shadow_lost_recs(recs, n);
        return;
    }
    s->table = table;
    s->ctable = table;
    s->judge_logs(s, recs, n, idx0, 0);
}

/* Note [Young runs]
 * ~~~~~~~~~~~~~~~~~~~
 * Most of what a collection judges is what the program allocated since
 * the last one, in the logs, most of it in runs down a block (Note [Runs
 * down a block]) and most of it dead. Handed out one by one, each object
 * was copied into a buffer, tallied to its stack and judged: about 90
 * instructions an object on trees.c. A sweep that judges, by stack,
 * without an observer or breakdowns, takes a log's run whole instead:
 * its objects are tallied to their stack in one step (they share it and
 * their sizes), then each is judged (its mark bit, or the sweep's own
 * test); a survivor is counted and written to the table as the loop
 * writes it (age 1). A run with an object the frees' filter names goes
 * one by one, as before. Not under sample= (weighted records, never same
 * entries). A census labelled by shape (s->lab, mode kind) counts the
 * run's survivors at once. */
static int judge_run(const hp_rec *first, unsigned from, unsigned to, void *arg)
{
    sweep_run *s = arg;
    if (!s->log_runs) return 0;
    size_t k = (size_t)to - from + 1;
    uint64_t g = first->granted;
    if (s->frees)
        for (unsigned m = from; m <= to; m++)
            if (hp_shadow_freed_maybe(first->base - (uintptr_t)m * g)) return 0;
    void *table = hp_shadow_room(s->out + HP_LONG_WORDS * k + 2 * s->young_n);
    if (!table) return 0;   /* (one by one: each is then said lost) */
    s->table = table;
    s->ctable = table;
    s->next_idx += k;
    hp_ccs_stats *st = &s->stats[first->ccs];
    st->objects += k;
    st->bytes += k * g;
    st->requested += k * first->req;
    s->res.objects += k;
    s->res.bytes += k * g;
    s->res.requested += k * first->req;
    hp_rec r = *first;
    r.age = 1;
    int marks = s->spec->live == NULL;
    int census = s->spec->census != 0;
    size_t out = s->out;
    uint64_t live = 0;
    for (unsigned m = from; m <= to; m++) {
        r.base = first->base - (uintptr_t)m * g;
        if (!judged_live(s, marks, r.base)) continue;
        st->survived += g;
        s->res.survived += g;
        live++;
        out += put_compact(s, out, &r);
    }
    if (census && live && (!s->lab || s->lab->census_run(s->lab->ctx, &r, live))) {
        st->census += live * g;
        st->census_objects += live;
        s->res.live_bytes += live * g;
        s->res.live_objects += live;
    }
    s->out = out;
    return 1;
}

hp_sweep_result hp_sweep(const hp_sweep_spec *spec)
{
    HP_ASSERT_OWNER();
    sweep_run s = {0};
    s.spec = spec;
    s.stats = spec->stats;
    size_t len;
    s.table = hp_shadow_table(&len);
    s.compact = hp_store_.compact;
    s.side = hp_store_.side;
    if (s.compact) {
        len = s.len = hp_store_.table_len;
        s.ctable = hp_shadow_room(len);
    }
    s.frees = hp_shadow_has_frees();
    const hp_sweep_observer *obs = spec->obs;
    s.sort_young = s.compact && spec->judge && (!obs || (spec->census && obs->census_run &&
                                                          !obs->gone && !obs->moved &&
                                                          !obs->counted)) &&
                   !hp_sample_on && !s.side;
    int base_fast = spec->judge && !spec->live && spec->stats;
    int fast = base_fast && (!spec->census || !obs || !obs->census);
    /* (a census labelled by shape, the observer hearing nothing else) */
    int labelled = base_fast && spec->census && obs && obs->census && obs->census_run &&
                   !obs->gone && !obs->moved && !obs->counted;
    int table_form = s.compact ? FORM_TABLE : FORM_RECS;
    int logs_form = s.compact ? FORM_LOGS : FORM_RECS;
    int bd = spec->bds != NULL;
    s.judge_range = labelled ? judge_labelled[table_form][bd]
                    : fast   ? judge_fast[table_form][obs != NULL][spec->census != 0][bd]
                             : judge_generic[table_form];
    s.judge_logs = labelled ? judge_labelled[logs_form][bd]
                   : fast   ? judge_fast[logs_form][obs != NULL][spec->census != 0][bd]
                            : judge_generic[logs_form];
    s.judge_range(&s, s.table, len, 0, 1);   /* (compact: the entries from s.rd = 0 on) */
    /* (the table's young put aside, into the room they left: the logs'
     * survivors are written from `out` on) */
    if (s.young_n) young_write(&s);
    if (s.compact) {
        len = s.len - s.shift;
        s.rd = SIZE_MAX;   /* the logs' records are written past the table */
    }
    s.next_idx = len;
    s.next_ord = s.rord;
    /* (Note [Young runs]: judged, unobserved or labelled by shape, without
     * breakdowns) */
    s.lab = labelled ? obs : NULL;
    s.log_runs = spec->judge && spec->stats && s.compact && (!obs || labelled) && !spec->bds &&
                 !hp_sample_on && !s.side;
    if (spec->logs) hp_shadow_take_pending_runs(judge_span, judge_run, &s);
    if (s.young_n) young_write(&s);
    hp_shadow_sweep_done(s.out, s.kept, &s.out_prev);
    return s.res;
}

/* hp_shadow_sweep (hp_shadow.h): the same sweep, judged by the caller's
 * `live`, heard through the visitor; the logs are left alone. */
typedef struct visit_adapter { hp_visit_fn visit; void *ctx; } visit_adapter;
static visit_adapter adapter;   /* the sweep is the owner's: one at a time */

static void adapter_gone(void *c, const hp_rec *r, hp_event ev, size_t idx, int in_table)
{
    (void)idx;
    (void)in_table;
    visit_adapter *a = c;
    if (a->visit) a->visit((hp_rec *)r, ev, a->ctx);
}

static void adapter_moved(size_t idx, size_t to)
{
    (void)idx;
    size_t len;
    hp_rec *t = hp_shadow_table(&len);
    if (adapter.visit) adapter.visit(t ? &t[to] : moving, HP_EV_SURVIVED, adapter.ctx);
}

void hp_shadow_sweep(hp_live_fn live, hp_visit_fn visit, void *ctx)
{
    adapter = (visit_adapter){visit, ctx};
    hp_sweep_observer obs = {0};
    obs.ctx = &adapter;
    obs.gone = adapter_gone;
    obs.moved = adapter_moved;
    hp_sweep_spec spec = {0};
    spec.judge = 1;
    spec.live = live;
    spec.live_ctx = ctx;
    spec.obs = &obs;
    hp_sweep(&spec);
}
