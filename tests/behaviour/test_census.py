"""Behaviour: censuses are forced while a program allocates. With a 1 GiB
heap the collector hardly runs by itself and the program never calls
GC_gcollect, yet interval=0.1 over ~1.5 s gives at least 8 censuses.
Without interval= written, forced collections keep to a tenth of the
program's time (a hundredth under sample=), and one waits ten times as
long as the last collection took: on a 256 MB live heap most due
censuses wait for a natural collection, and the .prof says how many."""
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

    def test_forced_wait_by_mode(self):
        # Every census here is forced (the collector hardly runs by
        # itself): half an interval after it falls due, or a quarter in
        # the modes that walk the heap (collector_hooks/hp_hooks.h,
        # hp_hooks_force_after). Measured: gaps of 0.150-0.154 s in cc and
        # ldv, 0.126-0.129 s in retainer.
        for mode, lo, hi in (("cc", 0.145, 0.25), ("retainer", 0.12, 0.145)):
            with self.subTest(mode=mode):
                r = hptest.run(self, [bh.bprog("bh_loop"), "1.5", "expand"],
                               heapprof=mode + ",interval=0.1", stdin="", timeout=60)
                self.assertEqual(r.rc, 0, r.stderr)
                hp = hptest.check_hp_format(self, r.hp_path)
                times = [t for t, _ in hp.nonempty()]
                gaps = sorted(b - a for a, b in zip(times, times[1:]))
                self.assertGreaterEqual(len(gaps), 5, times)
                median = gaps[len(gaps) // 2]
                self.assertGreaterEqual(median, lo, times)
                self.assertLessEqual(median, hi, times)

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

    def forced_line(self, prof, share="a tenth of the program's time"):
        """(forced, their seconds, censuses not forced for the share, censuses
        left to the collector because a collection takes long, the longest
        such collection's seconds, the longest forced one's seconds) from
        the .prof."""
        stretch = r": the default interval stretches on a big heap, interval= forces at any cost"
        m = re.fullmatch(r"(\d+) \((\d+\.\d{3})(?: s, the longest (\d+\.\d{3}))? s; forced when "
                         r"a census was due and no "
                         r"collection came(?:; (\d+) times none was forced, because forced "
                         r"collections had taken " + re.escape(share) + stretch + r")?"
                         r"(?:; (\d+) censuses were left to the collector's own next "
                         r"collection, because a collection took up to (\d+\.\d{3}) s and a "
                         r"forced one waits ten times as long as the last took" + stretch + r")?\)",
                         hptest.prof_field(prof, "forced collections"))
        self.assertIsNotNone(m, prof)
        self.assertEqual(m.group(3) is not None, int(m.group(1)) > 0, prof)
        return (int(m.group(1)), float(m.group(2)), int(m.group(4) or 0), int(m.group(5) or 0),
                float(m.group(6) or 0), float(m.group(3) or 0))

    def test_forced_waits_for_long_collections(self):
        # The program collects every 0.25 s itself; in between, a census
        # falls due at 0.1 s and would be forced at 0.15 s. With each
        # collection made 40 ms long (a callback of the program's that
        # sleeps at its start), a forced one waits ten times that, 0.4 s,
        # and none is (but perhaps the first, after GC_INIT's quick one):
        # the program's own collections take the censuses. With quick
        # collections, or with interval= written, the censuses are forced.
        slow = [bh.bprog("bh_loop"), "2", "expand", "slowgc=40", "collect=0.25"]
        quick = [bh.bprog("bh_loop"), "2", "expand", "collect=0.25"]
        for args, heapprof, want_forced in ((slow, "cc", False), (slow, "cc,interval=0.1", True),
                                            (quick, "cc", True)):
            with self.subTest(args=args[2:], heapprof=heapprof):
                r = hptest.run(self, args, heapprof=heapprof, stdin="", timeout=60)
                self.assertEqual(r.rc, 0, r.stderr)
                hp = hptest.check_hp_format(self, r.hp_path)
                prof = r.prof()
                forced, _, declined, waited, took, _ = self.forced_line(prof)
                censuses = int(re.match(r"\d+", hptest.prof_field(prof, "censuses")).group(0))
                self.assertEqual(censuses, len(hp.samples) - 2)
                self.assertEqual(declined, 0, prof)
                if want_forced:
                    self.assertGreaterEqual(forced, 4, prof)
                    # interval= written forces at any cost; quick
                    # collections may have one slow among them on a loaded
                    # machine (one of 3 ms took 32 ms during the --all
                    # suite, 2026-11-29: the next due census waited).
                    self.assertLessEqual(waited, 0 if "interval=" in heapprof else 1, prof)
                else:
                    self.assertLessEqual(forced, 1, prof)
                    self.assertGreaterEqual(waited, 4, prof)
                    self.assertGreaterEqual(took, 0.04, prof)
                    # Each of the program's 0.25 s collections took one.
                    self.assertGreaterEqual(censuses, 6, prof)

    def test_forced_share_on_a_big_heap(self):
        args = [bh.bprog("bh_loop"), "2", "expand", "live=256"]
        # interval= written: every due census is forced, whatever it costs.
        r = hptest.run(self, args, heapprof="cc,interval=0.1", stdin="", timeout=120)
        self.assertEqual(r.rc, 0, r.stderr)
        hptest.check_hp_format(self, r.hp_path)
        forced, _, declined, waited, _, _ = self.forced_line(r.prof())
        self.assertGreaterEqual(forced, 8)
        self.assertEqual(declined + waited, 0)
        # The default interval: forcing stops once it has had its share.
        hp = self.check_share(args, "cc", 0.1, "a tenth of the program's time")
        self.assertGreaterEqual(len(hp.nonempty()), 2)

    def test_forced_share_sampled(self):
        # sample= (for production): a hundredth of the program's time.
        args = [bh.bprog("bh_loop"), "2", "expand", "live=256"]
        self.check_share(args, "cc,sample=512K", 0.01,
                         "a hundredth of the program's time (sample=)")

    def check_share(self, args, heapprof, share, words):
        """Run args under heapprof (no interval= written): some collections
        forced, some due censuses left to the collector (for the share, the
        .prof says so in `words`; or for the collections' length), the
        forced ones' time within `share` of the run."""
        r = hptest.run(self, args, heapprof=heapprof, stdin="", timeout=120)
        self.assertEqual(r.rc, 0, r.stderr)
        hp = hptest.check_hp_format(self, r.hp_path)
        prof = r.prof()
        forced, seconds, declined, waited, _, longest = self.forced_line(prof, words)
        run = float(re.match(r"[\d.]+", hptest.prof_field(prof, "run time")).group(0))
        self.assertGreaterEqual(forced, 1)
        self.assertGreater(declined + waited, 0)
        # Each force began with at most the share of the run spent on the
        # earlier ones: so at most the share plus the last one, no longer
        # than the longest forced one, which the .prof gives. (Bounds
        # guessed from the other collections failed on a noisy VM: twice
        # the forced ones' mean, 0.631 s forced against 0.629; the longest
        # collection the program waited for, 0.733 s against 0.691, its
        # last forced one slower than any before, 2026-11-29.)
        self.assertGreater(longest, 0, prof)
        self.assertLessEqual(longest, seconds, prof)
        self.assertLessEqual(seconds, share * run + longest + 0.0005, prof)
        # The censuses still come, at the collections that do.
        censuses = int(re.match(r"\d+", hptest.prof_field(prof, "censuses")).group(0))
        self.assertEqual(censuses, len(hp.samples) - 2)
        return hp


if __name__ == "__main__":
    hptest.main()
