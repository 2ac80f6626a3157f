/* hp_census_filter_sigsafe: the profile's filters (see hp_census_filter.h).
 * Async-signal-safe: the signal finisher's census applies them too. */
#include "collector_hooks/hp_census_filter.h"
#include "core/hp_kinds.h"
#include "core/hp_mem.h"
#include "hp_writer/hp_names.h"
#include "retainer/hp_retainer.h"

#include <string.h>

static const hp_config *conf;
static int any;
static int kind_code = -1;        /* kind= as hp_kind_code, or -1 */
static hp_vec by_stack;           /* uint8_t[ccs]: 0 unknown, 1 in, 2 out (ccs=, module=) */

int hp_filter_init(const hp_config *cfg)
{
    conf = cfg;
    any = cfg->filter_ccs[0] || cfg->filter_module[0] || cfg->filter_kind[0] ||
          cfg->filter_rset[0];
    if (cfg->filter_kind[0]) kind_code = hp_kind_parse(cfg->filter_kind);
    return hp_vec_reserve(&by_stack, (size_t)1 << 28);
}

int hp_filter_any(void) { return any; }

int hp_filter_passes(const hp_rec *r)
{
    if (!any) return 1;
    if (kind_code >= 0) {
        int cat = hp_kind_category(r);
        if (!hp_kind_matches(cat, hp_kind_code(r, cat), kind_code)) return 0;
    }
    if (conf->filter_rset[0] && !hp_retainer_set_matches(r)) return 0;
    if (!conf->filter_ccs[0] && !conf->filter_module[0]) return 1;
    if (hp_vec_ensure(&by_stack, (size_t)r->ccs + 1) != 0) return 1;
    uint8_t *f = (uint8_t *)by_stack.base + r->ccs;
    if (!*f) {
        int in = 1;
        if (conf->filter_ccs[0] && !hp_names_has_function(r->ccs, conf->filter_ccs))
            in = 0;
        if (conf->filter_module[0] &&
            strcmp(hp_names_module(r->ccs), conf->filter_module) != 0)
            in = 0;
        *f = in ? 1 : 2;
    }
    return *f == 1;
}
