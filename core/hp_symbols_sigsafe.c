/* hp_symbols_sigsafe: ELF symbol tables of loaded modules (see
 * hp_symbols.h): the module list, reading a module's symbols (raw system
 * calls, profiler memory) and every lookup. Async-signal-safe: in a signal
 * handler the lock is only tried, and the module list is not re-read
 * (hp_symbols.c does that, with dl_iterate_phdr). */
#include "core/hp_sys.h"
#include "core/hp_symbols.h"
#include "core/hp_symbols_internal.h"
#include "core/hp_mem.h"
#include "core/hp_fde.h"
#include "core/hp_demangle.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HP_MAX_MODULES 4096

typedef struct hp_fsym {
    uintptr_t addr;
    uint64_t size;
    const char *name;
} hp_fsym;

typedef struct hp_module {
    uintptr_t bias, lo, hi;      /* load bias; span of its PT_LOAD segments */
    const char *path;            /* as loaded ("" = main program) */
    const char *base;            /* basename for labels */
    int loaded;                  /* symbols read (or tried) */
    hp_fsym *syms;
    uint32_t nsyms;
    int data_loaded;             /* data (object) symbols read (or tried) */
    hp_fsym *dsyms;
    uint32_t ndsyms;
    int fdes_loaded;             /* unwind-table spans read (or tried) */
    int is_dyn;                  /* ET_DYN: addresses are bias + vaddr */
    hp_fde_span *fdes;           /* every function's span, for code no symbol covers */
    uint32_t nfdes;
    const char **fde_names;      /* "module+0xVADDR" per span, made on first use */
    int build_id_read;
    const char *build_id;        /* hex, or NULL */
} hp_module;

static hp_arena sym_arena, data_arena;
static uint64_t nsynth;   /* functions named module+0xOFFSET so far */
static hp_module modules[HP_MAX_MODULES];
static int nmodules;   /* entries are complete before the count is published */
static int in_signal;
static char exe_path[4096];
/* The tables' lock: a flag, so that a signal handler can try it (and name
 * nothing when it is taken) without a call that is not signal-safe. */
static _Atomic int sym_lock;

static int try_lock(void)
{
    return !atomic_exchange_explicit(&sym_lock, 1, memory_order_acquire);
}

static int lock(void)
{
    if (in_signal) return try_lock();
    while (!try_lock()) hp_sys_sched_yield();
    return 1;
}

static void unlock(void) { atomic_store_explicit(&sym_lock, 0, memory_order_release); }

void hp_symbols_prefork(void) { lock(); }
void hp_symbols_postfork(void) { unlock(); }

int hp_symbols_init_tables(void)
{
    if (hp_arena_init(&sym_arena, (size_t)4 << 30) != 0 ||
        hp_arena_init(&data_arena, (size_t)4 << 30) != 0)
        return -1;
    ssize_t n = hp_sys_readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
    exe_path[n > 0 ? n : 0] = 0;
    return 0;
}

void hp_symbols_set_signal_context(int v)
{
    in_signal = v;
    hp_demangle_set_signal_context(v);
}

static char *arena_strdup(const char *s)
{
    size_t n = strlen(s);
    char *d = hp_arena_alloc(&sym_arena, n + 1);
    if (d) memcpy(d, s, n + 1);
    return d;
}

/* Read the list of loaded modules again (not in a signal handler:
 * dl_iterate_phdr takes the loader's lock): through the hook that
 * hp_symbols.c registers at start-up. */
static void (*iterate_modules)(void);

void hp_symbols_set_iterate(void (*fn)(void)) { iterate_modules = fn; }

static void refresh_locked(void)
{
    if (in_signal || !iterate_modules) return;
    /* A module unloaded and another loaded at the same place would be
     * mistaken for the old one; keep the newest first by searching from
     * the end (see module_at). */
    iterate_modules();
}

void hp_symbols_refresh(void)
{
    if (!lock()) return;
    refresh_locked();
    unlock();
}

/* A module found by the iteration (lock held): added unless known. */
int hp_symbols_add_module(uintptr_t bias, uintptr_t lo, uintptr_t hi, const char *path)
{
    for (int i = 0; i < nmodules; i++)
        if (modules[i].bias == bias && modules[i].lo == lo &&
            strcmp(modules[i].path, path) == 0)
            return 0;                       /* known already */
    if (nmodules >= HP_MAX_MODULES) return 1;
    hp_module *m = &modules[nmodules];
    memset(m, 0, sizeof *m);
    m->bias = bias;
    m->lo = lo;
    m->hi = hi;
    m->path = arena_strdup(path);
    const char *file = path[0] ? path : exe_path;
    const char *slash = strrchr(file, '/');
    m->base = arena_strdup(slash ? slash + 1 : file);
    if (!m->path || !m->base) return 1;
    __atomic_store_n(&nmodules, nmodules + 1, __ATOMIC_RELEASE);
    return 0;
}

static void sift(hp_fsym *a, size_t start, size_t end)
{
    size_t root = start;
    while (2 * root + 1 < end) {
        size_t child = 2 * root + 1;
        if (child + 1 < end && a[child].addr < a[child + 1].addr) child++;
        if (a[root].addr >= a[child].addr) return;
        hp_fsym t = a[root]; a[root] = a[child]; a[child] = t;
        root = child;
    }
}

static void heapsort_syms(hp_fsym *a, size_t n)   /* no malloc, unlike qsort */
{
    if (n < 2) return;
    for (size_t s = n / 2; s-- > 0;) sift(a, s, n);
    for (size_t end = n - 1; end > 0; end--) {
        hp_fsym t = a[0]; a[0] = a[end]; a[end] = t;
        sift(a, 0, end);
    }
}

/* A read-only mapping of a whole ELF64 file, or NULL. */
static const unsigned char *map_elf(const char *file, size_t *len)
{
    int fd = hp_sys_open(file, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(ElfW(Ehdr))) {
        hp_sys_close(fd);
        return NULL;
    }
    *len = (size_t)st.st_size;
    const unsigned char *img = hp_sys_mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
    hp_sys_close(fd);
    if (img == MAP_FAILED) return NULL;
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)img;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shoff == 0 || eh->e_shoff + (size_t)eh->e_shnum * sizeof(ElfW(Shdr)) > *len) {
        hp_sys_munmap((void *)img, *len);
        return NULL;
    }
    return img;
}

static const ElfW(Shdr) *section(const unsigned char *img, unsigned type)
{
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)img;
    const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(img + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++)
        if (sh[i].sh_type == type) return &sh[i];
    return NULL;
}

/* The GNU build id of an ELF image: its bytes, their count in *n; NULL
 * when it has none. */
static const unsigned char *build_id_of(const unsigned char *img, size_t len, unsigned *n)
{
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)img;
    const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(img + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_NOTE || sh[i].sh_offset + sh[i].sh_size > len) continue;
        const unsigned char *p = img + sh[i].sh_offset, *end = p + sh[i].sh_size;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const unsigned char *name = p + sizeof *nh;
            const unsigned char *desc = name + ((nh->n_namesz + 3) & ~3u);
            if (desc + nh->n_descsz > end) break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                memcmp(name, "GNU", 4) == 0 && nh->n_descsz >= 2 && nh->n_descsz <= 64) {
                *n = nh->n_descsz;
                return desc;
            }
            p = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
    return NULL;
}

int hp_symbols_module_info(int i, hp_module_info *out)
{
    int n = __atomic_load_n(&nmodules, __ATOMIC_ACQUIRE);
    if (i < 0 || i >= n) return -1;
    hp_module *m = &modules[i];
    out->path = m->path[0] ? m->path : exe_path;
    out->base = m->base;
    out->lo = m->lo;
    out->hi = m->hi;
    out->bias = m->bias;
    if (!m->build_id_read) {
        m->build_id_read = 1;
        size_t len;
        const unsigned char *img = map_elf(out->path, &len);
        unsigned nb = 0;
        const unsigned char *id = img ? build_id_of(img, len, &nb) : NULL;
        char *hex = id ? hp_arena_alloc(&data_arena, 2 * nb + 1) : NULL;
        if (hex) {
            for (unsigned k = 0; k < nb; k++) {
                hex[2 * k] = "0123456789abcdef"[id[k] >> 4];
                hex[2 * k + 1] = "0123456789abcdef"[id[k] & 15];
            }
            hex[2 * nb] = 0;
            m->build_id = hex;
        }
        if (img) hp_sys_munmap((void *)img, len);
    }
    out->build_id = m->build_id ? m->build_id : "";
    return 0;
}

int hp_symbols_module_count(void) { return __atomic_load_n(&nmodules, __ATOMIC_ACQUIRE); }

/* The separate debug file of a stripped module, by its GNU build id:
 * /usr/lib/debug/.build-id/ab/cdef....debug (Debian's -dbgsym packages). */
static const unsigned char *map_debug_file(const unsigned char *img, size_t len,
                                           size_t *dlen)
{
    unsigned n;
    const unsigned char *id = build_id_of(img, len, &n);
    if (!id) return NULL;
    static const char hex[] = "0123456789abcdef";
    char path[256] = "/usr/lib/debug/.build-id/";
    size_t k = strlen(path);
    path[k++] = hex[id[0] >> 4];
    path[k++] = hex[id[0] & 15];
    path[k++] = '/';
    for (unsigned j = 1; j < n; j++) {
        path[k++] = hex[id[j] >> 4];
        path[k++] = hex[id[j] & 15];
    }
    memcpy(path + k, ".debug", 7);
    return map_elf(path, dlen);
}

/* Read module m's symbols of one family (functions, or data objects) into
 * a sorted array from `arena`. */
static uint32_t read_symbols(hp_module *m, int data, hp_arena *arena, hp_fsym **result)
{
    *result = NULL;
    size_t len;
    const unsigned char *img = map_elf(m->path[0] ? m->path : exe_path, &len);
    if (!img) return 0;
    int is_dyn = ((const ElfW(Ehdr) *)img)->e_type == ET_DYN;
    const ElfW(Shdr) *symtab = section(img, SHT_SYMTAB);
    if (!symtab) {
        size_t dlen;
        const unsigned char *dbg = map_debug_file(img, len, &dlen);
        if (dbg && (symtab = section(dbg, SHT_SYMTAB)) != NULL) {
            img = dbg;      /* the original stays mapped: cheap, and rare */
            len = dlen;
        } else {
            symtab = section(img, SHT_DYNSYM);
        }
    }
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)img;
    const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(img + eh->e_shoff);
    if (!symtab || symtab->sh_link >= eh->e_shnum) return 0;
    const ElfW(Shdr) *strtab = &sh[symtab->sh_link];
    if (symtab->sh_offset + symtab->sh_size > len || strtab->sh_offset + strtab->sh_size > len)
        return 0;
    const ElfW(Sym) *syms = (const ElfW(Sym) *)(img + symtab->sh_offset);
    size_t count = symtab->sh_size / sizeof(ElfW(Sym));
    const char *names = (const char *)(img + strtab->sh_offset);
    hp_fsym *out = hp_arena_alloc(arena, count * sizeof *out + 1);
    if (!out) return 0;
    uint32_t n = 0;
    for (size_t i = 0; i < count; i++) {
        int type = ELF64_ST_TYPE(syms[i].st_info);
        int want = data ? type == STT_OBJECT : (type == STT_FUNC || type == STT_GNU_IFUNC);
        if (!want || syms[i].st_shndx == SHN_UNDEF ||
            syms[i].st_value == 0 || syms[i].st_name >= strtab->sh_size)
            continue;
        out[n].addr = (is_dyn ? m->bias : 0) + syms[i].st_value;
        out[n].size = syms[i].st_size;
        out[n].name = names + syms[i].st_name;
        n++;
    }
    heapsort_syms(out, n);
    *result = out;
    return n;
}

static void load_symbols(hp_module *m)
{
    m->loaded = 1;
    m->nsyms = read_symbols(m, 0, &sym_arena, &m->syms);
}

/* Module m's function spans from its unwind tables (hp_fde.h), read from
 * its file on first need. */
static void load_fdes(hp_module *m)
{
    m->fdes_loaded = 1;
    size_t len;
    const unsigned char *img = map_elf(m->path[0] ? m->path : exe_path, &len);
    if (!img) return;
    m->is_dyn = ((const ElfW(Ehdr) *)img)->e_type == ET_DYN;
    m->nfdes = hp_fde_read(img, len, &sym_arena, &m->fdes);
    hp_sys_munmap((void *)img, len);
    if (m->nfdes) m->fde_names = hp_arena_alloc(&sym_arena, m->nfdes * sizeof(char *));
    if (!m->fde_names) m->nfdes = 0;
}

/* The unwind-table span of module m covering pc: its index, or -1. */
static long fde_at(hp_module *m, uintptr_t pc, uintptr_t *start, uintptr_t *end)
{
    if (!m->fdes_loaded) load_fdes(m);
    uintptr_t bias = m->is_dyn ? m->bias : 0;
    long k = m->nfdes ? hp_fde_find(m->fdes, m->nfdes, pc - bias) : -1;
    if (k >= 0) {
        *start = bias + m->fdes[k].start;
        *end = *start + m->fdes[k].size;
    }
    return k;
}

/* "module+0xVADDR", the name of span k of module m: what addr2line -f -e
 * MODULE 0xVADDR resolves with the module's symbols. */
static const char *fde_name(hp_module *m, long k)
{
    if (m->fde_names[k]) return m->fde_names[k];
    char hex[20];
    int nh = 0;
    uint64_t v = m->fdes[k].start;
    do {
        hex[nh++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    size_t nb = strlen(m->base);
    char *name = hp_arena_alloc(&sym_arena, nb + 3 + (size_t)nh + 1);
    if (!name) return NULL;
    memcpy(name, m->base, nb);
    memcpy(name + nb, "+0x", 3);
    for (int i = 0; i < nh; i++) name[nb + 3 + i] = hex[nh - 1 - i];
    name[nb + 3 + nh] = 0;
    m->fde_names[k] = name;
    nsynth++;
    return name;
}

uint64_t hp_symbols_synthesized(void) { return __atomic_load_n(&nsynth, __ATOMIC_RELAXED); }

int hp_symbols_program_module(const char **name)
{
    *name = NULL;
    if (!lock()) return -1;
    if (nmodules == 0) refresh_locked();
    int found = -1;
    for (int i = 0; i < nmodules && found < 0; i++) {
        if (modules[i].path[0]) continue;
        found = i;
        *name = modules[i].base;
    }
    unlock();
    return found;
}

static int module_at(uintptr_t pc)
{
    for (int i = nmodules - 1; i >= 0; i--)
        if (pc >= modules[i].lo && pc < modules[i].hi) return i;
    return -1;
}

static int module_of_locked(uintptr_t addr)
{
    int i = module_at(addr);
    if (i < 0) {
        refresh_locked();
        i = module_at(addr);
    }
    return i;
}

int hp_symbols_module_span(uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
    if (!lock()) return -1;
    int i = module_of_locked(addr);
    if (i >= 0) {
        *lo = modules[i].lo;
        *hi = modules[i].hi;
    }
    unlock();
    return i < 0 ? -1 : 0;
}

int hp_symbols_program_function(const char *name, uintptr_t *start, uintptr_t *end)
{
    if (!lock()) return -1;
    if (nmodules == 0) refresh_locked();
    int found = -1;
    for (int i = 0; i < nmodules && found < 0; i++) {
        hp_module *m = &modules[i];
        if (m->path[0]) continue;
        if (!m->loaded) load_symbols(m);
        for (uint32_t k = 0; k < m->nsyms; k++) {
            if (strcmp(m->syms[k].name, name) != 0) continue;
            *start = m->syms[k].addr;
            *end = m->syms[k].addr + (m->syms[k].size ? m->syms[k].size : 4096);
            found = 0;
            break;
        }
    }
    unlock();
    return found;
}

int hp_symbols_module_of(uintptr_t addr)
{
    if (!lock()) return -1;
    int i = module_of_locked(addr);
    unlock();
    return i;
}

/* The symbol of a sorted array covering pc, or NULL; a symbol without a
 * size covers `unsized` bytes. */
static const hp_fsym *symbol_in(const hp_fsym *syms, uint32_t nsyms, uintptr_t pc,
                                uintptr_t unsized)
{
    /* The last symbol starting at or below pc. */
    uint32_t lo = 0, hi = nsyms;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (syms[mid].addr <= pc) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return NULL;
    /* Among symbols at the same address prefer one with a size covering pc. */
    for (uint32_t k = lo; k-- > 0 && syms[k].addr == syms[lo - 1].addr;) {
        const hp_fsym *s = &syms[k];
        if (s->size == 0 ? pc - s->addr < unsized : pc < s->addr + s->size) return s;
    }
    return NULL;
}

/* The symbol covering pc in module m, or NULL. */
static const hp_fsym *symbol_at(hp_module *m, uintptr_t pc)
{
    if (!m->loaded) load_symbols(m);
    return symbol_in(m->syms, m->nsyms, pc, 4096);
}

/* ---- Lock-free: called by the owner (collector's lock held), possibly
 * with the world stopped, so it must not take sym_lock (a stopped thread
 * may hold it). The module list is read as published; a module's data
 * symbols are read on first use (open, mmap: no lock, no malloc) into
 * data_arena, which only such serialised callers touch. ---- */
int hp_symbols_data_at(uintptr_t addr, hp_data_sym *out)
{
    int n = __atomic_load_n(&nmodules, __ATOMIC_ACQUIRE);
    for (int i = n - 1; i >= 0; i--) {
        hp_module *m = &modules[i];
        if (addr < m->lo || addr >= m->hi) continue;
        if (!m->data_loaded) {
            m->data_loaded = 1;
            m->ndsyms = read_symbols(m, 1, &data_arena, &m->dsyms);
        }
        const hp_fsym *s = symbol_in(m->dsyms, m->ndsyms, addr, 8);
        out->name = s ? s->name : NULL;
        out->start = s ? s->addr : addr;
        out->end = s ? (s->size ? s->addr + s->size : s->addr + 8) : addr + 8;
        out->module = i;
        out->module_base = m->base;
        out->module_lo = m->lo;
        return 1;
    }
    return 0;
}
/* ---- end of lock-free code ---- */

hp_sym_info hp_symbols_lookup(uintptr_t pc)
{
    hp_sym_info r = {NULL, 0, 0, NULL, -1, 0, 0};
    if (!lock()) return r;
    int i = module_of_locked(pc);
    if (i >= 0) {
        hp_module *m = &modules[i];
        r.module = m->base;
        r.module_index = i;
        r.bias = m->bias;
        const hp_fsym *s = symbol_at(m, pc);
        long k;
        if (s) {
            r.function = s->name;
            r.start = s->addr;
            r.end = s->addr + (s->size ? s->size : 4096);
        } else if ((k = fde_at(m, pc, &r.start, &r.end)) >= 0) {
            r.function = fde_name(m, k);
            r.synthesized = 1;
        }
    }
    unlock();
    return r;
}

uintptr_t hp_symbols_function_start(uintptr_t pc)
{
    uintptr_t start = 0;
    if (!lock()) return pc;
    int i = module_of_locked(pc);
    if (i >= 0) {
        const hp_fsym *s = symbol_at(&modules[i], pc);
        uintptr_t end;
        if (s) start = s->addr;
        else if (fde_at(&modules[i], pc, &start, &end) < 0) start = modules[i].lo;
    }
    unlock();
    return start;
}
