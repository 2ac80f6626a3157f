/* ldv_window: objects read only soon after they are made, for ldv's
 * window= (doc/options.md): N objects of 64 bytes, each read once, LAG
 * objects later (LAG * 80 bytes granted after it), all kept to the end.
 * The first census after them comes at exit (interval=10: no tick during
 * the run), so every read falls in its object's creation period: a use
 * that makes the object DRAG at that census, not VOID. Reads between an
 * object's making and the next collection are not watched, so without
 * window= they are all missed; with window=W (W well under LAG * 80) a
 * collection comes between each object's making and its read, and its
 * protect pass watches it. Usage: ldv_window [N [LAG]] (default 3000 and
 * 200). Prints "sum <sum>". */
#include "progs.h"

#include <gc/gc.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct obj { long v[8]; } obj;

static obj **all;   /* (pointer-free: the objects are kept by `keep`) */
static obj *keep[100000];

int main(int argc, char **argv)
{
    GC_INIT();
    GC_expand_hp(HP_PROG_HEAP);
    long n = argc > 1 ? atol(argv[1]) : 3000, lag = argc > 2 ? atol(argv[2]) : 200;
    if (n > 100000) n = 100000;
    all = keep;
    long sum = 0;
    for (long i = 0; i < n + lag; i++) {
        if (i < n) {
            obj *o = GC_MALLOC(sizeof *o);
            o->v[0] = i;
            all[i] = o;
        }
        if (i >= lag) sum += ((volatile obj *)all[i - lag])->v[0];
    }
    printf("sum %ld\n", sum);
    return 0;
}
