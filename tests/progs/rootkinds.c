/* rootkinds: roots the collector has that a word-by-word walk from the
 * pushed ranges does not see (issue "retainers on real runtimes"); every
 * byte must still be attributed, to a named retainer:
 *  - objects reachable only through a mark procedure (a GC_new_proc kind
 *    whose holder points into a side table in malloc'd memory, which the
 *    procedure pushes): retainer mark:mark_side_table;
 *  - an uncollectable object (GC_malloc_uncollectable, referenced only from
 *    malloc'd memory) and what it points to: uncoll:<its allocation>;
 *  - a malloc'd region registered with GC_add_roots: roots:<the stack that
 *    registered it>;
 *  - a static variable holding a tagged pointer (object + 1) with interior
 *    pointers off and displacement 1 registered (as ECL tags conses):
 *    g_tagged.
 * argv[1] > 1: that many more holders of the mark-procedure kind (a push
 * each at every collection); argv[2]: that many more registered regions,
 * each malloc'd on its own and holding one object (a root range each at
 * every collection), registered from the same stack as the first.
 * Prints "EXPECT <retainer> <bytes>" (sizes from GC_size) for the census
 * taken at its last GC_gcollect. */
#include <gc/gc.h>
#include "gc_chain.h"
#include <gc/gc_mark.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct node { struct node *next; char pad[88]; } node;

static void **side_table;          /* malloc'd: the collector never scans it */
static void *g_holder;             /* a holder object of the mark-procedure kind */
static char *g_tagged;             /* object + 1 */
static void **g_hidden;            /* malloc'd: keeps the uncollectable object's address */

static struct GC_ms_entry *mark_side_table(GC_word *addr, struct GC_ms_entry *msp,
                                           struct GC_ms_entry *lim, GC_word env)
{
    (void)env;
    size_t slot = (size_t)addr[1];
    return GC_MARK_AND_PUSH(side_table[slot], msp, lim, (void **)addr);
}

__attribute__((noinline)) static void *make_uncoll(void) { return GC_MALLOC_UNCOLLECTABLE(64); }

__attribute__((noinline)) static void add_region(void **region, size_t n)
{
    GC_add_roots(region, region + n);
}

static size_t by_proc, by_uncoll, by_region, by_tag, by_holder, by_holders;
static GC_word **g_holders;        /* argv[1] > 1: more holders, each pushing slot 0 */

/* Everything is made here, so that no pointer is left in main's frame. */
__attribute__((noinline)) static void setup(int many, int regions)
{
    /* Mark procedure kind: word 0 unused, word 1 the side-table slot. */
    unsigned proc = GC_new_proc(mark_side_table);
    int kind = (int)GC_new_kind(GC_new_free_list(), GC_MAKE_PROC(proc, 0), 0, 1);
    side_table = calloc(4, sizeof(void *));
    node *h;
    by_proc = prog_chain((void **)&h, 10, 100);
    side_table[0] = h;
    GC_word *holder = GC_generic_malloc(2 * sizeof(GC_word), kind);
    holder[1] = 0;
    g_holder = holder;
    if (many > 1) {   /* a push each at every collection: many pushes */
        g_holders = GC_MALLOC(sizeof(GC_word *) * (size_t)many);
        by_holders = GC_size(g_holders);
        for (int i = 0; i < many; i++) {
            g_holders[i] = GC_generic_malloc(2 * sizeof(GC_word), kind);
            g_holders[i][1] = 0;
            by_holders += GC_size(g_holders[i]);
        }
    }

    /* Uncollectable object holding a chain. */
    void **u = make_uncoll();
    by_uncoll = GC_size(u);
    by_uncoll += prog_chain(&u[0], 5, 200);
    g_hidden = malloc(sizeof(void *));
    g_hidden[0] = u;

    /* A registered root region. */
    void **region = calloc(8, sizeof(void *));
    add_region(region, 8);
    by_region = prog_chain(&region[0], 3, 300);
    for (int i = 0; i < regions; i++) {
        void **one = calloc(4, sizeof(void *));
        add_region(one, 1);
        one[0] = GC_MALLOC(48);
        by_region += GC_size(one[0]);
    }

    /* A tagged pointer. */
    char *t = GC_MALLOC(400);
    by_tag = GC_size(t);
    g_tagged = t + 1;
    by_holder = GC_size(holder);
}

/* Overwrite the stack below main's frame, where setup's frames were. */
__attribute__((noinline)) static void scrub(void)
{
    volatile char junk[16384];
    memset((char *)junk, 0, sizeof junk);
}

int main(int argc, char **argv)
{
    GC_set_all_interior_pointers(0);
    GC_INIT();
    GC_register_displacement(1);
    setup(argc > 1 ? atoi(argv[1]) : 0, argc > 2 ? atoi(argv[2]) : 0);
    scrub();
    GC_gcollect();
    GC_gcollect();
    printf("EXPECT mark:mark_side_table %zu\n", by_proc);
    printf("EXPECT uncoll:make_uncoll/setup/main %zu\n", by_uncoll);
    printf("EXPECT roots:add_region/setup/main %zu\n", by_region);
    printf("EXPECT g_tagged %zu\n", by_tag);
    printf("EXPECT g_holder %zu\n", by_holder);
    if (by_holders) printf("EXPECT g_holders %zu\n", by_holders);
    return 0;
}
