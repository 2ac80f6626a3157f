/* hp_trace_sigsafe: the shared heap traversal, the walk (see hp_trace.h).
 *
 * ---- Everything after hp_trace_init runs at MARK_END with the collector's
 * lock held and the world stopped: no lock, no malloc, no GC allocation;
 * only GC_base, GC_is_marked and GC_get_kind_and_size, which read the
 * collector's block headers. ---- */
#include "retainer/hp_trace.h"
#include "retainer/hp_rootrec.h"
#include "retainer/hp_trace_index.h"
#include "core/hp_helper.h"
#include "core/hp_real.h"
#include "core/hp_rt.h"
#include "core/hp_shadow.h"

#include <string.h>



typedef struct hp_titem { uintptr_t lo, hi; const unsigned char *copy; uint64_t payload; int interior; } hp_titem;

static hp_titem *stack;
static uint64_t depth, stack_cap;
static hp_rec *recs;
static size_t nrecs;
static uint32_t parity;             /* HP_TRACE_PARITY_BIT or 0 */
static int all_interior;
static hp_trace_visit_fn visit;
/* Merge mode (payloads are bit sets): instead of a depth-first walk per
 * payload, objects wait in a FIFO with the bits not yet passed on, and
 * bits arriving meanwhile join them; so the reach of many overlapping
 * sources is walked a few times, not once per source. */
static int merge;
static uint64_t *pending;            /* per record */
static uint64_t *queue;
static uint64_t q_head, q_tail, q_cap;
#define HP_Q_UNTRACKED ((uint64_t)1 << 63)
static hp_trace_stats st;
static int failed;
static uint64_t rescan_cap;   /* hp_trace_set_rescan_cap; 0: none */
static int gave_up;           /* ... and it was passed */

/* The walk is bound by memory latency: an object's words, then each
 * target's record, are rarely in the CPU's caches. So it is pipelined:
 * an object taken from the stack waits in objq while its words are
 * fetched, and an edge found in it waits in reachq while its target's
 * record is fetched. (Labels do not depend on the order objects are
 * reached in: a set is the union of what reaches it.) */
#define HP_OBJQ 8
#define HP_REACHQ 16
static hp_titem objq[HP_OBJQ];
static unsigned objq_head, objq_n;
typedef struct { uint32_t idx; uint32_t pad; uint64_t payload; } hp_treach;
static hp_treach reachq[HP_REACHQ];
static unsigned reachq_head, reachq_n;

static uint64_t begun, begun_mapped, begun_two;

uint32_t hp_trace_parity(void) { return parity; }

uint64_t hp_trace_begun(void) { return begun; }

uint64_t hp_trace_begun_mapped(void) { return begun_mapped; }

uint64_t hp_trace_begun_two(void) { return begun_two; }

const uint32_t *hp_trace_uncollectables(size_t *n)
{
    *n = hp_trace_ix_.nuncoll;
    return hp_trace_ix_.uncoll;
}

uint32_t *hp_trace_uncollectable_sets(void)
{
    size_t bytes = (hp_trace_ix_.nuncoll + 1) * sizeof(uint32_t);
    if (hp_vec_ensure(&hp_trace_ix_.uncoll_set_vec, bytes) != 0) return NULL;
    return (uint32_t *)hp_trace_ix_.uncoll_set_vec.base;
}

const uintptr_t *hp_trace_next_plausible(const uintptr_t *a, const uintptr_t *end)
{
    /* v - least < greatest - least: one unsigned compare a word, four
     * words a test, so that a range with no pointer in it costs what the
     * collector's scan of it costs. */
    const uintptr_t lo = hp_trace_ix_.least, span = hp_trace_ix_.greatest - lo;
    while (end - a >= 4) {
        if ((a[0] - lo < span) | (a[1] - lo < span) | (a[2] - lo < span) | (a[3] - lo < span))
            break;
        a += 4;
    }
    for (; a < end; a++)
        if (*a - lo < span) return a;
    return end;
}

void hp_trace_set_merge(int on) { merge = on; }

static void enqueue(uint64_t ref)
{
    if (q_tail == q_cap) {
        uint64_t want = q_cap ? q_cap * 2 : 65536;
        if (hp_vec_ensure(&hp_trace_ix_.queue_vec, want * sizeof(uint64_t)) != 0) {
            failed = 1;
            return;
        }
        queue = (uint64_t *)hp_trace_ix_.queue_vec.base;
        q_cap = want;
    }
    queue[q_tail++] = ref;
}

/* A walk starts: its visitor, empty queues and stack, zero stats. */
static void walk_reset(hp_trace_visit_fn fn)
{
    visit = fn;
    q_head = q_tail = 0;
    objq_head = objq_n = reachq_head = reachq_n = 0;
    memset(&st, 0, sizeof st);
    failed = 0;
    gave_up = 0;
    depth = 0;
}

void hp_trace_set_rescan_cap(uint64_t cap) { rescan_cap = cap; }

int hp_trace_gave_up(void) { return gave_up; }

/* An object scanned again (its set grew after its scan): past the cap,
 * the walk stops (failed: every loop and entry point looks at it). */
static inline void rescanned(int valid)
{
    st.rescans += (uint64_t)valid;
    if (__builtin_expect(rescan_cap && st.rescans > rescan_cap, 0)) gave_up = failed = 1;
}

/* Note [Two builders]
 * ~~~~~~~~~~~~~~~~~~~~~
 * With the page map, the index is built by two threads on a big table
 * (HP_TRACE_BUILD_TWO records): the helper (core/hp_helper.h) takes the
 * records on odd pages, the caller those on even ones. Each reads every
 * record and indexes its own, in order, so a page's records are all
 * indexed by one thread, the later one at an address after the earlier as
 * alone; a page's map word, entry and slots are its owner's; the entries
 * and slots handed out and the vectors' growth are shared, under a spin
 * lock (hp_trace_page_for). Each keeps its own list of uncollectable
 * records, merged after, in order. Most of the pass is the slots' writes
 * and the records' reads waiting on memory (reading the records alone is
 * a fifth of it), which two threads wait for together: Guile's hash
 * table, 1.3 million records, 5.1 -> 4.1 ms (debug timing build), its
 * traversal over the run 654 -> 633 ms (five interleaved runs).
 * The helper's other thresholds (labels, the unseen pass): 131,072 nodes
 * and 262,144 records when each piece of work made a thread of its own,
 * 115 us a start; with the helper kept for the census
 * (core/hp_helper_sigsafe.c, Note [A kept helper]) 32,768 and 65,536:
 * ECL's list workload 76.1 -> 71.4 ns an object over the traversal,
 * Guile's sort 47.2 -> 42.6, poke 73.3 -> 67.0 (interleaved runs, debug
 * timing build); a quarter of those again measured slower. The build's
 * stays at 131,072 records: at 32,768 Inkscape's census of 89,000 records
 * took 2.0-2.3 ms to build, not 0.8-0.9 (its many object sizes make many
 * page entries, each taken under the builders' lock), and the run's
 * traversal 31.7 -> 30.6 ms with it back (three interleaved runs).
 * Then, with one word a slot (hp_trace_scc_sigsafe.c), one builder
 * outran two wherever measured: Inkscape's census of 152,000 records
 * 1.2-1.4 ms alone against 2.1-3.4 ms (each builder reads every record;
 * the slots' writes, which the two shared, halved), its traversal over
 * the run 29.6 -> 27.4 ms (release build: 31.9 -> 28.5 ms); but Guile's
 * hash table, whose censuses of 270,000-500,000 records then build
 * alone, 33.3 -> 34.0 ns an object over the traversal (6 interleaved
 * runs; 34.1 with one builder always). Inkscape's pages hold 60-100
 * records, Guile's 150-360: the lock the builders share for each new page
 * entry is the likely difference, not measured. So two builders from
 * 524,288 records, and at every census with helper=yes (which the tests
 * use to check the two against one). */
#define HP_TRACE_BUILD_TWO ((size_t)1 << 19)

typedef struct build_job {
    int parity;        /* the pages it indexes: 0 even, 1 odd, 2 all */
    hp_vec *unc_vec;   /* its uncollectable records' indexes */
    size_t nunc;
    int failed;
} build_job;

static void build_range(void *arg)
{
    build_job *j = arg;
    /* The entries of the last pages seen (see hp_trace_begin), by page
     * number without the parity bit when the job has one parity. */
    hp_page *recent[64] = {0};
    unsigned shift = j->parity != 2;
    int frees = hp_shadow_has_frees();
    uintptr_t lo = hp_trace_ix_.pmap_lo;
    uint64_t span = hp_trace_ix_.pmap_n;
    for (size_t i = 0; i < nrecs; i++) {
        hp_rec *r = &recs[i];
        __builtin_prefetch(r + 32);
        uintptr_t pg = r->base >> 12;
        if (j->parity != 2 && (pg & 1) != (uintptr_t)j->parity) continue;
        if (frees && hp_shadow_freed_at(r, i)) continue;
        if (pg - lo >= span) continue;
        if (hp_rec_uncollectable(r)) {
            if ((j->nunc + 1) * sizeof(uint32_t) > j->unc_vec->committed &&
                hp_vec_ensure(j->unc_vec, (j->nunc + 1) * sizeof(uint32_t)) != 0) {
                j->failed = 1;
                return;
            }
            ((uint32_t *)j->unc_vec->base)[j->nunc++] = (uint32_t)i;
        }
        hp_page **rp = &recent[(pg >> shift) & 63];
        hp_page *p = (*rp && (*rp)->page == pg && (*rp)->size == r->granted && (*rp)->kind == r->kind)
                         ? *rp : hp_trace_page_for(pg, r->granted, r->kind);
        *rp = p;
        if (!p) {
            j->failed = 1;
            return;
        }
        if (hp_rec_uncollectable(r)) p->flags |= HP_PAGE_UNCOLL;
        uint32_t off = (uint32_t)(r->base & 4095);
        uint32_t k = p->inv ? (uint32_t)(((uint64_t)off * p->inv) >> 32) : 0;
        if (k < p->nslots)
            hp_trace_ix_.slots[p->slot_off + k] = (uint32_t)i;
    }
}

/* Index every record in the page map (Note [Two builders]): 0, or -1. */
static int build_mapped(void)
{
    build_job jobs[2] = {{0, &hp_trace_ix_.uncoll_vec, 0, 0},
                         {1, &hp_trace_ix_.uncoll2_vec, 0, 0}};
    if ((nrecs >= HP_TRACE_BUILD_TWO || hp_rt.cfg.walk_helper == HP_HELPER_YES) &&
        hp_rt.cfg.walk_helper != HP_HELPER_NO && hp_helper_available()) {
        hp_trace_ix_.build_shared = 1;
        hp_helper_both(build_range, &jobs[0], &jobs[1]);
        hp_trace_ix_.build_shared = 0;
        begun_two++;
    } else {
        jobs[0].parity = 2;
        build_range(&jobs[0]);
    }
    size_t n0 = jobs[0].nunc, n1 = jobs[1].nunc;
    if (jobs[0].failed || jobs[1].failed ||
        hp_vec_ensure(&hp_trace_ix_.uncoll_vec, (n0 + n1 + 1) * sizeof(uint32_t)) != 0)
        return -1;
    /* The two lists, each in order, merged from the back in place. */
    uint32_t *a = (uint32_t *)hp_trace_ix_.uncoll_vec.base;
    const uint32_t *b = (const uint32_t *)hp_trace_ix_.uncoll2_vec.base;
    for (size_t out = n0 + n1; n1 > 0;) {
        if (n0 > 0 && a[n0 - 1] > b[n1 - 1]) a[--out] = a[--n0];
        else a[--out] = b[--n1];
    }
    hp_trace_ix_.uncoll = a;
    hp_trace_ix_.nuncoll = jobs[0].nunc + jobs[1].nunc;
    return 0;
}

int hp_trace_begin(hp_trace_visit_fn fn)
{
    walk_reset(fn);
    parity ^= HP_TRACE_PARITY_BIT;
    hp_trace_ix_.least = hp_trace_ix_.least_p ? (uintptr_t)*hp_trace_ix_.least_p : 0;
    hp_trace_ix_.greatest =
        hp_trace_ix_.greatest_p ? (uintptr_t)*hp_trace_ix_.greatest_p : UINTPTR_MAX;
    all_interior = hp_real.GC_get_all_interior_pointers
                       ? hp_real.GC_get_all_interior_pointers() : 1;
    recs = hp_shadow_table(&nrecs);
    /* The table of untracked objects, sized for as many as the last
     * traversal found (it grows if need be): cleared at a fixed 8,192
     * entries, it was most of a small heap's census. */
    uint64_t untracked_last = hp_trace_ix_.used;
    hp_trace_ix_.cap = hp_trace_ix_.used = 0;
    hp_trace_ix_.table = NULL;
    if (hp_trace_index_reserve(untracked_last + 32) != 0) {
        failed = 1;
        return -1;
    }
    if (merge && visit) {
        if (hp_vec_ensure(&hp_trace_ix_.pending_vec, (nrecs + 1) * sizeof(uint64_t)) != 0) {
            failed = 1;
            return -1;
        }
        pending = (uint64_t *)hp_trace_ix_.pending_vec.base;
        memset(pending, 0, nrecs * sizeof(uint64_t));
    }
    /* Pages by page number (Note [The page map]) when the heap's span is
     * at most 64 times the pages indexed last time (and a little). */
    uintptr_t span_lo = hp_trace_ix_.least >> 12;
    uint64_t span = hp_trace_ix_.least_p && hp_trace_ix_.greatest_p &&
                            hp_trace_ix_.greatest > hp_trace_ix_.least
                        ? ((hp_trace_ix_.greatest + 4095) >> 12) - span_lo
                        : UINT64_MAX;
    hp_trace_ix_.pmap_n = 0;
    if (span <= HP_TRACE_PMAP_MAX && span <= 64 * (hp_trace_ix_.pages_used + 1024) &&
        hp_vec_ensure(&hp_trace_ix_.pmap_vec, span * sizeof(uint32_t)) == 0) {
        hp_trace_ix_.pmap = (uint32_t *)hp_trace_ix_.pmap_vec.base;
        memset(hp_trace_ix_.pmap, 0, span * sizeof(uint32_t));
        hp_trace_ix_.pmap_lo = span_lo;
        hp_trace_ix_.pmap_n = span;
        begun_mapped++;
    }
    begun++;
    /* Else hashed: at most one page per record; sized for the pages seen
     * last time. */
    if (!hp_trace_ix_.pmap_n) {
        uint64_t want = 1024;
        while (want < 2 * (hp_trace_ix_.pages_used + 64) && want < 2 * (uint64_t)nrecs + 1024)
            want *= 2;
        if (want < 2 * (hp_trace_ix_.pages_used + 64)) want = 2 * (hp_trace_ix_.pages_used + 64);
        uint64_t p2 = 1024;
        while (p2 < want) p2 *= 2;
        if (hp_vec_ensure(&hp_trace_ix_.page_vec, p2 * sizeof(hp_page)) != 0) {
            failed = 1;
            return -1;
        }
        hp_trace_ix_.pages = (hp_page *)hp_trace_ix_.page_vec.base;
        hp_trace_ix_.page_cap = p2;
        memset(hp_trace_ix_.pages, 0, p2 * sizeof(hp_page));
    }
    hp_trace_last_page = NULL;
    hp_trace_ix_.pages_used = 0;
    hp_trace_ix_.slots_used = 0;
    memset(hp_trace_outside, 0, sizeof hp_trace_outside);
    /* A base may appear twice (freed, then handed out again, maybe at
     * another size): the later record is the newer object. Records come in
     * allocation order, from a few pages in turn (a program that makes
     * objects of several sizes in turn moves between as many pages at
     * every record): the entries of the last pages seen are kept,
     * direct-mapped, in front of the page table. */
    hp_page *recent[64] = {0};
    /* A record the program resized in place since the last sweep (a
     * GC_realloc that grew it) scans at its new size (the sweep would
     * apply the resize only after this collection); one it freed is not
     * indexed (its block may be part of another object by now). */
    int frees = hp_shadow_has_frees();
    hp_trace_ix_.nuncoll = 0;
    if (hp_trace_ix_.pmap_n) {
        if (build_mapped() != 0) {
            failed = 1;
            return -1;
        }
        return 0;
    }
    for (size_t i = 0; i < nrecs; i++) {
        if (frees && hp_shadow_freed_at(&recs[i], i)) continue;
        if (hp_rec_uncollectable(&recs[i])) {
            size_t k = hp_trace_ix_.nuncoll;
            if ((k + 1) * sizeof(uint32_t) > hp_trace_ix_.uncoll_vec.committed &&
                hp_vec_ensure(&hp_trace_ix_.uncoll_vec, (k + 1) * sizeof(uint32_t)) != 0) {
                failed = 1;
                return -1;
            }
            hp_trace_ix_.uncoll = (uint32_t *)hp_trace_ix_.uncoll_vec.base;
            hp_trace_ix_.uncoll[hp_trace_ix_.nuncoll++] = (uint32_t)i;
        }
        if ((hp_trace_ix_.pages_used + 1) * 2 > hp_trace_ix_.page_cap) {
            /* Grow the page table: rehash into a bigger one. */
            uint64_t oldcap = hp_trace_ix_.page_cap;
            hp_page *old = hp_trace_ix_.pages;
            if (hp_vec_ensure(&hp_trace_ix_.page_vec, oldcap * 3 * sizeof(hp_page)) != 0) {
                failed = 1;
                return -1;
            }
            hp_trace_ix_.pages = (hp_page *)hp_trace_ix_.page_vec.base;
            memmove(hp_trace_ix_.pages + oldcap * 2, hp_trace_ix_.pages, oldcap * sizeof(hp_page));
            old = hp_trace_ix_.pages + oldcap * 2;
            memset(hp_trace_ix_.pages, 0, oldcap * 2 * sizeof(hp_page));
            hp_trace_ix_.page_cap = oldcap * 2;
            for (uint64_t k = 0; k < oldcap; k++) {
                if (!old[k].page) continue;
                uint64_t mask = hp_trace_ix_.page_cap - 1;
                uint64_t j = hp_trace_page_slot(old[k].page) & mask;
                while (hp_trace_ix_.pages[j].page) j = (j + 1) & mask;
                hp_trace_ix_.pages[j] = old[k];
            }
            memset(old, 0, oldcap * sizeof(hp_page));
            memset(recent, 0, sizeof recent);
        }
        const hp_rec *r = &recs[i];
        __builtin_prefetch(r + 32);
        hp_page **rp = &recent[(r->base >> 12) & 63];
        hp_page *p = (*rp && (*rp)->page == r->base >> 12 && (*rp)->size == r->granted &&
                      (*rp)->kind == r->kind)
                         ? *rp : hp_trace_page_for(r->base >> 12, r->granted, r->kind);
        *rp = p;
        if (!p) {
            failed = 1;
            return -1;
        }
        if (hp_rec_uncollectable(r)) p->flags |= HP_PAGE_UNCOLL;
        uint32_t off = (uint32_t)(r->base & 4095);
        uint32_t k = p->inv ? (uint32_t)(((uint64_t)off * p->inv) >> 32) : 0;
        if (k < p->nslots)
            hp_trace_ix_.slots[p->slot_off + k] = (uint32_t)i;
    }
    return 0;
}

static void push(uintptr_t lo, uintptr_t hi, const unsigned char *copy, int interior,
                 uint64_t payload)
{
    if (depth == stack_cap) {
        /* (from 1,024 entries: a depth-first walk's stack holds a range
         * per level of what it walks, and 65,536 of 40 bytes were 2.5 MB
         * committed at the first census of every run) */
        uint64_t want = stack_cap ? stack_cap * 2 : 1024;
        if (hp_vec_ensure(&hp_trace_ix_.stack_vec, want * sizeof(hp_titem)) != 0) {
            failed = 1;
            return;
        }
        stack = (hp_titem *)hp_trace_ix_.stack_vec.base;
        stack_cap = want;
    }
    stack[depth++] = (hp_titem){lo, hi, copy, payload, interior};
}

/* Reach tracked record `idx`, or untracked entry `e`, with a payload. */
static void reach(uint32_t idx, hp_tentry *e, uint64_t payload)
{
    st.visits++;
    uint32_t label;
    int valid;
    const hp_rec *rec = NULL;
    uintptr_t size;
    int scan;
    if (idx != HP_NO_RECORD) {
        hp_rec *r = &recs[idx];
        rec = r;
        valid = hp_trace_valid(r->word, parity);
        /* No mark check: whatever the traversal reaches from the roots the
         * collector marked too (same roots, same conservative rule). */
        if (!valid) st.objects++;
        label = r->word & HP_TRACE_LABEL_MASK;
        size = r->granted;
        scan = hp_trace_rec_scanned(r);
        uint64_t out;
        int go = visit(&label, valid, rec, payload, &out);
        r->word = parity | HP_TRACE_SET_BIT | (label & HP_TRACE_LABEL_MASK);
        if (go && scan) {
            rescanned(valid);
            if (!merge) push(r->base, r->base + size, NULL, all_interior, out);
            else {
                if (!pending[idx]) enqueue(idx);
                pending[idx] |= out;
            }
        }
        return;
    }
    valid = (e->label & HP_TRACE_SET_BIT) != 0;
    label = e->label & HP_TRACE_LABEL_MASK;
    uint64_t out;
    int go = visit(&label, valid, NULL, payload, &out);
    e->label = HP_TRACE_SET_BIT | (label & HP_TRACE_LABEL_MASK);
    /* An untracked object's kind lives in the low bit of its size. */
    scan = !(e->size & 1);
    if (go && scan) {
        rescanned(valid);
        if (!merge) push(e->base, e->base + (e->size & ~(uintptr_t)1), NULL, all_interior, out);
        else {
            if (!e->pending) enqueue(HP_Q_UNTRACKED | e->base);
            e->pending |= out;
        }
    }
}

/* The object `v` points into: a tracked record (its slot's word: its
 * index, or during the component walk HP_SLOT_FOUND | its dense id, the
 * slot in *slotp) or an untracked live object (*untracked), or neither. */
static inline uint32_t target_of(uintptr_t v, int interior, hp_tentry **untracked,
                                 hp_slot **slotp)
{
    *untracked = NULL;
    *slotp = hp_trace_slot_at(v);
    uint32_t idx = *slotp ? **slotp : HP_NO_RECORD;
    if (idx != HP_NO_RECORD) return idx;
    /* Inside a tracked object of a small-object page (a tagged or interior
     * pointer: ECL's conses are object + 1): the page index knows its
     * start, without asking the collector. (A found one's slot is its
     * record's: the page's entry was made for its size.) */
    uintptr_t in_base;
    idx = hp_trace_record_containing(v, &in_base);
    if (idx != HP_NO_RECORD &&
        (idx >= HP_SLOT_FOUND ||
         (idx < nrecs && recs[idx].base == in_base && v < in_base + recs[idx].granted))) {
        if (!interior && !hp_rootrec_displaced(v - in_base)) return HP_NO_RECORD;
        *slotp = hp_trace_slot_at(in_base);
        return idx;
    }
    if (hp_trace_known_outside(v)) return HP_NO_RECORD;
    void *b = hp_real.GC_base((void *)v);
    if (!b) {
        if (hp_real.GC_is_heap_ptr && !hp_real.GC_is_heap_ptr((void *)v)) hp_trace_note_outside(v);
        return HP_NO_RECORD;
    }
    uintptr_t base = (uintptr_t)b;
    if (base != v && !interior && !hp_rootrec_displaced(v - base)) return HP_NO_RECORD;
    if (base != v && (*slotp = hp_trace_slot_at(base)) && (idx = **slotp) != HP_NO_RECORD)
        return idx;
    *slotp = NULL;
    hp_tentry *e = hp_trace_lookup(base);
    if (e) {
        *untracked = e;
        return HP_NO_RECORD;
    }
    /* An object heapprof does not track: the collector's own, a free slot
     * reached conservatively, or one allocated before heapprof attached. */
    if (!hp_real.GC_is_marked(b)) return HP_NO_RECORD;
    if (hp_trace_ix_.used + 1 > hp_trace_ix_.cap / 2 && hp_trace_index_reserve(hp_trace_ix_.used + 1) != 0) {
        failed = 1;
        return HP_NO_RECORD;
    }
    size_t size = 0;
    int kind = hp_real.GC_get_kind_and_size(b, &size);
    e = hp_trace_insert(base);
    e->label = 0;
    e->pending = 0;
    e->size = (size & ~(size_t)1) |
              (hp_trace_kind_scanned(kind) ? 0 : 1);
    st.untracked++;
    st.objects++;
    *untracked = e;
    return HP_NO_RECORD;
}

uint32_t hp_trace_target(uintptr_t v, int interior, hp_tentry **untracked, uint32_t **slot)
{
    return target_of(v, interior, untracked, slot);
}


/* Reach the oldest waiting edge; 0 when none waits. */
static int reach_next(void)
{
    if (!reachq_n) return 0;
    hp_treach q = reachq[reachq_head];
    reachq_head = (reachq_head + 1) % HP_REACHQ;
    reachq_n--;
    reach(q.idx, NULL, q.payload);
    return 1;
}

/* Reach tracked record idx once its record has had time to arrive. */
static inline void reach_later(uint32_t idx, uint64_t payload)
{
    __builtin_prefetch(&recs[idx], 1);
    if (reachq_n == HP_REACHQ) reach_next();
    reachq[(reachq_head + reachq_n) % HP_REACHQ] = (hp_treach){idx, 0, payload};
    reachq_n++;
}

/* Note [Wide objects a piece at a time]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The depth-first walk pushes every object an object points to before it
 * walks any of them, so a wide object (a hash table's vector of 200,000
 * buckets) put all its children on the stack at once: ECL's hash workload
 * under mode retainer held a stack of 12.6 MB (40 bytes an item). A range
 * without a copy (an object from the stack, or a root range: root_range in
 * hp_retainer_sigsafe.c walks its rest right after; never a copied range,
 * whose copy may not outlive its scan) is scanned HP_SCAN_PIECE words at a
 * time: the rest of
 * it goes back on the stack first, under the children this piece found,
 * which are walked before it goes on (as the collector's mark stack does
 * with large objects). The stack then holds a piece's children for each
 * level of the walk. Labels do not depend on the order of the walk (a set
 * is the union of what reaches it). */
#define HP_SCAN_PIECE 128

static void scan(const hp_titem *it)
{
    uintptr_t lo = (it->lo + 7) & ~(uintptr_t)7;
    const unsigned char *src = it->copy ? it->copy + (lo - it->lo) : (const unsigned char *)lo;
    size_t n = it->hi > lo ? (it->hi - lo) / 8 : 0;
    if (n > HP_SCAN_PIECE && !it->copy && !merge) {
        push(lo + HP_SCAN_PIECE * 8, it->hi, NULL, it->interior, it->payload);
        n = HP_SCAN_PIECE;
    }
    const uintptr_t *w = (const uintptr_t *)src;
    st.words += n;
    for (size_t k = 0; k < n && !failed; k++) {
        uintptr_t v = w[k];
        if (!hp_trace_in_heap(v)) continue;
        hp_tentry *e;
        hp_slot *sl;
        uint32_t idx = target_of(v, it->interior, &e, &sl);
        if (idx != HP_NO_RECORD) reach_later(idx, it->payload);
        else if (e) reach(idx, e, it->payload);   /* untracked: e may move, reach now */
    }
}

void hp_trace_range(uintptr_t lo, uintptr_t hi, const void *copy, int interior,
                    uint64_t payload)
{
    if (failed || !hp_trace_ix_.table) return;
    hp_titem it = {lo, hi, copy, payload, interior};
    scan(&it);
}

int hp_trace_object(uintptr_t base, uint64_t payload)
{
    if (failed || !hp_trace_ix_.table) return -1;
    hp_tentry *e;
    hp_slot *sl;
    uint32_t idx = target_of(base, 0, &e, &sl);
    if (idx == HP_NO_RECORD && !e) return -1;
    reach(idx, e, payload);
    return 0;
}

void hp_trace_run(void)
{
    while (!failed) {
        if (depth > 0 && objq_n < HP_OBJQ) {
            /* Into the object queue, its words on their way. */
            hp_titem *it = &objq[(objq_head + objq_n) % HP_OBJQ];
            *it = stack[--depth];
            __builtin_prefetch((const void *)it->lo);
            if (it->hi - it->lo > 64) __builtin_prefetch((const void *)(it->lo + 64));
            objq_n++;
        } else if (objq_n > 0) {
            hp_titem it = objq[objq_head];
            objq_head = (objq_head + 1) % HP_OBJQ;
            objq_n--;
            scan(&it);
        } else if (!reach_next()) {
            break;
        }
    }
    while ((q_head < q_tail || reachq_n > 0) && !failed) {
        if (q_head == q_tail) {
            reach_next();
            continue;
        }
        /* The record 16 items ahead, the words of the one 8 ahead, are
         * on their way. */
        if (q_head + 16 < q_tail && !(queue[q_head + 16] & HP_Q_UNTRACKED))
            __builtin_prefetch(&recs[queue[q_head + 16]]);
        if (q_head + 8 < q_tail && !(queue[q_head + 8] & HP_Q_UNTRACKED)) {
            const hp_rec *ahead = &recs[queue[q_head + 8]];
            __builtin_prefetch((const void *)ahead->base);
        }
        uint64_t ref = queue[q_head++];
        hp_titem it = {0, 0, NULL, 0, all_interior};
        if (ref & HP_Q_UNTRACKED) {
            hp_tentry *e = hp_trace_lookup((uintptr_t)(ref & ~HP_Q_UNTRACKED));
            if (!e) continue;
            it.lo = e->base;
            it.hi = e->base + (e->size & ~(uintptr_t)1);
            it.payload = e->pending;
            e->pending = 0;
        } else {
            const hp_rec *r = &recs[ref];
            it.lo = r->base;
            it.hi = r->base + r->granted;
            it.payload = pending[ref];
            pending[ref] = 0;
        }
        if (it.payload) scan(&it);
        if (q_head == q_tail) q_head = q_tail = 0;
    }
}

int hp_trace_again(hp_trace_visit_fn fn)
{
    if (!recs && nrecs) return -1;
    walk_reset(fn);
    return 0;
}

hp_trace_stats hp_trace_end(size_t *indexed)
{
    *indexed = nrecs;
    depth = 0;
    rescan_cap = 0;   /* (for the next walk only if set again) */
    return st;
}
/* ---- end of world-stopped code ---- */
