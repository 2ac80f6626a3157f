"""Behaviour: a program that never uses libgc runs unchanged under
heapprof (same stdout and exit status), no profile is written, and stderr
says no bdwgc allocations were seen."""
import os
import unittest

import bh
import hptest


class NoGC(unittest.TestCase):
    def setUp(self):
        bh.check_env(self)

    def check(self, argv, stdout, rc):
        plain = hptest.run(self, argv, preload=False, stdin="")
        self.assertEqual((plain.rc, plain.stdout, plain.stderr), (rc, stdout, ""))
        r = hptest.run(self, argv, stdin="")
        self.assertEqual(r.rc, rc, r.stderr)
        self.assertEqual(r.stdout, stdout)
        self.assertEqual(bh.profile_files(r.cwd), [])
        self.assertEqual(os.listdir(r.cwd), [])
        name = os.path.basename(argv[0])
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertTrue(lines[0].startswith(
            f"heapprof: no bdwgc allocations were seen in {name} ("), lines[0])
        self.assertTrue(lines[0].endswith("; no profile written"), lines[0])

    def test_bin_true(self):
        self.check(["/bin/true"], "", 0)

    def test_small_program(self):
        self.check([bh.bprog("bh_nogc"), "a", "b c"],
                   "arg 1: a\narg 2: b c\nplain malloc works\n", 4)


if __name__ == "__main__":
    hptest.main()
