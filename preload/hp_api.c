/* hp_api: the functions include/heapprof.h reaches at run time (looked up
 * with dlsym, so programs need not link libheapprof). */
#include "hp_ccnames.h"
#include "hp_runtime.h"
#include "hp_thread.h"

#define HP_EXPORT __attribute__((visibility("default")))

HP_EXPORT void heapprof_rt_cc_push(const char *name)
{
    hp_ensure_init();
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
