/* hp_mem_sigsafe: mmap-backed memory for the profiler (see hp_mem.h). Only system
 * calls are used, so these functions may run inside collector callbacks.
 * hp_vec_ensure and hp_arena_alloc are async-signal-safe. */
#include "core/hp_sys.h"
#include "core/hp_mem.h"

#include <stdatomic.h>
#include <sys/mman.h>

#define HP_PAGE 4096u
#define HP_COMMIT_STEP (256u * 1024u)

static _Atomic size_t hp_total_committed;

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

int hp_vec_reserve(hp_vec *v, size_t max_bytes)
{
    max_bytes = round_up(max_bytes, HP_PAGE);
    void *p = MAP_FAILED;
    /* Address space can be limited (ulimit -v, valgrind): settle for less. */
    for (;;) {
        p = hp_sys_mmap(NULL, max_bytes, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED || max_bytes <= ((size_t)16 << 20)) break;
        max_bytes = round_up(max_bytes / 4, HP_PAGE);
    }
    if (p == MAP_FAILED) return -1;
    v->base = p;
    v->reserved = max_bytes;
    v->committed = 0;
    return 0;
}

int hp_vec_ensure(hp_vec *v, size_t bytes)
{
    if (bytes <= v->committed) return 0;
    if (v->base == NULL) return -1;
    size_t want = round_up(bytes, HP_COMMIT_STEP);
    /* Grow geometrically so large vectors cost few system calls. */
    if (want < v->committed * 2) want = v->committed * 2;
    if (want > v->reserved) want = v->reserved;
    if (want < bytes) return -1;
    if (hp_sys_mprotect(v->base + v->committed, want - v->committed,
                 PROT_READ | PROT_WRITE) != 0)
        return -1;
    atomic_fetch_add_explicit(&hp_total_committed, want - v->committed,
                              memory_order_relaxed);
    v->committed = want;
    return 0;
}

void hp_vec_trim(hp_vec *v, size_t keep_bytes)
{
    size_t keep = round_up(keep_bytes, HP_COMMIT_STEP);
    if (v->base == NULL || keep >= v->committed) return;
    if (hp_sys_mprotect(v->base + keep, v->committed - keep, PROT_NONE) != 0) return;
    hp_sys_madvise(v->base + keep, v->committed - keep, MADV_DONTNEED);
    atomic_fetch_sub_explicit(&hp_total_committed, v->committed - keep,
                              memory_order_relaxed);
    v->committed = keep;
}

int hp_arena_init(hp_arena *a, size_t max_bytes)
{
    a->used = 0;
    return hp_vec_reserve(&a->vec, max_bytes);
}

void *hp_arena_alloc(hp_arena *a, size_t n)
{
    size_t start = round_up(a->used, 16);
    if (hp_vec_ensure(&a->vec, start + n) != 0) return NULL;
    a->used = start + n;
    return a->vec.base + start;
}

size_t hp_mem_committed(void)
{
    return atomic_load_explicit(&hp_total_committed, memory_order_relaxed);
}
