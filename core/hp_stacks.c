/* hp_stacks: interned cost-centre stacks (see hp_stacks.h).
 * The index is an open-addressing table of ids; it is replaced (never
 * modified in place beyond filling empty slots) when it grows, so lock-free
 * readers always see a consistent table. */
#include "core/hp_stacks.h"
#include "core/hp_mem.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define HP_MAX_STACKS (1u << 24)

typedef struct hp_stack_index {
    uint32_t mask;              /* capacity - 1 */
    _Atomic uint32_t slots[];   /* id + 1, or 0 for empty */
} hp_stack_index;

static hp_arena stack_arena;                /* hp_stack records */
hp_stacks_table hp_stacks_;                 /* ids and count (hp_stacks.h) */
#define stack_ids hp_stacks_.ids
#define stack_count hp_stacks_.count
static _Atomic(hp_stack_index *) stack_index;
static pthread_mutex_t stack_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t hash_frames(const uintptr_t *f, uint32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (uint32_t i = 0; i < n; i++) {
        h ^= (uint64_t)f[i];
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return h;
}

static hp_stack_index *new_index(uint32_t capacity)
{
    hp_stack_index *ix = hp_arena_alloc(&stack_arena,
        sizeof *ix + (size_t)capacity * sizeof(uint32_t));
    if (!ix) return NULL;
    ix->mask = capacity - 1;
    for (uint32_t i = 0; i < capacity; i++) atomic_init(&ix->slots[i], 0);
    return ix;
}

int hp_stacks_init(void)
{
    if (hp_arena_init(&stack_arena, (size_t)4 << 30) != 0) return -1;
    if (hp_vec_reserve(&stack_ids, (size_t)HP_MAX_STACKS * sizeof(void *)) != 0)
        return -1;
    hp_stack_index *ix = new_index(1024);
    if (!ix) return -1;
    atomic_store(&stack_index, ix);
    return 0;
}

static int same(const hp_stack *s, uint64_t h, const uintptr_t *f, uint32_t n)
{
    return s->hash == h && s->n == n && memcmp(s->frames, f, n * sizeof *f) == 0;
}

/* Probe `ix` for the stack; returns its id or UINT32_MAX. */
static uint32_t lookup(hp_stack_index *ix, uint64_t h, const uintptr_t *f, uint32_t n)
{
    for (uint32_t i = (uint32_t)h & ix->mask;; i = (i + 1) & ix->mask) {
        uint32_t v = atomic_load_explicit(&ix->slots[i], memory_order_acquire);
        if (v == 0) return UINT32_MAX;
        if (same(hp_stacks_get(v - 1), h, f, n)) return v - 1;
    }
}

static void place(hp_stack_index *ix, uint64_t h, uint32_t id)
{
    uint32_t i = (uint32_t)h & ix->mask;
    while (atomic_load_explicit(&ix->slots[i], memory_order_relaxed) != 0)
        i = (i + 1) & ix->mask;
    atomic_store_explicit(&ix->slots[i], id + 1, memory_order_release);
}

uint32_t hp_stacks_intern(const uintptr_t *frames, uint32_t n)
{
    uint64_t h = hash_frames(frames, n);
    uint32_t id = lookup(atomic_load_explicit(&stack_index, memory_order_acquire),
                         h, frames, n);
    if (id != UINT32_MAX) return id;

    pthread_mutex_lock(&stack_lock);
    hp_stack_index *ix = atomic_load_explicit(&stack_index, memory_order_relaxed);
    id = lookup(ix, h, frames, n);
    if (id != UINT32_MAX) goto out;
    uint32_t count = atomic_load_explicit(&stack_count, memory_order_relaxed);
    if (count >= HP_MAX_STACKS ||
        hp_vec_ensure(&stack_ids, (size_t)(count + 1) * sizeof(void *)) != 0)
        goto out;
    hp_stack *s = hp_arena_alloc(&stack_arena, sizeof *s + n * sizeof *frames);
    if (!s) goto out;
    s->hash = h;
    s->n = n;
    s->id = count;
    memcpy(s->frames, frames, n * sizeof *frames);
    ((hp_stack **)stack_ids.base)[count] = s;
    if ((count + 1) * 2 > ix->mask + 1) {   /* keep the load under 1/2 */
        hp_stack_index *big = new_index((ix->mask + 1) * 4);
        if (big) {
            for (uint32_t i = 0; i < count; i++)
                place(big, hp_stacks_get(i)->hash, i);
            atomic_store_explicit(&stack_index, big, memory_order_release);
            ix = big;
        }
    }
    atomic_store_explicit(&stack_count, count + 1, memory_order_release);
    place(ix, h, count);
    id = count;
out:
    pthread_mutex_unlock(&stack_lock);
    return id;
}

void hp_stacks_prefork(void) { pthread_mutex_lock(&stack_lock); }
void hp_stacks_postfork(void) { pthread_mutex_unlock(&stack_lock); }
