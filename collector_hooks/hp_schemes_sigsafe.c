/* hp_schemes_sigsafe: which schemes a run uses (see hp_schemes.h), and the census's
 * by-stack schemes: cc (bands by cost-centre stack) and module (by the
 * allocating function's module). Async-signal-safe: the finisher asks
 * which schemes are active. */
#include "collector_hooks/hp_schemes.h"
#include "hp_writer/hp_names.h"
#include "ldv/hp_ldv_scheme.h"
#include "retainer/hp_retainer_scheme.h"
#include "roots/hp_roots_scheme.h"

const hp_scheme hp_scheme_cc = {
    .name = "cc",
    .stack_label = hp_names_label_of,
};

const hp_scheme hp_scheme_module = {
    .name = "module",
    .stack_label = hp_names_module_label_of,
};

static const hp_scheme *active[2];
static int nactive;

void hp_schemes_select(const hp_config *cfg)
{
    const hp_scheme *primary;
    switch (cfg->mode) {
    case HP_MODE_RETAINER:
        /* bands=: the biography's bands by retainer set (-hr -hbdrag,void). */
        primary = cfg->ldv_bands ? &hp_scheme_ldv_retainer : &hp_scheme_retainer;
        break;
    case HP_MODE_ROOTS: primary = &hp_scheme_roots; break;
    case HP_MODE_LDV: primary = &hp_scheme_ldv; break;
    case HP_MODE_MODULE: primary = &hp_scheme_module; break;
    case HP_MODE_KIND: primary = &hp_scheme_kind; break;
    case HP_MODE_CC: default: primary = &hp_scheme_cc; break;
    }
    nactive = 0;
    active[nactive++] = primary;
    /* rset= in another mode: the retainer traversal labels the heap for
     * the filter (and adds its .prof section), without bands of its own. */
    if (cfg->filter_rset[0] && primary != &hp_scheme_retainer)
        active[nactive++] = &hp_scheme_retainer_filter;
}

const hp_scheme *hp_schemes_primary(void) { return active[0]; }

const hp_scheme *const *hp_schemes_active(int *n)
{
    *n = nactive;
    return active;
}

int hp_schemes_traverse(void)
{
    for (int i = 0; i < nactive; i++)
        if (active[i]->traverses) return 1;
    return 0;
}
