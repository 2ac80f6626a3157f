/* ldv_stress: a large heap (MB megabytes of 1000-byte pointer-free objects,
 * four to a page) read at random, scattered places in several periods, for
 * the map-entry budget test (tests/integration/test_ldv.py; run with
 * HEAPPROF=ldv,ldv=page so that every page a read opens stays open and
 * splits a mapping). Then the program maps many small regions of its own,
 * which must still succeed. Prints the checksum and "maps N" (how many of
 * its own 2000 mappings succeeded). Each round, and the end, first spins
 * two milliseconds of the program's own time: faults are heapprof's time,
 * not on the mutator clock, so without it a period of reads can last no
 * time at all and DRAG and VOID byte-seconds come out 0 (seen once under
 * a loaded machine). */
#define _GNU_SOURCE
#include <gc/gc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define OBJ 1000

static void spin(void)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 2000000L);
}

int main(int argc, char **argv)
{
    long mb = argc > 1 ? atol(argv[1]) : 300;
    long n = mb * 1024 * 1024 / 1024;
    GC_INIT();
    GC_expand_hp((size_t)mb << 20);
    char **objs = GC_malloc_uncollectable((size_t)n * sizeof *objs);
    for (long i = 0; i < n; i++) {
        objs[i] = GC_malloc_atomic(OBJ);
        memset(objs[i], (int)(i & 0x7f), OBJ);
    }
    unsigned long long sum = 0, want = 0;
    unsigned s = 12345;
    for (int round = 0; round < 3; round++) {
        spin();
        GC_gcollect();
        for (long k = 0; k < n / 4; k++) {
            s = s * 1103515245u + 12345u;
            long i = (long)((s >> 8) % (unsigned long)n);
            sum += (unsigned char)objs[i][(s >> 4) % OBJ];
            want += (unsigned long long)(i & 0x7f);
        }
    }
    spin();
    int maps = 0;
    for (int i = 0; i < 2000; i++) {
        char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) continue;
        mprotect(p, 4096, PROT_READ);   /* two entries each */
        maps++;
    }
    printf("sum %llu want %llu\nmaps %d\n", sum, want, maps);
    return sum == want ? 0 : 1;
}
