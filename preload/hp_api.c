/* hp_api: the functions include/heapprof.h reaches at run time (looked up
 * with dlsym, so programs need not link libheapprof). Entry points (level
 * 1): each sets the profiler up if needed and calls one narrow function of
 * a lower level. */
#include "core/hp_ccnames.h"
#include "core/hp_rt.h"
#include "core/hp_thread.h"
#include "include/heapprof.h"
#include "preload/hp_lifecycle.h"
#include "roots/hp_roots.h"

#define HP_EXPORT __attribute__((visibility("default")))

HP_EXPORT void heapprof_rt_cc_push(const char *name)
{
    hp_ensure_init();
    if (hp_rt.passive) return;
    hp_thread *t = &hp_tls;
    if (t->cc_depth < HP_CC_MAX)
        t->cc[t->cc_depth] = hp_ccnames_intern(name ? name : "NULL");
    t->cc_depth++;
}

HP_EXPORT void heapprof_rt_cc_pop(void)
{
    hp_thread *t = &hp_tls;
    if (t->cc_depth > 0) t->cc_depth--;
}

HP_EXPORT int heapprof_rt_version(void) { return 1; }

HP_EXPORT int heapprof_rt_set_roots(const heapprof_root *given, size_t n)
{
    hp_ensure_init();
    hp_ensure_attached();
    return hp_roots_set(given, n);
}

HP_EXPORT int heapprof_rt_add_root(const char *name, const void *ptr)
{
    hp_ensure_init();
    hp_ensure_attached();
    return hp_roots_add(name, ptr);
}

HP_EXPORT int heapprof_rt_remove_root(const char *name)
{
    hp_ensure_init();
    hp_ensure_attached();
    return hp_roots_remove(name);
}

HP_EXPORT int heapprof_rt_clear_roots(void)
{
    hp_ensure_init();
    hp_ensure_attached();
    return hp_roots_clear();
}
