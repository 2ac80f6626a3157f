/* ldv_precision: a workload for bench/bench_ldv.py with a random but
 * reproducible biography per object: N small objects (48 bytes asked, 64
 * granted: 64 to a page), and over P periods (ended by GC_gcollect) each
 * period reads a random tenth of the live objects (some of them several
 * times in a row), writes another few, and drops and replaces a random
 * twentieth. Run with HEAPPROF=ldv,interval=0: ldv=precise gives the exact
 * bands (tests/integration/test_ldv.py proves precise exact on
 * ground-truth programs), against which the other policies are measured. */
#include <gc/gc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 20000
#define P 12

static char *obj[N];
static unsigned seed = 7;

static unsigned rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return seed >> 8;
}

int main(void)
{
    GC_INIT();
    GC_expand_hp(64 << 20);
    for (int i = 0; i < N; i++) {
        obj[i] = GC_malloc_atomic(48);
        memset(obj[i], i & 0x7f, 48);
    }
    volatile long sink = 0;
    for (int p = 0; p < P; p++) {
        GC_gcollect();
        for (int k = 0; k < N / 10; k++) {
            int i = (int)(rnd() % N);
            int times = rnd() % 4 == 0 ? 8 : 1;   /* hot objects read again and again */
            for (int t = 0; t < times; t++) sink += obj[i][(t * 5) % 48];
        }
        for (int k = 0; k < N / 50; k++) obj[rnd() % N][3] = 1;   /* writes: uses too */
        for (int k = 0; k < N / 20; k++) {
            int i = (int)(rnd() % N);
            obj[i] = GC_malloc_atomic(48);
            memset(obj[i], 1, 48);
        }
    }
    printf("sink %ld\n", (long)sink);
    return 0;
}
