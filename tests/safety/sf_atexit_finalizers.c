/* sf_atexit_finalizers: 10 objects with finalizers that use the program's
 * state, and an atexit handler that tears that state down. Alone, no
 * finalizer runs (the program never collects at exit) and it exits 0
 * with its buffered output; a collection at exit would run them after the
 * teardown (a NULL dereference). Issue: safe on any program, point 1. */
#include <gc/gc.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct state { int finalized; } state;
static state *the_state;

static void finalize(void *obj, void *data)
{
    (void)obj;
    (void)data;
    the_state->finalized++;   /* crashes once the state is gone */
    printf("finalized\n");
}

static void teardown(void)
{
    free(the_state);
    the_state = NULL;
}

int main(void)
{
    GC_INIT();
    the_state = calloc(1, sizeof *the_state);
    atexit(teardown);
    for (int i = 0; i < 10; i++) {
        void *p = GC_MALLOC(64);
        GC_REGISTER_FINALIZER(p, finalize, NULL, NULL, NULL);
    }
    printf("made 10 finalizable objects, finalized so far: %d\n", the_state->finalized);
    return 0;
}
