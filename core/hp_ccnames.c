/* hp_ccnames: interned explicit cost-centre names (see hp_ccnames.h).
 * Interning takes a mutex (called from program code, never from a signal
 * handler or collector callback); lookups by id are lock-free. */
#include "core/hp_ccnames.h"
#include "core/hp_mem.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define HP_CCNAME_MAX 255

static hp_arena name_arena;
hp_ccnames_table hp_ccnames_;
#define names hp_ccnames_.names
static uint32_t index_slots[HP_CCNAMES_CAP * 2];   /* id + 1 */
#define count hp_ccnames_.count
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int hp_ccnames_init(void) { return hp_arena_init(&name_arena, (size_t)1 << 30); }

static uint32_t hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

uint32_t hp_ccnames_intern(const char *name)
{
    size_t n = strnlen(name, HP_CCNAME_MAX);
    uint32_t h = hash(name, n), id = UINT32_MAX;
    pthread_mutex_lock(&lock);
    uint32_t mask = HP_CCNAMES_CAP * 2 - 1, i = h & mask;
    for (; index_slots[i]; i = (i + 1) & mask) {
        const char *s = names[index_slots[i] - 1];
        if (strncmp(s, name, n) == 0 && s[n] == 0) { id = index_slots[i] - 1; goto out; }
    }
    uint32_t c = atomic_load_explicit(&count, memory_order_relaxed);
    if (c >= HP_CCNAMES_CAP) goto out;
    char *copy = hp_arena_alloc(&name_arena, n + 1);
    if (!copy) goto out;
    memcpy(copy, name, n);
    copy[n] = 0;
    names[c] = copy;
    index_slots[i] = c + 1;
    atomic_store_explicit(&count, c + 1, memory_order_release);
    id = c;
out:
    pthread_mutex_unlock(&lock);
    return id;
}

