/* names_libc: a stack through the C library (tests/integration/
 * test_names.py): main sorts with qsort, whose comparison allocates
 * (GC_malloc(32) at each call), so the comparison's stack holds qsort's
 * frames, in libc.so.6, between it and main. heapprof gives the
 * comparison and main their source lines and the C library's frames
 * none. Prints "CALLS <n>", the comparisons made. */
#include <gc/gc.h>
#include <stdio.h>
#include <stdlib.h>

#define N 64

static int calls;
static void *keep[4096];

static int compare(const void *a, const void *b)
{   /* COMPARE-START */
    keep[calls++ % 4096] = GC_malloc(32);
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(void)
{   /* MAIN-START */
    GC_INIT();
    int v[N];
    for (int i = 0; i < N; i++) v[i] = (i * 37) % N;
    qsort(v, N, sizeof v[0], compare);
    GC_gcollect();
    printf("CALLS %d\n", calls);
    return 0;
}
