/* ls_settled: 64 objects of 64 bytes (a page's worth) made before a
 * collection, then each read 2000 times in turn. Under ldv=precise every
 * access to a protected page faults -- until every object of the page has
 * been used this period: nothing is left to learn there and the page stays
 * open until the next collection, so the faults are a few hundred, not
 * 128,000 (test_ldv_safe.py reads the .prof). */
#include <gc/gc.h>
#include <stdio.h>

int main(void)
{
    GC_INIT();
    enum { N = 64 };
    long **objs = GC_MALLOC(N * sizeof *objs);
    for (int i = 0; i < N; i++) {
        objs[i] = GC_MALLOC_ATOMIC(64);
        objs[i][0] = i;
    }
    GC_gcollect();
    long sum = 0;
    for (int r = 0; r < 2000; r++)
        for (int i = 0; i < N; i++) sum += *(volatile long *)objs[i];
    printf("sum %ld\n", sum);
    return 0;
}
