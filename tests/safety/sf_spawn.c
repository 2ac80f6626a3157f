/* sf_spawn: a program that moves to a directory nothing can be written in
 * and starts helpers with system(): sh and echo inherit LD_PRELOAD, cannot
 * write a profile there, use no libgc. They must run as without heapprof,
 * and say nothing. Issue: safe on any program, points 5 and 11. */
#include <gc/gc.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
    GC_INIT();
    void *keep = GC_MALLOC(1000);
    if (chdir("/proc") != 0) return 3;
    fflush(stdout);
    int r = system("echo helper");
    printf("system returned %d, %s\n", r, keep ? "kept" : "lost");
    return 0;
}
