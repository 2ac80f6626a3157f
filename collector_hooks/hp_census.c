/* hp_census: the work done at each completed collection (see hp_census.h).
 *
 * Owner context throughout: the caller holds the collector's allocation
 * lock, the world is running (RECLAIM_END), and nothing here allocates from
 * malloc or the GC heap. */
#include "core/hp_sys.h"
#include "collector_hooks/hp_census.h"
#include "core/hp_capture.h"
#include "core/hp_real.h"
#include "core/hp_rt.h"
#include "core/hp_shadow.h"
#include "core/hp_stacks.h"
#include "hp_writer/hp_hpfile.h"
#include "hp_writer/hp_names.h"
#include "hp_writer/hp_prof.h"
#include "core/hp_symbols.h"
#include "core/hp_breakdown.h"
#include "retainer/hp_retainer.h"
#include "retainer/hp_rootrec.h"
#include "retainer/hp_trace.h"
#include "roots/hp_roots.h"
#include "ldv/hp_ldv.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static hp_vec stats_vec;          /* hp_ccs_stats[ccs] */
static uint32_t nstats;           /* entries in use */
static hp_vec label_bytes_vec;    /* uint64_t[label] */
static hp_vec filter_vec;         /* uint8_t[ccs]: 0 unknown, 1 in, 2 out (ccs=, module=) */
static hp_vec kind_labels_vec;    /* kind_label[]: (kind, size) -> label, for mode kind */
static uint32_t kind_labels_cap, kind_labels_len;
static int filter_kind_code = -1; /* kind= as a category (< 16) or 16 + kind number */
static hp_vec sample_labels_vec;  /* const char *[] */
static hp_vec sample_values_vec;  /* uint64_t[] */
static hp_buf hp_out;             /* one .hp sample */
static hp_buf msg;                /* a line for stderr */

static _Atomic int output_role;   /* 1 while a census or the finisher writes */
static int hp_fd = -1;
static int output_failed;
static int finished;
static char date[64];

/* Run figures (owner context). */
static uint64_t collections, censuses, total_objects, total_bytes, total_requested,
    total_survived, peak_bytes, peak_objects;
static double peak_time, last_census_time;
static uint64_t shadow_at_peak, logs_at_peak;
static int unjudged_census;       /* the last census was taken without a collection */
static int peak_seen;
static uint64_t signal_live_bytes, signal_live_objects;
static int traversed_here;        /* this collection's MARK_END traversed the heap */

/* Does a census need a traversal of the heap at MARK_END? (retainer
 * profile, the rset= filter, the profile by named roots) */
static int retainer_sets(void)
{
    return hp_rt.cfg.mode == HP_MODE_RETAINER || hp_rt.cfg.filter_rset[0];
}

static int named_roots(void) { return hp_rt.cfg.mode == HP_MODE_ROOTS; }

static int traversal_mode(void) { return retainer_sets() || named_roots(); }

int hp_census_init(void)
{
    if (hp_vec_reserve(&stats_vec, (size_t)1 << 32) != 0) return -1;
    if (hp_vec_reserve(&label_bytes_vec, (size_t)1 << 32) != 0) return -1;
    if (hp_vec_reserve(&filter_vec, (size_t)1 << 28) != 0) return -1;
    if (hp_vec_reserve(&kind_labels_vec, (size_t)1 << 30) != 0) return -1;
    if (hp_report_init(hp_rt.cfg.report) != 0) return -1;
    if (hp_rt.cfg.filter_kind[0]) {
        const char *k = hp_rt.cfg.filter_kind;
        for (int c = 0; c < HP_CAT_COUNT; c++)
            if (strcmp(k, hp_kind_category_name(c)) == 0) filter_kind_code = c;
        if (filter_kind_code < 0 && strncmp(k, "kind", 4) == 0 && k[4]) {
            int v = 0;
            for (const char *d = k + 4; *d >= '0' && *d <= '9'; d++) v = v * 10 + (*d - '0');
            filter_kind_code = 16 + v;
        }
        if (filter_kind_code < 0) filter_kind_code = 1 << 20;   /* matches nothing */
    }
    if (hp_vec_reserve(&sample_labels_vec, (size_t)1 << 32) != 0) return -1;
    if (hp_vec_reserve(&sample_values_vec, (size_t)1 << 32) != 0) return -1;
    if (hp_buf_init(&hp_out, (size_t)1 << 32) != 0) return -1;
    if (hp_buf_init(&msg, (size_t)1 << 20) != 0) return -1;
    if (hp_names_init(hp_rt.cfg.label_length) != 0) return -1;
    if (hp_symbols_init() != 0 || hp_prof_init() != 0) return -1;
    if (traversal_mode() && hp_trace_init() != 0) return -1;
    if (retainer_sets() && (hp_rootrec_init() != 0 || hp_retainer_init() != 0)) return -1;
    if (hp_roots_init() != 0) return -1;   /* the API keeps roots in any mode */
    hp_hp_date(date, sizeof date, (long long)time(NULL));
    return 0;
}

/* Make room for every stack interned so far (fresh pages read as zero). */
static hp_ccs_stats *stats_all(void)
{
    uint32_t n = hp_stacks_count();
    if (n > nstats) {
        if (hp_vec_ensure(&stats_vec, (size_t)n * sizeof(hp_ccs_stats)) != 0) return NULL;
        nstats = n;
    }
    return (hp_ccs_stats *)stats_vec.base;
}

/* Is the object at `base` live after this collection? The block may have
 * been freed (and its header merged away) by this very collection's
 * reclaim, where GC_is_marked would crash: GC_base says whether the page
 * still holds a block in use, once per page. In a block in use, base is
 * either still an object start with a valid mark bit, or (block reused for
 * another size) some granule whose bit is clear. */
static inline int is_live(uintptr_t base, uintptr_t *page, int *page_in_use)
{
    uintptr_t pg = base >> 12;
    if (pg != *page) {
        *page = pg;
        *page_in_use = hp_real.GC_base((void *)base) != NULL;
    }
    return *page_in_use && hp_real.GC_is_marked((void *)base) != 0;
}

typedef struct sweep_result { uint64_t live_bytes, live_objects; } sweep_result;

typedef struct kind_label { uint64_t key; uint32_t label1; uint32_t pad; } kind_label;

static int ensure_label_bytes(uint32_t label)
{
    return hp_vec_ensure(&label_bytes_vec, (size_t)(label + 1) * sizeof(uint64_t));
}

/* Mode kind: the label of an object's kind and granted size, "normal:32". */
static uint32_t kind_label_of(const hp_rec *r)
{
    int cat = hp_kind_category(r);
    uint64_t code = cat == HP_CAT_OTHER ? 16u + r->kind : (unsigned)cat;
    uint64_t key = (code << 32) | r->granted;
    if (kind_labels_cap == 0 || (kind_labels_len + 1) * 2 > kind_labels_cap) {
        uint32_t cap = kind_labels_cap ? kind_labels_cap * 2 : 1024;
        if (hp_vec_ensure(&kind_labels_vec, (size_t)cap * 2 * sizeof(kind_label)) != 0) return 0;
        kind_label *old = (kind_label *)kind_labels_vec.base + cap;   /* scratch half */
        memcpy(old, kind_labels_vec.base, (size_t)kind_labels_cap * sizeof(kind_label));
        memset(kind_labels_vec.base, 0, (size_t)cap * sizeof(kind_label));
        uint32_t oldcap = kind_labels_cap;
        kind_labels_cap = cap;
        for (uint32_t i = 0; i < oldcap; i++) {
            if (!old[i].label1) continue;
            uint32_t j = (uint32_t)(old[i].key * 0x9e3779b97f4a7c15ull >> 40) & (cap - 1);
            kind_label *t = (kind_label *)kind_labels_vec.base;
            while (t[j].label1) j = (j + 1) & (cap - 1);
            t[j] = old[i];
        }
    }
    kind_label *t = (kind_label *)kind_labels_vec.base;
    uint32_t j = (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 40) & (kind_labels_cap - 1);
    while (t[j].label1 && t[j].key != key) j = (j + 1) & (kind_labels_cap - 1);
    if (!t[j].label1) {
        char text[48];
        hp_kind_name(r, text, 24);
        size_t n = strlen(text);
        text[n++] = ':';
        uint64_t v = r->granted;
        char d[24];
        int k = 0;
        do { d[k++] = (char)('0' + v % 10); v /= 10; } while (v);
        while (k) text[n++] = d[--k];
        text[n] = 0;
        t[j].key = key;
        t[j].label1 = hp_names_intern_label(text) + 1;
        kind_labels_len++;
    }
    return t[j].label1 - 1;
}

/* Is the object in the heap profile (filters ccs=, module=, kind=)? */
static int passes(const hp_rec *r)
{
    if (filter_kind_code >= 0) {
        int cat = hp_kind_category(r);
        int code = cat == HP_CAT_OTHER ? 16 + r->kind : cat;
        if (code != filter_kind_code && !(cat == HP_CAT_OTHER && filter_kind_code == HP_CAT_OTHER))
            return 0;
    }
    if (hp_rt.cfg.filter_rset[0] && !hp_retainer_set_matches(r)) return 0;
    if (!hp_rt.cfg.filter_ccs[0] && !hp_rt.cfg.filter_module[0]) return 1;
    if (hp_vec_ensure(&filter_vec, (size_t)r->ccs + 1) != 0) return 1;
    uint8_t *f = (uint8_t *)filter_vec.base + r->ccs;
    if (!*f) {
        int in = 1;
        if (hp_rt.cfg.filter_ccs[0] && !hp_names_has_function(r->ccs, hp_rt.cfg.filter_ccs))
            in = 0;
        if (hp_rt.cfg.filter_module[0] &&
            strcmp(hp_names_module(r->ccs), hp_rt.cfg.filter_module) != 0)
            in = 0;
        *f = in ? 1 : 2;
    }
    return *f == 1;
}

/* Add a live object to the census being taken: by stack (modes cc and
 * module, folded into labels when the sample is written), by kind label,
 * or by retainer set. `idx`: its index in the shadow table (SIZE_MAX when
 * not known). */
static int census_add(hp_ccs_stats *st, hp_rec *r, size_t idx)
{
    if (!passes(r)) return 0;
    if (hp_rt.cfg.mode == HP_MODE_KIND) {
        uint32_t l = kind_label_of(r);
        if (ensure_label_bytes(l) == 0) ((uint64_t *)label_bytes_vec.base)[l] += r->granted;
    } else if (hp_rt.cfg.mode == HP_MODE_RETAINER) {
        uint32_t l = hp_retainer_label_of(r, idx);
        if (l != UINT32_MAX && ensure_label_bytes(l) == 0)
            ((uint64_t *)label_bytes_vec.base)[l] += r->granted;
    } else if (hp_rt.cfg.mode == HP_MODE_ROOTS) {
        uint32_t l = hp_roots_label_of(r);
        if (l != UINT32_MAX && ensure_label_bytes(l) == 0)
            ((uint64_t *)label_bytes_vec.base)[l] += r->granted;
    }
    st->census += r->granted;   /* per stack too: the report's live@peak */
    return 1;
}

/* Judge every record after a collection: tally a record's allocation the
 * first time it is swept (age 0), count survivors, drop the dead, and add
 * live bytes to the census when one is being taken. The table's records
 * are compacted in place; records still in the threads' logs are judged
 * where they are and only survivors are copied to the table (no copy of
 * the many that die young). */
typedef struct sweep_run sweep_run;
typedef void (*judge_fn)(sweep_run *s, hp_rec *recs, size_t n, size_t idx0, int in_table);

struct sweep_run {
    sweep_result res;
    hp_ccs_stats *stats;
    hp_rec *table;        /* where survivors go */
    size_t out;           /* survivors so far */
    size_t next_idx;      /* index of the next record from the logs */
    hp_breakdown *bds;
    judge_fn judge_range;
    int frees, census, judge, breakdown, ldv;
    uint32_t period;
    uintptr_t page;       /* is_live's page cache */
    int page_in_use;
    uint64_t objects, bytes, requested, survived;
};

/* Specialised on its flags (see sweep()): the common case (no breakdown,
 * no filter, by stack) is the hot loop of every collection. */
static inline __attribute__((always_inline)) void
judge_range_impl(sweep_run *s, hp_rec *recs, size_t n, size_t idx0, int in_table,
                 int census, int judge, int breakdown, int simple, int ldv)
{
    hp_ccs_stats *stats = s->stats;
    hp_rec *table = s->table;
    hp_breakdown *bds = breakdown ? s->bds : NULL;
    int frees = s->frees;
    uintptr_t page = s->page;
    int page_in_use = s->page_in_use;
    uint64_t objects = 0, bytes = 0, requested = 0, survived = 0;
    uint64_t live_bytes = 0, live_objects = 0;
    size_t out = s->out;
    for (size_t k = 0; k < n; k++) {
        hp_rec *r = &recs[k];
        size_t i = idx0 + k;
        /* The records stream in from memory (a collection's worth of
         * allocations is far larger than the caches): fetch ahead. */
        __builtin_prefetch(r + 32);
        hp_ccs_stats *st = &stats[r->ccs];
        if (r->age == 0 && !(r->flags & HP_REC_TALLIED)) {
            st->objects++;
            st->bytes += r->granted;
            st->requested += r->req;
            objects++;
            bytes += r->granted;
            requested += r->req;
            if (bds) hp_report_kind(&bds[r->ccs], r, hp_kind_category(r));
        }
        if ((frees && hp_shadow_freed_at(r, i)) ||
            (judge && !is_live(r->base, &page, &page_in_use))) {
            if (bds) hp_report_death(&bds[r->ccs], r);
            if (ldv) {
                if (simple || passes(r)) hp_ldv_death(r, s->period);
                if (in_table) hp_ldv_dropped(i);   /* (records from the logs need not be) */
            }
            continue;
        }
        if (judge) {
            if (r->age == 0) {
                st->survived += r->granted;
                survived += r->granted;
            }
            if (r->age < HP_AGE_MAX) r->age++;
        } else {
            r->flags |= HP_REC_TALLIED;
        }
        if (census && (simple ? (st->census += r->granted, 1) : census_add(st, r, i))) {
            live_bytes += r->granted;
            live_objects++;
            if (ldv) hp_ldv_census_rec(r, s->period + 1);
        }
        if (ldv) hp_ldv_moved(i, out);
        if (!in_table || out != i) table[out] = *r;
        out++;
    }
    s->out = out;
    s->page = page;
    s->page_in_use = page_in_use;
    s->objects += objects;
    s->bytes += bytes;
    s->requested += requested;
    s->survived += survived;
    s->res.live_bytes += live_bytes;
    s->res.live_objects += live_objects;
}

/* simple: no filter, a census (if any) by stack, so census_add's tests
 * are known; ldv: the biography is kept (deaths, censuses, moves). */
#define JUDGE_VARIANT(name, census, breakdown, ldv)                             \
    static void name(sweep_run *s, hp_rec *recs, size_t n, size_t idx0, int in_table) \
    {                                                                            \
        judge_range_impl(s, recs, n, idx0, in_table, census, 1, breakdown, 1, ldv); \
    }
JUDGE_VARIANT(judge_simple, 0, 0, 0)
JUDGE_VARIANT(judge_simple_census, 1, 0, 0)
JUDGE_VARIANT(judge_simple_report, 0, 1, 0)
JUDGE_VARIANT(judge_simple_census_report, 1, 1, 0)
JUDGE_VARIANT(judge_ldv, 0, 0, 1)
JUDGE_VARIANT(judge_ldv_census, 1, 0, 1)
JUDGE_VARIANT(judge_ldv_report, 0, 1, 1)
JUDGE_VARIANT(judge_ldv_census_report, 1, 1, 1)

/* [ldv][census][breakdown] */
static const judge_fn judge_fast[2][2][2] = {
    {{judge_simple, judge_simple_report}, {judge_simple_census, judge_simple_census_report}},
    {{judge_ldv, judge_ldv_report}, {judge_ldv_census, judge_ldv_census_report}},
};

static void judge_generic(sweep_run *s, hp_rec *recs, size_t n, size_t idx0, int in_table)
{
    judge_range_impl(s, recs, n, idx0, in_table, s->census, s->judge, s->breakdown, 0, s->ldv);
}

/* A span of records still in a log: make room for its survivors, judge. */
static void judge_span(hp_rec *recs, size_t n, void *arg)
{
    sweep_run *s = arg;
    size_t idx0 = s->next_idx;
    s->next_idx += n;
    hp_rec *table = hp_shadow_room(s->out + n);
    if (!table) return;   /* out of memory: these records are lost */
    s->table = table;
    s->judge_range(s, recs, n, idx0, 0);
}

static sweep_result sweep(int census, int judge)
{
    sweep_run s = {0};
    s.stats = stats_all();
    if (!s.stats) return s.res;
    size_t len;
    s.table = hp_shadow_table(&len);
    s.census = census;
    s.judge = judge;
    s.breakdown = hp_rt.cfg.report != 0;
    s.bds = s.breakdown ? hp_report_table(nstats) : NULL;
    s.frees = hp_shadow_has_frees();
    s.ldv = hp_rt.cfg.mode == HP_MODE_LDV;
    s.period = atomic_load(&hp_rt.period);
    s.page = UINTPTR_MAX;
    /* The specialised loops serve every collection whose work they know:
     * without a census, only ldv's deaths look at the filters; with one,
     * the census must be by stack (cc, module, ldv) and unfiltered. */
    int unfiltered = !hp_rt.cfg.filter_ccs[0] && !hp_rt.cfg.filter_module[0] &&
                     !hp_rt.cfg.filter_kind[0] && !hp_rt.cfg.filter_rset[0];
    int by_stack = hp_rt.cfg.mode == HP_MODE_CC || hp_rt.cfg.mode == HP_MODE_MODULE ||
                   hp_rt.cfg.mode == HP_MODE_LDV;
    int fast = judge && (census ? unfiltered && by_stack : unfiltered || !s.ldv);
    s.judge_range = fast ? judge_fast[s.ldv][census != 0][s.breakdown] : judge_generic;
    if (s.ldv) hp_ldv_sweep_begin(len);
    s.judge_range(&s, s.table, len, 0, 1);
    s.next_idx = len;
    hp_shadow_take_pending(judge_span, &s);
    hp_shadow_sweep_done(s.out);
    total_objects += s.objects;
    total_bytes += s.bytes;
    total_requested += s.requested;
    total_survived += s.survived;
    return s.res;
}

static int take_output_role(void)
{
    int expect = 0;
    return atomic_compare_exchange_strong(&output_role, &expect, 1);
}

static void release_output_role(void) { atomic_store(&output_role, 0); }

static void open_hp_file(void)
{
    if (hp_fd >= 0 || output_failed || finished) return;
    hp_fd = hp_sys_open(hp_rt.hp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (hp_fd < 0 || hp_hp_header(&hp_out, hp_fd, hp_rt.job, date) != 0) {
        int err = errno;
        hp_buf_reset(&msg);
        hp_buf_str(&msg, "heapprof: cannot write the heap profile ");
        hp_buf_str(&msg, hp_rt.hp_path);
        hp_buf_str(&msg, ": ");
        hp_buf_str(&msg, strerror(err));
        hp_buf_str(&msg, "; set HEAPPROF=...,out=PATH to a writable place");
        hp_say(hp_buf_cstr(&msg));
        if (hp_fd >= 0) hp_sys_close(hp_fd);
        hp_fd = -1;
        output_failed = 1;
    }
}

/* Write one sample; bytes_of(c) gives stack c's live bytes. */
static void write_sample_of(double t, uint64_t (*bytes_of)(uint32_t))
{
    /* Fold stacks into labels (stacks with equal labels share a band);
     * mode kind added to the labels directly. */
    int by_stack = hp_rt.cfg.mode != HP_MODE_KIND && hp_rt.cfg.mode != HP_MODE_RETAINER &&
                   hp_rt.cfg.mode != HP_MODE_ROOTS;
    for (uint32_t c = 0; c < nstats && by_stack; c++) {
        uint64_t bytes = bytes_of(c);
        if (!bytes) continue;
        uint32_t l = hp_rt.cfg.mode == HP_MODE_MODULE ? hp_names_module_label_of(c)
                                                      : hp_names_label_of(c);
        if (hp_vec_ensure(&label_bytes_vec, (size_t)(hp_names_label_count() + 1) *
                                                sizeof(uint64_t)) != 0)
            return;
        ((uint64_t *)label_bytes_vec.base)[l] += bytes;
    }
    uint32_t total_labels = hp_names_label_count();
    if (hp_vec_ensure(&label_bytes_vec, (size_t)(total_labels + 1) * sizeof(uint64_t)) != 0 ||
        hp_vec_ensure(&sample_labels_vec, (size_t)(total_labels + 1) * sizeof(char *)) != 0 ||
        hp_vec_ensure(&sample_values_vec, (size_t)(total_labels + 1) * sizeof(uint64_t)) != 0)
        return;
    uint64_t *lb = (uint64_t *)label_bytes_vec.base;
    const char **names = (const char **)sample_labels_vec.base;
    uint64_t *values = (uint64_t *)sample_values_vec.base;
    size_t n = 0;
    for (uint32_t l = 0; l < total_labels; l++) {
        if (!lb[l]) continue;
        names[n] = hp_names_label(l);
        values[n++] = lb[l];
        lb[l] = 0;
    }
    open_hp_file();
    if (hp_fd >= 0) hp_hp_sample(&hp_out, hp_fd, t, names, values, n);
}

static uint64_t census_bytes_of(uint32_t c) { return ((hp_ccs_stats *)stats_vec.base)[c].census; }

static void write_sample(double t) { write_sample_of(t, census_bytes_of); }

/* ---- Async-signal-safe from here to the end of signal_census. ---- */
static void signal_visit(hp_rec *r, hp_event ev, void *arg)
{
    (void)ev;
    (void)arg;
    if (r->ccs >= nstats) return;
    hp_ccs_stats *st = &((hp_ccs_stats *)stats_vec.base)[r->ccs];
    if (census_add(st, r, SIZE_MAX)) {
        signal_live_bytes += r->granted;
        signal_live_objects++;
        if (hp_rt.cfg.mode == HP_MODE_LDV) {   /* ldv/: census, then death at exit */
            uint32_t t = atomic_load(&hp_rt.period) + 1;
            hp_ldv_census_rec(r, t);
            hp_ldv_death(r, t);
        }
    }
    hp_breakdown *bd = hp_report_of(r->ccs);
    if (r->age == 0 && !(r->flags & HP_REC_TALLIED)) {   /* never swept: tally it */
        st->objects++;
        st->bytes += r->granted;
        st->requested += r->req;
        total_objects++;
        total_bytes += r->granted;
        total_requested += r->req;
        if (bd) hp_report_kind(bd, r, hp_kind_category(r));
    }
    if (bd) hp_report_death(bd, r);   /* dies at exit */
}

/* The last census when a signal ends the program: no collection can be run
 * from a signal handler, so every record not found dead by the last
 * collection counts as live (read-only: the shadow table is not ours). */
static void signal_census(double now)
{
    if (!stats_all()) return;
    hp_ccs_stats *st = (hp_ccs_stats *)stats_vec.base;
    for (uint32_t c = 0; c < nstats; c++) st[c].census = 0;
    signal_live_bytes = signal_live_objects = 0;
    if (hp_rt.cfg.mode == HP_MODE_LDV)
        hp_ldv_census_begin(atomic_load(&hp_rt.period) + 1,
                            now < last_census_time ? last_census_time : now);
    hp_shadow_peek(signal_visit, NULL);
    if (signal_live_bytes > peak_bytes || !peak_seen) {
        peak_seen = 1;
        peak_bytes = signal_live_bytes;
        peak_objects = signal_live_objects;
        peak_time = now;
        for (uint32_t c = 0; c < nstats; c++) st[c].at_peak = st[c].census;
    }
    if (hp_rt.cfg.mode != HP_MODE_LDV) write_sample_of(now, census_bytes_of);
    censuses++;
    unjudged_census = 1;
}
/* ---- end of signal-safe census ---- */

/* Objects still alive at exit die at exit (collections survived so far). */
static void exit_death(hp_rec *r, hp_event ev, void *arg)
{
    (void)ev;
    (void)arg;
    hp_breakdown *bd = hp_report_of(r->ccs);
    if (bd) hp_report_death(bd, r);
}

int hp_census_due(int force, uint64_t start_ns)
{
    double now = hp_profile_seconds(start_ns);
    return force || hp_rt.cfg.interval <= 0 || now - last_census_time >= hp_rt.cfg.interval ||
           censuses == 0;
}

int hp_census_wants_traversal(void) { return traversal_mode(); }

void hp_census_before_stop(void)
{
    if (retainer_sets()) hp_retainer_prepare();
}

void hp_census_mark_end(void)
{
    if (retainer_sets()) hp_rootrec_reset();
}

/* ---- MARK_END: the world is stopped (see hp_trace.h). ---- */
void hp_census_traverse(uint64_t mark_ns)
{
    if (!traversal_mode()) return;
    hp_shadow_drain(NULL, NULL);
    if (named_roots()) hp_roots_traverse(mark_ns);
    else hp_retainer_traverse(mark_ns);
    traversed_here = 1;
}
/* ---- end of MARK_END code ---- */

/* Mode ldv: records still alive at exit die after the last census. */
static void ldv_exit_death(hp_rec *r, hp_event ev, void *arg)
{
    (void)ev;
    (void)arg;
    if (passes(r)) hp_ldv_death(r, atomic_load(&hp_rt.period));
}

static void census_pass(int force, int judge, uint64_t start_ns)
{
    uint64_t t0 = hp_mono_ns();
    double now = hp_profile_seconds(start_ns);
    if (judge) collections++;
    int census = hp_census_due(force, start_ns);
    /* A census in a traversal mode is taken where the traversal was (a
     * census forced while this collection ran waits for the next one). */
    if (traversal_mode() && judge && !traversed_here) census = 0;
    traversed_here = 0;
    if (named_roots() && judge) hp_roots_check_alive(now);
    if (census && hp_rt.cfg.mode == HP_MODE_LDV)   /* ldv/ */
        hp_ldv_census_begin(atomic_load(&hp_rt.period) + 1,
                            now < last_census_time ? last_census_time : now);
    sweep_result res = sweep(census, judge);
    if (census) {
        if (now < last_census_time) now = last_census_time;
        last_census_time = now;
        censuses++;
        atomic_fetch_add(&hp_rt.period, 1);
        int peak = res.live_bytes > peak_bytes || !peak_seen;
        if (peak) {
            peak_seen = 1;
            peak_bytes = res.live_bytes;
            peak_objects = res.live_objects;
            peak_time = now;
            shadow_at_peak = hp_shadow_bytes();
            logs_at_peak = hp_shadow_log_bytes();
        }
        if (take_output_role()) {
            if (hp_rt.cfg.mode != HP_MODE_LDV) write_sample(now);
            else open_hp_file();   /* ldv: the samples are written at exit */
            release_output_role();
        }
        if (named_roots()) hp_roots_census_done(now);
        else if (retainer_sets()) hp_retainer_census_done(now);
        /* Reset the per-stack census counts (and keep the peak's). */
        hp_ccs_stats *st = (hp_ccs_stats *)stats_vec.base;
        for (uint32_t c = 0; c < nstats; c++) {
            if (peak) st[c].at_peak = st[c].census;
            st[c].census = 0;
        }
    }
    if (hp_rt.cfg.mode == HP_MODE_LDV) hp_ldv_protect();   /* ldv/: re-arm */
    hp_rt_exclude_since(t0);
}

void hp_census_on_collection(int force, uint64_t start_ns) { census_pass(force, 1, start_ns); }

void hp_census_without_collection(void)
{
    unjudged_census = 1;
    census_pass(1, 0, hp_mono_ns());
}

void hp_census_note_free(uintptr_t base)
{
    uint64_t t0 = hp_mono_ns();
    hp_shadow_note_free(base, NULL, NULL);
    if (named_roots()) hp_roots_note_free(base);
    hp_rt_exclude_since(t0);
}

void hp_census_note_resize(uintptr_t base, uint32_t granted, uint32_t req)
{
    uint64_t t0 = hp_mono_ns();
    hp_shadow_note_resize(base, granted, req);
    hp_rt_exclude_since(t0);
}

double hp_census_last_time(void) { return last_census_time; }

static void say_done(void)
{
    hp_buf_reset(&msg);
    if (total_objects == 0 && hp_stacks_count() <= 1 && hp_fd != -2) {
        if (hp_rt.forked_child) return;
        hp_buf_str(&msg, "heapprof: no bdwgc allocations were seen in ");
        hp_buf_str(&msg, hp_rt.program);
        hp_buf_str(&msg, " (it does not use libgc, or links it statically); "
                         "no profile written");
    } else if (hp_fd == -1) {
        hp_buf_str(&msg, "heapprof: no profile written for ");
        hp_buf_str(&msg, hp_rt.program);
    } else {
        hp_buf_str(&msg, "heapprof: wrote ");
        hp_buf_str(&msg, hp_rt.hp_path);
        hp_buf_str(&msg, ", ");
        hp_buf_str(&msg, hp_rt.prof_path);
        hp_buf_str(&msg, " and ");
        hp_buf_str(&msg, hp_rt.csv_path);
        hp_buf_str(&msg, " (");
        hp_buf_u64(&msg, censuses);
        hp_buf_str(&msg, " censuses, peak ");
        hp_buf_u64(&msg, peak_bytes);
        hp_buf_str(&msg, " bytes live); view with: hp2ps -c ");
        hp_buf_str(&msg, hp_rt.hp_path);
    }
    hp_say(hp_buf_cstr(&msg));
}

void hp_census_finish(int from_signal)
{
    if (finished) return;
    if (!take_output_role()) {
        if (!from_signal) return;
        /* A census is half-written on some thread: leave the files as they
         * are (readable up to the last whole sample). */
        return;
    }
    finished = 1;
    hp_symbols_set_signal_context(from_signal);
    double end = hp_profile_seconds(hp_mono_ns());
    if (end < last_census_time) end = last_census_time;
    /* Files are completed whenever something was allocated or a census
     * was written (a program that only initialised the collector). */
    if (total_objects > 0 || hp_stacks_count() > 1 || hp_fd >= 0) {
        if (hp_rt.cfg.mode == HP_MODE_LDV) hp_ldv_stop();
        if (from_signal) signal_census(end);
        else if (hp_rt.cfg.report) hp_shadow_foreach(exit_death, NULL);
        if (!from_signal && hp_rt.cfg.mode == HP_MODE_LDV) hp_shadow_foreach(ldv_exit_death, NULL);
        open_hp_file();
        if (hp_fd >= 0 && hp_rt.cfg.mode == HP_MODE_LDV) hp_ldv_write_samples(hp_fd);   /* ldv/ */
        if (hp_fd >= 0) {
            hp_hp_sample(&hp_out, hp_fd, end, NULL, NULL, 0);
            hp_sys_close(hp_fd);
            hp_fd = -2;   /* closed after a complete profile */
            int fd = hp_sys_open(hp_rt.prof_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd >= 0) {
                hp_prof_summary s = {0};
                s.job = hp_rt.job;
                s.date = date;
                s.mode = hp_mode_name(hp_rt.cfg.mode);
                s.unwind = hp_rt.cfg.unwind == HP_UNWIND_FP ? "fp" : "libunwind";
                s.interval = hp_rt.cfg.interval;
                s.depth = hp_rt.cfg.depth;
                s.label_length = hp_rt.cfg.label_length;
                s.pid = hp_rt.pid;
                s.run_seconds = end;
                s.profiler_seconds = (double)hp_rt_excluded() / 1e9;
                s.peak_time = peak_time;
                s.collections = collections;
                s.censuses = censuses;
                s.peak_bytes = peak_bytes;
                s.peak_objects = peak_objects;
                s.objects = total_objects;
                s.bytes = total_bytes;
                s.requested = total_requested;
                s.survived = total_survived;
                s.stacks = hp_stacks_count();
                s.libunwind_walks = hp_capture_libunwind_walks();
                s.profiler_bytes = hp_mem_committed();
                s.shadow_bytes = shadow_at_peak;
                s.log_bytes = logs_at_peak;
                s.note = from_signal
                    ? "(the program was stopped by a signal: the last census counts every "
                      "object not found dead by the last collection)"
                    : unjudged_census
                    ? "(no collection could be run at exit (GC_disable?): the last census "
                      "counts every object not found dead by an earlier collection)"
                    : NULL;
                s.report = hp_rt.cfg.report;
                for (uint32_t c = 0; c < nstats && hp_rt.cfg.report; c++) {
                    const hp_ccs_stats *cs = &((hp_ccs_stats *)stats_vec.base)[c];
                    hp_report_complete(c, cs->objects, cs->bytes, cs->requested);
                }
                hp_prof_write(fd, &s, (hp_ccs_stats *)stats_vec.base, nstats);
                if (named_roots()) hp_roots_write_prof(fd);
                else if (retainer_sets()) hp_retainer_write_prof(fd);
                if (hp_rt.cfg.mode == HP_MODE_LDV) hp_ldv_write_prof(fd);   /* ldv/ */
                hp_sys_close(fd);
            }
            fd = hp_sys_open(hp_rt.csv_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd >= 0) {
                hp_prof_write_csv(fd, hp_rt.cfg.report, (hp_ccs_stats *)stats_vec.base, nstats);
                hp_sys_close(fd);
            }
        }
    }
    say_done();
    release_output_role();
}

void hp_census_postfork_child(void)
{
    if (hp_fd >= 0) hp_sys_close(hp_fd);
    hp_fd = -1;
    output_failed = 0;
    finished = 0;
    atomic_store(&output_role, 0);
    collections = censuses = total_objects = total_bytes = total_requested =
        total_survived = peak_bytes = peak_objects = 0;
    peak_seen = 0;
    peak_time = last_census_time = 0;
    hp_ccs_stats *st = (hp_ccs_stats *)stats_vec.base;
    if (st) memset(st, 0, (size_t)nstats * sizeof *st);
    hp_hp_date(date, sizeof date, (long long)time(NULL));
}
