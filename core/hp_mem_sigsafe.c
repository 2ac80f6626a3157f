/* hp_mem_sigsafe: mmap-backed memory for the profiler (see hp_mem.h). Only system
 * calls are used, so these functions may run inside collector callbacks.
 * hp_vec_ensure and hp_arena_alloc are async-signal-safe.
 *
 * Address plan. A vec must never move (readers in signal handlers and
 * collector callbacks hold pointers into it while another thread grows it),
 * yet address space reserved up front counts against the program's
 * RLIMIT_AS (a PROT_NONE reservation is VmSize all the same): reserving the
 * worst case of every table made VmSize 175 GB and a program that limited
 * itself to 4 GiB could no longer allocate. So a vec is given a *slot*: a
 * range of addresses far below where the kernel puts mappings of its own
 * (top-down from near 128 TiB; PIE images near 85-94 TiB), in a region
 * starting at a random offset above 16 TiB. Nothing is mapped at
 * reserve time; hp_vec_ensure maps the next piece of the slot with
 * MAP_FIXED_NOREPLACE, which never replaces a mapping someone else made, so
 * VmSize grows only by what is committed. Adjacent pieces merge into one
 * mapping. If the slot turns out to be taken (a program that maps at fixed
 * addresses there, or a tool such as valgrind that does not honour
 * MAP_FIXED_NOREPLACE), ensure fails as if the slot were used up, and every
 * caller already copes with that (it drops and counts, never crashes).
 *
 * Invariants: [base, base+committed) is mapped read-write and ours;
 * [base+committed, base+reserved) holds nothing of ours; slots never
 * overlap (a single atomic cursor hands them out, with a 2 MiB gap). When
 * slots cannot be found at all (reserve probes the slot's first page), a
 * vec falls back to a plain PROT_NONE reservation of its full size, as
 * before. */
#include "core/hp_sys.h"
#include "core/hp_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define HP_PAGE 4096u
/* The least a vec commits at a time: 16 KiB. (256 KiB made the forty-odd
 * small tables of a run -- names, symbols, stacks, filters -- 10.5 MiB of
 * the 38.5 MiB trees.c 18 committed under cc; each grows geometrically
 * from there.) */
#define HP_COMMIT_STEP (16u * 1024u)
#define HP_SLOT_ALIGN ((size_t)2 << 20)
#define HP_SLOT_LOW ((uintptr_t)16 << 40)    /* 16 TiB */
#define HP_SLOT_HIGH ((uintptr_t)80 << 40)   /* 80 TiB: below PIE images */

enum { HP_VEC_SLOT = 1, HP_VEC_RESERVED = 2 };

static _Atomic size_t hp_total_committed;
static _Atomic size_t hp_peak_committed;   /* the most hp_total_committed has been */
static _Atomic uintptr_t hp_slot_cursor;

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

/* A random start in [16 TiB, 32 TiB), so heapprof's tables are not at one
 * address in every run (the stack address and the time differ per run). */
static uintptr_t slot_start(void)
{
    uintptr_t seed = (uintptr_t)&seed;
    struct { long s, ns; } ts = {0, 0};
    hp_sys_raw6(SYS_clock_gettime, 1 /* CLOCK_MONOTONIC */, (long)&ts, 0, 0, 0, 0);
    seed ^= (uintptr_t)ts.ns * 0x9e3779b97f4a7c15u ^ (uintptr_t)hp_sys_getpid() << 21;
    seed ^= seed >> 29;
    return HP_SLOT_LOW + (seed % ((uintptr_t)16 << 40)) / HP_SLOT_ALIGN * HP_SLOT_ALIGN;
}

/* Is one page at `at` free? Maps and unmaps it; never disturbs a mapping. */
static int slot_free(uintptr_t at)
{
    void *p = hp_sys_mmap((void *)at, HP_PAGE, PROT_NONE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED) return 0;
    hp_sys_munmap(p, HP_PAGE);
    return (uintptr_t)p == at;
}

static uintptr_t take_slot(size_t bytes)
{
    size_t span = round_up(bytes, HP_SLOT_ALIGN) + HP_SLOT_ALIGN;
    uintptr_t cur = atomic_load_explicit(&hp_slot_cursor, memory_order_relaxed);
    if (cur == 0) {
        uintptr_t start = slot_start();
        if (!atomic_compare_exchange_strong(&hp_slot_cursor, &cur, start)) { /* cur reloaded */ }
        else cur = start;
    }
    for (int tries = 0; tries < 16; tries++) {
        uintptr_t at = atomic_fetch_add(&hp_slot_cursor, span);
        if (at + span > HP_SLOT_HIGH || at + span < at) return 0;
        if (slot_free(at)) return at;
    }
    return 0;
}

static int reserve_plain(hp_vec *v, size_t max_bytes)
{
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
    v->how = HP_VEC_RESERVED;
    return 0;
}

int hp_vec_reserve(hp_vec *v, size_t max_bytes)
{
    max_bytes = round_up(max_bytes, HP_PAGE);
    uintptr_t at = take_slot(max_bytes);
    if (at == 0) return reserve_plain(v, max_bytes);
    v->base = (unsigned char *)at;
    v->reserved = max_bytes;
    v->committed = 0;
    v->how = HP_VEC_SLOT;
    return 0;
}

/* Make [from, to) of the vec usable. */
static int commit_range(hp_vec *v, size_t from, size_t to)
{
    if (v->how == HP_VEC_RESERVED)
        return hp_sys_mprotect(v->base + from, to - from, PROT_READ | PROT_WRITE);
    void *want = v->base + from;
    void *p = hp_sys_mmap(want, to - from, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED) return -1;
    if (p != want) {   /* a kernel or tool that took the address as a hint */
        hp_sys_munmap(p, to - from);
        return -1;
    }
    return 0;
}

/* The program's address-space limit (RLIMIT_AS, read at every commit:
 * the program may set it at any time) and heapprof's share of it: at most
 * half of what the program leaves. Past that, a commit fails as if memory
 * were short -- every caller copes (it drops and counts, and the exit says
 * what was lost) -- so that the program's own allocations, which come
 * later, still find room: under a limit 40 MiB above its needs, a program
 * keeping 2M small objects had 791,168 of its allocations fail under
 * heapprof and none alone. Commits are rare (they grow geometrically): two
 * system calls, and a third only when a limit is set. */
static size_t vm_size_now(void)
{
    char b[64];
    int fd = hp_sys_open("/proc/self/statm", O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return 0;
    long n = hp_sys_read(fd, b, sizeof b - 1);
    hp_sys_close(fd);
    size_t pages = 0;
    for (long i = 0; i < n && b[i] >= '0' && b[i] <= '9'; i++) pages = pages * 10 + (size_t)(b[i] - '0');
    return pages * HP_PAGE;
}

static _Atomic int final_phase;

void hp_mem_set_final(void) { atomic_store_explicit(&final_phase, 1, memory_order_relaxed); }

static int within_address_limit(size_t add)
{
    struct { uint64_t cur, max; } rl;
    if (HP_SYS6(SYS_prlimit64, 0, 9 /* RLIMIT_AS */, 0, &rl, 0, 0) != 0) return 1;
    if (rl.cur == UINT64_MAX) return 1;   /* RLIM_INFINITY */
    size_t vm = vm_size_now();
    if (vm == 0) return 1;
    size_t mine = atomic_load_explicit(&hp_total_committed, memory_order_relaxed);
    size_t prog = vm > mine ? vm - mine : 0;
    size_t room = rl.cur > prog ? (size_t)rl.cur - prog : 0;
    if (atomic_load_explicit(&final_phase, memory_order_relaxed)) return mine + add <= room;
    return mine + add <= room / 2;
}

int hp_vec_ensure(hp_vec *v, size_t bytes)
{
    if (bytes <= v->committed) return 0;
    if (v->base == NULL) return -1;
    size_t want = round_up(bytes, HP_COMMIT_STEP);
    /* Grow geometrically so large vectors cost few system calls: double,
     * or by grow_pct (a big dense array whose committed size the .prof
     * reports, where doubling would leave up to half of it slack). */
    size_t step = v->grow_pct ? v->committed / 100 * v->grow_pct : v->committed;
    if (want < v->committed + step) want = round_up(v->committed + step, HP_COMMIT_STEP);
    if (want > v->reserved) want = v->reserved;
    if (want < bytes) return -1;
    if (!within_address_limit(want - v->committed)) {
        /* Just what was asked, if that fits. */
        want = round_up(bytes, HP_PAGE);
        if (!within_address_limit(want - v->committed)) return -1;
    }
    if (commit_range(v, v->committed, want) != 0) {
        /* Address space may be short (the program's RLIMIT_AS): try for
         * just what was asked before giving up. */
        size_t need = round_up(bytes, HP_PAGE);
        if (need >= want || commit_range(v, v->committed, need) != 0) return -1;
        want = need;
    }
    size_t now = atomic_fetch_add_explicit(&hp_total_committed, want - v->committed,
                                           memory_order_relaxed) + (want - v->committed);
    size_t peak = atomic_load_explicit(&hp_peak_committed, memory_order_relaxed);
    while (now > peak && !atomic_compare_exchange_weak_explicit(&hp_peak_committed, &peak, now,
                                                                memory_order_relaxed,
                                                                memory_order_relaxed))
        ;
    v->committed = want;
    return 0;
}

int hp_vec_room(hp_vec *v, _Atomic size_t *cap, _Atomic int *growing, size_t need, size_t max,
                size_t elem)
{
    if (need <= atomic_load_explicit(cap, memory_order_acquire)) return 1;
    if (need > max) return 0;
    for (;;) {
        int idle = 0;
        if (atomic_compare_exchange_weak(growing, &idle, 1)) {
            size_t c = atomic_load_explicit(cap, memory_order_relaxed);
            if (need > c) {
                size_t grown = 2 * c > need ? 2 * c : need;
                if (grown > max) grown = max;
                if (hp_vec_ensure(v, grown * elem) == 0)
                    atomic_store_explicit(cap, grown, memory_order_release);
            }
            atomic_store(growing, 0);
            return need <= atomic_load_explicit(cap, memory_order_acquire);
        }
        while (atomic_load_explicit(growing, memory_order_relaxed)) __builtin_ia32_pause();
        if (need <= atomic_load_explicit(cap, memory_order_acquire)) return 1;
    }
}

void hp_vec_trim(hp_vec *v, size_t keep_bytes)
{
    size_t keep = round_up(keep_bytes, HP_COMMIT_STEP);
    if (v->base == NULL || keep >= v->committed) return;
    if (v->how == HP_VEC_SLOT) {
        if (hp_sys_munmap(v->base + keep, v->committed - keep) != 0) return;
    } else {
        if (hp_sys_mprotect(v->base + keep, v->committed - keep, PROT_NONE) != 0) return;
        hp_sys_madvise(v->base + keep, v->committed - keep, MADV_DONTNEED);
    }
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

size_t hp_mem_committed_peak(void)
{
    return atomic_load_explicit(&hp_peak_committed, memory_order_relaxed);
}
