/* roots: programs for the profile by named roots (HEAPPROF=roots). The
 * first argument picks the scenario; each prints "EXPECT <band> <bytes>"
 * lines (sizes from GC_size) for the census taken at its last explicit
 * GC_gcollect(), and "rc <name> <code>" for API calls.
 *
 *   hsc      the seed's worked example rebuilt in C (see test_roots.py)
 *   many     64 roots on a chain: object k is reached by roots r0..rk
 *   die      a root whose object dies, then a census
 *   replace  roots replaced between two censuses
 *   bad      every kind of bad input; the roots set before stay in force
 *   rest     hsc, and a chain only a static variable holds (one link also
 *            points at eps): with noroot=retainers it is NOROOT:g_cache */
#include <gc.h>
#include <heapprof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progs.h"

typedef struct { long v; } Box;                    /* pointer-free, 8 bytes */
typedef struct { Box *x, *e, *t; } EPS;
typedef struct { Box *y, *f, *t; } FC;
typedef struct { Box *z; } OTHER;
typedef struct { EPS *eps; FC *fc; OTHER *other; } HscEnv;

HscEnv *g_hsc;
void *g_keep[70];

static Box *box(long v)
{
    Box *b = GC_MALLOC_ATOMIC(sizeof *b);
    b->v = v;
    return b;
}

static size_t sz(const void *p) { return GC_size((void *)p); }

__attribute__((noinline)) static void hsc(void)
{
    Box *t = box(6);
    HscEnv *h = GC_MALLOC(sizeof *h);
    h->eps = GC_MALLOC(sizeof *h->eps);
    h->fc = GC_MALLOC(sizeof *h->fc);
    h->other = GC_MALLOC(sizeof *h->other);
    h->eps->x = box(1);
    h->eps->e = box(4);
    h->eps->t = t;
    h->fc->y = box(2);
    h->fc->f = box(5);
    h->fc->t = t;
    h->other->z = box(3);
    g_hsc = h;
    int rc = heapprof_set_roots((heapprof_root[]){{"hsc", h}, {"eps", h->eps}, {"fc", h->fc}}, 3);
    printf("rc set %d\n", rc);
    printf("EXPECT hsc %zu\n", sz(h) + sz(h->other) + sz(h->other->z));
    printf("EXPECT hsc-eps %zu\n", sz(h->eps) + sz(h->eps->x) + sz(h->eps->e));
    printf("EXPECT hsc-fc %zu\n", sz(h->fc) + sz(h->fc->y) + sz(h->fc->f));
    printf("EXPECT hsc-eps-fc %zu\n", sz(t));
}

typedef struct link { struct link *next; long pad; } link;

__attribute__((noinline)) static void many(void)
{
    heapprof_root r[64];
    static char names[64][8];
    link *prev = NULL;
    for (int i = 63; i >= 0; i--) {
        link *l = GC_MALLOC(sizeof *l);
        l->next = prev;
        prev = l;
        g_keep[i] = l;
    }
    char band[64 * 4] = "";
    for (int i = 0; i < 64; i++) {
        snprintf(names[i], sizeof names[i], "r%d", i);
        r[i].name = names[i];
        r[i].ptr = g_keep[i];
        if (i) strcat(band, "-");
        strcat(band, names[i]);
        printf("EXPECT %s %zu\n", band, sz(g_keep[i]));
    }
    printf("rc set %d\n", heapprof_set_roots(r, 64));
}

__attribute__((noinline)) static void die(void)
{
    g_keep[0] = GC_MALLOC(48);
    g_keep[1] = GC_MALLOC(48);
    printf("rc set %d\n", heapprof_set_roots((heapprof_root[]){{"a", g_keep[0]}, {"b", g_keep[1]}}, 2));
    g_keep[1] = NULL;   /* b's object is now garbage: it dies at the next collection */
    printf("EXPECT a %zu\n", sz(g_keep[0]));
}

__attribute__((noinline)) static void replace_first(void)
{
    g_keep[0] = GC_MALLOC(100);
    g_keep[1] = GC_MALLOC(200);
    printf("rc set %d\n", heapprof_set_roots((heapprof_root[]){{"first", g_keep[0]}}, 1));
    printf("FIRST first %zu\n", sz(g_keep[0]));
}

__attribute__((noinline)) static void replace_second(void)
{
    printf("rc set %d\n", heapprof_set_roots((heapprof_root[]){{"second", g_keep[1]}}, 1));
    printf("rc add %d\n", heapprof_add_root("third", g_keep[0]));
    printf("EXPECT second %zu\n", sz(g_keep[1]));
    printf("EXPECT third %zu\n", sz(g_keep[0]));
}

__attribute__((noinline)) static void bad(void)
{
    g_keep[0] = GC_MALLOC(64);
    g_keep[1] = GC_MALLOC(64);
    long not_gc = 0;
    printf("rc good %d\n", heapprof_set_roots((heapprof_root[]){{"kept", g_keep[0]}}, 1));
    printf("rc null_name %d\n", heapprof_set_roots((heapprof_root[]){{NULL, g_keep[1]}}, 1));
    printf("rc null_array %d\n", heapprof_set_roots(NULL, 2));
    printf("rc duplicate %d\n",
           heapprof_set_roots((heapprof_root[]){{"x", g_keep[0]}, {"x", g_keep[1]}}, 2));
    printf("rc dash %d\n", heapprof_set_roots((heapprof_root[]){{"a-b", g_keep[1]}}, 1));
    printf("rc blank %d\n", heapprof_add_root("a b", g_keep[1]));
    printf("rc digit %d\n", heapprof_add_root("9lives", g_keep[1]));
    printf("rc reserved %d\n", heapprof_add_root("JOB", g_keep[1]));
    printf("rc not_gc %d\n", heapprof_add_root("stackvar", &not_gc));
    printf("rc null_ptr %d\n", heapprof_add_root("nothing", NULL));
    heapprof_root r[65];
    for (int i = 0; i < 65; i++) { r[i].name = "n"; r[i].ptr = g_keep[1]; }
    printf("rc too_many %d\n", heapprof_set_roots(r, 65));
    printf("rc add_dup %d\n", heapprof_add_root("kept", g_keep[1]));
    printf("rc remove_unknown %d\n", heapprof_remove_root("ghost"));
    printf("EXPECT kept %zu\n", sz(g_keep[0]));
}

link *g_cache;

__attribute__((noinline)) static void rest(void)
{
    hsc();
    size_t bytes = 0;
    for (int i = 0; i < 10; i++) {
        link *x = GC_MALLOC(sizeof *x);
        x->next = g_cache;
        g_cache = x;
        bytes += sz(x);
    }
    g_cache->pad = (long)g_hsc->eps;   /* reached by named roots anyway */
    printf("EXPECT NOROOT:g_cache %zu\n", bytes);
}

int main(int argc, char **argv)
{
    GC_INIT();
    const char *what = argc > 1 ? argv[1] : "hsc";
    if (strcmp(what, "hsc") == 0) hsc();
    else if (strcmp(what, "many") == 0) many();
    else if (strcmp(what, "die") == 0) die();
    else if (strcmp(what, "replace") == 0) {
        replace_first();
        scrub_stack();
        GC_gcollect();
        replace_second();
    } else if (strcmp(what, "bad") == 0) bad();
    else if (strcmp(what, "rest") == 0) rest();
    else return 2;
    fflush(stdout);
    scrub_stack();
    GC_gcollect();
    return 0;
}
