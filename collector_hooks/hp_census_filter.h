/* hp_census_filter: which objects a profile shows (level 2): the filters
 * ccs= (a function on the stack, GHC -hC), module= (the allocating
 * function's module), kind= (an object kind) and rset= (a retainer in the
 * object's retainer set, GHC -hr). Decided once per stack for ccs= and
 * module= (a byte per stack), per object for kind= and rset=. Owner
 * context, or the signal finisher (which holds the output role). */
#ifndef HP_CENSUS_FILTER_H
#define HP_CENSUS_FILTER_H
#include "core/hp_config.h"
#include "core/hp_shadow.h"
#include "core/hp_buf.h"

int hp_filter_init(const hp_config *cfg);
/* Is any filter set? */
int hp_filter_any(void);
/* Is the object in the profile? */
int hp_filter_passes(const hp_rec *r);
/* A "warning: ..." line into out for each of ccs=, module=, rset= that
 * matched nothing in the run, with the closest names there are. */
typedef struct hp_ccs_stats hp_ccs_stats;
void hp_filter_warnings(hp_buf *out, const hp_ccs_stats *stats, uint32_t nccs);

#endif
