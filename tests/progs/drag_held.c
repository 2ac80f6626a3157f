/* drag_held: a heap whose biography and retainers are known by
 * construction, for the one-run crossing of bands and retainer sets
 * (HEAPPROF=retainer,bands=drag+void; tests/integration/test_ldv_retainer.py).
 *
 * Censuses are the program's own collections (run with interval=0):
 *   - make_entry allocates N entries (64 bytes asked) held by
 *     the global `held`; they are read once, in the period after their
 *     creation, and never again: LAG at census 1, DRAG from census 2 on;
 *   - make_unused allocates M blocks held by `never`, never read: VOID at
 *     every census;
 *   - make_hot allocates H blocks held by `hot`, read in every period:
 *     USE (in no band of bands=drag+void);
 *   - after census 3, the second half of `held`'s entries are moved (their
 *     pointers, not the entries) to the global `held2` and cleared in
 *     `held`: from census 4 on they are DRAG under {held2}.
 * It prints the bytes the collector granted (GC_size) to each group, so a
 * test can check a profile's bands to the byte: "held B held2 B never B
 * hot B". With the argument "kill" it ends by SIGKILL after census 5
 * (for the checkpoint, PROG.partial.hp). */
#include <gc/gc.h>
#include <time.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define N 512
#define M 256
#define H 128

typedef struct entry { long v[8]; } entry;   /* 64 bytes */

static entry *held[N];
static entry *held2[N];
static entry *never[M];
static entry *hot[H];

__attribute__((noinline)) static entry *make_entry(int i)
{
    entry *e = GC_malloc(sizeof *e);
    e->v[0] = i;
    return e;
}

__attribute__((noinline)) static entry *make_unused(int i)
{
    entry *e = GC_malloc(sizeof *e);
    e->v[0] = i;
    return e;
}

__attribute__((noinline)) static entry *make_hot(int i)
{
    entry *e = GC_malloc(sizeof *e);
    e->v[0] = i;
    return e;
}

static size_t granted(entry **a, int n)
{
    size_t s = 0;
    for (int i = 0; i < n; i++)
        if (a[i]) s += GC_size(a[i]);
    return s;
}

static long read_all(entry **a, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        if (a[i]) s += ((volatile entry *)a[i])->v[0];
    return s;
}

/* Two milliseconds of the program's own time: every period has a length on
 * the mutator clock (heapprof's time, the faults' included, is not on it),
 * so DRAG and VOID byte-seconds are not zero however fast the reads. */
static void spin(void)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 2000000L);
}

int main(int argc, char **argv)
{
    GC_INIT();
    long sum = 0;
    for (int i = 0; i < N; i++) held[i] = make_entry(i);
    for (int i = 0; i < M; i++) never[i] = make_unused(i);
    for (int i = 0; i < H; i++) hot[i] = make_hot(i);
    spin();
    GC_gcollect();                       /* census 1 */
    sum += read_all(held, N);            /* the entries' one use */
    sum += read_all(hot, H);
    spin();
    GC_gcollect();                       /* census 2 */
    sum += read_all(hot, H);
    spin();
    GC_gcollect();                       /* census 3 */
    for (int i = N / 2; i < N; i++) {    /* half the entries change hands */
        held2[i] = held[i];
        held[i] = NULL;
    }
    sum += read_all(hot, H);
    spin();
    GC_gcollect();                       /* census 4 */
    sum += read_all(hot, H);
    spin();
    GC_gcollect();                       /* census 5 */
    sum += read_all(hot, H);
    spin();                              /* (the last period, to the census at exit) */
    printf("held %zu held2 %zu never %zu hot %zu\n", granted(held, N), granted(held2, N),
           granted(never, M), granted(hot, H));
    fflush(stdout);
    if (argc > 1 && strcmp(argv[1], "kill") == 0) raise(SIGKILL);
    return sum == 0;   /* (the reads must not be optimised away) */
}
