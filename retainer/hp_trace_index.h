/* hp_trace_index: the traversal's indexes (level 3, shared by the files
 * of hp_trace only): the page index of tracked objects and the hash of
 * objects heapprof does not track, rebuilt at each traversal, with their
 * lookups inline (the walk's hot path); and the memory the traversal
 * reserves at start-up (hp_trace.c). World-stopped code: no lock, no
 * allocation. */
#ifndef HP_TRACE_INDEX_H
#define HP_TRACE_INDEX_H
#include <stdint.h>

#include "core/hp_hash.h"
#include "core/hp_mem.h"

/* The index of tracked objects, rebuilt at each traversal: a table of
 * heap pages (a heap block of bdwgc is one 4 KiB page holding objects of
 * one size), each with an array of slots (one per object position) giving
 * the record index. Objects allocated together sit on the same page, so a
 * walk of a structure mostly stays on one page entry and one slot array:
 * far fewer cache misses than a hash of every object. */
typedef struct hp_page {
    uintptr_t page;       /* address >> 12; 0 = empty */
    uint32_t size;        /* object size on this page (granted bytes) */
    uint32_t inv;         /* 2^32 / size, rounded up: slot = off * inv >> 32 */
    uint32_t slot_off;    /* first slot in slot_vec (a word's index) */
    uint16_t nslots;      /* (at most 4096 / 16) */
    uint8_t kind;         /* the collector's kind of its objects (a block has one) */
    uint8_t flags;        /* HP_PAGE_UNCOLL */
} hp_page;
/* hp_page.flags: a record indexed on the page was allocated uncollectable
 * (the walk then asks its record whether it is a retainer). */
#define HP_PAGE_UNCOLL 1
#define HP_NO_RECORD UINT32_MAX

/* A slot: the record of the object at that position (HP_NO_RECORD: none);
 * for the component walk, once the walk has found it, HP_SLOT_FOUND | its
 * dense id instead (hp_trace_scc_sigsafe.c, Note [One word a slot]). */
typedef uint32_t hp_slot;
#define HP_SLOT_FOUND 0x80000000u

/* Objects heapprof does not track: base -> their own label, open
 * addressing, rebuilt at each traversal. */
typedef struct hp_tentry hp_tentry;
struct hp_tentry {
    uintptr_t base;       /* 0: empty */
    uint32_t label;       /* untracked: label | HP_TRACE_SET_BIT when set */
    uintptr_t size;       /* untracked: bytes (GC_size) */
    uint64_t pending;     /* merge mode: payload not yet passed on; component
                             walk: node id + 1 */
};

typedef struct hp_trace_index {
    hp_vec page_vec, slot_vec, uncoll_vec, uncoll2_vec, uncoll_set_vec, pmap_vec;
    uint32_t *uncoll;                /* hp_trace_uncollectables */
    size_t nuncoll;
    hp_page *pages;
    uint64_t page_cap, pages_used;
    /* Note [The page map]: when the heap's span allows, the page entries
     * are not hashed but kept in `pages` in the order made, and
     * pmap[page - pmap_lo] is the entry's index + 1 (0: none). */
    uint32_t *pmap;
    uintptr_t pmap_lo;
    uint64_t pmap_n;                 /* 0: the hash table (pages) instead */
    int build_shared;                /* two threads build it (hp_trace_page_for) */
    hp_slot *slots;
    uint64_t slots_used, slots_cap;  /* in words (4 bytes) */
    hp_vec index_vec[2];
    int cur_index;
    hp_tentry *table;
    uint64_t cap, used;          /* entries; cap is a power of two */
    /* Reserved by hp_trace_init for the walk (hp_trace_sigsafe.c). */
    hp_vec stack_vec, pending_vec, queue_vec;
    /* The component walk's (hp_trace_scc_sigsafe.c). */
    hp_vec scc_node_vec, scc_ubase_vec, scc_inject_vec, scc_frame_vec, scc_tstack_vec,
        scc_start_vec, scc_order_vec, scc_set_vec, scc_edge_vec, scc_seen_vec, scc_scanq_vec, scc_rix_vec,
        scc_dmap_vec, scc_dnode_vec, scc_head_vec, scc_shared_vec, scc_shared2_vec, scc_rcount_vec, scc_redge_vec,
        scc_pair_vec, scc_pair2_vec, scc_edge2_vec, scc_scanq2_vec, scc_inject2_vec, scc_scanned_vec,
        scc_pool_vec;
    void **least_p, **greatest_p;   /* the collector's plausible heap bounds */
    uintptr_t least, greatest;      /* their values at hp_trace_begin */
} hp_trace_index;
extern hp_trace_index hp_trace_ix_;
/* The page of the last lookup (of the walk's main thread; on a cache line
 * of its own, away from the index's fields every lookup reads). */
extern hp_page *hp_trace_last_page;

static inline uint64_t hp_trace_slot_of(uintptr_t base) { return hp_mix64(base >> 4); }

static inline hp_tentry *hp_trace_lookup(uintptr_t base)
{
    uint64_t mask = hp_trace_ix_.cap - 1;
    for (uint64_t j = hp_trace_slot_of(base) & mask;; j = (j + 1) & mask) {
        hp_tentry *e = &hp_trace_ix_.table[j];
        if (e->base == base) return e;
        if (!e->base) return NULL;
    }
}

static inline uint64_t hp_trace_page_slot(uintptr_t page) { return hp_mix64(page); }

/* Note [The page map]
 * ~~~~~~~~~~~~~~~~~~~~~
 * A walk looks up the page entry of nearly every word it reads. Hashed,
 * each lookup lands on a random line of a table of some hundreds of
 * kilobytes (Guile's hash table: 18% of the scan's samples on the load of
 * the entry). By page number, over the collector's heap span [least,
 * greatest), the lookup is a load from an array of 4 bytes a page, near
 * the last one (a structure's objects point at pages near their own),
 * then the entry, in an array of the pages indexed in the order they were
 * made (a structure's pages were made together): bench_census's million
 * objects, 32.0 -> 29.8 ms a traversal (median of 6 interleaved runs;
 * the entries themselves by page number, 24 bytes a page of the span,
 * were no faster). The span holds more pages than the heap's tracked
 * objects do (Guile's hash table 40,000 against 8,000, Inkscape's 32,000
 * against 2,400; a program that grows its heap ahead, as the tests do,
 * more), so the map is used when the span is at most 64 times the pages
 * indexed last time (and a little): then it takes at most 256 bytes a
 * page indexed, where the hash table takes 48 and the slots 256 or more
 * (a few bytes an object); and at most HP_TRACE_PMAP_MAX pages (16 MB).
 * A heap whose sections lie far apart keeps the hash table. */
#define HP_TRACE_PMAP_MAX ((uint64_t)1 << 22)

static inline hp_page *hp_trace_page_find(uintptr_t page)
{
    if (hp_trace_ix_.pmap_n) {
        uint64_t k = page - hp_trace_ix_.pmap_lo;
        if (k >= hp_trace_ix_.pmap_n) return NULL;
        uint32_t i = hp_trace_ix_.pmap[k];
        return i ? &hp_trace_ix_.pages[i - 1] : NULL;
    }
    uint64_t mask = hp_trace_ix_.page_cap - 1;
    for (uint64_t j = hp_trace_page_slot(page) & mask;; j = (j + 1) & mask) {
        hp_page *p = &hp_trace_ix_.pages[j];
        if (p->page == page) return p;
        if (!p->page) return NULL;
    }
}

/* Pages known to lie outside the collector's heap, by page number,
 * direct-mapped, cleared at each traversal (hp_trace_begin): a word that
 * points between the heap's sections (a runtime's static data, malloc'd
 * memory) is answered without the collector after the first on its page
 * (Guile's roots: 34,000 such words a census, a millisecond of GC_base
 * calls). A page is outside when GC_is_heap_ptr says so, which holds for
 * the whole of it (the collector's block size is the page). Walkers may
 * note one at the same time: each entry is one word. */
#define HP_TRACE_OUTSIDE 1024
extern uintptr_t hp_trace_outside[HP_TRACE_OUTSIDE];

static inline int hp_trace_known_outside(uintptr_t v)
{
    uintptr_t page = v >> 12;
    return __atomic_load_n(&hp_trace_outside[page & (HP_TRACE_OUTSIDE - 1)], __ATOMIC_RELAXED) == page;
}

static inline void hp_trace_note_outside(uintptr_t v)
{
    uintptr_t page = v >> 12;
    __atomic_store_n(&hp_trace_outside[page & (HP_TRACE_OUTSIDE - 1)], page, __ATOMIC_RELAXED);
}

/* Could `v` point into the heap? (the collector's plausible bounds, read
 * at hp_trace_begin) */
static inline int hp_trace_in_heap(uintptr_t v)
{
    return v >= hp_trace_ix_.least && v < hp_trace_ix_.greatest;
}

/* The slot of an object starting exactly at `v`, on its page's entry
 * `p`, or NULL (its rec may still be HP_NO_RECORD). */
static inline hp_slot *hp_trace_slot_on(const hp_page *p, uintptr_t v)
{
    uint32_t off = (uint32_t)(v & 4095);
    uint32_t k = p->inv ? (uint32_t)(((uint64_t)off * p->inv) >> 32) : 0;
    if (k >= p->nslots || (uintptr_t)k * p->size != off) return NULL;
    return &hp_trace_ix_.slots[p->slot_off + k];
}

/* The record of the tracked object starting exactly at `v`, on its page's
 * entry `p`, or HP_NO_RECORD. */
static inline uint32_t hp_trace_record_on(const hp_page *p, uintptr_t v)
{
    const hp_slot *s = hp_trace_slot_on(p, v);
    return s ? *s : HP_NO_RECORD;
}

/* The slot of an object starting exactly at `base`, or NULL. */
static inline hp_slot *hp_trace_slot_at(uintptr_t base)
{
    hp_page *p = hp_trace_last_page;
    if (!p || p->page != base >> 12) {
        p = hp_trace_page_find(base >> 12);
        if (p) hp_trace_last_page = p;
    }
    return p ? hp_trace_slot_on(p, base) : NULL;
}

/* The record of the tracked object starting exactly at `base`, or
 * HP_NO_RECORD. */
static inline uint32_t hp_trace_record_at(uintptr_t base)
{
    const hp_slot *s = hp_trace_slot_at(base);
    return s ? *s : HP_NO_RECORD;
}

/* Ask for the index slot of what `v` would point at, ahead of
 * hp_trace_record_on(): the page entry is looked up (the page table is
 * small), the slot, a likely cache miss, only prefetched. Returns the page
 * entry, or NULL when v's page holds no tracked object. */
static inline hp_page *hp_trace_prefetch_slot_c(uintptr_t v, hp_page **last)
{
    hp_page *p = *last;
    if (!p || p->page != v >> 12) {
        if (hp_trace_known_outside(v)) return NULL;
        p = hp_trace_page_find(v >> 12);
        if (!p) return NULL;
        *last = p;
    }
    uint32_t k = p->inv ? (uint32_t)(((uint64_t)(v & 4095) * p->inv) >> 32) : 0;
    if (k < p->nslots)
        __builtin_prefetch(&hp_trace_ix_.slots[p->slot_off + k]);
    return p;
}

/* The record of the tracked object of a small-object page that contains
 * `v` (at any offset), its start in *base; HP_NO_RECORD when the page is
 * not indexed or that slot holds no record. */
static inline uint32_t hp_trace_record_containing(uintptr_t v, uintptr_t *base)
{
    hp_page *p = hp_trace_last_page;
    if (!p || p->page != v >> 12) {
        p = hp_trace_page_find(v >> 12);
        if (p) hp_trace_last_page = p;
    }
    if (!p || !p->inv) return HP_NO_RECORD;
    uint32_t off = (uint32_t)(v & 4095);
    uint32_t k = (uint32_t)(((uint64_t)off * p->inv) >> 32);
    if (k >= p->nslots) return HP_NO_RECORD;
    *base = (v & ~(uintptr_t)4095) + (uintptr_t)k * p->size;
    return hp_trace_ix_.slots[p->slot_off + k];
}

/* Make or find the entry of an untracked object (room reserved). */
hp_tentry *hp_trace_insert(uintptr_t base);
/* Size the untracked index for `n` entries (rehashing what is there): 0,
 * or -1 when out of memory. */
int hp_trace_index_reserve(uint64_t n);
/* The page entry for `page` holding objects of `size` and `kind`, made
 * (or remade when the block was reused for another size or kind: the
 * records of the old ones are stale) as needed; NULL when out of memory. */
hp_page *hp_trace_page_for(uintptr_t page, uint32_t size, uint8_t kind);

#endif
