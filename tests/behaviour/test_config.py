"""Behaviour: bad HEAPPROF configuration is refused before main (exit 2,
a message naming the bad token and the valid choices); HEAPPROF=help
prints the help and exits 0; the modes not in this version (retainer, roots) are refused
with a message saying what to run instead."""
import os
import re
import unittest

import bh
import hptest

KEYS = ["interval=", "depth=", "length=", "unwind=", "out="]

# HEAPPROF value -> strings its message must contain: the bad token, then
# the valid choices.
BAD = {
    "bogus": ["'bogus'", "cc", "retainer", "ldv", "roots"] + KEYS,
    "cc,depth=0": ["'depth=0'", "1 to 64"],
    "cc,foo=1": ["'foo=1'"] + KEYS,
    "interval=abc": ["'interval=abc'", "seconds", "0.1"],
    "cc,,": ["empty option"] + KEYS,
}


class Config(unittest.TestCase):
    def setUp(self):
        bh.check_env(self)

    def programs(self):
        # A libgc program and one without libgc: both must be stopped.
        return [[bh.bprog("bh_alloc")], [bh.bprog("bh_nogc")]]

    def test_bad_tokens(self):
        for value, wanted in BAD.items():
            for argv in self.programs():
                with self.subTest(heapprof=value, prog=os.path.basename(argv[0])):
                    r = hptest.run(self, argv, heapprof=value, stdin="")
                    self.assertEqual(r.rc, 2, r.stderr)
                    self.assertEqual(r.stdout, "", "main ran")
                    self.assertTrue(r.stderr.startswith("heapprof: "), r.stderr)
                    for w in wanted:
                        self.assertIn(w, r.stderr)
                    self.assertEqual(bh.profile_files(r.cwd), [])

    def test_help(self):
        for argv in self.programs():
            with self.subTest(prog=os.path.basename(argv[0])):
                r = hptest.run(self, argv, heapprof="help", stdin="")
                self.assertEqual(r.rc, 0, r.stderr)
                self.assertEqual(r.stdout, "", "main ran")
                for mode in ("cc", "retainer", "ldv", "roots", "help"):
                    self.assertRegex(r.stderr, r"(?m)^\s+" + mode + r"\s")
                for key in KEYS:
                    self.assertRegex(r.stderr, r"(?m)^\s+" + re.escape(key))
                for word in ("libunwind", "fp"):
                    self.assertIn(word, r.stderr)
                self.assertEqual(bh.profile_files(r.cwd), [])

    def test_every_mode_runs(self):
        for value in ("retainer", "retainer,bound=2,retainers=main", "roots",
                      "roots,noroot=yes", "cc,rset=stack:main", "ldv", "ldv,ldv=page"):
            with self.subTest(heapprof=value):
                r = hptest.run(self, [bh.bprog("bh_alloc")], heapprof=value, stdin="")
                self.assertEqual(r.rc, 0, r.stderr)
                self.assertIn("heapprof: wrote bh_alloc.hp", r.stderr)


if __name__ == "__main__":
    hptest.main()
