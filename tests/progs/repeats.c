/* repeats: words that point at the node the word before pointed at
 * (test_retainer.test_words_that_repeat; retainer/hp_trace_scc_sigsafe.c,
 * Note [Words that repeat]). A word is dropped only when the same object's
 * previous word pointed at the same node: a second object's word at the
 * same node must still count.
 *
 *   repeats NFILL
 *
 * g_a and g_b, two statics next to each other (so that their objects are
 * found, and scanned, one after the other), hold A and B. A's two words
 * both point at C (as a vector's begin and end point into one buffer); B's
 * one word points at C too. C's set is {g_a, g_b}: dropping B's word as a
 * repeat of A's would make it {g_a}. NFILL pointer-free objects, held by
 * g_fill, make the table big enough (262,144 records) for the walk's word
 * ring, which resolves words after they are read; without them the words
 * are resolved as read. Prints "adjacent 1" when g_a and g_b are next to
 * each other (the scenario is exercised), then one census; exit. */
#include <gc/gc.h>
#include <stdio.h>
#include <stdlib.h>

#include "progs.h"

typedef struct two { void *p, *q; } two;

void **g_fill;
two *g_a;
two *g_b;

int main(int argc, char **argv)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    long nfill = argc > 1 ? atol(argv[1]) : 0;
    g_fill = GC_MALLOC((size_t)(nfill + 1) * sizeof(void *));
    for (long i = 0; i < nfill; i++) g_fill[i] = GC_MALLOC_ATOMIC(16);
    void *c = GC_MALLOC(32);
    two *a = GC_MALLOC(sizeof(two)), *b = GC_MALLOC(sizeof(two));
    a->p = c;
    a->q = c;
    b->p = c;
    g_a = a;
    g_b = b;
    a = b = NULL;
    c = NULL;
    long d = (long)(&g_b - &g_a);
    printf("adjacent %d\n", d == 1 || d == -1);
    scrub_stack();
    GC_gcollect();
    return 0;
}
