/* hp_thread_wrappers: heapprof's pthread_create (an entry point, level 1).
 * In mode ldv a new thread must start with what the kernel would have
 * given it had heapprof not been there: its creator's view of the signal
 * mask (ldv/hp_ldv_sigview_sigsafe.c; the kernel's real mask is inherited
 * as usual); and its system calls are seen as its creator's are
 * (ldv/hp_ldv_sud.c: dispatch is per thread and not inherited). The start routine is wrapped through a small pool of start
 * blocks (never malloc: the program's allocator is the program's); when
 * the pool is empty (more than HP_START_SLOTS threads starting at once)
 * the thread starts unwrapped, with an empty view. In other modes the call
 * goes straight through. */
#include "ldv/hp_ldv.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#define EXPORT __attribute__((visibility("default")))
#define HP_START_SLOTS 256

typedef struct start_block {
    _Atomic int busy;
    void *(*fn)(void *);
    void *arg;
    unsigned view;
} start_block;
static start_block slots[HP_START_SLOTS];

static void *start(void *p)
{
    start_block *b = p;
    void *(*fn)(void *) = b->fn;
    void *arg = b->arg;
    hp_ldv_sigview_inherit(b->view);
    atomic_store(&b->busy, 0);
    hp_ldv_thread_start();
    return fn(arg);
}

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
                          void *arg)
{
    static _Atomic(create_fn) real;
    create_fn f = atomic_load(&real);
    if (!f) {
        f = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
        atomic_store(&real, f);
    }
    unsigned view = hp_ldv_sigview();
    hp_ldv_thread_creating(1);
    int r = -1;
    if (hp_ldv_sys_active()) {
        for (int i = 0; i < HP_START_SLOTS; i++) {
            int zero = 0;
            if (!atomic_compare_exchange_strong(&slots[i].busy, &zero, 1)) continue;
            slots[i].fn = fn;
            slots[i].arg = arg;
            slots[i].view = view;
            r = f(t, attr, start, &slots[i]);
            if (r != 0) atomic_store(&slots[i].busy, 0);
            break;
        }
    }
    if (r < 0) r = f(t, attr, fn, arg);
    hp_ldv_thread_creating(0);
    return r;
}
