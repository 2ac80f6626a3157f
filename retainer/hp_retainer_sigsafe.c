/* hp_retainer_sigsafe: the retainer profile's traversal at MARK_END (world
 * stopped: no lock, no allocation): the roots as the collector pushed them,
 * named (hp_retainer_internal.h's identities), walked depth-first or by
 * components (hp_trace_sigsafe.c, hp_trace_scc_sigsafe.c), then the pass
 * that tells apart, by the collector's own mark bits, what the walk did not
 * reach. Its census labels and .prof section are in
 * hp_retainer_census_sigsafe.c. The retainer profile is described in
 * hp_retainer.h. */
#include "retainer/hp_retainer.h"
#include "retainer/hp_retainer_internal.h"
#include "retainer/hp_rootrec.h"
#include "retainer/hp_trace.h"
#include "retainer/hp_trace_index.h"
#include "core/hp_helper.h"
#include "core/hp_real.h"
#include "core/hp_blocks.h"
#include "core/hp_shadow.h"
#include "core/hp_stacks.h"
#include "core/hp_symbols.h"
#include "core/hp_thread.h"
#include "hp_writer/hp_names.h"

#include <string.h>

/* ---- MARK_END: world stopped, lock held. No lock, no malloc. ---- */

static inline int is_designated(const hp_rec *r)
{
    return hp_ret_.ccs_classified && r && r->ccs < hp_ret_.ccs_classified &&
           ((uint8_t *)hp_ret_.ccs_class_vec.base)[r->ccs] == 1;
}

/* The identity of a retainer named by a stack (kind HP_RET_CCS or
 * HP_RET_UNCOLL), through a direct-mapped cache: identities are interned
 * for the whole run and never change, and one is asked for every
 * uncollectable object and every designated retainer at each traversal
 * (Inkscape's C++ containers: a sixteenth of its traversal's time went to
 * interning the same few hundred identities again). */
#define IDENT_CACHE 4096
static struct {
    uint32_t ccs1, ident;   /* ccs1: ccs + 1 */
    uint32_t set1;          /* the set {ident} + 1 (stack_set); 0: not asked yet */
} ident_cache[2][IDENT_CACHE];

static uint32_t stack_ident(int uncoll, uint32_t ccs)
{
    uint32_t k = ccs & (IDENT_CACHE - 1);
    if (ident_cache[uncoll][k].ccs1 == ccs + 1) return ident_cache[uncoll][k].ident;
    hp_ident d = {0};
    d.kind = uncoll ? HP_RET_UNCOLL : HP_RET_CCS;
    d.module = -1;
    d.key = ccs;
    uint32_t id = hp_ret_ident_intern(&d);
    if (id != RET_MANY) {   /* (out of memory: not kept) */
        ident_cache[uncoll][k].ccs1 = ccs + 1;
        ident_cache[uncoll][k].ident = id;
        ident_cache[uncoll][k].set1 = 0;
    }
    return id;
}

/* The set of that one identity, kept in the same cache entry (Inkscape's
 * 60,000 uncollectable containers, from a few hundred stacks: the set's
 * own lookup was a fifth of their roots' time). */
static uint32_t stack_set(int uncoll, uint32_t ccs)
{
    uint32_t id = stack_ident(uncoll, ccs);
    uint32_t k = ccs & (IDENT_CACHE - 1);
    if (ident_cache[uncoll][k].ccs1 != ccs + 1) return hp_ret_set_single(id);   /* (not kept) */
    if (ident_cache[uncoll][k].set1) return ident_cache[uncoll][k].set1 - 1;
    uint32_t s = hp_ret_set_single(id);
    if (s != SET_MANY) ident_cache[uncoll][k].set1 = s + 1;   /* (out of memory: not kept) */
    return s;
}

static uint32_t ccs_ident(uint32_t ccs) { return stack_ident(0, ccs); }

/* Uncollectable objects (GC_malloc_uncollectable: C++ containers with
 * manual storage, runtime tables) are roots for the collector: each is a
 * retainer named by the stack that allocated it. */
static inline int is_uncollectable(const hp_rec *r)
{
    return r && hp_rec_uncollectable(r);
}

static uint32_t uncoll_ident(uint32_t ccs) { return stack_ident(1, ccs); }

static uint32_t retainer_ident(const hp_rec *r)
{
    return is_uncollectable(r) ? uncoll_ident(r->ccs) : ccs_ident(r->ccs);
}

/* retain(c, r) of the seed, one object at a time (the depth-first walk
 * from each root in turn). */
static int retain_visit(uint32_t *label, int valid, const hp_rec *rec, uint64_t in,
                        uint64_t *out)
{
    uint32_t r = (uint32_t)in;
    int is_ret = is_designated(rec) || is_uncollectable(rec);
    if (!valid) {
        *label = hp_ret_set_single(r);
        *out = is_ret ? retainer_ident(rec) : r;
        return 1;
    }
    uint32_t s = *label;
    if (s == SET_MANY) return 0;
    if (r == RET_MANY) {
        *label = SET_MANY;
        *out = RET_MANY;
        return !is_ret;
    }
    if (hp_ret_set_contains(s, r)) return 0;
    uint32_t s2 = hp_ret_set_add(s, r);
    *label = s2;
    if (is_ret) return 0;
    *out = s2 == SET_MANY ? RET_MANY : r;
    return 1;
}

/* The component walk's view of retainers (hp_trace_scc_sigsafe.c). */
/* The named-roots profile with noroot=retainers: after its own walk, this
 * one labels what no named root reached (hp_trace_again, same parity).
 * Its labels carry RET_IN_ROOTS; a label without it is a named-roots bin:
 * reached by a named root, so never entered. */
static int rest_visit(uint32_t *label, int valid, const hp_rec *rec, uint64_t in,
                      uint64_t *out)
{
    if (valid && !(*label & RET_IN_ROOTS)) return 0;
    uint32_t l = *label & ~RET_IN_ROOTS;
    int go = retain_visit(&l, valid, rec, in, out);
    *label = l | RET_IN_ROOTS;
    return go;
}

static int scc_is_retainer(const hp_rec *r) { return is_designated(r) || is_uncollectable(r); }

static int scc_by_record(void) { return hp_ret_has_retainers(); }

static uint32_t scc_retainer_set(const hp_rec *r) { return hp_ret_set_single(retainer_ident(r)); }

/* A retainer's identity is its stack, and whether it is uncollectable. */
static uint64_t scc_retainer_key(const hp_rec *r)
{
    return (uint64_t)r->ccs << 1 | (uint64_t)is_uncollectable(r);
}

static uint32_t scc_set_size(uint32_t s)
{
    if (s == SET_MANY) return (uint32_t)hp_ret_.bound + 1;
    uint32_t n;
    hp_ret_set_members(s, &n);
    return n;
}

static const hp_trace_scc_ops scc_ops = {
    .is_retainer = scc_is_retainer,
    .retainer_set = scc_retainer_set,
    .retainer_key = scc_retainer_key,
    .retainers_by_record = scc_by_record,
    .empty_set = hp_ret_set_empty,
    .set_union = hp_ret_set_union,
    .set_size = scc_set_size,
};
static const hp_trace_scc_ops scc_dom_ops = {
    .is_retainer = scc_is_retainer,
    .retainer_set = scc_retainer_set,
    .retainer_key = scc_retainer_key,
    .retainers_by_record = scc_by_record,
    .empty_set = hp_ret_set_empty,
    .set_union = hp_ret_set_union,
    .set_size = scc_set_size,
    .dominators = hp_retainer_dominators,
};

/* Which walk this census (walk=, hp_retainer.h): a root's words or object
 * go to it. */
static int use_scc;

static void root_range(uintptr_t lo, uintptr_t hi, int interior, uint32_t id)
{
    if (use_scc) {
        hp_trace_scc_range(lo, hi, interior, hp_ret_set_single(id));
    } else {
        hp_trace_range(lo, hi, NULL, interior, id);
        hp_trace_run();
    }
}

static void root_object(uintptr_t base, uint32_t id)
{
    if (use_scc) {
        hp_trace_scc_object(base, hp_ret_set_single(id));
    } else {
        hp_trace_object(base, id);
        hp_trace_run();
    }
}

/* Static data: each word is named by the variable holding it. */
static void trace_static(uintptr_t lo, uintptr_t hi, int interior)
{
    uintptr_t sym_lo = 1, sym_hi = 0;
    uint32_t id = RET_MANY;
    const uintptr_t *end = (const uintptr_t *)(hi & ~(uintptr_t)7);
    for (const uintptr_t *w = (const uintptr_t *)((lo + 7) & ~(uintptr_t)7);
         (w = hp_trace_next_plausible(w, end)) < end; w++) {
        uintptr_t a = (uintptr_t)w;
        if (!(a >= sym_lo && a < sym_hi)) {
            hp_data_sym ds;
            if (!hp_symbols_data_at(a, &ds)) {
                ds.name = NULL;
                ds.start = a;
                ds.end = a + 8;
                ds.module = -1;
                ds.module_base = "?";
                ds.module_lo = 0;
            }
            hp_ident d = {0};
            d.module = ds.module;
            d.module_base = ds.module_base;
            if (ds.name) {
                d.kind = HP_RET_STATIC;
                d.key = ds.start;
                d.sym = ds.name;
            } else {
                /* No symbol (a stripped module): the module's data as one
                 * retainer -- an offset tells a user nothing, and a
                 * retainer per word multiplies the sets (and the visits). */
                d.kind = HP_RET_STATIC_OFF;
                d.key = 0;
            }
            id = hp_ret_ident_intern(&d);
            sym_lo = ds.start;
            sym_hi = ds.end > ds.start ? ds.end : ds.start + 8;
        }
        /* Every word from here to the symbol's end (or the range's) is
         * the symbol's: one range, whose scan passes over the words that
         * cannot point into the heap itself. */
        uintptr_t stop = (sym_hi + 7) & ~(uintptr_t)7;
        if (stop > (uintptr_t)end) stop = (uintptr_t)end;
        if (stop < a + 8) stop = a + 8;
        root_range(a, stop, interior, id);
        w = (const uintptr_t *)stop - 1;   /* (then the loop's w++) */
    }
}

static void traverse(uint64_t mark_ns, int rest);

/* What the walk did not reach among records [from, to) (see traverse):
 * labelled `word` when the collector marked it. Each record written by
 * one job alone; on a big table the helper thread (core/hp_helper.h)
 * takes half (it calls only GC_base and GC_is_marked, which read block
 * headers; the threshold: retainer/hp_trace_sigsafe.c, Note [Two
 * builders]). */
typedef struct unseen_job { hp_rec *recs; uint32_t word; hp_blocks blocks[2]; } unseen_job;
#define HP_RET_HELPER_UNSEEN ((size_t)1 << 16)
#define HP_RET_UNSEEN_CHUNK 8192   /* records (core/hp_helper.h, hp_helper_chunks) */

static void unseen_range(void *arg, size_t from, size_t to, int who)
{
    unseen_job *j = arg;
    hp_blocks *blocks = &j->blocks[who];
    for (size_t i = from; i < to; i++) {
        hp_rec *r = &j->recs[i];
        if (hp_trace_valid(r->word, hp_ret_.parity)) continue;
        /* Freed by the program (GC_free, a moving GC_realloc): the record
         * goes at the sweep, its block may be part of another object --
         * even a later block of a large one, whose header is a forwarding
         * count GC_is_marked would read as a header (it crashed GNU poke
         * when asked first): this test must come before the mark's. */
        if (hp_shadow_is_freed(r, i)) continue;
        /* GC_is_marked only where a block is in use (as the sweep). */
        if (!hp_blocks_in_use(blocks, r->base)) continue;
        if (hp_real.GC_is_marked((void *)r->base)) r->word = j->word;
    }
}

void hp_retainer_traverse(uint64_t mark_ns) { traverse(mark_ns, 0); }

void hp_retainer_traverse_rest(uint64_t mark_ns) { traverse(mark_ns, 1); }

/* Note [A depth-first walk gives up]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * walk=auto chooses each census's walk from the census before it, and a
 * heap can change between two: Guile sorting 300,000 strings had a census
 * of 635,000 objects by components, sets of one member, which chose
 * depth-first for the next, of 1.14 million in the middle of the sort,
 * whose lists share their strings: 7.7 scans an object, 549 ms against a
 * 34 ms mark, the whole run's traversal 9 times its mark (which census
 * falls in the sort is a matter of timing: with the give-up below, 4
 * runs in 20 with census collections forced half an interval late, 1 in
 * 20 with a quarter, the wait these modes keep: collector_hooks/
 * hp_hooks.h, hp_hooks_force_after). A
 * depth-first walk chosen by walk=auto therefore gives up once it has
 * scanned objects again more times than half the table's records (and
 * 1,024) -- where the walk would switch back to components for the next
 * census anyway: its labels are dropped (the components' walk begins
 * anew, with the other parity) and this census is walked by components,
 * whose cost is bounded. Such a census costs the part of a depth-first
 * walk made before it gave up, and the components' walk. (Giving up
 * sooner, at a 64th of the records, gave up on trees.c depth 18's walks
 * too, 7-20 of 47, whose few rescans depth-first pays for: their
 * components' arrays took its profiler memory from 60 to 85-100 bytes an
 * object.) walk=depth, asked for, never gives up. */

/* rest: the second walk of the named-roots profile (rest_visit). */
static void traverse(uint64_t mark_ns, int rest)
{
    uint64_t t0 = hp_mono_ns();
    hp_ret_.traversed = 0;
    size_t n;
    int overflowed;
    const hp_root_range *rr = hp_rootrec_ranges(&n, &overflowed);
    hp_ret_.ranges_overflowed = overflowed;
    /* walk=auto: by components first (its cost is bounded: each object
     * scanned once), depth-first from each root once the components' sets
     * average at most 1.5 members (cheapest then: few objects scanned
     * twice), back to components once a depth-first walk scanned more than
     * half as many objects again as it reached (a set grew after its
     * object's scan: the object and what it reaches are scanned again),
     * or at once when this census's depth-first walk gives up (Note [A
     * depth-first walk gives up]). */
    size_t nrec;
    hp_rec *recs = hp_shadow_table(&nrec);
    use_scc = !rest && (hp_rt.cfg.ret_walk == HP_WALK_SCC || hp_rt.cfg.dominators ||
                        (hp_rt.cfg.ret_walk == HP_WALK_AUTO && hp_ret_.next_scc));
    /* A traversal of this many records gives the helper work (the unseen
     * pass, below, at least): made now, it is running by then (Note [A
     * warm helper]). */
    if (!rest && nrec >= HP_RET_HELPER_UNSEEN && hp_rt.cfg.walk_helper != HP_HELPER_NO)
        hp_helper_warm();
again:
    /* Note [A depth-first walk gives up] */
    hp_trace_set_rescan_cap(!rest && !use_scc && hp_rt.cfg.ret_walk == HP_WALK_AUTO
                                ? (uint64_t)nrec / 2 + 1024 : 0);
    hp_trace_set_merge(0);
    if (rest) {
        if (hp_trace_again(rest_visit) != 0) return;
    } else if (hp_trace_begin(use_scc ? NULL : retain_visit) != 0 ||
               (use_scc && hp_trace_scc_begin(hp_rt.cfg.dominators ? &scc_dom_ops : &scc_ops) != 0)) {
        return;
    }
    int all_interior = hp_real.GC_get_all_interior_pointers
                           ? hp_real.GC_get_all_interior_pointers() : 1;
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    uintptr_t entry = hp_tls.depth > 0 ? hp_tls.gc_entry_frame : 0;
    const hp_stack_entry *my_stack = hp_thread_stack_of(here);
    int incremental = hp_real.GC_is_incremental_mode && hp_real.GC_is_incremental_mode();
    int regs_done = 0;
    for (size_t i = 0; i < n; i++) {
        const hp_root_range *g = &rr[i];
        /* The same range pushed twice (a mark-stack overflow restarts
         * the root pushes, all of them): once is enough -- unless it was
         * copied (the collecting thread's own frames, which the restart
         * has changed: each push is what the collector saw then). */
        int dup = 0;
        for (size_t k = i; !g->copy && k-- > 0 && k + 64 > i && !dup;)
            if (rr[k].lo == g->lo && rr[k].hi == g->hi && rr[k].eager == g->eager) dup = 1;
        if (dup) continue;
        int interior = g->eager || all_interior;
        const hp_stack_entry *se = hp_thread_stack_of(g->lo);
        /* In incremental mode, a thread's stack pushed again later in the
         * cycle supersedes this push. (Not otherwise: within one mark
         * phase the collecting thread pushes two parts of its stack, its
         * saved registers and its frames, and both are roots.) */
        if (se && incremental) {
            for (size_t k = i + 1; k < n && !dup; k++)
                if (rr[k].eager == g->eager && rr[k].lo != g->lo &&
                    hp_thread_stack_of(rr[k].lo) == se)
                    dup = 1;
            if (dup) continue;
        }
        const hp_rec *holder = NULL;
        if (!se) {
            void *hb = hp_real.GC_base((void *)g->lo);
            if (hb) {
                /* Part of a heap object pushed as a root (ECL pushes its
                 * Lisp stacks and thread environments, heap objects, from
                 * its push_other_roots): a root, named after the allocation
                 * of the object holding it. In incremental mode the
                 * collector also pushes dirty pages of objects it scans
                 * anyway: those add nothing (pointer-free ones excepted). */
                uint32_t ri = hp_trace_scc_record_of(hp_trace_record_at((uintptr_t)hb));
                if (ri == HP_NO_RECORD || ri >= nrec) continue;
                holder = &recs[ri];
                if (incremental && holder->how != HP_HOW_ATOMIC &&
                    holder->how != HP_HOW_ATOMIC_UNCOLLECTABLE)
                    continue;
            }
        }
        uintptr_t lo = g->lo;
        int mine = se ? se == my_stack : (g->hi > here && g->lo - here < HP_NEAR);
        if (mine) {
            /* The collecting thread (this one): its frames below the
             * program's outermost GC_ call are the collector's, full of
             * pointers it was marking from. Scan from that call up, and
             * the registers it found (hp_thread_note_entry). */
            /* (A collection starts only inside a GC_ call heapprof wraps:
             * the allocation calls, and the finalizer and weak-link
             * registrations, which allocate inside the collector:
             * preload/hp_finalizer_wrappers.c.) */
            if (!entry) continue;
            if (lo < entry && g->copy) {
                /* Below it, as the collector saw them when it pushed the
                 * range (the snapshot: the traversal's frames have
                 * overwritten them since): libgc's own frames, with the
                 * registers it saved. The collector marks from them too. */
                uintptr_t end = g->hi < entry ? g->hi : entry;
                if (end - lo > g->copied) end = lo + g->copied;
                hp_ident f = {0};
                f.kind = HP_RET_GCROLE;
                f.module = -1;
                f.key = HP_GCROLE_FRAMES;
                root_range((uintptr_t)g->copy, (uintptr_t)g->copy + (end - lo), 1,
                           hp_ret_ident_intern(&f));
            }
            if (g->hi <= entry) continue;
            if (lo < entry) lo = entry;
        }
        hp_ident d = {0};
        d.module = -1;
        hp_data_sym ds;
        if (holder) {
            d.kind = HP_RET_PUSHED;
            d.key = holder->ccs;
        } else if (se) {
            d.kind = HP_RET_STACK;
            d.key = se->ordinal;
            d.is_main = (uint8_t)se->is_main;
        } else if (g->role == HP_ROLE_FINALIZATION) {
            d.kind = HP_RET_GCROLE;
            d.key = HP_GCROLE_FINALIZATION;
        } else if (hp_symbols_data_at(g->lo, &ds)) {
            trace_static(g->lo, g->hi, interior);
            continue;
        } else {
            uint32_t reg = hp_rootrec_registrar(g->lo);
            if (reg) {
                d.kind = HP_RET_ADDED;
                d.key = reg - 1;
            } else if (g->pusher) {
                d.kind = HP_RET_PUSHER;
                d.key = g->pusher;
            } else {
                d.kind = HP_RET_OTHER;
                d.key = g->lo;
            }
        }
        uint32_t id = hp_ret_ident_intern(&d);
        root_range(lo, g->hi, se ? 1 : interior, id);
        if (mine && !regs_done) {
            /* The program's callee-saved registers at that call. */
            regs_done = 1;
            root_range((uintptr_t)hp_tls.gc_entry_regs,
                       (uintptr_t)(hp_tls.gc_entry_regs + 6), 1, id);
        }
    }
    /* What the program's mark procedures pushed (Guile's VM stacks, ECL's
     * environments): edges the word-by-word walk cannot see, as roots
     * named after the procedure. */
    size_t npush;
    int push_over;
    const hp_proc_push *pp = hp_rootrec_proc_pushes(&npush, &push_over);
    hp_ret_.pushes_overflowed = push_over;
    uintptr_t last_proc = 0;
    uint32_t proc_id = 0;
    for (size_t i = 0; i < npush; i++) {
        if (pp[i].proc != last_proc) {
            hp_ident d = {0};
            d.kind = HP_RET_MARKPROC;
            d.module = -1;
            d.key = pp[i].proc;
            proc_id = hp_ret_ident_intern(&d);
            last_proc = pp[i].proc;
        }
        uintptr_t st = pp[i].start;
        if ((uintptr_t)hp_real.GC_base((void *)st) == st) root_object(st, proc_id);
        else if (pp[i].len) root_range(st, st + pp[i].len, all_interior, proc_id);
    }
    /* Uncollectable objects: roots of their own (the collector marks from
     * them without pushing them through GC_push_all). */
    size_t nunc;
    const uint32_t *unc = hp_trace_uncollectables(&nunc);
    uint32_t *sets = use_scc ? hp_trace_uncollectable_sets() : NULL;
    if (sets) {
        /* (their sets first: then the walk resolves them, by two walkers
         * on a big heap, hp_trace_scc_objects) */
        for (size_t k = 0; k < nunc; k++) {
            if (k + 8 < nunc) __builtin_prefetch(&recs[unc[k + 8]]);
            sets[k] = stack_set(1, recs[unc[k]].ccs);
        }
        hp_trace_scc_objects(unc, sets, nunc);
    } else {
        for (size_t k = 0; k < nunc; k++) {
            const hp_rec *u = &recs[unc[k]];
            if (use_scc) hp_trace_scc_object(u->base, stack_set(1, u->ccs));
            else root_object(u->base, uncoll_ident(u->ccs));
        }
    }
    if (use_scc) {
        int ok;
        hp_ret_.tstats = hp_trace_scc_end(&ok);
        hp_trace_end(&hp_ret_.indexed);
        hp_ret_.scc_censuses++;
        if (hp_ret_.tstats.heads) hp_ret_.scc_heads_censuses++;
        hp_ret_.next_scc = !(hp_ret_.tstats.objects &&
                             hp_ret_.tstats.set_members <= hp_ret_.tstats.objects * 3 / 2);
    } else {
        hp_ret_.tstats = hp_trace_end(&hp_ret_.indexed);
        if (hp_trace_gave_up()) {
            hp_ret_.dfs_given_up++;
            use_scc = 1;
            goto again;
        }
        hp_ret_.dfs_censuses++;
        hp_ret_.next_scc = hp_ret_.tstats.rescans * 2 > hp_ret_.tstats.objects;
    }
    hp_ret_.parity = hp_trace_parity();
    /* What the walk did not reach. Marked at the mark phase's end: the
     * collector marked it from a root heapprof did not see (labelled with
     * the unseen marker, counted as not reached). Not marked now but live
     * at the census: the collector marked it after the mark phase, for
     * finalization (an object whose finalizer is due, what it reaches, a
     * strong toggle-ref): retained by gc:finalization
     * (hp_retainer_label_of). */
    hp_ident fin = {0}, uns = {0};
    fin.kind = uns.kind = HP_RET_GCROLE;
    fin.module = uns.module = -1;
    fin.key = HP_GCROLE_FINALIZATION;
    uns.key = HP_GCROLE_UNSEEN;
    hp_ret_.final_set = hp_ret_set_single(hp_ret_ident_intern(&fin));
    hp_ret_.unseen_set = hp_ret_set_single(hp_ret_ident_intern(&uns));
    uint32_t unseen_word = hp_ret_.parity | HP_TRACE_SET_BIT | hp_ret_.unseen_set |
                           (rest ? RET_IN_ROOTS : 0);
    size_t upto = nrec < hp_ret_.indexed ? nrec : hp_ret_.indexed;
    unseen_job job = {recs, unseen_word, {{{0}, {0}}, {{0}, {0}}}};
    hp_blocks_init(&job.blocks[0]);
    hp_blocks_init(&job.blocks[1]);
    if (upto >= HP_RET_HELPER_UNSEEN && hp_rt.cfg.walk_helper != HP_HELPER_NO)
        hp_helper_chunks(unseen_range, &job, upto, HP_RET_UNSEEN_CHUNK);
    else
        unseen_range(&job, 0, upto, 0);
    hp_ret_.traversed = 1;
    hp_helper_end();   /* (its end counted in the traversal's time) */
    uint64_t t1 = hp_mono_ns();
    hp_ret_.mark_ns_last = mark_ns;
    hp_ret_.trace_ns_last = t1 - t0;
    hp_ret_.mark_ns_total += mark_ns;
    hp_ret_.trace_ns_total += hp_ret_.trace_ns_last;
    hp_rt_exclude(t1 - t0);
}
/* ---- end of MARK_END code ---- */
