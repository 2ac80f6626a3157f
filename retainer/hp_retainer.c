/* hp_retainer: the retainer profile (see hp_retainer.h). */
#include "retainer/hp_retainer.h"
#include "retainer/hp_rootrec.h"
#include "retainer/hp_trace.h"
#include "core/hp_hash.h"
#include "core/hp_mem.h"
#include "core/hp_real.h"
#include "core/hp_rt.h"
#include "core/hp_stacks.h"
#include "core/hp_thread.h"
#include "core/hp_buf.h"
#include "hp_writer/hp_names.h"
#include "core/hp_symbols.h"

#include <string.h>

/* Retainer identities. */
enum { HP_RET_STATIC, HP_RET_STATIC_OFF, HP_RET_STACK, HP_RET_OTHER, HP_RET_CCS };

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

static hp_vec ident_vec;                   /* hp_ident[] */
static hp_idindex ident_index;
static uint32_t nidents;
static hp_vec set_words_vec;               /* per set: n, hash, members... */
static uint64_t set_words_used;
static hp_vec set_off_vec;                 /* uint64_t offset of set id */
static hp_idindex set_index;
static uint32_t nsets = 1;                 /* set 0 = MANY */
static hp_vec set_label_vec;               /* uint32_t label id + 1 per set */
static hp_vec set_bytes_vec;               /* uint64_t per set: this census */
static hp_vec set_seen_vec;                /* uint8_t per set: appeared in a census */
typedef struct { uint32_t set, ret, result, pad; } add_cache_entry;
static add_cache_entry add_cache[8192];
static hp_vec ccs_class_vec;               /* uint8_t per ccs: 0 unknown, 1 retainer, 2 not */
static uint32_t ccs_classified;
static hp_vec unreached_vec;               /* uint64_t bytes per ccs, this census */
static hp_vec touched_vec;                 /* uint32_t ccs ids with unreached bytes */
static uint32_t ntouched;
static hp_buf prof_lines, text;
static int bound = 8;
static int traversed;                      /* this census had a traversal */
static uint64_t mark_ns_last, trace_ns_last, mark_ns_total, trace_ns_total;
static hp_trace_stats tstats;
static size_t indexed;
static int ranges_overflowed;
static uint32_t parity;
static uint64_t attributed_bytes, attributed_objects, unreached_bytes, unreached_objects,
    new_bytes, new_objects;
static uint32_t sets_this_census;
static hp_vec rset_match_vec;              /* uint8_t per set: 0 unknown, 1 in, 2 out */
static uint64_t censuses_traced;
static uint32_t sets_sized;                /* per-set arrays hold this many sets */

int hp_retainer_init(void)
{
    bound = hp_rt.cfg.bound > 0 ? hp_rt.cfg.bound : 8;
    if (hp_vec_reserve(&ident_vec, (size_t)1 << 34) || hp_vec_reserve(&ident_index.vec, (size_t)1 << 32) ||
        hp_vec_reserve(&set_words_vec, (size_t)1 << 36) || hp_vec_reserve(&set_off_vec, (size_t)1 << 34) ||
        hp_vec_reserve(&set_index.vec, (size_t)1 << 32) || hp_vec_reserve(&set_label_vec, (size_t)1 << 32) ||
        hp_vec_reserve(&set_bytes_vec, (size_t)1 << 34) || hp_vec_reserve(&set_seen_vec, (size_t)1 << 32) ||
        hp_vec_reserve(&ccs_class_vec, (size_t)1 << 32) || hp_vec_reserve(&unreached_vec, (size_t)1 << 35) ||
        hp_vec_reserve(&touched_vec, (size_t)1 << 34) || hp_vec_reserve(&rset_match_vec, (size_t)1 << 32) ||
        hp_buf_init(&prof_lines, (size_t)1 << 32) || hp_buf_init(&text, (size_t)1 << 24))
        return -1;
    /* Set 0 is MANY: no members. */
    if (hp_vec_ensure(&set_off_vec, sizeof(uint64_t)) || hp_vec_ensure(&set_words_vec, 64))
        return -1;
    ((uint64_t *)set_off_vec.base)[0] = 0;
    ((uint32_t *)set_words_vec.base)[0] = 0;
    ((uint32_t *)set_words_vec.base)[1] = 0;
    set_words_used = 2;
    memset(add_cache, 0xff, sizeof add_cache);
    return 0;
}

/* ---- Interning (owner context; also at MARK_END: no lock, no malloc) ---- */

static hp_ident *idents(void) { return (hp_ident *)ident_vec.base; }

static uint64_t ident_hash(const hp_ident *d)
{
    return hp_mix64(((uint64_t)d->kind << 56) ^ ((uint64_t)(uint32_t)d->module << 40) ^ d->key);
}

static uint64_t ident_hash_of(uint32_t i) { return ident_hash(&idents()[i]); }

static uint32_t ident_intern(const hp_ident *want)
{
    uint64_t h = ident_hash(want);
    uint32_t *t = hp_idindex_room(&ident_index, nidents, 0, ident_hash_of);
    if (!t) return RET_MANY;
    uint32_t j = (uint32_t)h & (ident_index.cap - 1);
    for (; t[j]; j = (j + 1) & (ident_index.cap - 1)) {
        const hp_ident *d = &idents()[t[j] - 1];
        if (d->kind == want->kind && d->module == want->module && d->key == want->key)
            return t[j] - 1;
    }
    if (hp_vec_ensure(&ident_vec, (size_t)(nidents + 1) * sizeof(hp_ident))) return RET_MANY;
    idents()[nidents] = *want;
    t[j] = nidents + 1;
    return nidents++;
}

static const uint32_t *set_members(uint32_t s, uint32_t *n)
{
    const uint32_t *w = (const uint32_t *)set_words_vec.base + ((uint64_t *)set_off_vec.base)[s];
    *n = w[0];
    return w + 2;
}

static uint32_t set_hash_of(uint32_t s)
{
    return ((const uint32_t *)set_words_vec.base)[((uint64_t *)set_off_vec.base)[s] + 1];
}

static uint64_t set_index_hash(uint32_t s) { return set_hash_of(s); }

/* The set with these (sorted) members, interned. */
static uint32_t set_intern(const uint32_t *m, uint32_t n, uint32_t hash)
{
    uint32_t *t = hp_idindex_room(&set_index, nsets, 1, set_index_hash);
    if (!t) return SET_MANY;
    uint32_t j = hash & (set_index.cap - 1);
    for (; t[j]; j = (j + 1) & (set_index.cap - 1)) {
        uint32_t s = t[j] - 1, k;
        if (set_hash_of(s) != hash) continue;
        const uint32_t *have = set_members(s, &k);
        if (k == n && memcmp(have, m, n * 4) == 0) return s;
    }
    if (hp_vec_ensure(&set_words_vec, (set_words_used + n + 2) * 4) ||
        hp_vec_ensure(&set_off_vec, (size_t)(nsets + 1) * 8))
        return SET_MANY;
    uint32_t *w = (uint32_t *)set_words_vec.base + set_words_used;
    w[0] = n;
    w[1] = hash;
    memcpy(w + 2, m, n * 4);
    ((uint64_t *)set_off_vec.base)[nsets] = set_words_used;
    set_words_used += n + 2;
    t[j] = nsets + 1;
    return nsets++;
}

static inline uint32_t member_hash(uint32_t r) { return (uint32_t)hp_mix64(r + 1); }

static int set_contains(uint32_t s, uint32_t r)
{
    uint32_t n;
    const uint32_t *m = set_members(s, &n);
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (m[mid] == r) return 1;
        if (m[mid] < r) lo = mid + 1;
        else hi = mid;
    }
    return 0;
}

/* s + {r}; MANY when that would exceed the bound. */
static uint32_t set_add(uint32_t s, uint32_t r)
{
    add_cache_entry *c = &add_cache[(hp_mix64(((uint64_t)s << 32) | r)) & 8191];
    if (c->set == s && c->ret == r) return c->result;
    uint32_t n;
    const uint32_t *m = set_members(s, &n);
    uint32_t result;
    if (n + 1 > (uint32_t)bound) {
        result = SET_MANY;
    } else {
        uint32_t tmp[65], k = 0, i = 0;
        while (i < n && m[i] < r) tmp[k++] = m[i++];
        tmp[k++] = r;
        while (i < n) tmp[k++] = m[i++];
        result = set_intern(tmp, k, set_hash_of(s) + member_hash(r));
    }
    c->set = s;
    c->ret = r;
    c->result = result;
    return result;
}

static uint32_t set_single(uint32_t r)
{
    static uint32_t empty = UINT32_MAX;
    if (r == RET_MANY) return SET_MANY;
    if (empty == UINT32_MAX) {
        static const uint32_t none[1] = {0};
        empty = set_intern(none, 0, 0);
    }
    return set_add(empty, r);   /* the empty set, then {r}: cached */
}

/* ---- Designated retainers: stacks classified against retainers= ---- */

static int has_retainers(void) { return hp_rt.cfg.retainers[0] != 0; }

static int ccs_matches(uint32_t ccs)
{
    const char *p = hp_rt.cfg.retainers;
    char name[HP_FILTER_MAX];
    while (*p) {
        size_t n = strcspn(p, "+");
        memcpy(name, p, n);
        name[n] = 0;
        if (hp_names_has_function(ccs, name)) return 1;
        p += n;
        if (*p == '+') p++;
    }
    return 0;
}

void hp_retainer_prepare(void)
{
    hp_symbols_refresh();
    if (!has_retainers()) return;
    uint32_t n = hp_stacks_count();
    if (hp_vec_ensure(&ccs_class_vec, n)) return;
    uint8_t *cls = ccs_class_vec.base;
    for (uint32_t c = ccs_classified; c < n; c++) cls[c] = ccs_matches(c) ? 1 : 2;
    ccs_classified = n;
}

/* ---- MARK_END: world stopped, lock held. No lock, no malloc. ---- */

static inline int is_designated(const hp_rec *r)
{
    return ccs_classified && r && r->ccs < ccs_classified &&
           ((uint8_t *)ccs_class_vec.base)[r->ccs] == 1;
}

static uint32_t ccs_ident(uint32_t ccs)
{
    hp_ident d = {0};
    d.kind = HP_RET_CCS;
    d.module = -1;
    d.key = ccs;
    return ident_intern(&d);
}

/* retain(c, r) of the seed, one object at a time. */
static int retain_visit(uint32_t *label, int valid, const hp_rec *rec, uint64_t in,
                        uint64_t *out)
{
    uint32_t r = (uint32_t)in;
    int is_ret = is_designated(rec);
    if (!valid) {
        *label = set_single(r);
        *out = is_ret ? ccs_ident(rec->ccs) : r;
        return 1;
    }
    uint32_t s = *label;
    if (s == SET_MANY) return 0;
    if (r == RET_MANY) {
        *label = SET_MANY;
        *out = RET_MANY;
        return !is_ret;
    }
    if (set_contains(s, r)) return 0;
    uint32_t s2 = set_add(s, r);
    *label = s2;
    if (is_ret) return 0;
    *out = s2 == SET_MANY ? RET_MANY : r;
    return 1;
}

/* Static data: each word is named by the variable holding it. */
static void trace_static(uintptr_t lo, uintptr_t hi, int interior)
{
    uintptr_t sym_lo = 1, sym_hi = 0;
    uint32_t id = RET_MANY;
    for (uintptr_t a = (lo + 7) & ~(uintptr_t)7; a + 8 <= hi; a += 8) {
        uintptr_t v = *(const uintptr_t *)a;
        if (!hp_trace_plausible(v)) continue;
        if (!(a >= sym_lo && a < sym_hi)) {
            hp_data_sym ds;
            if (!hp_symbols_data_at(a, &ds)) {
                ds.name = NULL;
                ds.start = a;
                ds.end = a + 8;
                ds.module = -1;
                ds.module_base = "?";
                ds.module_lo = 0;
            }
            hp_ident d = {0};
            d.module = ds.module;
            d.module_base = ds.module_base;
            if (ds.name) {
                d.kind = HP_RET_STATIC;
                d.key = ds.start;
                d.sym = ds.name;
            } else {
                d.kind = HP_RET_STATIC_OFF;
                d.key = a - ds.module_lo;
            }
            id = ident_intern(&d);
            sym_lo = ds.start;
            sym_hi = ds.end > ds.start ? ds.end : ds.start + 8;
        }
        hp_trace_range(a, a + 8, NULL, interior, id);
        hp_trace_run();
    }
}

void hp_retainer_traverse(uint64_t mark_ns)
{
    uint64_t t0 = hp_mono_ns();
    traversed = 0;
    size_t n;
    int overflowed;
    const hp_root_range *rr = hp_rootrec_ranges(&n, &overflowed);
    ranges_overflowed = overflowed;
    if (hp_trace_begin(retain_visit) != 0) return;
    int all_interior = hp_real.GC_get_all_interior_pointers
                           ? hp_real.GC_get_all_interior_pointers() : 1;
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    uintptr_t entry = hp_tls.depth > 0 ? hp_tls.gc_entry_frame : 0;
    const hp_stack_entry *my_stack = hp_thread_stack_of(here);
    for (size_t i = 0; i < n; i++) {
        const hp_root_range *g = &rr[i];
        /* The same range pushed twice (a mark-stack overflow restarts
         * the root pushes): once is enough. */
        int dup = 0;
        for (size_t k = i; k-- > 0 && k + 8 > i;)
            if (rr[k].lo == g->lo && rr[k].hi == g->hi) dup = 1;
        if (dup) continue;
        int interior = g->eager || all_interior;
        const hp_stack_entry *se = hp_thread_stack_of(g->lo);
        /* A thread's stack pushed again later in the cycle (incremental
         * mode) supersedes this push. */
        if (se) {
            for (size_t k = i + 1; k < n && !dup; k++)
                if (rr[k].eager == g->eager && rr[k].lo != g->lo &&
                    hp_thread_stack_of(rr[k].lo) == se)
                    dup = 1;
            if (dup) continue;
        } else if (hp_real.GC_base((void *)g->lo)) {
            continue;   /* part of a heap object (dirty pages pushed again): not a root */
        }
        uintptr_t lo = g->lo;
        int mine = se ? se == my_stack : (g->hi > here && g->lo - here < HP_NEAR);
        if (mine) {
            /* The collecting thread (this one): its frames below the
             * program's outermost GC_ call are the collector's, full of
             * pointers it was marking from. Scan from that call up (the
             * program's registers are saved in the frames above it). */
            if (!entry) continue;
            if (g->hi <= entry) continue;
            if (lo < entry) lo = entry;
        }
        hp_ident d = {0};
        d.module = -1;
        hp_data_sym ds;
        if (se) {
            d.kind = HP_RET_STACK;
            d.key = se->ordinal;
            d.is_main = (uint8_t)se->is_main;
        } else if (hp_symbols_data_at(g->lo, &ds)) {
            trace_static(g->lo, g->hi, interior);
            continue;
        } else {
            d.kind = HP_RET_OTHER;
            d.key = g->lo;
        }
        uint32_t id = ident_intern(&d);
        hp_trace_range(lo, g->hi, NULL, se ? 1 : interior, id);
        hp_trace_run();
    }
    tstats = hp_trace_end(&indexed);
    parity = hp_trace_parity();
    traversed = 1;
    uint64_t t1 = hp_mono_ns();
    mark_ns_last = mark_ns;
    trace_ns_last = t1 - t0;
    mark_ns_total += mark_ns;
    trace_ns_total += trace_ns_last;
    hp_rt_exclude(t1 - t0);
}
/* ---- end of MARK_END code ---- */

/* ---- Census (RECLAIM_END, lock held, world running) and output ---- */

static uint64_t *set_bytes(uint32_t s)
{
    if (hp_vec_ensure(&set_bytes_vec, (size_t)(s + 1) * 8) ||
        hp_vec_ensure(&set_seen_vec, (size_t)s + 1))
        return NULL;
    return &((uint64_t *)set_bytes_vec.base)[s];
}

static void ident_text(hp_buf *b, uint32_t id)
{
    const hp_ident *d = &idents()[id];
    switch (d->kind) {
    case HP_RET_STATIC: hp_buf_str(b, d->sym); break;
    case HP_RET_STATIC_OFF:
        hp_buf_str(b, d->module_base ? d->module_base : "?");
        hp_buf_str(b, "+0x");
        hp_buf_hex(b, d->key);
        break;
    case HP_RET_STACK:
        if (d->is_main) hp_buf_str(b, "stack:main");
        else {
            hp_buf_str(b, "stack:thread");
            hp_buf_u64(b, d->key);
        }
        break;
    case HP_RET_OTHER:
        hp_buf_str(b, "roots@0x");
        hp_buf_hex(b, d->key);
        break;
    case HP_RET_CCS: hp_buf_str(b, hp_names_full(hp_names_full_of((uint32_t)d->key))); break;
    }
}

static uint32_t set_label(uint32_t s)
{
    if (hp_vec_ensure(&set_label_vec, (size_t)(s + 1) * 4)) return 0;
    uint32_t *l = &((uint32_t *)set_label_vec.base)[s];
    if (*l) return *l - 1;
    hp_buf_reset(&text);
    if (s == SET_MANY) {
        hp_buf_str(&text, "MANY");
    } else {
        hp_buf_chr(&text, '(');
        hp_buf_u64(&text, s);
        hp_buf_chr(&text, ')');
        uint32_t n;
        const uint32_t *m = set_members(s, &n);
        for (uint32_t i = 0; i < n; i++) {
            if (i) hp_buf_chr(&text, ',');
            ident_text(&text, m[i]);
        }
    }
    *l = hp_names_intern_label(hp_buf_cstr(&text)) + 1;
    return *l - 1;
}

uint32_t hp_retainer_label_of(hp_rec *r, size_t idx)
{
    if (traversed && hp_trace_valid(r->word, parity)) {
        uint32_t s = r->word & HP_TRACE_LABEL_MASK;
        /* Per-set arrays sized for every set at the first use in a census
         * (no set is made during the census). */
        if (s >= sets_sized) {
            if (!set_bytes(nsets - 1) ||
                hp_vec_ensure(&set_label_vec, (size_t)nsets * 4))
                return UINT32_MAX;
            sets_sized = nsets;
        }
        uint64_t *b = &((uint64_t *)set_bytes_vec.base)[s];
        if (!*b) {
            sets_this_census++;
            ((uint8_t *)set_seen_vec.base)[s] = 1;
        }
        *b += r->granted;
        attributed_bytes += r->granted;
        attributed_objects++;
        uint32_t l = ((uint32_t *)set_label_vec.base)[s];
        return l ? l - 1 : set_label(s);
    }
    r->word &= ~HP_TRACE_SET_BIT;   /* a stale label never outlives its census */
    if (idx >= indexed) {
        new_bytes += r->granted;
        new_objects++;
    } else {
        unreached_bytes += r->granted;
        unreached_objects++;
        if (!hp_vec_ensure(&unreached_vec, (size_t)(r->ccs + 1) * 8) &&
            !hp_vec_ensure(&touched_vec, (size_t)(ntouched + 1) * 4)) {
            uint64_t *u = &((uint64_t *)unreached_vec.base)[r->ccs];
            if (!*u) ((uint32_t *)touched_vec.base)[ntouched++] = r->ccs;
            *u += r->granted;
        }
    }
    return UINT32_MAX;
}

static void ms(hp_buf *b, uint64_t ns) { hp_buf_fixed(b, (double)ns / 1e6, 2); }

void hp_retainer_census_done(double t)
{
    hp_buf *b = &prof_lines;
    hp_buf_fixed(b, t, 2);
    hp_buf_str(b, "  ");
    if (!traversed) {
        hp_buf_str(b, "no traversal (no collection could be run): every live object counted "
                      "as not reached\n");
    } else {
        censuses_traced++;
        ms(b, trace_ns_last);
        hp_buf_str(b, "  ");
        ms(b, mark_ns_last);
        hp_buf_str(b, "  ");
        hp_buf_fixed(b, mark_ns_last ? (double)trace_ns_last / (double)mark_ns_last : 0, 2);
        hp_buf_str(b, "  ");
        hp_buf_u64(b, tstats.visits);
        hp_buf_str(b, "  ");
        hp_buf_u64(b, sets_this_census);
        hp_buf_str(b, "  ");
        hp_buf_fixed(b, tstats.objects ? (double)tstats.visits / (double)tstats.objects : 0, 2);
        hp_buf_str(b, "  ");
        hp_buf_u64(b, attributed_bytes);
        hp_buf_str(b, " of ");
        hp_buf_u64(b, attributed_bytes + unreached_bytes + new_bytes);
        hp_buf_str(b, " bytes");
        if (unreached_objects) {
            hp_buf_str(b, "; not reached from known roots: ");
            hp_buf_u64(b, unreached_bytes);
            hp_buf_str(b, " bytes in ");
            hp_buf_u64(b, unreached_objects);
            hp_buf_str(b, " objects (live only through finalizable objects or the "
                          "collector's own frames, or, in incremental mode, allocated or "
                          "moved during the mark cycle) from ");
            /* The three largest sites. */
            uint64_t *u = (uint64_t *)unreached_vec.base;
            uint32_t *tc = (uint32_t *)touched_vec.base;
            for (int k = 0; k < 3; k++) {
                uint32_t best = UINT32_MAX;
                for (uint32_t i = 0; i < ntouched; i++)
                    if (u[tc[i]] && (best == UINT32_MAX || u[tc[i]] > u[best])) best = tc[i];
                if (best == UINT32_MAX) break;
                if (k) hp_buf_str(b, ", ");
                hp_buf_str(b, hp_names_full(hp_names_full_of(best)));
                hp_buf_chr(b, ' ');
                hp_buf_u64(b, u[best]);
                u[best] = 0;
            }
        }
        if (new_objects) {
            hp_buf_str(b, "; allocated during the collection: ");
            hp_buf_u64(b, new_bytes);
            hp_buf_str(b, " bytes in ");
            hp_buf_u64(b, new_objects);
            hp_buf_str(b, " objects");
        }
        if (ranges_overflowed) hp_buf_str(b, "; some root ranges were not recorded");
        hp_buf_chr(b, '\n');
    }
    uint64_t *u = (uint64_t *)unreached_vec.base;
    for (uint32_t i = 0; i < ntouched; i++) u[((uint32_t *)touched_vec.base)[i]] = 0;
    ntouched = 0;
    uint64_t *sb = (uint64_t *)set_bytes_vec.base;
    if (sb) memset(sb, 0, set_bytes_vec.committed);
    attributed_bytes = attributed_objects = unreached_bytes = unreached_objects = 0;
    new_bytes = new_objects = 0;
    sets_this_census = 0;
    traversed = 0;
}

int hp_retainer_set_matches(const hp_rec *r)
{
    if (!hp_trace_valid(r->word, hp_trace_parity())) return 0;
    uint32_t s = r->word & HP_TRACE_LABEL_MASK;
    if (hp_vec_ensure(&rset_match_vec, (size_t)s + 1)) return 0;
    uint8_t *m = &((uint8_t *)rset_match_vec.base)[s];
    if (!*m) {
        *m = 2;
        uint32_t n;
        const uint32_t *mem = set_members(s, &n);
        for (uint32_t i = 0; i < n && *m == 2; i++) {
            hp_buf_reset(&text);
            ident_text(&text, mem[i]);
            const char *name = hp_buf_cstr(&text);
            const char *p = hp_rt.cfg.filter_rset;
            while (*p) {
                size_t k = strcspn(p, "+");
                if (strlen(name) == k && memcmp(name, p, k) == 0) *m = 1;
                p += k;
                if (*p == '+') p++;
            }
        }
    }
    return *m == 1;
}

void hp_retainer_write_prof(int fd)
{
    hp_buf out;
    if (hp_buf_init(&out, (size_t)1 << 32)) return;
    hp_buf_str(&out, "\nRETAINER SETS (every set that held live bytes at a census; sets of more "
                     "than ");
    hp_buf_u64(&out, (uint64_t)bound);
    hp_buf_str(&out, " retainers are MANY)\n\n");
    uint8_t *seen = (uint8_t *)set_seen_vec.base;
    size_t nseen = set_seen_vec.committed;
    for (uint32_t s = 0; s < nsets && s < nseen; s++) {
        if (!seen[s]) continue;
        hp_buf_str(&out, "SET ");
        if (s == SET_MANY) {
            hp_buf_str(&out, "MANY = {more than ");
            hp_buf_u64(&out, (uint64_t)bound);
            hp_buf_str(&out, " retainers}\n");
            continue;
        }
        hp_buf_u64(&out, s);
        hp_buf_str(&out, " = {");
        uint32_t n;
        const uint32_t *m = set_members(s, &n);
        for (uint32_t i = 0; i < n; i++) {
            if (i) hp_buf_str(&out, ", ");
            hp_buf_chr(&out, '<');
            ident_text(&out, m[i]);
            hp_buf_chr(&out, '>');
        }
        hp_buf_str(&out, "}\n");
    }
    hp_buf_str(&out, "\nRETAINER CENSUSES (time s, traversal ms, collector mark ms, ratio, "
                     "visits, sets, visits per object, bytes attributed of live)\n\n");
    hp_buf_put(&out, (const char *)prof_lines.vec.base, prof_lines.len);
    hp_buf_str(&out, "\ntraversal total ");
    ms(&out, trace_ns_total);
    hp_buf_str(&out, " ms, collector mark total ");
    ms(&out, mark_ns_total);
    hp_buf_str(&out, " ms over ");
    hp_buf_u64(&out, censuses_traced);
    hp_buf_str(&out, " censuses\n");
    hp_buf_write(&out, fd);
}
