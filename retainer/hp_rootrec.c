/* hp_rootrec: the memory of the root ranges the collector pushes (see
 * hp_rootrec.h); the recording itself is in hp_rootrec_sigsafe.c. */
#include "retainer/hp_rootrec.h"
#include "core/hp_mem.h"

#include <stdatomic.h>

#define range_vec hp_rootrec_.range_vec
#define snap_vec hp_rootrec_.snap_vec

int hp_rootrec_init(void)
{
    if (hp_vec_reserve(&range_vec, HP_RANGES_MAX * sizeof(hp_root_range)) != 0 ||
        hp_vec_ensure(&range_vec, HP_RANGES_FIRST * sizeof(hp_root_range)) != 0 ||
        hp_vec_reserve(&snap_vec, HP_SNAPSHOT_BYTES) != 0 ||
        hp_vec_ensure(&snap_vec, HP_SNAPSHOT_BYTES) != 0 ||
        hp_vec_reserve(&hp_rootrec_.push_vec, HP_PROC_PUSHES * sizeof(hp_proc_push)) != 0 ||
        hp_vec_ensure(&hp_rootrec_.push_vec, HP_PROC_PUSHES_FIRST * sizeof(hp_proc_push)) != 0)
        return -1;
    /* (Room for a million pushes, committed up front, was 32 MB of every
     * retainer run's profiler memory; programs push far fewer. Room for
     * every range and 65,536 pushes was still 5 MB: both now grow as they
     * are recorded, hp_rootrec_sigsafe.c.) */
    atomic_store(&hp_rootrec_.range_cap, HP_RANGES_FIRST);
    atomic_store(&hp_rootrec_.push_cap, HP_PROC_PUSHES_FIRST);
    hp_rootrec_reset();
    return 0;
}

