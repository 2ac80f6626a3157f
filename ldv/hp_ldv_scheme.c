/* hp_ldv_scheme: mode ldv as a scheme (see hp_ldv_scheme.h): each
 * operation is one call of ldv/hp_ldv.h. The census is by stack (its
 * bytes are not shown as such): the scheme writes its own samples, with
 * bands VOID LAG USE INHERENT_USE DRAG, at exit.
 *
 * hp_scheme_ldv_retainer: mode retainer with bands= (GHC's -hr
 * -hbdrag,void, in one run): the retainer traversal labels the heap at
 * each census, the biography follows every object as in mode ldv, and the
 * samples written at exit are the chosen bands' bytes by retainer set
 * (hp_ldv_byret_sigsafe.c). */
#include "ldv/hp_ldv_scheme.h"
#include "ldv/hp_ldv.h"
#include "ldv/hp_ldv_internal.h"
#include "retainer/hp_retainer.h"
#include "retainer/hp_rootrec.h"
#include "retainer/hp_trace.h"
#include "core/hp_helper.h"

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
    .moved_run = hp_ldv_moved_run,
    .death_quiet_from = hp_ldv_death_quiet_from,
    .after_sweep = hp_ldv_protect,
    .stop = hp_ldv_stop,
    .write_samples = hp_ldv_write_samples,
    .write_prof = hp_ldv_write_prof,
    .warnings = hp_ldv_warnings,
    .checkpoint_begin = hp_ldv_checkpoint_begin,
    .checkpoint_rec = hp_ldv_checkpoint_rec,
    .checkpoint_samples = hp_ldv_checkpoint_samples,
};

static int byret_init(void)
{
    if (hp_trace_init() != 0 || hp_rootrec_init() != 0 || hp_retainer_init() != 0 ||
        hp_ldv_byret_init() != 0)
        return -1;
    /* The traversal reads pages ldv protects: the walk stays on the
     * collecting thread, whose faults the handler serves. */
    hp_helper_forbid();
    return 0;
}

static void byret_sweep_begin(size_t len)
{
    hp_ldv_byret_sweep_begin(len);
    hp_ldv_sweep_begin(len);
}

static void byret_moved(size_t from, size_t to)
{
    hp_ldv_moved(from, to);
    hp_ldv_byret_moved(from, to);
}

static void byret_warnings(hp_buf *b)
{
    hp_retainer_warnings(b);
    hp_ldv_warnings(b);
}

static void byret_after_sweep(void)
{
    hp_ldv_byret_after_sweep();
    hp_ldv_protect();
}

const hp_scheme hp_scheme_ldv_retainer = {
    .name = "ldv by retainer set",
    .traverses = 1,
    .init = byret_init,
    .start = hp_ldv_start,
    .attach = hp_ldv_attach,
    .collection_start = hp_ldv_collection_start,
    .before_stop = hp_retainer_prepare,
    .traverse = hp_retainer_traverse,
    .mark_end = hp_rootrec_reset,
    .census_begin = hp_ldv_census_begin,
    .label_of = hp_ldv_byret_label_of,
    .census_rec = hp_ldv_byret_census_rec,
    .on_death = hp_ldv_byret_on_death,
    .sweep_begin = byret_sweep_begin,
    .moved = byret_moved,
    .dropped = hp_ldv_dropped,
    .census_done = hp_retainer_census_done,
    .after_sweep = byret_after_sweep,
    .stop = hp_ldv_stop,
    .postfork_child = hp_ldv_byret_postfork_child,
    .write_samples = hp_ldv_write_samples,
    .write_prof = hp_ldv_byret_write_prof,
    .warnings = byret_warnings,
    .checkpoint_begin = hp_ldv_checkpoint_begin,
    .checkpoint_rec = hp_ldv_checkpoint_rec,
    .checkpoint_samples = hp_ldv_checkpoint_samples,
};
