"""Architecture test: the library keeps one direction of calls
(check_layers.py on the real tree), and the checker itself finds what it
must: an upward include, a "../" include, a file without a level, an
export outside preload/ (unit tests on small trees made here)."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("HEAPPROF_SRC", os.path.dirname(os.path.dirname(HERE)))
CHECKER = os.path.join(HERE, "check_layers.py")

LEVELS = """\
preload/*        1
collector_hooks/* 2
core/hp_mem*     7
core/hp_shadow*  6
"""


def run(root, levels=None):
    args = [sys.executable, CHECKER, root]
    if levels:
        args += ["--levels", levels]
    return subprocess.run(args, capture_output=True, text=True)


class RealTree(unittest.TestCase):

    def test_the_tree_keeps_its_layers(self):
        r = run(SRC)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"check_layers: \d+ files keep their layers")


class Checker(unittest.TestCase):

    def tree(self, files):
        d = tempfile.mkdtemp(prefix="hp-layers-")
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", d]))
        os.makedirs(os.path.join(d, "tests", "arch"))
        with open(os.path.join(d, "tests", "arch", "levels.txt"), "w") as f:
            f.write(LEVELS)
        for rel, text in files.items():
            os.makedirs(os.path.join(d, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w") as f:
                f.write(text)
        return d

    CLEAN = {
        "core/hp_mem.h": "int hp_mem(void);\n",
        "core/hp_mem.c": '#include "core/hp_mem.h"\nint hp_mem(void) { return 0; }\n',
        "core/hp_shadow.h": '#include "core/hp_mem.h"\n',
        "collector_hooks/hp_census.h": "void hp_census(void);\n",
        "collector_hooks/hp_census.c": '#include "collector_hooks/hp_census.h"\n'
                                       '#include "core/hp_shadow.h"\n',
        "preload/hp_wrappers.c": '#include "collector_hooks/hp_census.h"\n'
                                 '__attribute__((visibility("default"))) void *GC_malloc(unsigned long n)\n'
                                 '{\n    return 0;\n}\n',
    }

    def test_a_clean_tree_passes(self):
        r = run(self.tree(self.CLEAN))
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("6 files keep their layers", r.stdout)

    def test_an_upward_include_fails_naming_file_and_line(self):
        files = dict(self.CLEAN)
        files["core/hp_mem.c"] = ('#include "core/hp_mem.h"\n'
                                  '#include "collector_hooks/hp_census.h"\n')
        r = run(self.tree(files))
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn('core/hp_mem.c:2: level 7 includes "collector_hooks/hp_census.h" '
                      'of level 2: a call upward', r.stdout)
        self.assertIn("1 violation(s)", r.stdout)

    def test_a_model_header_including_the_census_fails(self):
        files = dict(self.CLEAN)
        files["core/hp_shadow.h"] = '#include "collector_hooks/hp_census.h"\n'
        r = run(self.tree(files))
        self.assertEqual(r.returncode, 1)
        self.assertIn("core/hp_shadow.h:1: level 6 includes", r.stdout)

    def test_a_relative_include_fails(self):
        files = dict(self.CLEAN)
        files["collector_hooks/hp_census.c"] = '#include "../core/hp_mem.h"\n'
        r = run(self.tree(files))
        self.assertEqual(r.returncode, 1)
        self.assertIn('collector_hooks/hp_census.c:1: include "../core/hp_mem.h" goes up '
                      'a directory', r.stdout)

    def test_an_include_of_no_file_fails(self):
        files = dict(self.CLEAN)
        files["collector_hooks/hp_census.c"] = '#include "hp_census.h"\n'
        r = run(self.tree(files))
        self.assertEqual(r.returncode, 1)
        self.assertIn('include "hp_census.h" is not a file of the tree', r.stdout)

    def test_a_file_without_a_level_fails(self):
        files = dict(self.CLEAN)
        files["ldv/hp_ldv.c"] = "int x;\n"
        r = run(self.tree(files))
        self.assertEqual(r.returncode, 1)
        self.assertIn("ldv/hp_ldv.c:1: no level", r.stdout)

    def test_an_export_outside_preload_fails(self):
        files = dict(self.CLEAN)
        files["collector_hooks/hp_census.c"] = (
            '__attribute__((visibility("default"))) int write(int fd) { return fd; }\n'
            'void GC_push_all(void *lo, void *hi)\n{\n}\n')
        r = run(self.tree(files))
        self.assertEqual(r.returncode, 1)
        self.assertIn("collector_hooks/hp_census.c:1: an exported symbol outside preload/",
                      r.stdout)
        self.assertIn("collector_hooks/hp_census.c:2: defines GC_push_all outside preload/",
                      r.stdout)

    def test_calls_and_declarations_of_gc_functions_are_not_definitions(self):
        files = dict(self.CLEAN)
        files["collector_hooks/hp_census.c"] = (
            "void GC_gcollect(void);\n"
            "static void f(void)\n{\n    hp_real.GC_gcollect();\n    GC_gcollect();\n}\n")
        r = run(self.tree(files))
        self.assertEqual(r.returncode, 0, r.stdout)


if __name__ == "__main__":
    unittest.main()
