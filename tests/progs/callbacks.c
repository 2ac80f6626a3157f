/* callbacks: the program's own GC_set_start_callback and
 * GC_set_on_collection_event callbacks must still run under heapprof, and
 * the getters must return the program's functions (integration test 6).
 * With argument "early" the callbacks are set before GC_INIT. Prints the
 * counts it saw; the output must be the same with and without heapprof. */
#include <gc/gc.h>
#include <gc/gc_mark.h>
#include <stdio.h>
#include <string.h>

#include "progs.h"

#define COLLECTIONS 5

static unsigned starts, ev_start, ev_mark_end, ev_reclaim_start, ev_reclaim_end, ev_end;
static void *keep[100];

static void on_start(void) { starts++; }

static void on_event(GC_EventType e)
{
    switch (e) {
    case GC_EVENT_START: ev_start++; break;
    case GC_EVENT_MARK_END: ev_mark_end++; break;
    case GC_EVENT_RECLAIM_START: ev_reclaim_start++; break;
    case GC_EVENT_RECLAIM_END: ev_reclaim_end++; break;
    case GC_EVENT_END: ev_end++; break;
    default: break;
    }
}

static void set_callbacks(void)
{
    GC_set_start_callback(on_start);
    GC_set_on_collection_event(on_event);
}

__attribute__((noinline)) static void fill(void)
{
    for (int i = 0; i < 100; i++) keep[i] = GC_malloc(32);
}

int main(int argc, char **argv)
{
    int early = argc > 1 && strcmp(argv[1], "early") == 0;
    if (early) set_callbacks();
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    if (!early) set_callbacks();
    unsigned long gc0 = (unsigned long)GC_get_gc_no();
    unsigned s0 = starts, e0 = ev_start;
    fill();
    for (int i = 0; i < COLLECTIONS; i++) GC_gcollect();
    unsigned long gcs = (unsigned long)GC_get_gc_no() - gc0;
    printf("collections %lu\n", gcs);
    printf("starts %u event_start %u\n", starts - s0, ev_start - e0);
    printf("total starts %u event_start %u mark_end %u reclaim_start %u reclaim_end %u end %u\n",
           starts, ev_start, ev_mark_end, ev_reclaim_start, ev_reclaim_end, ev_end);
    printf("get_on_collection_event %s\n",
           GC_get_on_collection_event() == on_event ? "program" : "other");
    printf("get_start_callback %s\n", GC_get_start_callback() == on_start ? "program" : "other");
    return 0;
}
