/* hp_trace_scc_sigsafe: the retainer profile's walk, by strongly connected
 * components (see hp_trace.h, "Retainer sets by components").
 *
 * The retainer set of an object is the set of retainers (roots, and
 * retainer objects) that reach it through objects that are not retainers
 * themselves. Walking from each root in turn and walking an object again
 * whenever its set grows (GHC's rts/RetainerProfile.c, and this file's
 * predecessor) scans a structure once per root that reaches it: 8 times
 * on a Guile hash table reachable from 8 roots. Here every object's words
 * are read once and its edges passed twice, however many roots reach it:
 *
 *  0. The edges, found in no particular order: from every root target,
 *     each object reached has its words read once and what they point to
 *     kept as its edges (contiguous, edges[eoff .. eoff + ecnt)), its
 *     targets reached in turn. This is the part that waits on memory (an
 *     object's words, the index entries of what they point to), so it is
 *     pipelined as the depth-first walk is (hp_trace_sigsafe.c): a target
 *     found waits in a ring of HP_SCC_RING while its record and words are
 *     fetched, and (on a big heap) a word waits in another (HP_SCC_WRING)
 *     while the index slot of what it points at is fetched, its edge's
 *     place taken meanwhile (HP_SCC_NONE if it points at nothing). The
 *     roots' targets all enter the pipeline before any is scanned (at
 *     hp_trace_scc_end). Tarjan's order, where each edge is followed the
 *     moment it is found, leaves no room for that.
 *  1. Tarjan's algorithm, iteratively, from every injection, over those
 *     edges: the graph whose edges are the words of objects that are not
 *     retainers (a retainer passes on its own identity, not what reaches
 *     it, so its out-edges are not edges of this graph: each target of a
 *     retainer's words is a new start, with that retainer's identity
 *     injected there).
 *     Every object of a component has the same set (each reaches each
 *     other through non-retainers). Components are numbered as Tarjan
 *     completes them: a component's successors are completed, so
 *     numbered, before it.
 *     As Tarjan passes an edge it rewrites it to its target's component
 *     (known then, or when the target's own walk returns), or to
 *     HP_SCC_INSIDE when the target is still on the stack (then it is in
 *     the edge's own component).
 *  2. The injections (root -> target, retainer -> target) seed their
 *     targets' components; then components in decreasing number (every
 *     predecessor before its successors) pass their set along each edge
 *     leaving them, sets joined by union (interned, MANY past the bound:
 *     hp_retainer_sets_sigsafe.c). This pass reads the completion order
 *     and the edges in order: not the objects, not the nodes' states.
 *  3. Each object's label is its component's set.
 * Steps 1-3 run over the heads only when most nodes are tree nodes (Note
 * [Tree nodes]). Tarjan never walks a node without edges (Note
 * [Leaves]).
 *
 * Tarjan's state is one 32-bit word per node (Pearce's variant, "A
 * space-efficient algorithm for finding strongly connected components",
 * 2016), by dense id: rix[d] is 0 until d is reached; then its index, lowered to its
 * low link as the walk finds lower ones; once its component is complete,
 * HP_SCC_CTOP - the component's number, above every index. Whether a frame
 * roots a component is a flag of the frame; the stack holds only nodes
 * whose frame is done but whose component is not. Every edge followed
 * reads its target's word: 4 bytes a node keep those reads within a few
 * megabytes even on a heap of a million objects.
 *
 * Note [Dense ids]
 * ~~~~~~~~~~~~~~~~~
 * Steps 1-3 work on dense ids, given in the order step 0 finds the nodes
 * (discover), not on node ids: a node's state (rix), its edges' place
 * (nd) and its edges are then near those of the nodes found with it, and
 * Tarjan, which follows the same edges in much the same order, reads them
 * mostly in sequence. By node id (a record's index: its allocation order)
 * each step of the walk was three cache misses, one after another (the
 * target's state, its edge place, its edges): Guile's 150,000-entry hash
 * table, 1.1 million nodes, Tarjan 41 -> 24 ms a census. A tracked
 * node's dense id is kept in its index slot, which step 0 has just read
 * to find the record (Note [One word a slot]); an untracked node's (or a
 * record's without a slot) in dmap, by node id, once seen[] says it has
 * one; dnode maps back. The ring and the scan stack hold dense ids, edges
 * and injections name dense ids; arrays by dense id grow with what is
 * reached, not with the table.
 *
 * Note [One word a slot]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * A slot holds its object's record index until the walk finds the object,
 * then HP_SLOT_FOUND | its dense id (record indexes and dense ids are
 * below 2^30): the word that told the walk which record it reached now
 * tells the next word to reach it that it was found, and as what. The
 * record index is then dnode[]'s (hp_trace_scc_record_of). The claim is
 * the word's change, by compare-and-swap when two walkers run. With two
 * words a slot (the record, then the dense id) the slots of a heap of
 * small objects took half as many bytes as the heap: Guile's hash table,
 * 16 MB of slots, read at random by the walk and written by the index
 * build, which now move half as many lines: traversal 34.6 -> 33.5 ns a
 * node (medians of interleaved runs; 16-byte slots measured 10% slower
 * in the scan and a third in the build). The node a word resolved to is
 * known by its slot, not its word (node_key), for Note [Words that
 * repeat].
 *
 * Note [Tree nodes]
 * ~~~~~~~~~~~~~~~~~~
 * Most objects of most heaps are referenced once (a list's cells, a
 * tree's nodes, an object's private buffers). Such a node, found once by
 * step 0 through a word of p and never injected, has exactly one
 * predecessor, so its set is p's: it is a tree node, and its head is the
 * first node up the chain of first finders that is found twice or
 * injected (a head). No cycle runs through tree nodes alone (its entry
 * would be found twice), so every tree node has a head, and its set is
 * the head's. Heads then need only the reduced graph: an edge u -> t, t a
 * head, is the edge head(u) -> t. When at most half the nodes are heads,
 * steps 1-2 run over that graph, and step 3 gives each node its head's
 * set: on Guile's hash table, whose 1.1 million nodes are nearly all
 * referenced once, Tarjan and the sets' pass walk a few thousand heads;
 * a traversal's ns a visit 116-121 -> 85-86. Heads are found in one pass
 * in dense order (a first finder has the lower dense id: it had its id
 * before it was scanned). A retainer's words are injections, so what it
 * points to is a head. With dominators=yes (which needs every node's
 * component) the walk stays over every node.
 *
 * Invariants: a node has a dense id once its slot's word (or, without a
 * slot, seen[n] and dmap[n]) says so, and is then in the ring, the scan
 * stack or scanned (step 0 scans each node once); an open node's rix is at most `counter`, below cnext, and a
 * completed one's above cnext; the sets are only read after every
 * component is numbered. Node ids: tracked records are their index,
 * untracked objects nrecs + k, k in order of discovery (the id + 1 is kept
 * in the index entry's `pending`, which the index copies when it grows).
 *
 * World stopped, lock held: no lock, no malloc; memory is the profiler's
 * own (hp_vec), reserved at start-up. */
#include "retainer/hp_trace.h"
#include "retainer/hp_trace_index.h"
#include "retainer/hp_rootrec.h"
#include "core/hp_helper.h"
#include "core/hp_real.h"
#include "core/hp_rt.h"
#include "core/hp_sys.h"

#include <linux/futex.h>
#include <stddef.h>
#include <string.h>

/* An edge, once Tarjan has passed it, holds its target's component, or
 * this when the target is in the edge's own component. */
#define HP_SCC_INSIDE UINT32_MAX
/* An edge whose word turned out to point at no object (found so only
 * after its place was taken: see the word ring). */
#define HP_SCC_NONE (UINT32_MAX - 1)
/* Step 0's pipeline: targets waiting for their record and words. */
#define HP_SCC_RING 16
/* Step 0's words waiting for their index slot. */
#define HP_SCC_WRING 16
/* ... on a heap of at least this many records: on a smaller one the index
 * is mostly in the caches, and the ring only adds work (Inkscape, 180,000
 * records: 113 ns an object with it, 88 without; a million: 87 ms a census
 * with it, 102 without). */
#define HP_SCC_WRING_MIN ((size_t)1 << 18)
/* How many entries ahead the scan stack asks for the words (and twice
 * that, the records) of what it will scan. */
#define HP_SCC_STACK_AHEAD 8
/* The fewest nodes the walk reduces to heads (Note [Tree nodes]): 2^18
 * until the walk's first step shared its work; measured again then
 * (interleaved runs, ns a visit over every node / over heads): GNU poke's
 * 50,000-node censuses 67-75 / 60-61, ECL's lists 62-66 / 60, Guile's
 * sort 50-55 / 47-52, Inkscape (more than half of it heads, so over every
 * node either way) 42-46 / 43-45. */
#define HP_SCC_HEADS_MIN ((uint32_t)1 << 10)

typedef struct frame { uint32_t node, root; uint64_t pos, end; } frame;   /* edges [pos, end) */
typedef struct inject { uint32_t node, set; } inject;
/* A node in completion order, with its edges, so that passing sets on
 * reads this array and the edges in order, not the nodes' states. */
typedef struct ordered { uint32_t node, ecnt; uint64_t eoff; } ordered;

static hp_trace_scc_ops ops;
static size_t nrecs;
static hp_rec *recs;
static uint32_t ndense, counter, ncomp;
/* A node's edges: edges[eoff .. eoff + ecnt). */
typedef struct snode { uint64_t eoff; uint32_t ecnt, pad; } snode;
static snode *nd;       /* by dense id */
static uint32_t *rix;   /* Tarjan's word per dense id (see the top) */
static uint32_t *dmap;  /* node -> its dense id (valid once seen) */
static uint32_t *dnode; /* dense id -> its node */
/* Note [Tree nodes]: by dense id, in step 0 the dense id of the node whose
 * word found it first (HP_SCC_NOPRED: an injection did), then its head;
 * a bit set when it is found a second time (a second in-edge, or an
 * injection). */
static uint32_t *hd;
/* Step 0 sets a node's bit in its walker's own array (Note [Two walkers]);
 * the helper's is or-ed into `shared` once it is done. */
static uint64_t *shared, *shared2;
/* Note [What a node is]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * To scan a node the walk needs its start, its size, whether its kind
 * holds pointers and whether it is a retainer. A tracked node found on
 * its page entry (the common case: node_on, inline) has them there and in
 * the word that found it: its start (the slot's position), the page's
 * size and kind (a block holds objects of one size and kind), and whether
 * an uncollectable record was indexed on the page. Until the node is
 * scanned they wait in its nd[] entry (whose edges are known only once it
 * is scanned): the start, 16-byte aligned, with the flags below in its low
 * bits, as eoff, the size as ecnt; in the order nodes are found, which is
 * about the order they are scanned. The scan then reads the node's record
 * only where that cannot tell: an uncollectable on the page (whose
 * identity is its record's stack), retainers named by stack (retainers=),
 * a node found by node_of_slow or untracked. (Each node's record is 32
 * bytes at random, a cache line of its own, while the walk is bound by
 * misses: bench_census's million objects, 35.7 -> 33.6 ms a traversal,
 * medians of six interleaved runs.) */
#define HP_DI_KNOWN 1     /* start, size and the flags below are the node's */
#define HP_DI_SCANNED 2   /* its kind holds pointers */
#define HP_DI_RECORD 4    /* ask its record whether it is a retainer */
#define HP_DI_FLAGS 15
static int by_record;     /* retainers named by stack (ops.retainers_by_record) */
static uint64_t refinds;   /* edges to a node found before */
static uint64_t nnone;     /* edges that point at nothing (HP_SCC_NONE) */
#define HP_SCC_NOPRED UINT32_MAX
#define HP_SCC_CTOP 0xfffffff0u
static uint32_t cnext;  /* the next component's word; completed ones are above */
/* Note [Leaves]: a leaf's Tarjan word (above every component's), and an
 * edge to leaf d once Tarjan has passed it (HP_SCC_LEAF | d: below
 * HP_SCC_NONE, above every component number, as dense ids are below
 * 2^30). */
#define HP_SCC_LEAF_WORD 0xfffffff8u
#define HP_SCC_LEAF 0x80000000u
static uint32_t *lset;  /* a leaf's set, by dense id */
static uint32_t lset_empty;
static int use_leaves;
static uint32_t *tstack, *comp_start, *comp_set;
static ordered *order;
static uint32_t *edges;   /* each node's targets, found once (after step 0) */
static uint64_t tdepth, nframes, ninject, norder, nedges;
static frame *frames;
static inject *injects;
static uintptr_t *ubase;   /* base of untracked node nrecs + k */
static uint64_t *seen;     /* step 0: a bit per node */
/* A word read, waiting while its index slot is fetched: the edge it
 * fills (edges[pos]), or, for a retainer's word, the set to inject. */
typedef struct pword {   /* (32 bytes) */
    uint64_t pos;           /* its edge's place; a retainer's word (inject): its set */
    uintptr_t v;
    const hp_page *page;
    uint32_t inject, src;   /* src: the dense id of the object read */
} pword;
static int use_wring;      /* the heap is big enough for the word ring */
static int failed, all_interior;
static int nwalkers;            /* 2 while the helper walks, else 1 */
static hp_trace_stats st;
/* The roots' words waiting for their index slot (hp_trace_scc_range). */
#define HP_SCC_RRING 16
typedef struct rword {
    uintptr_t v;
    const hp_page *page;   /* v's page entry, or NULL */
    uint32_t set;
    int interior;
} rword;

/* Room for `count` of `type` in `vec`, `ptr` its base: 0, or -1 (and the
 * walk failed) when out of memory. Asked at every push and edge: what is
 * committed already is looked at inline (the pointer is then set already:
 * a vec never moves). */
#define ENSURE(vec, ptr, count, type)                                              \
    ((size_t)(count) * sizeof(type) <= hp_trace_ix_.vec.committed && (ptr)       \
         ? 0                                                                      \
         : hp_vec_ensure(&hp_trace_ix_.vec, (size_t)(count) * sizeof(type)) == 0 \
               ? ((ptr) = (type *)hp_trace_ix_.vec.base, 0)                       \
               : (failed = 1, -1))

/* Room for nodes [0, n) (their dense ids), and for dense ids [0, n). */
static int node_room(uint32_t n)
{
    if (n >= (uint32_t)1 << 30) return failed = 1, -1;   /* (indexes stay below cnext) */
    return ENSURE(scc_dmap_vec, dmap, n, uint32_t);
}

static uint32_t dense_cap;   /* dense ids with room */
static int dense_room(uint32_t n)
{
    if (ENSURE(scc_node_vec, nd, n, snode) != 0 || ENSURE(scc_rix_vec, rix, n, uint32_t) != 0 ||
        ENSURE(scc_dnode_vec, dnode, n, uint32_t) != 0 ||
        ENSURE(scc_head_vec, hd, n, uint32_t) != 0 ||
        ENSURE(scc_shared_vec, shared, (n + 63) / 64 + 1, uint64_t) != 0 ||
        ENSURE(scc_shared2_vec, shared2, (n + 63) / 64 + 1, uint64_t) != 0)
        return -1;
    dense_cap = n;
    return 0;
}

/* Room in `seen` for nodes [0, n), clear (words [0, seen_words) are
 * cleared this traversal). */
static size_t seen_words;
static int seen_room(uint32_t n)
{
    size_t need = ((size_t)n + 63) / 64 + 1;
    if (need <= seen_words) return 0;
    if (ENSURE(scc_seen_vec, seen, need, uint64_t) != 0) return -1;
    memset(seen + seen_words, 0, (need - seen_words) * sizeof(uint64_t));
    seen_words = need;
    return 0;
}

/* Step 0's walkers (Note [Two walkers], below). */
#define HP_SCC_BLOCK 256        /* dense ids a walker takes at a time */
#define HP_SCC_SHARE_MIN 64     /* a scan stack worth sharing */
/* helper=auto: the main walker starts alone, and takes a helper once it
 * has read this many words (with less work, making the thread and
 * sharing cost more than they save) while taking the lock (Note [Two
 * walkers]) for fewer than one node in HP_SCC_HELPER_LOCKS: the walkers
 * then seldom wait for each other. (Inkscape's heap, full of C++ objects
 * reached through interior pointers and of uncollectable retainers, took
 * 2.3 locks a node before interior pointers were resolved inline, and its
 * walk was 4 times slower with a helper than without; Guile's hash table:
 * one lock in 76 nodes, step 0 a quarter to a third faster.) 65,536
 * words, not 262,144 as first: ECL's censuses of 70,000-100,000 conses
 * (200,000 words) then take the helper, ns a visit 54 -> 48-51 in
 * interleaved runs, Inkscape's 46-48 -> 44-47; 16,384 measured no
 * better. */
#define HP_SCC_HELPER_WORDS ((uint64_t)1 << 16)
#define HP_SCC_RCACHE 512
/* The fewest nodes whose labels the helper shares (step 3; the threshold:
 * hp_trace_sigsafe.c, Note [Two builders]). */
#define HP_SCC_HELPER_LABELS ((uint32_t)1 << 15)
#define HP_SCC_HELPER_LOCKS 8

typedef struct __attribute__((aligned(64))) walker {
    uint32_t ring[HP_SCC_RING];
    unsigned ring_head, ring_n;
    pword wring[HP_SCC_WRING];
    unsigned wring_head, wring_n;
    uint32_t *scanq;            /* nodes to scan (a stack) */
    uint64_t nscanq;
    uint32_t *edges;            /* the edges of the nodes it scanned */
    uint64_t nedges;
    inject *injects;
    uint64_t ninject;
    uint32_t *scanned;          /* the helper's: the nodes it gave edges */
    uint64_t nscanned;
    /* Its edges to a node found before, as (source, target) pairs of dense
     * ids (Note [Tree nodes]), until they are too many to be worth it
     * (refl_over). */
    uint32_t *refl;
    uint64_t nrefl;
    int refl_over;
    uint32_t next, block_end;   /* its dense ids [next, block_end) unused */
    hp_vec *scanq_vec, *edge_vec, *inject_vec, *scanned_vec, *refl_vec;
    hp_page *last_page;         /* its page cache (node_of, hp_trace_prefetch_slot_c) */
    /* The node node_on found last: its start and page entry (NULL: found
     * otherwise), for first_find (Note [What a node is]). */
    uintptr_t found_base;
    const hp_page *found_page;
    /* The source and node of the last word resolved from the word ring
     * (Note [Words that repeat]). */
    uint32_t last_src;
    uintptr_t last_key;
    uint64_t refinds;           /* edges to a node found before */
    uint64_t nnone;             /* edges that point at nothing after all */
    uint64_t locked;            /* times it took wlock (or would have, alone) */
    /* Root words waiting for their index slot (resolve_root). */
    rword rring[HP_SCC_RRING];
    unsigned rring_head, rring_n;
    hp_trace_stats st;
    /* (last: kept from walk to walk, what it holds never changing)
     * ops.retainer_key -> ops.retainer_set, direct-mapped (key + 1; 0:
     * empty). */
    struct { uint64_t key1; uint32_t set; } rcache[HP_SCC_RCACHE];
} walker;
/* Each on cache lines of its own: a walker's state, the lock and what
 * it guards, the sharing counts every scan step reads. */
static walker walkers[2] __attribute__((aligned(64)));
static uint64_t helper_walks;   /* traversals whose step 0 had a helper */
static int may_start;           /* helper=auto: the main walker may start one */
static struct {
    int lock;
    uint32_t nnodes;            /* nodes so far: records, then untracked ones */
    uint32_t next_block;        /* the next block's first id */
    uint32_t *pool;             /* shared scan stack entries */
} wl __attribute__((aligned(64)));
static struct {
    uint64_t npool;             /* written under wl.lock */
    int hungry, gone;           /* walkers hungry; walkers done */
} ws __attribute__((aligned(64)));


static inline void lock_walkers(void)
{
    if (nwalkers < 2) return;
    while (__atomic_exchange_n(&wl.lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&wl.lock, __ATOMIC_RELAXED)) __builtin_ia32_pause();
}

static inline void unlock_walkers(void)
{
    if (nwalkers < 2) return;
    __atomic_store_n(&wl.lock, 0, __ATOMIC_RELEASE);
}

static inline int is_failed(void) { return __atomic_load_n(&failed, __ATOMIC_RELAXED); }

/* Room for `count` of `type` in walker-owned `vec` (a walker's alone: no
 * lock), `ptr` its base. */
#define WENSURE(vec, ptr, count, type)                                              \
    ((size_t)(count) * sizeof(type) <= (vec)->committed && (ptr)                    \
         ? 0                                                                        \
         : hp_vec_ensure((vec), (size_t)(count) * sizeof(type)) == 0                \
               ? ((ptr) = (type *)(vec)->base, 0)                                   \
               : (__atomic_store_n(&failed, 1, __ATOMIC_RELAXED), -1))

int hp_trace_scc_begin(const hp_trace_scc_ops *o)
{
    ops = *o;
    by_record = !ops.retainers_by_record || ops.retainers_by_record();
    failed = 0;
    memset(&st, 0, sizeof st);
    recs = hp_shadow_table(&nrecs);
    wl.nnodes = (uint32_t)nrecs;
    ndense = counter = ncomp = dense_cap = 0;
    refinds = 0;
    edges = NULL;   /* (the last walk may have left it at the reduced graph's) */
    tdepth = nframes = ninject = norder = nedges = 0;
    all_interior = hp_real.GC_get_all_interior_pointers ? hp_real.GC_get_all_interior_pointers() : 1;
    use_wring = nrecs >= HP_SCC_WRING_MIN;
    hp_vec *vecs[2][5] = {
        {&hp_trace_ix_.scc_scanq_vec, &hp_trace_ix_.scc_edge_vec, &hp_trace_ix_.scc_inject_vec,
         NULL, &hp_trace_ix_.scc_pair_vec},
        {&hp_trace_ix_.scc_scanq2_vec, &hp_trace_ix_.scc_edge2_vec, &hp_trace_ix_.scc_inject2_vec,
         &hp_trace_ix_.scc_scanned_vec, &hp_trace_ix_.scc_pair2_vec}};
    for (int i = 0; i < 2; i++) {
        walker *w = &walkers[i];
        memset(w, 0, offsetof(walker, rcache));
        w->scanq_vec = vecs[i][0];
        w->edge_vec = vecs[i][1];
        w->inject_vec = vecs[i][2];
        w->scanned_vec = vecs[i][3];
        w->refl_vec = vecs[i][4];
        w->refl_over = ops.dominators != NULL;   /* (the walk stays over every node) */
        w->last_key = 0;
    }
    nwalkers = 1;
    wl.next_block = 0;
    seen_words = 0;
    if (node_room(wl.nnodes + 1) != 0 || seen_room(wl.nnodes + 1) != 0 || dense_room(1024) != 0)
        return -1;
    cnext = HP_SCC_CTOP;
    return 0;
}

/* The node of what word v points to, or HP_NO_RECORD; a tracked one's
 * slot in *slot (NULL for an untracked one). */
static uint32_t node_of_slow(uintptr_t v, int interior, hp_slot **slot);

/* node_on() past its page entry: under the lock, out of line (the fast
 * path, inline in every caller, then saves no registers). */
static __attribute__((noinline)) uint32_t node_on_locked(walker *w, uintptr_t v, int interior,
                                                         hp_slot **slot)
{
    w->found_page = NULL;
    lock_walkers();
    w->locked++;
    uint32_t t = node_of_slow(v, interior, slot);
    unlock_walkers();
    return t;
}

/* node_of() of a word on the page of index entry p (NULL: none). */
static inline __attribute__((always_inline)) uint32_t
node_on(walker *w, const hp_page *p, uintptr_t v, int interior, hp_slot **slot)
{
    *slot = NULL;
    /* Most words point at a tracked object, at its start or (a tagged or
     * interior pointer: ECL's conses are object + 1, C++ points at a
     * base class's part) inside it on the page it starts on: the index,
     * inline, without the lock (Inkscape: 2.3 interior pointers a node). */
    if (p && (p->inv || p->size >= 4096)) {
        uint32_t off = (uint32_t)(v & 4095);
        uint32_t k = p->inv ? (uint32_t)(((uint64_t)off * p->inv) >> 32) : 0;
        if (k < p->nslots) {
            hp_slot *s = &hp_trace_ix_.slots[p->slot_off + k];
            uint32_t t = s[0];
            if (t != HP_NO_RECORD) {
                uintptr_t base = (v & ~(uintptr_t)4095) + (uintptr_t)k * p->size;
                if ((t < HP_SLOT_FOUND && t >= nrecs) ||
                    (base != v && !interior && !hp_rootrec_displaced(v - base)))
                    return HP_NO_RECORD;
                *slot = s;
                w->found_base = base;
                w->found_page = p;
                return t;
            }
        }
    }
    return node_on_locked(w, v, interior, slot);
}

static inline uint32_t node_of(walker *w, uintptr_t v, int interior, hp_slot **slot)
{
    *slot = NULL;
    if (!hp_trace_in_heap(v)) return HP_NO_RECORD;
    hp_page *p = w->last_page;
    if (!p || p->page != v >> 12) {
        if (hp_trace_known_outside(v)) return HP_NO_RECORD;
        p = hp_trace_page_find(v >> 12);
        if (p) w->last_page = p;
    }
    return node_on(w, p, v, interior, slot);
}

/* node_of() of a word that is not a tracked object's start (wlock held:
 * the untracked index, its node ids and the index's page cache are
 * shared). */
static uint32_t node_of_slow(uintptr_t v, int interior, hp_slot **slot)
{
    hp_tentry *e;
    hp_slot *ts;
    uint32_t idx = hp_trace_target(v, interior, &e, &ts);
    if (idx != HP_NO_RECORD) {
        /* (its slot's word: the record, or found before -- Note [One word
         * a slot]) */
        if (idx < HP_SLOT_FOUND && idx >= nrecs) return HP_NO_RECORD;
        *slot = ts;
        return idx;
    }
    if (!e) return HP_NO_RECORD;
    if (e->pending) return (uint32_t)(e->pending - 1);
    uint32_t k = wl.nnodes;
    if (node_room(k + 1) != 0 || seen_room(k + 1) != 0 ||
        ENSURE(scc_ubase_vec, ubase, k - nrecs + 1, uintptr_t) != 0)
        return HP_NO_RECORD;
    wl.nnodes++;
    ubase[k - nrecs] = e->base;
    e->pending = (uint64_t)k + 1;
    return k;
}

/* [lo, hi) of node n's words, or 0 when it has none to scan. */
static int words_of(uint32_t n, uintptr_t *lo, uintptr_t *hi)
{
    if (n < nrecs) {
        const hp_rec *r = &recs[n];
        if (!hp_trace_rec_scanned(r)) return 0;
        *lo = r->base;
        *hi = r->base + r->granted;
        return 1;
    }
    lock_walkers();   /* (the untracked index may be growing) */
    const hp_tentry *e = hp_trace_lookup(ubase[n - nrecs]);
    int scanned = e && !(e->size & 1);
    if (scanned) {
        *lo = e->base;
        *hi = e->base + (e->size & ~(uintptr_t)1);
    }
    unlock_walkers();
    return scanned;
}

static const hp_rec *rec_of(uint32_t n) { return n < nrecs ? &recs[n] : NULL; }

/* ---- Step 0: the edges. ----
 *
 * Note [Two walkers]
 * ~~~~~~~~~~~~~~~~~~~
 * Step 0 is most of a traversal's time on a big heap (Guile's hash table
 * at a million objects: 42 of 68 ms a census) and, like the collector's
 * mark, it waits on memory; the collector marks with a thread per CPU.
 * With a helper thread (core/hp_helper.h: heapprof's own, made for the
 * step while the world is stopped) two walkers share it, each with its
 * own rings, scan stack, edges, injections and counts:
 *  - A tracked node is claimed by a compare-and-swap of its slot's
 *    word, from its record index to HP_SLOT_FOUND | the claimer's next
 *    dense id (Note [One word a slot]); a
 *    walker that loses takes the winner's id, as a node found before.
 *    What else changes shared tables -- an untracked node (seen, dmap,
 *    the untracked index), a retainer's identity, the arrays by dense id
 *    growing -- is done under `wlock`, a spin lock only the walkers take
 *    (no thread of the program can hold it).
 *  - Dense ids are taken HP_SCC_BLOCK at a time, so claims share no
 *    counter. The first finder must still have the lower id (Note [Tree
 *    nodes]): a walker about to give an id not above its source's takes a
 *    new block, above every id given. The ids a block leaves unused are
 *    holes: no node (dnode HP_NO_RECORD), never reached (rix 0), no edges.
 *  - A walker with nothing left to scan is hungry; a busy walker that sees
 *    a hungry one and an empty pool moves the older half of its scan stack
 *    to the pool, where the hungry one takes it. The step ends for a
 *    walker when every walker is hungry and the pool is empty (a walker
 *    gives to the pool only while it is not hungry, so then none will).
 *  - A node found again sets its bit in the finder's own array of
 *    `shared` bits (Note [Tree nodes]), written by no other walker: one
 *    array written by both, with an atomic or, was a fifth of step 0's
 *    time on Inkscape's heap, where 95% of the edges find a node found
 *    before (the line moving between the CPUs at each).
 *  - At the end the helper's edges are appended to the main walker's, the
 *    nodes it scanned moved to them, its injections and counts added, and
 *    its shared bits or-ed into the main walker's.
 *  - When the traversal made the helper at its start (a table of 65,536
 *    records or more: core/hp_helper_sigsafe.c, Note [A warm helper]),
 *    it walks from the step's start; otherwise it joins once the main
 *    walker has read HP_SCC_HELPER_WORDS words. Inkscape's export
 *    (interleaved runs): 89.0 -> 86.5 ns a node over the traversal; ECL's
 *    lists 73 -> 60; Guile's sort 44.6 -> 44.9 (noise).
 * A single walker (one CPU, a small heap, helper=no, or no helper to
 * be had) runs the same code, with no one to share with and no atomics. */

/* Note [Inline steps]
 * ~~~~~~~~~~~~~~~~~~~~~
 * A word's way through step 0 (resolve_word, node_on, discover,
 * first_find, edge_place) is inline in scan and scan_all; only what is
 * rare is a call: node_on_locked (a word off its page entry), new_block,
 * a vector's growth. As calls, each saved and restored the registers it
 * used. Guile's hash table (150,000 entries, helper=no, under callgrind):
 * the walk ran 8.8 instructions for each of label_range's, inline 6.6.
 * With two walkers (interleaved runs, six each, debug timing build): step
 * 0 50-65 ns a node against 54-74, the traversal 2.36-2.74x the
 * collector's mark against 2.63-2.99x. The word ring's entries went from
 * 40 to 32 bytes at the same time (a retainer's set kept in the edge's
 * place, which its word does not have). */

static void add_inject(walker *w, uint32_t node, uint32_t set)
{
    /* (The same as the last: a set is a union, so once is enough. A C++
     * container's words often point into one buffer -- a vector's begin,
     * end and capacity: 29% of Inkscape's injections at its largest
     * census.) */
    if (w->ninject && w->injects[w->ninject - 1].node == node &&
        w->injects[w->ninject - 1].set == set)
        return;
    if (WENSURE(w->inject_vec, w->injects, w->ninject + 1, inject) != 0) return;
    w->injects[w->ninject++] = (inject){node, set};
}

/* The dense ids [from, to) given no node. */
static void holes(uint32_t from, uint32_t to)
{
    for (uint32_t d = from; d < to; d++) {
        dnode[d] = HP_NO_RECORD;
        nd[d] = (snode){0};
        rix[d] = 0;
        hd[d] = HP_SCC_NOPRED;
    }
}

/* A new block of dense ids for w (wlock held when `locked`): 0, or -1. */
static int new_block(walker *w, int locked)
{
    if (!locked) lock_walkers();
    uint32_t b = wl.next_block;
    int ok = b <= ((uint32_t)1 << 30) - HP_SCC_BLOCK &&
             (b + HP_SCC_BLOCK <= dense_cap ||
              dense_room(b + HP_SCC_BLOCK + dense_cap / 4 + 4096) == 0);
    if (ok) {
        wl.next_block = b + HP_SCC_BLOCK;
        /* Its shared bits are its own words (a block is 64-aligned), in
         * both walkers' arrays. */
        memset(&shared[b >> 6], 0, HP_SCC_BLOCK / 8);
        memset(&shared2[b >> 6], 0, HP_SCC_BLOCK / 8);
    } else {
        __atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
    }
    if (!locked) unlock_walkers();
    if (!ok) return -1;
    holes(w->next, w->block_end);
    w->next = b;
    w->block_end = b + HP_SCC_BLOCK;
    return 0;
}

/* Node t, which the word v of dense id src points to (HP_SCC_NOPRED: an
 * injection's word), is reached: its dense id. The first time, it is given
 * the walker's next (Note [Dense ids]), and waits in the ring while its
 * record and words are fetched, then goes on the scan stack; after that,
 * it is shared (Note [Tree nodes]). A tracked node's dense id is kept in
 * its slot `s`, which the caller has just read (an untracked one's, or a
 * record's without a slot, in dmap). HP_NO_RECORD when out of memory. */
static inline uint32_t first_find(walker *w, uint32_t t, uintptr_t v, uint32_t src,
                                  hp_slot *s, int locked);

/* The edge src -> d, d found before, listed for the reduction to heads
 * (reduce_to_heads) while fewer than half of w's edges are such (past
 * that the reduction is not made; a heap that starts with its shared
 * tables and ends with its trees has 64K of slack), and memory lasts. */
static void list_refind(walker *w, uint32_t src, uint32_t d)
{
    hp_vec *v = w->refl_vec;
    if (w->nrefl * 2 > w->nedges + 65536 ||
        ((w->nrefl + 1) * 2 * sizeof(uint32_t) > v->committed &&
         hp_vec_ensure(v, (w->nrefl + 1) * 2 * sizeof(uint32_t)) != 0)) {
        w->refl_over = 1;
        return;
    }
    w->refl = (uint32_t *)v->base;
    w->refl[2 * w->nrefl] = src;
    w->refl[2 * w->nrefl + 1] = d;
    w->nrefl++;
}

static inline __attribute__((always_inline)) void refound(walker *w, uint32_t d, uint32_t src)
{
    uint64_t bit = (uint64_t)1 << (d & 63);
    uint64_t *mine = w == &walkers[0] ? shared : shared2;
    mine[d >> 6] |= bit;
    if (src != HP_SCC_NOPRED) {
        w->refinds++;
        if (!w->refl_over) list_refind(w, src, d);
    }
}

static inline __attribute__((always_inline)) uint32_t
discover(walker *w, uint32_t t, uintptr_t v, uint32_t src, hp_slot *s)
{
    uint32_t d;
    if (s) {
        d = __atomic_load_n(&s[0], __ATOMIC_RELAXED);
        if (d < HP_SLOT_FOUND) return first_find(w, d, v, src, s, 0);
        d &= ~HP_SLOT_FOUND;
    } else {
        lock_walkers();
        w->locked++;
        if (!((seen[t >> 6] >> (t & 63)) & 1)) {
            d = first_find(w, t, v, src, s, 1);
            unlock_walkers();
            return d;
        }
        d = dmap[t];
        unlock_walkers();
    }
    refound(w, d, src);
    return d;
}

/* discover(), the first time t is found (wlock held when `locked`: an
 * untracked node). */
static inline __attribute__((always_inline)) uint32_t
first_find(walker *w, uint32_t t, uintptr_t v, uint32_t src, hp_slot *s, int locked)
{
    if ((w->next == w->block_end || (src != HP_SCC_NOPRED && w->next <= src)) &&
        new_block(w, locked) != 0)
        return HP_NO_RECORD;
    uint32_t d = w->next;
    if (s) {
        uint32_t was = t;
        if (nwalkers > 1) {
            if (!__atomic_compare_exchange_n(&s[0], &was, d | HP_SLOT_FOUND, 0, __ATOMIC_ACQ_REL,
                                             __ATOMIC_ACQUIRE)) {
                was &= ~HP_SLOT_FOUND;
                refound(w, was, src);   /* (the other walker was first) */
                return was;
            }
        } else {
            s[0] = d | HP_SLOT_FOUND;
        }
    } else {
        seen[t >> 6] |= (uint64_t)1 << (t & 63);
        dmap[t] = d;
    }
    w->next++;
    dnode[d] = t;
    rix[d] = 0;
    hd[d] = src;
    const hp_page *pg = w->found_page;
    if (t < nrecs && pg) {
        uint32_t f = HP_DI_KNOWN;
        if (hp_trace_kind_scanned(pg->kind)) f |= HP_DI_SCANNED;
        if ((pg->flags & HP_PAGE_UNCOLL) || by_record) {
            f |= HP_DI_RECORD;
            __builtin_prefetch(&recs[t]);
        }
        if (f == HP_DI_KNOWN) {
            /* A leaf (Note [Leaves are not scanned]): scanned now. */
            nd[d] = (snode){0};
            w->st.objects++;
            return d;
        }
        nd[d] = (snode){w->found_base | f, pg->size, 0};
    } else {
        nd[d] = (snode){0};
        if (t < nrecs) __builtin_prefetch(&recs[t]);
    }
    __builtin_prefetch((const void *)v);
    if (w->ring_n == HP_SCC_RING) {
        if (WENSURE(w->scanq_vec, w->scanq, w->nscanq + 1, uint32_t) != 0) return HP_NO_RECORD;
        w->scanq[w->nscanq++] = w->ring[w->ring_head];
        w->ring_head = (w->ring_head + 1) % HP_SCC_RING;
        w->ring_n--;
    }
    w->ring[(w->ring_head + w->ring_n) % HP_SCC_RING] = d;
    w->ring_n++;
    return d;
}

/* Note [Leaves are not scanned]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A node found on its page entry (Note [What a node is]) whose kind holds
 * no pointers (GC_malloc_atomic: strings, numbers' digits), and whose
 * record is not needed (not uncollectable, retainers not by record), has
 * nothing to scan: it is given its dense id and its (empty) edges at once,
 * counted as visited, and never goes through the ring and the scan stack;
 * its words, which no one reads, are not fetched either. A quarter of the
 * nodes of Guile's hash table (a key's string buffer). */

/* A word of an object points at node t: an edge in its place pos, or for
 * a retainer's word an injection (not an edge: a new start, with the
 * retainer's identity); t is reached. */
static inline __attribute__((always_inline)) void
take_word(walker *w, uint32_t t, hp_slot *s, uintptr_t v, uint32_t inject, uint32_t set,
          uint64_t pos, uint32_t src)
{
    uint32_t d = discover(w, t, v, inject ? HP_SCC_NOPRED : src, s);
    if (d == HP_NO_RECORD) {   /* (out of memory: the census fails) */
        if (!inject) w->edges[pos] = HP_SCC_NONE;
        return;
    }
    if (inject) add_inject(w, d, set);
    else w->edges[pos] = d;
}

/* The next edge's place (edges[*pos]): 0, or -1 when out of memory. */
static inline __attribute__((always_inline)) int edge_place(walker *w, uint64_t *pos)
{
    if (WENSURE(w->edge_vec, w->edges, w->nedges + 1, uint32_t) != 0) return -1;
    *pos = w->nedges++;
    return 0;
}

/* Which node a word resolved to (t, slot s) points at, for Note [Words
 * that repeat]: a tracked node's slot (its word changes when it is
 * found), else its node id; never 0. */
static inline uintptr_t node_key(uint32_t t, const hp_slot *s)
{
    return s ? (uintptr_t)s : ((uintptr_t)1 << 63) | t;
}

/* The oldest waiting word: what it points at, its slot fetched by now. */
static inline __attribute__((always_inline)) void resolve_word(walker *w)
{
    pword p = w->wring[w->wring_head];
    w->wring_head = (w->wring_head + 1) % HP_SCC_WRING;
    w->wring_n--;
    /* On the page found when the word was read (NULL: outside, or a
     * page without tracked objects). */
    hp_slot *s;
    uint32_t t = node_on(w, p.page, p.v, all_interior, &s);
    uintptr_t key = node_key(t, s);
    if (t != HP_NO_RECORD && p.src == w->last_src && key == w->last_key) {
        /* (Note [Words that repeat]) */
        if (!p.inject) {
            w->edges[p.pos] = HP_SCC_NONE;
            w->nnone++;
        }
    } else if (t != HP_NO_RECORD) {
        w->last_src = p.src;
        w->last_key = key;
        take_word(w, t, s, p.v, p.inject, (uint32_t)p.pos, p.pos, p.src);
    } else if (!p.inject) {
        w->edges[p.pos] = HP_SCC_NONE;
        w->nnone++;
    }
}

/* Note [Words that repeat]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A word that points at the node the object's word before it pointed at
 * (a C++ vector's begin, end and capacity into one buffer, a list node's
 * two links to one neighbour) adds nothing: not an edge (Tarjan's
 * components and the sets are the same without it), not a second finding
 * of the node (found twice by one object, it still has one predecessor,
 * whose set it has: Note [Tree nodes]). It is dropped as it is resolved
 * (in the word ring, its edge's place left HP_SCC_NONE). Inkscape: 36% of
 * its edges at its largest census. */

/* The words of dense id d's node, read once: what they point to becomes
 * its edges (a retainer's: injections instead, each target a new start). */
static void scan(walker *w, uint32_t d)
{
    uint32_t n = dnode[d];
    w->st.objects++;
    uintptr_t lo, hi;
    const hp_rec *r = NULL;
    int is_ret = 0;
    snode di = nd[d];
    if (di.eoff & HP_DI_KNOWN) {   /* (Note [What a node is]) */
        nd[d] = (snode){0};
        if (!(di.eoff & HP_DI_SCANNED)) return;
        lo = di.eoff & ~(uint64_t)HP_DI_FLAGS;
        hi = lo + di.ecnt;
        if (di.eoff & HP_DI_RECORD) {
            r = &recs[n];
            is_ret = ops.is_retainer(r);
        }
    } else {
        r = rec_of(n);
        w->locked += n >= nrecs;   /* (words_of locks for an untracked node) */
        if (!words_of(n, &lo, &hi)) return;
        is_ret = ops.is_retainer(r);
    }
    uint32_t id = 0;
    if (is_ret) {
        uint64_t key = ops.retainer_key(r);
        unsigned c = (unsigned)(hp_mix64(key) % HP_SCC_RCACHE);
        if (w->rcache[c].key1 == key + 1) {
            id = w->rcache[c].set;
        } else {
            lock_walkers();
            w->locked++;
            id = ops.retainer_set(r);
            unlock_walkers();
            w->rcache[c].key1 = key + 1;
            w->rcache[c].set = id;
        }
    }
    uint64_t eoff = w->nedges;
    uintptr_t last_key = 0;
    lo = (lo + 7) & ~(uintptr_t)7;
    /* (A failure, the other walker's too, is seen object by object: the
     * census is lost then, and the rest of an object's words only cost.) */
    if (is_failed()) return;
    if (hi >= lo + 8) w->st.words += (hi - lo) / 8;
    for (uintptr_t a = lo; a + 8 <= hi; a += 8) {
        uintptr_t v = *(const uintptr_t *)a;
        if (!hp_trace_in_heap(v)) continue;
        uint64_t pos = 0;
        if (!use_wring) {   /* resolved at once */
            hp_slot *s;
            uint32_t t = node_of(w, v, all_interior, &s);
            if (t == HP_NO_RECORD || node_key(t, s) == last_key) continue;   /* (Note [Words that repeat]) */
            last_key = node_key(t, s);
            if (!is_ret && edge_place(w, &pos) != 0) return;
            take_word(w, t, s, v, (uint32_t)is_ret, id, pos, d);
            continue;
        }
        const hp_page *pg = hp_trace_prefetch_slot_c(v, &w->last_page);
        if (!pg && hp_trace_known_outside(v)) continue;
        if (w->wring_n == HP_SCC_WRING) resolve_word(w);
        if (!is_ret && edge_place(w, &pos) != 0) return;
        pword p = {is_ret ? id : pos, v, pg, (uint32_t)is_ret, d};
        w->wring[(w->wring_head + w->wring_n) % HP_SCC_WRING] = p;
        w->wring_n++;
    }
    nd[d].eoff = eoff;
    nd[d].ecnt = (uint32_t)(w->nedges - eoff);
    if (w != &walkers[0] && nd[d].ecnt) {
        if (WENSURE(w->scanned_vec, w->scanned, w->nscanned + 1, uint32_t) != 0) return;
        w->scanned[w->nscanned++] = d;
    }
}

/* Give the older half of w's scan stack to a hungry walker. */
static void share(walker *w)
{
    lock_walkers();
    if (!ws.npool) {
        uint64_t h = w->nscanq / 2;
        if (ENSURE(scc_pool_vec, wl.pool, h, uint32_t) == 0) {
            memcpy(wl.pool, w->scanq, h * sizeof(uint32_t));
            memmove(w->scanq, w->scanq + h, (w->nscanq - h) * sizeof(uint32_t));
            w->nscanq -= h;
            __atomic_store_n(&ws.npool, h, __ATOMIC_RELEASE);
        }
    }
    unlock_walkers();
}

static void start_helper(void);
static int helper_from_start(void);

/* Scan until nothing waits: the stack first, then the ring's oldest. */
static void scan_all(walker *w)
{
    while (!is_failed()) {
        if (may_start && (w->st.objects & 1023) == 0 && w->st.words >= HP_SCC_HELPER_WORDS &&
            w->locked * HP_SCC_HELPER_LOCKS < w->st.objects)
            start_helper();
        if (w->nscanq) {
            if (nwalkers > 1 && w->nscanq >= HP_SCC_SHARE_MIN &&
                __atomic_load_n(&ws.hungry, __ATOMIC_RELAXED) > __atomic_load_n(&ws.gone, __ATOMIC_RELAXED) &&
                !__atomic_load_n(&ws.npool, __ATOMIC_RELAXED))
                share(w);
            /* The stack's next entries may have been found long ago (the
             * targets of a big object's words): ask for them again, the
             * record first, then, once it has come, the words. */
            if (w->nscanq > 2 * HP_SCC_STACK_AHEAD) {
                uint32_t e = w->scanq[w->nscanq - 1 - 2 * HP_SCC_STACK_AHEAD];
                if (!(nd[e].eoff & HP_DI_KNOWN)) {
                    uint32_t f = dnode[e];
                    if (f < nrecs) __builtin_prefetch(&recs[f]);
                }
            }
            if (w->nscanq > HP_SCC_STACK_AHEAD) {
                uint32_t e = w->scanq[w->nscanq - 1 - HP_SCC_STACK_AHEAD];
                if (nd[e].eoff & HP_DI_KNOWN) {
                    __builtin_prefetch((const void *)(uintptr_t)(nd[e].eoff & ~(uint64_t)HP_DI_FLAGS));
                } else {
                    uint32_t f = dnode[e];
                    if (f < nrecs) __builtin_prefetch((const void *)recs[f].base);
                }
            }
            scan(w, w->scanq[--w->nscanq]);
        } else if (w->ring_n) {
            uint32_t t = w->ring[w->ring_head];
            w->ring_head = (w->ring_head + 1) % HP_SCC_RING;
            w->ring_n--;
            scan(w, t);
        } else if (w->wring_n) {
            resolve_word(w);
        } else {
            break;
        }
    }
}

/* A walker's part of step 0: its own work, then, while another walks,
 * what the pool gives it, until every walker is hungry and the pool is
 * empty. */
static void walk(walker *w)
{
    for (;;) {
        scan_all(w);
        if (nwalkers < 2 || is_failed()) break;
        __atomic_add_fetch(&ws.hungry, 1, __ATOMIC_SEQ_CST);
        int fed = 0;
        unsigned spins = 0;
        while (!is_failed()) {
            if (__atomic_load_n(&ws.npool, __ATOMIC_ACQUIRE)) {
                lock_walkers();
                uint64_t n = ws.npool;
                if (n && WENSURE(w->scanq_vec, w->scanq, w->nscanq + n, uint32_t) == 0) {
                    memcpy(w->scanq + w->nscanq, wl.pool, n * sizeof(uint32_t));
                    w->nscanq += n;
                    __atomic_store_n(&ws.npool, 0, __ATOMIC_RELEASE);
                    fed = 1;
                }
                unlock_walkers();
                if (fed) break;
            }
            if (__atomic_load_n(&ws.hungry, __ATOMIC_SEQ_CST) == nwalkers &&
                !__atomic_load_n(&ws.npool, __ATOMIC_SEQ_CST))
                break;
            /* Spin a little, then nap: the other walker may be waiting
             * for a CPU (the helper, just made, put behind another
             * process on a loaded machine), and an idle CPU is one the
             * kernel moves it to; a spinning one is not. */
            if (++spins < 256) {
                __builtin_ia32_pause();
            } else {
                static int nap_word;
                struct { long sec, nsec; } nap = {0, 20000};
                hp_sys_raw6(SYS_futex, (long)&nap_word, FUTEX_WAIT_PRIVATE, 0, (long)&nap, 0, 0);
            }
        }
        if (!fed) break;
        __atomic_sub_fetch(&ws.hungry, 1, __ATOMIC_SEQ_CST);
    }
    __atomic_add_fetch(&ws.gone, 1, __ATOMIC_SEQ_CST);
}

static void helper_walk(void *arg) { walk((walker *)arg); }

/* The helper joins the walk (from now on, claims are atomic and shared
 * tables locked: the clone orders what was written before). */
static void start_helper(void)
{
    may_start = 0;
    nwalkers = 2;
    if (hp_helper_start(helper_walk, &walkers[1]) != 0) nwalkers = 1;
    else helper_walks++;
}

uint64_t hp_trace_scc_helper_walks(void) { return helper_walks; }

/* Step 0, by one walker or two; then one walker's edges, injections and
 * counts (walkers[0]'s, into the file's), and the last blocks' holes. */
static void step0(void)
{
    walker *w0 = &walkers[0], *w1 = &walkers[1];
    int cfg = hp_rt.cfg.walk_helper;
    ws.hungry = ws.gone = 0;
    ws.npool = 0;
    may_start = cfg != HP_HELPER_NO && !ops.dominators && hp_helper_available();
    w0->locked = 0;   /* (step 0's alone: the roots' words took it too) */
    /* (a helper made at the traversal's start walks from the start: Note
     * [Two walkers]) */
    if (helper_from_start()) start_helper();   /* (its conditions include may_start's) */
    walk(w0);
    may_start = 0;
    int helped = nwalkers > 1;
    if (helped) hp_helper_join();
    nwalkers = 1;
    if (!helped && (w1->ring_n || w1->nscanq || w1->wring_n)) {
        /* (roots the helper resolved, Note [Roots by two walkers], and no
         * helper now: it could not be had again) */
        walk(w1);
        helped = 1;
    }
    holes(w0->next, w0->block_end);
    holes(w1->next, w1->block_end);
    w0->next = w0->block_end = w1->next = w1->block_end = 0;
    ndense = wl.next_block;
    if (helped)
        for (uint32_t k = 0; k < (ndense + 63) / 64; k++) shared[k] |= shared2[k];
    if (w1->nedges && !is_failed() &&
        WENSURE(w0->edge_vec, w0->edges, w0->nedges + w1->nedges, uint32_t) == 0) {
        memcpy(w0->edges + w0->nedges, w1->edges, w1->nedges * sizeof(uint32_t));
        for (uint64_t i = 0; i < w1->nscanned; i++) nd[w1->scanned[i]].eoff += w0->nedges;
        w0->nedges += w1->nedges;
    }
    for (uint64_t i = 0; i < w1->ninject && !is_failed(); i++)
        add_inject(w0, w1->injects[i].node, w1->injects[i].set);
    edges = w0->edges;
    nedges = w0->nedges;
    injects = w0->injects;
    ninject = w0->ninject;
    refinds = w0->refinds + w1->refinds;
    nnone = w0->nnone + w1->nnone;
    st.objects = w0->st.objects + w1->st.objects;
    st.words = w0->st.words + w1->st.words;

}

/* ---- Step 1: Tarjan's algorithm over the edges. ---- */

/* First reach of node n (a dense id, as in all of Tarjan's walk) by
 * Tarjan: its frame, over its edges; the states of its targets are asked
 * for now (the walk comes to them soon). */
static int push_frame(uint32_t n)
{
    if (ENSURE(scc_frame_vec, frames, nframes + 1, frame) != 0) return -1;
    rix[n] = ++counter;
    uint64_t lo = nd[n].eoff, hi = lo + nd[n].ecnt;
    for (uint64_t k = lo; k < hi; k++)
        if (edges[k] != HP_SCC_NONE) __builtin_prefetch(&rix[edges[k]]);
    frames[nframes++] = (frame){n, 1, lo, hi};
    return 0;
}

/* The edge just passed in frame f points at a node whose word is r (its
 * frame done, if it had one): a completed component's number, or inside
 * f's component, lowering f's low link. */
static inline void resolve_edge(frame *f, uint32_t r)
{
    if (r > cnext) {
        edges[f->pos - 1] = r == HP_SCC_LEAF_WORD ? HP_SCC_LEAF | edges[f->pos - 1]
                                                  : HP_SCC_CTOP - r;
        return;
    }
    if (r < rix[f->node]) {
        rix[f->node] = r;
        f->root = 0;
    }
    edges[f->pos - 1] = HP_SCC_INSIDE;
}

/* Note [Leaves]
 * ~~~~~~~~~~~~~~
 * A node without edges (an atomic object, an object with no word into the
 * heap, a retainer: its words are injections) is a component of its own
 * that passes nothing on: its set is the union of what its in-edges and
 * injections bring. Tarjan need not walk it: the first time it meets one
 * (unreached, no edges) its word becomes HP_SCC_LEAF_WORD and the edge
 * HP_SCC_LEAF | its dense id, and the sets' pass joins into lset[leaf]
 * what it would have joined into the leaf's component. Inkscape's heap is
 * 84% leaves (strings, and its 60,000 uncollectable containers): Tarjan
 * 5.8 -> 3.3 ms over a run. Not with dominators=yes, which needs every
 * node's component. */
static inline int leaf(uint32_t n)
{
    if (!use_leaves || nd[n].ecnt) return 0;
    rix[n] = HP_SCC_LEAF_WORD;
    lset[n] = lset_empty;
    return 1;
}

/* Tarjan's strongconnect from n, without recursion. */
static void dfs(uint32_t start)
{
    if (rix[start] || leaf(start) || push_frame(start) != 0) return;
    while (nframes && !failed) {
        frame *f = &frames[nframes - 1];
        uint32_t n = f->node;
        if (f->pos < f->end) {
            uint32_t t = edges[f->pos++];
            if (t == HP_SCC_NONE) continue;
            st.visits++;
            uint32_t r = rix[t];
            if (r) resolve_edge(f, r);
            else if (leaf(t)) edges[f->pos - 1] = HP_SCC_LEAF | t;
            else push_frame(t);   /* (frames may move); its edge is resolved
                                     when its frame is done */
            continue;
        }
        /* n's words are done. */
        int root = (int)f->root;
        nframes--;
        if (root) {
            /* n roots a component: it and the stack's nodes above its index. */
            if (ENSURE(scc_start_vec, comp_start, ncomp + 2, uint32_t) != 0 ||
                ENSURE(scc_order_vec, order, norder + tdepth + 1, ordered) != 0)
                return;
            uint32_t c = cnext--, rn = rix[n];
            comp_start[ncomp] = (uint32_t)norder;
            while (tdepth && rn <= rix[tstack[tdepth - 1]]) {
                uint32_t m = tstack[--tdepth];
                rix[m] = c;
                order[norder++] = (ordered){m, nd[m].ecnt, nd[m].eoff};
            }
            rix[n] = c;
            order[norder++] = (ordered){n, nd[n].ecnt, nd[n].eoff};
            ncomp++;
            comp_start[ncomp] = (uint32_t)norder;
        } else {
            if (ENSURE(scc_tstack_vec, tstack, tdepth + 1, uint32_t) != 0) return;
            tstack[tdepth++] = n;
        }
        if (nframes) resolve_edge(&frames[nframes - 1], rix[n]);   /* the parent's edge to n */
    }
}

/* The roots (before hp_trace_scc_end: the main walker alone). A root's
 * word waits in a ring while the index slot of what it points at is
 * fetched (as step 0's words do): a runtime's static data and stacks are
 * thousands of words, each a cache miss of its own (Guile: a tenth of a
 * small census); their targets are injected in another order, which
 * changes no set. */

static void resolve_root(walker *w)
{
    rword r = w->rring[w->rring_head];
    w->rring_head = (w->rring_head + 1) % HP_SCC_RRING;
    w->rring_n--;
    hp_slot *s;
    uint32_t t = node_on(w, r.page, r.v, r.interior, &s);
    if (t == HP_NO_RECORD) return;
    /* (scanned at hp_trace_scc_end, with every root's targets in the
     * pipeline together) */
    uint32_t d = discover(w, t, r.v, HP_SCC_NOPRED, s);
    if (d != HP_NO_RECORD) add_inject(w, d, r.set);
}

static void root_word(walker *w, uintptr_t v, int interior, uint32_t set)
{
    if (!hp_trace_in_heap(v) || hp_trace_known_outside(v)) return;
    const hp_page *pg = hp_trace_prefetch_slot_c(v, &w->last_page);
    if (w->rring_n == HP_SCC_RRING) resolve_root(w);
    w->rring[(w->rring_head + w->rring_n) % HP_SCC_RRING] = (rword){v, pg, set, interior};
    w->rring_n++;
}

void hp_trace_scc_range(uintptr_t lo, uintptr_t hi, int interior, uint32_t set)
{
    walker *w = &walkers[0];
    if (failed) return;
    /* Most words of a root range point nowhere near the heap (poke's
     * three 512 KiB ranges of registered roots: 1.5 of its 1.9 MB of roots
     * a census): those are passed over by the bounds test alone. */
    const uintptr_t least = hp_trace_ix_.least, span = hp_trace_ix_.greatest - least;
    uintptr_t a = (lo + 7) & ~(uintptr_t)7;
    if (a + 8 <= hi) w->st.words += (hi - a) / 8;
    for (; a + 8 <= hi; a += 8) {
        uintptr_t v = *(const uintptr_t *)a;
        if (v - least >= span) continue;
        if (failed) return;
        root_word(w, v, interior, set);
    }
}

uint32_t hp_trace_scc_record_of(uint32_t word)
{
    return word != HP_NO_RECORD && word >= HP_SLOT_FOUND ? dnode[word & ~HP_SLOT_FOUND] : word;
}

void hp_trace_scc_object(uintptr_t base, uint32_t set)
{
    if (!failed) root_word(&walkers[0], base, 0, set);
}

/* Note [Roots by two walkers]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Inkscape's 60,000 uncollectable containers are roots of their own, each
 * resolved through the index as a root word is (16 ns apiece: 0.9 ms of
 * its largest census, the main walker alone, with the helper made and
 * waiting). When the helper is there for step 0 (its conditions, with it
 * made at the traversal's start), the records are resolved by both
 * walkers, in chunks (core/hp_helper.h, hp_helper_chunks), each into its
 * own root ring, injections and pipeline, as step 0 has them: claims are
 * atomic from then on (nwalkers 2). What the helper found waits in its
 * ring and scan stack until step 0, where it walks from its start. The
 * sets are the caller's, worked out before (their interning is not
 * shared). */
typedef struct objects_job { const uint32_t *rec; const uint32_t *set; } objects_job;
#define HP_SCC_OBJECTS_CHUNK 4096
#define HP_SCC_HELPER_OBJECTS ((size_t)1 << 13)

static void objects_range(void *arg, size_t from, size_t to, int who)
{
    const objects_job *j = arg;
    walker *w = &walkers[who];
    for (size_t k = from; k < to && !is_failed(); k++) {
        if (k + 8 < to) __builtin_prefetch(&recs[j->rec[k + 8]]);
        root_word(w, recs[j->rec[k]].base, 0, j->set[k]);
    }
    while (w->rring_n && !is_failed()) resolve_root(w);
}

/* Will step 0 have the helper from its start? (step0: helper=yes, or a
 * helper made at the traversal's start and waiting.) */
static int helper_from_start(void)
{
    int cfg = hp_rt.cfg.walk_helper;
    return cfg != HP_HELPER_NO && !ops.dominators && hp_helper_available() &&
           (cfg == HP_HELPER_YES || hp_helper_ready());
}

void hp_trace_scc_objects(const uint32_t *rec, const uint32_t *set, size_t n)
{
    if (failed) return;
    objects_job job = {rec, set};
    if (n >= HP_SCC_HELPER_OBJECTS && helper_from_start()) {
        nwalkers = 2;
        hp_helper_chunks(objects_range, &job, n, HP_SCC_OBJECTS_CHUNK);
        nwalkers = 1;
    } else {
        objects_range(&job, 0, n, 0);
    }
}

/* ---- The dominator tree of the components (Cooper, Harvey and Kennedy's
 * "A Simple, Fast Dominance Algorithm", on a DAG: one pass in topological
 * order suffices, as every predecessor of a component is final before
 * it). The graph is the components' (a component's objects reach each
 * other, so they retain or are retained together); its root R, numbered
 * ncomp, points at every component a root range, root object or retainer
 * injected into. Components are numbered as Tarjan completed them, so a
 * predecessor has a higher number than its successors, R the highest; the
 * "intersect" walk climbs idom towards higher numbers. Retained sizes are
 * then summed from the leaves up (increasing number). ---- */
static hp_vec dom_idom_vec, dom_rep_vec, dom_bytes_vec, dom_objs_vec, dom_ret_vec,
    dom_reto_vec;

static uint32_t intersect(const uint32_t *idom, uint32_t a, uint32_t b)
{
    while (a != b) {
        while (a < b) a = idom[a];
        while (b < a) b = idom[b];
    }
    return a;
}

static void dominators(void)
{
    uint64_t t0 = hp_mono_ns();
    uint32_t R = ncomp, none = UINT32_MAX;
    size_t n = (size_t)ncomp + 1;
    if ((!dom_idom_vec.base && (hp_vec_reserve(&dom_idom_vec, (size_t)1 << 32) ||
                                hp_vec_reserve(&dom_rep_vec, (size_t)1 << 32) ||
                                hp_vec_reserve(&dom_bytes_vec, (size_t)1 << 33) ||
                                hp_vec_reserve(&dom_objs_vec, (size_t)1 << 33) ||
                                hp_vec_reserve(&dom_ret_vec, (size_t)1 << 33) ||
                                hp_vec_reserve(&dom_reto_vec, (size_t)1 << 33))) ||
        hp_vec_ensure(&dom_idom_vec, n * 4) || hp_vec_ensure(&dom_rep_vec, n * 4) ||
        hp_vec_ensure(&dom_bytes_vec, n * 8) || hp_vec_ensure(&dom_objs_vec, n * 8) ||
        hp_vec_ensure(&dom_ret_vec, n * 8) || hp_vec_ensure(&dom_reto_vec, n * 8))
        return;
    uint32_t *idom = (uint32_t *)dom_idom_vec.base, *rep = (uint32_t *)dom_rep_vec.base;
    uint64_t *bytes = (uint64_t *)dom_bytes_vec.base, *objs = (uint64_t *)dom_objs_vec.base;
    uint64_t *ret = (uint64_t *)dom_ret_vec.base, *reto = (uint64_t *)dom_reto_vec.base;
    for (uint32_t c = 0; c <= R; c++) {
        idom[c] = none;
        bytes[c] = objs[c] = 0;
        rep[c] = UINT32_MAX;
    }
    idom[R] = R;
    /* Sizes, and a representative record, per component. */
    for (uint32_t c = 0; c < ncomp; c++) {
        for (uint32_t k = comp_start[c]; k < comp_start[c + 1]; k++) {
            uint32_t node = dnode[order[k].node];
            objs[c]++;
            if (node < nrecs) {
                bytes[c] += recs[node].granted;
                if (rep[c] == UINT32_MAX || recs[node].granted > recs[rep[c]].granted)
                    rep[c] = node;
            } else {
                const hp_tentry *e = hp_trace_lookup(ubase[node - nrecs]);
                if (e) bytes[c] += e->size & ~(uintptr_t)1;
            }
        }
    }
    /* R's edges: every injection. */
    for (uint64_t i = 0; i < ninject; i++) {
        uint32_t d = HP_SCC_CTOP - rix[injects[i].node];
        idom[d] = idom[d] == none ? R : intersect(idom, idom[d], R);
    }
    /* Then every component in topological order (decreasing number). */
    for (uint32_t c = ncomp; c-- > 0;) {
        if (idom[c] == none) idom[c] = R;   /* (reached only as an injection target) */
        for (uint32_t k = comp_start[c]; k < comp_start[c + 1]; k++) {
            const uint32_t *e = edges + order[k].eoff;
            for (uint32_t j = 0; j < order[k].ecnt; j++) {
                uint32_t d = e[j];
                if (d >= HP_SCC_NONE || d == c) continue;   /* (inside, or none) */
                idom[d] = idom[d] == none ? c : intersect(idom, idom[d], c);
            }
        }
    }
    /* Retained: each component and all it dominates, leaves first. */
    for (uint32_t c = 0; c <= R; c++) {
        ret[c] = bytes[c];
        reto[c] = objs[c];
    }
    for (uint32_t c = 0; c < ncomp; c++) {
        ret[idom[c]] += ret[c];
        reto[idom[c]] += reto[c];
    }
    uint64_t mem = dom_idom_vec.committed + dom_rep_vec.committed + dom_bytes_vec.committed +
                   dom_objs_vec.committed + dom_ret_vec.committed + dom_reto_vec.committed;
    hp_scc_doms d = {ncomp, idom, rep, comp_set, bytes, objs, ret, reto, hp_mono_ns() - t0, mem};
    ops.dominators(&d);
}

/* ---- Tree nodes (Note [Tree nodes]). ---- */

static inline int is_shared(uint32_t d) { return (shared[d >> 6] >> (d & 63)) & 1; }

/* Every node's head, and Tarjan's graph reduced to the heads: 1, with
 * `edges` and each head's nd[] now the reduced graph's (the others' unused:
 * Tarjan and the sets' pass reach heads only); 0 when not worth it (more
 * than half the nodes are heads, half the edges or more to nodes found
 * before, or more of those than step 0 would list) or out of memory, the
 * graph left as it was. One pass over the nodes (heads); the rest is over
 * the heads and the edges to them, listed by step 0 and that pass. */
static int reduce_to_heads(uint64_t *visits)
{
    /* Every edge to a head finds a node found before, or is the first to
     * find a node found again: when half the edges are the former, the
     * reduced graph is not much smaller (nix's attribute sets: 11 million
     * edges among 35,000 objects, nearly all to objects found before), and
     * building it costs more than Tarjan over every edge. Below that it
     * pays: ECL's lists hang off a runtime whose symbols and packages make
     * 30% of the edges refinds, ns a visit 59-66 -> 56-58 (the bound was a
     * quarter). On a tiny heap there is nothing to save (HP_SCC_HEADS_MIN). */
    if (ndense < HP_SCC_HEADS_MIN || refinds * 2 > nedges) return 0;
    walker *w0 = &walkers[0], *w1 = &walkers[1];
    if (w0->refl_over || w1->refl_over) return 0;
    /* The edges to heads, as (the head of their source, target) pairs:
     * an edge to a head is the first to find it (the heads pass below
     * lists those) or finds it again (listed by step 0, each walker its
     * own: list_refind). The main walker's list is the pairs' array: its
     * sources become their heads in place, the rest is appended. */
    uint32_t *pairs = w0->refl;
    uint64_t n = w0->nrefl, pair_cap = w0->nrefl;
    /* Heads: a node found once, by a word of `p`, has p's head (p < d: p
     * had its dense id before it was scanned). A head's shared bit is set
     * from now on: it is the test for a head. */
    uint32_t nheads = 0;
    for (uint32_t d = 0; d < ndense; d++) {
        uint32_t p = hd[d];
        if (p == HP_SCC_NOPRED || is_shared(d)) {
            hd[d] = d;
            shared[d >> 6] |= (uint64_t)1 << (d & 63);
            nheads++;
            if (p == HP_SCC_NOPRED) continue;
            if (n == pair_cap) {
                pair_cap = pair_cap + pair_cap / 4 + 4096;
                if (ENSURE(scc_pair_vec, pairs, 2 * pair_cap, uint32_t) != 0) return failed = 0, 0;
            }
            pairs[2 * n] = hd[p];
            pairs[2 * n + 1] = d;
            n++;
        } else {
            hd[d] = hd[p];
        }
    }
    if ((uint64_t)nheads * 2 > ndense) return 0;
    if (ENSURE(scc_pair_vec, pairs, 2 * (n + w1->nrefl), uint32_t) != 0) return failed = 0, 0;
    for (uint64_t k = 0; k < w0->nrefl; k++) pairs[2 * k] = hd[pairs[2 * k]];
    for (uint64_t k = 0; k < w1->nrefl; k++, n++) {
        pairs[2 * n] = hd[w1->refl[2 * k]];
        pairs[2 * n + 1] = w1->refl[2 * k + 1];
    }
    /* rc counts each head's edges (rc is by dense id, cleared for heads
     * only). */
    uint32_t *rc = NULL;
    if (ENSURE(scc_rcount_vec, rc, ndense + 1, uint32_t) != 0) return failed = 0, 0;
    for (uint32_t d = 0; d < ndense; d++)
        if (hd[d] == d) rc[d] = 0;
    for (uint64_t k = 0; k < n; k++) rc[pairs[2 * k]]++;
    uint32_t *red = NULL;
    if (ENSURE(scc_redge_vec, red, n + 1, uint32_t) != 0) return failed = 0, 0;
    /* Each head's edges in its own range, heads in dense order. */
    uint64_t off = 0;
    for (uint32_t d = 0; d < ndense; d++) {
        if (hd[d] != d) continue;
        nd[d].eoff = off;
        nd[d].ecnt = rc[d];
        off += rc[d];
        rc[d] = 0;
    }
    for (uint64_t k = 0; k < n; k++) {
        uint32_t h = pairs[2 * k];
        red[nd[h].eoff + rc[h]++] = pairs[2 * k + 1];
    }
    edges = red;
    *visits = nedges - nnone;   /* (every edge, as if passed unreduced) */
    nedges = n;
    st.heads = nheads;
    return 1;
}

/* Step 3 over the dense ids [from, to): each node's label, its set's
 * size summed into members[who]. Nodes are written, never read, and each
 * by one chunk: on a big heap the helper takes chunks too (helper=,
 * HP_SCC_HELPER_LABELS). */
typedef struct label_job { int reduced; uint64_t members[2]; } label_job;
#define HP_SCC_LABEL_CHUNK 8192   /* dense ids (core/hp_helper.h, hp_helper_chunks) */

static void label_range(void *arg, size_t from, size_t to, int who)
{
    label_job *j = arg;
    uint32_t parity = hp_trace_parity();
    uint64_t members = 0;
    /* (neighbours mostly share a set: a tree's nodes their head's) */
    uint32_t last_set = UINT32_MAX;
    uint64_t last_size = 0;
    for (uint32_t d = (uint32_t)from; d < to; d++) {
        /* Nodes in discovery order: their records are written out of
         * order; ask for them ahead. */
        if (d + 16 < to && dnode[d + 16] < nrecs) __builtin_prefetch(&recs[dnode[d + 16]], 1);
        uint32_t h = j->reduced ? hd[d] : d;   /* (a tree node has its head's set) */
        if (!rix[h]) continue;
        uint32_t n = dnode[d];
        uint32_t s = rix[h] == HP_SCC_LEAF_WORD ? lset[h] : comp_set[HP_SCC_CTOP - rix[h]];
        uint32_t label = s & HP_TRACE_LABEL_MASK;
        if (s != last_set) {
            last_set = s;
            last_size = ops.set_size(s);
        }
        members += last_size;
        if (n < nrecs) {
            recs[n].word = parity | HP_TRACE_SET_BIT | label;
        } else {
            hp_tentry *e = hp_trace_lookup(ubase[n - nrecs]);
            if (e) e->label = HP_TRACE_SET_BIT | label;
        }
    }
    j->members[who] += members;
}

hp_trace_stats hp_trace_scc_end(int *ok)
{
    /* Every root target and retainer target (injections), in turn. */
    while (walkers[0].rring_n && !failed) resolve_root(&walkers[0]);
    step0();
    uint64_t visits = 0;
    int reduced = !failed && !ops.dominators && reduce_to_heads(&visits);
    use_leaves = !failed && !ops.dominators;
    if (use_leaves && ENSURE(scc_rcount_vec, lset, (size_t)ndense + 1, uint32_t) != 0)
        failed = use_leaves = 0;   /* (out of memory for it: no leaves) */
    lset_empty = ops.empty_set();
    for (uint64_t i = 0; i < ninject && !failed; i++)
        if (!rix[injects[i].node]) dfs(injects[i].node);   /* (most are reached already) */
    if (reduced) st.visits = visits;   /* (every edge, passed once, as unreduced) */
    *ok = 0;
    if (failed || ENSURE(scc_set_vec, comp_set, ncomp + 1, uint32_t) != 0) return st;
    *ok = 1;
    uint32_t empty = ops.empty_set();
    for (uint32_t c = 0; c < ncomp; c++) comp_set[c] = empty;
    /* (A union with the same set or with the empty one is inline: most
     * are, and Inkscape's 60,000 uncollectable containers inject a
     * quarter of a million times a census.) */
    for (uint64_t i = 0; i < ninject; i++) {
        uint32_t d = injects[i].node, s = injects[i].set;
        uint32_t *to = rix[d] == HP_SCC_LEAF_WORD ? &lset[d] : &comp_set[HP_SCC_CTOP - rix[d]];
        if (*to != s) *to = *to == empty ? s : ops.set_union(*to, s);
    }
    /* Predecessors first: decreasing component number. */
    for (uint32_t c = ncomp; c-- > 0;) {
        uint32_t s = comp_set[c];
        if (s == empty) continue;   /* (passes nothing on) */
        for (uint32_t k = comp_start[c]; k < comp_start[c + 1]; k++) {
            const uint32_t *e = edges + order[k].eoff;
            for (uint32_t j = 0; j < order[k].ecnt; j++) {
                uint32_t d = e[j];
                if (d >= HP_SCC_NONE) continue;   /* (inside, or none) */
                uint32_t *to = d & HP_SCC_LEAF ? &lset[d & ~HP_SCC_LEAF] : &comp_set[d];
                if (*to != s) *to = *to == empty ? s : ops.set_union(*to, s);
            }
        }
    }
    /* Labels: on a big heap, the helper shares them. */
    label_job job = {reduced, {0, 0}};
    if (ndense >= HP_SCC_HELPER_LABELS && hp_rt.cfg.walk_helper != HP_HELPER_NO)
        hp_helper_chunks(label_range, &job, ndense, HP_SCC_LABEL_CHUNK);
    else
        label_range(&job, 0, ndense, 0);
    st.set_members += job.members[0] + job.members[1];
    st.untracked = wl.nnodes - (uint32_t)nrecs;
    if (ops.dominators) dominators();
    return st;
}
/* ---- end of world-stopped code ---- */
