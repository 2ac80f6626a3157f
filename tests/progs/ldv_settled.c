/* ldv_settled: collections inside one period, for tests/integration/
 * test_ldv.py. Run with HEAPPROF=ldv,interval=1000: no census until the
 * one at exit, so every collection of the program is a protect pass inside
 * period 0. A pass leaves open the pages whose objects are all used
 * already in the period (nothing left to learn there); this program checks
 * that no first use is lost by it and that the pages really are left open.
 *
 *   big: one object of 16 pages, read after the first collection;
 *   early[64]: small objects, read after the first collection;
 *   late[64]: small objects, allocated next to early's, read only after
 *             the third collection (their pages must still be watched).
 * After the second collection big is read again (its pages left open: no
 * fault). Every object is used in period 0 and held to exit: at the exit
 * census every byte is DRAG and none VOID. */
#include <gc/gc.h>
#include <stdio.h>
#include <string.h>

#define BIG (16 * 4096)
#define SMALL 48
#define N 64
static char *big, *early[N], *late[N];
static volatile long sink;

static void read_big(void)
{
    for (size_t o = 0; o < BIG; o += 4096) sink += ((volatile char *)big)[o];
}

int main(void)
{
    GC_INIT();
    GC_expand_hp(64 << 20);
    big = GC_malloc_atomic(BIG);
    memset(big, 1, BIG);
    for (int i = 0; i < N; i++) {
        early[i] = GC_malloc_atomic(SMALL);
        memset(early[i], 2, SMALL);
        late[i] = GC_malloc_atomic(SMALL);
        memset(late[i], 3, SMALL);
    }
    GC_gcollect();
    read_big();
    for (int i = 0; i < N; i++) sink += ((volatile char *)early[i])[0];
    GC_gcollect();
    read_big();
    GC_gcollect();
    for (int i = 0; i < N; i++) sink += ((volatile char *)late[i])[0];
    printf("bytes %zu\n", GC_size(big) + N * (GC_size(early[0]) + GC_size(late[0])));
    return 0;
}
