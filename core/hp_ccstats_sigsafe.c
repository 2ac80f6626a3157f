/* hp_ccstats_sigsafe: per-stack figures (see hp_ccstats.h).
 * Async-signal-safe: the SIGINT/SIGTERM finisher takes its census here. */
#include "core/hp_ccstats.h"
#include "core/hp_mem.h"
#include "core/hp_stacks.h"

#include <string.h>

hp_alloc_totals hp_totals;
static hp_vec stats_vec;          /* hp_ccs_stats[ccs] */
static uint32_t nstats;           /* entries in use */

int hp_ccstats_init(void) { return hp_vec_reserve(&stats_vec, (size_t)1 << 32); }

hp_ccs_stats *hp_ccstats_all(void)
{
    uint32_t n = hp_stacks_count();
    if (n > nstats) {
        if (hp_vec_ensure(&stats_vec, (size_t)n * sizeof(hp_ccs_stats)) != 0) return NULL;
        nstats = n;
    }
    return (hp_ccs_stats *)stats_vec.base;
}

hp_ccs_stats *hp_ccstats_table(uint32_t *n)
{
    *n = nstats;
    return (hp_ccs_stats *)stats_vec.base;
}

void hp_ccstats_reset(void)
{
    if (stats_vec.base) memset(stats_vec.base, 0, (size_t)nstats * sizeof(hp_ccs_stats));
    memset(&hp_totals, 0, sizeof hp_totals);
}
