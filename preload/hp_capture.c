/* hp_capture: stack capture by libunwind or by frame pointers. */
#include "hp_capture.h"
#include "hp_stacks.h"
#include "hp_config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

typedef int (*unw_backtrace_fn)(void **buffer, int size);

static unw_backtrace_fn unw_backtrace_ptr;
static int capture_depth = 8;

void hp_capture_init(int unwind_fp, int depth)
{
    capture_depth = depth;
    if (unwind_fp) return;
    /* Loaded privately: Debian's libunwind.so.8 also exports _Unwind_* and
     * backtrace(), which must not replace the program's own. */
    void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (h) unw_backtrace_ptr = (unw_backtrace_fn)dlsym(h, "unw_backtrace");
    if (!unw_backtrace_ptr) {
        char msg[512];
        int n = snprintf(msg, sizeof msg,
            "heapprof: cannot load libunwind.so.8 (%s); using frame pointers "
            "instead. Install Debian's libunwind8, or set unwind=fp to silence this.\n",
            dlerror());
        if (n > 0) (void)!write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
    }
}

int hp_fp_walk(void *frame, void *ret, uintptr_t lo, uintptr_t hi,
               uintptr_t *out, int max)
{
    int n = 0;
    if (max <= 0) return 0;
    out[n++] = (uintptr_t)ret;
    uintptr_t fp = (uintptr_t)frame;
    while (n < max) {
        if (fp < lo || fp + 16 > hi || (fp & 7)) break;
        uintptr_t next = ((uintptr_t *)fp)[0];
        /* Frames grow down: the caller's frame is strictly above ours. */
        if (next <= fp || next + 16 > hi || (next & 7)) break;
        uintptr_t pc = ((uintptr_t *)next)[1];
        if (pc < 4096) break;
        out[n++] = pc;
        fp = next;
    }
    return n;
}

static int unw_walk(void *ret, uintptr_t *out, int max)
{
    void *buf[HP_MAX_DEPTH + 16];
    int got = unw_backtrace_ptr(buf, max + 16);
    int start = -1;
    for (int i = 0; i < got; i++)
        if (buf[i] == ret) { start = i; break; }
    if (start < 0) {           /* not found: at least the direct caller */
        out[0] = (uintptr_t)ret;
        return 1;
    }
    int n = 0;
    for (int i = start; i < got && n < max; i++) out[n++] = (uintptr_t)buf[i];
    return n;
}

uint32_t hp_capture_ccs(hp_thread *t, void *frame, void *ret)
{
    uintptr_t frames[HP_MAX_DEPTH];
    int n;
    if (t->cc_depth > 0) {
        int have = t->cc_depth < HP_CC_MAX ? t->cc_depth : HP_CC_MAX;
        n = have < capture_depth ? have : capture_depth;
        for (int i = 0; i < n; i++)
            frames[i] = HP_FRAME_EXPLICIT | t->cc[have - 1 - i];
    } else if (unw_backtrace_ptr) {
        n = unw_walk(ret, frames, capture_depth);
    } else {
        n = hp_fp_walk(frame, ret, t->stack_lo, t->stack_hi, frames, capture_depth);
    }
    return hp_stacks_intern(frames, (uint32_t)n);
}
