/* report_kinds: one allocation site per object kind, for the allocation
 * report's BY KIND section and the kind mode / kind= filter
 * (tests/integration/test_report_kinds.py). Each site keeps its objects in
 * a global array until exit:
 *   normal()          10 x GC_malloc(24)
 *   atomic()          10 x GC_malloc_atomic(100)
 *   uncollectable()    6 x GC_malloc_uncollectable(48)
 *   auncollectable()   4 x GC_malloc_atomic_uncollectable(48)
 *   typed()            8 x GC_malloc_explicitly_typed(24, descriptor)
 *   custom()           5 x GC_generic_malloc(64, a kind of our own)
 *   debug()            3 x GC_debug_malloc(24)
 *   odd()              2 x GC_malloc(8) under the explicit cost centre
 *                      'odd "name", here' (a comma and quotes: CSV quoting)
 * then one collection. Prints per site: its count, the granted size of one
 * object (GC_size of its base), and for custom the kind number. */
#include <gc/gc.h>
#include <gc/gc_mark.h>
#include <gc/gc_typed.h>
#include <stdio.h>

#include "heapprof.h"

#include "progs.h"

#define NN 10
#define NA 10
#define NU 6
#define NAU 4
#define NT 8
#define NC 5
#define ND 3

struct triple { void *a; long b; void *c; };   /* 24 bytes, words 0 and 2 pointers */

#define NO 2

static void *nkeep[NN], *akeep[NA], *ukeep[NU], *aukeep[NAU], *tkeep[NT], *ckeep[NC],
    *dkeep[ND], *okeep[NO];
static GC_descr triple_descr;
static int custom_kind;

__attribute__((noinline)) static void normal(void)
{
    for (int i = 0; i < NN; i++) nkeep[i] = GC_malloc(24);
}

__attribute__((noinline)) static void atomic(void)
{
    for (int i = 0; i < NA; i++) akeep[i] = GC_malloc_atomic(100);
}

__attribute__((noinline)) static void uncollectable(void)
{
    for (int i = 0; i < NU; i++) ukeep[i] = GC_malloc_uncollectable(48);
}

__attribute__((noinline)) static void auncollectable(void)
{
    for (int i = 0; i < NAU; i++) aukeep[i] = GC_malloc_atomic_uncollectable(48);
}

__attribute__((noinline)) static void typed(void)
{
    for (int i = 0; i < NT; i++)
        tkeep[i] = GC_malloc_explicitly_typed(sizeof(struct triple), triple_descr);
}

__attribute__((noinline)) static void custom(void)
{
    for (int i = 0; i < NC; i++) ckeep[i] = GC_generic_malloc(64, custom_kind);
}

__attribute__((noinline)) static void debug(void)
{
    for (int i = 0; i < ND; i++) dkeep[i] = GC_debug_malloc(24, __FILE__, __LINE__);
}

__attribute__((noinline)) static void odd(void)
{
    heapprof_cc_push("odd \"name\", here");
    for (int i = 0; i < NO; i++) okeep[i] = GC_malloc(8);
    heapprof_cc_pop();
}

int main(void)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    GC_word bitmap[GC_BITMAP_SIZE(struct triple)] = {0};
    GC_set_bit(bitmap, GC_WORD_OFFSET(struct triple, a));
    GC_set_bit(bitmap, GC_WORD_OFFSET(struct triple, c));
    triple_descr = GC_make_descriptor(bitmap, GC_WORD_LEN(struct triple));
    /* A kind of our own: conservatively scanned, objects cleared. */
    custom_kind = (int)GC_new_kind(GC_new_free_list(), GC_DS_LENGTH, 1, 1);
    normal();
    atomic();
    uncollectable();
    auncollectable();
    typed();
    custom();
    debug();
    odd();
    printf("normal %d %zu\n", NN, GC_size(nkeep[0]));
    printf("atomic %d %zu\n", NA, GC_size(akeep[0]));
    printf("uncollectable %d %zu\n", NU, GC_size(ukeep[0]));
    printf("auncollectable %d %zu\n", NAU, GC_size(aukeep[0]));
    printf("typed %d %zu\n", NT, GC_size(tkeep[0]));
    printf("custom %d %zu kind %d\n", NC, GC_size(ckeep[0]), custom_kind);
    printf("debug %d %zu\n", ND, GC_size(GC_base(dkeep[0])));
    printf("odd %d %zu\n", NO, GC_size(okeep[0]));
    fflush(stdout);
    scrub_stack();
    GC_gcollect();
    return 0;
}
