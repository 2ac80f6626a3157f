/* hp_helper: the helper thread's start-up (see hp_helper.h): its stack,
 * and the CPUs the process may use. Normal context. */
#include "core/hp_helper.h"
#include "core/hp_helper_internal.h"
#include "core/hp_sys.h"

#include <sys/mman.h>

hp_helper_state hp_helper_;

void hp_helper_forbid(void) { hp_helper_.forbidden = 1; }

int hp_helper_init(void)
{
    if (hp_helper_.stack) return 0;
    /* The CPUs of the process's affinity mask. */
    unsigned long mask[16] = {0};
    long n = HP_SYS6(SYS_sched_getaffinity, 0, sizeof mask, mask, 0, 0, 0);
    int cpus = 0;
    for (long i = 0; n > 0 && i < n / (long)sizeof mask[0]; i++)
        cpus += __builtin_popcountl(mask[i]);
    hp_helper_.cpus = cpus;
    /* The stack, with a guard page below it; an hp_vec, so that the
     * .prof's profiler memory counts it. */
    size_t size = HP_HELPER_STACK + 4096;
    if (hp_vec_reserve(&hp_helper_.stack_vec, size) != 0 ||
        hp_vec_ensure(&hp_helper_.stack_vec, size) != 0)
        return -1;
    char *p = (char *)hp_helper_.stack_vec.base;
    if (hp_sys_mprotect(p, 4096, PROT_NONE) != 0) return -1;
    hp_helper_.stack = (char *)p;
    hp_helper_.stack_top = (char *)p + size;
    return 0;
}
