/* sampled: allocation sites of known volume for the sampling mode's test
 * (tests/integration/test_sample.py, HEAPPROF=cc,sample=BYTES,seed=N):
 *   small   200,000 x GC_malloc(16)        (3.2 MB; half kept)
 *   medium    3,000 x GC_malloc(1000)      (about 3 MB; half kept)
 *   large        30 x GC_malloc(100000)    (about 3 MB; half kept)
 *   direct  100,000 x GC_malloc(16) and GC_malloc_kind_global(16) from
 *             one frame (3.2 MB; half kept): the second is the program's
 *             own call, with the stack top of the first, which took the
 *             fast path and left it (preload/hp_fast_alloc.h, Note [Nested
 *             by address]); libgc tail-calls GC_malloc_kind_global from
 *             inside the first few of the first
 * The kept half stays live to exit. Prints "SITE n granted" per site
 * (GC_size) so the test knows the exact bytes. */
#include <gc/gc.h>
#include <stdio.h>

#include "progs.h"

/* gc_inline.h declares it only under GC_THREADS (kind 1: GC_I_NORMAL). */
void *GC_malloc_kind_global(size_t lb, int kind);

static void *keep_small[100000], *keep_medium[1500], *keep_large[15], *keep_direct[100000];

__attribute__((noinline)) static void *small(void) { return GC_malloc(16); }
__attribute__((noinline)) static void *medium(void) { return GC_malloc(1000); }
__attribute__((noinline)) static void *large(void) { return GC_malloc(100000); }
__attribute__((noinline)) static size_t direct(int keep)
{
    void *a = GC_malloc(16);
    void *b = GC_malloc_kind_global(16, 1);
    if (keep) keep_direct[keep - 1] = a, keep_direct[keep] = b;
    return a && b && GC_size(a) == GC_size(b) ? GC_size(b) : 0;
}

int main(void)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    size_t gs = 0, gm = 0, gl = 0;
    for (int i = 0; i < 200000; i++) {
        void *p = small();
        gs = GC_size(p);
        if (i % 2 == 0) keep_small[i / 2] = p;
    }
    for (int i = 0; i < 3000; i++) {
        void *p = medium();
        gm = GC_size(p);
        if (i % 2 == 0) keep_medium[i / 2] = p;
    }
    for (int i = 0; i < 30; i++) {
        void *p = large();
        gl = GC_size(p);
        if (i % 2 == 0) keep_large[i / 2] = p;
    }
    size_t gd = 0;
    for (int i = 0; i < 100000; i++) gd = direct(i % 2 == 0 ? i + 1 : 0);
    scrub_stack();
    GC_gcollect();
    printf("small 200000 %zu\nmedium 3000 %zu\nlarge 30 %zu\ndirect 200000 %zu\n", gs, gm, gl, gd);
    return keep_small[0] && keep_medium[0] && keep_large[0] && keep_direct[0] && gd ? 0 : 1;
}
