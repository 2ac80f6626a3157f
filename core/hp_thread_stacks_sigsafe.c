/* hp_thread_stacks_sigsafe: the stacks of every thread set up so far (see
 * hp_thread.h), for naming stack roots. Appended once per thread,
 * lock-free (claim a slot, fill it, publish in order); read by the
 * traversal with the world stopped. Async-signal-safe. */
#include "core/hp_thread.h"
#include "core/hp_mem.h"
#include "core/hp_sys.h"

#include <stdatomic.h>

#define HP_STACKS_MAX (1u << 16)   /* threads named; later ones are named by address */
/* Room committed at start; doubled as threads come. (Room for all 65,536,
 * committed up front, was 1.5 MB of every run's profiler memory: a third
 * of what mode cc keeps on trees.c 18.) */
#define HP_STACKS_FIRST 256u

static hp_vec stack_vec;              /* hp_stack_entry[stacks_room] */
static _Atomic uint32_t stacks_claimed, stacks_published;
static _Atomic size_t stacks_room;
static _Atomic int stacks_growing;    /* a registering thread grows the vec */

void hp_thread_stacks_init(void)
{
    if (hp_vec_reserve(&stack_vec, HP_STACKS_MAX * sizeof(hp_stack_entry)) == 0 &&
        hp_vec_ensure(&stack_vec, HP_STACKS_FIRST * sizeof(hp_stack_entry)) == 0)
        atomic_store(&stacks_room, HP_STACKS_FIRST);
}

/* Room for slot i (hp_vec_room: registration runs at a thread's set-up,
 * never in a signal handler). 0 when there is none (out of memory). */
static int room_for(uint32_t i)
{
    return hp_vec_room(&stack_vec, &stacks_room, &stacks_growing, (size_t)i + 1, HP_STACKS_MAX,
                       sizeof(hp_stack_entry));
}

void hp_thread_register_stack(uintptr_t lo, uintptr_t hi)
{
    if (!stack_vec.base || !hi) return;
    uint32_t i = atomic_fetch_add(&stacks_claimed, 1);
    if (i >= HP_STACKS_MAX) return;
    hp_stack_entry *e = &((hp_stack_entry *)stack_vec.base)[i];
    if (room_for(i)) {
        e->lo = lo;
        e->hi = hi;
        e->ordinal = i;
        e->is_main = hp_sys_gettid() == hp_sys_getpid();
    }
    /* else: no room (out of memory): published all the same, so that the
     * threads after it are; readers read below the room only, and a slot
     * the room reached later is all zeros (empty: it names nothing) */
    uint32_t expect = i;
    while (!atomic_compare_exchange_weak(&stacks_published, &expect, i + 1)) expect = i;
}

const hp_stack_entry *hp_thread_stack_of(uintptr_t addr)
{
    uint32_t n = atomic_load(&stacks_published);
    size_t room = atomic_load(&stacks_room);
    if (n > room) n = (uint32_t)room;
    const hp_stack_entry *s = (const hp_stack_entry *)stack_vec.base;
    for (uint32_t i = n; i-- > 0;)
        if (addr >= s[i].lo && addr < s[i].hi) return &s[i];
    return NULL;
}

