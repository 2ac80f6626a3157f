"""Integration test 10: naming options. depth=1 keeps the innermost
function, length=N cuts .hp labels (not .prof names); recursion is collapsed
the GHC way (tests/progs/known_sites.c, recursion.c).
"""
import hptest
from hptest import granted, prof_rows

F_BYTES, G_BYTES = 100 * granted(24), 50 * granted(100)
REC, LEAF = 8 * granted(64), 6 * granted(24)


class Labels(hptest.ProfileTest):

    def test_depth_1(self):
        _, hp, prof = self.profile("known_sites", heapprof="interval=0,depth=1")
        self.assertEqual([s for _, s in hp.nonempty()],
                         [{"f": F_BYTES, "g": G_BYTES}, {"g": G_BYTES}, {"g": G_BYTES}])
        self.assertEqual(prof_rows(prof), {"f": (100, F_BYTES, 2400, F_BYTES, F_BYTES),
                                           "g": (50, G_BYTES, 5000, G_BYTES, G_BYTES)})

    def test_length_3(self):
        _, hp, prof = self.profile("known_sites", heapprof="interval=0,length=3")
        self.assertEqual([s for _, s in hp.nonempty()],
                         [{"f/m": F_BYTES, "g/m": G_BYTES}, {"g/m": G_BYTES},
                          {"g/m": G_BYTES}])
        self.assertEqual(set(prof_rows(prof)), {"f/main", "g/main"})

    def test_recursion_collapsed(self):
        _, hp, prof = self.profile("recursion")
        self.assertEqual(hp.last(), {"rec_f/main": REC, "leaf/mid/top/main": LEAF})
        self.assertEqual(prof_rows(prof), {"rec_f/main": (8, REC, 8 * 64, REC, REC),
                                           "leaf/mid/top/main": (6, LEAF, 6 * 24, LEAF, LEAF)})

    def test_depth_2_deep_chain(self):
        _, hp, _ = self.profile("recursion", heapprof="interval=0,depth=2")
        self.assertEqual(hp.last()["leaf/mid"], LEAF)

    def test_length_5(self):
        _, hp, _ = self.profile("recursion", heapprof="interval=0,length=5")
        self.assertEqual(hp.last(), {"rec_f": REC, "leaf/": LEAF})


if __name__ == "__main__":
    hptest.main()
