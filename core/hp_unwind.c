/* hp_unwind: libunwind-derived stack walks with per-thread recipe caching
 * (see hp_unwind.h). */
#define UNW_LOCAL_ONLY
#include "core/hp_unwind.h"
#include "core/hp_unwind_walk.h"
#include "core/hp_symbols.h"
#include "core/hp_capture_cache.h"
#include "core/hp_recipe_cache.h"
#include "core/hp_config.h"

#include <dlfcn.h>
#include <libunwind.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

/* libunwind's functions, found in a private (RTLD_LOCAL) load: Debian's
 * libunwind.so.8 also exports _Unwind_* and backtrace(), which must not
 * replace the program's own. */
static struct {
    int (*backtrace)(void **, int);
    int (*getcontext)(unw_context_t *);
    int (*init_local)(unw_cursor_t *, unw_context_t *);
    int (*step)(unw_cursor_t *);
    int (*get_reg)(unw_cursor_t *, int, unw_word_t *);
    int (*get_save_loc)(unw_cursor_t *, int, unw_save_loc_t *);
    int (*get_proc_info)(unw_cursor_t *, unw_proc_info_t *);
    int (*is_signal_frame)(unw_cursor_t *);
} unw;

static _Atomic int raw_skip = -1;   /* heapprof's own frames in an unw_backtrace */
uintptr_t hp_unwind_lo, hp_unwind_hi;
_Atomic uint64_t hp_unwind_slow_walks_;  /* walks libunwind made itself (walk_and_learn) */
#define slow_walks hp_unwind_slow_walks_

/* Note [A coroutine's outermost frame]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A coroutine made with makecontext() starts in its function as if called
 * from glibc's __start_context, which, when the function returns, goes on
 * to uc_link. That is the coroutine's outermost frame; but libunwind steps
 * past it on another thread than the first (its CFA rule reads an RBP
 * left from the thread's own frames: rc 1, to start_thread's region),
 * and the walk then took a word of the thread's stack for a return
 * address: tests/progs/thread_coro.c's coroutine was named
 * "coro_alloc/coro_entry/libc.so.6/[jit]". __start_context is not
 * exported, so its address is read from a context makecontext() prepares
 * (never run): the return address it leaves at the new stack's top for
 * the function. The walk ends there (HP_RECIPE_LAST), and the name at the
 * coroutine's function (the C library's frame is cut from it, as a
 * thread's start code is). */
static uintptr_t start_context_ip;   /* 0: not found */

static void probe_entry(void) {}

static void find_start_context(void)
{
    static char stack[1024] __attribute__((aligned(16)));
    ucontext_t uc;
    if (getcontext(&uc) != 0) return;
    uc.uc_stack.ss_sp = stack;
    uc.uc_stack.ss_size = sizeof stack;
    uc.uc_link = NULL;
    makecontext(&uc, probe_entry, 0);
    uintptr_t sp = (uintptr_t)uc.uc_mcontext.gregs[REG_RSP];
    if (sp < (uintptr_t)stack || sp + 8 > (uintptr_t)stack + sizeof stack) return;
    uintptr_t ip = *(const uintptr_t *)sp;
    hp_sym_info info = hp_symbols_lookup(ip);
    if (info.module && strncmp(info.module, "libc.so", 7) == 0) start_context_ip = ip;
}

int hp_unwind_init(void)
{
    void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (!h) return -1;
    *(void **)&unw.backtrace = dlsym(h, "unw_backtrace");
    *(void **)&unw.getcontext = dlsym(h, "_Ux86_64_getcontext");
    *(void **)&unw.init_local = dlsym(h, "_ULx86_64_init_local");
    *(void **)&unw.step = dlsym(h, "_ULx86_64_step");
    *(void **)&unw.get_reg = dlsym(h, "_ULx86_64_get_reg");
    *(void **)&unw.get_save_loc = dlsym(h, "_ULx86_64_get_save_loc");
    *(void **)&unw.get_proc_info = dlsym(h, "_ULx86_64_get_proc_info");
    *(void **)&unw.is_signal_frame = dlsym(h, "_ULx86_64_is_signal_frame");
    int (*set_policy)(void *, int) =
        (int (*)(void *, int))dlsym(h, "_ULx86_64_set_caching_policy");
    void **space = dlsym(h, "_ULx86_64_local_addr_space");
    /* libunwind's span first: setting the policy makes its address-
     * validation pipe, which the pipe2 interposer moves out of the
     * program's way only when it knows the call is libunwind's. */
    uintptr_t lo, hi;
    if (unw.backtrace && hp_symbols_module_span((uintptr_t)unw.backtrace, &lo, &hi) == 0) {
        hp_unwind_lo = lo;
        hp_unwind_hi = hi;
    }
    if (set_policy && space) set_policy(*space, UNW_CACHE_PER_THREAD);
    if (!unw.backtrace || !unw.getcontext || !unw.init_local || !unw.step || !unw.get_reg ||
        !unw.get_save_loc || !unw.get_proc_info || !unw.is_signal_frame)
        return -1;
    find_start_context();
    return 0;
}

int hp_unwind_walk_raw(void *ret, uintptr_t *out, int max)
{
    enum { CAP = HP_MAX_DEPTH + 64 };
    void *buf[CAP];
    /* Walk only as far as needed: heapprof's own frames (learnt once: the
     * position of the wrapper's return address) plus `max`. */
    int skip = atomic_load_explicit(&raw_skip, memory_order_relaxed);
    int want = skip >= 0 ? skip + max : max + 16;
    int got = unw.backtrace(buf, want < CAP ? want : CAP);
    int start = -1;
    if (skip >= 0 && skip < got && buf[skip] == ret) {
        start = skip;
    } else {
        if (skip >= 0) got = unw.backtrace(buf, max + 16 < CAP ? max + 16 : CAP);
        for (int i = 0; i < got; i++)
            if (buf[i] == ret) { start = i; break; }
        if (start >= 0) atomic_store_explicit(&raw_skip, start, memory_order_relaxed);
    }
    if (start < 0) {           /* not found: at least the direct caller */
        out[0] = (uintptr_t)ret;
        return 1;
    }
    int n = 0;
    for (int i = start; i < got && n < max; i++) out[n++] = (uintptr_t)buf[i];
    return n;
}

static inline const hp_recipe *find(const hp_recipe *tab, uintptr_t ip)
{
    return hp_recipe_find(tab, ip);
}

static void put(hp_thread *t, const hp_recipe *rec)
{
    hp_recipe_put(t->caches->recipe, rec);
}


/* Does the function of the frame at cursor `c` realign RSP (`and $-N, %rsp`,
 * as code with over-aligned locals does in its prologue)? Then its CFA is
 * not RSP plus a constant. Its code from its start (the unwind
 * information's) to the return address is read with process_vm_readv, so
 * an unreadable page is an answer (yes), not a fault. */
static int realigns(unw_cursor_t *c, uintptr_t ip)
{
    unw_proc_info_t pi;
    if (unw.get_proc_info(c, &pi) != 0 || pi.start_ip == 0 || pi.start_ip >= ip) return 1;
    unsigned char code[1024];
    size_t len = ip - pi.start_ip < sizeof code ? ip - pi.start_ip : sizeof code;
    struct iovec local = { code, len }, remote = { (void *)pi.start_ip, len };
    if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)len) return 1;
    for (size_t i = 0; i + 3 <= len; i++)
        if (code[i] == 0x48 && (code[i + 1] == 0x83 || code[i + 1] == 0x81) && code[i + 2] == 0xe4)
            return 1;
    return 0;
}

/* Work out and check a recipe for the frame `cur` (cursor `here`), whose
 * caller is `next` (cursor `up`, one unw_step further). Only a recipe that
 * reproduces libunwind's own answer is kept. */
static void learn(hp_thread *t, unw_cursor_t *here, unw_cursor_t *up,
                  const hp_uw_frame *cur, const hp_uw_frame *next)
{
    if (unw.is_signal_frame(here) > 0) return;
    hp_recipe r;
    memset(&r, 0, sizeof r);
    r.ip = cur->ip;
    r.fn = HP_FN_UNKNOWN;
    /* Which rule? The frame's RBP tells: RBP-based frames (a frame
     * pointer, alloca) have RBP just below the return address, with the
     * caller's RBP saved there. Otherwise the CFA is RSP plus a constant
     * for this return address (what DWARF call-frame information says for
     * code without a frame pointer), unless the function realigns its
     * stack, whose layout may differ between activations: never cached.
     * (An RBP pointing elsewhere inside the frame is a hint of that, but
     * code also keeps the address of a local in RBP.) */
    uintptr_t cfa = next->sp;
    int rbp_frame = cur->bp + 16 == cfa;
    if (!rbp_frame && cur->bp >= cur->sp && cur->bp < cfa && realigns(here, cur->ip)) return;
    for (int attempt = rbp_frame ? 0 : 1; attempt < 2; attempt++) {
        hp_recipe cand = r;
        if (attempt == 0) {
            cand.flags = HP_RECIPE_CFA_RBP | HP_RECIPE_RBP_SAVED;
            cand.cfa_off = 16;
            cand.rbp_off = -16;
        } else {
            if (rbp_frame) return;   /* an RBP frame whose saved RBP did not check out */
            cand.cfa_off = (int32_t)(cfa - cur->sp);
            if (next->bp != cur->bp) {
                /* Where libunwind found the caller's RBP: a save location
                 * of the caller's frame. */
                unw_save_loc_t loc;
                if (unw.get_save_loc(up, UNW_X86_64_RBP, &loc) != 0 ||
                    loc.type != UNW_SLT_MEMORY)
                    return;
                cand.flags = HP_RECIPE_RBP_SAVED;
                cand.rbp_off = (int32_t)((intptr_t)loc.u.addr - (intptr_t)cfa);
            }
        }
        hp_uw_frame f = *cur;
        if (hp_uw_apply(hp_uw_span_of(t), &cand, &f) && f.ip == next->ip && f.sp == next->sp &&
            f.bp == next->bp) {
            put(t, &cand);
            return;
        }
    }
}

static void read_state(unw_cursor_t *c, hp_uw_frame *f)
{
    unw_word_t v;
    unw.get_reg(c, UNW_REG_IP, &v);
    f->ip = v;
    unw.get_reg(c, UNW_X86_64_RSP, &v);
    f->sp = v;
    unw.get_reg(c, UNW_X86_64_RBP, &v);
    f->bp = v;
}

static int known(hp_thread *t, uintptr_t ip)
{
    return find(t->caches->recipe, ip) != NULL;
}

/* Walk on by recipes from frame `f` (whose recipe is known), as
 * hp_unwind_walk_inline does, writing at most `max` return addresses to out;
 * *done is 0 when a frame further up has no recipe (the output is then
 * incomplete). */
static int recipe_run(hp_thread *t, hp_uw_frame f, uintptr_t *out, int max, int *done)
{
    hp_uw_span span = hp_uw_span_of(t);
    const hp_recipe *tab = t->caches->recipe;
    int n = 0;
    *done = 1;
    while (n < max) {
        const hp_recipe *r = find(tab, f.ip);
        if (!r) {
            *done = 0;
            break;
        }
        out[n] = f.ip;
        if (r->flags & (HP_RECIPE_START | HP_RECIPE_END | HP_RECIPE_LAST)) {
            if (!(r->flags & HP_RECIPE_START) || n == 0) n++;
            break;
        }
        n++;
        if (!hp_uw_apply(span, r, &f)) break;
    }
    return n;
}

/* Teach the recipe of an outermost frame: the walk ends there. */
static void put_last(hp_thread *t, uintptr_t ip)
{
    hp_recipe r;
    memset(&r, 0, sizeof r);
    r.ip = ip;
    r.fn = HP_FN_UNKNOWN;
    r.flags = HP_RECIPE_LAST;
    put(t, &r);
}

/* The slow walk: libunwind's unw_step from here up to the wrapper's caller
 * and beyond, learning a recipe for each frame not yet known; from the
 * first known frame above the unknown ones, by recipes (libunwind's steps
 * cost about a microsecond each, two sigprocmask system calls among
 * them), back to libunwind should a frame further up be unknown too. */
static int walk_and_learn(hp_thread *t, void *ret, uintptr_t *out, int max)
{
    atomic_fetch_add_explicit(&slow_walks, 1, memory_order_relaxed);
    unw_context_t uc;
    unw_cursor_t c;
    if (unw.getcontext(&uc) != 0 || unw.init_local(&c, &uc) != 0)
        return hp_unwind_walk_raw(ret, out, max);
    int n = 0, found = 0, learnt = 0, by_recipes = 1;
    hp_uw_frame cur;
    read_state(&c, &cur);
    for (int steps = 0; steps < HP_MAX_DEPTH + 64; steps++) {
        if (!found && cur.ip == (uintptr_t)ret) found = 1;
        if (found && start_context_ip && cur.ip == start_context_ip) {
            /* A coroutine's outermost frame (Note [A coroutine's outermost frame]). */
            if (!known(t, cur.ip)) put_last(t, cur.ip);
            if (n < max) out[n++] = cur.ip;
            break;
        }
        if (found && learnt && by_recipes && known(t, cur.ip)) {
            int done;
            int m = recipe_run(t, cur, out + n, max - n, &done);
            if (done) return n + m;
            by_recipes = 0;   /* libunwind from here on */
        }
        if (found) {
            if (n >= max) break;
            out[n++] = cur.ip;
        }
        unw_cursor_t here = c;
        int rc = unw.step(&c);
        if (rc <= 0) {
            if (found && rc == 0 && !known(t, cur.ip)) put_last(t, cur.ip);   /* the outermost frame */
            break;
        }
        hp_uw_frame next;
        read_state(&c, &next);
        if (found && !known(t, cur.ip)) {
            learn(t, &here, &c, &cur, &next);
            learnt = 1;
        }
        cur = next;
    }
    if (!found) return hp_unwind_walk_raw(ret, out, max);
    return n;
}

static int fns_unknown(uintptr_t *fns, int n)
{
    for (int i = 0; i < n; i++) fns[i] = HP_FN_UNKNOWN;
    return n;
}

void hp_unwind_note_fn(hp_thread *t, uintptr_t ip, uintptr_t fn, uint32_t end)
{
    if (!t->caches) return;
    hp_recipe *r = (hp_recipe *)find(t->caches->recipe, ip);
    if (!r) return;
    r->fn = fn;
    r->flags |= end & (HP_RECIPE_END | HP_RECIPE_START | HP_RECIPE_LEFT_OUT |
                       HP_RECIPE_THREAD_START);
}

int hp_unwind_walk_slow(hp_thread *t, void *ret, uintptr_t *out, uintptr_t *fns, int max)
{
    t->walk_left_out = 0;
    if (!t->caches || !t->stack_hi) return fns_unknown(fns, hp_unwind_walk_raw(ret, out, max));
    return fns_unknown(fns, walk_and_learn(t, ret, out, max));
}
