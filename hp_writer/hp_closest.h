/* hp_closest: the names nearest to one that matched nothing, for messages
 * such as "ccs=mak matched no stack; the closest names: make, main".
 * Nearness is the edit distance (Levenshtein, ignoring case) over the
 * first 127 bytes, a name containing the wanted one counting as distance
 * 1; only names within max(2, half the wanted length) are kept, the three
 * nearest (the first offered wins a tie, and a name offered twice counts
 * once). Signal-safe: fixed buffers, no allocation. */
#ifndef HP_CLOSEST_H
#define HP_CLOSEST_H
#include <stddef.h>

#include "core/hp_buf.h"

#define HP_CLOSEST_KEEP 3
#define HP_CLOSEST_LEN 128

typedef struct hp_closest {
    char want[HP_CLOSEST_LEN];
    char best[HP_CLOSEST_KEEP][HP_CLOSEST_LEN];
    int dist[HP_CLOSEST_KEEP];
    int n;
} hp_closest;

void hp_closest_init(hp_closest *c, const char *want);
/* Offer the name name[0..len). */
void hp_closest_offer(hp_closest *c, const char *name, size_t len);
/* The kept names, nearest first, ", " between them, into out; 0 when none. */
int hp_closest_print(const hp_closest *c, hp_buf *out);

#endif
