/* hp_census_state: the census's run figures, shared by the files of the
 * census (collector_hooks/hp_census*.c) and by nothing else. Changed in
 * the owner context, or by the signal finisher when it holds the output
 * role (hp_census_output.h). */
#ifndef HP_CENSUS_STATE_H
#define HP_CENSUS_STATE_H
#include <stdint.h>

typedef struct hp_census_figures {
    uint64_t collections, censuses;
    uint64_t peak_bytes, peak_objects;
    double peak_time, last_census_time;
    uint64_t shadow_at_peak, logs_at_peak;
    uint64_t census_ns;           /* time in the censuses' own work: their passes, traversals */
    int unjudged_census;          /* the last census was taken without a collection */
    const char *unjudged_why;     /* and why */
    int peak_seen;
    const char *mode_name;        /* for the .prof (set at start-up) */
} hp_census_figures;

extern hp_census_figures hp_cf;
/* This collection's MARK_END traversed the heap (a census in a traversal
 * mode is taken only then). */
extern int hp_census_traversed;

/* A census of `live_bytes` / `live_objects` at profile time `t` is taken:
 * keep it if it is the peak (per-stack figures too). Returns 1 at a peak. */
int hp_census_note_peak(uint64_t live_bytes, uint64_t live_objects, double t);
/* Reset the per-stack census figures after a census (keeping the peak's). */
void hp_census_reset_stacks(int peak);

/* Add a live record to the census being taken, with its label (the
 * primary scheme's label_of, or its stack): 1 when it is in the profile
 * (filters), and then its bytes count to its stack's census figure. */
#include "core/hp_shadow.h"
int hp_census_add(hp_rec *r, size_t idx);
/* hp_census_add of `k` live records of first's shape at once, when the
 * primary scheme labels by shape alone (hp_scheme.label_by_shape, no
 * rset= filter: Note [Records of one shape]). */
int hp_census_add_run(hp_rec *first, uint64_t k);
/* A sweep begins: hp_census_add keeps nothing from the last one. */
void hp_census_add_forget(void);

/* Shared by the sample and finish files of the output. */
enum { HP_OUT_NONE, HP_OUT_OPEN, HP_OUT_FAILED, HP_OUT_DONE };
extern int hp_output_hp_state;    /* the .hp: not yet made, being written, failed, complete */
extern int hp_output_finished;
extern char hp_output_date[64];   /* the DATE of the .hp and .prof */
int hp_output_finish_init(void);
void hp_output_stamp_date(void);
/* Open the .hp to append, run write_fn on it (0 or -1 with errno); a
 * failure cuts back what was half-written, is said on stderr once, and
 * ends the .hp (state HP_OUT_FAILED). 0 or -1. */
int hp_output_hp_append(int (*write_fn)(int fd, void *arg), void *arg);
int hp_output_close_sample(int fd, double t);
/* A forked child's .hp was kept in memory: write it now (at the end). */
void hp_output_undefer(void);
/* "heapprof: cannot write PATH: WHY" on stderr. */
void hp_output_cannot_write(const char *path, const char *why);

#endif
