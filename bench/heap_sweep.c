/* heap_sweep: a heap of a chosen live size with steady churn, for
 * bench/bench_heap_sweep.py (how heapprof's cost grows with the live heap).
 *
 * usage: heap_sweep LIVE_MB [ROUNDS]
 * Builds LIVE_MB of long-lived 40-byte objects (the collector grants 48),
 * held from pointer arrays of 4096 entries; then ROUNDS rounds (default
 * 20), each replacing 2% of the long-lived objects (they die, new ones take
 * their place) and allocating as many short-lived objects again as the
 * live set holds, 32 at a time in a chain that dies at once. So every
 * round allocates about a live heap's worth, and the live heap stays at
 * LIVE_MB. Prints the objects kept and a checksum. */
#include <gc/gc.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct obj { struct obj *next; long v[3]; } obj;   /* 32 bytes asked */
#define ASK 40
#define CHUNK 4096

static obj ***chunks;   /* chunks[c][i] */
static size_t nchunks;

static obj *make(long v)
{
    obj *o = GC_malloc(ASK);
    o->v[0] = v;
    return o;
}

int main(int argc, char **argv)
{
    size_t live_mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
    int rounds = argc > 2 ? atoi(argv[2]) : 20;
    GC_INIT();
    size_t n = live_mb * ((size_t)1 << 20) / 48;
    nchunks = (n + CHUNK - 1) / CHUNK;
    chunks = GC_malloc(nchunks * sizeof *chunks);
    for (size_t c = 0; c < nchunks; c++) {
        chunks[c] = GC_malloc(CHUNK * sizeof(obj *));
        for (size_t i = 0; i < CHUNK && c * CHUNK + i < n; i++) chunks[c][i] = make((long)(c * CHUNK + i));
    }
    unsigned long long seed = 88172645463325252ull;
    long sum = 0;
    for (int r = 0; r < rounds; r++) {
        for (size_t k = 0; k < n / 50; k++) {   /* 2% of the live set dies and is replaced */
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            size_t j = (size_t)(seed % n);
            chunks[j / CHUNK][j % CHUNK] = make((long)j);
        }
        for (size_t k = 0; k < n / 32; k++) {   /* a live heap's worth of garbage */
            obj *head = NULL;
            for (int m = 0; m < 32; m++) {
                obj *o = make(m);
                o->next = head;
                head = o;
            }
            sum += head->v[0];
        }
    }
    for (size_t j = 0; j < n; j += 997) sum += chunks[j / CHUNK][j % CHUNK]->v[0];
    printf("%zu objects kept, checksum %ld\n", n, sum);
    return 0;
}
