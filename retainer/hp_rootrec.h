/* hp_rootrec: the root ranges the collector scans, seen as it pushes them.
 *
 * bdwgc has no call that lists its roots, but it pushes every root range
 * (static data of each module less its exclusions, each thread's stack and
 * saved registers, GC_add_roots ranges, its own finalization structures,
 * and whatever a program's GC_push_other_roots pushes) through the exported
 * GC_push_all / GC_push_all_eager, through the PLT. heapprof defines both,
 * records each range pushed between MARK_START and MARK_END, and forwards.
 * The collecting thread's own stack part near its stack pointer is copied
 * when pushed: by MARK_END the profiler's own frames overwrite it. */
#ifndef HP_ROOTREC_H
#define HP_ROOTREC_H
#include <stddef.h>
#include <stdint.h>

typedef struct hp_root_range {
    uintptr_t lo, hi;         /* as pushed */
    const unsigned char *copy;/* a snapshot of [lo, lo + copied), or NULL */
    size_t copied;
    uint8_t eager;            /* pushed with GC_push_all_eager: interior pointers valid */
} hp_root_range;

int hp_rootrec_init(void);
/* Collection events (allocation lock held, world stopped). */
void hp_rootrec_mark_start(void);
/* The ranges recorded since mark start; recording stops. */
const hp_root_range *hp_rootrec_ranges(size_t *n, int *overflowed);

#endif
