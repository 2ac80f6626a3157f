"""Integration tests 1 and 12: two known allocation sites, exact census
bands and .prof rows, with both unwinders (tests/progs/known_sites.c).

f() keeps 100 objects of 24 bytes (granted 32), g() 50 of 100 bytes
(granted 112); census; f's objects are dropped; census; exit (final census).
"""
import re

import hptest
from hptest import granted, out_table, prof_field, prof_rows

F_BYTES = 100 * granted(24)     # 3200
G_BYTES = 50 * granted(100)     # 5600


class KnownSites(hptest.ProfileTest):

    def check_run(self, heapprof):
        r, hp, prof = self.profile("known_sites", heapprof=heapprof)
        # The program's own view of the granted sizes agrees with the rule.
        self.assertEqual(out_table(r.stdout), {"f": (100, granted(24)),
                                               "g": (50, granted(100))})
        self.assertEqual((F_BYTES, G_BYTES), (3200, 5600))
        self.assert_bookends(hp)
        # Census 1: f and g; census 2 (f dropped): g alone, unchanged; final
        # census at exit: g.
        self.assertEqual([s for _, s in hp.nonempty()],
                         [{"f/main": F_BYTES, "g/main": G_BYTES},
                          {"g/main": G_BYTES},
                          {"g/main": G_BYTES}])
        rows = prof_rows(prof)
        # objects bytes requested survived live@peak (peak = census 1)
        self.assertEqual(rows, {"f/main": (100, F_BYTES, 100 * 24, F_BYTES, F_BYTES),
                                "g/main": (50, G_BYTES, 50 * 100, G_BYTES, G_BYTES)})
        self.assertEqual(prof_field(prof, "allocated"),
                         f"150 objects, {F_BYTES + G_BYTES} bytes (7400 requested)")
        self.assertEqual(prof_field(prof, "survived a collection"),
                         f"{F_BYTES + G_BYTES} bytes")
        self.assertRegex(prof_field(prof, "peak live"),
                         rf"^{F_BYTES + G_BYTES} bytes in 150 objects at \d+\.\d{{6}} s$")
        # interval=0: every collection is a census, and each census is one
        # sample between the two empty bookends.
        censuses = int(prof_field(prof, "censuses"))
        self.assertEqual(censuses, len(hp.samples) - 2)
        self.assertEqual(int(prof_field(prof, "collections")), censuses)
        self.assertEqual(
            r.stderr.strip().splitlines()[-1],
            f"heapprof: wrote known_sites.hp, known_sites.prof and known_sites.alloc.csv "
            f"({censuses} censuses, "
            f"peak {F_BYTES + G_BYTES} bytes live); view with: hp2ps -c known_sites.hp"
            f"; also known_sites.pb.gz (go tool pprof known_sites.pb.gz), known_sites.folded and known_sites.live.folded (flame graphs)")
        return [s for _, s in hp.nonempty()], rows

    def test_default_unwinder(self):
        self.check_run("interval=0")

    def test_unwind_libunwind(self):
        self.check_run("interval=0,unwind=libunwind")

    def test_unwind_fp(self):
        self.check_run("interval=0,unwind=fp")

    def test_unwinders_agree(self):
        self.assertEqual(self.check_run("interval=0,unwind=fp"),
                         self.check_run("interval=0,unwind=libunwind"))

    def test_prof_header_names_the_unwinder(self):
        for unwind in ("fp", "libunwind"):
            with self.subTest(unwind=unwind):
                _, _, prof = self.profile("known_sites", heapprof=f"interval=0,unwind={unwind}")
                self.assertTrue(re.search(rf", unwind {unwind}\n", prof), prof)


if __name__ == "__main__":
    hptest.main()
