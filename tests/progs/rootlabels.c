/* rootlabels: retainers named by call stacks that share their innermost
 * frames, as a runtime's are (Guile registers every loaded file's data
 * from one loader function; Inkscape's uncollectable nodes come from one
 * allocator). Three root regions are registered through one
 * register_region/open_resource from load_fonts, load_images and
 * load_scripts; two uncollectable holders come from one new_holder,
 * called from from_config and from_cache. Each holds a chain of its own
 * size. Cut to the default label length (25), the bands must still say
 * which is which (issue "retainers on real runtimes": labels stay
 * distinct when cut).
 * Prints "EXPECT <path function> <bytes>" for the census taken at its last
 * GC_gcollect. */
#include <gc/gc.h>
#include "gc_chain.h"
#include "progs.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int calls;   /* keeps calls from becoming jumps */

__attribute__((noinline)) static void register_region(void **region, size_t n)
{
    GC_add_roots(region, region + n);
    calls++;
}

__attribute__((noinline)) static void **open_resource(size_t n)
{
    void **region = calloc(n, sizeof(void *));
    register_region(region, n);
    calls++;
    return region;
}

__attribute__((noinline)) static size_t load_fonts(void)
{
    void **r = open_resource(4);
    size_t b = prog_chain(&r[0], 3, 64);
    calls++;
    return b;
}

__attribute__((noinline)) static size_t load_images(void)
{
    void **r = open_resource(4);
    size_t b = prog_chain(&r[0], 5, 128);
    calls++;
    return b;
}

__attribute__((noinline)) static size_t load_scripts(void)
{
    void **r = open_resource(4);
    size_t b = prog_chain(&r[0], 7, 256);
    calls++;
    return b;
}

static void **g_hidden;   /* malloc'd: the collector never scans it */

__attribute__((noinline)) static void **new_holder(void)
{
    void **h = GC_MALLOC_UNCOLLECTABLE(32);
    calls++;
    return h;
}

__attribute__((noinline)) static size_t from_config(void)
{
    void **h = new_holder();
    g_hidden[0] = h;
    size_t b = GC_size(h) + prog_chain(&h[0], 4, 96);
    calls++;
    return b;
}

__attribute__((noinline)) static size_t from_cache(void)
{
    void **h = new_holder();
    g_hidden[1] = h;
    size_t b = GC_size(h) + prog_chain(&h[0], 6, 160);
    calls++;
    return b;
}

static size_t by_fonts, by_images, by_scripts, by_config, by_cache;

__attribute__((noinline)) static void setup(void)
{
    g_hidden = calloc(2, sizeof(void *));
    by_fonts = load_fonts();
    by_images = load_images();
    by_scripts = load_scripts();
    by_config = from_config();
    by_cache = from_cache();
}

int main(void)
{
    GC_INIT();
    setup();
    scrub_stack();   /* (setup's frames held the objects) */
    GC_gcollect();
    GC_gcollect();
    printf("EXPECT roots load_fonts %zu\n", by_fonts);
    printf("EXPECT roots load_images %zu\n", by_images);
    printf("EXPECT roots load_scripts %zu\n", by_scripts);
    printf("EXPECT uncoll from_config %zu\n", by_config);
    printf("EXPECT uncoll from_cache %zu\n", by_cache);
    return 0;
}
