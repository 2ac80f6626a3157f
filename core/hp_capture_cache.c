/* hp_capture_cache: the per-thread capture caches' memory (see
 * hp_capture_cache.h): an arena, with a free list of the caches of exited
 * threads. Taken at a thread's set-up and given back at its exit, under a
 * mutex (never in a signal handler or collector callback). */
#include "core/hp_capture_cache.h"
#include "core/hp_mem.h"
#include "core/hp_thread.h"

#include <pthread.h>
#include <string.h>

static hp_arena cache_arena;
static hp_caches *free_caches;   /* recycled from exited threads */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

void hp_capture_caches_init(void)
{
    hp_arena_init(&cache_arena, (size_t)1 << 30);
    hp_thread_set_cache_hooks(hp_capture_caches_get, hp_capture_caches_put);
}

hp_caches *hp_capture_caches_get(void)
{
    pthread_mutex_lock(&cache_lock);
    hp_caches *c = free_caches;
    if (c) free_caches = c->next_free;
    else c = hp_arena_alloc(&cache_arena, sizeof *c);
    pthread_mutex_unlock(&cache_lock);
    if (c) memset(c, 0, sizeof *c);
    return c;
}

void hp_capture_caches_put(hp_caches *c)
{
    pthread_mutex_lock(&cache_lock);
    c->next_free = free_caches;
    free_caches = c;
    pthread_mutex_unlock(&cache_lock);
}
