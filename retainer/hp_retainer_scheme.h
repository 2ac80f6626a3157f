/* hp_retainer_scheme: the retainer profile's table of operations (level 3;
 * hp_scheme.h): hp_scheme_retainer makes the bands of mode retainer;
 * hp_scheme_retainer_filter labels the heap with retainer sets for the
 * rset= filter of another mode, without bands of its own. */
#ifndef HP_RETAINER_SCHEME_H
#define HP_RETAINER_SCHEME_H
#include "core/hp_scheme.h"

extern const hp_scheme hp_scheme_retainer, hp_scheme_retainer_filter;

#endif
