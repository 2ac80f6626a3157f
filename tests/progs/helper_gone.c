/* helper_gone: a helper thread a traversal made is gone before the world
 * restarts (test_retainer.test_helper_gone; core/hp_helper_sigsafe.c,
 * Note [A kept helper]): the program, which has one thread of its own,
 * has one thread after every collection.
 *
 *   helper_gone N
 *
 * A list of N pairs, each holding a pointer-free buffer, held by g_list
 * (N = 300,000: enough records for the index's two builders and the
 * walk's helper, hp_trace_sigsafe.c and hp_trace_scc_sigsafe.c), then
 * three collections; after each, "threads K" (the Threads: line of
 * /proc/self/status). */
#include <gc/gc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progs.h"

typedef struct pair { struct pair *next; char *buf; } pair;

pair *g_list;

static int threads(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    int n = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "Threads:", 8) == 0) n = atoi(line + 8);
    if (f) fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    long n = argc > 1 ? atol(argv[1]) : 300000;
    for (long i = 0; i < n; i++) {
        pair *p = GC_MALLOC(sizeof(pair));
        p->buf = GC_MALLOC_ATOMIC(24);
        p->next = g_list;
        g_list = p;
    }
    for (int c = 0; c < 3; c++) {
        scrub_stack();
        GC_gcollect();
        printf("threads %d\n", threads());
    }
    return 0;
}
