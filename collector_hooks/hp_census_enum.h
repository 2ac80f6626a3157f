/* hp_census_enum: a census without records (mode kind, stacks=no): see
 * hp_census_enum_sigsafe.c. */
#ifndef HP_CENSUS_ENUM_H
#define HP_CENSUS_ENUM_H
#include <stdint.h>

/* Add every object the last collection marked to its band (allocation
 * lock held, after the collection, before the next). The objects' bytes
 * and count; 0, or -1 when the collector has no such walk. */
int hp_census_enumerate(uint64_t *bytes, uint64_t *objects);

#endif
