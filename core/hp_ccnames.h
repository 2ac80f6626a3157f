/* hp_ccnames: names of explicit cost centres (heapprof_cc_push), interned:
 * the same text always gets the same id; names are copied. */
#ifndef HP_CCNAMES_H
#define HP_CCNAMES_H
#include <stdint.h>

int hp_ccnames_init(void);
/* Id of `name` (at most 255 bytes kept); UINT32_MAX if out of memory. */
uint32_t hp_ccnames_intern(const char *name);
/* The name with this id (lock-free). */
const char *hp_ccnames_get(uint32_t id);

#endif
