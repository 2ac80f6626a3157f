/* finalizers: objects allocated by finalizers are the program's objects
 * (integration test 9). Phase 1: 4 unreachable objects with finalizer
 * on_final, run by GC_gcollect(); each finalizer keeps 3 objects of 48
 * bytes allocated in fin_alloc(). Phase 2: with finalize-on-demand set
 * during the collection, 4 more objects' finalizers (on_final2) are queued
 * and then run inside an allocation: trigger()'s GC_malloc(5000), which
 * invokes pending finalizers first; each keeps 2 objects of 100 bytes from
 * fin_alloc2(). Prints the finalizer counts and sizes. */
#include <gc/gc.h>
#include <stdio.h>

#include "progs.h"

#define NOBJ 4
#define PER1 3
#define PER2 2

static void *fin_keep[NOBJ * PER1], *fin_keep2[NOBJ * PER2], *big;
static int nfin, nfin2, nkeep, nkeep2, in_trigger, fin2_inside;

/* Finalizers may run nested inside the GC_malloc calls made here (the
 * collector runs pending finalizers on its slow path): count as we go. */
__attribute__((noinline)) static void fin_alloc(void)
{
    for (int i = 0; i < PER1; i++) {
        void *p = GC_malloc(48);
        if (nkeep < NOBJ * PER1) fin_keep[nkeep++] = p;
    }
}

__attribute__((noinline)) static void fin_alloc2(void)
{
    for (int i = 0; i < PER2; i++) {
        void *p = GC_malloc(100);
        if (nkeep2 < NOBJ * PER2) fin_keep2[nkeep2++] = p;
    }
}

static void on_final(void *obj, void *cd)
{
    (void)obj;
    (void)cd;
    nfin++;
    fin_alloc();
}

static void on_final2(void *obj, void *cd)
{
    (void)obj;
    (void)cd;
    if (in_trigger) fin2_inside++;
    nfin2++;
    fin_alloc2();
}

__attribute__((noinline)) static void doomed(GC_finalization_proc fn)
{
    for (int i = 0; i < NOBJ; i++) GC_register_finalizer(GC_malloc(16), fn, NULL, NULL, NULL);
}

__attribute__((noinline)) static void trigger(void)
{
    in_trigger = 1;
    big = GC_malloc(5000);
    in_trigger = 0;
}

int main(void)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);

    doomed(on_final);
    scrub_stack();
    GC_gcollect();                       /* on_final runs after this collection */

    doomed(on_final2);
    GC_set_finalize_on_demand(1);
    scrub_stack();
    GC_gcollect();                       /* queued, not run */
    int queued_not_run = nfin2 == 0;
    GC_set_finalize_on_demand(0);
    trigger();                           /* runs on_final2 inside GC_malloc */

    printf("on_final %d fin_alloc %d %zu\n", nfin, nkeep, GC_size(fin_keep[0]));
    printf("on_final2 %d fin_alloc2 %d %zu inside %d queued %d\n", nfin2, nkeep2,
           GC_size(fin_keep2[0]), fin2_inside, queued_not_run);
    printf("trigger 1 %zu\n", GC_size(big));
    fflush(stdout);
    scrub_stack();
    GC_gcollect();
    return 0;
}
