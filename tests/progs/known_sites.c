/* known_sites: two allocation sites with known sizes (integration tests 1,
 * 10 and 12). f() keeps 100 objects of 24 bytes, g() keeps 50 of 100 bytes,
 * in global arrays; census; f's objects are dropped; census; exit (final
 * census). Prints the granted size of one object of each site. */
#include <gc/gc.h>
#include <stdio.h>

#include "progs.h"

#define NF 100
#define NG 50

static void *fkeep[NF];
static void *gkeep[NG];

__attribute__((noinline)) static void f(void)
{
    for (int i = 0; i < NF; i++) fkeep[i] = GC_malloc(24);
}

__attribute__((noinline)) static void g(void)
{
    for (int i = 0; i < NG; i++) gkeep[i] = GC_malloc(100);
}

int main(void)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    f();
    g();
    printf("f %d %zu\n", NF, GC_size(fkeep[0]));
    printf("g %d %zu\n", NG, GC_size(gkeep[0]));
    fflush(stdout);
    scrub_stack();
    GC_gcollect();                         /* census: f and g */
    memset(fkeep, 0, sizeof fkeep);
    scrub_stack();
    GC_gcollect();                         /* census: g only */
    return 0;
}
