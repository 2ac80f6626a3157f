/* hp_trace: the shared heap traversal (see hp_trace.h).
 *
 * ---- Everything after hp_trace_init runs at MARK_END with the collector's
 * lock held and the world stopped: no lock, no malloc, no GC allocation;
 * only GC_base, GC_is_marked and GC_get_kind_and_size, which read the
 * collector's block headers. ---- */
#include "hp_trace.h"
#include "../preload/hp_mem.h"
#include "../preload/hp_real.h"

#include <dlfcn.h>
#include <string.h>

#define HP_KIND_PTRFREE 0          /* bdwgc's PTRFREE */
#define HP_KIND_AUNCOLLECTABLE 3   /* bdwgc's AUNCOLLECTABLE */
#define HP_UNTRACKED UINT32_MAX

/* The index: object base -> its record (or an untracked object's own
 * label), open addressing, rebuilt at each traversal. */
typedef struct hp_tentry {
    uintptr_t base;       /* 0: empty */
    uint32_t idx;         /* record index, or HP_UNTRACKED */
    uint32_t label;       /* untracked: label | HP_TRACE_SET_BIT when set */
    uintptr_t size;       /* untracked: bytes (GC_size) */
} hp_tentry;

typedef struct hp_titem { uintptr_t lo, hi; const unsigned char *copy; uint64_t payload; int interior; } hp_titem;

static hp_vec index_vec[2], stack_vec;
static int cur_index;
static hp_tentry *table;
static uint64_t cap, used;          /* entries; cap is a power of two */
static hp_titem *stack;
static uint64_t depth, stack_cap;
static hp_rec *recs;
static size_t nrecs;
static uint32_t parity;             /* HP_TRACE_PARITY_BIT or 0 */
static uintptr_t least, greatest;   /* the collector's plausible heap bounds */
static void **least_p, **greatest_p;
static int all_interior;
static hp_trace_visit_fn visit;
static hp_trace_stats st;
static int failed;

int hp_trace_init(void)
{
    if (hp_vec_reserve(&index_vec[0], (size_t)1 << 36) != 0 ||
        hp_vec_reserve(&index_vec[1], (size_t)1 << 36) != 0 ||
        hp_vec_reserve(&stack_vec, (size_t)1 << 36) != 0)
        return -1;
    /* RTLD_DEFAULT first: a program that names these variables (gc_mark.h's
     * macros do) has them copy-relocated into itself, and that copy is the
     * one the collector updates; RTLD_NEXT would find libgc's unused one. */
    *(void **)&least_p = dlsym(RTLD_DEFAULT, "GC_least_plausible_heap_addr");
    *(void **)&greatest_p = dlsym(RTLD_DEFAULT, "GC_greatest_plausible_heap_addr");
    if (!least_p || !greatest_p) {
        *(void **)&least_p = dlsym(RTLD_NEXT, "GC_least_plausible_heap_addr");
        *(void **)&greatest_p = dlsym(RTLD_NEXT, "GC_greatest_plausible_heap_addr");
    }
    return 0;
}

uint32_t hp_trace_parity(void) { return parity; }

int hp_trace_plausible(uintptr_t v) { return v >= least && v < greatest; }

static inline uint64_t slot_of(uintptr_t base)
{
    uint64_t x = base >> 4;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static inline hp_tentry *lookup(uintptr_t base)
{
    uint64_t mask = cap - 1;
    for (uint64_t j = slot_of(base) & mask;; j = (j + 1) & mask) {
        hp_tentry *e = &table[j];
        if (e->base == base) return e;
        if (!e->base) return NULL;
    }
}

static hp_tentry *insert(uintptr_t base)
{
    uint64_t mask = cap - 1;
    for (uint64_t j = slot_of(base) & mask;; j = (j + 1) & mask) {
        hp_tentry *e = &table[j];
        if (e->base == base) return e;
        if (!e->base) {
            e->base = base;
            used++;
            return e;
        }
    }
}

/* Size the index for `n` entries (rehashing what is there). */
static int index_reserve(uint64_t n)
{
    uint64_t want = 1024;
    while (want < n * 2) want *= 2;
    if (want <= cap) return 0;
    int next = cur_index ^ 1;
    if (hp_vec_ensure(&index_vec[next], want * sizeof(hp_tentry)) != 0) return -1;
    hp_tentry *fresh = (hp_tentry *)index_vec[next].base;
    memset(fresh, 0, want * sizeof(hp_tentry));
    hp_tentry *old = table;
    uint64_t oldcap = cap;
    table = fresh;
    cap = want;
    used = 0;
    cur_index = next;
    for (uint64_t i = 0; i < oldcap; i++)
        if (old[i].base) *insert(old[i].base) = old[i];
    return 0;
}

int hp_trace_begin(hp_trace_visit_fn fn)
{
    visit = fn;
    memset(&st, 0, sizeof st);
    failed = 0;
    depth = 0;
    parity ^= HP_TRACE_PARITY_BIT;
    least = least_p ? (uintptr_t)*least_p : 0;
    greatest = greatest_p ? (uintptr_t)*greatest_p : UINTPTR_MAX;
    all_interior = hp_real.GC_get_all_interior_pointers
                       ? hp_real.GC_get_all_interior_pointers() : 1;
    recs = hp_shadow_table(&nrecs);
    cap = used = 0;
    table = NULL;
    if (index_reserve(nrecs + 4096) != 0) {
        failed = 1;
        return -1;
    }
    /* A base may appear twice (freed, then handed out again): the later
     * record is the newer object. */
    for (size_t i = 0; i < nrecs; i++) {
        hp_tentry *e = insert(recs[i].base);
        e->idx = (uint32_t)i;
    }
    return 0;
}

static void push(uintptr_t lo, uintptr_t hi, const unsigned char *copy, int interior,
                 uint64_t payload)
{
    if (depth == stack_cap) {
        uint64_t want = stack_cap ? stack_cap * 2 : 65536;
        if (hp_vec_ensure(&stack_vec, want * sizeof(hp_titem)) != 0) {
            failed = 1;
            return;
        }
        stack = (hp_titem *)stack_vec.base;
        stack_cap = want;
    }
    stack[depth++] = (hp_titem){lo, hi, copy, payload, interior};
}

/* Reach the object of entry e with a payload. */
static void reach(hp_tentry *e, uint64_t payload)
{
    st.visits++;
    uint32_t label;
    int valid;
    const hp_rec *rec = NULL;
    uintptr_t size;
    int scan;
    if (e->idx != HP_UNTRACKED) {
        hp_rec *r = &recs[e->idx];
        rec = r;
        valid = hp_trace_valid(r->word, parity);
        if (!valid) {
            /* First reached this traversal: is it live? (A record not yet
             * judged may name a slot the collector has reclaimed.) */
            if (!hp_real.GC_is_marked((void *)r->base)) return;
            st.objects++;
        }
        label = r->word & HP_TRACE_LABEL_MASK;
        size = r->granted;
        scan = r->kind != HP_KIND_PTRFREE && r->kind != HP_KIND_AUNCOLLECTABLE;
        uint64_t out;
        int go = visit(&label, valid, rec, payload, &out);
        r->word = parity | HP_TRACE_SET_BIT | (label & HP_TRACE_LABEL_MASK);
        if (go && scan) push(r->base, r->base + size, NULL, all_interior, out);
        return;
    }
    valid = (e->label & HP_TRACE_SET_BIT) != 0;
    label = e->label & HP_TRACE_LABEL_MASK;
    uint64_t out;
    int go = visit(&label, valid, NULL, payload, &out);
    e->label = HP_TRACE_SET_BIT | (label & HP_TRACE_LABEL_MASK);
    /* An untracked object's kind lives in the low bit of its size. */
    scan = !(e->size & 1);
    if (go && scan) push(e->base, e->base + (e->size & ~(uintptr_t)1), NULL, all_interior, out);
}

/* The entry of the live object `v` points into, or NULL. */
static hp_tentry *target_of(uintptr_t v, int interior)
{
    hp_tentry *e = lookup(v);
    if (e) return e;
    void *b = hp_real.GC_base((void *)v);
    if (!b) return NULL;
    uintptr_t base = (uintptr_t)b;
    if (base != v && !interior) return NULL;
    e = lookup(base);
    if (e) return e;
    /* An object heapprof does not track: the collector's own, a free slot
     * reached conservatively, or one allocated before heapprof attached. */
    if (!hp_real.GC_is_marked(b)) return NULL;
    if (used + 1 > cap / 2 && index_reserve(used + 1) != 0) {
        failed = 1;
        return NULL;
    }
    size_t size = 0;
    int kind = hp_real.GC_get_kind_and_size(b, &size);
    e = insert(base);
    e->idx = HP_UNTRACKED;
    e->label = 0;
    e->size = (size & ~(size_t)1) |
              (kind == HP_KIND_PTRFREE || kind == HP_KIND_AUNCOLLECTABLE ? 1 : 0);
    st.untracked++;
    st.objects++;
    return e;
}

static void scan(const hp_titem *it)
{
    uintptr_t lo = (it->lo + 7) & ~(uintptr_t)7;
    const unsigned char *src = it->copy ? it->copy + (lo - it->lo) : (const unsigned char *)lo;
    size_t n = it->hi > lo ? (it->hi - lo) / 8 : 0;
    const uintptr_t *w = (const uintptr_t *)src;
    st.words += n;
    for (size_t k = 0; k < n && !failed; k++) {
        uintptr_t v = w[k];
        if (v < least || v >= greatest) continue;
        hp_tentry *e = target_of(v, it->interior);
        if (e) reach(e, it->payload);
    }
}

void hp_trace_range(uintptr_t lo, uintptr_t hi, const void *copy, int interior,
                    uint64_t payload)
{
    if (failed || !table) return;
    hp_titem it = {lo, hi, copy, payload, interior};
    scan(&it);
}

int hp_trace_object(uintptr_t base, uint64_t payload)
{
    if (failed || !table) return -1;
    hp_tentry *e = target_of(base, 0);
    if (!e) return -1;
    reach(e, payload);
    return 0;
}

void hp_trace_run(void)
{
    while (depth > 0 && !failed) {
        hp_titem it = stack[--depth];
        scan(&it);
    }
}

hp_trace_stats hp_trace_end(size_t *indexed)
{
    *indexed = nrecs;
    depth = 0;
    return st;
}
/* ---- end of world-stopped code ---- */
