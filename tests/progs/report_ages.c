/* report_ages: allocation sites whose objects survive known numbers of
 * collections, for the allocation report's BY COLLECTIONS SURVIVED section
 * (tests/integration/test_report.py). All objects are kept in global
 * arrays and dropped by clearing them (then the stack is scrubbed):
 *   f(): 10 x 24 bytes, dropped before collection C1       (survive 0)
 *   g(): 20 x 40 bytes, dropped after C1, before C2        (survive 1)
 *   h(): 30 x 100 bytes, dropped after C3, before C4       (survive 3)
 *   k(): 40 x 200 bytes, dropped after C5, before exit     (survive 5)
 *   l(): 5 x 16 bytes, allocated after C4, kept to exit    (C5 + exit's)
 * C1..C5 are the five explicit GC_gcollect() calls. Prints each site's
 * count and the granted size of one object. */
#include <gc/gc.h>
#include <stdio.h>

#include "progs.h"

#define NF 10
#define NG 20
#define NH 30
#define NK 40
#define NL 5

static void *fkeep[NF], *gkeep[NG], *hkeep[NH], *kkeep[NK], *lkeep[NL];

__attribute__((noinline)) static void f(void)
{
    for (int i = 0; i < NF; i++) fkeep[i] = GC_malloc(24);
}

__attribute__((noinline)) static void g(void)
{
    for (int i = 0; i < NG; i++) gkeep[i] = GC_malloc(40);
}

__attribute__((noinline)) static void h(void)
{
    for (int i = 0; i < NH; i++) hkeep[i] = GC_malloc(100);
}

__attribute__((noinline)) static void k(void)
{
    for (int i = 0; i < NK; i++) kkeep[i] = GC_malloc(200);
}

__attribute__((noinline)) static void l(void)
{
    for (int i = 0; i < NL; i++) lkeep[i] = GC_malloc(16);
}

__attribute__((noinline)) static void collect(void)
{
    scrub_stack();
    GC_gcollect();
}

int main(void)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    f();
    g();
    h();
    k();
    printf("f %d %zu\n", NF, GC_size(fkeep[0]));
    printf("g %d %zu\n", NG, GC_size(gkeep[0]));
    printf("h %d %zu\n", NH, GC_size(hkeep[0]));
    printf("k %d %zu\n", NK, GC_size(kkeep[0]));
    memset(fkeep, 0, sizeof fkeep);
    collect();                             /* C1: f dies; g, h, k survive */
    memset(gkeep, 0, sizeof gkeep);
    collect();                             /* C2: g dies; h, k survive */
    collect();                             /* C3: h, k survive */
    memset(hkeep, 0, sizeof hkeep);
    collect();                             /* C4: h dies; k survives */
    l();
    printf("l %d %zu\n", NL, GC_size(lkeep[0]));
    fflush(stdout);
    collect();                             /* C5: k, l survive */
    memset(kkeep, 0, sizeof kkeep);
    scrub_stack();
    return 0;                              /* exit's collection: k dies; l survives */
}
