/* hp_trace_index_sigsafe: building the traversal's indexes (see
 * hp_trace_index.h). World-stopped code: no lock, no allocation but the
 * profiler's own reserved memory. */
#include "retainer/hp_trace_index.h"

#include <string.h>

hp_trace_index hp_trace_ix_;
hp_page *hp_trace_last_page __attribute__((aligned(64)));
uintptr_t hp_trace_outside[HP_TRACE_OUTSIDE];

hp_tentry *hp_trace_insert(uintptr_t base)
{
    uint64_t mask = hp_trace_ix_.cap - 1;
    for (uint64_t j = hp_trace_slot_of(base) & mask;; j = (j + 1) & mask) {
        hp_tentry *e = &hp_trace_ix_.table[j];
        if (e->base == base) return e;
        if (!e->base) {
            e->base = base;
            hp_trace_ix_.used++;
            return e;
        }
    }
}

/* While two threads build the index (hp_trace_ix_.build_shared: each the
 * pages of one parity, hp_trace_begin), what they share -- the count of
 * page entries, the slots handed out, the vectors' growth -- is taken
 * under this spin lock; a page's map word, entry and slots are written by
 * the thread that owns the page alone. */
static int build_lock;

static inline void build_enter(void)
{
    if (!hp_trace_ix_.build_shared) return;
    while (__atomic_exchange_n(&build_lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&build_lock, __ATOMIC_RELAXED)) __builtin_ia32_pause();
}

static inline void build_leave(void)
{
    if (hp_trace_ix_.build_shared) __atomic_store_n(&build_lock, 0, __ATOMIC_RELEASE);
}

/* `words` slots handed out: the first's index, or UINT64_MAX when out of
 * memory. */
static uint64_t take_slots(uint64_t words)
{
    if (hp_trace_ix_.slots_used + words > hp_trace_ix_.slots_cap) {
        /* By a quarter, as the other arrays sized by the heap
         * (hp_trace_init.c): doubling left up to half committed and
         * unused (trees.c depth 18: 8 MB of slots for 5 MB used). */
        uint64_t want = hp_trace_ix_.slots_cap ? hp_trace_ix_.slots_cap + hp_trace_ix_.slots_cap / 4
                                               : (uint64_t)1 << 16;
        while (want < hp_trace_ix_.slots_used + words) want += want / 4;
        if (hp_vec_ensure(&hp_trace_ix_.slot_vec, want * sizeof(hp_slot)) != 0) return UINT64_MAX;
        hp_trace_ix_.slots = (hp_slot *)hp_trace_ix_.slot_vec.base;
        hp_trace_ix_.slots_cap = want;
    }
    uint64_t off = hp_trace_ix_.slots_used;
    hp_trace_ix_.slots_used += words;
    return off;
}

hp_page *hp_trace_page_for(uintptr_t page, uint32_t size, uint8_t kind)
{
    hp_page *p;
    uint32_t n = size >= 4096 || size == 0 ? 1 : 4096 / size;
    uint64_t words = n;
    uint64_t off;
    if (hp_trace_ix_.pmap_n) {
        /* (the caller keeps to the map's pages: hp_trace_begin) */
        uint32_t *m = &hp_trace_ix_.pmap[page - hp_trace_ix_.pmap_lo];
        p = *m ? &hp_trace_ix_.pages[*m - 1] : NULL;
        if (p && p->size == size && p->kind == kind) return p;
        build_enter();
        if (!p) {
            uint64_t e = hp_trace_ix_.pages_used + 1;
            if (e * sizeof(hp_page) > hp_trace_ix_.page_vec.committed &&
                hp_vec_ensure(&hp_trace_ix_.page_vec, e * sizeof(hp_page)) != 0) {
                build_leave();
                return NULL;
            }
            hp_trace_ix_.pages = (hp_page *)hp_trace_ix_.page_vec.base;
            hp_trace_ix_.pages_used = e;
            p = &hp_trace_ix_.pages[e - 1];
            *m = (uint32_t)e;
        }
        off = take_slots(words);
        build_leave();
    } else {
        uint64_t mask = hp_trace_ix_.page_cap - 1;
        for (uint64_t j = hp_trace_page_slot(page) & mask;; j = (j + 1) & mask) {
            p = &hp_trace_ix_.pages[j];
            if (p->page == page || !p->page) break;
        }
        if (p->page == page && p->size == size && p->kind == kind) return p;
        if (!p->page) hp_trace_ix_.pages_used++;
        off = take_slots(words);
    }
    if (off == UINT64_MAX) return NULL;
    p->page = page;
    p->size = size;
    p->inv = size >= 4096 || size == 0 ? 0 : (uint32_t)((((uint64_t)1 << 32) + size - 1) / size);
    p->slot_off = (uint32_t)off;
    p->nslots = (uint16_t)n;
    p->kind = kind;
    p->flags = 0;
    memset(&hp_trace_ix_.slots[off], 0xff, words * sizeof(hp_slot));
    return p;
}


int hp_trace_index_reserve(uint64_t n)
{
    uint64_t want = 64;
    while (want < n * 2) want *= 2;
    if (want <= hp_trace_ix_.cap) return 0;
    int next = hp_trace_ix_.cur_index ^ 1;
    if (hp_vec_ensure(&hp_trace_ix_.index_vec[next], want * sizeof(hp_tentry)) != 0) return -1;
    hp_tentry *fresh = (hp_tentry *)hp_trace_ix_.index_vec[next].base;
    memset(fresh, 0, want * sizeof(hp_tentry));
    hp_tentry *old = hp_trace_ix_.table;
    uint64_t oldcap = hp_trace_ix_.cap;
    hp_trace_ix_.table = fresh;
    hp_trace_ix_.cap = want;
    hp_trace_ix_.used = 0;
    hp_trace_ix_.cur_index = next;
    for (uint64_t i = 0; i < oldcap; i++)
        if (old[i].base) *hp_trace_insert(old[i].base) = old[i];
    return 0;
}

