/* ldv_cross: the biography crossed with stacks (tests/integration/
 * test_ldv.py, bands=). Run with HEAPPROF=ldv,interval=0: one census per
 * GC_gcollect, period p between censuses p and p+1.
 *
 *   make_void   10 x 100 bytes, never read, held to exit: VOID
 *   make_drag   20 x 100 bytes, read in period 1 only, held to exit: DRAG
 *               from census 2 on
 *   make_used   30 x 100 bytes, read in every period: DRAG only at the end
 *
 * Five collections, then exit. */
#include <gc/gc.h>
#include <stdio.h>
#include <string.h>

#define SZ 100
static char *v[10], *d[20], *u[30];
static volatile long sink;

__attribute__((noinline)) static void make_void(void)
{
    for (int i = 0; i < 10; i++) memset(v[i] = GC_malloc_atomic(SZ), 'v', SZ);
}

__attribute__((noinline)) static void make_drag(void)
{
    for (int i = 0; i < 20; i++) memset(d[i] = GC_malloc_atomic(SZ), 'd', SZ);
}

__attribute__((noinline)) static void make_used(void)
{
    for (int i = 0; i < 30; i++) memset(u[i] = GC_malloc_atomic(SZ), 'u', SZ);
}

static void read_all(char **o, int n)
{
    for (int i = 0; i < n; i++) sink += ((volatile char *)o[i])[SZ / 2];
}

int main(void)
{
    GC_INIT();
    GC_expand_hp(64 << 20);
    make_void();
    make_drag();
    make_used();
    for (int p = 0; p < 5; p++) {
        GC_gcollect();               /* census p + 1 */
        if (p == 0) read_all(d, 20); /* period 1 */
        read_all(u, 30);
    }
    printf("VOID %zu DRAG %zu USED %zu\n", 10 * GC_size(v[0]), 20 * GC_size(d[0]),
           30 * GC_size(u[0]));
    return 0;
}
