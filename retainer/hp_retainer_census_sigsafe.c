/* hp_retainer_census_sigsafe: the retainer profile at a census
 * (RECLAIM_END, lock held, world running) and at exit: each live record's
 * label from the traversal's set (or gc:finalization for what the
 * collector marked after the mark phase), the sanity line, the rset=
 * filter, the .prof sections, and the named-roots profile's NOROOT:<set>
 * labels. The SIGINT/SIGTERM finisher reaches these too: no lock, no
 * malloc. */
#include "retainer/hp_retainer.h"
#include "retainer/hp_retainer_internal.h"
#include "retainer/hp_trace.h"
#include "core/hp_rt.h"
#include "core/hp_symbols.h"
#include "core/hp_demangle.h"
#include "hp_writer/hp_names.h"
#include "hp_writer/hp_retained.h"

#include <string.h>

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

/* "function" for a code address, else "module+0xaddress", the address
 * in the module's file (what addr2line -f -e takes), the module's name as
 * labels show it: a stripped module's functions, which the symbol table
 * names "libguile-3.0.so.1+0x...", are "guile-3.0+0x..." here. */
static void code_text(hp_buf *b, uintptr_t pc)
{
    hp_sym_info si = hp_symbols_lookup(pc);
    if (si.function && !si.synthesized) {
        hp_buf_str(b, hp_demangle(si.function, HP_DEMANGLE_SHORT));
        return;
    }
    module_short(b, si.module);
    hp_buf_str(b, "+0x");
    if (si.module) {
        hp_buf_hex(b, (si.function ? si.start : pc) - si.bias);
    } else {
        uintptr_t lo, hi;
        hp_buf_hex(b, hp_symbols_module_span(pc, &lo, &hi) == 0 ? pc - lo : pc);
    }
}

/* A retainer's name: in full (the .prof, rset=), or with `brief` the form
 * a cut .hp label takes, where a stack-named retainer says first what
 * tells it from the others of its kind (hp_retainer_label_sigsafe.c). */
static void ident_name(hp_buf *b, uint32_t id, int brief)
{
    const hp_ident *d = &hp_ret_idents()[id];
    if (brief) {
        const char *kind = d->kind == HP_RET_ADDED ? "roots:" : d->kind == HP_RET_PUSHED ? "pushed:"
                           : d->kind == HP_RET_UNCOLL ? "uncoll:" : NULL;
        if (kind) {
            hp_ret_short_ident(b, id, kind);
            return;
        }
    }
    switch (d->kind) {
    case HP_RET_STATIC: hp_buf_str(b, hp_demangle(d->sym, HP_DEMANGLE_FULL)); break;
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
    case HP_RET_CCS: hp_buf_str(b, hp_names_short((uint32_t)d->key)); break;
    case HP_RET_ADDED:
        hp_buf_str(b, "roots:");
        hp_buf_str(b, hp_names_short((uint32_t)d->key));
        break;
    case HP_RET_PUSHER:
        hp_buf_str(b, "pushed-by:");
        code_text(b, d->key - 1);
        break;
    case HP_RET_PUSHED:
        hp_buf_str(b, "pushed:");
        hp_buf_str(b, hp_names_short((uint32_t)d->key));
        break;
    case HP_RET_UNCOLL:
        hp_buf_str(b, "uncoll:");
        hp_buf_str(b, hp_names_short((uint32_t)d->key));
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

static void ident_text(hp_buf *b, uint32_t id) { ident_name(b, id, 0); }

/* Set s's label text into b after what b holds: "(id)member,member", or
 * MANY; where that would pass `room` bytes, with the short forms of
 * stack-named members (ident_name's brief). */
static void set_text(hp_buf *b, uint32_t s, size_t room)
{
    if (s == SET_MANY) {
        hp_buf_str(b, "MANY");
        return;
    }
    size_t start = b->len;
    hp_buf_chr(b, '(');
    hp_buf_u64(b, s);
    hp_buf_chr(b, ')');
    size_t head = b->len;
    uint32_t n;
    const uint32_t *m = hp_ret_set_members(s, &n);
    for (int brief = 0; brief < 2; brief++) {
        b->len = head;
        for (uint32_t i = 0; i < n; i++) {
            if (i) hp_buf_chr(b, ',');
            ident_name(b, m[i], brief);
        }
        if (b->len - start <= room) break;
    }
}

static uint32_t set_label(uint32_t s)
{
    if (hp_vec_ensure(&hp_ret_.set_label_vec, (size_t)(s + 1) * 4)) return 0;
    uint32_t *l = &((uint32_t *)hp_ret_.set_label_vec.base)[s];
    if (*l) return *l - 1;
    hp_buf_reset(&hp_ret_.text);
    set_text(&hp_ret_.text, s, (size_t)hp_rt.cfg.label_length);
    *l = hp_names_intern_label(hp_buf_cstr(&hp_ret_.text)) + 1;
    return *l - 1;
}

/* The label NOROOT:<set's label> (named-roots profile), made once. */
static uint32_t noroot_set_label(uint32_t s)
{
    if (hp_vec_ensure(&hp_ret_.noroot_label_vec, (size_t)(s + 1) * 4)) return UINT32_MAX;
    uint32_t *l = &((uint32_t *)hp_ret_.noroot_label_vec.base)[s];
    if (*l) return *l - 1;
    hp_buf_reset(&hp_ret_.text);
    hp_buf_str(&hp_ret_.text, "NOROOT:");
    size_t len = (size_t)hp_rt.cfg.label_length;
    set_text(&hp_ret_.text, s, len > 7 ? len - 7 : 0);
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
    int final = hp_ret_.traversed && !mine && idx < hp_ret_.indexed + hp_shadow_set_aside();
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
     * finalization after it (the pass at the end of the traversal); the
     * records the traversal's drain set aside, unmarked, come next. */
    int final = hp_ret_.traversed && !valid && idx < hp_ret_.indexed + hp_shadow_set_aside();
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
    if (idx >= hp_ret_.indexed + hp_shadow_set_aside()) {
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

/* The census that attributed the smallest share of the bytes that were
 * live when its roots were read. Objects allocated during the collection
 * (after the roots were read, before the census) are left out of that
 * share: they cannot have a retainer yet, the census's .prof line names
 * them, and the next census attributes them; the warning is about roots
 * heapprof did not see. */
static uint64_t least_attributed, least_live, least_new;
static double least_time;

void hp_retainer_warnings(hp_buf *out)
{
    if (!least_live || least_attributed * 100 >= least_live * 95) return;
    hp_buf_str(out, "warning: the retainer profile attributed only ");
    hp_buf_fixed(out, 100.0 * (double)least_attributed / (double)least_live, 1);
    hp_buf_str(out, "% of the live bytes to a retainer at the census at ");
    hp_buf_fixed(out, least_time, 2);
    hp_buf_str(out, " s (");
    hp_buf_u64(out, least_attributed);
    hp_buf_str(out, " of ");
    hp_buf_u64(out, least_live);
    if (least_new) {
        hp_buf_str(out, ", not counting ");
        hp_buf_u64(out, least_new);
        hp_buf_str(out, " bytes allocated during the collection");
    }
    hp_buf_str(out, "): its bands leave the rest out; the .prof's line for that census, "
                    "under retainer censuses, says what held it\n");
}

/* dominators=yes: the census whose tree RETAINED SIZES shows (its time
 * comes with hp_retainer_census_done, after the walk). */
static double dom_time;
static int dom_fresh;

void hp_retainer_census_done(double t)
{
    if (dom_fresh) {
        dom_time = t;
        dom_fresh = 0;
    }
    hp_buf *b = &hp_ret_.prof_lines;
    hp_buf_fixed(b, t, 2);
    hp_buf_str(b, "  ");
    if (!hp_ret_.traversed) {
        hp_buf_str(b, "no traversal (");
        hp_buf_str(b, hp_rt.census_no_collection_why ? hp_rt.census_no_collection_why
                                                      : "no collection could be run");
        hp_buf_str(b, "): every live object counted as not reached\n");
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
        uint64_t live = hp_ret_.attributed_bytes + hp_ret_.unreached_bytes + hp_ret_.new_bytes;
        hp_buf_u64(b, live);
        hp_buf_str(b, " bytes");
        /* The census that attributed the least, for hp_retainer_warnings. */
        uint64_t before = live - hp_ret_.new_bytes;
        if (before && (!least_live || hp_ret_.attributed_bytes * least_live <
                                          least_attributed * before)) {
            least_attributed = hp_ret_.attributed_bytes;
            least_live = before;
            least_new = hp_ret_.new_bytes;
            least_time = t;
        }
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

static int rset_matched;   /* some object passed rset= */

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
    if (*m == 1) rset_matched = 1;
    return *m == 1;
}

int hp_retainer_rset_matched(void) { return rset_matched; }

void hp_retainer_closest(hp_closest *c)
{
    for (uint32_t i = 0; i < hp_ret_.nidents; i++) {
        hp_buf_reset(&hp_ret_.text);
        ident_text(&hp_ret_.text, i);
        const char *name = hp_buf_cstr(&hp_ret_.text);
        hp_closest_offer(c, name, strlen(name));
    }
}

/* ---- dominators=yes: RETAINED SIZES, from the dominator tree of the
 * census with the most live bytes (hp_trace_scc_sigsafe.c computes it).
 * Two tables: the components hanging from the root (what each root-level
 * object, or cycle, keeps alive alone), largest first; and per allocation
 * stack, what its objects keep alive, each object counted once (a
 * component whose dominator chain holds a component of the same stack is
 * inside that one's figure). ---- */
#define HP_DOM_TOP 20
static hp_buf dom_text;
static uint64_t dom_best, dom_objects;
static hp_vec dom_kids_vec, dom_first_vec, dom_stackv_vec, dom_active_vec, dom_byst_vec,
    dom_walk_vec;

#include "retainer/hp_trace.h"

static void dom_name(hp_buf *b, const hp_scc_doms *d, uint32_t c)
{
    uint32_t r = d->rep_rec[c];
    size_t n;
    hp_rec *recs = hp_shadow_table(&n);
    if (r == UINT32_MAX || r >= n) hp_buf_str(b, "(objects heapprof does not track)");
    else hp_buf_str(b, hp_names_full(hp_names_full_of(recs[r].ccs)));
}

/* The `k` largest children of component c (by retained bytes) into top,
 * largest first; their number. */
static int largest_kids(const hp_scc_doms *d, const uint32_t *first, const uint32_t *kids,
                        uint32_t c, uint32_t *top, int k)
{
    int n = 0;
    for (uint32_t i = first[c]; i < first[c + 1]; i++) {
        uint32_t x = kids[i];
        int at = n;
        while (at > 0 && d->retained[top[at - 1]] < d->retained[x]) at--;
        if (at >= k) continue;
        if (n < k) n++;
        for (int j = n - 1; j > at; j--) top[j] = top[j - 1];
        top[at] = x;
    }
    return n;
}

/* Levels of the tree the .prof shows, and how many children at each. */
#define HP_DOM_LEVELS 3
static const int dom_fanout[HP_DOM_LEVELS] = {10, 5, 3};

static void tree_line(hp_buf *b, const hp_scc_doms *d, uint32_t c, int level)
{
    hp_buf_u64w(b, d->retained[c], 11);
    hp_buf_u64w(b, d->retained_objects[c], 13);
    hp_buf_u64w(b, d->bytes[c], 13);
    hp_buf_str(b, "  ");
    for (int i = 0; i < level; i++) hp_buf_str(b, "  ");
    dom_name(b, d, c);
    if (level == 0) {
        hp_buf_str(b, "; ");
        hp_buf_str(b, hp_names_label(set_label(d->set[c])));
    }
    hp_buf_chr(b, '\n');
}

/* The rest of c's children, after the `shown` largest, in one line. */
static void tree_rest(hp_buf *b, const hp_scc_doms *d, const uint32_t *first,
                      const uint32_t *kids, uint32_t c, const uint32_t *shown, int nshown,
                      int level)
{
    uint64_t rb = 0, ro = 0, n = 0;
    for (uint32_t i = first[c]; i < first[c + 1]; i++) {
        int skip = 0;
        for (int j = 0; j < nshown; j++) skip |= shown[j] == kids[i];
        if (skip) continue;
        rb += d->retained[kids[i]];
        ro += d->retained_objects[kids[i]];
        n++;
    }
    if (!n) return;
    hp_buf_u64w(b, rb, 11);
    hp_buf_u64w(b, ro, 13);
    hp_buf_str(b, "             ");
    hp_buf_str(b, "  ");
    for (int i = 0; i < level; i++) hp_buf_str(b, "  ");
    hp_buf_str(b, "(");
    hp_buf_u64(b, n);
    hp_buf_str(b, n == 1 ? " other)\n" : " others)\n");
}

static void dom_tree(hp_buf *b, const hp_scc_doms *d, const uint32_t *first,
                     const uint32_t *kids, uint32_t c, int level)
{
    uint32_t top[16];
    int n = largest_kids(d, first, kids, c, top, dom_fanout[level]);
    for (int i = 0; i < n; i++) {
        tree_line(b, d, top[i], level);
        if (level + 1 < HP_DOM_LEVELS) dom_tree(b, d, first, kids, top[i], level + 1);
    }
    tree_rest(b, d, first, kids, c, top, n, level);
}

static void dom_tables(const hp_scc_doms *d);

/* What the dominator trees cost: time (the computation, and building this
 * file's tables), and the most memory their arrays held. */
static uint64_t dom_ns_total, dom_trees, dom_mem_most, dom_reached_most;

static uint64_t vecs_committed(void);

void hp_retainer_postfork_child(void)
{
    hp_buf_reset(&hp_ret_.prof_lines);
    hp_ret_.censuses_traced = hp_ret_.dfs_censuses = hp_ret_.scc_censuses = 0;
    hp_ret_.dfs_given_up = 0;
    hp_ret_.scc_heads_censuses = 0;
    hp_ret_.mark_ns_total = hp_ret_.trace_ns_total = 0;
    if (hp_ret_.set_seen_vec.base)
        memset(hp_ret_.set_seen_vec.base, 0, hp_ret_.set_seen_vec.committed);
    least_attributed = least_live = least_new = 0;
    least_time = 0;
    rset_matched = 0;
    dom_time = 0;
    dom_fresh = 0;
    if (dom_text.vec.base) hp_buf_reset(&dom_text);
    dom_best = dom_objects = 0;
    dom_ns_total = dom_trees = dom_mem_most = dom_reached_most = 0;
}

void hp_retainer_dominators(const hp_scc_doms *d)
{
    uint64_t t0 = hp_mono_ns();
    dom_tables(d);
    dom_ns_total += d->ns + (hp_mono_ns() - t0);
    dom_trees++;
    uint64_t mem = d->memory + vecs_committed();
    if (mem > dom_mem_most) dom_mem_most = mem;
    if (d->retained_objects[d->ncomp] > dom_reached_most)
        dom_reached_most = d->retained_objects[d->ncomp];
}

static void dom_tables(const hp_scc_doms *d)
{
    uint32_t R = d->ncomp;
    if (d->retained[R] < dom_best) return;
    dom_best = d->retained[R];
    if (!dom_text.vec.base && hp_buf_init(&dom_text, (size_t)1 << 30)) return;
    hp_buf *b = &dom_text;
    hp_buf_reset(b);
    size_t nrec;
    hp_rec *recs = hp_shadow_table(&nrec);
    dom_objects = d->retained_objects[R];
    dom_fresh = 1;   /* its census's time comes with hp_retainer_census_done */
    hp_buf_str(b, "What each object under the root keeps alive alone, largest first\n"
                  "   retained      objects    own bytes      objects  allocated at; held by\n");
    /* The root's children, the HP_DOM_TOP largest. */
    uint32_t top[HP_DOM_TOP];
    int ntop = 0;
    for (uint32_t c = 0; c < R; c++) {
        if (d->idom[c] != R) continue;
        int at = ntop;
        while (at > 0 && d->retained[top[at - 1]] < d->retained[c]) at--;
        if (at >= HP_DOM_TOP) continue;
        if (ntop < HP_DOM_TOP) ntop++;
        for (int k = ntop - 1; k > at; k--) top[k] = top[k - 1];
        top[at] = c;
    }
    for (int k = 0; k < ntop; k++) {
        uint32_t c = top[k];
        hp_buf_u64w(b, d->retained[c], 11);
        hp_buf_u64w(b, d->retained_objects[c], 13);
        hp_buf_u64w(b, d->bytes[c], 13);
        hp_buf_u64w(b, d->objects[c], 13);
        hp_buf_str(b, "  ");
        dom_name(b, d, c);
        hp_buf_str(b, "; ");
        hp_buf_str(b, hp_names_label(set_label(d->set[c])));
        hp_buf_chr(b, '\n');
    }
    /* Per allocation stack: a walk of the dominator tree from the root,
     * each stack's figure taken at its topmost components. */
    size_t n = (size_t)R + 1;
    if ((!dom_kids_vec.base && (hp_vec_reserve(&dom_kids_vec, (size_t)1 << 32) ||
                                hp_vec_reserve(&dom_first_vec, (size_t)1 << 32) ||
                                hp_vec_reserve(&dom_stackv_vec, (size_t)1 << 32) ||
                                hp_vec_reserve(&dom_active_vec, (size_t)1 << 32) ||
                                hp_vec_reserve(&dom_byst_vec, (size_t)1 << 33) ||
                                hp_vec_reserve(&dom_walk_vec, (size_t)1 << 33))) ||
        hp_vec_ensure(&dom_kids_vec, n * 4) || hp_vec_ensure(&dom_first_vec, (n + 1) * 4) ||
        hp_vec_ensure(&dom_stackv_vec, n * 4) || hp_vec_ensure(&dom_walk_vec, n * 8))
        return;
    uint32_t *first = (uint32_t *)dom_first_vec.base, *kids = (uint32_t *)dom_kids_vec.base;
    uint32_t *stk = (uint32_t *)dom_stackv_vec.base;
    memset(first, 0, (n + 1) * 4);
    for (uint32_t c = 0; c < R; c++) first[d->idom[c] + 1]++;
    for (uint32_t c = 0; c < R + 1; c++) first[c + 1] += first[c];
    uint32_t maxst = 0;
    for (uint32_t c = 0; c < R; c++) {
        uint32_t r = d->rep_rec[c];
        stk[c] = r < nrec ? hp_names_full_of(recs[r].ccs) : UINT32_MAX;
        if (stk[c] != UINT32_MAX && stk[c] + 1 > maxst) maxst = stk[c] + 1;
    }
    if (hp_vec_ensure(&dom_active_vec, (size_t)maxst * 4 + 4) ||
        hp_vec_ensure(&dom_byst_vec, (size_t)maxst * 16 + 16))
        return;
    uint32_t *active = (uint32_t *)dom_active_vec.base;
    uint64_t *byst = (uint64_t *)dom_byst_vec.base;   /* [stack][2]: bytes, objects */
    memset(active, 0, (size_t)maxst * 4);
    memset(byst, 0, (size_t)maxst * 16);
    /* Place children: kids[first[p] ..] (a cursor per parent in walk). */
    uint64_t *cursor = (uint64_t *)dom_walk_vec.base;
    for (uint32_t c = 0; c <= R; c++) cursor[c] = first[c];
    for (uint32_t c = 0; c < R; c++) kids[cursor[d->idom[c]]++] = c;
    /* Iterative walk from the root: the walk stack (in cursor's memory,
     * done with) holds components, pos[] each one's next child. */
    uint32_t *wstack = (uint32_t *)dom_walk_vec.base;
    size_t depth = 0;
    static hp_vec pos_vec;
    if ((!pos_vec.base && hp_vec_reserve(&pos_vec, (size_t)1 << 32)) ||
        hp_vec_ensure(&pos_vec, n * 4))
        return;
    uint32_t *pos = (uint32_t *)pos_vec.base;
    wstack[depth++] = R;
    pos[R] = first[R];
    while (depth) {
        uint32_t c = wstack[depth - 1];
        if (pos[c] < first[c + 1]) {
            uint32_t k = kids[pos[c]++];
            if (stk[k] != UINT32_MAX) {
                if (!active[stk[k]]) {
                    byst[2 * stk[k]] += d->retained[k];
                    byst[2 * stk[k] + 1] += d->retained_objects[k];
                }
                active[stk[k]]++;
            }
            pos[k] = first[k];
            wstack[depth++] = k;
            continue;
        }
        depth--;
        if (c != R && stk[c] != UINT32_MAX) active[stk[c]]--;
    }
    hp_retained_set(byst, maxst);   /* for the CSV and the pprof export */
    hp_buf_str(b, "\nThe dominator tree, three levels down: each object under the root, the "
                  "largest it keeps alive alone below it, and theirs (each line's figures "
                  "include the lines below it; the rest of each level on one line)\n"
                  "   retained      objects    own bytes  allocated at (the first level: "
                  "; held by)\n");
    dom_tree(b, d, first, kids, R, 0);
    hp_buf_str(b, "\nWhat each allocation stack's objects keep alive (each object once: "
                  "objects under others of their own stack are in those), largest first\n"
                  "   retained      objects  cost-centre stack\n");
    for (int shown = 0; shown < 50; shown++) {
        uint32_t best = UINT32_MAX;
        for (uint32_t st = 0; st < maxst; st++)
            if (byst[2 * st] && (best == UINT32_MAX || byst[2 * st] > byst[2 * best])) best = st;
        if (best == UINT32_MAX) break;
        hp_buf_u64w(b, byst[2 * best], 11);
        hp_buf_u64w(b, byst[2 * best + 1], 13);
        hp_buf_str(b, "  ");
        hp_buf_str(b, hp_names_full(best));
        hp_buf_chr(b, '\n');
        byst[2 * best] = 0;
    }
}

static uint64_t vecs_committed(void)
{
    return dom_kids_vec.committed + dom_first_vec.committed + dom_stackv_vec.committed +
           dom_active_vec.committed + dom_byst_vec.committed + dom_walk_vec.committed;
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
    if (hp_ret_.dfs_given_up) {
        hp_buf_str(&out, "  depth-first walks given up for components (more objects scanned "
                         "again than half the records: Note [A depth-first walk gives up]): ");
        hp_buf_u64(&out, hp_ret_.dfs_given_up);
        hp_buf_str(&out, "\n");
    }
    if (hp_ret_.scc_censuses) {
        hp_buf_str(&out, "  by components over heads only (objects reached through one "
                         "reference share their referrer's set): ");
        hp_buf_u64(&out, hp_ret_.scc_heads_censuses);
        hp_buf_str(&out, " of them\n");
        hp_buf_str(&out, "  with a helper thread (the walk's first step shared by two threads, "
                         "helper=");
        hp_buf_str(&out, hp_rt.cfg.walk_helper == HP_HELPER_YES  ? "yes"
                         : hp_rt.cfg.walk_helper == HP_HELPER_NO ? "no" : "auto");
        hp_buf_str(&out, "): ");
        hp_buf_u64(&out, hp_trace_scc_helper_walks());
        hp_buf_str(&out, " of them\n");
    }
    hp_buf_str(&out, "  pages found by page number: ");
    hp_buf_u64(&out, hp_trace_begun_mapped());
    hp_buf_str(&out, " of ");
    hp_buf_u64(&out, hp_trace_begun());
    hp_buf_str(&out, " traversals (the others hashed: the collector's heap spread over more than "
                     "64 times the pages it indexed); built by two threads: ");
    hp_buf_u64(&out, hp_trace_begun_two());
    hp_buf_str(&out, "\n");
    if (hp_rt.cfg.dominators) {
        if (dom_text.len) {
            hp_buf_str(&out, "\nRETAINED SIZES (dominators=yes: the dominator tree of the "
                             "census at ");
            hp_buf_fixed(&out, dom_time, 2);
            hp_buf_str(&out, " s, the one with the most bytes reached: ");
            hp_buf_u64(&out, dom_best);
            hp_buf_str(&out, " bytes in ");
            hp_buf_u64(&out, dom_objects);
            hp_buf_str(&out, " objects; every root, uncollectable object and retainer hangs "
                             "from one root; the objects of a cycle retain as one)\n");
            hp_buf_str(&out, "Cost: ");
            hp_buf_u64(&out, dom_trees);
            hp_buf_str(&out, dom_trees == 1 ? " tree, " : " trees, ");
            ms(&out, dom_ns_total);
            hp_buf_str(&out, " ms in all (traversals: ");
            ms(&out, hp_ret_.trace_ns_total);
            hp_buf_str(&out, " ms, collector marks: ");
            ms(&out, hp_ret_.mark_ns_total);
            hp_buf_str(&out, " ms); their arrays at most ");
            hp_buf_u64(&out, dom_mem_most);
            hp_buf_str(&out, " bytes (the most objects reached at a census: ");
            hp_buf_u64(&out, dom_reached_most);
            hp_buf_str(&out, ")\n\n");
            hp_buf_put(&out, hp_buf_cstr(&dom_text), dom_text.len);
        }
        else hp_buf_str(&out, "\nRETAINED SIZES (dominators=yes): no census walked the heap "
                              "by components\n");
    }
    hp_buf_write(&out, fd);
}
