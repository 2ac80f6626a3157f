/* hp_thread: per-thread state and its life cycle. */
#include "core/hp_thread.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <string.h>

#include "core/hp_mem.h"

__thread hp_thread hp_tls __attribute__((tls_model("initial-exec")));

static pthread_key_t exit_key;
static struct hp_caches *(*cache_get)(void);
static void (*cache_put)(struct hp_caches *);

void hp_thread_set_cache_hooks(struct hp_caches *(*get)(void), void (*put)(struct hp_caches *))
{
    cache_get = get;
    cache_put = put;
}

static void on_thread_exit(void *arg)
{
    hp_thread *t = arg;
    if (t->log) hp_shadow_log_exit(t->log);
    if (t->caches && cache_put) cache_put(t->caches);
    t->log = NULL;
    t->caches = NULL;
    t->ready = 0;
}

void hp_thread_init_key(void)
{
    pthread_key_create(&exit_key, on_thread_exit);
    hp_thread_stacks_init();
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
    hp_thread_register_stack(t->stack_lo, t->stack_hi);
    t->log = hp_shadow_log_new();
    if (!t->log) return -1;
    t->caches = cache_get ? cache_get() : NULL;
    t->check_every = t->countdown = 1;
    pthread_setspecific(exit_key, t);
    t->ready = 1;
    return 0;
}
