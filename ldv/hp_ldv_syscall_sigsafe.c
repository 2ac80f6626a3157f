/* hp_ldv_syscall_sigsafe: what a system call or stdio call given a buffer
 * in the GC heap does in ldv mode (the interposers themselves are entry
 * points: preload/hp_libc_wrappers.c). A buffer on a protected page would
 * make the kernel fail with EFAULT instead of faulting, so each buffer is
 * recorded as a use (the kernel reading a buffer is a read; writing one is
 * a write) and its protected pages are opened; the span of the call's
 * buffers is marked "in flight" so that the next protect pass leaves it
 * open while the call blocks; an EFAULT that a protect pass caused anyway
 * (a race) is retried. In other modes every function returns at once.
 * Async-signal-safe: a program may call write() from a signal handler. */
#include "ldv/hp_ldv_internal.h"
#include "core/hp_sys.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

int (*hp_ldv_gc_is_heap_ptr)(const void *);
int (*hp_ldv_gc_is_init_called)(void);
static int gc_ready;   /* the collector is initialised: GC_is_heap_ptr works */

int hp_ldv_sys_active(void) { return hp_ldv.active; }

typedef hp_ldv_span span;

static int in_gc(uintptr_t p, size_t n)
{
    if (!n) return 0;
    if (p < hp_ldv.hi && p + n > hp_ldv.lo) return 1;
    if (!hp_ldv_gc_is_heap_ptr) return 0;
    if (!gc_ready) {
        if (!hp_ldv_gc_is_init_called || !hp_ldv_gc_is_init_called()) return 0;
        gc_ready = 1;
    }
    return hp_ldv_gc_is_heap_ptr((void *)p) || hp_ldv_gc_is_heap_ptr((void *)(p + n - 1));
}

/* One buffer the kernel will read (kwrite 0) or write (kwrite 1). */
void hp_ldv_sys_buf(span *s, uintptr_t a, size_t n, int kwrite)
{
    if (!hp_ldv.active || !a || !n || !in_gc(a, n)) return;
    if (!s->any || a < s->lo) s->lo = a;
    if (!s->any || a + n > s->hi) s->hi = a + n;
    s->any = 1;
    atomic_fetch_add(&hp_ldv.handlers, 1);
    if (!atomic_load(&hp_ldv.collecting)) {
        hp_ldv_use_range(a, n, kwrite);
        hp_ldv_open_range(a, n);
    }
    atomic_fetch_sub(&hp_ldv.handlers, 1);
}

void hp_ldv_sys_iov(span *s, const struct iovec *v, int cnt, int kwrite)
{
    if (!hp_ldv.active || !v || cnt <= 0) return;
    hp_ldv_sys_buf(s, (uintptr_t)(v), (size_t)cnt * sizeof *v, 0);
    for (int i = 0; i < cnt; i++) hp_ldv_sys_buf(s, (uintptr_t)(v[i].iov_base), v[i].iov_len, kwrite);
}

void hp_ldv_sys_msg(span *s, const struct msghdr *m, int kwrite)
{
    if (!hp_ldv.active || !m) return;
    hp_ldv_sys_buf(s, (uintptr_t)(m), sizeof *m, 0);
    hp_ldv_sys_buf(s, (uintptr_t)(m->msg_name), m->msg_namelen, kwrite);
    hp_ldv_sys_buf(s, (uintptr_t)(m->msg_control), m->msg_controllen, kwrite);
    hp_ldv_sys_iov(s, m->msg_iov, (int)m->msg_iovlen, kwrite);
}

void hp_ldv_sys_direct(span *s) { s->direct = 1; }

/* A direct call's buffers are opened by its interposer: its system call
 * need not be dispatched (a SIGSYS) as well. */
void hp_ldv_sys_begin(span *s)
{
    if (s->any) s->slot = hp_ldv_inflight_begin(s->lo, s->hi - s->lo);
    if (s->direct) hp_ldv_sud_exec(0);
}

void hp_ldv_sys_end(span *s)
{
    if (s->direct) hp_ldv_sud_exec(1);
    if (s->any) hp_ldv_inflight_end(s->slot);
}

int hp_ldv_sys_wait_collection(void)
{
    for (int i = 0; i < 100000 && atomic_load(&hp_ldv.collecting); i++) hp_sys_sched_yield();
    return !atomic_load(&hp_ldv.collecting);
}

/* An EFAULT on a heap buffer: wait for a protect pass to end, open the
 * buffer's pages again, and say whether to retry. */
int hp_ldv_sys_retry(span *s, int *tries)
{
    if (!s->any || errno != EFAULT || ++*tries > 3) return 0;
    hp_ldv_sys_wait_collection();
    atomic_fetch_add(&hp_ldv.handlers, 1);
    if (!atomic_load(&hp_ldv.collecting)) hp_ldv_open_range_again(s->lo, s->hi - s->lo);
    atomic_fetch_sub(&hp_ldv.handlers, 1);
    atomic_fetch_add(&hp_ldv.efault_retries, 1);
    return 1;
}

/* Calls given path names (and argument vectors): a path in the GC heap
 * (GC_strdup'ed, built with GC_malloc) is read by the kernel. */
void hp_ldv_sys_path(span *s, const char *p)
{
    if (hp_ldv.active && p) hp_ldv_sys_buf(s, (uintptr_t)p, strlen(p) + 1, 0);
}

void hp_ldv_sys_argv(span *s, char *const *v)
{
    if (!hp_ldv.active || !v) return;
    size_t n = 0;
    while (v[n]) hp_ldv_sys_path(s, v[n++]);
    hp_ldv_sys_buf(s, (uintptr_t)v, (n + 1) * sizeof *v, 0);
}

