"""Stress: four threads allocate, GC_free, GC_realloc (in place and moving,
small and large objects) and collect at once, in the collector's ordinary
mode (tests/progs/stress.c). The program checks every object's contents;
the profile must be well formed, and its last census
(at exit, after the last collection) must hold at least the bytes the
program still holds, and not much more (objects the program dropped may be
kept a little longer by stale stack words: the collector is conservative).
"""
import hptest


class Stress(hptest.ProfileTest):

    def check_run(self, heapprof):
        r, hp, prof = self.profile("stress", heapprof=heapprof, timeout=300)
        word, live = r.stdout.split()
        self.assertEqual(word, "ok", r.stdout)
        live = int(live)
        final = sum(hp.last().values())
        self.assertGreaterEqual(final, live)
        self.assertLessEqual(final, live + 256 * 1024, (final, live))
        plain = hptest.run(self, [hptest.prog("stress")], preload=False)
        self.assertEqual(plain.rc, 0)
        self.assertEqual(plain.stdout.split()[0], "ok")

    def test_interval_small(self):
        self.check_run("interval=0.01")

    def test_every_collection_fp(self):
        self.check_run("interval=0,unwind=fp")


if __name__ == "__main__":
    hptest.main()
