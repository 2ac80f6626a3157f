/* hp_retained_sigsafe: the table of hp_retained.h: a copy of the
 * retainer scheme's per-stack figures, two words per stack name id.
 * Invariant: entries n .. committed are never read (n is set last).
 * Signal-safe: hp_vec memory reserved by hp_retained_init. */
#include "hp_writer/hp_retained.h"
#include "core/hp_mem.h"

#include <string.h>

static hp_vec table_vec;
static uint32_t n_ids;
static int known;

int hp_retained_init(void) { return hp_vec_reserve(&table_vec, (size_t)1 << 33); }

int hp_retained_set(const uint64_t *per, uint32_t n)
{
    n_ids = 0;
    known = 0;
    if (!table_vec.base || hp_vec_ensure(&table_vec, (size_t)n * 16 + 16) != 0) return -1;
    memcpy(table_vec.base, per, (size_t)n * 16);
    n_ids = n;
    known = 1;
    return 0;
}

int hp_retained_get(uint32_t id, uint64_t *bytes, uint64_t *objects)
{
    if (id >= n_ids) return 0;
    const uint64_t *t = (const uint64_t *)table_vec.base;
    if (!t[2 * id]) return 0;
    *bytes = t[2 * id];
    *objects = t[2 * id + 1];
    return 1;
}

int hp_retained_known(void) { return known; }
