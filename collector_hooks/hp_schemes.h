/* hp_schemes: the profile of this run, chosen once at start-up (level 2).
 *
 * The primary scheme makes the bands (cc, module, kind, retainer, roots,
 * ldv); a retainer filter (rset= in modes cc, module, kind) adds the
 * retainer scheme's traversal as a second, silent scheme. hp_schemes.c is
 * the one place in heapprof that switches on the mode. */
#ifndef HP_SCHEMES_H
#define HP_SCHEMES_H
#include "core/hp_config.h"
#include "core/hp_scheme.h"

/* Choose the schemes for `cfg`. */
void hp_schemes_select(const hp_config *cfg);
/* The scheme whose bands the profile shows. */
const hp_scheme *hp_schemes_primary(void);
/* Every active scheme (the primary first): *n of them. */
const hp_scheme *const *hp_schemes_active(int *n);
/* Does a census need a heap traversal? (some active scheme traverses) */
int hp_schemes_traverse(void);

/* The census's own schemes (collector_hooks/). */
extern const hp_scheme hp_scheme_cc, hp_scheme_module, hp_scheme_kind;

/* Call `op` of every active scheme that has it. */
#define HP_SCHEMES_EACH(op, ...)                                  \
    do {                                                          \
        int n_;                                                   \
        const hp_scheme *const *s_ = hp_schemes_active(&n_);      \
        for (int i_ = 0; i_ < n_; i_++)                           \
            if (s_[i_]->op) s_[i_]->op(__VA_ARGS__);              \
    } while (0)

#endif
