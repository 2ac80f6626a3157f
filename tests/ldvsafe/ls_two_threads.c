/* ls_two_threads: two threads use objects on one page at once: each does
 * 50,000 locked increments of one shared counter in a heap object and
 * plain increments of its own object on the same page, across
 * collections. Under ldv=precise the other thread used to protect the
 * page again under a thread's step, the fault repeated more than 3 times
 * and heapprof chained it as a real crash (exit 139 in about 3 of 10
 * runs); under the default policy both threads cycled fault, step, trap on
 * every locked instruction (12 s against 0.13 s). Issue "ldv never breaks
 * a program", point 4. */
#define GC_THREADS
#include <gc/gc.h>
#include <pthread.h>
#include <stdio.h>

typedef struct shared { long counter; long mine[2]; } shared;
static shared *obj;

static void *work(void *arg)
{
    int me = (int)(long)arg;
    for (int i = 0; i < 50000; i++) {
        __atomic_fetch_add(&obj->counter, 1, __ATOMIC_SEQ_CST);
        obj->mine[me]++;
        if (me == 0 && i % 10000 == 0) GC_gcollect();
    }
    return NULL;
}

int main(void)
{
    GC_INIT();
    obj = GC_MALLOC(sizeof *obj);
    GC_gcollect();   /* under ldv the object's page is protected now */
    pthread_t t[2];
    for (long k = 0; k < 2; k++) pthread_create(&t[k], NULL, work, (void *)k);
    for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
    printf("counter %ld, each thread %ld and %ld\n", obj->counter, obj->mine[0], obj->mine[1]);
    return 0;
}
