/* hp_prof_sigsafe: the .prof report (see hp_prof.h). Async-signal-safe:
 * heapsort, hp_buf, raw writes; the SIGINT/SIGTERM finisher writes it. */
#include "hp_writer/hp_prof.h"
#include "hp_writer/hp_names.h"
#include "hp_writer/hp_retained.h"
#include "core/hp_breakdown.h"
#include "core/hp_shadow.h"
#include "core/hp_symbols.h"
#include "hp_writer/hp_srcloc.h"

#include <string.h>

#define HP_PROF_FRAMES 128   /* frames listed per stack */

typedef struct row {
    uint64_t objects, bytes, requested, survived, at_peak;
    hp_breakdown bd;
} row;

static hp_buf out;
static hp_buf src_buf;      /* one stack's source lines */
static hp_vec rows_vec;     /* row[full-name id] */
static hp_vec order_vec;    /* uint32_t[] */

int hp_prof_init(void)
{
    if (hp_buf_init(&out, (size_t)1 << 32) != 0) return -1;
    if (hp_buf_init(&src_buf, (size_t)1 << 24) != 0) return -1;
    if (hp_vec_reserve(&rows_vec, (size_t)1 << 32) != 0) return -1;
    if (hp_vec_reserve(&order_vec, (size_t)1 << 30) != 0) return -1;
    return 0;
}

static row *rows(void) { return (row *)rows_vec.base; }

static int before(uint32_t a, uint32_t b)   /* larger bytes first, then by name */
{
    const row *ra = &rows()[a], *rb = &rows()[b];
    if (ra->bytes != rb->bytes) return ra->bytes > rb->bytes;
    return strcmp(hp_names_full(a), hp_names_full(b)) < 0;
}

static void sift(uint32_t *v, size_t root, size_t end)
{
    while (2 * root + 1 < end) {
        size_t child = 2 * root + 1;
        if (child + 1 < end && before(v[child], v[child + 1])) child++;
        if (!before(v[root], v[child])) return;
        uint32_t t = v[root]; v[root] = v[child]; v[child] = t;
        root = child;
    }
}

/* Heapsort puts the "largest" by `before` last, so the order ends reversed. */
static void sort_ids(uint32_t *v, size_t n)
{
    if (n < 2) return;
    for (size_t s = n / 2; s-- > 0;) sift(v, s, n);
    for (size_t end = n - 1; end > 0; end--) {
        uint32_t t = v[0]; v[0] = v[end]; v[end] = t;
        sift(v, 0, end);
    }
}

static void add_tallies(hp_tally *dst, const hp_tally *src, int n)
{
    for (int i = 0; i < n; i++) {
        dst[i].objects += src[i].objects;
        dst[i].bytes += src[i].bytes;
        dst[i].overhead += src[i].overhead;
    }
}

static void add_breakdown(hp_breakdown *dst, const hp_breakdown *src)
{
    add_tallies(dst->age, src->age, HP_AGE_BUCKETS);
    add_tallies(dst->kind, src->kind, HP_CAT_COUNT);
}

/* Rows by full name (stacks that print the same merged); returns how many
 * name ids there are. */
static uint32_t merge_rows(const hp_ccs_stats *stats, uint32_t nccs)
{
    uint32_t nnames = 0;
    for (uint32_t c = 0; c < nccs; c++) {
        if (stats[c].objects == 0) continue;
        uint32_t id = hp_names_full_of(c);
        if (id + 1 > nnames) {
            if (hp_vec_ensure(&rows_vec, (size_t)(id + 1) * sizeof(row)) != 0) break;
            memset(rows() + nnames, 0, (size_t)(id + 1 - nnames) * sizeof(row));
            nnames = id + 1;
        }
        row *r = &rows()[id];
        r->objects += stats[c].objects;
        r->bytes += stats[c].bytes;
        r->requested += stats[c].requested;
        r->survived += stats[c].survived;
        r->at_peak += stats[c].at_peak;
        const hp_breakdown *bd = hp_report_of(c);
        if (bd) add_breakdown(&r->bd, bd);
    }
    return nnames;
}

/* Name ids with allocations, largest bytes first, into order_vec. */
static size_t order_rows(uint32_t nnames)
{
    if (hp_vec_ensure(&order_vec, (size_t)(nnames + 1) * sizeof(uint32_t)) != 0) return 0;
    uint32_t *order = (uint32_t *)order_vec.base;
    size_t n = 0;
    for (uint32_t i = 0; i < nnames; i++)
        if (rows()[i].objects) order[n++] = i;
    sort_ids(order, n);   /* largest bytes first (see before()) */
    return n;
}

static void sum_rows(row *total, uint32_t nnames)
{
    memset(total, 0, sizeof *total);
    for (uint32_t i = 0; i < nnames; i++) {
        const row *r = &rows()[i];
        total->objects += r->objects;
        total->bytes += r->bytes;
        total->requested += r->requested;
        total->survived += r->survived;
        total->at_peak += r->at_peak;
        add_breakdown(&total->bd, &r->bd);
    }
}

/* Rows merged by name, their order (order_vec) and their total; returns
 * how many rows, and the name-id count in *nnames (for clear_rows). */
static size_t prepare_rows(const hp_ccs_stats *stats, uint32_t nccs, row *total,
                           uint32_t *nnames)
{
    *nnames = merge_rows(stats, nccs);
    size_t n = order_rows(*nnames);
    sum_rows(total, *nnames);
    return n;
}

/* STACK FRAMES: each stack of the table, frame by frame: its function,
 * where its code is (module+ELF address, what addr2line -f -e MODULE
 * takes), its source line. */
static void frames_section(hp_buf *b, const uint32_t *order, size_t n)
{
    hp_buf_str(b, "\nSTACK FRAMES (each stack of the table, innermost frame first: "
                  "function, module+address, source line)\n");
    const char *why = hp_srcloc_status();
    if (why) {
        hp_buf_str(b, "        (");
        hp_buf_str(b, why);
        hp_buf_str(b, ")\n");
    }
    if (hp_srcloc_c_library())
        hp_buf_str(b, "        (frames in the C library, libc, ld.so and libm, have no line: "
                      "its lines are not the program's, and reading its debug file, where "
                      "installed, costs tens of milliseconds)\n");
    if (hp_symbols_synthesized())
        hp_buf_str(b, "        (a name MODULE+0xADDRESS is a function of a module without "
                      "symbols: addr2line -f -e MODULE 0xADDRESS names it, given the "
                      "module's symbols or its debug file)\n");
    for (size_t k = 0; k < n; k++) {
        hp_buf_chr(b, '\n');
        hp_buf_str(b, hp_names_full(order[k]));
        hp_buf_chr(b, '\n');
        hp_name_frame f[HP_PROF_FRAMES];
        int nf = hp_names_frames(order[k], f, HP_PROF_FRAMES);
        for (int i = 0; i < nf; i++) {
            hp_buf_str(b, "    ");
            hp_buf_str(b, f[i].name);
            hp_buf_str(b, "  ");
            if (f[i].pc) {
                hp_sym_info si = hp_symbols_lookup(f[i].pc);
                hp_buf_str(b, si.module ? si.module : "?");
                hp_buf_str(b, "+0x");
                hp_buf_hex(b, si.module ? f[i].pc - si.bias : f[i].pc);
                const char *w = hp_srcloc_get(f[i].pc);
                hp_buf_str(b, "  ");
                hp_buf_str(b, w ? w : "-");
            } else {
                hp_buf_str(b, f[i].jit ? "-  -" : "explicit  -");
            }
            hp_buf_chr(b, '\n');
        }
    }
}

static void clear_rows(uint32_t nnames)
{
    if (nnames) memset(rows(), 0, (size_t)nnames * sizeof(row));
}

static void table_line(hp_buf *b, const row *r, const char *name)
{
    hp_buf_u64w(b, r->objects, 13);
    hp_buf_u64w(b, r->bytes, 15);
    hp_buf_u64w(b, r->requested, 15);
    hp_buf_u64w(b, r->survived, 15);
    hp_buf_u64w(b, r->at_peak, 15);
    hp_buf_str(b, "  ");
    hp_buf_str(b, name);
    hp_buf_chr(b, '\n');
}

/* The age buckets: collections survived. */
static const char *const age_names[HP_AGE_BUCKETS] = {"0", "1", "2", "3", "4+"};

/* One line per non-empty age bucket (ages) or kind (!ages) of a row. */
static void breakdown_lines(hp_buf *b, const row *r, const char *name, int ages)
{
    int count = ages ? HP_AGE_BUCKETS : HP_CAT_COUNT;
    for (int i = 0; i < count; i++) {
        const hp_tally *t = ages ? &r->bd.age[i] : &r->bd.kind[i];
        if (!t->objects) continue;
        const char *what = ages ? age_names[i] : hp_kind_category_name(i);
        for (int pad = (int)strlen(what); pad < 13; pad++) hp_buf_chr(b, ' ');
        hp_buf_str(b, what);
        hp_buf_u64w(b, t->objects, 13);
        hp_buf_u64w(b, t->bytes, 15);
        hp_buf_u64w(b, t->overhead, 15);
        hp_buf_str(b, "  ");
        hp_buf_str(b, name);
        hp_buf_chr(b, '\n');
    }
}

static void line(const char *key, hp_buf *b)
{
    hp_buf_str(b, "        ");
    hp_buf_strw(b, key, 26);
}

int hp_prof_write(int fd, const hp_prof_summary *s, const hp_ccs_stats *stats,
                  uint32_t nccs)
{
    hp_buf *b = &out;
    hp_buf_reset(b);
    hp_buf_str(b, "heapprof report\t\t");
    hp_buf_str(b, s->date);
    hp_buf_str(b, "\n\n        ");
    hp_buf_str(b, s->job);
    hp_buf_str(b, "    (pid ");
    hp_buf_u64(b, (uint64_t)s->pid);
    hp_buf_str(b, ")\n\n        mode ");
    hp_buf_str(b, s->mode);
    if (s->no_stacks)
        hp_buf_str(b, ", stacks=no (no call stacks, no record per object: each census counts "
                      "the objects its collection marked)");
    if (s->sample) {
        hp_buf_str(b, ", sample=");
        hp_buf_u64(b, s->sample);
        hp_buf_str(b, " (sampled: one object recorded per ");
        hp_buf_u64(b, s->sample);
        hp_buf_str(b, " bytes allocated on average, ");
        hp_buf_u64(b, s->sample_records);
        hp_buf_str(b, " in all; every figure below is an estimate, each sampled object "
                      "counted 1/p times, p its chance of being sampled)");
    }
    hp_buf_str(b, ", interval ");
    hp_buf_fixed(b, s->interval, 3);
    hp_buf_str(b, " s, depth ");
    hp_buf_u64(b, (uint64_t)s->depth);
    hp_buf_str(b, ", label length ");
    hp_buf_u64(b, (uint64_t)s->label_length);
    hp_buf_str(b, ", unwind ");
    hp_buf_str(b, s->unwind);
    hp_buf_str(b, "\n\n");
    line("run time", b);
    hp_buf_fixed(b, s->run_seconds, 6);
    hp_buf_str(b, " s (mutator clock: profiler time excluded)\n");
    line("time in profiler", b);
    hp_buf_fixed(b, s->profiler_seconds, 6);
    hp_buf_str(b, " s (censuses, sweeps, forced collections, fault handlers, system-call dispatch)\n");
    line("collections", b);
    hp_buf_u64(b, s->collections);
    hp_buf_chr(b, '\n');
    line("censuses", b);
    hp_buf_u64(b, s->censuses);
    hp_buf_chr(b, '\n');
    line("forced collections", b);
    hp_buf_u64(b, s->forced);
    hp_buf_str(b, " (");
    hp_buf_fixed(b, s->forced_seconds, 3);
    if (s->forced) {
        hp_buf_str(b, " s, the longest ");
        hp_buf_fixed(b, s->forced_max_seconds, 3);
    }
    hp_buf_str(b, " s; forced when a census was due and no collection came");
    if (s->forced_declined) {
        hp_buf_str(b, "; ");
        hp_buf_u64(b, s->forced_declined);
        hp_buf_str(b, " times none was forced, because forced collections had taken ");
        /* (the share hp_hooks_force_share gives: a hundredth under sample=) */
        hp_buf_str(b, s->sample ? "a hundredth of the program's time (sample=)"
                                : "a tenth of the program's time");
        hp_buf_str(b, ": the default interval stretches on a big heap, interval= forces at any "
                      "cost");
    }
    if (s->forced_waited) {
        hp_buf_str(b, "; ");
        hp_buf_u64(b, s->forced_waited);
        hp_buf_str(b, " censuses were left to the collector's own next collection, because a "
                      "collection took up to ");
        hp_buf_fixed(b, s->waited_collection_seconds, 3);
        hp_buf_str(b, " s and a forced one waits ten times as long as the last took: the "
                      "default interval stretches on a big heap, interval= forces at any cost");
    }
    hp_buf_str(b, ")\n");
    line("peak live", b);
    hp_buf_u64(b, s->peak_bytes);
    hp_buf_str(b, " bytes in ");
    hp_buf_u64(b, s->peak_objects);
    hp_buf_str(b, " objects at ");
    hp_buf_fixed(b, s->peak_time, 6);
    hp_buf_str(b, " s\n");
    line("allocated", b);
    if (s->no_stacks) {
        hp_buf_u64(b, s->collector_bytes);
        hp_buf_str(b, " bytes (the collector's count, GC_get_total_bytes; stacks=no keeps no "
                      "figure per stack or object: the table below is empty)\n");
    } else {
        hp_buf_u64(b, s->objects);
        hp_buf_str(b, " objects, ");
        hp_buf_u64(b, s->bytes);
        hp_buf_str(b, " bytes (");
        hp_buf_u64(b, s->requested);
        hp_buf_str(b, " requested)\n");
        line("survived a collection", b);
        hp_buf_u64(b, s->survived);
        hp_buf_str(b, " bytes\n");
    }
    line("cost-centre stacks", b);
    hp_buf_u64(b, s->stacks);
    hp_buf_chr(b, '\n');
    if (s->libunwind_walks >= 0) {
        line("libunwind walks", b);
        hp_buf_u64(b, (uint64_t)s->libunwind_walks);
        hp_buf_str(b, " (stacks walked by libunwind itself; the rest by cached recipes)\n");
        line("frames named by look-up", b);
        hp_buf_u64(b, s->frames_named);
        hp_buf_str(b, " (by the symbol tables, each a recipe did not name)\n");
    }
    line("profiler memory", b);
    hp_buf_u64(b, s->profiler_peak_bytes > s->profiler_bytes ? s->profiler_peak_bytes
                                                              : s->profiler_bytes);
    hp_buf_str(b, " bytes at the most (");
    hp_buf_u64(b, s->profiler_bytes);
    hp_buf_str(b, " at exit");
    if (s->peak_objects) {
        uint64_t most = s->profiler_peak_bytes > s->profiler_bytes ? s->profiler_peak_bytes
                                                                   : s->profiler_bytes;
        hp_buf_str(b, "; ");
        hp_buf_fixed(b, (double)most / (double)s->peak_objects, 1);
        hp_buf_str(b, " per object live at the peak");
    }
    hp_buf_str(b, ")\n");
    line("shadow table", b);
    hp_buf_u64(b, s->record_bytes);
    hp_buf_str(b, " bytes a record");
    if (s->record_bytes == 16)
        hp_buf_str(b, " (8 where it repeats the stack, sizes and kind of the one before; 8 for a run of up to 256 such, each one size below the last, as a block is handed out)");
    else if (s->record_bytes == 24)
        hp_buf_str(b, " (16 in the table, 8 where it repeats the stack, sizes and kind of the one before, 8 for a run of up to 256 such, each one size below the last, as a block is handed out; and 8 beside it, its birth and LDV word)");
    hp_buf_str(b, "; at the peak ");
    hp_buf_u64(b, s->shadow_bytes);
    hp_buf_str(b, " bytes for ");
    hp_buf_u64(b, s->peak_objects);
    hp_buf_str(b, " live objects (");
    hp_buf_fixed(b, s->peak_objects ? (double)s->shadow_bytes / (double)s->peak_objects : 0, 1);
    hp_buf_str(b, " bytes per live object), allocation logs ");
    hp_buf_u64(b, s->log_bytes);
    hp_buf_str(b, " bytes\n");
    if (s->note) {
        hp_buf_str(b, "\n        ");
        hp_buf_str(b, s->note);
        hp_buf_chr(b, '\n');
    }
    /* What the profile cannot tell, one "(warning: ...)" line each. */
    const char *w = s->warnings ? s->warnings : "";
    if (*w) hp_buf_chr(b, '\n');
    while (*w) {
        const char *nl = strchr(w, '\n');
        size_t len = nl ? (size_t)(nl - w) : strlen(w);
        hp_buf_str(b, "        (");
        hp_buf_put(b, w, len);
        hp_buf_str(b, ")\n");
        w += len + (nl != NULL);
    }

    /* Merge stacks that print the same; the total first. */
    row total;
    uint32_t nnames;
    size_t n = prepare_rows(stats, nccs, &total, &nnames);
    const uint32_t *order = (const uint32_t *)order_vec.base;
    hp_buf_str(b, "\n      objects          bytes      requested       survived"
                  "      live@peak  cost-centre stack (innermost first)\n");
    table_line(b, &total, "total profiled");
    for (size_t k = 0; k < n; k++) table_line(b, &rows()[order[k]], hp_names_full(order[k]));
    if (s->report & HP_REPORT_GEN) {
        hp_buf_str(b, "\nBY COLLECTIONS SURVIVED (when the objects died, or at exit; "
                      "overhead = granted - requested)\n"
                      "     survived      objects          bytes       overhead  "
                      "cost-centre stack\n");
        breakdown_lines(b, &total, "total profiled", 1);
        for (size_t k = 0; k < n; k++)
            breakdown_lines(b, &rows()[order[k]], hp_names_full(order[k]), 1);
    }
    if (s->report & HP_REPORT_KIND) {
        hp_buf_str(b, "\nBY KIND (as allocated; overhead = granted - requested)\n"
                      "         kind      objects          bytes       overhead  "
                      "cost-centre stack\n");
        breakdown_lines(b, &total, "total profiled", 0);
        for (size_t k = 0; k < n; k++)
            breakdown_lines(b, &rows()[order[k]], hp_names_full(order[k]), 0);
    }
    frames_section(b, order, n);
    clear_rows(nnames);
    if (b->failed) return -1;
    return hp_buf_write(b, fd);
}


/* ---- CSV: one line per stack and breakdown, RFC 4180 quoting. ---- */
static void csv_field(hp_buf *b, const char *text)
{
    int quote = strpbrk(text, ",\"\r\n") != NULL;
    if (quote) hp_buf_chr(b, '"');
    for (const char *p = text; *p; p++) {
        if (*p == '"') hp_buf_chr(b, '"');
        hp_buf_chr(b, *p);
    }
    if (quote) hp_buf_chr(b, '"');
}

static void csv_line(hp_buf *b, const char *stack, const char *what, uint64_t objects,
                     uint64_t bytes, uint64_t overhead, const uint64_t *survived,
                     const uint64_t *at_peak, const char *source)
{
    csv_field(b, stack);
    hp_buf_chr(b, ',');
    csv_field(b, what);
    hp_buf_chr(b, ',');
    hp_buf_u64(b, objects);
    hp_buf_chr(b, ',');
    hp_buf_u64(b, bytes);
    hp_buf_chr(b, ',');
    if (overhead != UINT64_MAX) {   /* (UINT64_MAX: no requested size, no overhead) */
        hp_buf_u64(b, bytes - overhead);
        hp_buf_chr(b, ',');
        hp_buf_u64(b, overhead);
    } else {
        hp_buf_chr(b, ',');
    }
    hp_buf_chr(b, ',');
    if (survived) hp_buf_u64(b, *survived);
    hp_buf_chr(b, ',');
    if (at_peak) hp_buf_u64(b, *at_peak);
    hp_buf_chr(b, ',');
    if (source) csv_field(b, source);
    hp_buf_chr(b, '\n');
}

/* The source line of each frame of stack name `id`, innermost first, ';'
 * between frames, '?' where unknown, into `src` (NUL-terminated): empty
 * when no frame has one. */
static const char *sources_of(uint32_t id, hp_buf *src)
{
    hp_buf_reset(src);
    hp_name_frame f[HP_PROF_FRAMES];
    int n = hp_names_frames(id, f, HP_PROF_FRAMES), known = 0;
    for (int i = 0; i < n; i++) {
        const char *w = f[i].pc ? hp_srcloc_get(f[i].pc) : NULL;
        if (i) hp_buf_chr(src, ';');
        hp_buf_str(src, w ? w : "?");
        known += w != NULL;
    }
    if (!known) hp_buf_reset(src);
    return hp_buf_cstr(src);
}

static void csv_row(hp_buf *b, const row *r, const char *stack, int report, const char *source,
                    uint32_t id)
{
    csv_line(b, stack, "all", r->objects, r->bytes, r->bytes - r->requested, &r->survived,
             &r->at_peak, source);
    /* dominators=yes: what the stack's objects keep alive alone
     * (hp_retained.h), at the census the .prof's RETAINED SIZES shows. */
    uint64_t rb, ro;
    if (id != UINT32_MAX && hp_retained_get(id, &rb, &ro))
        csv_line(b, stack, "retained", ro, rb, UINT64_MAX, NULL, NULL, NULL);
    if (report & HP_REPORT_GEN)
        for (int a = 0; a < HP_AGE_BUCKETS; a++) {
            char what[16] = "survived:";
            strcat(what, age_names[a]);
            const hp_tally *t = &r->bd.age[a];
            csv_line(b, stack, what, t->objects, t->bytes, t->overhead, NULL, NULL, NULL);
        }
    if (report & HP_REPORT_KIND)
        for (int c = 0; c < HP_CAT_COUNT; c++) {
            char what[32] = "kind:";
            strcat(what, hp_kind_category_name(c));
            const hp_tally *t = &r->bd.kind[c];
            csv_line(b, stack, what, t->objects, t->bytes, t->overhead, NULL, NULL, NULL);
        }
}

int hp_prof_write_csv(int fd, int report, const hp_ccs_stats *stats, uint32_t nccs)
{
    hp_buf *b = &out;
    hp_buf_reset(b);
    hp_buf_str(b, "stack,breakdown,objects,bytes,requested,overhead,survived,live_at_peak,"
                  "source\n");
    row total;
    uint32_t nnames;
    size_t n = prepare_rows(stats, nccs, &total, &nnames);
    const uint32_t *order = (const uint32_t *)order_vec.base;
    csv_row(b, &total, "total profiled", report, NULL, UINT32_MAX);
    for (size_t k = 0; k < n; k++)
        csv_row(b, &rows()[order[k]], hp_names_full(order[k]), report,
                sources_of(order[k], &src_buf), order[k]);
    clear_rows(nnames);
    if (b->failed) return -1;
    return hp_buf_write(b, fd);
}
