/* hp_roots_scheme: the profile by user-named roots as a scheme (level 3;
 * hp_scheme.h). */
#ifndef HP_ROOTS_SCHEME_H
#define HP_ROOTS_SCHEME_H
#include "core/hp_scheme.h"

extern const hp_scheme hp_scheme_roots;

#endif
