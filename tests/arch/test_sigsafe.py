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
