"""Integration test 9: objects allocated by finalizers are recorded, named
with the finalizer (tests/progs/finalizers.c).

Phase 1: 4 unreachable objects' finalizer on_final runs after GC_gcollect()
and keeps 3 objects of 48 bytes each from fin_alloc().
Phase 2: 4 more objects' finalizer on_final2 is queued (finalize on demand
during the collection) and run inside trigger()'s GC_malloc(5000); each run
keeps 2 objects of 100 bytes from fin_alloc2(). Inside an allocation call is
where heapprof must not take them for nested collector allocations.
"""
import hptest
from hptest import granted, out_table, prof_rows

F1 = 12 * granted(48)           # 768
F2 = 8 * granted(100)           # 896


class Finalizers(hptest.ProfileTest):

    def setUp(self):
        super().setUp()
        self.r, self.hp, self.prof = self.profile("finalizers")
        out = out_table(self.r.stdout)
        self.assertEqual(out["on_final"], (4, 12, granted(48)))
        # 4 finalizers, 8 objects, all 4 run inside trigger(), queued first
        self.assertEqual(out["on_final2"], (4, 8, granted(100), 4, 1))
        self.big = out["trigger"][1]
        self.assertEqual(out["trigger"][0], 1)
        self.rows = prof_rows(self.prof)

    def test_finalizer_after_collection(self):
        self.assertEqual(self.rows["fin_alloc/on_final/main"], (12, F1, 12 * 48, F1, F1))
        self.assertEqual(self.hp.last()["fin_alloc/on_final/main"], F1)

    def test_finalizer_inside_allocation_recorded(self):
        # Every object, once, under a name that has the finalizer in it.
        mine = {n: row for n, row in self.rows.items() if n.startswith("fin_alloc2/on_final2")}
        self.assertEqual(sum(row[0] for row in mine.values()), 8, self.rows)
        self.assertEqual(sum(row[1] for row in mine.values()), F2, self.rows)
        self.assertEqual(sum(row[2] for row in mine.values()), 800, self.rows)
        # The allocation that ran the finalizers is one object of its own.
        self.assertEqual(self.rows["trigger/main"], (1, self.big, 5000, self.big, self.big))

    def test_finalizer_inside_allocation_full_name(self):
        # The collector's and heapprof's frames between on_final2 and
        # trigger are dropped before the stack is cut to depth 8.
        self.assertEqual(self.rows.get("fin_alloc2/on_final2/trigger/main"),
                         (8, F2, 800, F2, F2), self.rows)
        # The .hp label is that name cut to the default length, 25.
        self.assertEqual(self.hp.last().get("fin_alloc2/on_final2/trigger/main"[:25]), F2)


if __name__ == "__main__":
    hptest.main()
