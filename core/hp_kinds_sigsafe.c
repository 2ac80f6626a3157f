/* hp_kinds_sigsafe: object kind categories and names (see hp_kinds.h).
 * Pure functions: async-signal-safe. */
#include "core/hp_kinds.h"

#include <string.h>

static const char *const cat_names[HP_CAT_COUNT] = {
    "normal", "atomic", "uncollectable", "typed", "gcj", "finalized", "other"};

int hp_kind_category(const hp_rec *r)
{
    switch (r->how) {
    case HP_HOW_TYPED: return HP_CAT_TYPED;
    case HP_HOW_GCJ: return HP_CAT_GCJ;
    case HP_HOW_FINALIZED: return HP_CAT_FINALIZED;
    default: break;
    }
    switch (r->kind) {   /* the collector's predefined kinds */
    case 0: return HP_CAT_ATOMIC;
    case 1: return HP_CAT_NORMAL;
    case 2: case 3: return HP_CAT_UNCOLLECTABLE;   /* and atomic uncollectable */
    default: return HP_CAT_OTHER;
    }
}

const char *hp_kind_category_name(int cat) { return cat_names[cat]; }

void hp_kind_name(const hp_rec *r, char *out, size_t cap)
{
    int cat = hp_kind_category(r);
    const char *name = cat_names[cat];
    char tmp[16];
    if (cat == HP_CAT_OTHER) {
        /* "kind" and the kind number, without stdio. */
        unsigned k = r->kind, n = 0;
        char digits[4];
        do { digits[n++] = (char)('0' + k % 10); k /= 10; } while (k);
        memcpy(tmp, "kind", 4);
        for (unsigned i = 0; i < n; i++) tmp[4 + i] = digits[n - 1 - i];
        tmp[4 + n] = 0;
        name = tmp;
    }
    size_t len = strlen(name);
    if (len >= cap) len = cap - 1;
    memcpy(out, name, len);
    out[len] = 0;
}

int hp_kind_parse(const char *k)
{
    for (int c = 0; c < HP_CAT_COUNT; c++)
        if (strcmp(k, cat_names[c]) == 0) return c;
    if (strncmp(k, "kind", 4) == 0 && k[4]) {
        int v = 0;
        for (const char *d = k + 4; *d >= '0' && *d <= '9'; d++) v = v * 10 + (*d - '0');
        return 16 + v;
    }
    return HP_KIND_NONE;
}
