/* sf_deinit: a program that shuts the collector down (GC_deinit) before it
 * exits, as a runtime may. Issue: safe on any program, point 2. */
#include <gc/gc.h>
#include <stdio.h>

int main(void)
{
    GC_INIT();
    void *keep[100];
    for (int i = 0; i < 100; i++) keep[i] = GC_MALLOC(48);
    GC_gcollect();
    printf("%s allocated, collector shut down\n", keep[99] ? "100 objects" : "nothing");
    GC_deinit();
    printf("done\n");
    return 0;
}
