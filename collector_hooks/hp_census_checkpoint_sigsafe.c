/* hp_census_checkpoint_sigsafe: PROG.partial.hp, the checkpoint of a
 * profile written at the end (see hp_census_checkpoint.h for what it is and
 * its invariants). Raw system calls, hp_buf and hp_vec only: the discard
 * runs in the SIGINT/SIGTERM finisher too, and the writer in the owner
 * context (no malloc, no lock). */
#include "collector_hooks/hp_census_checkpoint.h"
#include "collector_hooks/hp_census_filter.h"
#include "collector_hooks/hp_census_output.h"
#include "collector_hooks/hp_census_state.h"
#include "collector_hooks/hp_schemes.h"
#include "core/hp_buf.h"
#include "core/hp_outfile.h"
#include "core/hp_rt.h"
#include "core/hp_shadow.h"
#include "core/hp_sys.h"
#include "hp_writer/hp_hpfile.h"

#include <string.h>

#define SUFFIX ".partial.hp"
#define TMP_SUFFIX ".partial.hp.tmp"

static char ckpt_file[sizeof hp_rt.hp_file + 16];   /* as opened */
static char tmp_file[sizeof hp_rt.hp_file + 16];
static char ckpt_path[sizeof hp_rt.hp_path + 16];   /* as the user named it */
static hp_buf hdr, job;
static uint32_t written;          /* census of the checkpoint on disk; 0: none */
static int failed;                /* said why once; no more checkpoints */
static uint64_t last_end_ns, last_cost_ns;

int hp_checkpoint_init(void)
{
    if (hp_buf_init(&hdr, (size_t)1 << 20) != 0) return -1;
    if (hp_buf_init(&job, (size_t)1 << 20) != 0) return -1;
    return 0;
}

/* `to` = `from` less its ".hp", plus `suffix`. */
static void derive(char *to, size_t cap, const char *from, const char *suffix)
{
    size_t n = strlen(from), s = strlen(suffix);
    if (n >= 3 && memcmp(from + n - 3, ".hp", 3) == 0) n -= 3;
    if (n + s + 1 > cap) n = cap - s - 1;
    memcpy(to, from, n);
    memcpy(to + n, suffix, s + 1);
}

static void paths(void)
{
    derive(ckpt_file, sizeof ckpt_file, hp_rt.hp_file, SUFFIX);
    derive(tmp_file, sizeof tmp_file, hp_rt.hp_file, TMP_SUFFIX);
    derive(ckpt_path, sizeof ckpt_path, hp_rt.hp_path, SUFFIX);
}

void hp_checkpoint_discard(void)
{
    if (!hp_rt.hp_file[0]) return;
    paths();
    hp_sys_unlink(tmp_file);
    hp_sys_unlink(ckpt_file);
    written = 0;
}

uint32_t hp_checkpoint_census(void) { return written; }

const char *hp_checkpoint_path(void) { return ckpt_path; }

void hp_checkpoint_postfork_child(void)
{
    written = 0;
    failed = 0;
    last_end_ns = last_cost_ns = 0;
}

static int due(uint64_t now_ns)
{
    double every = hp_rt.cfg.checkpoint;
    if (every < 0 || failed || hp_rt.forked_child) return 0;
    if (every == 0 || !written) return 1;
    uint64_t gap = (uint64_t)(every * 1e9);
    if (gap < 20 * last_cost_ns) gap = 20 * last_cost_ns;
    return now_ns - last_end_ns >= gap;
}

static void checkpoint_one(hp_rec *r, hp_event ev, void *arg)
{
    (void)ev;
    const hp_scheme *p = arg;
    if (hp_filter_passes(r)) p->checkpoint_rec(r);
}

/* The whole checkpoint into fd: 0, or -1 with errno (or *nothing set when
 * the scheme had nothing to write). */
static int fill(int fd, const hp_scheme *p, uint32_t t, double now, int *nothing)
{
    hp_buf_reset(&job);
    hp_buf_str(&job, hp_rt.job);
    hp_buf_str(&job, " (partial profile: as if the program had ended at census ");
    hp_buf_u64(&job, t);
    hp_buf_str(&job, ", ");
    hp_buf_fixed(&job, now, 6);
    hp_buf_str(&job, " s)");
    if (job.failed) return -1;
    if (p->checkpoint_begin(t) != 0) {
        *nothing = 1;
        return -1;
    }
    hp_shadow_foreach(checkpoint_one, (void *)p);
    if (hp_hp_header(&hdr, fd, hp_buf_cstr(&job), hp_output_date) != 0) return -1;
    return p->checkpoint_samples(fd);
}

void hp_checkpoint_after_census(uint32_t t, double now)
{
    const hp_scheme *p = hp_schemes_primary();
    if (!p->checkpoint_begin || !p->checkpoint_rec || !p->checkpoint_samples) return;
    uint64_t t0 = hp_mono_ns();
    if (!due(t0)) return;
    paths();
    hp_outfile f = {0, 0, 0};
    const char *why = NULL;
    int nothing = 0;
    int fd = hp_outfile_create(tmp_file, &f, &why);
    if (fd >= 0) {
        if (fill(fd, p, t, now, &nothing) != 0 && !nothing) why = hp_errno_text(errno);
        hp_sys_close(fd);
        if (nothing || why) hp_sys_unlink(tmp_file);
        else if (hp_sys_rename(tmp_file, ckpt_file) != 0) why = hp_errno_text(errno);
    }
    if (why) {
        hp_sys_unlink(tmp_file);
        hp_output_cannot_write(ckpt_path, why);
        hp_say("heapprof: no more checkpoints of the profile (the final profile is not "
               "affected)");
        failed = 1;
        return;
    }
    if (nothing) return;
    written = t;
    last_end_ns = hp_mono_ns();
    last_cost_ns = last_end_ns - t0;
}
