"""Behaviour: SIGTERM and SIGINT. A program with no handler of its own dies
by the signal, as without heapprof, and leaves a complete .hp (closing
empty sample) and a .prof carrying the signal note. A program with its own
SIGTERM handler keeps its behaviour."""
import os
import signal
import unittest

import bh
import hptest

NOTE = "the program was stopped by a signal"


class Signals(unittest.TestCase):
    def setUp(self):
        bh.check_env(self)

    def signalled(self, sig, args, heapprof):
        p, d = bh.start(self, [bh.bprog("bh_wait")] + args, heapprof=heapprof)
        self.assertEqual(p.stdout.readline(), "ready\n")
        p.send_signal(sig)
        out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, -sig, err)
        self.assertEqual(out, "")
        return d, err

    def check_profile(self, d, err):
        self.assertEqual(bh.profile_files(d), ["bh_wait.hp", "bh_wait.prof"], err)
        hp = hptest.check_hp_format(self, os.path.join(d, "bh_wait.hp"))
        self.assertEqual(hp.samples[-1][1], {}, "no closing sample")
        self.assertGreater(len(hp.samples), 2)
        # 100 objects of 40 bytes (granted 48).
        self.assertEqual(hp.last().get("wait_site/main"), 4800)
        with open(os.path.join(d, "bh_wait.prof")) as f:
            prof = f.read()
        self.assertIn(NOTE, prof)
        self.assertEqual(len(bh.wrote_lines(err)), 1, err)

    def test_no_handler_after_a_census(self):
        # The program collects once before blocking: one census is taken.
        for sig in (signal.SIGTERM, signal.SIGINT):
            with self.subTest(sig=sig.name):
                d, err = self.signalled(sig, ["collect"], "cc,interval=0")
                self.check_profile(d, err)

    def test_no_handler_before_any_census(self):
        # The program allocates and blocks before any collection happened.
        for sig in (signal.SIGTERM, signal.SIGINT):
            with self.subTest(sig=sig.name):
                d, err = self.signalled(sig, [], None)
                self.check_profile(d, err)

    def test_own_handler(self):
        p, d = bh.start(self, [bh.bprog("bh_wait"), "handler", "collect"],
                        heapprof="cc,interval=0")
        self.assertEqual(p.stdout.readline(), "ready\n")
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 0, err)
        self.assertEqual(out, "caught signal 15\n")
        # It then exits normally: a normal, complete profile.
        self.assertEqual(bh.profile_files(d), ["bh_wait.hp", "bh_wait.prof"], err)
        hp = hptest.check_hp_format(self, os.path.join(d, "bh_wait.hp"))
        self.assertEqual(hp.last().get("wait_site/main"), 4800)
        with open(os.path.join(d, "bh_wait.prof")) as f:
            self.assertNotIn(NOTE, f.read())
        self.assertEqual(len(bh.wrote_lines(err)), 1, err)


if __name__ == "__main__":
    hptest.main()
