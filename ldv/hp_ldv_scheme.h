/* hp_ldv_scheme: the lag/drag/void/use profile as a scheme (level 3;
 * hp_scheme.h): hp_scheme_ldv (mode ldv), and hp_scheme_ldv_retainer
 * (mode retainer with bands=: the chosen bands by retainer set). */
#ifndef HP_LDV_SCHEME_H
#define HP_LDV_SCHEME_H
#include "core/hp_scheme.h"

extern const hp_scheme hp_scheme_ldv, hp_scheme_ldv_retainer;

#endif
