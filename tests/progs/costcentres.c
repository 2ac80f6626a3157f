/* costcentres: explicit cost centres through include/heapprof.h
 * (integration test 8). Under "outer" and "inner" it keeps 30 objects of 56
 * bytes, under "outer" alone 10 of 24 bytes, then with no centre pushed 5
 * of 40 bytes at plain(). Its output does not depend on heapprof being
 * loaded: run without LD_PRELOAD it must print the same. */
#include <gc/gc.h>
#include <stdio.h>

#include "heapprof.h"
#include "progs.h"

#define NI 30
#define NO 10
#define NP 5

static void *inner_keep[NI], *outer_keep[NO], *plain_keep[NP];

__attribute__((noinline)) static void alloc_n(void **keep, int n, size_t size)
{
    for (int i = 0; i < n; i++) keep[i] = GC_malloc(size);
}

__attribute__((noinline)) static void plain(void) { alloc_n(plain_keep, NP, 40); }

int main(void)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    heapprof_cc_push("outer");
    heapprof_cc_push("inner");
    alloc_n(inner_keep, NI, 56);
    heapprof_cc_pop();
    alloc_n(outer_keep, NO, 24);
    heapprof_cc_pop();
    plain();
    printf("inner/outer %d %zu\n", NI, GC_size(inner_keep[0]));
    printf("outer %d %zu\n", NO, GC_size(outer_keep[0]));
    printf("alloc_n/plain/main %d %zu\n", NP, GC_size(plain_keep[0]));
    fflush(stdout);
    scrub_stack();
    GC_gcollect();
    return 0;
}
