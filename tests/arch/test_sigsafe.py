"""Architecture test: the signal-safe files (*_sigsafe.c) of the built
library call only async-signal-safe functions and each other
(check_sigsafe.py), and the checker finds a planted malloc or printf, or a
call into a file that is not signal-safe (unit tests on objects compiled
here)."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ["HEAPPROF_BUILD"]
CHECKER = os.path.join(HERE, "check_sigsafe.py")


def run(objdir):
    return subprocess.run([sys.executable, CHECKER, objdir], capture_output=True, text=True)


class RealLibrary(unittest.TestCase):

    def test_signal_safe_files_call_only_signal_safe_functions(self):
        r = run(os.path.join(BUILD, "libheapprof.so.p"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"check_sigsafe: \d+ signal-safe objects")

    def test_the_handlers_are_in_signal_safe_files(self):
        objs = os.listdir(os.path.join(BUILD, "libheapprof.so.p"))
        for name in ("preload_hp_signals_sigsafe.c.o",
                     "collector_hooks_hp_census_finish_sigsafe.c.o",
                     "collector_hooks_hp_census_traverse_sigsafe.c.o",
                     "ldv_hp_ldv_trap_sigsafe.c.o",
                     "retainer_hp_trace_sigsafe.c.o"):
            self.assertIn(name, objs)


# The operations of a scheme (core/hp_scheme.h) that run with the world
# stopped or in the SIGINT/SIGTERM finisher: the census calls them through
# the scheme table, a call nm does not see, so each is checked here where
# the table points.
SIGNAL_OPS = ("traverse", "mark_end", "census_begin", "label_of", "stack_label",
              "census_rec", "on_death", "stop", "write_samples", "write_prof")


def scheme_offsets():
    """offsetof every signal-context operation in hp_scheme, compiled here."""
    d = tempfile.mkdtemp(prefix="hp-scheme-")
    try:
        src = os.path.join(d, "off.c")
        with open(src, "w") as f:
            f.write('#include <stddef.h>\n#include <stdio.h>\n#include "core/hp_scheme.h"\n'
                    "int main(void)\n{\n")
            for op in SIGNAL_OPS:
                f.write('    printf("%%zu %s\\n", offsetof(hp_scheme, %s));\n' % (op, op))
            f.write("    return 0;\n}\n")
        exe = os.path.join(d, "off")
        src_root = os.environ.get("HEAPPROF_SRC", os.path.dirname(os.path.dirname(HERE)))
        subprocess.run(["cc", "-D_GNU_SOURCE", "-I", src_root, "-o", exe, src], check=True)
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
        return {int(l.split()[0]): l.split()[1] for l in out.splitlines()}
    finally:
        shutil.rmtree(d)


def readelf(args):
    return subprocess.run(["readelf"] + args, capture_output=True, text=True,
                          check=True).stdout.splitlines()


class SchemeTables(unittest.TestCase):

    def test_signal_context_operations_are_defined_in_signal_safe_files(self):
        objdir = os.path.join(BUILD, "libheapprof.so.p")
        objs = sorted(os.path.join(objdir, o) for o in os.listdir(objdir) if o.endswith(".o"))
        defined_in = {}
        tables = []
        for o in objs:
            for l in readelf(["-sW", o]):
                p = l.split()
                if len(p) == 8 and p[4] == "GLOBAL" and p[6] != "UND":
                    if p[3] == "FUNC":
                        defined_in[p[7]] = os.path.basename(o)
                    if p[3] == "OBJECT" and p[7].startswith("hp_scheme_"):
                        tables.append((o, p[7], int(p[1], 16), int(p[2])))
        self.assertGreaterEqual(len(tables), 6, "scheme tables found: %s" % tables)
        offsets = scheme_offsets()
        checked, bad = 0, []
        for o, table, value, size in tables:
            name = os.path.basename(o)
            for l in readelf(["-rW", o]):
                p = l.split()
                if len(p) < 5 or not p[2].startswith("R_X86_64_64"):
                    continue
                off = int(p[0], 16)
                if not value <= off < value + size:
                    continue
                op = offsets.get(off - value)
                if not op:
                    continue
                target = p[4]
                checked += 1
                if target.startswith("."):   # a static function of the table's own file
                    where = name
                else:
                    where = defined_in.get(target, "?")
                if not where.endswith("_sigsafe.c.o"):
                    bad.append("%s.%s = %s (in %s)" % (table, op, target, where))
        self.assertGreater(checked, 10)
        self.assertEqual(bad, [], "operations that run in a signal handler or with the "
                         "world stopped, defined outside *_sigsafe.c files")


class Checker(unittest.TestCase):

    def objects(self, sources):
        d = tempfile.mkdtemp(prefix="hp-sigsafe-")
        self.addCleanup(shutil.rmtree, d)
        for name, text in sources.items():
            src = os.path.join(d, name)
            with open(src, "w") as f:
                f.write(text)
            subprocess.run(["cc", "-c", "-O2", "-o", os.path.join(d, name + ".o"), src],
                           check=True)
            os.unlink(src)
        return d

    OK = {
        "x_ok_sigsafe.c": "#include <unistd.h>\n"
                          "int hp_helper(int);\n"
                          "int hp_state;\n"
                          "int hp_ok(int fd) { return (int)write(fd, \"x\", 1) + "
                          "hp_helper(fd) + hp_state; }\n",
        "x_helper_sigsafe.c": "int hp_helper(int x) { return x + 1; }\n",
        "x_state.c": "int hp_state = 3;\n#include <stdlib.h>\n"
                     "void *hp_grow(void) { return malloc(8); }\n",
    }

    def test_safe_calls_pass(self):
        r = run(self.objects(self.OK))
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("2 signal-safe objects", r.stdout)

    def test_malloc_and_printf_fail(self):
        src = dict(self.OK)
        src["x_bad_sigsafe.c"] = ("#include <stdio.h>\n#include <stdlib.h>\n"
                                  "void hp_bad(void) { printf(\"%p\\n\", malloc(4)); }\n")
        r = run(self.objects(src))
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("x_bad_sigsafe.c.o: malloc (not async-signal-safe)", r.stdout)
        self.assertIn("x_bad_sigsafe.c.o: printf (not async-signal-safe)", r.stdout)
        self.assertNotIn("x_ok_sigsafe.c.o", r.stdout)

    def test_a_call_into_a_file_that_is_not_signal_safe_fails(self):
        src = dict(self.OK)
        src["x_calls_sigsafe.c"] = "void *hp_grow(void);\nvoid *hp_c(void) { return hp_grow(); }\n"
        r = run(self.objects(src))
        self.assertEqual(r.returncode, 1)
        self.assertIn("x_calls_sigsafe.c.o: hp_grow (defined in a file that is not "
                      "signal-safe)", r.stdout)

    def test_no_signal_safe_object_is_an_error(self):
        r = run(self.objects({"x_state.c": "int hp_state;\n"}))
        self.assertEqual(r.returncode, 1)
        self.assertIn("no *_sigsafe.c.o object", r.stdout)


if __name__ == "__main__":
    unittest.main()
