/* hp_assert_sigsafe: the failure path of the debug-build context checks
 * (see hp_assert.h). Async-signal-safe: raw writes and abort. */
#include "core/hp_assert.h"
#include "core/hp_sys.h"

#include <stdlib.h>
#include <string.h>

#ifndef NDEBUG
_Atomic int hp_assert_armed;
_Atomic int hp_assert_world_stopped;
__thread int hp_assert_owner_depth __attribute__((tls_model("initial-exec")));

static void put(const char *s) { hp_sys_write_all(2, s, strlen(s)); }

_Noreturn void hp_assert_fail(const char *rule, const char *file, int line)
{
    char num[16];
    int n = 0;
    char d[16];
    unsigned v = (unsigned)line;
    do { d[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    for (int i = 0; i < n; i++) num[i] = d[n - 1 - i];
    num[n] = 0;
    put("heapprof: internal error: ");
    put(file);
    put(":");
    put(num);
    put(": not in the ");
    put(rule);
    put(" this code requires\n");
    abort();
}
#endif
