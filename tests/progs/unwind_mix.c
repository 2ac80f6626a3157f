/* unwind_mix: allocations reached through many call paths, mutual
 * recursion of varying depth, a function using alloca (so a frame-pointer
 * frame inside code without frame pointers), one with a realigned frame,
 * and threads (started through libgc, whose start routine and this main
 * keep the address of a local in RBP), built with -O2
 * and no frame pointers. tests/integration/test_unwind.py profiles it with
 * heapprof's cached libunwind walk and with libunwind's own walk for every
 * allocation: the profiles must be the same, row for row. */
#define GC_THREADS
#include <alloca.h>
#include <gc/gc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define KEEP 4096
static void *keep[KEEP];
static unsigned kept;
static volatile unsigned sink;

static void stash(void *p) { keep[__atomic_fetch_add(&kept, 1, __ATOMIC_RELAXED) % KEEP] = p; }

__attribute__((noinline)) static void leaf_a(int n) { stash(GC_malloc(16 + n % 5 * 8)); }
__attribute__((noinline)) static void leaf_b(int n) { stash(GC_malloc_atomic(40 + n % 3 * 16)); }

__attribute__((noinline)) static void ping(int n);
__attribute__((noinline)) static void pong(int n)
{
    if (n % 3 == 0) leaf_b(n);
    if (n > 0) ping(n - 1);
    sink += (unsigned)n;
}

__attribute__((noinline)) static void ping(int n)
{
    if (n % 2 == 0) leaf_a(n);
    if (n > 0) pong(n - 1);
    sink += (unsigned)n;
}

__attribute__((noinline)) static void with_alloca(int n)
{
    char *buf = alloca((size_t)(n % 7 + 1) * 64);
    memset(buf, n, 64);
    sink += (unsigned)buf[3];
    ping(n % 9);
}

/* An over-aligned local: the frame is realigned (and $-64, %rsp). */
__attribute__((noinline)) static void aligned_frame(int n)
{
    _Alignas(64) volatile char buf[64];
    memset((char *)buf, n, sizeof buf);
    sink += (unsigned)buf[n % 64];
    pong(n % 11);
}

__attribute__((noinline)) static void *worker(void *arg)
{
    int id = (int)(long)arg;
    for (int i = 0; i < 3000; i++) {
        if (i % 4 == id % 4) with_alloca(i);
        else if (i % 5 == 0) aligned_frame(i);
        else ping(i % 13);
    }
    return NULL;
}

int main(void)
{
    GC_INIT();
    GC_allow_register_threads();
    pthread_t th[3];
    for (long t = 0; t < 3; t++) GC_pthread_create(&th[t], NULL, worker, (void *)t);
    worker((void *)3L);
    for (int t = 0; t < 3; t++) GC_pthread_join(th[t], NULL);
    printf("%u allocations kept\n", kept < KEEP ? kept : KEEP);
    return 0;
}
