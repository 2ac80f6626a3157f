/* hp_roots_scheme: the profile by named roots as a scheme (see
 * hp_roots_scheme.h): each operation is one call into hp_roots or
 * hp_trace. (hp_roots_init runs in every mode: the API keeps roots.) */
#include "roots/hp_roots_scheme.h"
#include "core/hp_rt.h"
#include "retainer/hp_retainer.h"
#include "retainer/hp_rootrec.h"
#include "retainer/hp_trace.h"
#include "roots/hp_roots.h"

/* noroot=retainers: what no named root reaches is labelled with retainer
 * sets, so the retainer profile's root recording and sets are set up too. */
static int roots_init(void)
{
    if (hp_trace_init() != 0) return -1;
    if (hp_rt.cfg.noroot == HP_NOROOT_RETAINERS &&
        (hp_rootrec_init() != 0 || hp_retainer_init() != 0))
        return -1;
    return 0;
}

const hp_scheme hp_scheme_roots = {
    .name = "roots",
    .traverses = 1,
    .init = roots_init,
    .before_stop = hp_roots_before_stop,
    .mark_end = hp_roots_mark_end,
    .traverse = hp_roots_traverse,
    .after_collection = hp_roots_check_alive,
    .label_of = hp_roots_label_of,
    .on_free = hp_roots_note_free,
    .census_done = hp_roots_census_done,
    .postfork_child = hp_roots_postfork_child,
    .write_prof = hp_roots_write_prof,
    .warnings = hp_roots_warnings,
};
