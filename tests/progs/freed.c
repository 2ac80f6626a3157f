/* freed: objects released with GC_free leave the profile at the next
 * census (integration test 2), even though the program still holds their
 * (dangling) addresses, and slots reused by a later allocation belong to
 * the new site. h() keeps 40 objects of 40 bytes, k() 20 of 40 bytes;
 * census; h's objects are GC_free'd (pointers kept); census; m() allocates
 * 41 objects of 40 bytes (40 of them in the freed slots); census; exit. */
#include <gc/gc.h>
#include <stdio.h>

#include "progs.h"

#define NH 40
#define NK 20
#define NM 41

static void *hkeep[NH];
static void *kkeep[NK];
static void *mkeep[NM];

__attribute__((noinline)) static void h(void)
{
    for (int i = 0; i < NH; i++) hkeep[i] = GC_malloc(40);
}

__attribute__((noinline)) static void k(void)
{
    for (int i = 0; i < NK; i++) kkeep[i] = GC_malloc(40);
}

__attribute__((noinline)) static void m(void)
{
    for (int i = 0; i < NM; i++) mkeep[i] = GC_malloc(40);
}

__attribute__((noinline)) static void release_h(void)
{
    for (int i = 0; i < NH; i++) GC_free(hkeep[i]);   /* hkeep[] keeps the addresses */
}

int main(void)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    h();
    k();
    printf("size %zu\n", GC_size(hkeep[0]));
    scrub_stack();
    GC_gcollect();                         /* census: h, k */
    release_h();
    scrub_stack();
    GC_gcollect();                         /* census: k */
    m();
    int reused = 0;
    for (int i = 0; i < NM; i++)
        for (int j = 0; j < NH; j++)
            if (mkeep[i] == hkeep[j]) reused++;
    printf("reused %d\n", reused);
    scrub_stack();
    GC_gcollect();                         /* census: k, m */
    return 0;
}
