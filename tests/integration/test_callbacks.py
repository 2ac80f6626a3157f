"""Integration test 6: the program's own GC_set_start_callback and
GC_set_on_collection_event callbacks still run under heapprof, as often as
without it, and the getters return the program's functions
(tests/progs/callbacks.c; "early" sets them before GC_INIT).
"""
import hptest
from hptest import out_table

COLLECTIONS = 5


class Callbacks(hptest.ProfileTest):

    def check(self, args, total_starts):
        plain = self.run_prog(args, preload=False)
        self.assertEqual(plain.rc, 0, plain.stderr)
        r, hp, prof = self.profile(args)
        self.assertEqual(r.stdout, plain.stdout)
        out = out_table(r.stdout)
        self.assertEqual(out["collections"], (COLLECTIONS,))
        self.assertEqual(out["starts"], (COLLECTIONS, COLLECTIONS))
        # start callback, and START MARK_END RECLAIM_START RECLAIM_END END
        self.assertEqual(out["total"], (total_starts,) * 6)
        self.assertIn("get_on_collection_event program", r.stdout.splitlines())
        self.assertIn("get_start_callback program", r.stdout.splitlines())
        self.assertEqual(hp.last(), {"fill/main": 100 * hptest.granted(32)})

    def test_set_after_init(self):
        self.check(["callbacks"], COLLECTIONS)

    def test_set_before_init(self):
        # GC_INIT's own collection is seen too.
        self.check(["callbacks", "early"], COLLECTIONS + 1)


if __name__ == "__main__":
    hptest.main()
