/* names_lines: source lines and stripped modules
 * (tests/integration/test_names.py). Two static functions allocate:
 *
 *   alpha()   GC_malloc(24), NA times     (its call: the line marked ALPHA-CALL)
 *   beta()    GC_malloc(40), NB times     (its call: the line marked BETA-CALL)
 *
 * each called from main. The test reads the lines of the markers below and
 * checks them against the file:line heapprof gives each frame; it also
 * strips a copy of this program and checks that alpha and beta stay two
 * frames, named names_lines+0xADDRESS, that addr2line resolves back. */
#include <gc/gc.h>
#include <stdio.h>

#define NA 1000
#define NB 700

static void *keep_a[NA], *keep_b[NB];

__attribute__((noinline)) static void alpha(void)
{   /* ALPHA-START */
    for (int i = 0; i < NA; i++) keep_a[i] = GC_malloc(24);   /* ALPHA-CALL */
}

__attribute__((noinline)) static void beta(void)
{   /* BETA-START */
    for (int i = 0; i < NB; i++) keep_b[i] = GC_malloc(40);   /* BETA-CALL */
}

int main(void)
{   /* MAIN-START */
    GC_INIT();
    alpha();
    beta();
    GC_gcollect();
    printf("A %d %zu\nB %d %zu\n", NA, GC_size(keep_a[0]), NB, GC_size(keep_b[0]));
    return 0;
}
