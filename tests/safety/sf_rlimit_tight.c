/* sf_rlimit_tight: a program whose address-space limit (RLIMIT_AS, set
 * after start-up to 40 MiB above what it has mapped) fits its own heap --
 * 2,000,000 objects of 16 and 32 bytes in turn kept alive, in a heap grown
 * beforehand -- but not heapprof's records of them (made from 17 sites in
 * turn, one more than the log's slots, Note [Recent sites] in
 * core/hp_shadow_log.h, so that each takes 16 bytes). Alone, every allocation succeeds;
 * under heapprof too: heapprof takes at most half of what the program
 * leaves, records what fits, and says how many objects it could not record.
 * Issue: safe on any program (the program's allocations failed by the
 * hundred thousand when heapprof took the room first). */
#include <gc/gc.h>
#include <stdio.h>
#include <sys/resource.h>

/* SITES functions, each its own allocation site (its own counter, so that
 * no two are folded into one). */
#define SITES 17
static volatile long made[SITES];
#define SITE(k)                                                          \
    __attribute__((noinline)) static void *site##k(size_t n)             \
    {                                                                    \
        made[k]++;                                                       \
        return GC_MALLOC_ATOMIC(n);                                      \
    }
SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7) SITE(8)
SITE(9) SITE(10) SITE(11) SITE(12) SITE(13) SITE(14) SITE(15) SITE(16)
static void *(*const site[SITES])(size_t) = {site0,  site1,  site2,  site3,  site4,  site5,
                                            site6,  site7,  site8,  site9,  site10, site11,
                                            site12, site13, site14, site15, site16};

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
        keep[i] = site[i % SITES](i % 2 ? 32 : 16);
        if (!keep[i]) failed++;
    }
    GC_gcollect();
    printf("failed allocations: %ld\n", failed);
    return failed != 0;
}
