/* stress: threads that allocate, free, reallocate and collect at once, in
 * the collector's ordinary (non-incremental) mode, with in-place and moving
 * reallocation of small and large objects. Every object carries a
 * pattern checked before it is freed or dropped, so any corruption shows.
 * Prints "ok <live-bytes>" (GC_size of what the ring holds at the end) or
 * "corrupt N" and exits 1. */
#define GC_THREADS
#include <gc/gc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NTHREADS 4
#define SLOTS 20000
#define ROUNDS 150000

static unsigned char *ring[NTHREADS][SLOTS];
static size_t ring_len[NTHREADS][SLOTS];
static long corrupt;

static void fill(unsigned char *p, size_t n, unsigned tag)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(tag + i);
}

static int check(const unsigned char *p, size_t n, unsigned tag)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(tag + i)) return 0;
    return 1;
}

static void *worker(void *arg)
{
    unsigned t = (unsigned)(uintptr_t)arg;
    uint32_t x = 2463534242u + t;
    for (unsigned r = 0; r < ROUNDS; r++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        unsigned slot = x % SLOTS, tag = slot * 7 + t;
        unsigned char **p = &ring[t][slot];
        size_t *len = &ring_len[t][slot];
        if (*p && !check(*p, *len, tag)) __atomic_add_fetch(&corrupt, 1, __ATOMIC_RELAXED);
        switch (x >> 28) {
        case 0: case 1:                           /* explicit free */
            GC_free(*p);
            *p = NULL;
            *len = 0;
            break;
        case 2:                                   /* grow or shrink */
            if (*p) {
                size_t n = (x >> 8) % 3000 + 1, keep = n < *len ? n : *len;
                *p = GC_realloc(*p, n);
                if (!check(*p, keep, tag)) __atomic_add_fetch(&corrupt, 1, __ATOMIC_RELAXED);
                fill(*p, n, tag);
                *len = n;
            }
            break;
        case 3:                                   /* a large object */
            *len = 20000 + (x >> 8) % 50000;
            *p = GC_malloc_atomic(*len);
            fill(*p, *len, tag);
            break;
        default:                                  /* small, dropped or replaced */
            *len = (x >> 8) % 200 + 1;
            *p = (x & 1) ? GC_malloc(*len) : GC_malloc_atomic(*len);
            fill(*p, *len, tag);
        }
        if (t == 0 && r % 20000 == 0) GC_gcollect();
    }
    return NULL;
}

int main(void)
{
    GC_INIT();
    GC_allow_register_threads();
    pthread_t th[NTHREADS];
    for (unsigned t = 0; t < NTHREADS; t++)
        GC_pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t);
    for (unsigned t = 0; t < NTHREADS; t++) GC_pthread_join(th[t], NULL);
    size_t live = 0;
    for (unsigned t = 0; t < NTHREADS; t++)
        for (unsigned s = 0; s < SLOTS; s++)
            if (ring[t][s]) {
                if (!check(ring[t][s], ring_len[t][s], s * 7 + t)) corrupt++;
                live += GC_size(ring[t][s]);
            }
    if (corrupt) {
        printf("corrupt %ld\n", corrupt);
        return 1;
    }
    printf("ok %zu\n", live);
    return 0;
}
