/* reblock: a heap block freed and at once reused for objects of another
 * size, with no collection between (integration test of the allocation
 * path's page cache, preload/hp_wrappers.c: the kind and size of the last
 * page an object was recorded on hold only until a block may be freed).
 * big() allocates one 16 KiB object and GC_free's it: its block goes back
 * to the collector at once; small() then allocates 200 objects of 40 bytes,
 * the first of them (the collector carves a fresh block from the freed
 * one) on the big object's first page. Prints "big SIZE", "small SIZE" and
 * "same_page N" (1 when a small object starts on the big object's page:
 * the scenario was exercised); then one census; exit. */
#include <gc/gc.h>
#include <stdint.h>
#include <stdio.h>

#include "progs.h"

#define NSMALL 200

static void *small_keep[NSMALL];
static uintptr_t big_page;

__attribute__((noinline)) static void big(void)
{
    void *p = GC_malloc(16384);
    big_page = (uintptr_t)p >> 12;
    printf("big %zu\n", GC_size(p));
    GC_free(p);
}

__attribute__((noinline)) static void small(void)
{
    for (int i = 0; i < NSMALL; i++) small_keep[i] = GC_malloc(40);
}

int main(void)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    big();
    small();
    int same = 0;
    for (int i = 0; i < NSMALL; i++)
        if ((uintptr_t)small_keep[i] >> 12 == big_page) same = 1;
    printf("small %zu\nsame_page %d\n", GC_size(small_keep[0]), same);
    scrub_stack();
    GC_gcollect();                         /* census: small */
    return 0;
}
