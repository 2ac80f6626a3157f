/* threads: six collector-registered threads (GC_THREADS: pthread_create is
 * GC_pthread_create) allocate at the same time at three thread functions,
 * two threads each, and keep their objects in globals (integration test 3).
 * A census is taken while the threads are alive (blocked on a barrier) and
 * one after they have exited and been joined. Prints per-function counts
 * and granted sizes. */
#define _GNU_SOURCE   /* pthread barriers under -std=c11 */
#define GC_THREADS
#include <gc/gc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "progs.h"

#define PER_THREAD 2000
#define NTHREADS 6

static void *keep[NTHREADS][PER_THREAD];
static pthread_barrier_t allocated, released;

static void wait_twice(void)
{
    pthread_barrier_wait(&allocated);    /* main takes a census */
    pthread_barrier_wait(&released);
}

__attribute__((noinline)) static void *worker_a(void *arg)
{
    void **k = keep[(long)arg];
    for (int i = 0; i < PER_THREAD; i++) k[i] = GC_malloc(40);
    wait_twice();
    return NULL;
}

__attribute__((noinline)) static void *worker_b(void *arg)
{
    void **k = keep[(long)arg];
    for (int i = 0; i < PER_THREAD; i++) k[i] = GC_malloc(200);
    wait_twice();
    return NULL;
}

__attribute__((noinline)) static void *worker_c(void *arg)
{
    void **k = keep[(long)arg];
    for (int i = 0; i < PER_THREAD; i++) k[i] = GC_malloc_atomic(24);
    wait_twice();
    return NULL;
}

int main(void)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    pthread_barrier_init(&allocated, NULL, NTHREADS + 1);
    pthread_barrier_init(&released, NULL, NTHREADS + 1);
    void *(*fn[3])(void *) = {worker_a, worker_b, worker_c};
    pthread_t tid[NTHREADS];
    for (long i = 0; i < NTHREADS; i++)
        if (pthread_create(&tid[i], NULL, fn[i % 3], (void *)i) != 0) {
            perror("pthread_create");
            return 1;
        }
    pthread_barrier_wait(&allocated);
    scrub_stack();
    GC_gcollect();                      /* census with the threads alive */
    pthread_barrier_wait(&released);
    for (int i = 0; i < NTHREADS; i++) pthread_join(tid[i], NULL);
    scrub_stack();
    GC_gcollect();                      /* census after the joins */
    printf("worker_a %d %zu\n", 2 * PER_THREAD, GC_size(keep[0][0]));
    printf("worker_b %d %zu\n", 2 * PER_THREAD, GC_size(keep[1][0]));
    printf("worker_c %d %zu\n", 2 * PER_THREAD, GC_size(keep[2][0]));
    return 0;
}
