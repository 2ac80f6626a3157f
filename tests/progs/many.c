/* many: GC_malloc_many batches (integration test 4). batch() asks for
 * three lists of 24-byte objects and keeps them; every object of every list
 * must be counted. Prints the total list length and the granted size. */
#include <gc/gc.h>
#include <stdio.h>

#include "progs.h"

#define NLISTS 3

static void *lists[NLISTS];

__attribute__((noinline)) static void batch(void)
{
    for (int i = 0; i < NLISTS; i++) lists[i] = GC_malloc_many(24);
}

int main(void)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    batch();
    size_t count = 0, size = 0;
    for (int i = 0; i < NLISTS; i++)
        for (void *p = lists[i]; p; p = GC_NEXT(p)) {
            count++;
            if (size == 0) size = GC_size(p);
            else if (GC_size(p) != size) printf("mixed sizes\n");
        }
    printf("count %zu size %zu\n", count, size);
    scrub_stack();
    GC_gcollect();
    return 0;
}
