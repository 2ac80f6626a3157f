/* remerge: two large objects GC_free'd, their blocks merged by the
 * collector into one free block, which a larger object then takes whole,
 * with no collection between (integration test of frees noted against a
 * log, core/hp_shadow_internal.h, Note [Frees against a log]): the freed
 * object at the higher address now lies inside the new one, where the
 * collector's mark test reads no block header of its own. pair() allocates
 * two 16 KiB objects and frees them; whole() allocates one of 32 KiB and
 * keeps it. Prints "big SIZE", "whole SIZE" and "inside N" (1 when a freed
 * object's base lies inside the new one, past its start: the scenario was
 * exercised); then one census; exit. */
#include <gc/gc.h>
#include <stdint.h>
#include <stdio.h>

#include "progs.h"

static void *whole_keep;
static uintptr_t freed_at[2];

__attribute__((noinline)) static void pair(void)
{
    void *a = GC_malloc(16384), *b = GC_malloc(16384);
    freed_at[0] = (uintptr_t)a;
    freed_at[1] = (uintptr_t)b;
    printf("big %zu\n", GC_size(a));
    GC_free(a);
    GC_free(b);
}

__attribute__((noinline)) static void whole(void)
{
    whole_keep = GC_malloc(32768);
}

int main(void)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    pair();
    whole();
    uintptr_t lo = (uintptr_t)whole_keep, hi = lo + GC_size(whole_keep);
    int inside = 0;
    for (int i = 0; i < 2; i++)
        if (freed_at[i] > lo && freed_at[i] < hi) inside = 1;
    printf("whole %zu\ninside %d\n", GC_size(whole_keep), inside);
    scrub_stack();
    GC_gcollect();                         /* census: whole */
    return 0;
}
