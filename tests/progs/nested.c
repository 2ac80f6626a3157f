/* nested: allocation entry points that call other GC_ functions inside
 * the collector (integration test 5). Each site is its own function and
 * keeps N objects in a global array; each object must be counted exactly
 * once. Prints, per site: name, objects, granted bytes of one object
 * (GC_size of its base) and requested bytes of one object. The realloc
 * sites allocate their originals in mk() and say whether realloc moved. */
#include <gc/gc.h>
#include <gc/gc_mark.h>
#include <gc/gc_typed.h>
#include <stdint.h>
#include <stdio.h>

#include "progs.h"

#define N 10

struct typed_obj {
    struct typed_obj *next;
    long payload[5];
};

static void *k_strdup[N], *k_strndup[N], *k_memalign[N], *k_posix[N], *k_move[N],
    *k_inplace[N], *k_debug[N], *k_typed[N], *k_kind[N], *k_atomic[N], *k_uncoll[N];
static int moved_move, moved_inplace, misaligned;

static void report(const char *name, void **objs, size_t req)
{
    printf("%s %d %zu %zu\n", name, N, GC_size(GC_base(objs[0])), req);
}

__attribute__((noinline)) static void *mk(size_t n) { return GC_malloc(n); }

__attribute__((noinline)) static void s_strdup(void)
{
    for (int i = 0; i < N; i++) k_strdup[i] = GC_strdup("heapprof-nested");   /* 16 */
}

__attribute__((noinline)) static void s_strndup(void)
{
    for (int i = 0; i < N; i++) k_strndup[i] = GC_strndup("abcdefghijklmnop", 5); /* 6 */
}

__attribute__((noinline)) static void s_memalign(void)
{
    for (int i = 0; i < N; i++) {
        k_memalign[i] = GC_memalign(64, 100);
        if ((uintptr_t)k_memalign[i] % 64) misaligned++;
    }
}

__attribute__((noinline)) static void s_posix_memalign(void)
{
    for (int i = 0; i < N; i++) {
        if (GC_posix_memalign(&k_posix[i], 128, 40) != 0) printf("posix_memalign failed\n");
        if ((uintptr_t)k_posix[i] % 128) misaligned++;
    }
}

__attribute__((noinline)) static void s_realloc_move(void)
{
    for (int i = 0; i < N; i++) {
        void *p = mk(16);
        k_move[i] = GC_realloc(p, 200);
        if (k_move[i] != p) moved_move++;
    }
}

__attribute__((noinline)) static void s_realloc_inplace(void)
{
    for (int i = 0; i < N; i++) {
        void *p = mk(20);
        k_inplace[i] = GC_realloc(p, 30);
        if (k_inplace[i] != p) moved_inplace++;
    }
}

__attribute__((noinline)) static void s_debug(void)
{
    for (int i = 0; i < N; i++) k_debug[i] = GC_debug_malloc(40, "nested.c", __LINE__);
}

__attribute__((noinline)) static void s_typed(GC_descr d)
{
    for (int i = 0; i < N; i++)
        k_typed[i] = GC_malloc_explicitly_typed(sizeof(struct typed_obj), d);
}

__attribute__((noinline)) static void s_kind(int kind)
{
    for (int i = 0; i < N; i++) k_kind[i] = GC_generic_malloc(48, kind);
}

__attribute__((noinline)) static void s_atomic(void)
{
    for (int i = 0; i < N; i++) k_atomic[i] = GC_malloc_atomic(64);
}

__attribute__((noinline)) static void s_uncollectable(void)
{
    for (int i = 0; i < N; i++) k_uncoll[i] = GC_malloc_uncollectable(24);
}

int main(void)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);

    GC_word bm[GC_BITMAP_SIZE(struct typed_obj)] = {0};
    GC_set_bit(bm, GC_WORD_OFFSET(struct typed_obj, next));
    GC_descr descr = GC_make_descriptor(bm, GC_WORD_LEN(struct typed_obj));
    int kind = (int)GC_new_kind(GC_new_free_list(), GC_DS_LENGTH, 1, 1);

    s_strdup();
    s_strndup();
    s_memalign();
    s_posix_memalign();
    s_realloc_move();
    s_realloc_inplace();
    s_typed(descr);
    s_kind(kind);
    s_atomic();
    s_uncollectable();
    s_debug();

    report("s_strdup", k_strdup, 16);
    report("s_strndup", k_strndup, 6);
    report("s_memalign", k_memalign, 100);
    report("s_posix_memalign", k_posix, 40);
    report("s_realloc_move", k_move, 200);
    report("s_realloc_inplace", k_inplace, 20);
    report("s_typed", k_typed, sizeof(struct typed_obj));
    report("s_kind", k_kind, 48);
    report("s_atomic", k_atomic, 64);
    report("s_uncollectable", k_uncoll, 24);
    report("s_debug", k_debug, 40);
    printf("moved %d %d misaligned %d\n", moved_move, moved_inplace, misaligned);
    fflush(stdout);
    scrub_stack();
    GC_gcollect();
    return 0;
}
