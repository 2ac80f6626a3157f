/* hp_prof: the .prof report (see hp_prof.h). */
#include "hp_prof.h"
#include "hp_names.h"
#include "../preload/hp_shadow.h"

typedef hp_rec hp_rec_size_probe;

#include <string.h>

typedef struct row { uint64_t objects, bytes, requested, survived, at_peak; } row;

static hp_buf out;
static hp_vec rows_vec;     /* row[full-name id] */
static hp_vec order_vec;    /* uint32_t[] */

int hp_prof_init(void)
{
    if (hp_buf_init(&out, (size_t)1 << 32) != 0) return -1;
    if (hp_vec_reserve(&rows_vec, (size_t)1 << 32) != 0) return -1;
    if (hp_vec_reserve(&order_vec, (size_t)1 << 30) != 0) return -1;
    return 0;
}

static row *rows(void) { return (row *)rows_vec.base; }

static int before(uint32_t a, uint32_t b)   /* larger bytes first, then id */
{
    const row *ra = &rows()[a], *rb = &rows()[b];
    if (ra->bytes != rb->bytes) return ra->bytes > rb->bytes;
    return a < b;
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
    hp_buf_str(b, " s (censuses, sweeps, forced collections)\n");
    line("collections", b);
    hp_buf_u64(b, s->collections);
    hp_buf_chr(b, '\n');
    line("censuses", b);
    hp_buf_u64(b, s->censuses);
    hp_buf_chr(b, '\n');
    line("peak live", b);
    hp_buf_u64(b, s->peak_bytes);
    hp_buf_str(b, " bytes in ");
    hp_buf_u64(b, s->peak_objects);
    hp_buf_str(b, " objects at ");
    hp_buf_fixed(b, s->peak_time, 6);
    hp_buf_str(b, " s\n");
    line("allocated", b);
    hp_buf_u64(b, s->objects);
    hp_buf_str(b, " objects, ");
    hp_buf_u64(b, s->bytes);
    hp_buf_str(b, " bytes (");
    hp_buf_u64(b, s->requested);
    hp_buf_str(b, " requested)\n");
    line("survived a collection", b);
    hp_buf_u64(b, s->survived);
    hp_buf_str(b, " bytes\n");
    line("cost-centre stacks", b);
    hp_buf_u64(b, s->stacks);
    hp_buf_chr(b, '\n');
    line("profiler memory", b);
    hp_buf_u64(b, s->profiler_bytes);
    hp_buf_str(b, " bytes\n");
    line("shadow table", b);
    hp_buf_u64(b, (uint64_t)sizeof(hp_rec_size_probe));
    hp_buf_str(b, " bytes a record; at the peak ");
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

    /* Merge stacks that print the same. */
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
    }
    size_t n = 0;
    if (hp_vec_ensure(&order_vec, (size_t)(nnames + 1) * sizeof(uint32_t)) == 0) {
        uint32_t *order = (uint32_t *)order_vec.base;
        for (uint32_t i = 0; i < nnames; i++)
            if (rows()[i].objects) order[n++] = i;
        sort_ids(order, n);
        hp_buf_str(b, "\n      objects          bytes      requested       survived"
                      "      live@peak  cost-centre stack (innermost first)\n");
        for (size_t k = n; k-- > 0;) {
            const row *r = &rows()[order[k]];
            hp_buf_u64w(b, r->objects, 13);
            hp_buf_u64w(b, r->bytes, 15);
            hp_buf_u64w(b, r->requested, 15);
            hp_buf_u64w(b, r->survived, 15);
            hp_buf_u64w(b, r->at_peak, 15);
            hp_buf_str(b, "  ");
            hp_buf_str(b, hp_names_full(order[k]));
            hp_buf_chr(b, '\n');
        }
    }
    if (hp_vec_ensure(&rows_vec, 1) == 0 && nnames)
        memset(rows(), 0, (size_t)nnames * sizeof(row));
    if (b->failed) return -1;
    return hp_buf_write(b, fd);
}
