/* hp_retainer_scheme: the retainer profile as a scheme (see
 * hp_retainer_scheme.h): each operation is one call into hp_retainer,
 * hp_rootrec or hp_trace. */
#include "retainer/hp_retainer_scheme.h"
#include "core/hp_rt.h"
#include "retainer/hp_retainer.h"
#include "retainer/hp_rootrec.h"
#include "retainer/hp_trace.h"

static int retainer_init(void)
{
    if (hp_trace_init() != 0 || hp_rootrec_init() != 0 || hp_retainer_init() != 0) return -1;
    return 0;
}

/* What both tables do: label the heap with retainer sets at each census. */
#define RETAINER_TRAVERSAL                       \
    .traverses = 1,                              \
    .init = retainer_init,                       \
    .before_stop = hp_retainer_prepare,          \
    .traverse = hp_retainer_traverse,            \
    .mark_end = hp_rootrec_reset,                \
    .census_done = hp_retainer_census_done,      \
    .postfork_child = hp_retainer_postfork_child, \
    .write_prof = hp_retainer_write_prof

const hp_scheme hp_scheme_retainer = {
    .name = "retainer",
    RETAINER_TRAVERSAL,
    .label_of = hp_retainer_label_of,
    .warnings = hp_retainer_warnings,
};

const hp_scheme hp_scheme_retainer_filter = {
    .name = "retainer filter",
    RETAINER_TRAVERSAL,
};
