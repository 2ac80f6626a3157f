/* graphs: random object graphs for the retainer profile's two walks, which
 * must give the same sets census by census (walk=depth, walk=components;
 * test_retainer.test_walks_agree_on_random_graphs). PHASES phases, each a
 * graph of N nodes kept over COLLECTIONS collections, reached from six
 * static variables, from three uncollectable holders (retainers, as
 * C++ containers made with gc_cpp are) and from 12,000 small ones made at
 * another site (enough for both walkers to resolve them:
 * retainer/hp_trace_scc_sigsafe.c, Note [Roots by two walkers]), then
 * dropped:
 *  - tree: every node referenced by one parent, plus a few extra
 *    references (1%) and back references (0.5%, cycles): most nodes are
 *    reached through one reference, which the component walk folds onto
 *    their heads (retainer/hp_trace_scc_sigsafe.c, Note [Tree nodes]);
 *  - mesh: three references a node, to nodes anywhere in the graph: most
 *    nodes are reached more than once, cycles everywhere: walked over
 *    every node.
 * A third of the nodes own a pointer-free leaf (GC_malloc_atomic, 16 to 48
 * bytes: retainer/hp_trace_scc_sigsafe.c, Note [Leaves are not scanned]),
 * a third share an earlier node's (a leaf reached twice, a head).
 * Phases alternate, tree first. Usage: graphs SEED [NODES [WIDE_MB]]
 * (NODES default 300,000: the component walk reduces only big heaps.
 * WIDE_MB, default 1: an object of that many megabytes is allocated and
 * freed first; 4096 spreads the collector's heap over far more pages than
 * the graphs use -- address space, not memory: it is never written -- so
 * that the traversal's page index is hashed, hp_trace_index.h Note [The
 * page map].) Prints "PHASES <phases> <collections>". */
#include "progs.h"

#include <gc/gc.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct node { struct node *e[3]; char *leaf; } node;
typedef struct holder { node *p[4]; } holder;
typedef struct small_holder { node *p; } small_holder;
#define SMALL_HOLDERS 12000
static small_holder *smalls[SMALL_HOLDERS];   /* (pointers to uncollectables: no root needed) */

static node *g_var0, *g_var1, *g_var2, *g_var3, *g_var4, *g_var5;
static node **const vars[6] = {&g_var0, &g_var1, &g_var2, &g_var3, &g_var4, &g_var5};

static unsigned N = 300000;   /* (the component walk reduces heaps of 2^18 nodes and more) */
#define PHASES 4
#define COLLECTIONS 3

static unsigned long rng;
static unsigned pick(unsigned n)
{
    rng = rng * 6364136223846793005ul + 1442695040888963407ul;
    return (unsigned)((rng >> 33) % n);
}

static node **nodes;   /* the phase's nodes, in a pointer-free array */

/* A free reference slot of `from` pointed at `to`; 0 when it has none. */
static int link(node *from, node *to)
{
    for (int k = 0; k < 3; k++)
        if (!from->e[k]) {
            from->e[k] = to;
            return 1;
        }
    return 0;
}

static char *leaf_for(unsigned i)
{
    switch (pick(3)) {
    case 0: return GC_MALLOC_ATOMIC(16 + 8 * pick(5));
    case 1: return i ? nodes[pick(i)]->leaf : NULL;
    default: return NULL;
    }
}

static void tree(void)
{
    for (unsigned i = 0; i < N; i++) {
        nodes[i] = GC_MALLOC(sizeof(node));
        nodes[i]->leaf = leaf_for(i);
        if (i == 0) continue;
        while (!link(nodes[pick(i)], nodes[i]))
            ;
        if (pick(100) == 0) link(nodes[pick(i)], nodes[i]);                /* shared */
        if (pick(200) == 0) link(nodes[i], nodes[pick(i)]);                /* a cycle */
    }
}

static void mesh(void)
{
    for (unsigned i = 0; i < N; i++) {
        nodes[i] = GC_MALLOC(sizeof(node));
        nodes[i]->leaf = leaf_for(i);
    }
    for (unsigned i = 0; i < N; i++)
        for (int k = 0; k < 3; k++) nodes[i]->e[k] = nodes[pick(N)];
}

int main(int argc, char **argv)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    rng = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
    if (argc > 2) N = (unsigned)strtoul(argv[2], NULL, 10);
    /* (always, 1 MB by default: every run takes the same path, so that
     * what the stack and registers hold stays the same from run to run) */
    GC_FREE(GC_MALLOC_ATOMIC((size_t)(argc > 3 ? strtoul(argv[3], NULL, 10) : 1) << 20));
    nodes = GC_MALLOC_ATOMIC(N * sizeof *nodes);
    for (int phase = 0; phase < PHASES; phase++) {
        if (phase % 2 == 0) tree(); else mesh();
        *vars[0] = nodes[0];
        for (int v = 1; v < 6; v++) *vars[v] = nodes[pick(N)];
        holder *h[3];
        for (int k = 0; k < 3; k++) {
            h[k] = GC_MALLOC_UNCOLLECTABLE(sizeof(holder));
            for (int j = 0; j < 4; j++) h[k]->p[j] = nodes[pick(N)];
        }
        for (int k = 0; k < SMALL_HOLDERS; k++) {
            smalls[k] = GC_MALLOC_UNCOLLECTABLE(sizeof(small_holder));
            smalls[k]->p = pick(4) ? nodes[pick(N)] : NULL;
        }
        memset(nodes, 0, N * sizeof *nodes);
        for (int c = 0; c < COLLECTIONS; c++) {
            scrub_stack();
            GC_gcollect();
        }
        for (int v = 0; v < 6; v++) *vars[v] = NULL;
        for (int k = 0; k < 3; k++) GC_FREE(h[k]);
        for (int k = 0; k < SMALL_HOLDERS; k++) GC_FREE(smalls[k]);
    }
    scrub_stack();
    GC_gcollect();
    printf("PHASES %d %d\n", PHASES, COLLECTIONS);
    return 0;
}
