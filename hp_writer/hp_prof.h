/* hp_prof: the .prof text report: a run summary, then one row per
 * cost-centre stack name (stacks that print the same are merged), sorted by
 * bytes allocated. Async-signal-safe given the names are resolvable. */
#ifndef HP_PROF_H
#define HP_PROF_H
#include <stdint.h>
#include <sys/types.h>

#include "core/hp_buf.h"
#include "core/hp_ccstats.h"
#include "core/hp_config.h"


typedef struct hp_prof_summary {
    const char *job, *date, *mode, *unwind;
    double interval;
    int depth, label_length;
    pid_t pid;
    double run_seconds, profiler_seconds, peak_time;
    uint64_t collections, censuses;
    uint64_t forced, forced_declined;    /* forced collections; censuses due but not
                                            forced (their share of the run was spent) */
    double forced_seconds, forced_max_seconds;   /* all forced ones; the longest */
    uint64_t forced_waited;              /* censuses due left to the collector, whose
                                            collections take long (HP_FORCE_COST) */
    double waited_collection_seconds;    /* ... the longest such collection */
    uint64_t peak_bytes, peak_objects;
    uint64_t objects, bytes, requested, survived;
    uint64_t stacks, profiler_bytes, profiler_peak_bytes;
    int64_t libunwind_walks;             /* unwind=libunwind: walks not by recipes; else -1 */
    uint64_t frames_named;               /* ... frames named by symbol look-up (name_fns) */
    uint64_t shadow_bytes, log_bytes;    /* at the peak census */
    uint64_t record_bytes;               /* a record in the shadow table (16: the
                                            compact table, 8 for a record
                                            repeating the one before) */
    const char *note;                    /* extra line, or NULL */
    const char *warnings;                /* lines "warning: ..." / "note: ...",
                                            each ending in a newline, or NULL */
    int report;                          /* HP_REPORT_* breakdowns to print */
    int no_stacks;                       /* stacks=no: no records, no stacks;
                                            collector_bytes allocated in all */
    uint64_t collector_bytes;
    uint64_t sample, sample_records;     /* sample=: the mean distance, records kept */
} hp_prof_summary;

int hp_prof_init(void);
/* Write the report for stacks 0..nccs-1 to fd. 0 or -1. */
int hp_prof_write(int fd, const hp_prof_summary *s, const hp_ccs_stats *stats,
                  uint32_t nccs);
/* The same table as CSV (.alloc.csv): stack,breakdown,objects,bytes,
 * requested,overhead,survived,live_at_peak; breakdown "all", then with
 * report bits "survived:0".."survived:4+" and "kind:<kind>". */
int hp_prof_write_csv(int fd, int report, const hp_ccs_stats *stats, uint32_t nccs);

#endif
