/* hp_demangle_sigsafe: demangled names, kept once made (see hp_demangle.h).
 *
 * A table of (mangled text, form) -> demangled text, open addressing on a
 * hash of the text, in profiler memory; entries are never removed. The
 * demangled text is written by libiberty's callback demanglers
 * (rust_demangle_callback first: it accepts only Rust's legacy and v0
 * manglings, and not in a signal handler: it mallocs to decode punycode
 * identifiers; then cplus_demangle_v3_callback) into a fixed buffer. The
 * short form asks for no parameters and then replaces each outermost
 * template argument list by <...> (operator<, operator<<, operator> and
 * operator-> are not brackets, at any depth). */
#include "core/hp_demangle.h"
#include "core/hp_mem.h"

#include <demangle.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define HP_DEMANGLE_MAX 4096        /* longest mangled name demangled */
#define HP_DEMANGLE_MAX_SIGNAL 512  /* in a signal handler */
#define HP_DEMANGLE_OUT 8192        /* longest demangled text kept */

typedef struct entry { const char *mangled, *text; uint32_t hash; int form; } entry;

static hp_arena arena;
static hp_vec table_vec;
static entry *table;
static uint32_t cap, used;
static int ready, in_signal;
static _Atomic int busy;

void hp_demangle_set_signal_context(int v) { in_signal = v; }

typedef struct out { char buf[HP_DEMANGLE_OUT]; size_t n; int cut; } out;

static void put(const char *s, size_t len, void *opaque)
{
    out *o = opaque;
    if (o->n + len >= sizeof o->buf) {
        len = sizeof o->buf - 1 - o->n;
        o->cut = 1;
    }
    memcpy(o->buf + o->n, s, len);
    o->n += len;
}

static uint32_t hash_of(const char *s, int form)
{
    uint32_t h = 2166136261u ^ (uint32_t)form;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Each outermost <...> of a demangled name (without parameters) becomes
 * <...>, in place. */
static void shorten_templates(char *s)
{
    char *w = s;
    int depth = 0;
    for (const char *r = s; *r; r++) {
        if ((*r == '<' || *r == '>') &&
            ((r - s >= 8 && strncmp(r - 8, "operator", 8) == 0) ||
             (r - s >= 9 && strncmp(r - 9, "operator-", 9) == 0))) {
            /* operator< / operator<<= / operator>> / operator-> ...: not
             * brackets, at any depth (kept outside template arguments). */
            if (depth == 0) *w++ = *r;
            while (r[1] == '<' || r[1] == '>' || r[1] == '=') {
                r++;
                if (depth == 0) *w++ = *r;
            }
            continue;
        }
        if (*r == '<') {
            if (depth++ == 0) {
                memcpy(w, "<...", 4);
                w += 4;
            }
            continue;
        }
        if (*r == '>' && depth > 0) {
            if (--depth == 0) *w++ = '>';
            continue;
        }
        if (depth == 0) *w++ = *r;
    }
    *w = 0;
}

/* Demangle into o: 1, or 0 when `name` is not a mangling libiberty reads. */
static int demangle_into(const char *name, int form, out *o)
{
    int opts = DMGL_ANSI | (form == HP_DEMANGLE_FULL ? DMGL_PARAMS : 0);
    o->n = 0;
    o->cut = 0;
    if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R')) return 0;
    if (strnlen(name, HP_DEMANGLE_MAX + 1) > HP_DEMANGLE_MAX) return 0;
    /* (rust_demangle_callback mallocs to decode punycode identifiers:
     * not in a signal handler.) */
    if (in_signal || !rust_demangle_callback(name, opts, put, o)) {
        o->n = 0;
        if (!cplus_demangle_v3_callback(name, opts, put, o)) return 0;
    }
    o->buf[o->n] = 0;
    if (form == HP_DEMANGLE_SHORT) shorten_templates(o->buf);
    return o->n > 0;
}

static int grow(void)
{
    uint32_t ncap = cap ? cap * 2 : 4096;
    if (hp_vec_ensure(&table_vec, (size_t)ncap * 2 * sizeof(entry)) != 0) return -1;
    /* The new table after the old one, then moved down. */
    entry *old = (entry *)table_vec.base, *fresh = old + cap;
    memset(fresh, 0, (size_t)ncap * sizeof(entry));
    for (uint32_t i = 0; i < cap; i++) {
        if (!old[i].mangled) continue;
        uint32_t j = old[i].hash & (ncap - 1);
        while (fresh[j].mangled) j = (j + 1) & (ncap - 1);
        fresh[j] = old[i];
    }
    memmove(old, fresh, (size_t)ncap * sizeof(entry));
    table = old;
    cap = ncap;
    return 0;
}

static char *keep(const char *s)
{
    size_t n = strlen(s);
    char *d = hp_arena_alloc(&arena, n + 1);
    if (d) memcpy(d, s, n + 1);
    return d;
}

const char *hp_demangle(const char *name, int form)
{
    if (!name || name[0] != '_') return name;
    /* Too long to demangle on a signal handler's stack: as it is, and not
     * kept (a later call outside the handler demangles it). */
    if (in_signal && strnlen(name, HP_DEMANGLE_MAX_SIGNAL + 1) > HP_DEMANGLE_MAX_SIGNAL) return name;
    if (atomic_exchange_explicit(&busy, 1, memory_order_acquire)) return name;
    const char *result = name;
    if (!ready) {
        ready = hp_arena_init(&arena, (size_t)1 << 30) == 0 &&
                hp_vec_reserve(&table_vec, (size_t)1 << 31) == 0 ? 1 : -1;
    }
    if (ready != 1 || ((used + 1) * 2 > cap && grow() != 0)) goto done;
    uint32_t h = hash_of(name, form), j = h & (cap - 1);
    for (; table[j].mangled; j = (j + 1) & (cap - 1)) {
        if (table[j].hash == h && table[j].form == form && strcmp(table[j].mangled, name) == 0) {
            result = table[j].text;
            goto done;
        }
    }
    static out o;   /* 8 KiB: not on the stack (busy serialises its users) */
    const char *mangled = keep(name);
    const char *text = demangle_into(name, form, &o) ? keep(o.buf) : mangled;
    if (!mangled || !text) goto done;
    table[j] = (entry){mangled, text, h, form};
    used++;
    result = text;
done:
    atomic_store_explicit(&busy, 0, memory_order_release);
    return result;
}
