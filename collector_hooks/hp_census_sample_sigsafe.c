/* hp_census_sample_sigsafe: the census's samples (see hp_census_output.h):
 * the output role, the .hp file, the bands of the sample being made, the
 * census of one record (filters, label) and the peak. Async-signal-safe:
 * the SIGINT/SIGTERM finisher takes the last census through here. */
#include "collector_hooks/hp_census_checkpoint.h"
#include "collector_hooks/hp_census_filter.h"
#include "collector_hooks/hp_census_output.h"
#include "core/hp_sample.h"
#include "collector_hooks/hp_census_state.h"
#include "collector_hooks/hp_schemes.h"
#include "core/hp_buf.h"
#include "core/hp_ccstats.h"
#include "core/hp_mem.h"
#include "core/hp_outfile.h"
#include "core/hp_rt.h"
#include "core/hp_sys.h"
#include "hp_writer/hp_hpfile.h"
#include "hp_writer/hp_names.h"

#include <fcntl.h>
#include <stdatomic.h>

hp_census_figures hp_cf;

static hp_vec label_bytes_vec;    /* uint64_t[label] */
static hp_vec sample_labels_vec;  /* const char *[] */
static hp_vec sample_values_vec;  /* uint64_t[] */
static hp_buf hp_out;             /* one .hp sample */
static hp_buf msg;                /* a line for stderr */
static _Atomic int output_role;   /* 1 while a census or the finisher writes */
hp_outfile hp_output_hp;          /* the .hp, once created */
int hp_output_hp_state;           /* HP_OUT_NONE, _OPEN, _FAILED, _DONE */

int hp_output_init(void)
{
    if (hp_vec_reserve(&label_bytes_vec, (size_t)1 << 32) != 0) return -1;
    if (hp_vec_reserve(&sample_labels_vec, (size_t)1 << 32) != 0) return -1;
    if (hp_vec_reserve(&sample_values_vec, (size_t)1 << 32) != 0) return -1;
    if (hp_buf_init(&hp_out, (size_t)1 << 32) != 0) return -1;
    if (hp_buf_init(&msg, (size_t)1 << 20) != 0) return -1;
    if (hp_names_init(hp_rt.cfg.label_length) != 0) return -1;
    if (hp_output_finish_init() != 0) return -1;
    if (hp_checkpoint_init() != 0) return -1;
    hp_output_stamp_date();
    return 0;
}

int hp_output_take_role(void)
{
    int expect = 0;
    return atomic_compare_exchange_strong(&output_role, &expect, 1);
}

void hp_output_release_role(void) { atomic_store(&output_role, 0); }

void hp_output_cannot_write(const char *path, const char *why)
{
    hp_buf_reset(&msg);
    hp_buf_str(&msg, "heapprof: cannot write ");
    hp_buf_str(&msg, path);
    hp_buf_str(&msg, ": ");
    hp_buf_str(&msg, why);
    hp_say(hp_buf_cstr(&msg));
}

/* A forked child's .hp is complete or absent: a worker that ends with
 * _exit (no atexit handler runs) must not leave a profile without its end.
 * Its samples are kept in memory (through the write callback) and the
 * file is made at the end, whole. */
static hp_buf deferred;
static int deferring;

static int capture(int fd, const void *p, size_t n)
{
    (void)fd;
    hp_buf_put(&deferred, p, n);
    return deferred.failed ? -1 : 0;
}

static int run_deferred(int (*write_fn)(int fd, void *arg), void *arg)
{
    hp_buf_set_writer(capture);
    int rc = write_fn(-1, arg);
    hp_buf_set_writer(NULL);
    return rc;
}

static int write_header(int fd, void *arg)
{
    (void)arg;
    return hp_hp_header(&hp_out, fd, hp_rt.job, hp_output_date);
}

void hp_output_open_hp(void)
{
    if (hp_output_hp_state != HP_OUT_NONE || hp_output_finished) return;
    if (hp_rt.forked_child && !deferring) {
        if (!deferred.vec.base && hp_buf_init(&deferred, (size_t)1 << 32) != 0) {
            hp_output_cannot_write(hp_rt.hp_path, "out of memory for a forked child's samples");
            hp_output_hp_state = HP_OUT_FAILED;
            return;
        }
        hp_buf_reset(&deferred);
        deferring = 1;
        run_deferred(write_header, NULL);
        hp_output_hp_state = HP_OUT_OPEN;
        return;
    }
    const char *why = NULL;
    int fd = hp_outfile_create(hp_rt.hp_file, &hp_output_hp, &why);
    if (fd >= 0 && hp_hp_header(&hp_out, fd, hp_rt.job, hp_output_date) != 0) why = hp_errno_text(errno);
    if (fd >= 0) hp_sys_close(fd);
    if (why) {
        hp_output_cannot_write(hp_rt.hp_path, why);
        hp_output_hp_state = HP_OUT_FAILED;
        return;
    }
    hp_output_hp_state = HP_OUT_OPEN;
    hp_checkpoint_discard();   /* an earlier run's, superseded by this new .hp */
}

/* At the end of a forked child: make its .hp now, with what was kept. */
void hp_output_undefer(void)
{
    if (!deferring || hp_output_hp_state != HP_OUT_OPEN) return;
    deferring = 0;
    const char *why = NULL;
    int fd = hp_outfile_create(hp_rt.hp_file, &hp_output_hp, &why);
    if (fd >= 0) {
        if (hp_buf_write(&deferred, fd) != 0) why = hp_errno_text(errno);
        hp_sys_close(fd);
    }
    if (why) {
        hp_output_cannot_write(hp_rt.hp_path, why);
        hp_output_hp_state = HP_OUT_FAILED;
    }
}

int hp_output_hp_append(int (*write_fn)(int fd, void *arg), void *arg)
{
    if (hp_output_hp_state != HP_OUT_OPEN) return -1;
    if (deferring && !hp_output_finished) return run_deferred(write_fn, arg);
    const char *why = NULL;
    int fd = hp_outfile_append(hp_rt.hp_file, &hp_output_hp, &why);
    if (fd >= 0) {
        int64_t size = hp_outfile_size(fd);
        if (write_fn(fd, arg) != 0) {
            why = hp_errno_text(errno);
            hp_outfile_cut(fd, size);   /* never a sample cut mid-line */
        }
        hp_sys_close(fd);
    }
    if (why) {
        hp_output_cannot_write(hp_rt.hp_path, why);
        hp_output_hp_state = HP_OUT_FAILED;
        return -1;
    }
    return 0;
}

typedef struct sample_args {
    double t;
    const char *const *names;
    const uint64_t *values;
    size_t n;
} sample_args;

static int write_sample(int fd, void *arg)
{
    sample_args *a = arg;
    return hp_hp_sample(&hp_out, fd, a->t, a->names, a->values, a->n);
}

static int ensure_label_bytes(uint32_t label)
{
    return hp_vec_ensure(&label_bytes_vec, (size_t)(label + 1) * sizeof(uint64_t));
}

void hp_output_add_label(uint32_t label, uint64_t bytes)
{
    if (label != UINT32_MAX && ensure_label_bytes(label) == 0)
        ((uint64_t *)label_bytes_vec.base)[label] += bytes;
}

/* The last record's shape and what the filters and the scheme said of it
 * (Note [Records of one shape]). */
static struct {
    uint32_t ccs, granted, label;
    uint8_t kind, how, valid, passes;
} last_shape;

void hp_census_add_forget(void) { last_shape.valid = 0; }

/* Note [Records of one shape]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The sweep hands the census its live records in table order, and records
 * in a row mostly share their stack, kind, how and size: a run down a heap
 * block, a site's objects one after another. When the primary scheme's
 * band depends on nothing else (hp_scheme.label_by_shape: kind) and no
 * filter looks at a record's retainer set (rset=), the filters' verdict
 * and the band of the record before are this one's too: a compare in
 * place of the filters, the band's hash lookup and its key (trees.c depth
 * 14 in mode kind under callgrind: 3,903.2M -> 3,636.4M instructions).
 * Forgotten at each sweep (hp_census_add_forget): labels and filters never
 * change meaning within one. A band the scheme could not make (out of
 * memory) is not kept. */
int hp_census_add(hp_rec *r, size_t idx)
{
    const hp_scheme *p = hp_schemes_primary();
    int by_shape = p->label_by_shape && !hp_rt.cfg.filter_rset[0];
    if (by_shape && last_shape.valid && last_shape.ccs == r->ccs &&
        last_shape.granted == r->granted && last_shape.kind == r->kind &&
        last_shape.how == r->how) {
        if (!last_shape.passes) return 0;
        hp_output_add_label(last_shape.label, hp_rec_bytes(r));
        return 1;
    }
    int passes = hp_filter_passes(r);
    uint32_t label = passes && p->label_of ? p->label_of(r, idx) : UINT32_MAX;
    if (by_shape) {
        last_shape.ccs = r->ccs;
        last_shape.granted = r->granted;
        last_shape.kind = r->kind;
        last_shape.how = r->how;
        last_shape.passes = (uint8_t)passes;
        last_shape.label = label;
        last_shape.valid = !passes || label != UINT32_MAX;
    }
    if (!passes) return 0;
    if (p->label_of) hp_output_add_label(label, hp_rec_bytes(r));
    return 1;
}

int hp_census_add_run(hp_rec *first, uint64_t k)
{
    int in = hp_census_add(first, 0);
    /* (hp_census_add kept first's band in last_shape: the scheme labels by
     * shape, the sweep's only caller of this) */
    if (in && k > 1 && hp_schemes_primary()->label_of)
        hp_output_add_label(last_shape.label, (k - 1) * hp_rec_bytes(first));
    return in;
}

void hp_output_write_sample(double t)
{
    /* Fold stacks into labels (stacks with equal labels share a band);
     * the other schemes added to the labels directly. */
    const hp_scheme *p = hp_schemes_primary();
    uint32_t nstats;
    hp_ccs_stats *st = hp_ccstats_table(&nstats);
    for (uint32_t c = 0; c < nstats && p->stack_label; c++) {
        uint64_t bytes = st[c].census;
        if (!bytes) continue;
        uint32_t l = p->stack_label(c);
        if (ensure_label_bytes(hp_names_label_count()) != 0) return;
        ((uint64_t *)label_bytes_vec.base)[l] += bytes;
    }
    uint32_t total_labels = hp_names_label_count();
    if (ensure_label_bytes(total_labels) != 0 ||
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
    hp_output_open_hp();
    sample_args a = {t, names, values, n};
    hp_output_hp_append(write_sample, &a);
}

/* The closing (empty) sample, written to fd. */
int hp_output_close_sample(int fd, double t)
{
    return hp_hp_sample(&hp_out, fd, t, NULL, NULL, 0);
}

int hp_census_note_peak(uint64_t live_bytes, uint64_t live_objects, double t)
{
    if (live_bytes <= hp_cf.peak_bytes && hp_cf.peak_seen) return 0;
    hp_cf.peak_seen = 1;
    hp_cf.peak_bytes = live_bytes;
    hp_cf.peak_objects = live_objects;
    hp_cf.peak_time = t;
    return 1;
}

void hp_census_reset_stacks(int peak)
{
    uint32_t n;
    hp_ccs_stats *st = hp_ccstats_table(&n);
    for (uint32_t c = 0; c < n; c++) {
        if (peak) {
            st[c].at_peak = st[c].census;
            st[c].at_peak_objects = st[c].census_objects;
        }
        st[c].census = st[c].census_objects = 0;
    }
}

void hp_output_postfork_child(void)
{
    hp_output_hp_state = HP_OUT_NONE;
    hp_output_hp.made = 0;
    deferring = 0;
    hp_output_finished = 0;
    hp_checkpoint_postfork_child();
    atomic_store(&output_role, 0);
    hp_output_stamp_date();
}
