/* report_modhost: allocations from three "modules", for HEAPPROF=module and
 * the ccs= / module= / kind= filters (tests/integration/test_report_modes.py).
 * Usage: report_modhost PATH/libhpplugin.so. The program itself keeps
 * 25 x GC_malloc(24) from prog_alloc() and 12 x GC_malloc_atomic(200) from
 * prog_atomic(); under the explicit cost centre "phase" it keeps
 * 3 x GC_malloc(100); then it dlopen()s the plugin (tests/progs/plugin.c),
 * whose plugin_alloc() keeps 60 x GC_malloc(40), and has the plugin run a
 * collection (a census). Prints per site its count and granted size. */
#include <dlfcn.h>
#include <gc/gc.h>
#include <stdio.h>

#include "heapprof.h"
#include "progs.h"

#define NP 25
#define NA 12
#define NX 3

static void *pkeep[NP], *akeep[NA], *xkeep[NX];

__attribute__((noinline)) static void prog_alloc(void)
{
    for (int i = 0; i < NP; i++) pkeep[i] = GC_malloc(24);
}

__attribute__((noinline)) static void prog_atomic(void)
{
    for (int i = 0; i < NA; i++) akeep[i] = GC_malloc_atomic(200);
}

__attribute__((noinline)) static void in_phase(void)
{
    heapprof_cc_push("phase");
    for (int i = 0; i < NX; i++) xkeep[i] = GC_malloc(100);
    heapprof_cc_pop();
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: report_modhost PLUGIN.so\n");
        return 2;
    }
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    prog_alloc();
    prog_atomic();
    in_phase();
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "report_modhost: %s\n", dlerror());
        return 1;
    }
    size_t (*run)(int);
    void (*collect)(void);
    *(void **)&run = dlsym(h, "plugin_run");
    *(void **)&collect = dlsym(h, "plugin_collect");
    if (!run || !collect) {
        fprintf(stderr, "report_modhost: plugin functions missing\n");
        return 1;
    }
    size_t granted = run(60);
    printf("prog_alloc %d %zu\n", NP, GC_size(pkeep[0]));
    printf("prog_atomic %d %zu\n", NA, GC_size(akeep[0]));
    printf("phase %d %zu\n", NX, GC_size(xkeep[0]));
    printf("plugin_alloc 60 %zu\n", granted);
    fflush(stdout);
    collect();
    return 0;
}
