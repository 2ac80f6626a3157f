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
/* The ranges pushed since the last reset (world stopped, lock held). In
 * incremental mode the collector pushes roots in the first increment of a
 * mark cycle and stacks again in later ones, so ranges accumulate over the
 * whole cycle; a later push of a thread's stack supersedes earlier ones. */
const hp_root_range *hp_rootrec_ranges(size_t *n, int *overflowed);
/* A mark cycle is complete (MARK_END): start afresh. */
void hp_rootrec_reset(void);

#endif
