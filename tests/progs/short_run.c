/* short_run: a short run that holds a large heap only near its end
 * (tests/integration/test_warnings.py). Churns NCHURN short-lived 64-byte
 * objects (many collections, little live), then builds a list of NKEEP
 * 1 KiB blocks that it holds until exit. Prints "KEEP n bytes" (the
 * granted bytes held) and "GC n" (the collections made).
 * With argument "tiny": allocates 10 objects and exits (no collection
 * but GC_INIT's and the one at exit).
 * With argument "large": holds 300 normal objects of 300 sizes from 2100
 * to about 31000 bytes, and prints "BIN hi bytes" for each power-of-two
 * range (hi/2, hi] of granted sizes, and "LARGEST n" the number of
 * distinct granted sizes. */
#include <gc/gc.h>
#include <stdio.h>
#include <string.h>

#define NCHURN 3000000
#define NKEEP 7000

struct block { struct block *next; char pad[1000]; };

int main(int argc, char **argv)
{
    GC_INIT();
    if (argc > 1 && strcmp(argv[1], "tiny") == 0) {
        static void *keep[10];
        for (int i = 0; i < 10; i++) keep[i] = GC_malloc(16);
        printf("TINY %zu\n", GC_size(keep[0]));
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "large") == 0) {
        static void *big[300];
        size_t bins[64] = {0};
        size_t sizes[300];
        int distinct = 0;
        for (int i = 0; i < 300; i++) {
            big[i] = GC_malloc(2100 + (size_t)i * 97);
            size_t g = GC_size(big[i]), hi = 4096;
            while (hi < g) hi *= 2;
            int b = 0;
            while (((size_t)4096 << b) < hi) b++;
            bins[b] += g;
            int seen = 0;
            for (int k = 0; k < distinct; k++) seen |= sizes[k] == g;
            if (!seen) sizes[distinct++] = g;
        }
        GC_gcollect();
        for (int b = 0; b < 64; b++)
            if (bins[b]) printf("BIN %zu %zu\n", (size_t)4096 << b, bins[b]);
        printf("DISTINCT %d\n", distinct);
        return 0;
    }
    volatile void *sink;
    for (long i = 0; i < NCHURN; i++) sink = GC_malloc(64);
    (void)sink;
    struct block *head = NULL;
    size_t bytes = 0;
    for (int i = 0; i < NKEEP; i++) {
        struct block *b = GC_malloc(sizeof *b);
        b->next = head;
        head = b;
        bytes += GC_size(b);
    }
    GC_gcollect();
    printf("KEEP %d %zu\nGC %lu\n", NKEEP, bytes, (unsigned long)GC_get_gc_no());
    return head ? 0 : 1;
}
