/* hp_names_sigsafe: stack ids to names and labels (see hp_names.h).
 * Async-signal-safe: names are resolved by the finisher too (the symbol
 * tables only try their lock then, and read no new module list). */
#include "hp_writer/hp_names.h"
#include "hp_writer/hp_hpfile.h"
#include "core/hp_symbols.h"
#include "core/hp_ccnames.h"
#include "core/hp_stacks.h"
#include "core/hp_demangle.h"
#include "core/hp_rt.h"
#include "core/hp_ccstats.h"

#include <string.h>

#define HP_NAME_FRAMES 128

/* A set of distinct strings, each with a dense id. */
typedef struct interner {
    hp_arena text;
    hp_vec strings;     /* const char *[id] */
    hp_vec slots;       /* uint32_t[cap]: id + 1, 0 = empty */
    uint32_t n, cap;
} interner;

/* Per stack, the ids it resolved to (+1; 0 = not yet). */
typedef struct stack_names { uint32_t label, full, module_label, brief; } stack_names;

static int label_length = 25;
static interner labels, fulls, briefs;
static hp_vec by_stack;          /* stack_names[ccs] */
static hp_vec by_full;           /* uint32_t[full id]: a stack with that name */
static hp_buf scratch;
static hp_buf site_names;        /* frames=call: "function+0xOFFSET" of one stack */

static int interner_init(interner *in)
{
    in->n = in->cap = 0;
    if (hp_arena_init(&in->text, (size_t)4 << 30) != 0) return -1;
    if (hp_vec_reserve(&in->strings, (size_t)1 << 31) != 0) return -1;
    return hp_vec_reserve(&in->slots, (size_t)1 << 31);
}

static uint32_t str_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static const char **strings(interner *in) { return (const char **)in->strings.base; }
static uint32_t *slots(interner *in) { return (uint32_t *)in->slots.base; }

static uint32_t *find_slot(interner *in, const char *text)
{
    uint32_t mask = in->cap - 1, i = str_hash(text) & mask;
    while (slots(in)[i] && strcmp(strings(in)[slots(in)[i] - 1], text) != 0)
        i = (i + 1) & mask;
    return &slots(in)[i];
}

/* Id of `text`, added if new; UINT32_MAX when out of memory. */
static uint32_t intern(interner *in, const char *text)
{
    if (in->cap == 0 || (in->n + 1) * 2 > in->cap) {
        uint32_t cap = in->cap ? in->cap * 2 : 1024;
        if (hp_vec_ensure(&in->slots, cap * sizeof(uint32_t)) != 0) return UINT32_MAX;
        memset(in->slots.base, 0, cap * sizeof(uint32_t));
        in->cap = cap;
        for (uint32_t k = 0; k < in->n; k++) *find_slot(in, strings(in)[k]) = k + 1;
    }
    uint32_t *slot = find_slot(in, text);
    if (*slot) return *slot - 1;
    size_t len = strlen(text);
    char *copy = hp_arena_alloc(&in->text, len + 1);
    if (!copy || hp_vec_ensure(&in->strings, (in->n + 1) * sizeof(char *)) != 0)
        return UINT32_MAX;
    memcpy(copy, text, len + 1);
    strings(in)[in->n] = copy;
    *slot = in->n + 1;
    return in->n++;
}

int hp_names_init(int len)
{
    label_length = len;
    if (interner_init(&labels) != 0 || interner_init(&fulls) != 0 || interner_init(&briefs) != 0)
        return -1;
    if (hp_vec_reserve(&by_stack, (size_t)1 << 31) != 0) return -1;
    if (hp_vec_reserve(&by_full, (size_t)1 << 31) != 0) return -1;
    if (hp_buf_init(&site_names, (size_t)1 << 24) != 0) return -1;
    return hp_buf_init(&scratch, (size_t)1 << 24);
}

static int is_libc(const char *module)
{
    return module && strncmp(module, "libc.so", 7) == 0;
}

/* GHC's recursion rule by function name (see hp_collapse_recursion); each
 * name's frame address goes with it. */
static int collapse(const char **names, uintptr_t *addrs, int n)
{
    const char *st[HP_NAME_FRAMES];
    uintptr_t sa[HP_NAME_FRAMES];
    int len = 0;
    for (int i = n - 1; i >= 0; i--) {
        int k = len - 1;
        while (k >= 0 && strcmp(st[k], names[i]) != 0) k--;
        if (k >= 0) {
            len = k + 1;
        } else {
            sa[len] = addrs[i];
            st[len++] = names[i];
        }
    }
    for (int i = 0; i < len; i++) {
        names[i] = st[len - 1 - i];
        addrs[i] = sa[len - 1 - i];
    }
    return len;
}

/* The stack's name into `scratch` (NUL-terminated), its functions'
 * names demangled in `form` (HP_DEMANGLE_FULL: the full name; SHORT: what
 * its .hp label is cut from). Like GHC's stacks,
 * which end at MAIN, a name ends at the frame of main(); start-up frames in
 * libc beyond the outermost program frame (thread start, _start) are left
 * out too; then recursion is collapsed as GHC does (f/g/f/main is f/main). */
/* The frames a stack's name shows, in names[] and addrs[]: their count. */
static int stack_frames(uint32_t ccs, int form, const char **names, uintptr_t *addrs)
{
    const hp_stack *s = hp_stacks_get(ccs);
    int libc[HP_NAME_FRAMES];
    size_t site_off[HP_NAME_FRAMES];   /* + 1: a call-site name in site_names */
    int n = 0;
    hp_buf_reset(&site_names);
    memset(site_off, 0, sizeof site_off);
    for (uint32_t i = 0; i < s->n && n < HP_NAME_FRAMES; i++) {
        uintptr_t f = s->frames[i];
        addrs[n] = f;
        if (f & HP_FRAME_EXPLICIT) {
            libc[n] = 0;
            names[n++] = hp_ccnames_get((uint32_t)(f & ~HP_FRAME_EXPLICIT));
            continue;
        }
        if (f == HP_FRAME_JIT) {
            libc[n] = 0;
            names[n++] = "[jit]";
            continue;
        }
        /* Frames are function starts, or with frames=call return
         * addresses (the call is the byte before). */
        int by_call = hp_rt.cfg.frames_by_call;
        hp_sym_info info = hp_symbols_lookup(by_call ? f - 1 : f);
        /* Start-up code: where main() has no symbol (a stripped program),
         * the name still ends where the C library calls into the program. */
        if (info.function && (strcmp(info.function, "__libc_start_main") == 0 ||
                              strcmp(info.function, "__libc_start_call_main") == 0))
            break;
        libc[n] = is_libc(info.module);
        names[n++] = info.function ? hp_demangle(info.function, form)
                     : info.module ? info.module : "UNKNOWN";
        if (by_call && info.function) {
            /* The call site: function+0xOFFSET of the return address. */
            size_t at = site_names.len;
            hp_buf_str(&site_names, names[n - 1]);
            hp_buf_str(&site_names, "+0x");
            hp_buf_hex(&site_names, f - info.start);
            hp_buf_chr(&site_names, 0);
            site_off[n - 1] = at + 1;
        }
        if (info.function && strcmp(info.function, "main") == 0) break;
    }
    while (n > 1 && libc[n - 1]) n--;
    /* (site_names is complete: its text no longer moves.) */
    const char *base = hp_buf_cstr(&site_names);
    for (int i = 0; i < n; i++)
        if (site_off[i]) names[i] = base + site_off[i] - 1;
    return collapse(names, addrs, n);
}

static const char *stack_text(uint32_t ccs, int form)
{
    hp_buf *out = &scratch;
    hp_buf_reset(out);
    const char *names[HP_NAME_FRAMES];
    uintptr_t addrs[HP_NAME_FRAMES];
    int n = stack_frames(ccs, form, names, addrs);
    for (int i = 0; i < n; i++) {
        if (i) hp_buf_chr(out, '/');
        hp_buf_str(out, names[i]);
    }
    if (n == 0) hp_buf_str(out, "UNKNOWN");
    char *text = (char *)hp_buf_cstr(out);
    /* (Blanks stay: demangled names have them, "unsigned long".) */
    for (char *p = text; *p; p++)
        if ((unsigned char)*p < ' ' || *p == '"' || *p == 0x7f) *p = '_';
    return text;
}

static stack_names *names_of(uint32_t ccs)
{
    if (hp_vec_ensure(&by_stack, (size_t)(ccs + 1) * sizeof(stack_names)) != 0) return NULL;
    return &((stack_names *)by_stack.base)[ccs];
}

uint32_t hp_names_full_of(uint32_t ccs)
{
    stack_names *sn = names_of(ccs);
    if (!sn) return 0;
    if (!sn->full) {
        uint32_t before = fulls.n;
        uint32_t id = intern(&fulls, stack_text(ccs, HP_DEMANGLE_FULL));
        if (id == UINT32_MAX) return 0;
        if (id >= before && hp_vec_ensure(&by_full, (size_t)(id + 1) * sizeof(uint32_t)) == 0)
            ((uint32_t *)by_full.base)[id] = ccs;
        sn->full = id + 1;
    }
    return sn->full - 1;
}

const char *hp_names_short(uint32_t ccs)
{
    stack_names *sn = names_of(ccs);
    if (!sn) return "UNKNOWN";
    if (!sn->brief) {
        uint32_t id = intern(&briefs, stack_text(ccs, HP_DEMANGLE_SHORT));
        if (id == UINT32_MAX) return "UNKNOWN";
        sn->brief = id + 1;
    }
    return strings(&briefs)[sn->brief - 1];
}

uint32_t hp_names_label_of(uint32_t ccs)
{
    stack_names *sn = names_of(ccs);
    if (!sn) return 0;
    if (!sn->label) sn->label = hp_names_intern_label(hp_names_short(ccs)) + 1;
    return sn->label - 1;
}

const char *hp_names_module(uint32_t ccs)
{
    const hp_stack *s = hp_stacks_get(ccs);
    if (s->n == 0) return "UNKNOWN";
    if (s->frames[0] & HP_FRAME_EXPLICIT) return "explicit";
    hp_sym_info info = hp_symbols_lookup(s->frames[0]);
    return info.module ? info.module : "UNKNOWN";
}

uint32_t hp_names_intern_label(const char *full)
{
    size_t n = strlen(full);
    if (n > (size_t)label_length) n = (size_t)label_length;
    char text[1100];
    memcpy(text, full, n);
    text[n] = 0;
    hp_hp_sanitize_label(text, sizeof text);
    uint32_t id = intern(&labels, text);
    return id == UINT32_MAX ? 0 : id;
}

uint32_t hp_names_module_label_of(uint32_t ccs)
{
    stack_names *sn = names_of(ccs);
    if (!sn) return 0;
    if (!sn->module_label) sn->module_label = hp_names_intern_label(hp_names_module(ccs)) + 1;
    return sn->module_label - 1;
}

/* Does the stack name `text` have a frame named `function`? */
static int text_has_frame(const char *full, const char *function)
{
    size_t n = strlen(function);
    for (const char *p = full; *p;) {
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && memcmp(p, function, n) == 0) return 1;
        /* frames=call: the call sites of `function`, function+0xOFFSET. */
        if (len > n + 3 && memcmp(p, function, n) == 0 && memcmp(p + n, "+0x", 3) == 0)
            return 1;
        if (!end) break;
        p = end + 1;
    }
    return 0;
}

/* A frame matches by its full name ("ns::f(int)"), or by its short one
 * ("ns::f", "std::vector<...>::push_back"). */
int hp_names_has_function(uint32_t ccs, const char *function)
{
    return text_has_frame(hp_names_full(hp_names_full_of(ccs)), function) ||
           text_has_frame(hp_names_short(ccs), function);
}

const char *hp_names_label(uint32_t id) { return id < labels.n ? strings(&labels)[id] : "UNKNOWN"; }
uint32_t hp_names_label_count(void) { return labels.n; }
const char *hp_names_full(uint32_t id) { return id < fulls.n ? strings(&fulls)[id] : "UNKNOWN"; }

int hp_names_frames(uint32_t full_id, hp_name_frame *out, int max)
{
    if (full_id >= fulls.n || by_full.committed < (size_t)(full_id + 1) * sizeof(uint32_t))
        return 0;
    uint32_t ccs = ((const uint32_t *)by_full.base)[full_id];
    const char *names[HP_NAME_FRAMES];
    uintptr_t addrs[HP_NAME_FRAMES];
    int n = stack_frames(ccs, HP_DEMANGLE_FULL, names, addrs);
    if (n > max) n = max;
    for (int i = 0; i < n; i++) {
        out[i].name = names[i];
        out[i].pc = (addrs[i] & HP_FRAME_EXPLICIT) || addrs[i] == HP_FRAME_JIT ? 0 : addrs[i];
        out[i].jit = addrs[i] == HP_FRAME_JIT;
    }
    return n;
}

/* ---- What the names cannot tell (hp_names_warnings). ---- */

static hp_buf warn_text;

static void pct(hp_buf *b, uint64_t part, uint64_t whole)
{
    uint64_t p10 = whole ? (part * 1000 + whole / 2) / whole : 0;
    hp_buf_u64(b, p10 / 10);
    hp_buf_chr(b, '.');
    hp_buf_u64(b, p10 % 10);
    hp_buf_chr(b, '%');
}

const char *hp_names_warnings(const hp_ccs_stats *stats, uint32_t nccs)
{
    if (!warn_text.vec.base && hp_buf_init(&warn_text, (size_t)1 << 20) != 0) return "";
    hp_buf_reset(&warn_text);
    uint64_t objects = 0, bytes = 0, jit_stacks = 0, jit_bytes = 0, shallow = 0;
    /* Objects with frames in the program, and those whose program frames
     * all lack a symbol. */
    uint64_t in_prog = 0, unnamed = 0;
    const char *prog = NULL;
    int prog_module = hp_symbols_program_module(&prog);
    for (uint32_t c = 0; c < nccs; c++) {
        if (!stats[c].objects) continue;
        objects += stats[c].objects;
        bytes += stats[c].bytes;
        const hp_stack *s = hp_stacks_get(c);
        int jit = 0, code = 0, explicit_cc = 0, prog_frames = 0, prog_named = 0;
        for (uint32_t i = 0; i < s->n; i++) {
            uintptr_t f = s->frames[i];
            if (f == HP_FRAME_JIT) {
                jit = 1;
            } else if (f & HP_FRAME_EXPLICIT) {
                explicit_cc = 1;
            } else {
                code++;
                hp_sym_info si = hp_symbols_lookup(hp_rt.cfg.frames_by_call ? f - 1 : f);
                if (prog_module >= 0 && si.module_index == prog_module) {
                    prog_frames++;
                    prog_named += si.function && !si.synthesized;
                }
            }
        }
        if (prog_frames) {
            in_prog += stats[c].objects;
            if (!prog_named) unnamed += stats[c].objects;
        }
        if (jit) {
            jit_stacks++;
            jit_bytes += stats[c].bytes;
        }
        if (!explicit_cc && code <= 1) shallow += stats[c].objects;
    }
    if (hp_rt.cfg.unwind == HP_UNWIND_FP && objects && shallow * 2 > objects) {
        hp_buf_str(&warn_text, "warning: ");
        pct(&warn_text, shallow, objects);
        hp_buf_str(&warn_text, " of the objects have a stack of one frame or none under "
                               "unwind=fp: the code that allocates (the program, a library, "
                               "or JIT-compiled code) keeps no frame pointers, so the walk "
                               "stops at once; use unwind=libunwind (the default), or rebuild "
                               "with -fno-omit-frame-pointer\n");
    }
    /* (Only where the program's own code allocates a tenth of the objects
     * or more: a runtime's stripped launcher, guile's main, is no news.) */
    if (in_prog && in_prog * 10 >= objects && unnamed * 2 > in_prog) {
        hp_buf_str(&warn_text, "warning: ");
        hp_buf_str(&warn_text, prog ? prog : "the program");
        hp_buf_str(&warn_text, " has no symbols for its own functions (it is stripped): in ");
        pct(&warn_text, unnamed, in_prog);
        hp_buf_str(&warn_text, " of the objects allocated through it they are named ");
        hp_buf_str(&warn_text, prog ? prog : "PROGRAM");
        hp_buf_str(&warn_text, "+0xADDRESS, which addr2line -f -e resolves given its symbols; "
                               "for names, install its debug symbols (Debian: the package's "
                               "-dbgsym, from the debian-debug archive) or profile a build "
                               "that is not stripped\n");
    }
    if (jit_stacks) {
        hp_buf_str(&warn_text, "note: ");
        hp_buf_u64(&warn_text, jit_stacks);
        hp_buf_str(&warn_text, jit_stacks == 1 ? " stack (" : " stacks (");
        pct(&warn_text, jit_bytes, bytes);
        hp_buf_str(&warn_text, " of the bytes allocated) end in [jit]: code no loaded module "
                               "covers, such as a runtime's JIT-compiled code, which has no "
                               "unwind tables, so the walk stops there (Guile: "
                               "GUILE_JIT_THRESHOLD=-1 turns its JIT off, for longer "
                               "stacks)\n");
    }
    return hp_buf_cstr(&warn_text);
}
