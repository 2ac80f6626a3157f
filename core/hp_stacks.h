/* hp_stacks: the cost-centre stack table. Each distinct allocation call
 * stack (a list of return addresses, innermost first, or of explicit cost
 * centre ids) is stored once and named by a small integer id; shadow records
 * keep only the id. Lookups are lock-free; inserting a new stack takes a
 * mutex (never held across a call into the collector). */
#ifndef HP_STACKS_H
#define HP_STACKS_H
#include <stdatomic.h>
#include <stdint.h>

#include "core/hp_mem.h"

/* A frame with this bit set is an explicit cost centre (heapprof_cc_push):
 * the low bits are its name id (hp_ccnames), not an address. */
#define HP_FRAME_EXPLICIT (UINT64_C(1) << 63)
/* A frame in code that no loaded module covers, reached by libunwind (so
 * a real return address, not a broken frame-pointer chain): JIT-compiled
 * code, such as Guile's; named "[jit]". Consecutive ones are one frame. */
#define HP_FRAME_JIT ((uintptr_t)2)

typedef struct hp_stack {
    uint64_t hash;
    uint32_t n;          /* frames */
    uint32_t id;
    uintptr_t frames[];  /* innermost first */
} hp_stack;

int hp_stacks_init(void);
/* Id of the stack (interned on first sight); UINT32_MAX if out of memory. */
uint32_t hp_stacks_intern(const uintptr_t *frames, uint32_t n);
/* The table's readable part, for the lock-free readers below (inline, so
 * the signal finisher and collector callbacks call no function). */
typedef struct hp_stacks_table {
    hp_vec ids;                 /* hp_stack *[id] */
    _Atomic uint32_t count;
} hp_stacks_table;
extern hp_stacks_table hp_stacks_;

/* Number of stacks so far; ids are 0..count-1. */
static inline uint32_t hp_stacks_count(void)
{
    return atomic_load_explicit(&hp_stacks_.count, memory_order_acquire);
}
/* The stack with this id (id < hp_stacks_count()). Lock-free. */
static inline const hp_stack *hp_stacks_get(uint32_t id)
{
    return ((hp_stack *const *)hp_stacks_.ids.base)[id];
}
/* Around fork(): keep the table consistent in the child. */
void hp_stacks_prefork(void);
void hp_stacks_postfork(void);

#endif
