/* ls_map_count: a program that itself needs nearly vm.max_map_count map
 * entries: it keeps live GC objects on every other page (so that under ldv
 * heapprof protects thousands of separate runs, each a map entry or two),
 * then makes read-only every other page of its own mapping until its
 * regions reach max_map_count - 2530 entries (63,000 with the default
 * 65,530), and counts the mprotect calls that fail. Issue "ldv never
 * breaks a program", point 7: none may fail under ldv, as none do
 * without it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <gc/gc.h>

#define PG 4096
#define OBJS 14000   /* 7,000 runs: within heapprof's budget, all protected */

int main(void)
{
    GC_INIT();
    long max = 65530;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%ld", &max) != 1) max = 65530;
        fclose(f);
    }
    /* Page-sized objects, then every other one dropped: a run of one page
     * each. */
    char **all = GC_MALLOC(OBJS * sizeof *all);
    for (int i = 0; i < OBJS; i++) {
        all[i] = GC_MALLOC_ATOMIC(PG - 16);
        memset(all[i], i & 0x7f, 64);
    }
    char **keep = GC_MALLOC(OBJS / 2 * sizeof *keep);
    for (int i = 0; i < OBJS; i += 2) keep[i / 2] = all[i];
    memset(all, 0, OBJS * sizeof *all);
    all = NULL;
    GC_gcollect();
    GC_gcollect();
    long regions = (max - 2530) / 2;    /* read-only pages: 2 entries each */
    size_t len = (size_t)(2 * regions + 2) * PG;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    long failed = 0;
    for (long r = 0; r < regions; r++)
        if (mprotect(m + (size_t)(2 * r + 1) * PG, PG, PROT_READ) != 0) failed++;
    printf("mprotect of %s pages read-only: %ld failed\n", regions == (65530 - 2530) / 2 ? "31500" : "the", failed);
    long sum = 0;
    for (int i = 0; i < OBJS / 2; i++) sum += keep[i][0];
    GC_gcollect();
    for (int i = 0; i < OBJS / 2; i++) sum += keep[i][1];
    printf("objects read back: sum %ld\n", sum);
    /* A new mapping and more regions now still work. */
    long failed2 = 0;
    for (long r = 0; r < 200; r++)
        if (mprotect(m + (size_t)(2 * r + 1) * PG, PG, PROT_READ | PROT_WRITE) != 0 ||
            mprotect(m + (size_t)(2 * r + 1) * PG, PG, PROT_READ) != 0)
            failed2++;
    printf("after a collection: %ld failed\n", failed2);
    munmap(m, len);
    return failed || failed2;
}
