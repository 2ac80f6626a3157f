/* hp_config: parser for HEAPPROF=mode[,key=value...]. */
#include "core/hp_config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const mode_names[] = {"cc", "retainer", "ldv", "roots", "module", "kind"};

#define VALID_MODES "cc, module, kind, retainer, ldv, roots"
#define VALID_KEYS "interval=SECONDS, depth=N, length=N, unwind=libunwind|fp|libunwind-raw, " \
    "frames=function|call, " \
    "out=PATH, outputs=all|none|csv+pprof+folded, " \
    "report=off|gen|kind|full, ccs=NAME, module=NAME, kind=NAME, " \
    "retainers=NAME[+NAME...], bound=N, rset=NAME[+NAME...], noroot=yes|no|retainers, " \
    "walk=auto|depth|components, helper=auto|yes|no, dominators=yes|no, stacks=yes|no, " \
    "sample=BYTES, seed=N, " \
    "ldv=adaptive|page|precise, repeat=N, burst=on|off, budget=X, floor=SECONDS, faults=N, window=BYTES, syscalls=dispatch|wrappers, checkpoint=SECONDS|off, " \
    "bands=drag|void|drag+void"

const char *hp_mode_name(hp_mode m) { return mode_names[m]; }

void hp_config_defaults(hp_config *c)
{
    memset(c, 0, sizeof *c);
    c->mode = HP_MODE_CC;
    c->interval = 0.1;
    c->depth = 8;
    c->label_length = 25;
    c->unwind = HP_UNWIND_LIBUNWIND;
    c->bound = 8;
    c->ldv_repeat = 8;
    c->ldv_burst = 1;
    c->ldv_syscalls = 1;
    c->checkpoint = 1;
    c->ldv_budget = 0.3;
    c->ldv_floor = 0.5;
    c->ldv_floor_faults = 65536;
    c->outputs = HP_OUTPUT_ALL;
}

const char *hp_config_help(void)
{
    return
"heapprof: heap profiler for programs using the Boehm-Demers-Weiser GC\n"
"\n"
"  LD_PRELOAD=libheapprof.so HEAPPROF=[mode][,key=value...] ./program\n"
"\n"
"modes (the first word; default cc):\n"
"  cc          live bytes by allocating call stack (GHC -hc)\n"
"  module      live bytes by module of the allocating function (GHC -hm)\n"
"  kind        live bytes by object kind and size, e.g. normal:32 (GHC -hd/-hy)\n"
"  retainer    live bytes by retainer set (GHC -hr): who keeps memory alive\n"
"  ldv         lag/drag/void/use biography (GHC -hb): bands VOID LAG USE\n"
"              INHERENT_USE DRAG, uses seen by page protection\n"
"  roots       live bytes by the sets of named roots reaching them\n"
"              (heapprof_set_roots() in the program, see heapprof.h)\n"
"  help        print this text and exit\n"
"\n"
"options:\n"
"  interval=S  seconds between censuses, mutator time (GHC -i; default 0.1;\n"
"              0 = a census at every full collection)\n"
"  depth=N     call-stack frames kept per cost centre, 1-64 (default 8)\n"
"  length=N    .hp label length in characters, 1-1024 (GHC -L; default 25)\n"
"  unwind=U    libunwind (default; works without frame pointers: libunwind\n"
"              reads each return address's frame layout once, heapprof caches\n"
"              it), fp (frame-pointer walk: needs -fno-omit-frame-pointer), or\n"
"              libunwind-raw (libunwind walks every stack: slower)\n"
"  frames=F    what a frame of a cost-centre stack stands for: function\n"
"              (default: the function, so call sites in one function are one\n"
"              frame) or call (each call site apart, named function+0xOFFSET,\n"
"              its file:line in the .prof's STACK FRAMES; GHC -fprof-auto-calls)\n"
"  outputs=O   files besides PATH.hp and PATH.prof: all (default: the\n"
"              .alloc.csv, the pprof profile .pb.gz and the folded stacks\n"
"              .folded and .live.folded), none, or some of csv, pprof, folded\n"
"              joined by '+'\n"
"  out=PATH    where to write: PATH.hp, PATH.prof, PATH.alloc.csv (a trailing\n"
"              .hp is dropped); default <program>.hp in the working directory\n"
"  report=R    allocation report breakdowns in .prof and .alloc.csv: off\n"
"              (default), gen (by collections survived), kind (by object\n"
"              kind), full (both)\n"
"  ccs=NAME    heap profile only of objects with function NAME on their\n"
"              allocation stack (GHC -hC)\n"
"  module=NAME heap profile only of objects allocated in module NAME\n"
"              (e.g. libfoo.so.1, or the program's name)\n"
"  kind=NAME   heap profile only of objects of kind NAME: normal, atomic,\n"
"              uncollectable, typed, gcj, finalized, or kindN\n"
"  retainers=F[+F...]  retainer mode: objects allocated with function F on\n"
"              their stack are retainers too (roots always are)\n"
"  bound=N     retainer sets larger than N print as MANY (GHC -R; default 8)\n"
"  rset=R[+R...]  cc, module, kind, retainer: only objects whose retainer set holds a\n"
"              retainer named R (GHC -hr), e.g. rset=g_cache or stack:main\n"
"  noroot=yes  roots mode: show bytes reachable from no named root as NOROOT\n"
"  noroot=retainers  roots mode: split NOROOT by what retains it instead, as\n"
"              the retainer profile names it (NOROOT:(id)stack:main, ...)\n"
"  walk=W      retainer sets by: auto (default), depth (from each root in\n"
"              turn), components (strongly connected: each object once)\n"
"  helper=H    retainer mode: a second thread shares the component walk's\n"
"              heaviest step: auto (default: with two CPUs or more, on a walk\n"
"              of 65,536 words or more that seldom needs its lock), yes, no\n"
"  sample=B    modes cc, module, kind: record only sampled objects, one per B\n"
"              bytes on average (e.g. 512K); every figure is an estimate,\n"
"              scaled by the inverse of each object's chance of being sampled\n"
"  seed=N      sample=: the sampler's seed (default: from the clock)\n"
"  stacks=no   mode kind (GHC -hT): no call stacks, no record per object; each\n"
"              census counts the objects the collection marked, by kind and\n"
"              size (the cheapest profile; no allocation table, no CSV)\n"
"  dominators=yes  retainer mode: the dominator tree at each census (walk by\n"
"              components): what each object keeps alive alone, in the .prof\n"
"              (at the census with the most live bytes)\n"
"  ldv=P       mode ldv: when a page opened by an access is protected again:\n"
"              adaptive (default: right after the instruction while new uses\n"
"              of older objects on the page pay for the faults, within\n"
"              `budget`; then at the next collection), page (at the next\n"
"              collection: cheapest, misses later uses of other objects on\n"
"              an opened page) or precise (always after the instruction:\n"
"              exact, slow)\n"
"  bands=B     mode ldv: profile the bytes of band B (drag, void, or\n"
"              drag+void) by cost-centre stack instead of the bands\n"
"              themselves (GHC -hc -hbdrag,void); mode retainer: by\n"
"              retainer set, in the same run (GHC -hr -hbdrag,void)\n"
"  repeat=N    ldv=adaptive: faults without a new use before a page stays\n"
"              open until the next collection, 1-999999 (default 8)\n"
"  burst=on|off  mode ldv (adaptive, precise): after a fault, go on\n"
"              emulating the program's next instructions while they reach\n"
"              protected pages, so one fault sees several uses (default on)\n"
"  budget=X    ldv=adaptive: what watching may cost (fault handlers, protect\n"
"              passes): the larger of `floor` seconds and `faults` faults\n"
"              at what one costs in the kernel, plus X times the program's\n"
"              own time\n"
"              (default 0.3; 0: no limit); past it, pages stay open for the\n"
"              rest of a period and whole periods go unwatched, counted\n"
"              uncertain in the .prof\n"
"  floor=S     ldv=adaptive: the budget's floor in seconds (default 0.5:\n"
"              short programs are watched whole)\n"
"  faults=N    ldv=adaptive: the same floor in faults, at what a fault\n"
"              costs in the kernel (measured at start-up), where that is\n"
"              larger, 0-99999999 (default 65536: a short program is told\n"
"              the same where faults are slow)\n"
"  window=B    mode ldv: a collection after every B bytes allocated, so that\n"
"              reads of an object soon after it is made are watched (at most\n"
"              B bytes of allocation unwatched); slow, for measuring how much\n"
"              of VOID is objects read only in the period they were made\n"
"  syscalls=S  mode ldv: how system calls given a buffer on a protected page\n"
"              are seen: dispatch (default: every call, by syscall user\n"
"              dispatch, Linux 5.11+) or wrappers (only the C library calls\n"
"              heapprof interposes)\n"
"  checkpoint=S  mode ldv: at most every S seconds (default 1; 0 = every\n"
"              census), write <program>.partial.hp: the biography as if the\n"
"              program had ended at the last census, left for an abnormal\n"
"              end (kill, abort, _exit, crash); off = never\n"
"\n"
"Output: <program>.hp (GHC heap-profile format: hp2ps -c program.hp),\n"
"<program>.prof (text report) and <program>.alloc.csv (the allocation table).\n"
"See doc/options.md and doc/guide.md.\n";
}

static int set_err(char *err, size_t errlen, const char *fmt, const char *tok,
                   size_t toklen)
{
    /* A long token is cut (the message names it; it need not repeat it). */
    char t[96];
    if (toklen > 64) {
        memcpy(t, tok, 64);
        memcpy(t + 64, "...", 4);
    } else {
        memcpy(t, tok, toklen);
        t[toklen] = 0;
    }
    snprintf(err, errlen, fmt, t);
    return -1;
}

/* Digits with an optional fraction; no sign, exponent or locale. */
static int parse_seconds(const char *s, size_t n, double *out)
{
    double v = 0, scale = 1;
    int digits = 0, frac = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch == '.' && !frac) { frac = 1; continue; }
        if (ch < '0' || ch > '9') return -1;
        digits++;
        if (frac) { scale /= 10; v += (ch - '0') * scale; }
        else v = v * 10 + (ch - '0');
        if (v > 1e6) return -1;
    }
    if (!digits) return -1;
    *out = v;
    return 0;
}

static int parse_int(const char *s, size_t n, int lo, int hi, int *out)
{
    long v = 0;
    if (n == 0 || n > 6) return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    if (v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

/* A byte count: digits, then nothing, K, M or G (powers of 1024). */
static int parse_bytes(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0, mult = 1;
    if (n && (s[n - 1] == 'K' || s[n - 1] == 'k')) mult = 1024, n--;
    else if (n && (s[n - 1] == 'M' || s[n - 1] == 'm')) mult = 1024 * 1024, n--;
    else if (n && (s[n - 1] == 'G' || s[n - 1] == 'g')) mult = 1024 * 1024 * 1024, n--;
    if (n == 0 || n > 12) return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v * mult;
    return 0;
}

static int key_is(const char *tok, size_t klen, const char *key)
{
    return strlen(key) == klen && memcmp(tok, key, klen) == 0;
}

/* The bits of a '+'-separated list of names (names[i] gives bits[i]), or
 * -1 when a part is empty or names nothing. */
static int plus_list(const char *v, size_t vlen, const char *const *names, const int *bits,
                     int n)
{
    int out = 0;
    for (size_t at = 0; at <= vlen;) {
        size_t k = at;
        while (k < vlen && v[k] != '+') k++;
        int i = 0;
        while (i < n && !key_is(v + at, k - at, names[i])) i++;
        if (i == n) return -1;
        out |= bits[i];
        at = k + 1;
    }
    return out;
}

int hp_config_parse(const char *s, hp_config *c, char *err, size_t errlen)
{
    hp_config_defaults(c);
    if (err && errlen) err[0] = 0;
    if (s == NULL) return 0;
    int first = 1;
    while (*s) {
        const char *end = strchr(s, ',');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        const char *eq = memchr(s, '=', n);
        if (n == 0) {
            if (!first || end) return set_err(err, errlen,
                "empty option in HEAPPROF%s (two commas, or a leading or trailing "
                "comma?); write HEAPPROF=mode,key=value,... with options: "
                VALID_KEYS, "", 0);
        } else if (!eq) {
            int found = 0;
            if (first) {
                for (int m = 0; m < HP_MODE_COUNT; m++)
                    if (key_is(s, n, mode_names[m])) { c->mode = (hp_mode)m; found = 1; }
            }
            if (key_is(s, n, "help")) { c->help = 1; found = 1; }
            if (!found) {
                /* A mode in other letter case: say which is meant. */
                for (int m = 0; first && m < HP_MODE_COUNT; m++) {
                    if (strlen(mode_names[m]) != n || strncasecmp(s, mode_names[m], n) != 0)
                        continue;
                    char fmt[160];
                    snprintf(fmt, sizeof fmt, "unknown mode '%%s' in HEAPPROF: modes are "
                             "written in lower case, HEAPPROF=%s", mode_names[m]);
                    return set_err(err, errlen, fmt, s, n);
                }
                if (first)
                    return set_err(err, errlen,
                        "unknown mode '%s' in HEAPPROF; valid modes: " VALID_MODES
                        " (or help); options: " VALID_KEYS, s, n);
                return set_err(err, errlen,
                    "'%s' in HEAPPROF is not an option; the mode comes first, "
                    "then key=value options: " VALID_KEYS, s, n);
            }
        } else {
            size_t klen = (size_t)(eq - s);
            const char *v = eq + 1;
            size_t vlen = n - klen - 1;
            if (key_is(s, klen, "interval")) {
                c->interval_given = 1;
                if (parse_seconds(v, vlen, &c->interval) != 0)
                    return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': interval takes seconds "
                        "such as 0.1 or 2 (0 = every collection)", s, n);
            } else if (key_is(s, klen, "depth")) {
                if (parse_int(v, vlen, 1, HP_MAX_DEPTH, &c->depth) != 0)
                    return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': depth takes a whole "
                        "number from 1 to 64", s, n);
            } else if (key_is(s, klen, "length")) {
                if (parse_int(v, vlen, 1, 1024, &c->label_length) != 0)
                    return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': length takes a whole "
                        "number from 1 to 1024", s, n);
            } else if (key_is(s, klen, "unwind")) {
                if (key_is(v, vlen, "libunwind")) c->unwind = HP_UNWIND_LIBUNWIND;
                else if (key_is(v, vlen, "fp")) c->unwind = HP_UNWIND_FP;
                else if (key_is(v, vlen, "libunwind-raw")) c->unwind = HP_UNWIND_LIBUNWIND_RAW;
                else return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': unwind is libunwind, fp or libunwind-raw",
                        s, n);
            } else if (key_is(s, klen, "frames")) {
                if (key_is(v, vlen, "function")) c->frames_by_call = 0;
                else if (key_is(v, vlen, "call")) c->frames_by_call = 1;
                else return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': frames is function or call", s, n);
            } else if (key_is(s, klen, "sample")) {
                if (parse_bytes(v, vlen, &c->sample) != 0 || c->sample == 0 ||
                    c->sample > ((uint64_t)1 << 40))
                    return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': sample takes the mean bytes "
                        "between samples, such as 524288 or 512K (1 to 1T)", s, n);
            } else if (key_is(s, klen, "seed")) {
                if (parse_bytes(v, vlen, &c->seed) != 0)
                    return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': seed takes a whole number", s, n);
            } else if (key_is(s, klen, "stacks")) {
                if (key_is(v, vlen, "yes")) c->no_stacks = 0;
                else if (key_is(v, vlen, "no")) c->no_stacks = 1;
                else return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': stacks is yes or no", s, n);
            } else if (key_is(s, klen, "dominators")) {
                if (key_is(v, vlen, "yes")) c->dominators = 1;
                else if (key_is(v, vlen, "no")) c->dominators = 0;
                else return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': dominators is yes or no", s, n);
            } else if (key_is(s, klen, "bands")) {
                /* drag, void, or both joined by '+' (GHC -hb<band,...>). */
                static const char *const names[] = {"drag", "void"};
                static const int bits_of[] = {HP_BAND_DRAG, HP_BAND_VOID};
                int bits = plus_list(v, vlen, names, bits_of, 2);
                if (bits < 0)
                    return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': bands is drag, void or "
                        "drag+void (the bands known when an object dies; lag, use and "
                        "inherent_use cannot be crossed with stacks yet)", s, n);
                c->ldv_bands = bits;
            } else if (key_is(s, klen, "outputs")) {
                /* all, none, or '+'-separated: csv, pprof, folded. */
                static const char *const names[] = {"csv", "pprof", "folded"};
                static const int bits_of[] = {HP_OUTPUT_CSV, HP_OUTPUT_PPROF, HP_OUTPUT_FOLDED};
                int bits = key_is(v, vlen, "all") ? HP_OUTPUT_ALL
                           : key_is(v, vlen, "none") ? 0 : plus_list(v, vlen, names, bits_of, 3);
                if (bits < 0)
                    return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': outputs is all, none, or "
                        "files joined by '+' among csv, pprof and folded (PROG.hp and "
                        "PROG.prof are always written)", s, n);
                c->outputs = bits;
            } else if (key_is(s, klen, "report")) {
                if (key_is(v, vlen, "off")) c->report = 0;
                else if (key_is(v, vlen, "gen")) c->report = HP_REPORT_GEN;
                else if (key_is(v, vlen, "kind")) c->report = HP_REPORT_KIND;
                else if (key_is(v, vlen, "full")) c->report = HP_REPORT_GEN | HP_REPORT_KIND;
                else return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': report is off, gen, kind or full",
                        s, n);
            } else if (key_is(s, klen, "ccs") || key_is(s, klen, "module") ||
                       key_is(s, klen, "kind")) {
                char *dst = key_is(s, klen, "ccs") ? c->filter_ccs
                          : key_is(s, klen, "module") ? c->filter_module : c->filter_kind;
                int bad = vlen == 0 || vlen >= HP_FILTER_MAX;
                for (size_t k = 0; k < vlen; k++)
                    if ((unsigned char)v[k] <= ' ' || v[k] == '/' || v[k] == '"') bad = 1;
                if (!bad && key_is(s, klen, "kind")) {
                    static const char *const kinds[] = {"normal", "atomic", "uncollectable",
                        "typed", "gcj", "finalized", "other"};
                    int known = vlen > 4 && memcmp(v, "kind", 4) == 0;
                    for (size_t k = 4; known && k < vlen; k++)
                        if (v[k] < '0' || v[k] > '9') known = 0;
                    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
                        if (key_is(v, vlen, kinds[k])) known = 1;
                    if (!known)
                        return set_err(err, errlen,
                            "bad value in HEAPPROF option '%s': kind= is one of normal, "
                            "atomic, uncollectable, typed, gcj, finalized, other, or kindN "
                            "(a collector kind number)", s, n);
                }
                if (bad)
                    return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': ccs=, module= and kind= take "
                        "one name (a function, a module such as libfoo.so.1, or a kind "
                        "such as normal or atomic)", s, n);
                memcpy(dst, v, vlen);
                dst[vlen] = 0;
            } else if (key_is(s, klen, "retainers") || key_is(s, klen, "rset")) {
                char *dst = key_is(s, klen, "rset") ? c->filter_rset : c->retainers;
                int bad = vlen == 0 || vlen >= HP_FILTER_MAX || v[0] == '+' || v[vlen - 1] == '+';
                for (size_t k = 0; k < vlen; k++)
                    if ((unsigned char)v[k] <= ' ' || v[k] == '/' || v[k] == '"' ||
                        (v[k] == '+' && k + 1 < vlen && v[k + 1] == '+'))
                        bad = 1;
                if (bad)
                    return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': retainers= and rset= take "
                        "names joined by '+', e.g. retainers=session_new+cache_put or "
                        "rset=g_cache+stack:main", s, n);
                memcpy(dst, v, vlen);
                dst[vlen] = 0;
            } else if (key_is(s, klen, "bound")) {
                if (parse_int(v, vlen, 1, 64, &c->bound) != 0)
                    return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': bound takes a whole "
                        "number from 1 to 64 (GHC -R)", s, n);
            } else if (key_is(s, klen, "walk")) {
                if (key_is(v, vlen, "auto")) c->ret_walk = HP_WALK_AUTO;
                else if (key_is(v, vlen, "depth")) c->ret_walk = HP_WALK_DEPTH;
                else if (key_is(v, vlen, "components")) c->ret_walk = HP_WALK_SCC;
                else return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': walk is auto, depth or "
                        "components", s, n);
            } else if (key_is(s, klen, "helper")) {
                if (key_is(v, vlen, "auto")) c->walk_helper = HP_HELPER_AUTO;
                else if (key_is(v, vlen, "yes")) c->walk_helper = HP_HELPER_YES;
                else if (key_is(v, vlen, "no")) c->walk_helper = HP_HELPER_NO;
                else return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': helper is auto, yes or no", s, n);
            } else if (key_is(s, klen, "noroot")) {
                if (key_is(v, vlen, "yes")) c->noroot = HP_NOROOT_YES;
                else if (key_is(v, vlen, "no")) c->noroot = HP_NOROOT_NO;
                else if (key_is(v, vlen, "retainers")) c->noroot = HP_NOROOT_RETAINERS;
                else return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': noroot is yes, no or retainers",
                        s, n);
            } else if (key_is(s, klen, "ldv")) {
                /* HEAPPROF=ldv=page: ldv= first names the mode too. */
                if (first) c->mode = HP_MODE_LDV;
                if (key_is(v, vlen, "page")) c->ldv_policy = HP_LDV_PAGE;
                else if (key_is(v, vlen, "adaptive")) c->ldv_policy = HP_LDV_ADAPTIVE;
                else if (key_is(v, vlen, "precise")) c->ldv_policy = HP_LDV_PRECISE;
                else return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': ldv is adaptive, page or precise",
                        s, n);
            } else if (key_is(s, klen, "syscalls")) {
                if (key_is(v, vlen, "dispatch")) c->ldv_syscalls = 1;
                else if (key_is(v, vlen, "wrappers")) c->ldv_syscalls = 0;
                else return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': syscalls is dispatch or wrappers",
                        s, n);
            } else if (key_is(s, klen, "burst")) {
                if (key_is(v, vlen, "on")) c->ldv_burst = 1;
                else if (key_is(v, vlen, "off")) c->ldv_burst = 0;
                else return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': burst is on or off", s, n);
            } else if (key_is(s, klen, "repeat")) {
                if (parse_int(v, vlen, 1, 999999, &c->ldv_repeat) != 0)
                    return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': repeat takes a whole number "
                        "from 1 to 999999", s, n);
            } else if (key_is(s, klen, "budget")) {
                if (parse_seconds(v, vlen, &c->ldv_budget) != 0 || c->ldv_budget > 1000)
                    return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': budget takes a multiple of the "
                        "program's own time such as 1 or 0.5, from 0 to 1000", s, n);
            } else if (key_is(s, klen, "floor")) {
                if (parse_seconds(v, vlen, &c->ldv_floor) != 0 || c->ldv_floor > 3600)
                    return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': floor takes seconds such as 0.5 "
                        "or 0.1, from 0 to 3600", s, n);
            } else if (key_is(s, klen, "faults")) {
                if (parse_int(v, vlen, 0, 99999999, &c->ldv_floor_faults) != 0)
                    return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': faults takes a whole number of "
                        "faults such as 65536, from 0 to 99999999", s, n);
            } else if (key_is(s, klen, "window")) {
                if (parse_bytes(v, vlen, &c->ldv_window) != 0 || c->ldv_window == 0 ||
                    c->ldv_window > ((uint64_t)1 << 40))
                    return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': window takes the bytes allocated "
                        "between collections, such as 65536 or 64K (1 to 1T)", s, n);
            } else if (key_is(s, klen, "checkpoint")) {
                if (key_is(v, vlen, "off")) c->checkpoint = -1;
                else if (parse_seconds(v, vlen, &c->checkpoint) != 0)
                    return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': checkpoint takes seconds such as "
                        "2 or 0.5 (0 = every census), or off", s, n);
            } else if (key_is(s, klen, "out")) {
                if (vlen == 0 || vlen >= HP_OUT_MAX - 32)
                    return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': out takes a file path "
                        "(without commas), e.g. out=/tmp/run1", s, n);
                if (v[vlen - 1] == '/')
                    return set_err(err, errlen,
                        "bad value in HEAPPROF option '%s': out names the profile's file "
                        "stem, not a directory; write out=DIR/NAME (then DIR/NAME.hp, "
                        "DIR/NAME.prof, ...)", s, n);
                /* Every component must fit a file name once ".alloc.csv" and a
                 * forked child's ".PID" are added. */
                size_t comp = 0;
                for (size_t k = 0; k < vlen; k++) {
                    comp = v[k] == '/' ? 0 : comp + 1;
                    if (comp > HP_OUT_COMPONENT_MAX)
                        return set_err(err, errlen,
                            "bad value in HEAPPROF option '%s': a part of the out= path is "
                            "longer than 230 bytes, too long for a file name once .alloc.csv "
                            "is added; choose a shorter name", s, n);
                }
                memcpy(c->out, v, vlen);
                c->out[vlen] = 0;
            } else {
                return set_err(err, errlen,
                    "unknown option '%s' in HEAPPROF; valid options: " VALID_KEYS,
                    s, n);
            }
        }
        first = 0;
        if (c->mode == HP_MODE_ROOTS && c->filter_rset[0])
            return set_err(err, errlen,
                "HEAPPROF option '%s' cannot be used in mode roots (both label each object "
                "at a census); use rset= with mode cc, module or kind", s, n);
        if (c->ldv_bands && c->mode != HP_MODE_LDV && c->mode != HP_MODE_RETAINER)
            return set_err(err, errlen,
                "HEAPPROF option '%s' needs mode ldv (the chosen bands by cost-centre stack, "
                "GHC's -hc -hbdrag,void) or retainer (by retainer set, -hr -hbdrag,void)",
                "bands=", 6);
        if (c->ldv_bands && c->mode == HP_MODE_RETAINER && c->filter_rset[0])
            return set_err(err, errlen,
                "HEAPPROF option '%s' cannot be used with bands= (an object's set may change "
                "from census to census while its band is settled at its death); drop rset= "
                "and read the bands of the sets you want", "rset=", 5);
        if (c->mode == HP_MODE_LDV && c->filter_rset[0])
            return set_err(err, errlen,
                "HEAPPROF option '%s' cannot be used in mode ldv (both keep their state in "
                "the same word of each object's record); use rset= with mode cc, "
                "module or kind", s, n);
        if (c->sample && c->mode != HP_MODE_CC && c->mode != HP_MODE_MODULE &&
            c->mode != HP_MODE_KIND)
            return set_err(err, errlen,
                "HEAPPROF option '%s' needs mode cc, module or kind (a retainer, roots or "
                "ldv profile follows every object: a sample of them would name no "
                "retainer or use truthfully)", "sample=", 7);
        if (c->sample && (c->filter_rset[0] || c->report || c->no_stacks))
            return set_err(err, errlen,
                "HEAPPROF option '%s' cannot be used with rset=, report= or stacks=no "
                "(rset= and report= need every object; stacks=no records none)", "sample=", 7);
        if (c->ldv_window && c->mode != HP_MODE_LDV)
            return set_err(err, errlen,
                "HEAPPROF option '%s' needs mode ldv (it narrows the unwatched time after "
                "an object is made, which only the biographical profile watches)",
                "window=", 7);
        if (c->no_stacks && c->mode != HP_MODE_KIND)
            return set_err(err, errlen,
                "HEAPPROF option '%s' needs mode kind (the only profile that needs no "
                "call stack: HEAPPROF=kind,stacks=no, GHC's -hT)", "stacks=no", 9);
        if (c->no_stacks && (c->filter_ccs[0] || c->filter_module[0] || c->filter_rset[0] ||
                             c->report))
            return set_err(err, errlen,
                "HEAPPROF option '%s' cannot be used with ccs=, module=, rset= or report= "
                "(they need each object's record and stack); drop one of them",
                "stacks=no", 9);
        if (!end) break;
        s = end + 1;
        if (!*s) return set_err(err, errlen,
            "empty option in HEAPPROF%s (a trailing comma?); "
            "write HEAPPROF=mode,key=value,... with options: " VALID_KEYS, "", 0);
    }
    /* No records, no stacks: the CSV, pprof and folded files would be empty. */
    if (c->no_stacks) c->outputs = 0;
    return 0;
}
