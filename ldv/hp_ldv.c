/* hp_ldv: mode ldv's start-up (HEAPPROF=ldv): memory, the fault handlers,
 * the refusal of incremental collection, the fork reset. The biography
 * itself is in hp_ldv_bio_sigsafe.c.
 *
 * The LDV word and the biographical bands:
 *
 * GHC's scheme (ldv.tex): each census counts live objects as used or not
 * yet used; phases are only known at death, when an object's VOID range
 * (never used) or DRAG range (after its last use) is added to per-census
 * difference arrays (GHC's voidNew/dragNew). At the end, VOID and DRAG are
 * their prefix sums, LAG = not-yet-used - VOID, USE = used - DRAG.
 *
 * Census numbers t = 1, 2, ...: census t is taken when t-1 censuses have
 * been (period t-1 ends with it). An object created in period b (its
 * record's birth) and removed by a sweep in period d (found dead, freed, or
 * alive at exit) was live at censuses b+1 .. d. A use in period u is seen
 * by censuses u+1 and later. */
#include "ldv/hp_ldv_internal.h"
#include "core/hp_rt.h"
#include "core/hp_stacks.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

hp_ldv_state hp_ldv;
hp_rec_side *hp_ldv_rsides;

#define census_vec hp_ldv_bio_.census_vec
#define ncensus hp_ldv_bio_.ncensus
#define cost_vec hp_ldv_bio_.cost_vec
#define ncost hp_ldv_bio_.ncost
#define name_cost_vec hp_ldv_bio_.name_cost_vec
#define out hp_ldv_bio_.out

/* A forked child starts a profile of its own (hp_census_postfork_child
 * restarts the census count): forget the parent's censuses, and let every
 * object inherited start its biography afresh in period 0. */
static void postfork_child(void)
{
    memset(census_vec.base, 0, ((size_t)ncensus + 2) * sizeof(hp_ldv_census));
    ncensus = 0;
    if (ncost) memset(cost_vec.base, 0, (size_t)ncost * sizeof(hp_ldv_cost));
    /* bands=: the parent's deaths are the parent's. */
    hp_ldv_cross *x = &hp_ldv_bio_.cross;
    if (x->cap) memset(x->vec.base, 0, (size_t)x->cap * sizeof(hp_ldv_cross_ent));
    x->n = 0;
    x->labels = 0;
    size_t len;
    if (hp_ldv_rsides) {
        hp_rec_side *sd = hp_shadow_sides(&len);
        for (size_t i = 0; i < len; i++) sd[i].word = sd[i].bits = 0;
        return;
    }
    hp_rec *recs = hp_shadow_table(&len);
    for (size_t i = 0; i < len; i++) {
        recs[i].birth = 0;
        recs[i].word = 0;
    }
}

/* Does this thread run with a shadow stack (CET, Linux 6.6+ and a C
 * library that enables it)? A burst's emulated calls and returns would not
 * move it, and the next real return would fault: no bursts then. */
static int shadow_stack(void)
{
    unsigned long features = 0;
    long r = syscall(SYS_arch_prctl, 0x5005 /* ARCH_SHSTK_STATUS */, &features);
    return r == 0 && (features & 1);
}

int hp_ldv_init(char *err, unsigned long errlen)
{
    pthread_atfork(NULL, NULL, postfork_child);
    hp_ldv.active = 1;
    hp_ldv.precise = hp_rt.cfg.ldv_policy != HP_LDV_PAGE;
    hp_ldv.sud_wanted = hp_rt.cfg.ldv_syscalls;
    hp_ldv.use_bursts = hp_ldv.precise && hp_rt.cfg.ldv_burst && !shadow_stack();
    hp_ldv.repeat = hp_rt.cfg.ldv_policy == HP_LDV_ADAPTIVE ? (unsigned)hp_rt.cfg.ldv_repeat : 0;
    hp_ldv.budget_ratio = hp_rt.cfg.ldv_budget;
    hp_ldv.budget_floor_ns = hp_rt.cfg.ldv_budget > 0 ? (uint64_t)(hp_rt.cfg.ldv_floor * 1e9) : 0;
    hp_ldv.budget_floor_faults = hp_rt.cfg.ldv_budget > 0 ? (uint64_t)hp_rt.cfg.ldv_floor_faults : 0;
    hp_ldv.within_budget = hp_rt.cfg.ldv_budget > 0;
    size_t nsides;
    hp_ldv_rsides = hp_shadow_sides(&nsides);   /* (mode ldv: Note [Side entries]) */
    if (hp_vec_reserve(&census_vec, (size_t)1 << 34) != 0 ||
        hp_vec_ensure(&census_vec, 4 * sizeof(hp_ldv_census)) != 0 ||
        hp_vec_reserve(&cost_vec, (size_t)1 << 32) != 0 ||
        hp_vec_reserve(&name_cost_vec, (size_t)1 << 32) != 0 ||
        hp_vec_reserve(&hp_ldv_bio_.ckpt_vec, (size_t)1 << 34) != 0 ||
        hp_vec_reserve(&hp_ldv_bio_.cross.vec, (size_t)1 << 34) != 0 ||
        hp_vec_reserve(&hp_ldv_bio_.ckpt_cross.vec, (size_t)1 << 34) != 0 ||
        hp_vec_reserve(&hp_ldv_bio_.cross_dense_vec, (size_t)1 << 36) != 0 ||
        hp_vec_reserve(&hp_ldv_bio_.ckpt_dense_vec, (size_t)1 << 36) != 0 ||
        hp_buf_init(&out, (size_t)1 << 30) != 0 ||
        hp_buf_init(&hp_ldv_bio_.ckpt_out, (size_t)1 << 30) != 0 || hp_ldv_prot_init() != 0) {
        if (err && errlen) {
            strncpy(err, "cannot reserve memory for ldv mode (mmap failed)", errlen - 1);
            err[errlen - 1] = 0;
        }
        return -1;
    }
    return hp_ldv_trap_init(err, errlen);
}

int hp_ldv_start(void)
{
    const char *inc = getenv("GC_ENABLE_INCREMENTAL");
    if (inc && *inc && strcmp(inc, "0") != 0) {
        hp_say("heapprof: HEAPPROF=ldv cannot follow incremental collection, and "
               "GC_ENABLE_INCREMENTAL is set: unset it (or choose another mode)");
        return -1;
    }
    char err[256];
    if (hp_ldv_init(err, sizeof err) != 0) {
        char m[320];
        snprintf(m, sizeof m, "heapprof: %s", err);
        hp_say(m);
        return -1;
    }
    return 0;
}

int hp_ldv_refuse_incremental(void)
{
    if (!hp_ldv.active) return 0;
    static _Atomic int warned;
    if (!atomic_exchange(&warned, 1))
        hp_say("heapprof: GC_enable_incremental ignored: HEAPPROF=ldv needs full, "
               "stop-the-world collections (the program runs non-incrementally)");
    return 1;
}

