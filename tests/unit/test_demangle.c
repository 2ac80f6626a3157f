/* Unit tests of hp_demangle (core/hp_demangle_sigsafe.c): full and short
 * forms of C++ and Rust manglings, names left as they are, the short
 * form's template rule (operators that contain < or > are not brackets,
 * at any depth), and that a result is kept (same pointer twice). The
 * expected full forms are libiberty's without DMGL_VERBOSE (std::ostream
 * where c++filt prints std::basic_ostream<...>). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "core/hp_demangle.h"

static void both(const char *mangled, const char *full, const char *brief)
{
    cr_expect_str_eq(hp_demangle(mangled, HP_DEMANGLE_FULL), full, "full form of %s", mangled);
    cr_expect_str_eq(hp_demangle(mangled, HP_DEMANGLE_SHORT), brief, "short form of %s",
                     mangled);
}

Test(demangle, cpp_functions)
{
    both("_ZN3nix9EvalState12callFunctionERNS_5ValueEmPPS1_S2_RKNS_3PosE",
         "nix::EvalState::callFunction(nix::Value&, unsigned long, nix::Value**, "
         "nix::Value&, nix::Pos const&)",
         "nix::EvalState::callFunction");
    both("_ZN2gcnwEm", "gc::operator new(unsigned long)", "gc::operator new");
    both("_ZThn264_N8Inkscape3XML14SimpleDocument13createElementEPKc",
         "non-virtual thunk to Inkscape::XML::SimpleDocument::createElement(char const*)",
         /* (libiberty keeps a thunk's parameters) */
         "non-virtual thunk to Inkscape::XML::SimpleDocument::createElement(char const*)");
}

Test(demangle, templates_shortened)
{
    /* std::vector<int>::push_back(int const&) */
    both("_ZNSt6vectorIiSaIiEE9push_backERKi",
         "std::vector<int, std::allocator<int> >::push_back(int const&)",
         "std::vector<...>::push_back");
    /* operator< inside template arguments is not a bracket. */
    cr_expect_str_eq(
        hp_demangle("_ZSt10__do_visitIDcZNSt7variantIJiEEltERKS1_S3_EUlOT_E_JRKS1_EEDcS5_DpOT0_",
                    HP_DEMANGLE_SHORT),
        "std::__do_visit<...>");
    /* Operators with < or > at the top level are kept. */
    both("_ZlsRSoRK1A", "operator<<(std::ostream&, A const&)", "operator<<");
    both("_ZN1AptEv", "A::operator->()", "A::operator->");
    both("_ZN1AgtERKS_", "A::operator>(A const&)", "A::operator>");
}

Test(demangle, rust)
{
    /* Legacy Rust mangling (the hash suffix is dropped), and v0. */
    cr_expect_str_eq(hp_demangle("_ZN4core3fmt5write17h01234567890abcdeE", HP_DEMANGLE_FULL),
                     "core::fmt::write");
    cr_expect_str_eq(hp_demangle("_RNvCs1234_7mycrate4main", HP_DEMANGLE_FULL),
                     "mycrate::main");
}

Test(demangle, left_alone)
{
    const char *c = "scm_cons";
    cr_expect_eq(hp_demangle(c, HP_DEMANGLE_FULL), c);
    cr_expect_str_eq(hp_demangle("_Znot_a_mangling", HP_DEMANGLE_FULL), "_Znot_a_mangling");
    cr_expect_str_eq(hp_demangle("w3m+0x6aa00", HP_DEMANGLE_SHORT), "w3m+0x6aa00");
    cr_expect_null(hp_demangle(NULL, HP_DEMANGLE_FULL));
}

Test(demangle, kept_once_made)
{
    const char *a = hp_demangle("_ZN2gcnwEm", HP_DEMANGLE_FULL);
    const char *b = hp_demangle("_ZN2gcnwEm", HP_DEMANGLE_FULL);
    cr_expect_eq(a, b);
    /* The forms are kept apart. */
    cr_expect_neq(hp_demangle("_ZN2gcnwEm", HP_DEMANGLE_SHORT), a);
    /* Many names: the table grows and keeps every earlier result. */
    char id[16], name[64];
    for (int i = 0; i < 20000; i++) {
        snprintf(id, sizeof id, "f%d", i);
        snprintf(name, sizeof name, "_ZN1n%zu%sEv", strlen(id), id);
        hp_demangle(name, HP_DEMANGLE_FULL);
    }
    cr_expect_eq(hp_demangle("_ZN2gcnwEm", HP_DEMANGLE_FULL), a);
    cr_expect_str_eq(hp_demangle("_ZN1n5f1234Ev", HP_DEMANGLE_FULL), "n::f1234()");
}
