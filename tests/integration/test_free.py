"""Integration test 2: objects released with GC_free leave the profile at
the next census, though the program still holds their addresses, and slots
reused by a later allocation are attributed to the new site
(tests/progs/freed.c). Objects that merely die are covered by
test_known_sites.

h() keeps 40 objects of 40 bytes, k() 20; census; h's objects are GC_free'd;
census; m() allocates 41 objects of 40 bytes (40 of them in h's freed
slots); census; exit.
"""
import re

import hptest
from hptest import granted, out_table, prof_field, prof_rows

SZ = granted(40)               # 48
H, K, M = 40 * SZ, 20 * SZ, 41 * SZ


class Free(hptest.ProfileTest):

    def test_freed_objects_leave_at_next_census(self):
        r, hp, prof = self.profile("freed")
        out = out_table(r.stdout)
        self.assertEqual(out["size"], (SZ,))
        self.assertGreater(out["reused"][0], 0,
                           "m() did not reuse h's freed slots: the scenario was not exercised")
        self.assert_bookends(hp)
        self.assertEqual([s for _, s in hp.nonempty()],
                         [{"h/main": H, "k/main": K},
                          {"k/main": K},
                          {"k/main": K, "m/main": M},
                          {"k/main": K, "m/main": M}])
        # Peak: census 3 (K + M). h's objects survived census 1.
        self.assertEqual(prof_rows(prof), {
            "h/main": (40, H, 40 * 40, H, 0),
            "k/main": (20, K, 20 * 40, K, K),
            "m/main": (41, M, 41 * 40, M, M),
        })
        self.assertEqual(prof_field(prof, "allocated"),
                         f"101 objects, {H + K + M} bytes ({101 * 40} requested)")

    def test_block_freed_and_reused_for_another_size(self):
        # tests/progs/reblock.c: a 16 KiB object GC_free'd, its block at
        # once carved into 40-byte objects, with no collection between.
        # The allocation path caches the kind and size of the page it last
        # recorded an object on; a free must drop that cache (without it,
        # the small objects on the big one's page were taken for 16 KiB
        # ones: 1,399,520 bytes instead of 9,600).
        r, hp, prof = self.profile("reblock")
        out = out_table(r.stdout)
        self.assertEqual(out["same_page"], (1,),
                         "no small object on the freed block's page: the scenario was not "
                         "exercised")
        big = out["big"][0]
        self.assertEqual(out["small"], (SZ,))
        self.assertEqual(prof_rows(prof), {
            "big/main": (1, big, 16384, 0, 0),
            "small/main": (200, 200 * SZ, 200 * 40, 200 * SZ, 200 * SZ),
        })
        # The program's census, then the one at exit.
        self.assertEqual([s for _, s in hp.nonempty()], [{"small/main": 200 * SZ}] * 2)
        # The retainer traversal's index: the freed big object's record
        # (still in the table until the sweep) comes first, the small ones
        # on its page after it; the free is applied once every record is
        # indexed (retainer/hp_trace_sigsafe.c): the small objects, not
        # the freed one, are found there, held by small_keep.
        r, hp, prof = self.profile("reblock", heapprof="retainer,interval=0")
        self.assertEqual(out_table(r.stdout)["same_page"], (1,))
        bands = [{re.sub(r"^\(\d+\)", "", k): v for k, v in s.items()} for _, s in hp.nonempty()]
        self.assertEqual(bands, [{"small_keep": 200 * SZ}] * 2)
        self.assertNotIn("not reached", prof.split("RETAINER CENSUSES")[1])


    def test_freed_blocks_merged_and_taken_whole(self):
        # tests/progs/remerge.c: two 16 KiB objects GC_free'd while their
        # records are still in the thread's log (the frees noted against
        # it: core/hp_shadow_internal.h, Note [Frees against a log]), their
        # blocks merged and taken whole by a 32 KiB object. The retainer
        # traversal's drain at the mark phase's end must not ask the
        # collector whether the freed objects are marked: one of them lies
        # inside the new object, where the mark test read a forwarding
        # header and crashed.
        for heapprof in ("cc", "retainer,interval=0", "ldv,interval=0"):
            r, hp, prof = self.profile("remerge", heapprof=heapprof)
            out = out_table(r.stdout)
            self.assertEqual(out["inside"], (1,), "a freed object's base is not inside the new "
                             "one: the scenario was not exercised")
            big, whole = out["big"][0], out["whole"][0]
            self.assertEqual(prof_rows(prof), {
                "pair/main": (2, 2 * big, 2 * 16384, 0, 0),
                "whole/main": (1, whole, 32768, whole, whole),
            }, heapprof)
            self.assertEqual([sum(s.values()) for _, s in hp.nonempty()],
                             [whole] * len(hp.nonempty()), heapprof)
            self.assertGreaterEqual(len(hp.nonempty()), 2, heapprof)

if __name__ == "__main__":
    hptest.main()
