/* hp_scheme_kind_sigsafe: the profile by object kind and size (mode kind,
 * GHC -hy for C): one band per (kind, granted size), "normal:32", sizes
 * above 2048 bytes by powers of two, "normal:4097-8192". The
 * (kind code, size) -> label table is an open-addressing index of ids
 * (core/hp_hash.h) over an array of keys. Owner context, or the signal
 * finisher: async-signal-safe. */
#include "collector_hooks/hp_schemes.h"
#include "core/hp_hash.h"
#include "core/hp_kinds.h"
#include "core/hp_mem.h"
#include "hp_writer/hp_names.h"

#include <string.h>

typedef struct kind_label { uint64_t key; uint32_t label; uint32_t pad; } kind_label;

static hp_vec labels_vec;         /* kind_label[n] */
static uint32_t nlabels;
static hp_idindex index_;

static uint64_t key_hash(uint32_t id)
{
    return hp_mix64(((kind_label *)labels_vec.base)[id].key);
}

static int kind_init(void)
{
    if (hp_vec_reserve(&labels_vec, (size_t)1 << 30) != 0 ||
        hp_vec_reserve(&index_.vec, (size_t)1 << 30) != 0)
        return -1;
    return 0;
}

/* Sizes above the collector's small objects (2048 bytes, half a heap
 * block) go by powers of two: a band per (kind, 2049-4096), (kind,
 * 4097-8192), ... instead of one per exact size (thousands, on a large
 * heap). Returns the upper bound of the size's range, or the size. */
#define HP_KIND_EXACT_MAX 2048
static uint64_t size_bin(uint64_t granted)
{
    if (granted <= HP_KIND_EXACT_MAX) return granted;
    uint64_t hi = HP_KIND_EXACT_MAX * 2;
    while (hi < granted) hi *= 2;
    return hi;
}

static void put_u64(char *text, size_t *n, uint64_t v)
{
    char d[24];
    int k = 0;
    do { d[k++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (k) text[(*n)++] = d[--k];
}

static uint32_t kind_label_of(hp_rec *r, size_t idx)
{
    (void)idx;
    int cat = hp_kind_category(r);
    uint64_t bin = size_bin(r->granted);
    uint64_t key = ((uint64_t)hp_kind_code(r, cat) << 32) | bin;
    uint32_t *slots = hp_idindex_room(&index_, nlabels, 0, key_hash);
    if (!slots) return UINT32_MAX;
    kind_label *t = (kind_label *)labels_vec.base;
    uint32_t cap = index_.cap;
    uint32_t j = (uint32_t)hp_mix64(key) & (cap - 1);
    while (slots[j] && t[slots[j] - 1].key != key) j = (j + 1) & (cap - 1);
    if (slots[j]) return t[slots[j] - 1].label;
    if (hp_vec_ensure(&labels_vec, (size_t)(nlabels + 1) * sizeof(kind_label)) != 0)
        return UINT32_MAX;
    char text[72];
    hp_kind_name(r, text, 24);
    size_t n = strlen(text);
    text[n++] = ':';
    if (bin != r->granted || bin > HP_KIND_EXACT_MAX) {
        put_u64(text, &n, bin / 2 + 1);   /* "normal:4097-8192" */
        text[n++] = '-';
    }
    put_u64(text, &n, bin);
    text[n] = 0;
    t = (kind_label *)labels_vec.base;
    t[nlabels].key = key;
    t[nlabels].label = hp_names_intern_label(text);
    slots[j] = ++nlabels;
    return t[nlabels - 1].label;
}

const hp_scheme hp_scheme_kind = {
    .name = "kind",
    .init = kind_init,
    .label_of = kind_label_of,
    .label_by_shape = 1,
};
