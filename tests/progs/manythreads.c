/* manythreads: more threads than heapprof has room for at start in its
 * table of thread stacks (256: it grows as threads come). 399 threads
 * (GC_THREADS) start one after another, each allocating once and exiting;
 * then one more builds a chain of objects held only by a local of its own
 * and waits while main collects twice (a census with interval=0). Prints
 * "EXPECT stack:thread<its number> <bytes>" (its number: 400, main's 0 and
 * the 399 before it registered in order) and "EXPECT keep <bytes>" (main's
 * first object, which made main register first). */
#define _GNU_SOURCE   /* pthread barriers under -std=c11 */
#define GC_THREADS
#include <gc/gc.h>
#include <pthread.h>
#include <stdio.h>

#define BEFORE 399
#define CHAIN 100

typedef struct node { struct node *next; char pad[40]; } node;

static pthread_barrier_t built, collected;
static size_t chain_bytes;
static void *keep;                 /* main's first object */

static void *brief(void *arg)
{
    (void)arg;
    volatile void *p = GC_MALLOC(16);
    (void)p;
    return NULL;
}

__attribute__((noinline)) static node *build(void)
{
    node *head = NULL;
    for (int i = 0; i < CHAIN; i++) {
        node *n = GC_MALLOC(sizeof(node));
        n->next = head;
        head = n;
        chain_bytes += GC_size(n);
    }
    return head;
}

static void *holder(void *arg)
{
    (void)arg;
    node *volatile head = build();
    pthread_barrier_wait(&built);
    pthread_barrier_wait(&collected);
    return (void *)head->next;   /* (keeps head live across the waits) */
}

int main(void)
{
    GC_INIT();
    GC_allow_register_threads();
    keep = GC_MALLOC(16);   /* main registers first: thread 0 */
    for (int i = 0; i < BEFORE; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, brief, NULL) != 0 || pthread_join(t, NULL) != 0) return 1;
    }
    pthread_barrier_init(&built, NULL, 2);
    pthread_barrier_init(&collected, NULL, 2);
    pthread_t t;
    if (pthread_create(&t, NULL, holder, NULL) != 0) return 1;
    pthread_barrier_wait(&built);
    GC_gcollect();
    GC_gcollect();
    pthread_barrier_wait(&collected);
    pthread_join(t, NULL);
    printf("EXPECT stack:thread%d %zu\n", BEFORE + 1, chain_bytes);
    printf("EXPECT keep %zu\n", GC_size(keep));
    return 0;
}
