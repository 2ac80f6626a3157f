/* Unit tests of hp_closest (hp_writer/hp_closest_sigsafe.c): the nearest
 * names by edit distance, ignoring case; containment as distance 1; the
 * limit max(2, half the wanted length); at most three, nearest first;
 * duplicates and the exact name itself left out. */
#include <criterion/criterion.h>
#include <string.h>

#include "hp_writer/hp_closest.h"

static const char *closest(const char *want, const char *const *names)
{
    static hp_buf out;
    if (!out.vec.base) cr_assert_eq(hp_buf_init(&out, 1 << 20), 0);
    hp_buf_reset(&out);
    hp_closest c;
    hp_closest_init(&c, want);
    for (int i = 0; names[i]; i++) hp_closest_offer(&c, names[i], strlen(names[i]));
    hp_closest_print(&c, &out);
    return hp_buf_cstr(&out);
}

Test(closest, nearest_first)
{
    const char *names[] = {"main", "make", "check", "make", NULL};
    cr_expect_str_eq(closest("mak", names), "make, main");
    const char *mods[] = {"libc.so.6", "trees", "libgc.so.1", NULL};
    cr_expect_str_eq(closest("trees.so", mods), "trees");
}

Test(closest, case_and_containment)
{
    const char *names[] = {"g_cache", "g_cycle", "stack:main", NULL};
    cr_expect_str_eq(closest("G_CACHE_", names), "g_cache, g_cycle");   /* 1, then 4 */
    const char *frames[] = {"nix::EvalState::allocBindings", "scm_cons", NULL};
    cr_expect_str_eq(closest("allocBindings", frames), "nix::EvalState::allocBindings");
}

Test(closest, nothing_near)
{
    const char *names[] = {"alpha", "beta", "main", NULL};
    cr_expect_str_eq(closest("zzzzzzzz", names), "");
    /* The exact name is not a suggestion (it matched). */
    cr_expect_str_eq(closest("alpha", names), "");
}

Test(closest, three_at_most)
{
    const char *names[] = {"fa", "fb", "fc", "fd", "f", NULL};
    cr_expect_str_eq(closest("fx", names), "fa, fb, fc");
}
