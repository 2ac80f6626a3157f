"""The cached libunwind walk (unwind=libunwind, the default) against
libunwind's own walk of every stack (unwind=libunwind-raw), on a program
built -O2 without frame pointers (tests/progs/unwind_mix.c): many call
paths, mutual recursion, alloca, threads. Every allocation is made at a
known site; both walks must give the same table, stack for stack."""
import os
import re

import hptest
from hptest import prof_rows


class Unwind(hptest.ProfileTest):

    def table(self, unwind, depth):
        r, hp, prof = self.profile("unwind_mix", heapprof=f"interval=0.05,depth={depth},unwind={unwind}")
        rows = prof_rows(prof)
        # The cached walk says how many stacks libunwind walked itself: the
        # first walk through each new return address, per thread, so some,
        # and far fewer than the objects.
        m = re.search(r"^\s+libunwind walks\s+(\d+) \(stacks walked by libunwind itself", prof, re.M)
        if unwind == "libunwind":
            self.assertIsNotNone(m, prof)
            objects = sum(row[0] for row in rows.values())
            self.assertGreater(int(m.group(1)), 0)
            self.assertLess(int(m.group(1)) * 20, objects, prof)
        else:
            self.assertIsNone(m, prof)
        # Objects per stack. (Bytes differ from run to run: a thread's first
        # allocations of a size are granted through the collector's global
        # size map, and which come first depends on thread timing.)
        return {name: row[0] for name, row in rows.items()}

    def check(self, depth):
        cached = self.table("libunwind", depth)
        raw = self.table("libunwind-raw", depth)
        self.assertEqual(cached, raw)
        # The sites are all there: both leaves, reached through ping/pong.
        self.assertTrue(any(n.startswith("leaf_a/ping") for n in cached), cached)
        self.assertTrue(any(n.startswith("leaf_b/pong") for n in cached), cached)
        self.assertEqual(sum(cached.values()), sum(raw.values()))

    def test_depth_8(self):
        self.check(8)

    def test_depth_24(self):
        self.check(24)

    def test_depth_2(self):
        self.check(2)

    def test_last_frame_learnt(self):
        # Frames the recipes do not name are named by look-up, a few per
        # return address and thread. examples/trees.c at depth 2: the last
        # frame walked (make's return address after its own call) is never
        # walked through, and until its recipe was learnt for it every
        # object paid a look-up (2.1 million on depth 14: 1.6x the time).
        trees = os.path.join(hptest.BUILD, "examples", "trees")
        _, _, prof = self.profile([trees, "12"], heapprof="interval=0,depth=2")
        objects = sum(row[0] for row in prof_rows(prof).values())
        self.assertGreater(objects, 500000, prof)
        m = re.search(r"^\s+frames named by look-up\s+(\d+) ", prof, re.M)
        self.assertIsNotNone(m, prof)
        self.assertLess(int(m.group(1)), 1000, prof)


if __name__ == "__main__":
    hptest.main()
