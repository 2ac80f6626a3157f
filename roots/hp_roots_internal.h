/* hp_roots_internal: what the files of the named-roots profile share (not
 * for use outside roots/): the root table, the bins, the census's state. */
#ifndef HP_ROOTS_INTERNAL_H
#define HP_ROOTS_INTERNAL_H
#include <stdint.h>

#include "core/hp_buf.h"
#include "core/hp_hash.h"
#include "core/hp_mem.h"
#include "retainer/hp_trace.h"
#include "roots/hp_roots.h"

typedef struct hp_root {
    char name[HP_ROOT_NAME_MAX];
    uintptr_t base;          /* 0: slot free */
    uint64_t seq;            /* order in which the program gave it */
} hp_root;


typedef struct hp_bin {
    uint64_t mask;           /* root slots reaching the objects */
    uint64_t gen;            /* root-table generation the mask refers to */
    const char *text;        /* names joined with '-' */
    uint32_t label;          /* label id + 1, 0 = not made yet */
    uint32_t pad;
} hp_bin;

typedef struct hp_roots_state {
    hp_root roots[HP_ROOTS_MAX];   /* profiler data: never scanned, so weak */
    uint64_t next_seq, generation;
    hp_vec bin_vec;                /* hp_bin[] */
    hp_idindex bin_index;
    uint32_t nbins;
    hp_arena text_arena;
    hp_buf events, census_lines;
    hp_vec bin_bytes_vec;          /* uint64_t per bin this census */
    int traversed, ready;
    int no_roots;                       /* this census: no live named root, no walk */
    uint64_t mark_ns_last, trace_ns_last;
    hp_trace_stats tstats;
    uint64_t reached_bytes, noroot_bytes;
    uint32_t bins_this_census;
    uint32_t noroot_label;         /* label id + 1 */
} hp_roots_state;
extern hp_roots_state hp_roots_;

/* hp_roots_sigsafe.c */
double hp_roots_now(void);
/* A line of the .prof's event list: at t, `what` and the root's name. */
void hp_roots_event_line(double t, const char *what, const char *name);
/* Root slot i is gone (its object died or was freed, or it was removed). */
void hp_roots_drop(int i, double t, const char *why);

#endif
