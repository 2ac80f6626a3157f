/* hp_census_filter_sigsafe: the profile's filters (see hp_census_filter.h).
 * Async-signal-safe: the signal finisher's census applies them too. */
#include "collector_hooks/hp_census_filter.h"
#include "core/hp_kinds.h"
#include "core/hp_mem.h"
#include "hp_writer/hp_names.h"
#include "retainer/hp_retainer.h"
#include "hp_writer/hp_closest.h"
#include "core/hp_ccstats.h"

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

/* ---- Filters that matched nothing (hp_filter_warnings). ---- */

static void offer_frames(hp_closest *c, const char *stack)
{
    for (const char *p = stack; *p;) {
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        hp_closest_offer(c, p, len);
        if (!end) break;
        p = end + 1;
    }
}

static void unmatched(hp_buf *out, const char *key, const char *flag, const char *value,
                      const char *what, const hp_closest *c)
{
    hp_buf_str(out, "warning: ");
    hp_buf_str(out, key);
    hp_buf_chr(out, '=');
    hp_buf_str(out, value);
    hp_buf_str(out, " (");
    hp_buf_str(out, flag);
    hp_buf_str(out, ") matched nothing: ");
    hp_buf_str(out, what);
    if (c && c->n) {
        hp_buf_str(out, "; the closest names: ");
        hp_closest_print(c, out);
    } else {
        hp_buf_str(out, "; no name is close (the .prof's tables list the names there are)");
    }
    hp_buf_chr(out, '\n');
}

void hp_filter_warnings(hp_buf *out, const hp_ccs_stats *stats, uint32_t nccs)
{
    if (!any) return;
    if (conf->filter_ccs[0]) {
        int hit = 0;
        hp_closest c;
        hp_closest_init(&c, conf->filter_ccs);
        for (uint32_t i = 0; i < nccs && !hit; i++) {
            if (!stats[i].objects) continue;
            if (hp_names_has_function(i, conf->filter_ccs)) hit = 1;
            else offer_frames(&c, hp_names_short(i));
        }
        if (!hit)
            unmatched(out, "ccs", "-hC", conf->filter_ccs,
                      "no allocation had a function of that name on its stack", &c);
    }
    if (conf->filter_module[0]) {
        int hit = 0;
        hp_closest c;
        hp_closest_init(&c, conf->filter_module);
        for (uint32_t i = 0; i < nccs && !hit; i++) {
            if (!stats[i].objects) continue;
            const char *m = hp_names_module(i);
            if (strcmp(m, conf->filter_module) == 0) hit = 1;
            else hp_closest_offer(&c, m, strlen(m));
        }
        if (!hit)
            unmatched(out, "module", "-hM", conf->filter_module,
                      "no allocation was made in a module of that name", &c);
    }
    if (conf->filter_rset[0] && !hp_retainer_rset_matched()) {
        hp_closest c;
        hp_closest_init(&c, conf->filter_rset);
        hp_retainer_closest(&c);
        unmatched(out, "rset", "-hR", conf->filter_rset,
                  "no object's retainer set at any census held a retainer of that name", &c);
    }
}
