/* hp_retainer_label_sigsafe: the short form of a retainer named by a call
 * stack (roots:, pushed:, uncoll:), for .hp labels that would be cut.
 *
 * A band's label is "(id)member,member" cut to length= (GHC -L, 25 by
 * default). A retainer named by a stack is the whole stack's name,
 * innermost first, so when the label is cut only the innermost frames are
 * left, and those are what the stacks of one kind share most: every range
 * Guile's loader registers starts "libguile-3.0.so.1+0x78510/...", every
 * uncollectable node of Inkscape's XML tree
 * "Inkscape::XML::CompositeNodeObserver::add/...". Cut, such bands differed
 * only by their number.
 *
 * The short form says first what tells the stack apart:
 *
 *     kind:INNER..THEN
 *
 * THEN is the first named function at or after the frame where this
 * stack parts from the stack of the same kind that shares most innermost
 * frames with it (its nearest neighbour), or the stack's own last frame
 * when it is a prefix of another; "..": frames left out. Guile's four
 * loader stacks are roots:..scm_call_n, roots:..scm_primitive_load_path,
 * roots:..scm_load_startup_files and roots:..scm_with_guile. INNER, the
 * innermost frame's function, is there only when another stack of the
 * kind has the same THEN (Inkscape's uncoll:add..build_from_mem and
 * uncoll:_new_anchor..build_from_mem), and not when that frame has no
 * name (a stripped module's function, JIT code). A function is shown by
 * its last name component ("add", not "Inkscape::XML::
 * CompositeNodeObserver::add"; THEN by its last two, "Svg::init"), a
 * library's reserved member by its class ("vector").
 *
 * A stack that shares not even its innermost frame with another of its
 * kind keeps its whole name (its innermost frame already tells it apart).
 * The form is made once per retainer, from the stacks of its kind known
 * then, so a band keeps its label for the whole run; the .prof's RETAINER
 * SETS always gives the whole names.
 *
 * (texts and offsets are reservations: what they hold never moves.)
 *
 * Reached from the census (world running, collector's lock held) and the
 * signal finisher: no lock, no malloc. */
#include "retainer/hp_retainer_internal.h"
#include "core/hp_rt.h"
#include "core/hp_symbols.h"
#include "core/hp_ccnames.h"
#include "core/hp_demangle.h"
#include "hp_writer/hp_names.h"

#include <string.h>

static hp_buf texts;        /* the short forms, NUL-separated */
static hp_vec offsets;      /* uint32_t[ident][2]: a form's offset in texts + 1, 0 = not made */
static hp_buf keys;         /* uintptr_t frame keys of the idents' names */
static hp_vec keys_at;      /* uint32_t[ident][2]: first key + 1, count */
static int texts_ready;

#define LABEL_FRAMES 128

/* A frame as the stack's name shows it (hp_names_frames): its short
 * function name and whether it has one (an explicit cost centre, or a
 * function with a symbol; not a stripped module's function, not [jit]). */
static int frame_name(const hp_name_frame *f, const char **name, hp_sym_info *si)
{
    memset(si, 0, sizeof *si);
    *name = NULL;
    if (f->pc == 0) {   /* an explicit cost centre, or [jit] */
        if (!f->jit) *name = f->name;
        return !f->jit;
    }
    *si = hp_symbols_lookup(hp_rt.cfg.frames_by_call ? f->pc - 1 : f->pc);
    if (si->function && !si->synthesized) {
        *name = hp_demangle(si->function, HP_DEMANGLE_SHORT);
        return 1;
    }
    return 0;
}
/* The last component of a qualified name: "add" of "Inkscape::XML::
 * CompositeNodeObserver::add" (separators inside template arguments do not
 * count); with `two`, the last two ("Svg::init", which "init" alone does
 * not tell from "Svgz::init"). A library's reserved member name says
 * nothing to a user: for "std::vector<...>::_M_realloc_insert<...>" it is
 * the class, "vector". */
static void last_component(hp_buf *b, const char *name, int two)
{
    const char *last = name, *prev = NULL;
    int depth = 0;
    for (const char *p = name; *p; p++) {
        if (*p == '<' || *p == '(') depth++;
        else if ((*p == '>' || *p == ')') && depth > 0) depth--;
        else if (depth == 0 && p[0] == ':' && p[1] == ':') {
            prev = last;
            last = p + 2;
        }
    }
    if (!*last) last = name;
    if (two && prev && last[0] != '_') last = prev;
    else if (last[0] == '_' && prev && prev != last) {
        size_t n = strcspn(prev, "<:");
        hp_buf_put(b, prev, n);
        return;
    }
    hp_buf_str(b, last);
}

/* An unnamed frame as "module+0xADDRESS" (the address in the module's
 * file), the module named as labels show it ("guile-3.0"), or [jit]. */
static void unnamed_frame(hp_buf *b, const hp_name_frame *f, const hp_sym_info *si)
{
    if (f->pc == 0 || !si->module) {
        hp_buf_str(b, f->jit ? "[jit]" : "?");
        return;
    }
    const char *m = si->module;
    if (strncmp(m, "lib", 3) == 0 && m[3]) m += 3;
    const char *so = strstr(m, ".so");
    hp_buf_put(b, m, so ? (size_t)(so - m) : strlen(m));
    hp_buf_str(b, "+0x");
    hp_buf_hex(b, (si->function ? si->start : f->pc) - si->bias);
}

/* The frames of ident id's name as keys to compare (code addresses; an
 * explicit cost centre or [jit] by its name's address), made once. */
static const uintptr_t *frame_keys(uint32_t id, uint32_t *n)
{
    if (hp_vec_ensure(&keys_at, ((size_t)id + 1) * 2 * sizeof(uint32_t)) != 0) return NULL;
    uint32_t *at = &((uint32_t *)keys_at.base)[(size_t)id * 2];
    if (!at[0]) {
        hp_name_frame fr[LABEL_FRAMES];
        uint32_t full = hp_names_full_of((uint32_t)hp_ret_idents()[id].key);
        int k = hp_names_frames(full, fr, LABEL_FRAMES);
        size_t first = keys.len / sizeof(uintptr_t);
        for (int i = 0; i < k; i++) {
            uintptr_t key = fr[i].pc ? fr[i].pc : (uintptr_t)fr[i].name;
            hp_buf_put(&keys, (const char *)&key, sizeof key);
        }
        if (keys.failed) return NULL;
        at[0] = (uint32_t)first + 1;
        at[1] = (uint32_t)k;
    }
    *n = at[1];
    return (const uintptr_t *)keys.vec.base + at[0] - 1;
}

/* The short form of ident `id` (a stack-named kind) into b, prefixed by
 * `kind` ("roots:"), with its innermost function when `inner`; 0, or -1
 * when the stack keeps its whole name. */
static int make_short(hp_buf *b, uint32_t id, const char *kind, int inner)
{
    const hp_ident *all = hp_ret_idents();
    uint32_t n;
    const uintptr_t *mine = frame_keys(id, &n);
    if (!mine || n == 0) return -1;
    uint32_t near = 0;   /* frames shared with the nearest neighbour */
    for (uint32_t j = 0; j < hp_ret_.nidents; j++) {
        if (j == id || all[j].kind != all[id].kind) continue;
        uint32_t m;
        const uintptr_t *other = frame_keys(j, &m);
        if (!other) continue;
        uint32_t k = 0;
        while (k < n && k < m && mine[k] == other[k]) k++;
        if (k > near) near = k;
    }
    if (near == 0) return -1;
    hp_name_frame fr[LABEL_FRAMES];
    int k = hp_names_frames(hp_names_full_of((uint32_t)all[id].key), fr, LABEL_FRAMES);
    if (k <= 0) return -1;
    n = (uint32_t)k;
    hp_buf_str(b, kind);
    const char *name;
    hp_sym_info si;
    if (inner && frame_name(&fr[0], &name, &si)) last_component(b, name, 0);
    hp_buf_str(b, "..");
    /* THEN: the first named frame from where the stack parts (its last
     * frame when it is a prefix of its neighbour, or the same stack). */
    uint32_t from = near < n ? near : n - 1;
    if (from == 0) from = n > 1 ? 1 : 0;
    for (uint32_t i = from; i < n; i++)
        if (frame_name(&fr[i], &name, &si)) {
            last_component(b, name, 1);
            return 0;
        }
    /* No named frame there: the frame where it parts, as module+0x... */
    frame_name(&fr[from], &name, &si);
    unnamed_frame(b, &fr[from], &si);
    return 0;
}

/* A form of ident `id`, made once: form 0 without its innermost function
 * (or its whole name), form 1 the one labels use. */
static const char *form_of(uint32_t id, const char *kind, int form)
{
    if (hp_vec_ensure(&offsets, ((size_t)id + 1) * 2 * sizeof(uint32_t)) != 0) return NULL;
    uint32_t *off = &((uint32_t *)offsets.base)[(size_t)id * 2 + (size_t)form];
    if (!*off) {
        const char *bare = form ? form_of(id, kind, 0) : NULL;
        int inner = 0;
        if (form) {
            /* The innermost function too when another of its kind has
             * the same form without it ("_new_anchor..build_from_mem"
             * and "add..build_from_mem"). */
            if (!bare) return NULL;
            const hp_ident *all = hp_ret_idents();
            for (uint32_t j = 0; j < hp_ret_.nidents && !inner; j++) {
                if (j == id || all[j].kind != all[id].kind) continue;
                const char *other = form_of(j, kind, 0);
                inner = other && bare && strcmp(other, bare) == 0;
            }
        }
        size_t at = texts.len;
        if (make_short(&texts, id, kind, inner) != 0) {
            texts.len = at;
            hp_buf_str(&texts, kind);
            hp_buf_str(&texts, hp_names_short((uint32_t)hp_ret_idents()[id].key));
        }
        hp_buf_chr(&texts, 0);
        if (texts.failed) return NULL;
        *off = (uint32_t)at + 1;
    }
    return (const char *)texts.vec.base + *off - 1;
}

void hp_ret_short_ident(hp_buf *b, uint32_t id, const char *kind)
{
    if (!texts_ready) {
        if (hp_buf_init(&texts, (size_t)1 << 24) != 0 ||
            hp_buf_init(&keys, (size_t)1 << 28) != 0 ||
            hp_vec_reserve(&offsets, (size_t)1 << 30) != 0 ||
            hp_vec_reserve(&keys_at, (size_t)1 << 30) != 0)
            return;
        texts_ready = 1;
    }
    const char *t = form_of(id, kind, 1);
    if (t) hp_buf_str(b, t);
    else {
        hp_buf_str(b, kind);
        hp_buf_str(b, hp_names_short((uint32_t)hp_ret_idents()[id].key));
    }
}
