/* hp_rootrec_sigsafe: recording the root ranges the collector pushes (see
 * hp_rootrec.h), called by heapprof's GC_push_all and GC_push_all_eager
 * (preload/hp_push_wrappers.c) inside the collector's mark phase, with the
 * world stopped: no lock a stopped thread may hold, no allocation.
 *
 * The ranges and the mark procedures' pushes are kept in vecs that grow as
 * they fill (room_for): the recording threads are the marker threads,
 * which run while the world is stopped, so one of them grows a vec (an
 * mmap) while any other that needs room waits for it (hp_vec_room). A slot is written
 * only once its index is below the vec's published capacity. */
#include "retainer/hp_rootrec.h"

#include <stdatomic.h>
#include <string.h>

#define HP_NEAR_SP ((uintptr_t)1 << 20)

hp_rootrec_state hp_rootrec_;
#define range_vec hp_rootrec_.range_vec
#define snap_vec hp_rootrec_.snap_vec
#define nranges hp_rootrec_.nranges
#define snap_used hp_rootrec_.snap_used
#define overflow hp_rootrec_.overflow

/* Room for `need` entries of `elem` bytes in `v` (core/hp_mem.h). */
static int room_for(hp_vec *v, _Atomic size_t *cap, size_t need, size_t max, size_t elem)
{
    return hp_vec_room(v, cap, &hp_rootrec_.growing, need, max, elem);
}

void hp_rootrec_reset(void)
{
    atomic_store(&hp_rootrec_.npushes, 0);
    atomic_store(&hp_rootrec_.push_overflow, 0);
    atomic_store(&nranges, 0);
    atomic_store(&snap_used, 0);
    atomic_store(&overflow, 0);
}

const hp_root_range *hp_rootrec_ranges(size_t *n, int *overflowed)
{
    uint32_t k = atomic_load(&nranges);
    size_t cap = atomic_load(&hp_rootrec_.range_cap);
    *n = k < cap ? k : cap;
    *overflowed = atomic_load(&overflow) || k > cap;
    return (const hp_root_range *)range_vec.base;
}

void hp_rootrec_proc_pushed(uintptr_t proc, const void *src, const void *before,
                            const void *after)
{
    const uintptr_t *e = (const uintptr_t *)before + 2;   /* the entry above the old top */
    const uintptr_t *end = (const uintptr_t *)after + 2;
    if (end <= e || !hp_rootrec_.push_vec.base) return;
    size_t n = (size_t)(end - e) / 2;
    size_t at = atomic_fetch_add(&hp_rootrec_.npushes, n);
    if (!room_for(&hp_rootrec_.push_vec, &hp_rootrec_.push_cap, at + n, HP_PROC_PUSHES,
                  sizeof(hp_proc_push))) {
        atomic_store(&hp_rootrec_.push_overflow, 1);
        return;
    }
    hp_proc_push *out = (hp_proc_push *)hp_rootrec_.push_vec.base + at;
    for (size_t i = 0; i < n; i++, e += 2) {
        uintptr_t descr = e[1];
        out[i].src = (uintptr_t)src;
        out[i].start = e[0];
        out[i].len = (descr & 3) == 0 ? descr : 0;   /* GC_DS_LENGTH: a byte count */
        out[i].proc = proc;
    }
}

void hp_rootrec_proc_edge(uintptr_t proc, const void *src, const void *obj)
{
    if (!obj || !hp_rootrec_.push_vec.base) return;
    size_t at = atomic_fetch_add(&hp_rootrec_.npushes, 1);
    if (!room_for(&hp_rootrec_.push_vec, &hp_rootrec_.push_cap, at + 1, HP_PROC_PUSHES,
                  sizeof(hp_proc_push))) {
        atomic_store(&hp_rootrec_.push_overflow, 1);
        return;
    }
    hp_proc_push *out = (hp_proc_push *)hp_rootrec_.push_vec.base + at;
    *out = (hp_proc_push){(uintptr_t)src, (uintptr_t)obj, 0, proc};
}

const hp_proc_push *hp_rootrec_proc_pushes(size_t *n, int *overflowed)
{
    size_t k = atomic_load(&hp_rootrec_.npushes), cap = atomic_load(&hp_rootrec_.push_cap);
    *n = k < cap ? k : cap;
    *overflowed = atomic_load(&hp_rootrec_.push_overflow);
    return (const hp_proc_push *)hp_rootrec_.push_vec.base;
}

void hp_rootrec_registered(uintptr_t lo, uintptr_t hi, uint32_t ccs)
{
    uint32_t i = atomic_load(&hp_rootrec_.nregs);
    if (i >= HP_ROOT_REGS) return;
    hp_rootrec_.regs[i] = (hp_root_reg){lo, hi, ccs};
    atomic_store(&hp_rootrec_.nregs, i + 1);   /* one registering thread at a time: libgc's lock */
}

uint32_t hp_rootrec_registrar(uintptr_t addr)
{
    for (uint32_t i = atomic_load(&hp_rootrec_.nregs); i-- > 0;)
        if (addr >= hp_rootrec_.regs[i].lo && addr < hp_rootrec_.regs[i].hi)
            return hp_rootrec_.regs[i].ccs + 1;
    return 0;
}

void hp_rootrec_displacement(size_t d)
{
    if (d < HP_DISPLACEMENTS) atomic_fetch_or(&hp_rootrec_.displacement[d / 64], (uint64_t)1 << (d % 64));
}

void hp_rootrec_pushed(void *bottom, void *top, int eager, uintptr_t pusher)
{
    uintptr_t lo = (uintptr_t)bottom, hi = (uintptr_t)top;
    if (hi <= lo || !range_vec.base)
        return;
    uint32_t i = atomic_fetch_add(&nranges, 1);
    if (!room_for(&range_vec, &hp_rootrec_.range_cap, (size_t)i + 1, HP_RANGES_MAX,
                  sizeof(hp_root_range)))
        return;   /* past HP_RANGES_MAX, or out of memory: hp_rootrec_ranges says so */
    hp_root_range *r = &((hp_root_range *)range_vec.base)[i];
    r->lo = lo;
    r->hi = hi;
    r->eager = (uint8_t)eager;
    r->pusher = pusher;
    r->role = (uint8_t)hp_rootrec_.role;
    r->copy = NULL;
    r->copied = 0;
    /* The pushing thread's own stack, just above this frame: copy what
     * the profiler's frames will overwrite before MARK_END. */
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    if (lo >= sp && lo - sp < HP_NEAR_SP) {
        size_t want = hi - lo;
        if (want > 64 << 10) want = 64 << 10;
        size_t at = atomic_fetch_add(&snap_used, want);
        if (at + want <= HP_SNAPSHOT_BYTES) {
            memcpy(snap_vec.base + at, bottom, want);
            r->copy = snap_vec.base + at;
            r->copied = want;
        } else {
            atomic_store(&overflow, 1);
        }
    }
}

