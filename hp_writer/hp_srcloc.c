/* hp_srcloc: filling the table of source lines at exit (see hp_srcloc.h).
 *
 * libdw.so.1 is opened with dlopen and its libdwfl entry points looked up
 * by name (the header gives their types); the process's modules are
 * reported from /proc/PID/maps (dwfl_linux_proc_report), each module's
 * DWARF, or its debug file, found by libdwfl's standard callbacks. Every
 * distinct frame of every stack is looked up once (a function's start, or
 * with frames=call the call instruction before a return address): its
 * line table row (dwfl_module_getsrc), printed "file:line", the file relative to the
 * working directory when it lies under it. Frames in the C library are not
 * looked up (c_library below). Runs in the exit path, in
 * normal context (libdw mallocs), never in a signal handler. */
#include "hp_writer/hp_srcloc.h"
#include "hp_writer/hp_srcloc_internal.h"
#include "core/hp_hash.h"
#include "core/hp_stacks.h"
#include "core/hp_rt.h"

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct dw_api {
    Dwfl *(*begin)(const Dwfl_Callbacks *);
    void (*end)(Dwfl *);
    void (*report_begin)(Dwfl *);
    int (*report_end)(Dwfl *, int (*)(Dwfl_Module *, void *, const char *, Dwarf_Addr, void *),
                      void *);
    int (*linux_proc_report)(Dwfl *, pid_t);
    Dwfl_Module *(*addrmodule)(Dwfl *, Dwarf_Addr);
    Dwfl_Line *(*module_getsrc)(Dwfl_Module *, Dwarf_Addr);
    const char *(*lineinfo)(Dwfl_Line *, Dwarf_Addr *, int *, int *, Dwarf_Word *, Dwarf_Word *);
    const char *(*comp_dir)(Dwfl_Line *);
    const char *(*module_info)(Dwfl_Module *, void ***, Dwarf_Addr *, Dwarf_Addr *,
                               Dwarf_Addr *, Dwarf_Addr *, const char **, const char **);
} dw_api;

static hp_arena text;
static char cwd[4096];

static int load(dw_api *api, Dwfl_Callbacks *cb)
{
    void *h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        hp_srcloc_.status = "no source lines: libdw.so.1 could not be loaded "
                            "(apt-get install libdw1)";
        return -1;
    }
#define SYM(field, name) *(void **)&api->field = dlsym(h, name)
    SYM(begin, "dwfl_begin");
    SYM(end, "dwfl_end");
    SYM(report_begin, "dwfl_report_begin");
    SYM(report_end, "dwfl_report_end");
    SYM(linux_proc_report, "dwfl_linux_proc_report");
    SYM(addrmodule, "dwfl_addrmodule");
    SYM(module_getsrc, "dwfl_module_getsrc");
    SYM(lineinfo, "dwfl_lineinfo");
    SYM(comp_dir, "dwfl_line_comp_dir");
    SYM(module_info, "dwfl_module_info");
    *(void **)&cb->find_elf = dlsym(h, "dwfl_linux_proc_find_elf");
    *(void **)&cb->find_debuginfo = dlsym(h, "dwfl_standard_find_debuginfo");
#undef SYM
    if (!api->begin || !api->end || !api->report_begin || !api->report_end ||
        !api->linux_proc_report || !api->addrmodule || !api->module_getsrc ||
        !api->lineinfo || !api->comp_dir || !api->module_info || !cb->find_elf ||
        !cb->find_debuginfo) {
        hp_srcloc_.status = "no source lines: libdw.so.1 lacks a libdwfl function";
        return -1;
    }
    return 0;
}

/* Is `path` a module of the C library (glibc: libc, the dynamic linker,
 * libm and the stubs libpthread, libdl, librt)? Its frames get no line:
 * a line inside the C library (pthread_create.c:442 of every thread's
 * outermost frame, read.c:26) is nothing a program's author can act on,
 * and where its debug file is installed (Debian's libc6-dbg: 4 MB of
 * compressed DWARF) reading it cost 38 ms at every exit (Guile, ECL: a
 * third of the whole overhead of ECL's start-up under heapprof). */
static int c_library(const char *path)
{
    static const char *const names[] = {"libc.so.", "ld-linux", "libm.so.", "libpthread.so.",
                                        "libdl.so.", "librt.so."};
    if (!path) return 0;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strncmp(base, names[i], strlen(names[i])) == 0) return 1;
    return 0;
}

/* Drop "." and "dir/.." steps of an absolute path, in place. */
static void normalize(char *path)
{
    char *w = path;
    for (const char *r = path; *r;) {
        while (*r == '/') r++;
        const char *e = strchr(r, '/');
        size_t len = e ? (size_t)(e - r) : strlen(r);
        if (len == 1 && r[0] == '.') {
        } else if (len == 2 && r[0] == '.' && r[1] == '.') {
            while (w > path && *--w != '/') {}
        } else if (len) {
            *w++ = '/';
            memmove(w, r, len);
            w += len;
        }
        r += len;
    }
    if (w == path) *w++ = '/';
    *w = 0;
}

/* "file:line" in profiler memory: a file named relative to its
 * compilation directory is made whole, then relative to the working
 * directory when it lies under it. */
static const char *where_text(const char *file, const char *dir, int line)
{
    char path[4096];
    if (file[0] != '/' && dir && dir[0] == '/') {
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path) return NULL;
        normalize(path);
        file = path;
    }
    size_t n = strlen(cwd);
    if (n > 1 && strncmp(file, cwd, n) == 0 && file[n] == '/') file += n + 1;
    char buf[4200];
    int k = snprintf(buf, sizeof buf, "%s:%d", file, line);
    if (k < 0) return NULL;
    if ((size_t)k >= sizeof buf) k = sizeof buf - 1;
    char *t = hp_arena_alloc(&text, (size_t)k + 1);
    if (t) memcpy(t, buf, (size_t)k + 1);
    return t;
}

int hp_srcloc_prepare(void)
{
    if (atomic_load(&hp_srcloc_.published_cap)) return 0;
    dw_api api;
    Dwfl_Callbacks cb;
    memset(&cb, 0, sizeof cb);
    char *debuginfo_path = NULL;
    cb.debuginfo_path = &debuginfo_path;
    if (load(&api, &cb) != 0) return -1;
    if (!text.vec.base && hp_arena_init(&text, (size_t)1 << 30) != 0) return -1;
    if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0;
    /* Room for every frame at half load. */
    uint64_t frames = 0;
    uint32_t nstacks = hp_stacks_count();
    for (uint32_t s = 0; s < nstacks; s++) frames += hp_stacks_get(s)->n;
    uint64_t cap = 1024;
    while (cap < 2 * frames) cap *= 2;
    if (!hp_srcloc_.vec.base && hp_vec_reserve(&hp_srcloc_.vec, (size_t)1 << 32) != 0) return -1;
    if (hp_vec_ensure(&hp_srcloc_.vec, cap * sizeof(hp_srcloc_entry)) != 0) return -1;
    hp_srcloc_entry *t = (hp_srcloc_entry *)hp_srcloc_.vec.base;
    memset(t, 0, cap * sizeof *t);
    Dwfl *d = api.begin(&cb);
    if (!d) {
        hp_srcloc_.status = "no source lines: libdwfl could not start";
        return -1;
    }
    api.report_begin(d);
    if (api.linux_proc_report(d, getpid()) != 0 || api.report_end(d, NULL, NULL) != 0) {
        api.end(d);
        hp_srcloc_.status = "no source lines: libdwfl could not read this process's modules";
        return -1;
    }
    uint64_t found = 0;
    Dwfl_Module *last = NULL;
    int last_skipped = 0;
    for (uint32_t s = 0; s < nstacks; s++) {
        const hp_stack *st = hp_stacks_get(s);
        for (uint32_t i = 0; i < st->n; i++) {
            uintptr_t pc = st->frames[i];
            if (!pc || (pc & HP_FRAME_EXPLICIT)) continue;
            uint64_t j = hp_mix64(pc) & (cap - 1);
            while (t[j].pc && t[j].pc != pc) j = (j + 1) & (cap - 1);
            if (t[j].pc) continue;
            t[j].pc = pc;
            /* A call site's line is that of its call, the byte before. */
            uintptr_t at = hp_rt.cfg.frames_by_call ? pc - 1 : pc;
            Dwfl_Module *m = api.addrmodule(d, at);
            if (m && m != last) {
                last = m;
                last_skipped = c_library(api.module_info(m, NULL, NULL, NULL, NULL, NULL,
                                                         NULL, NULL));
            }
            if (m && last_skipped) {
                hp_srcloc_.c_library++;
                continue;
            }
            Dwfl_Line *l = m ? api.module_getsrc(m, at) : NULL;
            int line = 0;
            const char *file = l ? api.lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
            if (file && line > 0 &&
                (t[j].where = where_text(file, api.comp_dir(l), line)) != NULL)
                found++;
        }
    }
    api.end(d);
    hp_srcloc_.found = found;
    if (!found)
        hp_srcloc_.status = "no source lines: no frame's module has DWARF line tables "
                            "(build with -g, or install the modules' debug symbols: "
                            "Debian's -dbgsym packages)";
    atomic_store_explicit(&hp_srcloc_.published_cap, cap, memory_order_release);
    return 0;
}
