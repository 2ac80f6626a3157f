/* ldv_truth: objects whose lag/drag/void/use biography is known by
 * construction, for tests/integration/test_ldv.py. Periods are ended by
 * GC_gcollect (run with HEAPPROF=ldv,interval=0: one census per collection,
 * census t at the t-th collection, period p between censuses p and p+1);
 * the heap is grown first so that no other collection happens.
 *
 * Groups (N objects of 100 bytes each; created in period a, filled at once):
 *   V 10: created 0, never read, dropped in period 3
 *   D 20: created 0, read in period 1, held to exit
 *   U 30: created 1, read in periods 2, 3 and 4, dropped in period 5
 *   W 40: created 2, written (not read) in period 3, held to exit
 *   I 50: created 2, only initialised, held to exit
 *   S 60: created 0, given to write(2) in period 4, held to exit
 * Six collections, then exit (the final census is census 7).
 *
 * `ldv_truth K HOW` ends the program right after its K-th collection (the
 * abnormal ends of tests/integration/test_ldv.py): exit (exit(0): a normal
 * end), abort, _exit, segv (a write through a null pointer of its own),
 * kill (prints "stopped" and waits for the test's SIGKILL). */
#include <gc/gc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdint.h>

#define SZ 100
enum { V, D, U, W, I, S, NG };
static const int count[NG] = {10, 20, 30, 40, 50, 60};
static char *obj[NG][60];
static volatile long sink;
static volatile uintptr_t sink_null;   /* 0, unknown to the compiler */

static void create(int g)
{
    for (int i = 0; i < count[g]; i++) {
        obj[g][i] = GC_malloc_atomic(SZ);
        memset(obj[g][i], 'a' + g, SZ);
    }
}

static void readg(int g)
{
    for (int i = 0; i < count[g]; i++) sink += ((volatile char *)obj[g][i])[SZ / 2];
}

static int stop_after;            /* 0: run to the end */
static const char *stop_how = "exit";
static int collections;

/* A collection of the program's (census `collections` with interval=0). */
static void collect(void)
{
    GC_gcollect();
    if (++collections != stop_after) return;
    printf("stopped %d\n", collections);
    fflush(stdout);
    if (strcmp(stop_how, "abort") == 0) abort();
    if (strcmp(stop_how, "_exit") == 0) _exit(3);
    if (strcmp(stop_how, "segv") == 0) *(volatile int *)(uintptr_t)sink_null = 1;
    if (strcmp(stop_how, "kill") == 0)
        for (;;) pause();
    exit(0);
}

static void drop(int g)
{
    for (int i = 0; i < count[g]; i++) obj[g][i] = NULL;
}

int main(int argc, char **argv)
{
    if (argc > 2) {
        stop_after = atoi(argv[1]);
        stop_how = argv[2];
    }
    GC_INIT();
    GC_expand_hp(64 << 20);
    printf("base %lu\n", (unsigned long)GC_get_gc_no());
    int null = open("/dev/null", O_WRONLY);
    /* period 0 */
    create(V); create(D); create(S);
    collect();                             /* census 1 */
    readg(D); create(U);
    collect();                             /* census 2 */
    readg(U); create(W); create(I);
    collect();                             /* census 3 */
    readg(U);
    for (int i = 0; i < count[W]; i++) obj[W][i][7] = 'w';
    drop(V);
    collect();                             /* census 4 */
    readg(U);
    long wrote = 0;
    for (int i = 0; i < count[S]; i++) wrote += write(null, obj[S][i], SZ);
    collect();                             /* census 5 */
    drop(U);
    collect();                             /* census 6 */
    printf("wrote %ld\ncollections %lu\nsize %zu\n", wrote, (unsigned long)GC_get_gc_no(),
           GC_size(obj[D][0]));
    return 0;
}
