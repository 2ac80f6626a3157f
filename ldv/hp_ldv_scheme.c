/* hp_ldv_scheme: mode ldv as a scheme (see hp_ldv_scheme.h): each
 * operation is one call of ldv/hp_ldv.h. The census is by stack (its
 * bytes are not shown as such): the scheme writes its own samples, with
 * bands VOID LAG USE INHERENT_USE DRAG, at exit. */
#include "ldv/hp_ldv_scheme.h"
#include "ldv/hp_ldv.h"

const hp_scheme hp_scheme_ldv = {
    .name = "ldv",
    .start = hp_ldv_start,
    .attach = hp_ldv_attach,
    .collection_start = hp_ldv_collection_start,
    .census_begin = hp_ldv_census_begin,
    .census_rec = hp_ldv_census_rec,
    .on_death = hp_ldv_death,
    .sweep_begin = hp_ldv_sweep_begin,
    .moved = hp_ldv_moved,
    .dropped = hp_ldv_dropped,
    .after_sweep = hp_ldv_protect,
    .stop = hp_ldv_stop,
    .write_samples = hp_ldv_write_samples,
    .write_prof = hp_ldv_write_prof,
    .checkpoint_begin = hp_ldv_checkpoint_begin,
    .checkpoint_rec = hp_ldv_checkpoint_rec,
    .checkpoint_samples = hp_ldv_checkpoint_samples,
};
