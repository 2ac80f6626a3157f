/* hp_markproc_wrappers: the mark procedures a program gives the collector
 * (GC_new_proc, GC_new_proc_inner: Guile marks its VM stacks, ECL its
 * environments so) push edges heapprof's word-by-word traversal cannot
 * see. While a profile that traverses the heap is on, each procedure is
 * registered through a trampoline of heapprof's (HP_TRAMPOLINES of them, one
 * per procedure) that calls it and records the mark-stack entries it
 * pushed (retainer/hp_rootrec.h); the traversal then treats what it pushed
 * as roots named after the procedure. Beyond HP_TRAMPOLINES procedures, or
 * in other modes, the procedure is registered as is. The trampolines run in
 * the collector's marker threads: lock-free, no allocation. GC_mark_and_push
 * is wrapped too: an edge to an object already marked pushes nothing. */
#include "core/hp_gc.h"
#include "preload/hp_markproc_wrappers.h"
#include "retainer/hp_rootrec.h"
#include "core/hp_real.h"

#include <dlfcn.h>

#include <stdatomic.h>
#include <stdint.h>

#define HP_TRAMPOLINES 32

static GC_mark_proc orig[HP_TRAMPOLINES];
static _Atomic int used;
/* The procedure running on this marker thread (for GC_mark_and_push). */
static __thread uintptr_t running __attribute__((tls_model("initial-exec")));

#define TRAMPOLINE(k)                                                               \
    static struct GC_ms_entry *tramp##k(GC_word *addr, struct GC_ms_entry *msp,      \
                                        struct GC_ms_entry *lim, GC_word env)        \
    {                                                                                \
        uintptr_t was = running;                                                     \
        running = (uintptr_t)orig[k];                                                \
        struct GC_ms_entry *r = orig[k](addr, msp, lim, env);                        \
        running = was;                                                               \
        hp_rootrec_proc_pushed((uintptr_t)orig[k], addr, msp, r);                    \
        return r;                                                                    \
    }
#define T4(a, b, c, d) TRAMPOLINE(a) TRAMPOLINE(b) TRAMPOLINE(c) TRAMPOLINE(d)
T4(0, 1, 2, 3) T4(4, 5, 6, 7) T4(8, 9, 10, 11) T4(12, 13, 14, 15)
T4(16, 17, 18, 19) T4(20, 21, 22, 23) T4(24, 25, 26, 27) T4(28, 29, 30, 31)
#define A4(a, b, c, d) tramp##a, tramp##b, tramp##c, tramp##d
static const GC_mark_proc tramps[HP_TRAMPOLINES] = {
    A4(0, 1, 2, 3), A4(4, 5, 6, 7), A4(8, 9, 10, 11), A4(12, 13, 14, 15),
    A4(16, 17, 18, 19), A4(20, 21, 22, 23), A4(24, 25, 26, 27), A4(28, 29, 30, 31)};

GC_mark_proc hp_markproc_wrap(GC_mark_proc fn)
{
    if (!fn || !hp_rootrec_on()) return fn;
    /* libgc's GC_new_proc calls GC_new_proc_inner through the PLT: the
     * procedure it passes on is already one of these. */
    for (int i = 0; i < HP_TRAMPOLINES; i++)
        if (fn == tramps[i]) return fn;
    int k = atomic_fetch_add(&used, 1);
    if (k >= HP_TRAMPOLINES) return fn;
    orig[k] = fn;
    return tramps[k];
}

/* GC_mark_and_push (what gc_mark.h's GC_MARK_AND_PUSH calls): an object
 * already marked is not pushed again, so the mark stack does not show the
 * edge; recorded here, while a wrapped procedure runs. */
struct GC_ms_entry *GC_mark_and_push(void *obj, struct GC_ms_entry *msp,
                                     struct GC_ms_entry *lim, void **src)
{
    if (running) hp_rootrec_proc_edge(running, src, obj);
    __typeof__(&GC_mark_and_push) fn = hp_real.GC_mark_and_push;
    if (!fn) *(void **)&fn = dlsym(RTLD_NEXT, "GC_mark_and_push");
    return fn(obj, msp, lim, src);
}
