/* census_heap: a heap of about a million objects for bench/bench_census.py.
 *
 *   census_heap NOBJ NROOTS NCOLLECT
 *
 * Builds NROOTS/1 .. chains: NOBJ 32-byte nodes in 64 lists hung from a
 * global array (each list's nodes also point at a shared node of the next
 * list, so named roots overlap), names the first NROOTS list heads as roots
 * (heapprof_set_roots; a no-op without heapprof), then runs NCOLLECT full
 * collections and prints the wall milliseconds of each ("gc_ms X"). */
#include <gc.h>
#include <heapprof.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct node { struct node *next, *other; } node;

node *g_lists[64];

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    long nobj = argc > 1 ? atol(argv[1]) : 1000000;
    int nroots = argc > 2 ? atoi(argv[2]) : 1;
    int ncollect = argc > 3 ? atoi(argv[3]) : 5;
    GC_INIT();
    for (long i = 0; i < nobj; i++) {
        node *n = GC_MALLOC(sizeof *n);
        int l = (int)(i % 64);
        n->next = g_lists[l];
        g_lists[l] = n;
    }
    for (int l = 0; l < 64; l++) g_lists[l]->other = g_lists[(l + 1) % 64];
    static heapprof_root roots[64];
    static char names[64][8];
    for (int i = 0; i < nroots && i < 64; i++) {
        snprintf(names[i], sizeof names[i], "l%d", i);
        roots[i].name = names[i];
        roots[i].ptr = g_lists[i];
    }
    if (nroots > 0 && heapprof_set_roots(roots, (size_t)(nroots < 64 ? nroots : 64)) != 0)
        return 1;
    for (int c = 0; c < ncollect; c++) {
        double t0 = now_ms();
        GC_gcollect();
        printf("gc_ms %.3f\n", now_ms() - t0);
    }
    return 0;
}
