/* hp_retainer_sets_sigsafe: the retainer profile's identities and sets,
 * interned for the whole run (an order-independent hash; a set that would
 * grow past bound= is MANY). Runs at MARK_END with the world stopped and
 * in the census: no lock, no allocation but the profiler's own memory. */
#include "retainer/hp_retainer.h"
#include "retainer/hp_retainer_internal.h"
#include "retainer/hp_rootrec.h"
#include "retainer/hp_trace.h"
#include "core/hp_real.h"
#include "core/hp_stacks.h"
#include "core/hp_symbols.h"
#include "core/hp_thread.h"
#include "hp_writer/hp_names.h"

#include <string.h>


hp_ident *hp_ret_idents(void) { return (hp_ident *)hp_ret_.ident_vec.base; }

static uint64_t ident_hash(const hp_ident *d)
{
    return hp_mix64(((uint64_t)d->kind << 56) ^ ((uint64_t)(uint32_t)d->module << 40) ^ d->key);
}

static uint64_t ident_hash_of(uint32_t i) { return ident_hash(&hp_ret_idents()[i]); }

uint32_t hp_ret_ident_intern(const hp_ident *want)
{
    uint64_t h = ident_hash(want);
    uint32_t *t = hp_idindex_room(&hp_ret_.ident_index, hp_ret_.nidents, 0, ident_hash_of);
    if (!t) return RET_MANY;
    uint32_t j = (uint32_t)h & (hp_ret_.ident_index.cap - 1);
    for (; t[j]; j = (j + 1) & (hp_ret_.ident_index.cap - 1)) {
        const hp_ident *d = &hp_ret_idents()[t[j] - 1];
        if (d->kind == want->kind && d->module == want->module && d->key == want->key)
            return t[j] - 1;
    }
    if (hp_vec_ensure(&hp_ret_.ident_vec, (size_t)(hp_ret_.nidents + 1) * sizeof(hp_ident))) return RET_MANY;
    hp_ret_idents()[hp_ret_.nidents] = *want;
    t[j] = hp_ret_.nidents + 1;
    return hp_ret_.nidents++;
}

const uint32_t *hp_ret_set_members(uint32_t s, uint32_t *n)
{
    const uint32_t *w = (const uint32_t *)hp_ret_.set_words_vec.base + ((uint64_t *)hp_ret_.set_off_vec.base)[s];
    *n = w[0];
    return w + 2;
}

static uint32_t set_hash_of(uint32_t s)
{
    return ((const uint32_t *)hp_ret_.set_words_vec.base)[((uint64_t *)hp_ret_.set_off_vec.base)[s] + 1];
}

static uint64_t set_index_hash(uint32_t s) { return set_hash_of(s); }

/* The set with these (sorted) members, interned. */
static uint32_t set_intern(const uint32_t *m, uint32_t n, uint32_t hash)
{
    uint32_t *t = hp_idindex_room(&hp_ret_.set_index, hp_ret_.nsets, 1, set_index_hash);
    if (!t) return SET_MANY;
    uint32_t j = hash & (hp_ret_.set_index.cap - 1);
    for (; t[j]; j = (j + 1) & (hp_ret_.set_index.cap - 1)) {
        uint32_t s = t[j] - 1, k;
        if (set_hash_of(s) != hash) continue;
        const uint32_t *have = hp_ret_set_members(s, &k);
        if (k == n && memcmp(have, m, n * 4) == 0) return s;
    }
    if (hp_vec_ensure(&hp_ret_.set_words_vec, (hp_ret_.set_words_used + n + 2) * 4) ||
        hp_vec_ensure(&hp_ret_.set_off_vec, (size_t)(hp_ret_.nsets + 1) * 8))
        return SET_MANY;
    uint32_t *w = (uint32_t *)hp_ret_.set_words_vec.base + hp_ret_.set_words_used;
    w[0] = n;
    w[1] = hash;
    memcpy(w + 2, m, n * 4);
    ((uint64_t *)hp_ret_.set_off_vec.base)[hp_ret_.nsets] = hp_ret_.set_words_used;
    hp_ret_.set_words_used += n + 2;
    t[j] = hp_ret_.nsets + 1;
    return hp_ret_.nsets++;
}

static inline uint32_t member_hash(uint32_t r) { return (uint32_t)hp_mix64(r + 1); }

int hp_ret_set_contains(uint32_t s, uint32_t r)
{
    uint32_t n;
    const uint32_t *m = hp_ret_set_members(s, &n);
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
uint32_t hp_ret_set_add(uint32_t s, uint32_t r)
{
    add_cache_entry *c = &hp_ret_.add_cache[(hp_mix64(((uint64_t)s << 32) | r)) & 8191];
    if (c->set == s && c->ret == r) return c->result;
    uint32_t n;
    const uint32_t *m = hp_ret_set_members(s, &n);
    uint32_t result;
    if (n + 1 > (uint32_t)hp_ret_.bound) {
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

uint32_t hp_ret_set_empty(void)
{
    static uint32_t empty = UINT32_MAX;
    if (empty == UINT32_MAX) {
        static const uint32_t none[1] = {0};
        empty = set_intern(none, 0, 0);
    }
    return empty;
}

uint32_t hp_ret_set_single(uint32_t r)
{
    if (r == RET_MANY) return SET_MANY;
    return hp_ret_set_add(hp_ret_set_empty(), r);   /* the empty set, then {r}: cached */
}

uint32_t hp_ret_set_union(uint32_t a, uint32_t b)
{
    if (a == b) return a;
    if (a == SET_MANY || b == SET_MANY) return SET_MANY;
    if (a > b) {   /* symmetric: one cache entry for both orders */
        uint32_t t = a;
        a = b;
        b = t;
    }
    add_cache_entry *c = &hp_ret_.union_cache[(hp_mix64(((uint64_t)a << 32) | b)) & 8191];
    if (c->pad && c->set == a && c->ret == b) return c->result;
    uint32_t na, nb;
    const uint32_t *ma = hp_ret_set_members(a, &na);
    const uint32_t *mb = hp_ret_set_members(b, &nb);
    uint32_t tmp[65], k = 0, i = 0, j = 0, hash = 0, result = SET_MANY;
    int over = 0;
    while (i < na || j < nb) {
        uint32_t v;
        if (j >= nb || (i < na && ma[i] < mb[j])) {
            v = ma[i++];
        } else if (i >= na || mb[j] < ma[i]) {
            v = mb[j++];
        } else {
            v = ma[i++];
            j++;
        }
        if (k == (uint32_t)hp_ret_.bound) {
            over = 1;
            break;
        }
        tmp[k++] = v;
        hash += member_hash(v);
    }
    if (!over) result = set_intern(tmp, k, hash);
    c->set = a;
    c->ret = b;
    c->pad = 1;
    c->result = result;
    return result;
}

