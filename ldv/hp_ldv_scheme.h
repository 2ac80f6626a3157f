/* hp_ldv_scheme: the lag/drag/void/use profile as a scheme (level 3;
 * hp_scheme.h). */
#ifndef HP_LDV_SCHEME_H
#define HP_LDV_SCHEME_H
#include "core/hp_scheme.h"

extern const hp_scheme hp_scheme_ldv;

#endif
