/* hp_retainer_internal: what the files of the retainer profile share (not
 * for use outside retainer/): identities, the state of the sets and the
 * census, and the interning functions (hp_retainer_sets_sigsafe.c). */
#ifndef HP_RETAINER_INTERNAL_H
#define HP_RETAINER_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#include "core/hp_buf.h"
#include "core/hp_hash.h"
#include "core/hp_mem.h"
#include "core/hp_rt.h"
#include "retainer/hp_trace.h"

/* Retainer identities. */
enum { HP_RET_STATIC, HP_RET_STATIC_OFF, HP_RET_STACK, HP_RET_OTHER, HP_RET_CCS,
       HP_RET_UNCOLL,   /* uncollectable objects allocated at stack `key` (roots) */
       HP_RET_MARKPROC, /* what a mark procedure (`key`: its address) pushed */
       HP_RET_PUSHED,   /* a range of a heap object allocated at stack `key`
                           that the program pushed as a root */
       HP_RET_ADDED,    /* a range registered with GC_add_roots by stack `key` */
       HP_RET_PUSHER,   /* a range pushed by the code at return address `key` */
       HP_RET_GCROLE    /* one of libgc's own roles, `key`: HP_GCROLE_* */ };
/* libgc's roles: what it pushes from GC_push_finalizer_structures and what
 * it marks after the mark phase for finalization (gc:finalization); the
 * words of its own frames on the collecting thread, below the program's
 * outermost GC_ call, as they were when it pushed them (gc:frames); and
 * the marker of objects the collector marked from a root heapprof did not
 * see (never a label: they count as not reached). */
enum { HP_GCROLE_FINALIZATION = 1, HP_GCROLE_UNSEEN = 2, HP_GCROLE_FRAMES = 3 };

typedef struct hp_ident {
    uint8_t kind;
    uint8_t is_main;        /* HP_RET_STACK: the main thread */
    int32_t module;         /* HP_RET_STATIC*: module index */
    uintptr_t key;          /* symbol start, offset, thread ordinal, range start, ccs */
    const char *sym;        /* HP_RET_STATIC: the symbol's name */
    const char *module_base;
    uint32_t label;         /* name id + 1 in names_buf offsets, 0 = not made */
    uint32_t pad;
} hp_ident;

#define HP_NEAR ((uintptr_t)1 << 20)
#define RET_MANY UINT32_MAX  /* payload: "more retainers than the bound" */
#define SET_MANY 0           /* set id of MANY */
/* A label bit: a retainer set in the named-roots profile's words, beside
 * its bins (noroot=retainers; hp_retainer_traverse_rest). */
#define RET_IN_ROOTS 0x20000000u

typedef struct { uint32_t set, ret, result, pad; } add_cache_entry;
typedef struct hp_retainer_state {
    hp_vec ident_vec;                   /* hp_ident[] */
    hp_idindex ident_index;
    uint32_t nidents;
    hp_vec set_words_vec;               /* per set: n, hash, members... */
    uint64_t set_words_used;
    hp_vec set_off_vec;                 /* uint64_t offset of set id */
    hp_idindex set_index;
    uint32_t nsets;                 /* set 0 = MANY */
    hp_vec set_label_vec;               /* uint32_t label id + 1 per set */
    hp_vec set_bytes_vec;               /* uint64_t per set: this census */
    hp_vec set_seen_vec;                /* uint8_t per set: appeared in a census */
    add_cache_entry add_cache[8192];
    add_cache_entry union_cache[8192];   /* set, ret: the two sets (a < b); pad: used */
    hp_vec ccs_class_vec;               /* uint8_t per ccs: 0 unknown, 1 retainer, 2 not */
    uint32_t ccs_classified;
    hp_vec unreached_vec;               /* uint64_t bytes per ccs, this census */
    hp_vec touched_vec;                 /* uint32_t ccs ids with unreached bytes */
    uint32_t ntouched;
    hp_buf prof_lines, text;
    int bound;
    int traversed;                      /* this census had a traversal */
    uint64_t mark_ns_last, trace_ns_last, mark_ns_total, trace_ns_total;
    hp_trace_stats tstats;
    int next_scc;                       /* walk=auto: the next census by components */
    uint64_t dfs_censuses, scc_censuses; /* traversals by each walk */
    uint64_t dfs_given_up;               /* depth-first walks given up for components */
    uint64_t scc_heads_censuses;         /* ... by components over heads only */
    size_t indexed;
    int ranges_overflowed;
    int pushes_overflowed;              /* mark procedures pushed more than recorded */
    uint32_t parity;
    uint64_t attributed_bytes, attributed_objects, unreached_bytes, unreached_objects,
    new_bytes, new_objects;
    uint32_t sets_this_census;
    hp_vec rset_match_vec;              /* uint8_t per set: 0 unknown, 1 in, 2 out */
    uint64_t censuses_traced;
    uint32_t sets_sized;                /* per-set arrays hold this many sets */
    /* Made at each traversal: {gc:finalization}, the set of what the
     * collector marked after the mark phase (live at the census, not
     * marked at MARK_END), and the marker set of what it marked from a
     * root heapprof did not see. */
    uint32_t final_set, unseen_set;
    hp_vec noroot_label_vec;            /* uint32_t label id + 1 per set: NOROOT:<set> */
    uint64_t final_bytes, final_objects;
} hp_retainer_state;
extern hp_retainer_state hp_ret_;

static inline int hp_ret_has_retainers(void) { return hp_rt.cfg.retainers[0] != 0; }

/* Interning (owner context; also at MARK_END: no lock, no malloc). */
hp_ident *hp_ret_idents(void);
uint32_t hp_ret_ident_intern(const hp_ident *want);
const uint32_t *hp_ret_set_members(uint32_t s, uint32_t *n);
int hp_ret_set_contains(uint32_t s, uint32_t r);
uint32_t hp_ret_set_add(uint32_t s, uint32_t r);
uint32_t hp_ret_set_single(uint32_t r);
uint32_t hp_ret_set_empty(void);
/* a | b; MANY when that would exceed the bound (or either is MANY). */
uint32_t hp_ret_set_union(uint32_t a, uint32_t b);

/* The short form of a retainer named by a stack (HP_RET_ADDED, PUSHED,
 * UNCOLL), `kind` its prefix ("roots:"): what tells it from the others of
 * its kind first, for .hp labels that would be cut
 * (hp_retainer_label_sigsafe.c). */
void hp_ret_short_ident(hp_buf *b, uint32_t id, const char *kind);

#endif
