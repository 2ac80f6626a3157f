/* hp_config: the HEAPPROF environment variable, parsed into a struct.
 * Grammar: HEAPPROF=[mode][,key=value]...   (see doc/options.md)
 * Pure code: no allocation, no global state, so it is unit-tested alone. */
#ifndef HP_CONFIG_H
#define HP_CONFIG_H
#include <stdint.h>
#include <stddef.h>

typedef enum {
    HP_MODE_CC, HP_MODE_RETAINER, HP_MODE_LDV, HP_MODE_ROOTS, HP_MODE_MODULE, HP_MODE_KIND,
    HP_MODE_COUNT
} hp_mode;
/* report= : the allocation report's breakdowns (bit set). */
enum { HP_REPORT_GEN = 1, HP_REPORT_KIND = 2 };
/* ldv= : when a page opened by a trap is protected again (ldv mode). */
enum { HP_LDV_ADAPTIVE, HP_LDV_PAGE, HP_LDV_PRECISE };
typedef enum { HP_UNWIND_LIBUNWIND, HP_UNWIND_FP, HP_UNWIND_LIBUNWIND_RAW } hp_unwind;

#define HP_MAX_DEPTH 64
#define HP_OUT_MAX 4096
#define HP_FILTER_MAX 256
/* The longest component of out=: NAME_MAX (255) less ".12345678.alloc.csv". */
#define HP_OUT_COMPONENT_MAX 230

typedef struct hp_config {
    hp_mode mode;
    double interval;      /* seconds between censuses (GHC -i); 0: every collection */
    int interval_given;   /* interval= was written: obeyed from the start (else
                             the first HP_EARLY_CENSUSES collections each take
                             a census, so short runs are seen) */
    int depth;            /* frames kept per cost-centre stack */
    int label_length;     /* .hp label length (GHC -L) */
    hp_unwind unwind;     /* how stacks are captured */
    int frames_by_call;   /* frames=call: a frame is a call site (its return
                             address), not the function containing it */
    char out[HP_OUT_MAX]; /* output path stem or .hp path; "" = <program>.hp */
    int help;             /* HEAPPROF=help */
    int report;           /* HP_REPORT_* bits */
    int outputs;          /* HP_OUTPUT_* bits: the files written besides .hp and .prof */
    int ldv_policy;       /* HP_LDV_*: re-arming policy of mode ldv */
    int ldv_bands;        /* bands=: HP_BAND_* bits; mode ldv then profiles those
                             bands' bytes by cost-centre stack (GHC -hc -hb<bands>);
                             0: the biography's own bands */
    int ldv_burst;        /* ldv: after a fault, emulate on while protected pages are
                             reached (burst=on, default; off) */
    int ldv_repeat;       /* ldv=adaptive: faults that find nothing new before a
                             page stays open for the rest of the period */
    uint64_t ldv_window;  /* window=BYTES (ldv): a collection after every BYTES
                             allocated by a thread (0: none) */
    double ldv_budget;    /* ldv=adaptive: the cost of watching allowed, a
                             multiple of the program's own time past the floor */
    double ldv_floor;     /* ldv=adaptive: the allowance's floor, seconds
                             (floor=, default 0.5) */
    int ldv_floor_faults; /* ldv=adaptive: the same in faults at a fault's kernel
                             cost, where larger (faults=, default 65536) */
    int ldv_syscalls;     /* 1: every system call seen by syscall user dispatch
                             (syscalls=dispatch, the default); 0: only the
                             interposed C library calls (syscalls=wrappers) */
    double checkpoint;    /* mode ldv: seconds between checkpoints of the
                             biography (PROG.partial.hp); 0: every census;
                             -1: none */
    /* Filters of the heap profile ("" = none): a function on the stack
     * (GHC -hC), the allocating function's module, the object kind. */
    char filter_ccs[HP_FILTER_MAX], filter_module[HP_FILTER_MAX], filter_kind[HP_FILTER_MAX];
    /* Retainer profile: functions whose objects are retainers ('+'-separated
     * names), the set-size bound (GHC -R), and the filter by retainer
     * (GHC -hr: objects whose retainer set holds one of these names). */
    char retainers[HP_FILTER_MAX];
    int bound;
    char filter_rset[HP_FILTER_MAX];
    int noroot;           /* roots mode: bytes reachable from no named root: HP_NOROOT_* */
    int ret_walk;         /* retainer sets: HP_WALK_* */
    int walk_helper;      /* helper=: HP_HELPER_* (the component walk's second thread) */
    int dominators;       /* retainer: retained sizes by the dominator tree */
    uint64_t sample;      /* sample=BYTES: mean distance between sampled
                             bytes (core/hp_sample.h); 0: every object */
    uint64_t seed;        /* seed=N: the sampler's generator (0: from the clock) */
    int no_stacks;        /* stacks=no (mode kind, GHC -hT): no per-object
                             records; censuses by the collector's walk of
                             the marked objects */
} hp_config;
/* noroot=: leave them out, one NOROOT band, or NOROOT:<retainer set>. */
enum { HP_NOROOT_NO, HP_NOROOT_YES, HP_NOROOT_RETAINERS };

/* How the retainer profile walks the heap (retainer/hp_retainer_sigsafe.c):
 * chosen per census from the last one, depth-first from each root, or by
 * strongly connected components. */
enum { HP_WALK_AUTO = 0, HP_WALK_DEPTH = 1, HP_WALK_SCC = 2 };
enum { HP_HELPER_AUTO = 0, HP_HELPER_NO = 1, HP_HELPER_YES = 2 };

/* bands=: the biographical bands crossed with stacks (those known at an
 * object's death: DRAG and VOID). */
enum { HP_BAND_DRAG = 1, HP_BAND_VOID = 2 };

/* outputs=: the files written besides PROG.hp and PROG.prof. */
enum { HP_OUTPUT_CSV = 1, HP_OUTPUT_PPROF = 2, HP_OUTPUT_FOLDED = 4, HP_OUTPUT_ALL = 7 };

/* Without an explicit interval=, this many censuses are taken at every
 * collection before the interval applies. */
#define HP_EARLY_CENSUSES 20

void hp_config_defaults(hp_config *c);
/* Parse `s` (may be NULL or empty: defaults). Returns 0, or -1 with a
 * one-line message in err naming the bad token and the valid choices. */
int hp_config_parse(const char *s, hp_config *c, char *err, size_t errlen);
const char *hp_mode_name(hp_mode m);
/* The text printed for HEAPPROF=help. */
const char *hp_config_help(void);

#endif
