/* plugin: a shared library linked with libgc, loaded at run time by
 * dlhost (integration test 7). plugin_run(n) starts the collector and keeps
 * n objects of 40 bytes allocated in plugin_alloc(); it returns the granted
 * size of one. plugin_collect() runs a full collection (a census). */
#include <gc/gc.h>
#include <stddef.h>

#include "progs.h"

#define MAXN 1000

static void *keep[MAXN];

__attribute__((noinline)) static void plugin_alloc(int n)
{
    for (int i = 0; i < n && i < MAXN; i++) keep[i] = GC_malloc(40);
}

__attribute__((visibility("default"))) size_t plugin_run(int n)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    plugin_alloc(n);
    return GC_size(keep[0]);
}

__attribute__((visibility("default"))) void plugin_collect(void)
{
    scrub_stack();
    GC_gcollect();
}
