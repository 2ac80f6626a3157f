/* hp_blocks: whether the heap page of an object still holds a block in use,
 * for the passes that ask the collector's mark bit of many records after a
 * collection (the sweep, the retainer profile's pass over what its walk
 * did not reach). A block freed by this very collection's reclaim may have
 * had its header merged away, and GC_is_marked would then crash: GC_base
 * says whether the page is in use. It is asked once per page and kept in a
 * small direct-mapped table for the pass: records come in allocation
 * order, and a program that makes objects of several sizes in turn moves
 * between as many pages at every record (Guile: a string, its buffer, two
 * pairs), so keeping the last page only asked GC_base for nearly every
 * record. Nothing changes blocks while such a pass runs (the collector's
 * lock is held). Inline only; async-signal-safe (no lock, no allocation). */
#ifndef HP_BLOCKS_H
#define HP_BLOCKS_H
#include <stdint.h>
#include <string.h>

#include "core/hp_real.h"

#define HP_BLOCKS_PAGES 256   /* 2.3 KB: the table lives on the pass's stack */

typedef struct hp_blocks {
    uintptr_t page[HP_BLOCKS_PAGES];   /* page + 1; 0: none */
    uint8_t in_use[HP_BLOCKS_PAGES];
} hp_blocks;

static inline void hp_blocks_init(hp_blocks *b) { memset(b->page, 0, sizeof b->page); }

/* Does the page of `base` hold a block in use? */
static inline int hp_blocks_in_use(hp_blocks *b, uintptr_t base)
{
    uintptr_t pg = base >> 12;
    unsigned k = (unsigned)(pg & (HP_BLOCKS_PAGES - 1));
    if (b->page[k] != pg + 1) {
        b->page[k] = pg + 1;
        b->in_use[k] = hp_real.GC_base((void *)base) != NULL;
    }
    return b->in_use[k];
}

#endif
