/* hp_rootrec: records the root ranges the collector pushes (see
 * hp_rootrec.h).
 *
 * ---- Async-signal-safe: the wrappers run inside the collector's mark
 * phase with the world stopped; they take no lock and never allocate. ---- */
#include "retainer/hp_rootrec.h"
#include "core/hp_gc.h"
#include "core/hp_mem.h"
#include "core/hp_real.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>

#define HP_RANGES_MAX 65536
#define HP_SNAPSHOT_BYTES ((size_t)256 << 10)
#define HP_NEAR_SP ((uintptr_t)1 << 20)

static hp_vec range_vec, snap_vec;
static _Atomic uint32_t nranges;
static _Atomic size_t snap_used;
static _Atomic int overflow;

int hp_rootrec_init(void)
{
    if (hp_vec_reserve(&range_vec, HP_RANGES_MAX * sizeof(hp_root_range)) != 0 ||
        hp_vec_ensure(&range_vec, HP_RANGES_MAX * sizeof(hp_root_range)) != 0 ||
        hp_vec_reserve(&snap_vec, HP_SNAPSHOT_BYTES) != 0 ||
        hp_vec_ensure(&snap_vec, HP_SNAPSHOT_BYTES) != 0)
        return -1;
    hp_rootrec_reset();
    return 0;
}

/* The collector pushes roots only once heapprof is attached (hp_real
 * resolved, at the first GC_ call); this is the fallback for a program
 * that pushes ranges itself before any. */
__attribute__((noinline, cold)) static void *late_find(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

void hp_rootrec_reset(void)
{
    atomic_store(&nranges, 0);
    atomic_store(&snap_used, 0);
    atomic_store(&overflow, 0);
}

const hp_root_range *hp_rootrec_ranges(size_t *n, int *overflowed)
{
    uint32_t k = atomic_load(&nranges);
    *n = k < HP_RANGES_MAX ? k : HP_RANGES_MAX;
    *overflowed = atomic_load(&overflow) || k > HP_RANGES_MAX;
    return (const hp_root_range *)range_vec.base;
}

static void record(void *bottom, void *top, int eager)
{
    uintptr_t lo = (uintptr_t)bottom, hi = (uintptr_t)top;
    if (hi <= lo || !range_vec.base)
        return;
    uint32_t i = atomic_fetch_add(&nranges, 1);
    if (i >= HP_RANGES_MAX) return;
    hp_root_range *r = &((hp_root_range *)range_vec.base)[i];
    r->lo = lo;
    r->hi = hi;
    r->eager = (uint8_t)eager;
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

void GC_push_all(void *bottom, void *top)
{
    record(bottom, top, 0);
    __typeof__(&GC_push_all) fn = hp_real.GC_push_all;
    if (!fn) *(void **)&fn = late_find("GC_push_all");
    if (fn) fn(bottom, top);
}

void GC_push_all_eager(void *bottom, void *top)
{
    record(bottom, top, 1);
    __typeof__(&GC_push_all_eager) fn = hp_real.GC_push_all_eager;
    if (!fn) *(void **)&fn = late_find("GC_push_all_eager");
    if (fn) fn(bottom, top);
}
/* ---- end of mark-phase code ---- */
