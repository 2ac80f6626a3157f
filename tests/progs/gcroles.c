/* gcroles: what the collector keeps alive for its own reasons, and an
 * object grown in place (issue "retainers on real runtimes"); every byte
 * must be attributed:
 *  - finalizers' client data: 40 objects held only as the client data of
 *    finalizers registered on objects a static array keeps
 *    (gc:finalization: libgc's finalization table holds them);
 *  - objects whose finalizer is due: with finalization on demand, 30
 *    finalizable objects dropped by the program, each holding a chain of
 *    its own, are kept (with their chains) until their finalizers run:
 *    gc:finalization (marked after the mark phase at the collection that
 *    finds them unreachable, through the list of due finalizers after);
 *  - a block grown in place with GC_realloc whose pointers sit in the
 *    grown part: what they point to is held by g_grown (the traversal
 *    scanned only the size at allocation: "not reached").
 * Prints "EXPECT <retainer> <bytes>" (sizes from GC_size) for the census
 * of its last GC_gcollect. */
#include <gc/gc.h>
#include "gc_chain.h"
#include <stdio.h>
#include <string.h>

typedef struct node { struct node *next; char pad[40]; } node;

static void *g_keep[40];
static char *g_grown;
static int finalized;

static void count_final(void *obj, void *cd)
{
    (void)obj;
    (void)cd;
    finalized++;
}

static size_t by_keep, by_final, by_grown;

/* Everything is made here, so that no pointer is left in main's frame. */
__attribute__((noinline)) static void setup(void)
{
    for (int i = 0; i < 40; i++) {
        g_keep[i] = GC_MALLOC(32);
        by_keep += GC_size(g_keep[i]);
        void *cd = GC_MALLOC(200);
        by_final += GC_size(cd);
        GC_REGISTER_FINALIZER_NO_ORDER(g_keep[i], count_final, cd, NULL, NULL);
    }
    for (int i = 0; i < 30; i++) {
        node **doomed = GC_MALLOC(sizeof(node *));
        by_final += GC_size(doomed);
        by_final += prog_chain((void **)doomed, 5, sizeof(node));
        GC_REGISTER_FINALIZER_NO_ORDER(doomed, count_final, NULL, NULL, NULL);
    }
    /* A large object (more than half a block) grows in place: libgc
     * rounds it up to whole blocks. */
    g_grown = GC_MALLOC(2500);
    size_t before = GC_size(g_grown);
    g_grown = GC_REALLOC(g_grown, 4000);
    if (GC_size(g_grown) <= before) {
        printf("GC_realloc did not grow in place (%zu -> %zu)\n", before, GC_size(g_grown));
        return;
    }
    by_grown += GC_size(g_grown);
    node *tail;
    by_grown += prog_chain((void **)&tail, 20, sizeof(node));
    memcpy(g_grown + 3800, &tail, sizeof tail);
}

__attribute__((noinline)) static void scrub(void)
{
    volatile char junk[16384];
    memset((char *)junk, 0, sizeof junk);
}

int main(void)
{
    GC_INIT();
    GC_set_finalize_on_demand(1);   /* due finalizers wait: their objects stay */
    setup();
    scrub();
    GC_gcollect();
    GC_gcollect();
    printf("EXPECT g_keep %zu\n", by_keep);
    printf("EXPECT gc:finalization %zu\n", by_final);
    printf("EXPECT g_grown %zu\n", by_grown);
    printf("finalized %d\n", finalized);
    return 0;
}
