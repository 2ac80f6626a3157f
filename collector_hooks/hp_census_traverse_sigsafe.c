/* hp_census_traverse_sigsafe: the census's part of MARK_END (see
 * hp_census.h): with the world stopped, take the logs into the table and
 * let the schemes that traverse label the heap. Nothing here may wait for
 * a stopped thread: no lock, no allocation (hp_shadow_drain takes none). */
#include "collector_hooks/hp_census.h"
#include "collector_hooks/hp_census_state.h"
#include "collector_hooks/hp_schemes.h"
#include "core/hp_assert.h"
#include "core/hp_blocks.h"
#include "core/hp_helper.h"
#include "core/hp_real.h"
#include "core/hp_rt.h"
#include "core/hp_shadow.h"

int hp_census_traversed;

/* Marked at the mark phase's end: the records a walk can reach (the rest
 * are set aside: core/hp_shadow_sigsafe.c, Note [Set aside at a
 * traversal]). GC_is_marked only where a block is in use. */
static int marked(uintptr_t base, void *ctx)
{
    hp_blocks *b = ctx;
    return hp_blocks_in_use(b, base) && hp_real.GC_is_marked((void *)base) != 0;
}

void hp_census_traverse(uint64_t mark_ns)
{
    HP_ASSERT_WORLD_STOPPED();
    if (!hp_schemes_traverse()) return;
    uint64_t t0 = hp_mono_ns();
    hp_blocks blocks;
    hp_blocks_init(&blocks);
    (void)hp_shadow_drain_marked(marked, &blocks);
    HP_SCHEMES_EACH(traverse, mark_ns);
    /* The helper thread a traversal made (core/hp_helper.h, Note [A kept
     * helper]) is gone before the world restarts, whichever way it
     * returned. */
    hp_helper_end();
    hp_census_traversed = 1;
    hp_cf.census_ns += hp_mono_ns() - t0;
}

void hp_census_mark_end(void) { HP_SCHEMES_EACH(mark_end); }
