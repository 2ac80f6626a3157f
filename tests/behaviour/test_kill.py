"""Behaviour: SIGKILL mid-run. The .hp heapprof leaves behind is readable by
hp2ps up to its last sample (there is no closing sample)."""
import os
import signal
import time
import unittest

import bh
import hptest

RING_BYTES = 4096 * 80     # 4096 live objects of 64 bytes (granted 80)


class Kill(unittest.TestCase):
    def setUp(self):
        bh.check_env(self)

    def test_sigkill(self):
        p, d = bh.start(self, [bh.bprog("bh_loop"), "5"], heapprof="cc,interval=0.05")
        self.assertEqual(p.stdout.readline(), "started\n")
        time.sleep(1.0)
        self.assertIsNone(p.poll(), "bh_loop ended before it was killed")
        p.kill()
        p.communicate(timeout=30)
        self.assertEqual(p.returncode, -signal.SIGKILL)
        path = os.path.join(d, "bh_loop.hp")
        self.assertTrue(os.path.exists(path))
        hptest.hp2ps_accepts(self, path)
        hp = hptest.HpFile(path)
        self.assertTrue(hp.complete, "file ends inside a sample")
        self.assertEqual(hp.samples[0], (0.0, {}))
        self.assertTrue(hp.samples[-1][1], "the last sample is a census, not a closing one")
        nonempty = hp.nonempty()
        self.assertGreaterEqual(len(nonempty), 1)
        times = [t for t, _ in hp.samples]
        self.assertEqual(times, sorted(times))
        for t, bands in nonempty:
            self.assertEqual(set(bands), {"loop_site/main"}, t)
            self.assertLessEqual(bands["loop_site/main"], RING_BYTES + 16 * 80)
        self.assertGreaterEqual(nonempty[-1][1]["loop_site/main"], RING_BYTES)


if __name__ == "__main__":
    hptest.main()
