/* recursion: labels of mutually recursive functions and of a deeper call
 * chain (integration test 10). rec_f(2) -> rec_g -> rec_f(1) -> rec_g ->
 * rec_f(0) keeps 8 objects of 64 bytes (stack rec_f/rec_g/rec_f/rec_g/
 * rec_f/main, named rec_f/main by GHC's collapsing rule); leaf() called by
 * mid() called by top() keeps 6 objects of 24 bytes (leaf/mid/top/main). */
#include <gc/gc.h>
#include <stdio.h>

#include "progs.h"

static void *rkeep[8], *lkeep[6];

__attribute__((noinline)) static void rec_g(int n);

__attribute__((noinline)) static void rec_f(int n)
{
    if (n == 0) {
        for (int i = 0; i < 8; i++) rkeep[i] = GC_malloc(64);
        return;
    }
    rec_g(n);
}

__attribute__((noinline)) static void rec_g(int n) { rec_f(n - 1); }

__attribute__((noinline)) static void leaf(void)
{
    for (int i = 0; i < 6; i++) lkeep[i] = GC_malloc(24);
}

__attribute__((noinline)) static void mid(void) { leaf(); }
__attribute__((noinline)) static void top(void) { mid(); }

int main(void)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    rec_f(2);
    top();
    printf("rec_f 8 %zu\nleaf 6 %zu\n", GC_size(rkeep[0]), GC_size(lkeep[0]));
    fflush(stdout);
    scrub_stack();
    GC_gcollect();
    return 0;
}
