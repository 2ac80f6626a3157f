"""Behaviour: a program that calls GC_disable() and then allocates runs to
completion under heapprof (forced collections are declined, never waited
for) and its profile is written."""
import unittest

import bh
import hptest


class Disable(unittest.TestCase):
    def setUp(self):
        bh.check_env(self)

    def test_gc_disabled(self):
        r = hptest.run(self, [bh.bprog("bh_loop"), "0.5", "disable"],
                       heapprof="cc,interval=0.05", stdin="", timeout=30)
        self.assertEqual(r.rc, 0, r.stderr)
        self.assertRegex(r.stdout, r"^started\ndone \d+\n$")
        self.assertEqual(bh.profile_files(r.cwd), ["bh_loop.hp", "bh_loop.prof"], r.stderr)
        hp = hptest.check_hp_format(self, r.hp_path)
        self.assertIn("loop_site/main", hp.last())
        self.assertIn("loop_site/main", hptest.prof_rows(r.prof()))
        self.assertEqual(len(bh.wrote_lines(r.stderr)), 1, r.stderr)


if __name__ == "__main__":
    hptest.main()
