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
static hp_vec stack_vec;              /* hp_stack_entry[] */
static _Atomic uint32_t stacks_claimed, stacks_published;
#define HP_STACKS_MAX (1u << 16)   /* threads named; later ones are named by address */
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
    if (hp_vec_reserve(&stack_vec, HP_STACKS_MAX * sizeof(hp_stack_entry)) == 0)
        hp_vec_ensure(&stack_vec, HP_STACKS_MAX * sizeof(hp_stack_entry));  /* pages fault in as used */
}

/* Lock-free append: claim a slot, fill it, then publish in order. */
static void register_stack(uintptr_t lo, uintptr_t hi)
{
    if (!stack_vec.base || !hi) return;
    uint32_t i = atomic_fetch_add(&stacks_claimed, 1);
    if (i >= HP_STACKS_MAX) return;
    hp_stack_entry *e = &((hp_stack_entry *)stack_vec.base)[i];
    e->lo = lo;
    e->hi = hi;
    e->ordinal = i;
    e->is_main = syscall(SYS_gettid) == getpid();
    uint32_t expect = i;
    while (!atomic_compare_exchange_weak(&stacks_published, &expect, i + 1)) expect = i;
}

/* ---- Called from collector callbacks with the world stopped: reads only. ---- */
const hp_stack_entry *hp_thread_stack_of(uintptr_t addr)
{
    uint32_t n = atomic_load(&stacks_published);
    const hp_stack_entry *s = (const hp_stack_entry *)stack_vec.base;
    for (uint32_t i = n; i-- > 0;)
        if (addr >= s[i].lo && addr < s[i].hi) return &s[i];
    return NULL;
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
    register_stack(t->stack_lo, t->stack_hi);
    t->log = hp_shadow_log_new();
    if (!t->log) return -1;
    t->caches = cache_get ? cache_get() : NULL;
    t->check_every = t->countdown = 1;
    pthread_setspecific(exit_key, t);
    t->ready = 1;
    return 0;
}
