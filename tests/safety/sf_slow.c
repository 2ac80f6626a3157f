/* sf_slow: allocates for about a second (40 collections), so that a second
 * run of it can start while the first is still writing its profile.
 * Issue: safe on any program, point 8. */
#define _POSIX_C_SOURCE 200809L
#include <gc/gc.h>
#include <stdio.h>
#include <time.h>

int main(void)
{
    GC_INIT();
    void *keep[256];
    for (int round = 0; round < 40; round++) {
        for (int i = 0; i < 4000; i++) keep[i % 256] = GC_MALLOC(40);
        GC_gcollect();
        struct timespec ts = {0, 25000000};
        nanosleep(&ts, NULL);
    }
    printf("done %d\n", keep[0] != NULL);
    return 0;
}
