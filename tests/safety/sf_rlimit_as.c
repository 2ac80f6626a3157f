/* sf_rlimit_as: a program that limits its own address space (RLIMIT_AS to
 * 4 GiB, as batch systems and careful daemons do) and then allocates 64 MiB
 * from the collector in 1 KiB objects, keeping a quarter, and maps 256 MiB of
 * its own. Without heapprof every allocation succeeds; heapprof's own
 * memory must fit under the program's limit beside the program's own.
 * Issue: safe on any program, point 6. */
#define _GNU_SOURCE
#include <gc/gc.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

int main(void)
{
    GC_INIT();
    struct rlimit rl = {(rlim_t)4 << 30, (rlim_t)4 << 30};
    if (setrlimit(RLIMIT_AS, &rl) != 0) {
        perror("setrlimit");
        return 2;
    }
    static void *keep[16384];
    size_t failed = 0;
    for (int i = 0; i < 65536; i++) {
        char *p = GC_MALLOC(1024);
        if (!p) {
            failed++;
            continue;
        }
        memset(p, i & 0xff, 1024);
        if (i % 4 == 0) keep[i / 4] = p;
    }
    char *own = mmap(NULL, (size_t)256 << 20, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (own == MAP_FAILED) {
        printf("mmap of 256 MiB failed\n");
        return 1;
    }
    own[0] = 1;
    printf("failed allocations: %zu, kept %s\n", failed, keep[16383] ? "yes" : "no");
    return failed ? 1 : 0;
}
