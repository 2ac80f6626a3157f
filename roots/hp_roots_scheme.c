/* hp_roots_scheme: the profile by named roots as a scheme (see
 * hp_roots_scheme.h): each operation is one call into hp_roots or
 * hp_trace. (hp_roots_init runs in every mode: the API keeps roots.) */
#include "roots/hp_roots_scheme.h"
#include "retainer/hp_trace.h"
#include "roots/hp_roots.h"

const hp_scheme hp_scheme_roots = {
    .name = "roots",
    .traverses = 1,
    .init = hp_trace_init,
    .traverse = hp_roots_traverse,
    .after_collection = hp_roots_check_alive,
    .label_of = hp_roots_label_of,
    .on_free = hp_roots_note_free,
    .census_done = hp_roots_census_done,
    .write_prof = hp_roots_write_prof,
};
