"""Behaviour: a normal run prints exactly one line on stderr,
"heapprof: wrote X.hp, X.prof and X.alloc.csv (N censuses, peak B bytes live); view
with: hp2ps -c X.hp", with X the output stem and figures matching the
profile."""
import os
import re
import shutil
import tempfile
import unittest

import bh
import hptest


class ExitLine(unittest.TestCase):
    def setUp(self):
        bh.check_env(self)

    def check(self, heapprof, stem):
        r = hptest.run(self, [bh.bprog("bh_alloc")], heapprof=heapprof, stdin="", stem=stem)
        self.assertEqual(r.rc, 0, r.stderr)
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        m = bh.WROTE_RE.match(lines[0])
        self.assertIsNotNone(m, lines[0])
        self.assertEqual((m.group(1), m.group(2), m.group(5)), (stem, stem, stem))
        # Three censuses: GC_init's own collection (before any allocation:
        # an empty sample), the program's GC_gcollect, and the final one.
        # 100 cells of 24 bytes (granted 32) are live at both of the last.
        self.assertEqual(int(m.group(3)), 3)
        self.assertEqual(int(m.group(4)), 3200)
        hp = hptest.check_hp_format(self, r.hp_path)
        self.assertEqual(len(hp.samples), 3 + 2)
        self.assertEqual([s[1] for s in hp.samples],
                         [{}, {}, {"make_cell/main": 3200}, {"make_cell/main": 3200}, {}])
        prof = r.prof()
        self.assertEqual(int(re.match(r"\d+", hptest.prof_field(prof, "censuses")).group(0)), 3)
        return r

    def test_default_stem(self):
        self.check("cc,interval=0", "bh_alloc")

    def test_out_stem(self):
        # out= names the files (a trailing .hp is dropped); the line names them.
        d = tempfile.mkdtemp(prefix="bhtest-out-")
        self.addCleanup(shutil.rmtree, d, True)
        stem = os.path.join(d, "run1")
        r = self.check("cc,interval=0,out=" + stem + ".hp", stem)
        self.assertEqual(bh.profile_files(r.cwd), [])
        self.assertEqual(bh.profile_files(d), ["run1.hp", "run1.prof"])

if __name__ == "__main__":
    hptest.main()
