"""Behaviour: censuses are forced while a program allocates. With a 1 GiB
heap the collector hardly runs by itself and the program never calls
GC_gcollect, yet interval=0.1 over ~1.5 s gives at least 8 censuses."""
import re
import unittest

import bh
import hptest


class ForcedCensus(unittest.TestCase):
    def setUp(self):
        bh.check_env(self)

    def test_forced_censuses(self):
        r = hptest.run(self, [bh.bprog("bh_loop"), "1.5", "expand"],
                       heapprof="cc,interval=0.1", stdin="", timeout=60)
        self.assertEqual(r.rc, 0, r.stderr)
        self.assertRegex(r.stdout, r"^started\ndone \d+\n$")
        hp = hptest.check_hp_format(self, r.hp_path)
        # Censuses with live objects: all forced but the final one.
        nonempty = hp.nonempty()
        self.assertGreaterEqual(len(nonempty), 8, [t for t, _ in hp.samples])
        for t, bands in nonempty:
            self.assertEqual(set(bands), {"loop_site/main"}, t)
        times = [t for t, _ in nonempty]
        for a, b in zip(times, times[1:]):
            self.assertGreater(b, a, times)
        prof = r.prof()
        censuses = int(re.match(r"\d+", hptest.prof_field(prof, "censuses")).group(0))
        # Every sample between the opening and the closing one is a census
        # (the first is GC_init's own collection, before any allocation).
        self.assertEqual(censuses, len(hp.samples) - 2)
        self.assertEqual(hp.samples[-1][1], {})

    def test_forced_censuses_without_stacks(self):
        # -hT (kind,stacks=no) and sample= record (nearly) nothing, yet the
        # interval is kept as in the other modes (-hT took 2 censuses here
        # before: its threads never checked the clock).
        for mode in ("kind,stacks=no", "cc,sample=512K"):
            with self.subTest(mode=mode):
                r = hptest.run(self, [bh.bprog("bh_loop"), "1.5", "expand"],
                               heapprof=mode + ",interval=0.1", stdin="", timeout=60)
                self.assertEqual(r.rc, 0, r.stderr)
                hp = hptest.check_hp_format(self, r.hp_path)
                prof = r.prof()
                censuses = int(re.match(r"\d+", hptest.prof_field(prof, "censuses")).group(0))
                self.assertGreaterEqual(censuses, 8, [t for t, _ in hp.samples])


if __name__ == "__main__":
    hptest.main()
