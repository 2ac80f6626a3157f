/* thread_coro: a collector-registered thread allocates at a stack that ends
 * in its start code (worker_plain), then from a coroutine whose stack is an
 * array in the thread's own frame (swapcontext; coro_alloc/coro_entry), then
 * at worker_plain again. A thread's walks stop at its start code's frame
 * (core/hp_capture.c, Note [Where a thread's stacks end]); a walk on the
 * coroutine's stack, which lies inside the thread's, must never stop there
 * early nor take the thread's stack for its own (integration test
 * test_threads.py). Keeps every object in a global; prints per-function
 * counts and granted sizes. */
#define _GNU_SOURCE
#define GC_THREADS
#include <gc/gc.h>
#include <pthread.h>
#include <stdio.h>
#include <ucontext.h>

#include "progs.h"

#define N 300

static void *plain_objs[2 * N], *coro_objs[N];
static ucontext_t thread_ctx, coro_ctx;

__attribute__((noinline)) static void alloc_plain(int from)
{
    for (int i = 0; i < N; i++) plain_objs[from + i] = GC_malloc(48);
}

__attribute__((noinline)) static void coro_alloc(void)
{
    for (int i = 0; i < N; i++) coro_objs[i] = GC_malloc(80);
}

__attribute__((noinline)) static void coro_entry(void)
{
    coro_alloc();
    /* (uc_link returns to the thread) */
}

__attribute__((noinline)) static void *worker_plain(void *arg)
{
    (void)arg;
    char stack[256 * 1024] __attribute__((aligned(16)));
    alloc_plain(0);
    getcontext(&coro_ctx);
    coro_ctx.uc_stack.ss_sp = stack;
    coro_ctx.uc_stack.ss_size = sizeof stack;
    coro_ctx.uc_link = &thread_ctx;
    makecontext(&coro_ctx, coro_entry, 0);
    swapcontext(&thread_ctx, &coro_ctx);
    alloc_plain(N);
    return NULL;
}

int main(void)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    pthread_t tid;
    if (pthread_create(&tid, NULL, worker_plain, NULL) != 0) {
        perror("pthread_create");
        return 1;
    }
    pthread_join(tid, NULL);
    scrub_stack();
    GC_gcollect();
    printf("alloc_plain/worker_plain %d %zu\n", 2 * N, GC_size(plain_objs[0]));
    printf("coro_alloc/coro_entry %d %zu\n", N, GC_size(coro_objs[0]));
    return 0;
}
