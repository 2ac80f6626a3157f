/* hp_real: finds the collector's functions (see hp_real.h). */
#include "core/hp_real.h"

#include <dlfcn.h>

hp_real_fns hp_real;

static void *find(void *libgc, const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (!p && libgc) p = dlsym(libgc, name);
    return p;
}

static void *find_libgc(void)
{
    /* libgc may have been loaded privately by a dlopen'ed module, where
     * RTLD_NEXT does not look; RTLD_NOLOAD finds it wherever it is. */
    static const char *const names[] = {"libgc.so.1", "libgc.so", "libgc-threaded.so.1"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        void *h = dlopen(names[i], RTLD_LAZY | RTLD_NOLOAD);
        if (h) return h;
    }
    return NULL;
}

int hp_real_resolve(void)
{
    void *libgc = find_libgc();
    hp_real_fns r;
#define HP_REAL_FIND(name) r.name = (__typeof__(&name))find(libgc, #name);
    HP_REAL_FUNCTIONS(HP_REAL_FIND)
#undef HP_REAL_FIND
    /* What heapprof itself needs; the other entries may be absent in a
     * libgc built without gcj or disclaim support (no program can call
     * those then). */
    if (!r.GC_malloc || !r.GC_free || !r.GC_base || !r.GC_size ||
        !r.GC_is_marked || !r.GC_get_kind_and_size || !r.GC_gcollect ||
        !r.GC_call_with_alloc_lock || !r.GC_set_on_collection_event ||
        !r.GC_get_on_collection_event || !r.GC_invoke_finalizers)
        return -1;
    hp_real = r;
    return 0;
}
