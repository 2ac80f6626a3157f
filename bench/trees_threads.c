/* trees_threads: the reference workload's short-lived trees, built by
 * THREADS threads at once (bench/bench_threads.py): each thread makes and
 * checks the same series of trees as trees.c does after its long-lived
 * tree, at depth DEPTH, so two threads do twice one thread's work.
 * Built with GC_THREADS (threads registered with the collector through
 * its pthread_create redirection). Usage: trees_threads DEPTH THREADS. */
#define GC_THREADS
#include <gc/gc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct T { struct T *l, *r; long i; } T;
static int depth;

static T *make(long i, int d)
{
    T *t = GC_malloc(sizeof *t);
    if (d == 0) {
        t->i = i;
        return t;
    }
    t->l = make(i, d - 1);
    t->r = make(i + 1, d - 1);
    return t;
}

static long check(T *t) { return t->l ? 1 + check(t->l) + check(t->r) : t->i; }

static void *work(void *arg)
{
    long s = 0;
    (void)arg;
    for (int d = 4; d <= depth; d += 2) {
        long it = 1L << (depth - d + 4);
        for (long i = 1; i <= it; i++) s += check(make(i, d));
    }
    return (void *)s;
}

int main(int argc, char **argv)
{
    depth = argc > 1 ? atoi(argv[1]) : 16;
    int n = argc > 2 ? atoi(argv[2]) : 1;
    GC_INIT();
    pthread_t t[16];
    if (n < 1 || n > 16) return 2;
    for (int k = 0; k < n; k++)
        if (pthread_create(&t[k], NULL, work, NULL) != 0) return 1;
    long total = 0;
    for (int k = 0; k < n; k++) {
        void *r;
        pthread_join(t[k], &r);
        total += (long)r;
    }
    printf("%ld\n", total);
    return 0;
}
