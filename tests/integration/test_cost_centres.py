"""Integration test 8: explicit cost centres (include/heapprof.h). Under
"outer" and "inner" 30 objects of 56 bytes, under "outer" 10 of 24, with no
centre pushed 5 of 40 at alloc_n/plain/main (tests/progs/costcentres.c). The
same program without LD_PRELOAD runs normally with identical output.
"""
import os

import hptest
from hptest import granted, out_table, prof_rows

INNER = 30 * granted(56)        # 1920
OUTER = 10 * granted(24)        # 320
PLAIN = 5 * granted(40)         # 240


class CostCentres(hptest.ProfileTest):

    def test_explicit_centres(self):
        r, hp, prof = self.profile("costcentres")
        self.assertEqual(out_table(r.stdout), {"inner/outer": (30, granted(56)),
                                               "outer": (10, granted(24)),
                                               "alloc_n/plain/main": (5, granted(40))})
        bands = {"inner/outer": INNER, "outer": OUTER, "alloc_n/plain/main": PLAIN}
        self.assert_bookends(hp)
        self.assertEqual([s for _, s in hp.nonempty()], [bands, bands])
        self.assertEqual(prof_rows(prof), {
            "inner/outer": (30, INNER, 30 * 56, INNER, INNER),
            "outer": (10, OUTER, 10 * 24, OUTER, OUTER),
            "alloc_n/plain/main": (5, PLAIN, 5 * 40, PLAIN, PLAIN),
        })

    def test_depth_limits_explicit_stack(self):
        _, hp, prof = self.profile("costcentres", heapprof="interval=0,depth=1")
        self.assertEqual(hp.last(), {"inner": INNER, "outer": OUTER, "alloc_n": PLAIN})

    def test_without_preload_same_output(self):
        r, _, _ = self.profile("costcentres")
        plain = self.run_prog("costcentres", preload=False)
        self.assertEqual(plain.rc, 0, plain.stderr)
        self.assertEqual(plain.stdout, r.stdout)
        self.assertEqual(plain.stderr, "")
        self.assertEqual(os.listdir(plain.cwd), [])


if __name__ == "__main__":
    hptest.main()
