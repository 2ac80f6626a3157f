/* bh_loop: allocate continuously for a while, for the behaviour tests
 * (forced censuses, SIGKILL mid-run, GC_disable).
 * usage: bh_loop SECONDS [expand] [disable] [live=MB] [slowgc=MS] [collect=S]
 * expand: GC_expand_hp(1 << 30) first, so the collector rarely runs by
 * itself. disable: GC_disable() before allocating. live=MB: first build
 * MB megabytes of 4 KiB objects kept live to the end (chained, so every
 * collection marks them all: a big heap, costly to collect). slowgc=MS: a
 * collection-event callback that sleeps MS milliseconds at each
 * collection's start (a collection as long as a big heap's, on a small
 * one). collect=S: GC_gcollect every S seconds of the loop; otherwise
 * never called. Each iteration replaces one slot of a 4096-slot ring of
 * 64-byte objects from loop_site (so at most 4096 stay live). Prints
 * "started" (flushed) and, at the end, "done N" with the object count. */
#define _POSIX_C_SOURCE 200809L
#include <gc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RING 4096

static void *ring[RING];

__attribute__((noinline)) static void *loop_site(void)
{
    return GC_MALLOC(64);
}

static long slow_ms;

static void slow_start(GC_EventType ev)
{
    if (ev != GC_EVENT_START) return;
    struct timespec ts = {slow_ms / 1000, (slow_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    int expand = 0, disable = 0;
    long live_mb = 0;
    double collect = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "expand") == 0) expand = 1;
        if (strcmp(argv[i], "disable") == 0) disable = 1;
        if (strncmp(argv[i], "live=", 5) == 0) live_mb = atol(argv[i] + 5);
        if (strncmp(argv[i], "slowgc=", 7) == 0) slow_ms = atol(argv[i] + 7);
        if (strncmp(argv[i], "collect=", 8) == 0) collect = atof(argv[i] + 8);
    }
    GC_INIT();
    if (slow_ms) GC_set_on_collection_event(slow_start);
    if (expand) GC_expand_hp((size_t)1 << 30);
    if (disable) GC_disable();
    static void **chain;
    for (long k = 0; k < live_mb * 256; k++) {
        void **o = GC_MALLOC(4096);
        o[0] = chain;
        chain = o;
    }
    printf("started\n");
    fflush(stdout);
    double end = now() + seconds, next_collect = now() + collect;
    unsigned long n = 0;
    for (;;) {
        ring[n % RING] = loop_site();
        n++;
        if (n % 256 == 0) {
            double t = now();
            if (t >= end) break;
            if (collect > 0 && t >= next_collect) {
                GC_gcollect();
                next_collect = now() + collect;
            }
        }
    }
    printf("done %lu\n", n);
    return 0;
}
