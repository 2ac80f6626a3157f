/* hp_trace: the heap traversal shared by the retainer profile and the
 * profile by user-named roots.
 *
 * A conservative walk over the live heap, the way the collector marks it:
 * every aligned word of a pointer-containing object that points into a live
 * object is an edge (interior pointers count when the collector counts
 * them), pointer-free objects have no out-edges. Each object carries one
 * 32-bit label (a retainer set, a root bin): tracked objects in their
 * shadow record's mode word, with a validity bit flipped per traversal so
 * that records are never cleared; objects the profiler does not track
 * (the collector's own, free slots reached conservatively) in the
 * traversal's own index. The walk is iterative, on an explicit stack in
 * profiler memory: no recursion, no depth limit, no allocation.
 *
 * A client (hp_retainer, hp_roots) says what reaching an object with a
 * payload does to its label and what to pass on to its children.
 *
 * Runs at MARK_END of a collection, with the allocation lock held and the
 * world stopped (threads' stacks hold still, marks are final for what is
 * reachable from the roots): nothing here takes a lock or allocates. */
#ifndef HP_TRACE_H
#define HP_TRACE_H
#include <stddef.h>
#include <stdint.h>

#include "core/hp_shadow.h"

struct hp_tentry;   /* hp_trace_index.h */

/* The mode word of a record (Note [The mode word], core/hp_shadow.h): validity (this traversal's parity), a flag
 * saying a label is set, and the label. */
#define HP_TRACE_PARITY_BIT 0x80000000u
#define HP_TRACE_SET_BIT 0x40000000u
#define HP_TRACE_LABEL_MASK 0x3fffffffu

/* Reaching an object with payload `in`: `*label` is its label (valid says
 * whether it has one yet this traversal); `rec` its record, or NULL for an
 * object heapprof does not track. Update *label; return 1 to scan the
 * object's contents with payload *out. */
typedef int (*hp_trace_visit_fn)(uint32_t *label, int valid, const hp_rec *rec,
                                 uint64_t in, uint64_t *out);

typedef struct hp_trace_stats {
    uint64_t visits;          /* visit calls */
    uint64_t objects;         /* distinct objects reached */
    uint64_t words;           /* words scanned */
    uint64_t untracked;       /* objects reached that heapprof does not track */
    uint64_t rescans;         /* depth-first walk: objects scanned again (their
                                 set grew after their first scan) */
    uint64_t set_members;     /* component walk: the sum over objects of their
                                 set's size (what a walk per root would visit) */
    uint64_t heads;           /* component walk over heads only (Note [Tree
                                 nodes]): the heads; 0 over every node */
} hp_trace_stats;

int hp_trace_init(void);
/* Payloads are bit sets joined by OR (the profile by named roots): walk
 * breadth-first, merging bits that meet at an object (set before begin). */
void hp_trace_set_merge(int on);
/* Start a traversal: index every record of the shadow table (drained by
 * the caller) and flip the parity. Returns 0, or -1 when out of memory.
 * `visit` is NULL for the component walk below. */
int hp_trace_begin(hp_trace_visit_fn visit);
/* The records allocated uncollectable (GC_malloc_uncollectable and its
 * atomic kin), not freed, that the last hp_trace_begin indexed: their
 * indexes, *n of them (found in its pass over the records, so that a
 * client need not make another). */
const uint32_t *hp_trace_uncollectables(size_t *n);
/* Room for a number for each of them (their retainer sets, for
 * hp_trace_scc_objects), or NULL when out of memory. */
uint32_t *hp_trace_uncollectable_sets(void);
/* Traversals begun so far, and how many of them found pages by page
 * number (hp_trace_index.h, Note [The page map]) rather than hashed. */
uint64_t hp_trace_begun(void);
uint64_t hp_trace_begun_mapped(void);
/* ... and how many of those were built by two threads (Note [Two
 * builders], hp_trace_sigsafe.c). */
uint64_t hp_trace_begun_two(void);
/* A second walk in the same collection, after hp_trace_end: the same
 * index and parity, so the first walk's labels stay valid and `visit`
 * sees them (the named-roots profile labels what no named root reaches
 * with retainer sets so). Depth-first only (merge off). */
int hp_trace_again(hp_trace_visit_fn visit);
/* Reach whatever the words of [lo, hi) point to, with `payload`.
 * `interior`: interior pointers count (stacks: always, as the collector's
 * eager push). `copy`: read the words from here instead of lo. */
void hp_trace_range(uintptr_t lo, uintptr_t hi, const void *copy, int interior,
                    uint64_t payload);
/* The label of the live object at `base` (a named root): reach it. */
int hp_trace_object(uintptr_t base, uint64_t payload);
/* Follow the edges until no work is left (hp_trace_range and
 * hp_trace_object may leave edges waiting: call this after them). */
void hp_trace_run(void);
/* Finish; records [0, *indexed) were in the index. */
hp_trace_stats hp_trace_end(size_t *indexed);
/* The depth-first walk begun next (until its hp_trace_end, which sets
 * the cap back to 0) gives up once it has scanned objects again more
 * than `cap` times (0: never): it stops, as out of memory would stop it,
 * and hp_trace_gave_up says so until the next begin. Its labels are then
 * incomplete: the caller walks again. */
void hp_trace_set_rescan_cap(uint64_t cap);
int hp_trace_gave_up(void);

/* Retainer sets by components (hp_trace_scc_sigsafe.c): after
 * hp_trace_begin, give every root's words (or object) with the set of its
 * one identity, then end: each object reached gets the union of the sets
 * of the retainers that reach it through non-retainers, each object
 * scanned twice however many roots reach it. Sets are the client's
 * (interned ids): the client says which records are retainers and what
 * set a retainer passes on. */
/* The dominator tree of the components (when hp_trace_scc_ops.dominators
 * is set): for component c (0 .. ncomp-1; ncomp is the one root above
 * every root and retainer), its immediate dominator idom[c], its objects'
 * bytes and count, what it retains (itself and every component it
 * dominates), a representative node's record (rep_rec[c], or UINT32_MAX
 * for an untracked object) and its retainer set (set[c]). */
typedef struct hp_scc_doms {
    uint32_t ncomp;
    const uint32_t *idom, *rep_rec, *set;
    const uint64_t *bytes, *objects, *retained, *retained_objects;
    uint64_t ns;        /* time this computation took */
    uint64_t memory;    /* bytes its arrays hold (committed) */
} hp_scc_doms;

typedef struct hp_trace_scc_ops {
    int (*is_retainer)(const hp_rec *r);        /* r is NULL for an untracked object */
    uint32_t (*retainer_set)(const hp_rec *r);  /* what a retainer passes on */
    /* A key for a retainer record: records with the same key pass on the
     * same set, for the whole run (the walk keeps key -> set in a cache of
     * its own, so that most retainers need not take the walk's lock). */
    uint64_t (*retainer_key)(const hp_rec *r);
    /* Whether a record that is not uncollectable may be a retainer (by
     * its stack: retainers=); when not, the walk reads only the records
     * of uncollectable objects (hp_trace_scc_sigsafe.c, Note [What a node
     * is]). NULL: always. */
    int (*retainers_by_record)(void);
    uint32_t (*empty_set)(void);
    uint32_t (*set_union)(uint32_t a, uint32_t b);
    uint32_t (*set_size)(uint32_t s);
    /* When set, the dominator tree is computed and given to it (world
     * stopped, lock held) before hp_trace_scc_end returns. */
    void (*dominators)(const hp_scc_doms *d);
} hp_trace_scc_ops;
int hp_trace_scc_begin(const hp_trace_scc_ops *ops);
void hp_trace_scc_range(uintptr_t lo, uintptr_t hi, int interior, uint32_t set);
void hp_trace_scc_object(uintptr_t base, uint32_t set);
/* Records rec[0..n) (indexes into the table), each an object root with
 * set[k] (hp_trace_scc_sigsafe.c, Note [Roots by two walkers]). */
void hp_trace_scc_objects(const uint32_t *rec, const uint32_t *set, size_t n);
/* Labels every object reached; *ok is 0 when out of memory (labels then
 * stay invalid: not reached). */
hp_trace_stats hp_trace_scc_end(int *ok);
/* A slot's word as a record index: the record of a node the component walk
 * has found (HP_SLOT_FOUND | its dense id: Note [One word a slot] of
 * hp_trace_scc_sigsafe.c), else the word itself. Before hp_trace_scc_end,
 * while the roots are given (one walker). */
uint32_t hp_trace_scc_record_of(uint32_t word);
/* Component walks whose first step a helper thread shared (Note [Two
 * walkers] of hp_trace_scc_sigsafe.c), over the run. */
uint64_t hp_trace_scc_helper_walks(void);

/* For the component walk (hp_trace_scc_sigsafe.c): the object `v` points
 * into -- a tracked one's slot word (its record index, or HP_SLOT_FOUND |
 * its dense id once found) with the slot in *slot (NULL: none), or an
 * untracked entry in *untracked, or neither. */
uint32_t hp_trace_target(uintptr_t v, int interior, struct hp_tentry **untracked,
                         uint32_t **slot);
#define HP_KIND_PTRFREE 0          /* bdwgc's PTRFREE */
#define HP_KIND_AUNCOLLECTABLE 3   /* bdwgc's AUNCOLLECTABLE */
/* Whether objects of the collector's kind `kind` hold pointers (are
 * scanned). */
static inline int hp_trace_kind_scanned(unsigned kind)
{
    return kind != HP_KIND_PTRFREE && kind != HP_KIND_AUNCOLLECTABLE;
}
static inline int hp_trace_rec_scanned(const hp_rec *r) { return hp_trace_kind_scanned(r->kind); }

/* The first word of [a, end) that could point into the heap (the
 * collector's plausible bounds, read at hp_trace_begin), or end: a root
 * range's scan, most of whose words are not pointers, goes through it at
 * the collector's own pace. */
const uintptr_t *hp_trace_next_plausible(const uintptr_t *a, const uintptr_t *end);

/* Is record r's label from the last traversal? (census side) */
uint32_t hp_trace_parity(void);
static inline int hp_trace_valid(uint32_t word, uint32_t parity)
{
    return (word & HP_TRACE_SET_BIT) && (word & HP_TRACE_PARITY_BIT) == parity;
}

#endif
