/* sf_startcb: a program that gives the collector code of its own (a start
 * callback, as ECL and Guile do) that reads state its atexit handler tears
 * down. Alone, no collection runs after the teardown; a collection at exit
 * would call the callback on freed state. Issue: safe on any program,
 * point 1. */
#include <gc/gc.h>
#include <gc/gc_mark.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct state { unsigned long collections; } state;
static state *the_state;

static void on_start(void) { the_state->collections++; }   /* crashes after teardown */

static void teardown(void)
{
    free(the_state);
    the_state = NULL;
}

int main(void)
{
    GC_INIT();
    the_state = calloc(1, sizeof *the_state);
    GC_set_start_callback(on_start);
    atexit(teardown);
    void *keep[50];
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 1000; i++) keep[i % 50] = GC_MALLOC(24);
        GC_gcollect();
    }
    printf("collections seen: %lu, kept %s\n", the_state->collections, keep[0] ? "yes" : "no");
    return 0;
}
