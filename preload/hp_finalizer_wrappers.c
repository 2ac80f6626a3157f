/* hp_finalizer_wrappers: heapprof's definitions of the collector's
 * finalizer and weak-link registration calls (gc.h). Each calls the real
 * function as the program's outermost GC_ call: these calls allocate
 * inside the collector (a finalization entry, a link entry) and so may
 * start a collection, and the retainer profile must know where the
 * program's frames end then (hp_thread_note_entry): below, libgc's own
 * frames (gc:frames); above, the program's stack, which may be the only
 * holder of what it is building (bdwgc's gctest: mktree's trees). Nothing
 * is recorded: these calls make no object of the program's. */
#include "core/hp_real.h"
#include "core/hp_rt.h"
#include "core/hp_thread.h"
#include "preload/hp_lifecycle.h"

static inline hp_thread *enter(void)
{
    hp_thread *t = &hp_tls;
    if (__builtin_expect(!atomic_load_explicit(&hp_rt.attached, memory_order_relaxed), 0))
        hp_ensure_attached();
    if (t->depth == 0 && hp_rt.entry_frames) hp_thread_note_entry(t);
    t->depth++;
    return t;
}

#define WRAP_FIN(name)                                                              \
    void name(void *obj, GC_finalization_proc fn, void *cd, GC_finalization_proc *ofn, \
              void **ocd)                                                           \
    {                                                                               \
        hp_thread *t = enter();                                                     \
        if (hp_real.name) hp_real.name(obj, fn, cd, ofn, ocd);                      \
        t->depth--;                                                                 \
    }
WRAP_FIN(GC_register_finalizer)
WRAP_FIN(GC_register_finalizer_ignore_self)
WRAP_FIN(GC_register_finalizer_no_order)
WRAP_FIN(GC_register_finalizer_unreachable)
WRAP_FIN(GC_debug_register_finalizer)
WRAP_FIN(GC_debug_register_finalizer_ignore_self)
WRAP_FIN(GC_debug_register_finalizer_no_order)
WRAP_FIN(GC_debug_register_finalizer_unreachable)

int GC_register_disappearing_link(void **link)
{
    hp_thread *t = enter();
    int r = hp_real.GC_register_disappearing_link ? hp_real.GC_register_disappearing_link(link)
                                                   : GC_NO_MEMORY;
    t->depth--;
    return r;
}

int GC_general_register_disappearing_link(void **link, const void *obj)
{
    hp_thread *t = enter();
    int r = hp_real.GC_general_register_disappearing_link
                ? hp_real.GC_general_register_disappearing_link(link, obj) : GC_NO_MEMORY;
    t->depth--;
    return r;
}

int GC_register_long_link(void **link, const void *obj)
{
    hp_thread *t = enter();
    int r = hp_real.GC_register_long_link ? hp_real.GC_register_long_link(link, obj)
                                          : GC_NO_MEMORY;
    t->depth--;
    return r;
}
