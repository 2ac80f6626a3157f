/* hp_push_wrappers: heapprof's GC_push_all, GC_push_all_eager and
 * GC_push_conditional (entry points, level 1): the collector pushes every
 * root range through them during marking (retainer/hp_rootrec.h), and so
 * do runtimes that push roots of their own (ECL pushes its Lisp stacks
 * with GC_push_conditional). Each records the range
 * (hp_rootrec_pushed) and forwards to libgc. Mark phase, world stopped:
 * nothing here takes a lock or allocates (the dlsym fallback runs only for
 * a program that pushes ranges itself before heapprof is attached). */
#include "core/hp_gc.h"
#include "core/hp_real.h"
#include "retainer/hp_rootrec.h"

#include <dlfcn.h>

/* The collector pushes roots only once heapprof is attached (hp_real
 * resolved, at the first GC_ call); this is the fallback for a program
 * that pushes ranges itself before any. */
__attribute__((noinline, cold)) static void *late_find(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

void GC_push_all(void *bottom, void *top)
{
    hp_rootrec_pushed(bottom, top, 0, (uintptr_t)__builtin_return_address(0));
    __typeof__(&GC_push_all) fn = hp_real.GC_push_all;
    if (!fn) *(void **)&fn = late_find("GC_push_all");
    if (fn) fn(bottom, top);
}

void GC_push_all_eager(void *bottom, void *top)
{
    hp_rootrec_pushed(bottom, top, 1, (uintptr_t)__builtin_return_address(0));
    __typeof__(&GC_push_all_eager) fn = hp_real.GC_push_all_eager;
    if (!fn) *(void **)&fn = late_find("GC_push_all_eager");
    if (fn) fn(bottom, top);
}

void GC_push_conditional(void *bottom, void *top, int all)
{
    hp_rootrec_pushed(bottom, top, 0, (uintptr_t)__builtin_return_address(0));
    __typeof__(&GC_push_conditional) fn = hp_real.GC_push_conditional;
    if (!fn) *(void **)&fn = late_find("GC_push_conditional");
    if (fn) fn(bottom, top, all);
}

/* libgc pushes its finalization structures (the objects whose finalizers
 * are due, the finalizers' client data, the disappearing-link tables)
 * through GC_push_all from this exported function: what it pushes is
 * named gc:finalization, not as libgc's static data. */
void GC_push_finalizer_structures(void)
{
    __typeof__(&GC_push_finalizer_structures) fn = hp_real.GC_push_finalizer_structures;
    if (!fn) *(void **)&fn = late_find("GC_push_finalizer_structures");
    int was = hp_rootrec_.role;
    hp_rootrec_.role = HP_ROLE_FINALIZATION;
    if (fn) fn();
    hp_rootrec_.role = was;
}
