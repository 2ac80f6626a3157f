/* hp_retainer_sigsafe: the retainer profile's traversal at MARK_END (world
 * stopped: no lock, no allocation), its census labels, the rset= filter
 * and its .prof section (the SIGINT/SIGTERM finisher reaches these too).
 * The retainer profile is described in hp_retainer.h. */
#include "retainer/hp_retainer.h"
#include "retainer/hp_retainer_internal.h"
#include "retainer/hp_rootrec.h"
#include "retainer/hp_trace.h"
#include "retainer/hp_trace_index.h"
#include "core/hp_real.h"
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

static uint32_t ccs_ident(uint32_t ccs)
{
    hp_ident d = {0};
    d.kind = HP_RET_CCS;
    d.module = -1;
    d.key = ccs;
    return hp_ret_ident_intern(&d);
}

/* Uncollectable objects (GC_malloc_uncollectable: C++ containers with
 * manual storage, runtime tables) are roots for the collector: each is a
 * retainer named by the stack that allocated it. */
static inline int is_uncollectable(const hp_rec *r)
{
    return r && (r->how == HP_HOW_UNCOLLECTABLE || r->how == HP_HOW_ATOMIC_UNCOLLECTABLE);
}

static uint32_t uncoll_ident(uint32_t ccs)
{
    hp_ident d = {0};
    d.kind = HP_RET_UNCOLL;
    d.module = -1;
    d.key = ccs;
    return hp_ret_ident_intern(&d);
}

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

static uint32_t scc_retainer_set(const hp_rec *r) { return hp_ret_set_single(retainer_ident(r)); }

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
    .empty_set = hp_ret_set_empty,
    .set_union = hp_ret_set_union,
    .set_size = scc_set_size,
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
    for (uintptr_t a = (lo + 7) & ~(uintptr_t)7; a + 8 <= hi; a += 8) {
        uintptr_t v = *(const uintptr_t *)a;
        if (!hp_trace_plausible(v)) continue;
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
        root_range(a, a + 8, interior, id);
    }
}

static void traverse(uint64_t mark_ns, int rest);

void hp_retainer_traverse(uint64_t mark_ns) { traverse(mark_ns, 0); }

void hp_retainer_traverse_rest(uint64_t mark_ns) { traverse(mark_ns, 1); }

/* rest: the second walk of the named-roots profile (rest_visit). */
static void traverse(uint64_t mark_ns, int rest)
{
    uint64_t t0 = hp_mono_ns();
    hp_ret_.traversed = 0;
    size_t n;
    int overflowed;
    const hp_root_range *rr = hp_rootrec_ranges(&n, &overflowed);
    hp_ret_.ranges_overflowed = overflowed;
    /* walk=auto: depth-first from each root while objects are reached by
     * few roots (cheapest then), by components once the last census's
     * depth-first walk visited objects more than twice each on average;
     * back when the components' sets average at most 1.5 members. */
    use_scc = !rest && (hp_rt.cfg.ret_walk == HP_WALK_SCC ||
                        (hp_rt.cfg.ret_walk == HP_WALK_AUTO && hp_ret_.next_scc));
    hp_trace_set_merge(0);
    if (rest) {
        if (hp_trace_again(rest_visit) != 0) return;
    } else if (hp_trace_begin(use_scc ? NULL : retain_visit) != 0 ||
               (use_scc && hp_trace_scc_begin(&scc_ops) != 0)) {
        return;
    }
    int all_interior = hp_real.GC_get_all_interior_pointers
                           ? hp_real.GC_get_all_interior_pointers() : 1;
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    uintptr_t entry = hp_tls.depth > 0 ? hp_tls.gc_entry_frame : 0;
    const hp_stack_entry *my_stack = hp_thread_stack_of(here);
    size_t nrec;
    hp_rec *recs = hp_shadow_table(&nrec);
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
                uint32_t ri = hp_trace_record_at((uintptr_t)hb);
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
    for (size_t i = 0; i < nrec; i++)
        if (is_uncollectable(&recs[i])) root_object(recs[i].base, uncoll_ident(recs[i].ccs));
    if (use_scc) {
        int ok;
        hp_ret_.tstats = hp_trace_scc_end(&ok);
        hp_trace_end(&hp_ret_.indexed);
        hp_ret_.scc_censuses++;
        hp_ret_.next_scc = !(hp_ret_.tstats.objects &&
                             hp_ret_.tstats.set_members <= hp_ret_.tstats.objects * 3 / 2);
    } else {
        hp_ret_.tstats = hp_trace_end(&hp_ret_.indexed);
        hp_ret_.dfs_censuses++;
        hp_ret_.next_scc = hp_ret_.tstats.visits > 2 * hp_ret_.tstats.objects;
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
    uintptr_t page = 0;
    int page_in_use = 0;
    for (size_t i = 0; i < nrec && i < hp_ret_.indexed; i++) {
        uintptr_t base = recs[i].base;
        if (hp_trace_valid(recs[i].word, hp_ret_.parity)) continue;
        /* Freed by the program (GC_free, a moving GC_realloc): the record
         * goes at the sweep, its block may be part of another object. */
        if (hp_shadow_is_freed(&recs[i], i)) continue;
        /* GC_is_marked only where a block is in use (as the sweep). */
        if (base >> 12 != page) {
            page = base >> 12;
            page_in_use = hp_real.GC_base((void *)base) != NULL;
        }
        if (!page_in_use) continue;
        if (hp_real.GC_is_marked((void *)base)) recs[i].word = unseen_word;
    }
    hp_ret_.traversed = 1;
    uint64_t t1 = hp_mono_ns();
    hp_ret_.mark_ns_last = mark_ns;
    hp_ret_.trace_ns_last = t1 - t0;
    hp_ret_.mark_ns_total += mark_ns;
    hp_ret_.trace_ns_total += hp_ret_.trace_ns_last;
    hp_rt_exclude(t1 - t0);
}
/* ---- end of MARK_END code ---- */

/* ---- Census (RECLAIM_END, lock held, world running) and output ---- */

static uint64_t *set_bytes(uint32_t s)
{
    if (hp_vec_ensure(&hp_ret_.set_bytes_vec, (size_t)(s + 1) * 8) ||
        hp_vec_ensure(&hp_ret_.set_seen_vec, (size_t)s + 1))
        return NULL;
    return &((uint64_t *)hp_ret_.set_bytes_vec.base)[s];
}

/* A module's name as labels show it: "libguile-3.0.so.1" is "guile-3.0",
 * so that a label cut at its length (GHC -L) keeps the part that differs. */
static void module_short(hp_buf *b, const char *m)
{
    if (!m) {
        hp_buf_chr(b, '?');
        return;
    }
    if (strncmp(m, "lib", 3) == 0 && m[3]) m += 3;
    const char *so = strstr(m, ".so");
    size_t n = so ? (size_t)(so - m) : strlen(m);
    for (size_t i = 0; i < n; i++) hp_buf_chr(b, m[i]);
}

/* "function" for a code address, else "module+0xoffset". */
static void code_text(hp_buf *b, uintptr_t pc)
{
    hp_sym_info si = hp_symbols_lookup(pc);
    if (si.function) {
        hp_buf_str(b, si.function);
        return;
    }
    module_short(b, si.module);
    uintptr_t lo, hi;
    hp_buf_str(b, "+0x");
    hp_buf_hex(b, hp_symbols_module_span(pc, &lo, &hi) == 0 ? pc - lo : pc);
}

static void ident_text(hp_buf *b, uint32_t id)
{
    const hp_ident *d = &hp_ret_idents()[id];
    switch (d->kind) {
    case HP_RET_STATIC: hp_buf_str(b, d->sym); break;
    case HP_RET_STATIC_OFF:
        module_short(b, d->module_base);
        hp_buf_str(b, ":data");
        break;
    case HP_RET_STACK:
        if (d->is_main) hp_buf_str(b, "stack:main");
        else {
            hp_buf_str(b, "stack:thread");
            hp_buf_u64(b, d->key);
        }
        break;
    case HP_RET_OTHER:
        hp_buf_str(b, "roots@0x");
        hp_buf_hex(b, d->key);
        break;
    case HP_RET_CCS: hp_buf_str(b, hp_names_full(hp_names_full_of((uint32_t)d->key))); break;
    case HP_RET_ADDED:
        hp_buf_str(b, "roots:");
        hp_buf_str(b, hp_names_full(hp_names_full_of((uint32_t)d->key)));
        break;
    case HP_RET_PUSHER:
        hp_buf_str(b, "pushed-by:");
        code_text(b, d->key - 1);
        break;
    case HP_RET_PUSHED:
        hp_buf_str(b, "pushed:");
        hp_buf_str(b, hp_names_full(hp_names_full_of((uint32_t)d->key)));
        break;
    case HP_RET_UNCOLL:
        hp_buf_str(b, "uncoll:");
        hp_buf_str(b, hp_names_full(hp_names_full_of((uint32_t)d->key)));
        break;
    case HP_RET_MARKPROC:
        hp_buf_str(b, "mark:");
        code_text(b, d->key);
        break;
    case HP_RET_GCROLE:
        hp_buf_str(b, d->key == HP_GCROLE_FINALIZATION ? "gc:finalization"
                      : d->key == HP_GCROLE_FRAMES ? "gc:frames" : "gc:unseen");
        break;
    }
}

static uint32_t set_label(uint32_t s)
{
    if (hp_vec_ensure(&hp_ret_.set_label_vec, (size_t)(s + 1) * 4)) return 0;
    uint32_t *l = &((uint32_t *)hp_ret_.set_label_vec.base)[s];
    if (*l) return *l - 1;
    hp_buf_reset(&hp_ret_.text);
    if (s == SET_MANY) {
        hp_buf_str(&hp_ret_.text, "MANY");
    } else {
        hp_buf_chr(&hp_ret_.text, '(');
        hp_buf_u64(&hp_ret_.text, s);
        hp_buf_chr(&hp_ret_.text, ')');
        uint32_t n;
        const uint32_t *m = hp_ret_set_members(s, &n);
        for (uint32_t i = 0; i < n; i++) {
            if (i) hp_buf_chr(&hp_ret_.text, ',');
            ident_text(&hp_ret_.text, m[i]);
        }
    }
    *l = hp_names_intern_label(hp_buf_cstr(&hp_ret_.text)) + 1;
    return *l - 1;
}

/* The label NOROOT:<set's label> (named-roots profile), made once. */
static uint32_t noroot_set_label(uint32_t s)
{
    if (hp_vec_ensure(&hp_ret_.noroot_label_vec, (size_t)(s + 1) * 4)) return UINT32_MAX;
    uint32_t *l = &((uint32_t *)hp_ret_.noroot_label_vec.base)[s];
    if (*l) return *l - 1;
    uint32_t inner = set_label(s);
    hp_buf_reset(&hp_ret_.text);
    hp_buf_str(&hp_ret_.text, "NOROOT:");
    hp_buf_str(&hp_ret_.text, hp_names_label(inner));
    *l = hp_names_intern_label(hp_buf_cstr(&hp_ret_.text)) + 1;
    return *l - 1;
}

uint32_t hp_retainer_noroot_label(hp_rec *r, size_t idx)
{
    /* The retainer walk's label without its flag, so that the retainer
     * profile's own census accounting applies (the bytes of each set, the
     * sanity line); a named-roots bin never comes here. */
    int mine = hp_trace_valid(r->word, hp_ret_.parity) && (r->word & RET_IN_ROOTS);
    hp_rec tmp = *r;
    if (mine) tmp.word &= ~RET_IN_ROOTS;
    int final = hp_ret_.traversed && !mine && idx < hp_ret_.indexed;
    uint32_t l = hp_retainer_label_of(&tmp, idx);
    r->word = mine ? tmp.word | RET_IN_ROOTS : tmp.word;
    if (l == UINT32_MAX) return UINT32_MAX;
    return noroot_set_label(final ? hp_ret_.final_set : tmp.word & HP_TRACE_LABEL_MASK);
}

uint32_t hp_retainer_label_of(hp_rec *r, size_t idx)
{
    int valid = hp_ret_.traversed && hp_trace_valid(r->word, hp_ret_.parity);
    int unseen = valid && (r->word & HP_TRACE_LABEL_MASK) == hp_ret_.unseen_set;
    /* Live now, not marked at the mark phase's end: marked for
     * finalization after it (the pass at the end of the traversal). */
    int final = hp_ret_.traversed && !valid && idx < hp_ret_.indexed;
    if ((valid && !unseen) || final) {
        uint32_t s = final ? hp_ret_.final_set : r->word & HP_TRACE_LABEL_MASK;
        if (final) {
            r->word &= ~HP_TRACE_SET_BIT;
            hp_ret_.final_bytes += r->granted;
            hp_ret_.final_objects++;
        }
        /* Per-set arrays sized for every set at the first use in a census
         * (no set is made during the census). */
        if (s >= hp_ret_.sets_sized) {
            if (!set_bytes(hp_ret_.nsets - 1) ||
                hp_vec_ensure(&hp_ret_.set_label_vec, (size_t)hp_ret_.nsets * 4))
                return UINT32_MAX;
            hp_ret_.sets_sized = hp_ret_.nsets;
        }
        uint64_t *b = &((uint64_t *)hp_ret_.set_bytes_vec.base)[s];
        if (!*b) {
            hp_ret_.sets_this_census++;
            ((uint8_t *)hp_ret_.set_seen_vec.base)[s] = 1;
        }
        *b += r->granted;
        hp_ret_.attributed_bytes += r->granted;
        hp_ret_.attributed_objects++;
        uint32_t l = ((uint32_t *)hp_ret_.set_label_vec.base)[s];
        return l ? l - 1 : set_label(s);
    }
    r->word &= ~HP_TRACE_SET_BIT;   /* a stale label never outlives its census */
    if (idx >= hp_ret_.indexed) {
        hp_ret_.new_bytes += r->granted;
        hp_ret_.new_objects++;
    } else {
        hp_ret_.unreached_bytes += r->granted;
        hp_ret_.unreached_objects++;
        if (!hp_vec_ensure(&hp_ret_.unreached_vec, (size_t)(r->ccs + 1) * 8) &&
            !hp_vec_ensure(&hp_ret_.touched_vec, (size_t)(hp_ret_.ntouched + 1) * 4)) {
            uint64_t *u = &((uint64_t *)hp_ret_.unreached_vec.base)[r->ccs];
            if (!*u) ((uint32_t *)hp_ret_.touched_vec.base)[hp_ret_.ntouched++] = r->ccs;
            *u += r->granted;
        }
    }
    return UINT32_MAX;
}

static void ms(hp_buf *b, uint64_t ns) { hp_buf_fixed(b, (double)ns / 1e6, 2); }

void hp_retainer_census_done(double t)
{
    hp_buf *b = &hp_ret_.prof_lines;
    hp_buf_fixed(b, t, 2);
    hp_buf_str(b, "  ");
    if (!hp_ret_.traversed) {
        hp_buf_str(b, "no traversal (no collection could be run): every live object counted "
                      "as not reached\n");
    } else {
        hp_ret_.censuses_traced++;
        ms(b, hp_ret_.trace_ns_last);
        hp_buf_str(b, "  ");
        ms(b, hp_ret_.mark_ns_last);
        hp_buf_str(b, "  ");
        hp_buf_fixed(b, hp_ret_.mark_ns_last ? (double)hp_ret_.trace_ns_last / (double)hp_ret_.mark_ns_last : 0, 2);
        hp_buf_str(b, "  ");
        hp_buf_u64(b, hp_ret_.tstats.visits);
        hp_buf_str(b, "  ");
        hp_buf_u64(b, hp_ret_.sets_this_census);
        hp_buf_str(b, "  ");
        hp_buf_fixed(b, hp_ret_.tstats.objects ? (double)hp_ret_.tstats.visits / (double)hp_ret_.tstats.objects : 0, 2);
        hp_buf_str(b, "  ");
        hp_buf_u64(b, hp_ret_.attributed_bytes);
        hp_buf_str(b, " of ");
        hp_buf_u64(b, hp_ret_.attributed_bytes + hp_ret_.unreached_bytes + hp_ret_.new_bytes);
        hp_buf_str(b, " bytes");
        if (hp_ret_.final_objects) {
            hp_buf_str(b, "; held by gc:finalization (marked by the collector after the "
                          "mark phase, for finalization): ");
            hp_buf_u64(b, hp_ret_.final_bytes);
            hp_buf_str(b, " bytes in ");
            hp_buf_u64(b, hp_ret_.final_objects);
            hp_buf_str(b, " objects");
        }
        if (hp_ret_.unreached_objects) {
            hp_buf_str(b, "; not reached from known roots: ");
            hp_buf_u64(b, hp_ret_.unreached_bytes);
            hp_buf_str(b, " bytes in ");
            hp_buf_u64(b, hp_ret_.unreached_objects);
            hp_buf_str(b, " objects (marked by the collector from a root heapprof did "
                          "not see: a pointer held only in the collecting thread's "
                          "registers or its frames below the program's outermost GC_ "
                          "call, or, in incremental mode, written during the mark cycle) "
                          "from ");
            /* The three largest sites. */
            uint64_t *u = (uint64_t *)hp_ret_.unreached_vec.base;
            uint32_t *tc = (uint32_t *)hp_ret_.touched_vec.base;
            for (int k = 0; k < 3; k++) {
                uint32_t best = UINT32_MAX;
                for (uint32_t i = 0; i < hp_ret_.ntouched; i++)
                    if (u[tc[i]] && (best == UINT32_MAX || u[tc[i]] > u[best])) best = tc[i];
                if (best == UINT32_MAX) break;
                if (k) hp_buf_str(b, ", ");
                hp_buf_str(b, hp_names_full(hp_names_full_of(best)));
                hp_buf_chr(b, ' ');
                hp_buf_u64(b, u[best]);
                u[best] = 0;
            }
        }
        if (hp_ret_.new_objects) {
            hp_buf_str(b, "; allocated during the collection: ");
            hp_buf_u64(b, hp_ret_.new_bytes);
            hp_buf_str(b, " bytes in ");
            hp_buf_u64(b, hp_ret_.new_objects);
            hp_buf_str(b, " objects");
        }
        if (hp_ret_.ranges_overflowed) hp_buf_str(b, "; some root ranges were not recorded");
        if (hp_ret_.pushes_overflowed)
            hp_buf_str(b, "; some pushes of mark procedures were not recorded");
        hp_buf_chr(b, '\n');
    }
    uint64_t *u = (uint64_t *)hp_ret_.unreached_vec.base;
    for (uint32_t i = 0; i < hp_ret_.ntouched; i++) u[((uint32_t *)hp_ret_.touched_vec.base)[i]] = 0;
    hp_ret_.ntouched = 0;
    uint64_t *sb = (uint64_t *)hp_ret_.set_bytes_vec.base;
    if (sb) memset(sb, 0, hp_ret_.set_bytes_vec.committed);
    hp_ret_.attributed_bytes = hp_ret_.attributed_objects = hp_ret_.unreached_bytes = hp_ret_.unreached_objects = 0;
    hp_ret_.new_bytes = hp_ret_.new_objects = 0;
    hp_ret_.final_bytes = hp_ret_.final_objects = 0;
    hp_ret_.sets_this_census = 0;
    hp_ret_.traversed = 0;
}

int hp_retainer_set_matches(const hp_rec *r)
{
    if (!hp_trace_valid(r->word, hp_trace_parity())) return 0;
    uint32_t s = r->word & HP_TRACE_LABEL_MASK;
    if (hp_vec_ensure(&hp_ret_.rset_match_vec, (size_t)s + 1)) return 0;
    uint8_t *m = &((uint8_t *)hp_ret_.rset_match_vec.base)[s];
    if (!*m) {
        *m = 2;
        uint32_t n;
        const uint32_t *mem = hp_ret_set_members(s, &n);
        for (uint32_t i = 0; i < n && *m == 2; i++) {
            hp_buf_reset(&hp_ret_.text);
            ident_text(&hp_ret_.text, mem[i]);
            const char *name = hp_buf_cstr(&hp_ret_.text);
            const char *p = hp_rt.cfg.filter_rset;
            while (*p) {
                size_t k = strcspn(p, "+");
                if (strlen(name) == k && memcmp(name, p, k) == 0) *m = 1;
                p += k;
                if (*p == '+') p++;
            }
        }
    }
    return *m == 1;
}

void hp_retainer_write_prof(int fd)
{
    hp_buf out;
    if (hp_buf_init(&out, (size_t)1 << 32)) return;
    hp_buf_str(&out, "\nRETAINER SETS (every set that held live bytes at a census; sets of more "
                     "than ");
    hp_buf_u64(&out, (uint64_t)hp_ret_.bound);
    hp_buf_str(&out, " retainers are MANY)\n\n");
    uint8_t *seen = (uint8_t *)hp_ret_.set_seen_vec.base;
    size_t nseen = hp_ret_.set_seen_vec.committed;
    for (uint32_t s = 0; s < hp_ret_.nsets && s < nseen; s++) {
        if (!seen[s]) continue;
        hp_buf_str(&out, "SET ");
        if (s == SET_MANY) {
            hp_buf_str(&out, "MANY = {more than ");
            hp_buf_u64(&out, (uint64_t)hp_ret_.bound);
            hp_buf_str(&out, " retainers}\n");
            continue;
        }
        hp_buf_u64(&out, s);
        hp_buf_str(&out, " = {");
        uint32_t n;
        const uint32_t *m = hp_ret_set_members(s, &n);
        for (uint32_t i = 0; i < n; i++) {
            if (i) hp_buf_str(&out, ", ");
            hp_buf_chr(&out, '<');
            ident_text(&out, m[i]);
            hp_buf_chr(&out, '>');
        }
        hp_buf_str(&out, "}\n");
    }
    hp_buf_str(&out, "\nRETAINER CENSUSES (time s, traversal ms, collector mark ms, ratio, "
                     "visits, sets, visits per object, bytes attributed of live)\n\n");
    hp_buf_put(&out, (const char *)hp_ret_.prof_lines.vec.base, hp_ret_.prof_lines.len);
    hp_buf_str(&out, "\ntraversal total ");
    ms(&out, hp_ret_.trace_ns_total);
    hp_buf_str(&out, " ms, collector mark total ");
    ms(&out, hp_ret_.mark_ns_total);
    hp_buf_str(&out, " ms over ");
    hp_buf_u64(&out, hp_ret_.censuses_traced);
    hp_buf_str(&out, " censuses\nwalks: ");
    hp_buf_u64(&out, hp_ret_.dfs_censuses);
    hp_buf_str(&out, " depth-first from each root, ");
    hp_buf_u64(&out, hp_ret_.scc_censuses);
    hp_buf_str(&out, " by strongly connected components (walk=");
    hp_buf_str(&out, hp_rt.cfg.ret_walk == HP_WALK_DEPTH ? "depth"
                     : hp_rt.cfg.ret_walk == HP_WALK_SCC ? "components" : "auto");
    hp_buf_str(&out, ")\n");
    hp_buf_write(&out, fd);
}
