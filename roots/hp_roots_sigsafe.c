/* hp_roots_sigsafe: the profile by named roots, at a census (see
 * hp_roots.h): the bins (interned sets of roots), the traversal at
 * MARK_END (world stopped: no lock, no allocation), roots that die, the
 * census's labels and the .prof section (the SIGINT/SIGTERM finisher
 * reaches these too). */
#include "roots/hp_roots.h"
#include "roots/hp_roots_internal.h"
#include "retainer/hp_retainer.h"
#include "retainer/hp_rootrec.h"
#include "retainer/hp_trace.h"
#include "include/heapprof.h"
#include "core/hp_hash.h"
#include "core/hp_mem.h"
#include "core/hp_real.h"
#include "core/hp_rt.h"
#include "core/hp_buf.h"
#include "hp_writer/hp_names.h"

#include <pthread.h>
#include <string.h>


hp_roots_state hp_roots_;

double hp_roots_now(void) { return hp_profile_seconds(hp_mono_ns()); }

void hp_roots_event_line(double t, const char *what, const char *name)
{
    if (!hp_roots_.ready) return;
    hp_buf_fixed(&hp_roots_.events, t, 2);
    hp_buf_str(&hp_roots_.events, " s  ");
    hp_buf_str(&hp_roots_.events, what);
    if (name) hp_buf_str(&hp_roots_.events, name);
    hp_buf_chr(&hp_roots_.events, '\n');
}

/* ---- Bins: interned (generation, mask) pairs. Called at MARK_END (no
 * lock, no malloc: profiler memory only). ---- */

static hp_bin *bins(void) { return (hp_bin *)hp_roots_.bin_vec.base; }

/* The names of the roots in `mask`, in the order they were given. */
static const char *bin_text(uint64_t mask)
{
    size_t len = 0;
    int order[HP_ROOTS_MAX], n = 0;
    for (int i = 0; i < HP_ROOTS_MAX; i++)
        if ((mask >> i) & 1) order[n++] = i;
    for (int a = 1; a < n; a++)   /* insertion sort by seq: n <= 64 */
        for (int b = a; b > 0 && hp_roots_.roots[order[b]].seq < hp_roots_.roots[order[b - 1]].seq; b--) {
            int t = order[b]; order[b] = order[b - 1]; order[b - 1] = t;
        }
    for (int k = 0; k < n; k++) len += strlen(hp_roots_.roots[order[k]].name) + 1;
    char *s = hp_arena_alloc(&hp_roots_.text_arena, len + 1);
    if (!s) return "?";
    size_t at = 0;
    for (int k = 0; k < n; k++) {
        if (k) s[at++] = '-';
        size_t l = strlen(hp_roots_.roots[order[k]].name);
        memcpy(s + at, hp_roots_.roots[order[k]].name, l);
        at += l;
    }
    s[at] = 0;
    return s;
}

static uint64_t bin_hash_of(uint32_t i)
{
    return hp_mix64(bins()[i].mask ^ hp_mix64(bins()[i].gen));
}

static uint32_t bin_intern(uint64_t mask)
{
    uint64_t h = hp_mix64(mask ^ hp_mix64(hp_roots_.generation));
    uint32_t *t = hp_idindex_room(&hp_roots_.bin_index, hp_roots_.nbins, 0, bin_hash_of);
    if (!t) return UINT32_MAX;
    uint32_t j = (uint32_t)h & (hp_roots_.bin_index.cap - 1);
    for (; t[j]; j = (j + 1) & (hp_roots_.bin_index.cap - 1)) {
        const hp_bin *b = &bins()[t[j] - 1];
        if (b->mask == mask && b->gen == hp_roots_.generation) return t[j] - 1;
    }
    if (hp_vec_ensure(&hp_roots_.bin_vec, (size_t)(hp_roots_.nbins + 1) * sizeof(hp_bin))) return UINT32_MAX;
    hp_bin *b = &bins()[hp_roots_.nbins];
    b->mask = mask;
    b->gen = hp_roots_.generation;
    b->text = bin_text(mask);
    b->label = 0;
    t[j] = hp_roots_.nbins + 1;
    return hp_roots_.nbins++;
}

/* ---- MARK_END: world stopped, lock held. ---- */

static int roots_visit(uint32_t *label, int valid, const hp_rec *rec, uint64_t in,
                       uint64_t *out)
{
    (void)rec;
    uint64_t old = valid && *label < hp_roots_.nbins ? bins()[*label].mask : 0;
    uint64_t now = old | in;
    if (now == old) return 0;
    uint32_t b = bin_intern(now);
    if (b == UINT32_MAX) return 0;
    *label = b;
    *out = now & ~old;
    return 1;
}

void hp_roots_traverse(uint64_t mark_ns)
{
    uint64_t t0 = hp_mono_ns();
    hp_roots_.traversed = 0;
    /* No live named root: every live byte is NOROOT (or left out), and
     * the heap is not walked (unless noroot=retainers asks what holds it). */
    int live_roots = 0;
    for (int i = 0; i < HP_ROOTS_MAX; i++) live_roots |= hp_roots_.roots[i].base != 0;
    hp_roots_.no_roots = !live_roots;
    if (!live_roots && hp_rt.cfg.noroot != HP_NOROOT_RETAINERS) return;
    hp_trace_set_merge(1);
    if (hp_trace_begin(roots_visit) != 0) return;
    /* Every root's bit first, then one breadth-first walk that carries
     * bits together where reaches overlap. */
    for (int i = 0; i < HP_ROOTS_MAX; i++) {
        uintptr_t b = hp_roots_.roots[i].base;
        /* Not marked: dead, unless only a finalizable object holds it (then
         * the collector marks it later); it contributes nothing this time. */
        if (!b || !hp_real.GC_base((void *)b) || !hp_real.GC_is_marked((void *)b)) continue;
        hp_trace_object(b, (uint64_t)1 << i);
    }
    hp_trace_run();
    size_t indexed;
    hp_roots_.tstats = hp_trace_end(&indexed);
    hp_roots_.traversed = 1;
    uint64_t t1 = hp_mono_ns();
    hp_roots_.mark_ns_last = mark_ns;
    hp_roots_.trace_ns_last = t1 - t0;
    hp_rt_exclude(t1 - t0);
    /* noroot=retainers: the rest, by retainer set (timed on its own, in
     * the RETAINER CENSUSES lines). */
    if (hp_rt.cfg.noroot == HP_NOROOT_RETAINERS) hp_retainer_traverse_rest(mark_ns);
}

void hp_roots_mark_end(void)
{
    if (hp_rt.cfg.noroot == HP_NOROOT_RETAINERS) hp_rootrec_reset();
}
/* ---- end of MARK_END code ---- */

void hp_roots_drop(int i, double t, const char *why)
{
    hp_roots_event_line(t, why, hp_roots_.roots[i].name);
    hp_roots_.roots[i].base = 0;
    hp_roots_.generation++;
}

void hp_roots_check_alive(double now)
{
    for (int i = 0; i < HP_ROOTS_MAX; i++) {
        uintptr_t b = hp_roots_.roots[i].base;
        if (b && !(hp_real.GC_base((void *)b) && hp_real.GC_is_marked((void *)b)))
            hp_roots_drop(i, now, "died (unreachable at a collection): ");
    }
}

void hp_roots_note_free(uintptr_t base)
{
    for (int i = 0; i < HP_ROOTS_MAX; i++)
        if (hp_roots_.roots[i].base && hp_roots_.roots[i].base == base)
            hp_roots_drop(i, hp_roots_now(), "died (freed with GC_free): ");
}

uint32_t hp_roots_label_of(hp_rec *r, size_t idx)
{
    if (hp_roots_.traversed && hp_trace_valid(r->word, hp_trace_parity())) {
        uint32_t id = r->word & HP_TRACE_LABEL_MASK;
        if (id < hp_roots_.nbins) {
            hp_bin *b = &bins()[id];
            if (!b->label) b->label = hp_names_intern_label(b->text) + 1;
            if (!hp_vec_ensure(&hp_roots_.bin_bytes_vec, (size_t)(id + 1) * 8)) {
                uint64_t *bb = &((uint64_t *)hp_roots_.bin_bytes_vec.base)[id];
                if (!*bb) hp_roots_.bins_this_census++;
                *bb += r->granted;
            }
            hp_roots_.reached_bytes += r->granted;
            return b->label - 1;
        }
    }
    hp_roots_.noroot_bytes += r->granted;
    if (hp_rt.cfg.noroot == HP_NOROOT_NO) return UINT32_MAX;
    if (hp_rt.cfg.noroot == HP_NOROOT_RETAINERS && hp_roots_.traversed) {
        uint32_t l = hp_retainer_noroot_label(r, idx);
        if (l != UINT32_MAX) return l;
    }
    if (!hp_roots_.noroot_label) hp_roots_.noroot_label = hp_names_intern_label("NOROOT") + 1;
    return hp_roots_.noroot_label - 1;
}

void hp_roots_census_done(double t)
{
    hp_buf *b = &hp_roots_.census_lines;
    hp_buf_fixed(b, t, 2);
    hp_buf_str(b, "  ");
    if (hp_roots_.traversed) {
        hp_buf_fixed(b, (double)hp_roots_.trace_ns_last / 1e6, 2);
        hp_buf_str(b, "  ");
        hp_buf_fixed(b, (double)hp_roots_.mark_ns_last / 1e6, 2);
        hp_buf_str(b, "  ");
        hp_buf_fixed(b, hp_roots_.mark_ns_last ? (double)hp_roots_.trace_ns_last / (double)hp_roots_.mark_ns_last : 0, 2);
        hp_buf_str(b, "  ");
        hp_buf_u64(b, hp_roots_.tstats.objects);
        hp_buf_str(b, "  ");
        hp_buf_u64(b, hp_roots_.bins_this_census);
        hp_buf_str(b, "  ");
        hp_buf_u64(b, hp_roots_.reached_bytes);
        hp_buf_str(b, "  ");
        hp_buf_u64(b, hp_roots_.noroot_bytes);
    } else if (hp_roots_.no_roots) {
        hp_buf_str(b, "no traversal (no named root is alive): every live byte reached by "
                      "no named root");
    } else {
        hp_buf_str(b, "no traversal (");
        hp_buf_str(b, hp_rt.census_no_collection_why ? hp_rt.census_no_collection_why
                                                      : "no collection could be run");
        hp_buf_chr(b, ')');
    }
    hp_buf_chr(b, '\n');
    if (hp_rt.cfg.noroot == HP_NOROOT_RETAINERS) hp_retainer_census_done(t);
    if (hp_roots_.bin_bytes_vec.base) memset(hp_roots_.bin_bytes_vec.base, 0, hp_roots_.bin_bytes_vec.committed);
    hp_roots_.reached_bytes = hp_roots_.noroot_bytes = 0;
    hp_roots_.bins_this_census = 0;
    hp_roots_.traversed = 0;
}

void hp_roots_postfork_child(void)
{
    hp_buf_reset(&hp_roots_.census_lines);
    if (hp_rt.cfg.noroot == HP_NOROOT_RETAINERS) hp_retainer_postfork_child();
}

void hp_roots_warnings(hp_buf *out)
{
    if (hp_roots_.events.len) return;
    hp_buf_str(out, "warning: the program named no roots (heapprof_set_roots, "
                    "include/heapprof.h): a named-roots profile (mode roots, -ho) has no band "
                    "of a named root; ");
    hp_buf_str(out, hp_rt.cfg.noroot == HP_NOROOT_NO
                        ? "what no named root reaches is left out (noroot=no), so the bands "
                          "are empty"
                        : "every live byte is in NOROOT");
    hp_buf_str(out, "; for who holds the heap without naming roots, use the retainer "
                    "profile (mode retainer, -hr)\n");
}

void hp_roots_write_prof(int fd)
{
    hp_buf out;
    if (hp_buf_init(&out, (size_t)1 << 32)) return;
    hp_buf_str(&out, "\nNAMED ROOTS (heapprof_set_roots and friends; times are profile seconds)\n\n");
    if (hp_roots_.events.len) hp_buf_put(&out, (const char *)hp_roots_.events.vec.base, hp_roots_.events.len);
    else hp_buf_str(&out, "(the program named no roots)\n");
    hp_buf_str(&out, "\nROOT CENSUSES (time s, traversal ms, collector mark ms, ratio, objects "
                     "reached, bins, bytes reached, bytes reached by no named root)\n\n");
    hp_buf_put(&out, (const char *)hp_roots_.census_lines.vec.base, hp_roots_.census_lines.len);
    if (hp_rt.cfg.noroot == HP_NOROOT_RETAINERS)
        hp_buf_str(&out, "\nWhat no named root reached, by retainer set (noroot=retainers): "
                         "the retainer profile's sections below count those bytes only.\n");
    hp_buf_write(&out, fd);
    if (hp_rt.cfg.noroot == HP_NOROOT_RETAINERS) hp_retainer_write_prof(fd);
}

