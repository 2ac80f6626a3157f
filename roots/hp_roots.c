/* hp_roots: the profile by user-named roots (see hp_roots.h), and the
 * functions include/heapprof.h reaches at run time. */
#include "roots/hp_roots.h"
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


typedef struct hp_root {
    char name[HP_ROOT_NAME_MAX];
    uintptr_t base;          /* 0: slot free */
    uint64_t seq;            /* order in which the program gave it */
} hp_root;


typedef struct hp_bin {
    uint64_t mask;           /* root slots reaching the objects */
    uint64_t gen;            /* root-table generation the mask refers to */
    const char *text;        /* names joined with '-' */
    uint32_t label;          /* label id + 1, 0 = not made yet */
    uint32_t pad;
} hp_bin;

static hp_root roots[HP_ROOTS_MAX];   /* profiler data: never scanned, so weak */
static uint64_t next_seq, generation;
static hp_vec bin_vec;                /* hp_bin[] */
static hp_idindex bin_index;
static uint32_t nbins;
static hp_arena text_arena;
static hp_buf events, census_lines;
static hp_vec bin_bytes_vec;          /* uint64_t per bin this census */
static int traversed, ready;
static uint64_t mark_ns_last, trace_ns_last;
static hp_trace_stats tstats;
static uint64_t reached_bytes, noroot_bytes;
static uint32_t bins_this_census;
static uint32_t noroot_label;         /* label id + 1 */

int hp_roots_init(void)
{
    if (hp_vec_reserve(&bin_vec, (size_t)1 << 34) || hp_vec_reserve(&bin_index.vec, (size_t)1 << 32) ||
        hp_arena_init(&text_arena, (size_t)1 << 34) || hp_buf_init(&events, (size_t)1 << 30) ||
        hp_buf_init(&census_lines, (size_t)1 << 32) || hp_vec_reserve(&bin_bytes_vec, (size_t)1 << 34))
        return -1;
    ready = 1;
    return 0;
}

static double now_seconds(void) { return hp_profile_seconds(hp_mono_ns()); }

static void event_line(double t, const char *what, const char *name)
{
    if (!ready) return;
    hp_buf_fixed(&events, t, 2);
    hp_buf_str(&events, " s  ");
    hp_buf_str(&events, what);
    if (name) hp_buf_str(&events, name);
    hp_buf_chr(&events, '\n');
}

/* ---- Bins: interned (generation, mask) pairs. Called at MARK_END (no
 * lock, no malloc: profiler memory only). ---- */

static hp_bin *bins(void) { return (hp_bin *)bin_vec.base; }

/* The names of the roots in `mask`, in the order they were given. */
static const char *bin_text(uint64_t mask)
{
    size_t len = 0;
    int order[HP_ROOTS_MAX], n = 0;
    for (int i = 0; i < HP_ROOTS_MAX; i++)
        if ((mask >> i) & 1) order[n++] = i;
    for (int a = 1; a < n; a++)   /* insertion sort by seq: n <= 64 */
        for (int b = a; b > 0 && roots[order[b]].seq < roots[order[b - 1]].seq; b--) {
            int t = order[b]; order[b] = order[b - 1]; order[b - 1] = t;
        }
    for (int k = 0; k < n; k++) len += strlen(roots[order[k]].name) + 1;
    char *s = hp_arena_alloc(&text_arena, len + 1);
    if (!s) return "?";
    size_t at = 0;
    for (int k = 0; k < n; k++) {
        if (k) s[at++] = '-';
        size_t l = strlen(roots[order[k]].name);
        memcpy(s + at, roots[order[k]].name, l);
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
    uint64_t h = hp_mix64(mask ^ hp_mix64(generation));
    uint32_t *t = hp_idindex_room(&bin_index, nbins, 0, bin_hash_of);
    if (!t) return UINT32_MAX;
    uint32_t j = (uint32_t)h & (bin_index.cap - 1);
    for (; t[j]; j = (j + 1) & (bin_index.cap - 1)) {
        const hp_bin *b = &bins()[t[j] - 1];
        if (b->mask == mask && b->gen == generation) return t[j] - 1;
    }
    if (hp_vec_ensure(&bin_vec, (size_t)(nbins + 1) * sizeof(hp_bin))) return UINT32_MAX;
    hp_bin *b = &bins()[nbins];
    b->mask = mask;
    b->gen = generation;
    b->text = bin_text(mask);
    b->label = 0;
    t[j] = nbins + 1;
    return nbins++;
}

/* ---- MARK_END: world stopped, lock held. ---- */

static int roots_visit(uint32_t *label, int valid, const hp_rec *rec, uint64_t in,
                       uint64_t *out)
{
    (void)rec;
    uint64_t old = valid && *label < nbins ? bins()[*label].mask : 0;
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
    traversed = 0;
    hp_trace_set_merge(1);
    if (hp_trace_begin(roots_visit) != 0) return;
    /* Every root's bit first, then one breadth-first walk that carries
     * bits together where reaches overlap. */
    for (int i = 0; i < HP_ROOTS_MAX; i++) {
        uintptr_t b = roots[i].base;
        /* Not marked: dead, unless only a finalizable object holds it (then
         * the collector marks it later); it contributes nothing this time. */
        if (!b || !hp_real.GC_base((void *)b) || !hp_real.GC_is_marked((void *)b)) continue;
        hp_trace_object(b, (uint64_t)1 << i);
    }
    hp_trace_run();
    size_t indexed;
    tstats = hp_trace_end(&indexed);
    traversed = 1;
    uint64_t t1 = hp_mono_ns();
    mark_ns_last = mark_ns;
    trace_ns_last = t1 - t0;
    hp_rt_exclude(t1 - t0);
}
/* ---- end of MARK_END code ---- */

static void drop(int i, double t, const char *why)
{
    event_line(t, why, roots[i].name);
    roots[i].base = 0;
    generation++;
}

void hp_roots_check_alive(double now)
{
    for (int i = 0; i < HP_ROOTS_MAX; i++) {
        uintptr_t b = roots[i].base;
        if (b && !(hp_real.GC_base((void *)b) && hp_real.GC_is_marked((void *)b)))
            drop(i, now, "died (unreachable at a collection): ");
    }
}

void hp_roots_note_free(uintptr_t base)
{
    for (int i = 0; i < HP_ROOTS_MAX; i++)
        if (roots[i].base && roots[i].base == base)
            drop(i, now_seconds(), "died (freed with GC_free): ");
}

uint32_t hp_roots_label_of(hp_rec *r)
{
    if (traversed && hp_trace_valid(r->word, hp_trace_parity())) {
        uint32_t id = r->word & HP_TRACE_LABEL_MASK;
        if (id < nbins) {
            hp_bin *b = &bins()[id];
            if (!b->label) b->label = hp_names_intern_label(b->text) + 1;
            if (!hp_vec_ensure(&bin_bytes_vec, (size_t)(id + 1) * 8)) {
                uint64_t *bb = &((uint64_t *)bin_bytes_vec.base)[id];
                if (!*bb) bins_this_census++;
                *bb += r->granted;
            }
            reached_bytes += r->granted;
            return b->label - 1;
        }
    }
    noroot_bytes += r->granted;
    if (!hp_rt.cfg.noroot) return UINT32_MAX;
    if (!noroot_label) noroot_label = hp_names_intern_label("NOROOT") + 1;
    return noroot_label - 1;
}

void hp_roots_census_done(double t)
{
    hp_buf *b = &census_lines;
    hp_buf_fixed(b, t, 2);
    hp_buf_str(b, "  ");
    if (traversed) {
        hp_buf_fixed(b, (double)trace_ns_last / 1e6, 2);
        hp_buf_str(b, "  ");
        hp_buf_fixed(b, (double)mark_ns_last / 1e6, 2);
        hp_buf_str(b, "  ");
        hp_buf_fixed(b, mark_ns_last ? (double)trace_ns_last / (double)mark_ns_last : 0, 2);
        hp_buf_str(b, "  ");
        hp_buf_u64(b, tstats.objects);
        hp_buf_str(b, "  ");
        hp_buf_u64(b, bins_this_census);
        hp_buf_str(b, "  ");
        hp_buf_u64(b, reached_bytes);
        hp_buf_str(b, "  ");
        hp_buf_u64(b, noroot_bytes);
    } else {
        hp_buf_str(b, "no traversal (no collection could be run)");
    }
    hp_buf_chr(b, '\n');
    if (bin_bytes_vec.base) memset(bin_bytes_vec.base, 0, bin_bytes_vec.committed);
    reached_bytes = noroot_bytes = 0;
    bins_this_census = 0;
    traversed = 0;
}

void hp_roots_write_prof(int fd)
{
    hp_buf out;
    if (hp_buf_init(&out, (size_t)1 << 32)) return;
    hp_buf_str(&out, "\nNAMED ROOTS (heapprof_set_roots and friends; times are profile seconds)\n\n");
    if (events.len) hp_buf_put(&out, (const char *)events.vec.base, events.len);
    else hp_buf_str(&out, "(the program named no roots)\n");
    hp_buf_str(&out, "\nROOT CENSUSES (time s, traversal ms, collector mark ms, ratio, objects "
                     "reached, bins, bytes reached, bytes reached by no named root)\n\n");
    hp_buf_put(&out, (const char *)census_lines.vec.base, census_lines.len);
    hp_buf_write(&out, fd);
}

/* ---- The public API (program threads). Changes are made under the
 * collector's lock; messages are written before taking it. ---- */

static const char *const reserved[] = {"JOB", "DATE", "SAMPLE_UNIT", "VALUE_UNIT", "MARK",
                                       "BEGIN_SAMPLE", "END_SAMPLE", "NOROOT", "MANY"};

static int complain(int code, const char *fn, const char *what, const char *name)
{
    char msg[1024];
    size_t at = 0;
    const char *parts[] = {"heapprof: ", fn, ": ", what, name ? " '" : "",
                           name ? name : "", name ? "'" : ""};
    for (size_t k = 0; k < sizeof parts / sizeof *parts; k++) {
        size_t l = strnlen(parts[k], 400);
        if (at + l >= sizeof msg - 1) break;
        memcpy(msg + at, parts[k], l);
        at += l;
    }
    msg[at] = 0;
    hp_say(msg);
    return code;
}

static int check_name(const char *fn, const char *name)
{
    if (!name) return complain(HEAPPROF_EINVAL, fn, "a root's name is NULL; give every root "
                               "a name (letters, digits, _ . : +)", NULL);
    size_t n = strnlen(name, HP_ROOT_NAME_MAX);
    if (n == 0 || n >= HP_ROOT_NAME_MAX)
        return complain(HEAPPROF_EINVAL, fn, "a root's name must have 1 to 63 characters; got",
                        n ? "(a longer name)" : "");
    int ok = !(name[0] >= '0' && name[0] <= '9');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c <= ' ' || c >= 127 || c == '"' || c == '-' || c == '(' || c == ')' || c == ',')
            ok = 0;
    }
    for (size_t k = 0; k < sizeof reserved / sizeof *reserved; k++)
        if (strcmp(name, reserved[k]) == 0) ok = 0;
    if (!ok)
        return complain(HEAPPROF_EINVAL, fn,
                        "a root's name must be printable without blanks, not start with a "
                        "digit, and hold none of - \" ( ) , (bands join names with '-'); not "
                        "a reserved word; rename", name);
    return HEAPPROF_OK;
}

static int check_ptr(const char *fn, const char *name, const void *p, uintptr_t *base)
{
    void *b = p && hp_real.GC_base ? hp_real.GC_base((void *)p) : NULL;
    if (!b)
        return complain(HEAPPROF_ENOTGC, fn, "the pointer given for root is not an object of "
                        "the collector's heap (allocate it with GC_malloc, or pass the "
                        "object's address); root", name);
    *base = (uintptr_t)b;
    return HEAPPROF_OK;
}

typedef struct change { int op; size_t n; hp_root items[HP_ROOTS_MAX]; int result; } change;
enum { OP_SET, OP_ADD, OP_REMOVE, OP_CLEAR };

static void *apply(void *arg)
{
    change *c = arg;
    double t = now_seconds();
    c->result = HEAPPROF_OK;
    if (c->op == OP_SET || c->op == OP_CLEAR) {
        memset(roots, 0, sizeof roots);
        generation++;
        for (size_t i = 0; i < c->n; i++) {
            roots[i] = c->items[i];
            roots[i].seq = next_seq++;
        }
        if (ready) {
            hp_buf_fixed(&events, t, 2);
            hp_buf_str(&events, c->op == OP_CLEAR ? " s  cleared" : " s  set:");
            for (size_t i = 0; i < c->n; i++) {
                hp_buf_str(&events, i ? ", " : " ");
                hp_buf_str(&events, roots[i].name);
            }
            hp_buf_chr(&events, '\n');
        }
    } else if (c->op == OP_ADD) {
        int free_slot = -1;
        for (int i = 0; i < HP_ROOTS_MAX; i++) {
            if (roots[i].base && strcmp(roots[i].name, c->items[0].name) == 0) {
                c->result = HEAPPROF_EEXIST;
                return NULL;
            }
            if (!roots[i].base && free_slot < 0) free_slot = i;
        }
        if (free_slot < 0) {
            c->result = HEAPPROF_ENOSPC;
            return NULL;
        }
        roots[free_slot] = c->items[0];
        roots[free_slot].seq = next_seq++;
        generation++;
        event_line(t, "added: ", roots[free_slot].name);
    } else {
        for (int i = 0; i < HP_ROOTS_MAX; i++)
            if (roots[i].base && strcmp(roots[i].name, c->items[0].name) == 0) {
                drop(i, t, "removed: ");
                return NULL;
            }
        c->result = HEAPPROF_ENOENT;
    }
    return NULL;
}

static int run_change(change *c)
{
    if (!atomic_load(&hp_rt.attached)) return HEAPPROF_OK;   /* no libgc: nothing to profile */
    hp_real.GC_call_with_alloc_lock(apply, c);
    return c->result;
}

int hp_roots_set(const heapprof_root *given, size_t n)
{
    static const char fn[] = "heapprof_set_roots";
    if (n > HP_ROOTS_MAX) {
        char num[32];
        size_t k = 0;
        char tmp[24];
        size_t v = n;
        do { tmp[k++] = (char)('0' + v % 10); v /= 10; } while (v && k < sizeof tmp);
        for (size_t i = 0; i < k; i++) num[i] = tmp[k - 1 - i];
        num[k] = 0;
        return complain(HEAPPROF_ENOSPC, fn, "at most 64 named roots; got", num);
    }
    if (n && !given) return complain(HEAPPROF_EINVAL, fn, "the roots array is NULL", NULL);
    static change c;   /* serialised by set_lock below */
    static pthread_mutex_t set_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&set_lock);
    memset(&c, 0, sizeof c);
    int rc = HEAPPROF_OK;
    for (size_t i = 0; i < n && rc == HEAPPROF_OK; i++) {
        rc = check_name(fn, given[i].name);
        if (rc == HEAPPROF_OK)
            for (size_t j = 0; j < i; j++)
                if (strcmp(given[j].name, given[i].name) == 0)
                    rc = complain(HEAPPROF_EEXIST, fn, "two roots have the same name; names "
                                  "must be unique:", given[i].name);
        if (rc == HEAPPROF_OK) rc = check_ptr(fn, given[i].name, given[i].ptr, &c.items[i].base);
        if (rc == HEAPPROF_OK) strcpy(c.items[i].name, given[i].name);
    }
    if (rc == HEAPPROF_OK) {
        c.op = OP_SET;
        c.n = n;
        rc = run_change(&c);
    }
    pthread_mutex_unlock(&set_lock);
    return rc;
}

/* heapprof_add_root and heapprof_remove_root: one named root. */
static int one_root(const char *fn, int op, const char *name, const void *ptr)
{
    change c;
    memset(&c, 0, sizeof c);
    int rc = check_name(fn, name);
    if (rc == HEAPPROF_OK && op == OP_ADD) rc = check_ptr(fn, name, ptr, &c.items[0].base);
    if (rc != HEAPPROF_OK) return rc;
    strcpy(c.items[0].name, name);
    c.op = op;
    rc = run_change(&c);
    if (rc == HEAPPROF_EEXIST)
        complain(rc, fn, "a root of this name exists already (remove it first, or use "
                 "heapprof_set_roots to replace all):", name);
    if (rc == HEAPPROF_ENOSPC)
        complain(rc, fn, "64 roots are named already (the most there can be); not added:", name);
    if (rc == HEAPPROF_ENOENT)
        complain(rc, fn, "no root of this name (it was never added, was removed, or its "
                 "object died):", name);
    return rc;
}

int hp_roots_add(const char *name, const void *ptr)
{
    return one_root("heapprof_add_root", OP_ADD, name, ptr);
}

int hp_roots_remove(const char *name)
{
    return one_root("heapprof_remove_root", OP_REMOVE, name, NULL);
}

int hp_roots_clear(void)
{
    change c;
    memset(&c, 0, sizeof c);
    c.op = OP_CLEAR;
    return run_change(&c);
}
