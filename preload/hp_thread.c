/* hp_thread: per-thread state and its life cycle. */
#include "hp_thread.h"

#include <pthread.h>
#include <string.h>

#include "hp_mem.h"

__thread hp_thread hp_tls __attribute__((tls_model("initial-exec")));

static pthread_key_t exit_key;
static hp_arena cache_arena;
static hp_caches *free_caches;   /* recycled from exited threads */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static hp_caches *cache_get(void)
{
    pthread_mutex_lock(&cache_lock);
    hp_caches *c = free_caches;
    if (c) free_caches = c->next_free;
    else c = hp_arena_alloc(&cache_arena, sizeof *c);
    pthread_mutex_unlock(&cache_lock);
    if (c) memset(c, 0, sizeof *c);
    return c;
}

static void cache_put(hp_caches *c)
{
    pthread_mutex_lock(&cache_lock);
    c->next_free = free_caches;
    free_caches = c;
    pthread_mutex_unlock(&cache_lock);
}

static void on_thread_exit(void *arg)
{
    hp_thread *t = arg;
    if (t->log) hp_shadow_log_exit(t->log);
    if (t->caches) cache_put(t->caches);
    t->log = NULL;
    t->caches = NULL;
    t->ready = 0;
}

void hp_thread_init_key(void)
{
    pthread_key_create(&exit_key, on_thread_exit);
    hp_arena_init(&cache_arena, (size_t)1 << 30);
}

int hp_thread_setup(hp_thread *t)
{
    pthread_attr_t attr;
    void *addr;
    size_t size;
    t->stack_lo = t->stack_hi = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
            t->stack_lo = (uintptr_t)addr;
            t->stack_hi = (uintptr_t)addr + size;
        }
        pthread_attr_destroy(&attr);
    }
    t->log = hp_shadow_log_new();
    if (!t->log) return -1;
    t->caches = cache_get();
    t->check_every = t->countdown = 1;
    pthread_setspecific(exit_key, t);
    t->ready = 1;
    return 0;
}
