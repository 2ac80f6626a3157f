/* hp_demangle: C++ and Rust symbol names as their programmers wrote them,
 * at output time (never on the allocation path), with libiberty's
 * demanglers (the ones binutils and gdb use), linked into libheapprof so
 * the profiled program gains no dependency.
 *
 * Two forms: HP_DEMANGLE_FULL ("nix::EvalState::callFunction(nix::Value&,
 * unsigned long, ...)", for the .prof, CSV and report) and
 * HP_DEMANGLE_SHORT (no parameter lists, template arguments shown as
 * <...>: "nix::EvalState::callFunction", for .hp labels cut to 25 bytes).
 * A name that is not mangled, or that the demangler refuses, comes back as
 * it is. Results are kept (profiler memory), so each name is demangled
 * once per form. Async-signal-safe: the callback demanglers build on the
 * stack, not with malloc; in a signal handler a name longer than 512
 * bytes is left as it is (stack use grows with the name), and when another
 * thread is demangling the name is returned as it is. */
#ifndef HP_DEMANGLE_H
#define HP_DEMANGLE_H

enum { HP_DEMANGLE_FULL = 0, HP_DEMANGLE_SHORT = 1 };

/* The demangled form of `name` (a stable pointer), or `name` itself. */
const char *hp_demangle(const char *name, int form);

/* In a signal handler (a smaller limit on the names demangled). */
void hp_demangle_set_signal_context(int in_signal);

#endif
