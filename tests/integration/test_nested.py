"""Integration test 5: entry points that call other GC_ functions inside the
collector count each object once (tests/progs/nested.c): GC_strdup,
GC_strndup, GC_memalign, GC_posix_memalign, GC_realloc (moving and in
place), GC_debug_malloc, GC_malloc_explicitly_typed, GC_generic_malloc of a
custom kind, GC_malloc_atomic, GC_malloc_uncollectable. Each site keeps 10
objects; the program prints per site: objects, GC_size of one object's base,
bytes requested per object.
"""
import hptest
from hptest import granted, out_table, prof_field, prof_rows

N = 10
SITES = ["s_strdup", "s_strndup", "s_memalign", "s_posix_memalign", "s_realloc_move",
         "s_realloc_inplace", "s_typed", "s_kind", "s_atomic", "s_uncollectable", "s_debug"]
# Originals of the realloc sites come from mk(): GC_malloc(16), GC_malloc(20).
MOVE_ORIG, INPLACE_ORIG = 16, 20


class Nested(hptest.ProfileTest):

    def setUp(self):
        super().setUp()
        self.r, self.hp, self.prof = self.profile("nested")
        self.out = out_table(self.r.stdout)
        # Sanity of the program itself: realloc moved / stayed as intended.
        self.assertEqual(self.out["moved"], (N, 0, 0))
        for s in SITES:
            self.assertEqual(self.out[s][0], N, s)
        # Sizes the granule rule predicts (memalign, debug and typed objects
        # carry hidden extra bytes, so those come from the program).
        for s, req in [("s_strdup", 16), ("s_strndup", 6), ("s_realloc_move", 200),
                       ("s_atomic", 64), ("s_kind", 48)]:
            self.assertEqual(self.out[s][1], granted(req), s)

    def expected_rows(self):
        rows = {}
        for s in SITES:
            n, size, req = self.out[s]
            name = "mk/s_realloc_inplace/main" if s == "s_realloc_inplace" else s + "/main"
            rows[name] = (n, n * size, n * req, n * size, n * size)
        # The originals that realloc moved away from: freed inside GC_realloc
        # before any collection (so never survived, not live at the peak).
        g = granted(MOVE_ORIG)
        rows["mk/s_realloc_move/main"] = (N, N * g, N * MOVE_ORIG, 0, 0)
        return rows

    def test_prof_rows_count_each_object_once(self):
        self.assertEqual(prof_rows(self.prof), self.expected_rows())

    def test_in_place_realloc_is_not_a_new_object(self):
        rows = prof_rows(self.prof)
        self.assertNotIn("s_realloc_inplace/main", rows)
        self.assertEqual(rows["mk/s_realloc_inplace/main"][:3],
                         (N, N * granted(INPLACE_ORIG), N * INPLACE_ORIG))

    def test_census_counts_each_object_once(self):
        want = {}
        for name, (n, b, _, _, _) in self.expected_rows().items():
            if name != "mk/s_realloc_move/main":
                want[name] = b
        self.assert_bookends(self.hp)
        self.assertEqual([s for _, s in self.hp.nonempty()], [want, want])

    def test_totals(self):
        rows = self.expected_rows()
        objects = sum(r[0] for r in rows.values())
        self.assertEqual(objects, 12 * N)
        self.assertEqual(prof_field(self.prof, "allocated"),
                         f"{objects} objects, {sum(r[1] for r in rows.values())} bytes "
                         f"({sum(r[2] for r in rows.values())} requested)")


if __name__ == "__main__":
    hptest.main()
