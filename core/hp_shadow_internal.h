/* hp_shadow_internal: the record store's own accessors, shared by its two
 * files only (core/hp_shadow.c: logs, table, frees; core/hp_sweep.c: the
 * sweep). Nothing else drives the store through these. */
#ifndef HP_SHADOW_INTERNAL_H
#define HP_SHADOW_INTERNAL_H
#include <stddef.h>

#include "core/hp_shadow.h"

/* Hand the records still in the logs to `fn`, span by span, where they
 * are (no copy), then count them as drained. Indexes of these records, for
 * hp_shadow_freed_at, are the table length or more (records logged after
 * every noted free). */
typedef void (*hp_span_fn)(hp_rec *recs, size_t n, void *ctx);
void hp_shadow_take_pending(hp_span_fn fn, void *ctx);
/* The table with room for `need` records (its base never moves), or NULL
 * when out of memory. */
hp_rec *hp_shadow_room(size_t need);
int hp_shadow_has_frees(void);
/* Apply what was noted for record `idx` since the last sweep: returns 1
 * when it was freed; applies an in-place resize (after the caller has
 * tallied the allocation) and returns 0 otherwise. */
int hp_shadow_freed_at(hp_rec *r, size_t idx);
/* The sweep is over: the table holds `new_len` records; frees are
 * forgotten. */
void hp_shadow_sweep_done(size_t new_len);

#endif
