/* progs.h: helpers shared by the programs that heapprof's integration tests
 * run (tests/progs/): a deterministic collector set-up and a stack scrubber,
 * so that censuses happen only at explicit GC_gcollect() calls and dropped
 * objects are not kept alive by stale stack slots. */
#ifndef HP_PROGS_H
#define HP_PROGS_H

#include <stddef.h>
#include <string.h>

/* A big initial heap: no automatic collection in a small test program. */
#define HP_PROG_HEAP ((size_t)256 << 20)

/* Overwrite the dead part of the stack below the caller, where earlier
 * calls may have left pointers to objects the program has dropped. */
__attribute__((noinline, unused)) static void scrub_stack(void)
{
    volatile char buf[32768];
    memset((char *)buf, 0, sizeof buf);
}

#endif
