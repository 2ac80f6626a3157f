/* retainers: a heap whose every retainer set is known by construction, for
 * the retainer profile (HEAPPROF=retainer,retainers=session_new).
 *
 *   g_cache     a list of 10 nodes                          -> {g_cache}
 *   g_cycle     two nodes pointing at each other            -> {g_cycle}
 *   g_interior  points 16 bytes into a 64-byte buffer       -> {g_interior}
 *   g_deep      a list of DEEP nodes (a million by default) -> {g_deep}
 *   a worker thread's stack variable holding a tree of 31
 *   nodes, made first; the worker stays blocked until exit  -> {stack:thread1}
 *   one node held by both g_cache's last node and the tree  -> {g_cache, stack:thread1}
 *   g_sessions  a session object made by session_new        -> {g_sessions}
 *               its payload, reached only through it        -> {session_new/main}
 *
 * The program prints "EXPECT <members> <bytes>" for each set (sizes from
 * GC_size), members sorted and joined with ','; the census taken at exit
 * must show exactly these bands. */
#define GC_THREADS
#include <gc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "progs.h"

typedef struct node { struct node *next, *other; } node;      /* 16 bytes */
typedef struct tree { struct tree *l, *r; node *shared; } tree;

node *g_cache, *g_cycle, *g_deep;
char *g_interior;
void **g_sessions;

static node *shared;
static size_t tree_bytes;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int built;

__attribute__((noinline)) static tree *make_tree(int depth)
{
    tree *t = GC_MALLOC(sizeof *t);
    tree_bytes += GC_size(t);
    if (depth > 1) {
        t->l = make_tree(depth - 1);
        t->r = make_tree(depth - 1);
    }
    return t;
}

static void *worker(void *arg)
{
    (void)arg;
    tree *volatile root = make_tree(5);
    root->shared = shared;
    scrub_stack();
    pthread_mutex_lock(&mu);
    built = 1;
    pthread_cond_broadcast(&cv);
    for (;;) pthread_cond_wait(&cv, &mu);   /* blocked until the process exits */
    return (void *)root;
}

__attribute__((noinline)) static node *make_list(int n, size_t *bytes)
{
    node *h = NULL;
    for (int i = 0; i < n; i++) {
        node *x = GC_MALLOC(sizeof *x);
        *bytes += GC_size(x);
        x->next = h;
        h = x;
    }
    return h;
}

__attribute__((noinline)) static void *payload_new(size_t *bytes)
{
    void *p = GC_MALLOC(100);
    *bytes += GC_size(p);
    return p;
}

__attribute__((noinline)) static void **session_new(size_t *sbytes, size_t *pbytes)
{
    void **s = GC_MALLOC(4 * sizeof(void *));
    *sbytes += GC_size(s);
    s[0] = payload_new(pbytes);
    return s;
}

__attribute__((noinline)) static void build(void)
{
    size_t cache = 0, cycle = 0, deep = 0, sess = 0, pay = 0, interior = 0;
    g_cache = make_list(10, &cache);
    node *a = GC_MALLOC(sizeof *a), *b = GC_MALLOC(sizeof *b);
    a->next = b;
    b->next = a;
    cycle = GC_size(a) + GC_size(b);
    g_cycle = a;
    char *buf = GC_MALLOC(64);
    interior = GC_size(buf);
    g_interior = buf + 16;
    long n = getenv("DEEP") ? atol(getenv("DEEP")) : 1000000;
    g_deep = make_list((int)n, &deep);
    g_sessions = session_new(&sess, &pay);
    node *last = g_cache;
    while (last->next) last = last->next;
    last->other = shared;
    printf("EXPECT g_cache %zu\n", cache);
    printf("EXPECT g_cycle %zu\n", cycle);
    printf("EXPECT g_interior %zu\n", interior);
    printf("EXPECT g_deep %zu\n", deep);
    printf("EXPECT g_sessions %zu\n", sess);
    printf("EXPECT session_new/build/main %zu\n", pay);
    printf("EXPECT g_cache,stack:thread1 %zu\n", (size_t)GC_size(shared));
}

int main(void)
{
    GC_INIT();
    GC_allow_register_threads();
    /* The worker first: its stack then holds nothing but its tree (no
     * stale pointer into what main builds later). */
    shared = GC_MALLOC(sizeof *shared);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_mutex_lock(&mu);
    while (!built) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    build();
    printf("EXPECT stack:thread1 %zu\n", tree_bytes);
    shared = NULL;
    fflush(stdout);
    scrub_stack();
    exit(0);   /* the worker is still blocked: heapprof's last census sees its stack */
}
