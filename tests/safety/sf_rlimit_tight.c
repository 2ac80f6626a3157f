/* sf_rlimit_tight: a program whose address-space limit (RLIMIT_AS, set
 * after start-up to 40 MiB above what it has mapped) fits its own heap --
 * 2,000,000 objects of 16 and 32 bytes in turn kept alive, in a heap grown
 * beforehand -- but not heapprof's records of them (sizes in turn: no two
 * neighbours share a record, Note [Runs down a block] in
 * core/hp_shadow_log.h, so each takes 16 bytes). Alone, every allocation succeeds;
 * under heapprof too: heapprof takes at most half of what the program
 * leaves, records what fits, and says how many objects it could not record.
 * Issue: safe on any program (the program's allocations failed by the
 * hundred thousand when heapprof took the room first). */
#include <gc/gc.h>
#include <stdio.h>
#include <sys/resource.h>

static size_t vm_size(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    size_t pages = 0;
    if (f) {
        if (fscanf(f, "%zu", &pages) != 1) pages = 0;
        fclose(f);
    }
    return pages * 4096;
}

int main(void)
{
    enum { N = 2000000 };
    GC_INIT();
    GC_expand_hp(96 << 20);
    size_t limit = vm_size() + ((size_t)40 << 20);
    struct rlimit rl = {limit, limit};
    if (setrlimit(RLIMIT_AS, &rl) != 0) {
        perror("setrlimit");
        return 2;
    }
    void **keep = GC_MALLOC(N * sizeof(void *));
    long failed = keep ? 0 : 1;
    for (long i = 0; keep && i < N; i++) {
        keep[i] = GC_MALLOC_ATOMIC(i % 2 ? 32 : 16);
        if (!keep[i]) failed++;
    }
    GC_gcollect();
    printf("failed allocations: %ld\n", failed);
    return failed != 0;
}
