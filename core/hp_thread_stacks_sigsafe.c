/* hp_thread_stacks_sigsafe: the stacks of every thread set up so far (see
 * hp_thread.h), for naming stack roots. Appended once per thread,
 * lock-free (claim a slot, fill it, publish in order); read by the
 * traversal with the world stopped. Async-signal-safe. */
#include "core/hp_thread.h"
#include "core/hp_mem.h"
#include "core/hp_sys.h"

#include <stdatomic.h>

#define HP_STACKS_MAX (1u << 16)   /* threads named; later ones are named by address */

static hp_vec stack_vec;              /* hp_stack_entry[] */
static _Atomic uint32_t stacks_claimed, stacks_published;

void hp_thread_stacks_init(void)
{
    if (hp_vec_reserve(&stack_vec, HP_STACKS_MAX * sizeof(hp_stack_entry)) == 0)
        hp_vec_ensure(&stack_vec, HP_STACKS_MAX * sizeof(hp_stack_entry));  /* pages fault in as used */
}

void hp_thread_register_stack(uintptr_t lo, uintptr_t hi)
{
    if (!stack_vec.base || !hi) return;
    uint32_t i = atomic_fetch_add(&stacks_claimed, 1);
    if (i >= HP_STACKS_MAX) return;
    hp_stack_entry *e = &((hp_stack_entry *)stack_vec.base)[i];
    e->lo = lo;
    e->hi = hi;
    e->ordinal = i;
    e->is_main = hp_sys_gettid() == hp_sys_getpid();
    uint32_t expect = i;
    while (!atomic_compare_exchange_weak(&stacks_published, &expect, i + 1)) expect = i;
}

const hp_stack_entry *hp_thread_stack_of(uintptr_t addr)
{
    uint32_t n = atomic_load(&stacks_published);
    const hp_stack_entry *s = (const hp_stack_entry *)stack_vec.base;
    for (uint32_t i = n; i-- > 0;)
        if (addr >= s[i].lo && addr < s[i].hi) return &s[i];
    return NULL;
}

