/* ldv_patterns: access patterns on which a re-arming policy of mode ldv
 * can miss uses (issue 18), for tests/integration/test_ldv.py, which runs
 * it under ldv=precise (every use seen) and under the default policy and
 * compares the bands census by census. Periods are ended by GC_gcollect
 * (HEAPPROF=ldv,interval=0: census t at the t-th collection); the heap is
 * grown first, so no other collection happens.
 *
 *   `tree`:    a binary tree of 2^13 - 1 nodes built in period 0, left
 *              alone for periods 1-3, walked once in period 4 (each node
 *              touched twice, in address order: its left link, and after
 *              the left subtree its right link or its value), held to exit.
 *   `list`:    a list of 6000 nodes built in period 0, walked by pointer
 *              chasing in periods 2 and 5, held to exit.
 *   `hash`:    a table of 1024 chains holding 8000 entries, built in period
 *              0; 3000 lookups of keys drawn at random in period 3 (an
 *              entry on a chain before the one sought is read too; entries
 *              never on a lookup's path stay unused), held to exit.
 *   `young`:   in each of periods 1-5, 1500 objects made, left for the next
 *              period, read once there, dropped the period after.
 *   `threads`: 4000 objects made in period 0, interleaved on the same
 *              pages; in period 2 a second thread reads the odd ones while
 *              the main thread reads the even ones; held to exit.
 *   `churn`:   6000 objects of 48 bytes (64 to a page) made in period 0;
 *              in each of periods 1-6, 600 reads of objects drawn at
 *              random (a quarter of them read 8 times), and after every
 *              tenth read one object drawn at random dropped and replaced
 *              by a new one, set at once: the collector's free slots, and
 *              so the new objects, lie on the pages of the objects read.
 *   `fronts`:  3000 objects of 48 bytes and 3000 of 160 made in period 0;
 *              in each of periods 1-6, 1500 of each drawn at random
 *              dropped and replaced by turns (a small one, a big one), each
 *              set at once and never read: the allocator works on two pages
 *              at a time, and no old object is used.
 *
 * `ldv_patterns NAME` runs one pattern; no argument runs them all. Seven
 * collections, then exit (the final census is census 8). */
#include <gc/gc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progs.h"

typedef struct node { struct node *l, *r; long v; } node;
static volatile long sink;
static int want_all;
static const char *want;

static int on(const char *name) { return want_all || strcmp(want, name) == 0; }

/* ---- tree ---- */
static node *tree;
static node *make(long v, int d)
{
    node *t = GC_malloc(sizeof *t);
    if (d == 0) {
        t->v = v;
        return t;
    }
    t->l = make(v, d - 1);
    t->r = make(v + 1, d - 1);
    return t;
}
static long check(const node *t) { return t->l ? 1 + check(t->l) + check(t->r) : t->v; }

/* ---- list ---- */
static node *list;
static void build_list(void)
{
    for (int i = 0; i < 6000; i++) {
        node *n = GC_malloc(sizeof *n);
        n->l = list;
        n->v = i;
        list = n;
    }
}
static void walk_list(void)
{
    for (const node *n = list; n; n = n->l) sink += n->v;
}

/* ---- hash ---- */
#define BUCKETS 1024
static node **table;
static unsigned long rng = 88172645463325252ul;
static unsigned long next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static void build_hash(void)
{
    table = GC_malloc(BUCKETS * sizeof *table);
    for (long k = 0; k < 8000; k++) {
        node *e = GC_malloc(sizeof *e);
        e->v = k;
        e->l = table[k % BUCKETS];
        table[k % BUCKETS] = e;
    }
}
static void lookups(void)
{
    for (int i = 0; i < 3000; i++) {
        long k = (long)(next() % 8000);
        for (const node *e = table[k % BUCKETS]; e; e = e->l)
            if (e->v == k) {
                sink += e->v;
                break;
            }
    }
}

/* ---- young ---- */
#define YOUNG 1500
static char *young[2][YOUNG];
static void young_step(int p)
{
    char **made = young[p % 2], **old = young[(p + 1) % 2];
    for (int i = 0; i < YOUNG; i++)
        if (old[i]) sink += old[i][3];   /* read once, the period after birth */
    for (int i = 0; i < YOUNG; i++) old[i] = NULL;
    if (p > 5) return;
    for (int i = 0; i < YOUNG; i++) {
        made[i] = GC_malloc_atomic(48);
        memset(made[i], p, 48);
    }
}

/* ---- churn ---- */
#define CHURN 6000
static char *churn[CHURN];
static unsigned churn_seed = 7;
static unsigned churn_rnd(void)
{
    churn_seed = churn_seed * 1103515245u + 12345u;
    return churn_seed >> 8;
}
static void churn_make(void)
{
    for (int i = 0; i < CHURN; i++) {
        churn[i] = GC_malloc_atomic(48);
        memset(churn[i], i & 0x7f, 48);
    }
}
static void churn_step(int p)
{
    for (int k = 0; k < CHURN / 10; k++) {
        int i = (int)(churn_rnd() % CHURN);
        int times = churn_rnd() % 4 == 0 ? 8 : 1;
        for (int t = 0; t < times; t++) sink += churn[i][(t * 5) % 48];
        if (k % 2 == 1) {
            int j = (int)(churn_rnd() % CHURN);
            churn[j] = GC_malloc_atomic(48);
            memset(churn[j], p, 48);
        }
    }
}

/* ---- fronts ---- */
#define FRONTS 3000
static char *small_objs[FRONTS], *big_objs[FRONTS];
static void fronts_make(void)
{
    for (int i = 0; i < FRONTS; i++) {
        small_objs[i] = GC_malloc_atomic(48);
        memset(small_objs[i], 1, 48);
        big_objs[i] = GC_malloc_atomic(160);
        memset(big_objs[i], 2, 160);
    }
}
static void fronts_step(int p)
{
    for (int k = 0; k < FRONTS / 2; k++) {
        int i = (int)(churn_rnd() % FRONTS), j = (int)(churn_rnd() % FRONTS);
        small_objs[i] = GC_malloc_atomic(48);
        memset(small_objs[i], p, 48);
        big_objs[j] = GC_malloc_atomic(160);
        memset(big_objs[j], p, 160);
    }
    sink += p;
}

/* ---- threads ---- */
#define SHARED 4000
static char **shared;
static void *read_odd(void *arg)
{
    (void)arg;
    for (int i = 1; i < SHARED; i += 2) sink += shared[i][5];
    return NULL;
}
static void shared_reads(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, read_odd, NULL) != 0) abort();
    for (int i = 0; i < SHARED; i += 2) sink += shared[i][5];
    pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
    want_all = argc < 2;
    want = argc < 2 ? "" : argv[1];
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    /* Period 0. */
    if (on("tree")) tree = make(0, 12);
    if (on("list")) build_list();
    if (on("hash")) build_hash();
    if (on("churn")) churn_make();
    if (on("fronts")) fronts_make();
    if (on("threads")) {
        shared = GC_malloc(SHARED * sizeof *shared);
        for (int i = 0; i < SHARED; i++) {
            shared[i] = GC_malloc_atomic(40);
            memset(shared[i], i, 40);
        }
    }
    scrub_stack();
    for (int p = 1; p <= 7; p++) {
        GC_gcollect();   /* census p: period p begins */
        if (on("young")) young_step(p);
        if (p == 2 && on("list")) walk_list();
        if (p == 5 && on("list")) walk_list();
        if (p == 3 && on("hash")) lookups();
        if (p == 4 && on("tree")) sink += check(tree);
        if (p == 2 && on("threads")) shared_reads();
        if (p <= 6 && on("churn")) churn_step(p);
        if (p <= 6 && on("fronts")) fronts_step(p);
        scrub_stack();
    }
    printf("done %d\n", sink != 0);
    return 0;
}
