/* hp_kinds: the taxonomy of object kinds (level 6, model), in one place:
 * the category of a record (from the entry point that allocated it and the
 * collector's kind number), its name, and the one code that identifies an
 * exact kind (a category, or 16 + the collector's kind number for kinds
 * that are in no category), used by the kind profile's labels, the kind=
 * filter and the report's breakdown by kind. Pure functions:
 * async-signal-safe. */
#ifndef HP_KINDS_H
#define HP_KINDS_H
#include <stddef.h>
#include <stdint.h>

#include "core/hp_shadow.h"

enum { HP_CAT_NORMAL, HP_CAT_ATOMIC, HP_CAT_UNCOLLECTABLE, HP_CAT_TYPED, HP_CAT_GCJ,
       HP_CAT_FINALIZED, HP_CAT_OTHER, HP_CAT_COUNT };

/* The kind category of an object. */
int hp_kind_category(const hp_rec *r);
/* "normal", "atomic", "uncollectable", "typed", "gcj", "finalized", "other". */
const char *hp_kind_category_name(int cat);
/* The exact kind's code: its category, or 16 + kind for HP_CAT_OTHER. */
static inline int hp_kind_code(const hp_rec *r, int cat)
{
    return cat == HP_CAT_OTHER ? 16 + r->kind : cat;
}
/* The object's exact kind name: the category's, or "kindN" for other kinds. */
void hp_kind_name(const hp_rec *r, char *out, size_t cap);
/* The code a kind= filter names ("atomic", "other", "kind5"), or
 * HP_KIND_NONE when it names no kind (matches nothing). */
#define HP_KIND_NONE (1 << 20)
int hp_kind_parse(const char *name);
/* Does an object of category `cat` and code `code` pass the filter `want`
 * (a category matches its kinds; "other" matches every uncategorised kind)? */
static inline int hp_kind_matches(int cat, int code, int want)
{
    return code == want || (cat == HP_CAT_OTHER && want == HP_CAT_OTHER);
}

#endif
