/* retained: a heap whose dominator tree is known by construction
 * (tests/integration/test_retainer.py, dominators=yes).
 *
 *   g_list -> a list of NLIST nodes (make_list): the head keeps all alive
 *   g_a, g_b -> one shared object (make_shared), which points to a chain of
 *               NCHAIN nodes (make_chain): the shared object keeps itself
 *               and the chain alive, though two roots hold it
 *   g_holder -> a holder (make_holder) pointing to NLEAF leaves
 *               (make_leaf); g_leaf holds one of them too, so the holder
 *               keeps NLEAF - 1 of them alive alone
 *
 * Prints, per line, the figures the .prof must show (GC_size bytes):
 *   TOP list|shared|holder|leaf RETAINED OBJECTS   (under the root)
 *   STACK make_list|make_chain|make_shared|make_holder|make_leaf RETAINED OBJECTS */
#include <gc/gc.h>
#include <stdio.h>
#include <string.h>

#define NLIST 100
#define NCHAIN 50
#define NLEAF 20

typedef struct node { struct node *next; long pad[3]; } node;
typedef struct holder { void *leaf[NLEAF]; } holder;

static node *g_list;
static node *g_a, *g_b;
static holder *g_holder;
static node *g_leaf;

__attribute__((noinline)) static node *make_list(node *next)
{
    node *n = GC_malloc(sizeof *n);
    n->next = next;
    return n;
}

__attribute__((noinline)) static node *make_chain(node *next)
{
    node *n = GC_malloc(sizeof *n);
    n->next = next;
    return n;
}

__attribute__((noinline)) static node *make_shared(node *chain)
{
    node *n = GC_malloc(sizeof *n);
    n->next = chain;
    return n;
}

__attribute__((noinline)) static node *make_leaf(void)
{
    return GC_malloc_atomic(sizeof(node));
}

__attribute__((noinline)) static holder *make_holder(void)
{
    return GC_malloc(sizeof(holder));
}

__attribute__((noinline)) static void build(void)
{
    node *l = NULL;
    for (int i = 0; i < NLIST; i++) l = make_list(l);
    g_list = l;
    node *c = NULL;
    for (int i = 0; i < NCHAIN; i++) c = make_chain(c);
    g_a = g_b = make_shared(c);
    holder *h = make_holder();
    for (int i = 0; i < NLEAF; i++) h->leaf[i] = make_leaf();
    g_holder = h;
    g_leaf = h->leaf[0];
}

int main(void)
{
    GC_INIT();
    build();
    GC_gcollect();
    size_t ns = GC_size(g_list), ls = GC_size(g_leaf), hs = GC_size(g_holder);
    printf("TOP list %zu %d\n", NLIST * ns, NLIST);
    printf("TOP shared %zu %d\n", (1 + NCHAIN) * ns, 1 + NCHAIN);
    printf("TOP holder %zu %d\n", hs + (NLEAF - 1) * ls, NLEAF);
    printf("TOP leaf %zu %d\n", ls, 1);
    printf("STACK make_list %zu %d\n", NLIST * ns, NLIST);
    printf("STACK make_shared %zu %d\n", (1 + NCHAIN) * ns, 1 + NCHAIN);
    printf("STACK make_chain %zu %d\n", NCHAIN * ns, NCHAIN);
    printf("STACK make_holder %zu %d\n", hs + (NLEAF - 1) * ls, NLEAF);
    printf("STACK make_leaf %zu %d\n", NLEAF * ls, NLEAF);
    return 0;
}
