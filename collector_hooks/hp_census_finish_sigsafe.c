/* hp_census_finish_sigsafe: the end of a profile (see hp_census_output.h):
 * the last census when a signal ends the program, the objects alive at
 * exit, the closing sample, the .prof and .alloc.csv, and the line on
 * stderr. Async-signal-safe: it runs in the SIGINT/SIGTERM handler too. */
#include "collector_hooks/hp_census.h"
#include "collector_hooks/hp_census_checkpoint.h"
#include "collector_hooks/hp_census_filter.h"
#include "collector_hooks/hp_census_output.h"
#include "collector_hooks/hp_census_state.h"
#include "collector_hooks/hp_hooks.h"
#include "collector_hooks/hp_schemes.h"
#include "hp_writer/hp_names.h"
#include "hp_writer/hp_pprof.h"
#include "hp_writer/hp_retained.h"
#include "core/hp_breakdown.h"
#include "core/hp_buf.h"
#include "core/hp_capture.h"
#include "core/hp_ccstats.h"
#include "core/hp_mem.h"
#include "core/hp_outfile.h"
#include "core/hp_real.h"
#include "core/hp_rt.h"
#include "core/hp_sample.h"
#include "core/hp_shadow.h"
#include "core/hp_stacks.h"
#include "core/hp_symbols.h"
#include "core/hp_sys.h"
#include "hp_writer/hp_hpfile.h"
#include "hp_writer/hp_prof.h"

#include <fcntl.h>
#include <time.h>
#include <string.h>

int hp_output_finished;
char hp_output_date[64];
static hp_buf msg;                /* a line for stderr */
static uint64_t signal_live_bytes, signal_live_objects;

int hp_output_finish_init(void)
{
    if (hp_buf_init(&msg, (size_t)1 << 20) != 0) return -1;
    if (hp_prof_init() != 0) return -1;
    if (hp_pprof_init() != 0) return -1;
    if (hp_retained_init() != 0) return -1;
    return 0;
}

static uint64_t start_realtime_ns;   /* the wall clock at the date stamp */

void hp_output_stamp_date(void)
{
    hp_hp_date(hp_output_date, sizeof hp_output_date, (long long)time(NULL));
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    start_realtime_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A record in the signal finisher's census: live, then dead at exit. */
static void signal_visit(hp_rec *r, hp_event ev, void *arg)
{
    (void)ev;
    (void)arg;
    uint32_t nstats;
    hp_ccs_stats *stats = hp_ccstats_table(&nstats);
    if (r->ccs >= nstats) return;
    hp_ccs_stats *st = &stats[r->ccs];
    const hp_scheme *p = hp_schemes_primary();
    if (hp_census_add(r, SIZE_MAX)) {
        uint64_t b = hp_rec_bytes(r), c = hp_rec_count(r);
        st->census += b;
        st->census_objects += c;
        signal_live_bytes += b;
        signal_live_objects += c;
        uint32_t t = atomic_load(&hp_rt.period) + 1;   /* census, then death at exit */
        if (p->census_rec) p->census_rec(r, t);
        if (p->on_death) p->on_death(r, t);
    }
    hp_breakdown *bd = hp_report_of(r->ccs);
    if (hp_ccstats_untallied(r)) {   /* never swept: tally it */
        hp_ccstats_tally(st, r);
        hp_totals.objects += hp_rec_count(r);
        hp_totals.bytes += hp_rec_bytes(r);
        hp_totals.requested += hp_rec_req(r);
        if (bd) hp_report_kind(bd, r, hp_kind_category(r));
    }
    if (bd) hp_report_death(bd, r);   /* dies at exit */
}

/* The last census when a signal ends the program: no collection can be run
 * from a signal handler, so every record not found dead by the last
 * collection counts as live (read-only: the shadow table is not ours). */
static void signal_census(double now)
{
    uint32_t nstats;
    if (!hp_ccstats_all()) return;
    hp_ccs_stats *st = hp_ccstats_table(&nstats);
    for (uint32_t c = 0; c < nstats; c++) st[c].census = st[c].census_objects = 0;
    signal_live_bytes = signal_live_objects = 0;
    HP_SCHEMES_EACH(census_begin, atomic_load(&hp_rt.period) + 1,
                    now < hp_cf.last_census_time ? hp_cf.last_census_time : now);
    hp_census_add_forget();
    hp_shadow_peek(signal_visit, NULL);
    if (hp_census_note_peak(signal_live_bytes, signal_live_objects, now))
        for (uint32_t c = 0; c < nstats; c++) {
            st[c].at_peak = st[c].census;
            st[c].at_peak_objects = st[c].census_objects;
        }
    if (!hp_schemes_primary()->write_samples) hp_output_write_sample(now);
    hp_cf.censuses++;
    hp_cf.unjudged_census = 1;
}

/* Objects still alive at exit die at exit (collections survived so far). */
static void exit_death(hp_rec *r, hp_event ev, void *arg)
{
    (void)ev;
    (void)arg;
    hp_breakdown *bd = hp_report_of(r->ccs);
    if (bd) hp_report_death(bd, r);
}

/* Records still alive at exit die after the last census (ldv). */
static void scheme_exit_death(hp_rec *r, hp_event ev, void *arg)
{
    (void)ev;
    (void)arg;
    if (hp_filter_passes(r)) hp_schemes_primary()->on_death(r, atomic_load(&hp_rt.period));
}

static int prof_ok, csv_ok;   /* the .prof and .alloc.csv were written whole */
static int pb_ok, folded_ok;  /* PROG.pb.gz; both folded files */

/* One file's fate, for the exit line when the profile is not complete. */
static void file_fate(const char *path, int ok, int begun)
{
    hp_buf_str(&msg, path);
    hp_buf_str(&msg, ok ? " written" : begun ? " incomplete (it ends at the last census "
                                               "written)" : " not written");
}

/* What the profile cannot tell, as lines "warning: ..." or "note: ..."
 * (the .prof's notes and stderr after the "wrote" line), made once. */
static hp_buf warn_buf;
static int warned;

static const char *warnings(void)
{
    if (warned) return hp_buf_cstr(&warn_buf);
    warned = 1;
    if (!warn_buf.vec.base && hp_buf_init(&warn_buf, (size_t)1 << 20) != 0) return "";
    hp_buf_reset(&warn_buf);
    /* Few censuses: the heap between them was not seen. */
    if (hp_totals.objects && hp_cf.censuses <= 2) {
        hp_buf_str(&warn_buf, "warning: only ");
        hp_buf_u64(&warn_buf, hp_cf.censuses);
        hp_buf_str(&warn_buf, hp_cf.censuses == 1 ? " census" : " censuses");
        hp_buf_str(&warn_buf, " (the program made ");
        hp_buf_u64(&warn_buf, hp_cf.collections);
        hp_buf_str(&warn_buf, hp_cf.collections == 1 ? " collection" : " collections");
        hp_buf_str(&warn_buf, "): heapprof takes a census at a collection, so the heap "
                              "between them is not in the profile; for more, a shorter "
                              "interval (interval=, -i: a collection is forced when ");
        hp_buf_str(&warn_buf, hp_hooks_force_after() == HP_FORCE_AFTER ? "1.5" : "1.25");
        hp_buf_str(&warn_buf, " intervals pass without one), or GC_gcollect() where the "
                              "heap is of interest\n");
    }
    /* Objects heapprof could not record: the profile undercounts them. */
    uint64_t lost_bytes, lost = hp_shadow_lost(&lost_bytes);
    if (lost) {
        hp_buf_str(&warn_buf, "warning: ");
        hp_buf_u64(&warn_buf, lost);
        hp_buf_str(&warn_buf, lost == 1 ? " object (" : " objects (");
        hp_buf_u64(&warn_buf, lost_bytes);
        hp_buf_str(&warn_buf, " bytes) were not recorded: heapprof had no memory left for "
                              "its allocation logs or record table (address space or "
                              "memory: RLIMIT_AS, overcommit), so every figure leaves "
                              "them out\n");
    }
    uint32_t nstats;
    hp_ccs_stats *stats = hp_ccstats_table(&nstats);
    hp_filter_warnings(&warn_buf, stats, nstats);
    HP_SCHEMES_EACH(warnings, &warn_buf);
    hp_buf_str(&warn_buf, hp_names_warnings(stats, nstats));
    return hp_buf_cstr(&warn_buf);
}

static void say_done(void)
{
    hp_buf_reset(&msg);
    int hp_ok = hp_output_hp_state == HP_OUT_DONE;
    if (hp_totals.objects == 0 && hp_stacks_count() <= 1 && !hp_ok) {
        /* A process that never used libgc says nothing when the profiled
         * program started or forked it (cc, ld, sh...): only the user's own
         * command hears that it was not profiled. */
        if (hp_rt.forked_child || hp_rt.started_by_profiled) return;
        hp_buf_str(&msg, "heapprof: no bdwgc allocations were seen in ");
        hp_buf_str(&msg, hp_rt.program);
        hp_buf_str(&msg, " (it does not use libgc, or links it statically); "
                         "no profile written");
    } else if (hp_ok && prof_ok && csv_ok) {
        int want_csv = hp_rt.cfg.outputs & HP_OUTPUT_CSV;
        hp_buf_str(&msg, "heapprof: wrote ");
        hp_buf_str(&msg, hp_rt.hp_path);
        hp_buf_str(&msg, want_csv ? ", " : " and ");
        hp_buf_str(&msg, hp_rt.prof_path);
        if (want_csv) {
            hp_buf_str(&msg, " and ");
            hp_buf_str(&msg, hp_rt.csv_path);
        }
        hp_buf_str(&msg, " (");
        hp_buf_u64(&msg, hp_cf.censuses);
        hp_buf_str(&msg, " censuses, peak ");
        hp_buf_u64(&msg, hp_cf.peak_bytes);
        hp_buf_str(&msg, " bytes live); view with: hp2ps -c ");
        hp_buf_str(&msg, hp_rt.hp_path);
        if (pb_ok) {
            hp_buf_str(&msg, "; also ");
            hp_buf_str(&msg, hp_rt.pb_path);
            hp_buf_str(&msg, " (go tool pprof ");
            hp_buf_str(&msg, hp_rt.pb_path);
            hp_buf_chr(&msg, ')');
        }
        if (folded_ok) {
            hp_buf_str(&msg, pb_ok ? ", " : "; also ");
            hp_buf_str(&msg, hp_rt.folded_path);
            hp_buf_str(&msg, " and ");
            hp_buf_str(&msg, hp_rt.live_folded_path);
            hp_buf_str(&msg, " (flame graphs)");
        }
    } else {
        hp_buf_str(&msg, "heapprof: no complete profile written for ");
        hp_buf_str(&msg, hp_rt.program);
        hp_buf_str(&msg, ": ");
        file_fate(hp_rt.hp_path, hp_ok, hp_output_hp_state == HP_OUT_FAILED &&
                                            hp_cf.censuses > 0);
        hp_buf_str(&msg, ", ");
        file_fate(hp_rt.prof_path, prof_ok, 0);
        if (hp_rt.cfg.outputs & HP_OUTPUT_CSV) {
            hp_buf_str(&msg, ", ");
            file_fate(hp_rt.csv_path, csv_ok, 0);
        }
        hp_buf_str(&msg, " (the reasons are above)");
        if (!hp_ok && hp_checkpoint_census()) {
            hp_buf_str(&msg, "; ");
            hp_buf_str(&msg, hp_checkpoint_path());
            hp_buf_str(&msg, " holds the profile as if the program had ended at census ");
            hp_buf_u64(&msg, hp_checkpoint_census());
        }
    }
    if (msg.failed) {
        /* No memory even for the message: say that much, from the stack. */
        char line[HP_OUT_MAX + 160];
        size_t n = 0;
        const char *parts[] = {"heapprof: out of memory (the program's address-space limit, "
                               "RLIMIT_AS, or the system's): the profile of ",
                               hp_rt.program, " may be incomplete or missing"};
        for (size_t k = 0; k < sizeof parts / sizeof *parts; k++) {
            size_t l = strlen(parts[k]);
            if (l > sizeof line - 1 - n) l = sizeof line - 1 - n;
            memcpy(line + n, parts[k], l);
            n += l;
        }
        line[n] = 0;
        hp_say(line);
        return;
    }
    hp_say(hp_buf_cstr(&msg));
    /* What the profile cannot tell (also in the .prof). */
    if (hp_totals.objects == 0 && hp_shadow_lost(NULL) == 0) return;
    const char *w = warnings();
    while (*w) {
        const char *nl = strchr(w, '\n');
        size_t len = nl ? (size_t)(nl - w) : strlen(w);
        hp_buf_reset(&msg);
        hp_buf_str(&msg, "heapprof: ");
        hp_buf_put(&msg, w, len);
        hp_say(hp_buf_cstr(&msg));
        w += len + (nl != NULL);
    }
}

/* Create one of the end's files and fill it: 1 when written whole. */
static int write_whole(const char *file, const char *path, void (*fill)(int fd, void *arg),
                       void *arg)
{
    hp_outfile f = {0, 0, 0};
    const char *why = NULL;
    int fd = hp_outfile_create(file, &f, &why);
    if (fd >= 0) {
        hp_buf_write_error_reset();
        fill(fd, arg);
        int err = hp_buf_write_error();
        hp_sys_close(fd);
        if (err) why = hp_errno_text(err);
    }
    if (why) hp_output_cannot_write(path, why);
    return why == NULL;
}

typedef struct prof_args { int from_signal; double end; } prof_args;

static void fill_prof(int fd, void *arg)
{
    prof_args *a = arg;
    int from_signal = a->from_signal;
    double end = a->end;
    hp_prof_summary s = {0};
    s.job = hp_rt.job;
    s.date = hp_output_date;
    s.mode = hp_cf.mode_name;
    s.no_stacks = hp_rt.cfg.no_stacks;
    s.sample = hp_rt.cfg.sample;
    s.sample_records = atomic_load(&hp_sample_taken);
    s.collector_bytes = hp_rt.cfg.no_stacks && hp_real.GC_get_total_bytes
                            ? (uint64_t)hp_real.GC_get_total_bytes() : 0;
    s.unwind = hp_rt.cfg.unwind == HP_UNWIND_FP ? "fp" : "libunwind";
    s.interval = hp_rt.cfg.interval;
    s.depth = hp_rt.cfg.depth;
    s.label_length = hp_rt.cfg.label_length;
    s.pid = hp_rt.pid;
    s.run_seconds = end;
    s.profiler_seconds = (double)hp_rt_excluded() / 1e9;
    s.peak_time = hp_cf.peak_time;
    s.collections = hp_cf.collections;
    s.censuses = hp_cf.censuses;
    s.forced = atomic_load(&hp_rt.forced_collections);
    s.forced_seconds = (double)atomic_load(&hp_rt.forced_ns) / 1e9;
    s.forced_max_seconds = (double)atomic_load(&hp_rt.forced_max_ns) / 1e9;
    s.forced_declined = atomic_load(&hp_rt.forced_declined);
    s.forced_waited = atomic_load(&hp_rt.forced_waited);
    s.waited_collection_seconds = (double)atomic_load(&hp_rt.waited_collection_ns) / 1e9;
    s.peak_bytes = hp_cf.peak_bytes;
    s.peak_objects = hp_cf.peak_objects;
    s.objects = hp_totals.objects;
    s.bytes = hp_totals.bytes;
    s.requested = hp_totals.requested;
    s.survived = hp_totals.survived;
    s.stacks = hp_stacks_count();
    s.libunwind_walks = hp_capture_libunwind_walks();
    s.frames_named = hp_capture_frames_named();
    s.profiler_bytes = hp_mem_committed();
    s.profiler_peak_bytes = hp_mem_committed_peak();
    s.shadow_bytes = hp_cf.shadow_at_peak;
    s.log_bytes = hp_cf.logs_at_peak;
    s.record_bytes = hp_shadow_record_bytes();
    static hp_buf note;
    if (!note.vec.base) hp_buf_init(&note, 4096);
    hp_buf_reset(&note);
    if (hp_cf.unjudged_census && !from_signal) {
        hp_buf_str(&note, "(");
        hp_buf_str(&note, hp_cf.unjudged_why ? hp_cf.unjudged_why
                                             : "no collection could be run at exit (GC_disable?)");
        hp_buf_str(&note, ": the last census counts every object not found dead by an "
                          "earlier collection)");
    }
    s.note = from_signal
        ? "(the program was stopped by a signal: the last census counts every "
          "object not found dead by the last collection)"
        : hp_cf.unjudged_census ? hp_buf_cstr(&note) : NULL;
    s.report = hp_rt.cfg.report;
    s.warnings = warnings();
    uint32_t nstats;
    hp_ccs_stats *stats = hp_ccstats_table(&nstats);
    for (uint32_t c = 0; c < nstats && hp_rt.cfg.report; c++)
        hp_report_complete(c, stats[c].objects, stats[c].bytes, stats[c].requested);
    hp_prof_write(fd, &s, stats, nstats);
    HP_SCHEMES_EACH(write_prof, fd);
}

static void fill_csv(int fd, void *arg)
{
    (void)arg;
    uint32_t nstats;
    hp_ccs_stats *stats = hp_ccstats_table(&nstats);
    hp_prof_write_csv(fd, hp_rt.cfg.report, stats, nstats);
}

static void fill_pprof(int fd, void *arg)
{
    prof_args *a = arg;
    hp_pprof_run run = {start_realtime_ns, (uint64_t)(a->end * 1e9), hp_cf.peak_time, hp_rt.job};
    uint32_t nstats;
    hp_ccs_stats *stats = hp_ccstats_table(&nstats);
    hp_pprof_write(fd, &run, stats, nstats);
}

static void fill_folded(int fd, void *arg)
{
    uint32_t nstats;
    hp_ccs_stats *stats = hp_ccstats_table(&nstats);
    hp_folded_write(fd, stats, nstats, *(const int *)arg);
}

/* The rest of the .hp at the end: a scheme's own samples (ldv), then the
 * closing sample; errors of every write count. */
typedef struct tail_args { const hp_scheme *p; double end; } tail_args;

static int write_tail(int fd, void *arg)
{
    tail_args *a = arg;
    hp_buf_write_error_reset();
    if (a->p->write_samples) a->p->write_samples(fd);
    hp_output_close_sample(fd, a->end);
    int err = hp_buf_write_error();
    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}

void hp_census_finish(int from_signal)
{
    if (hp_output_finished) return;
    /* A census half-written on some thread (from a signal): leave the
     * files as they are, readable up to the last whole sample. */
    if (!hp_output_take_role()) return;
    hp_output_finished = 1;
    hp_mem_set_final();   /* the files may take what the program left */
    hp_symbols_set_signal_context(from_signal);
    double end = hp_profile_seconds(hp_mono_ns());
    if (end < hp_cf.last_census_time) end = hp_cf.last_census_time;
    const hp_scheme *p = hp_schemes_primary();
    /* Files are completed whenever something was allocated or a census
     * was written (a program that only initialised the collector). */
    if (hp_totals.objects > 0 || hp_stacks_count() > 1 || hp_output_hp_state != HP_OUT_NONE) {
        hp_output_undefer();   /* a forked child's samples, kept until now */
        HP_SCHEMES_EACH(stop);
        if (from_signal) signal_census(end);
        else if (hp_rt.cfg.report) hp_shadow_foreach(exit_death, NULL);
        if (!from_signal && p->on_death) hp_shadow_foreach(scheme_exit_death, NULL);
        hp_output_open_hp();
        tail_args t = {p, end};
        if (hp_output_hp_append(write_tail, &t) == 0) {
            hp_output_hp_state = HP_OUT_DONE;
            hp_checkpoint_discard();   /* the whole profile supersedes it */
        }
        /* The report is worth having even when the .hp failed. */
        prof_args a = {from_signal, end};
        prof_ok = write_whole(hp_rt.prof_file, hp_rt.prof_path, fill_prof, &a);
        int out = hp_rt.cfg.outputs;
        /* (A file not asked for counts as written: nothing is missing.) */
        csv_ok = !(out & HP_OUTPUT_CSV) ||
                 write_whole(hp_rt.csv_file, hp_rt.csv_path, fill_csv, NULL);
        prof_args b = {from_signal, end};
        pb_ok = (out & HP_OUTPUT_PPROF) &&
                write_whole(hp_rt.pb_file, hp_rt.pb_path, fill_pprof, &b);
        int alloc = 0, live = 1;
        folded_ok = (out & HP_OUTPUT_FOLDED) &&
                    write_whole(hp_rt.folded_file, hp_rt.folded_path, fill_folded, &alloc) &&
                    write_whole(hp_rt.live_folded_file, hp_rt.live_folded_path,
                                fill_folded, &live);
    }
    say_done();
    hp_output_release_role();
}
