/* walks: three heaps in turn for the retainer profile's choice of walk
 * (walk=auto, doc/retainers.md), each kept over PHASE collections:
 *  A. a list of N nodes reached from 8 static variables: every node's set
 *     has 8 members (a depth-first walk from each root would scan the list
 *     once per root);
 *  B. that list dropped; a list reached from one static variable: one
 *     member a node (a depth-first walk scans each node once);
 *  C. the list of B reached from the 8 variables again.
 * Prints "PHASES <a> <b> <c>", the collections of each phase. */
#include "progs.h"

#include <gc/gc.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct node { struct node *next; long pad[3]; } node;

static node *g_root0, *g_root1, *g_root2, *g_root3, *g_root4, *g_root5, *g_root6,
    *g_root7;

#define N 20000
#define PHASE 4

static node *list(int n)
{
    node *head = NULL;
    for (int i = 0; i < n; i++) {
        node *x = GC_MALLOC(sizeof *x);
        x->next = head;
        head = x;
    }
    return head;
}

/* Each variable holds the list from a node of its own (the last holds its
 * head): each node is reached by the variables before it. */
static void share(node *head)
{
    node **vars[8] = {&g_root0, &g_root1, &g_root2, &g_root3, &g_root4, &g_root5, &g_root6,
                      &g_root7};
    for (int v = 0; v < 8; v++) *vars[v] = head;
}

static void collections(void)
{
    for (int i = 0; i < PHASE; i++) {
        scrub_stack();
        GC_gcollect();
    }
}

int main(void)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    share(list(N));
    collections();
    share(NULL);
    g_root0 = list(N);
    collections();
    share(g_root0);
    collections();
    printf("PHASES %d %d %d\n", PHASE, PHASE, PHASE);
    return 0;
}
