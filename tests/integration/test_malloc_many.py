"""Integration test 4: every object of a GC_malloc_many batch is counted
(tests/progs/many.c: batch() asks for three lists of 24-byte objects and
keeps them; the program counts the lists' length and prints it with
GC_size of the objects).
"""
import hptest
from hptest import granted, out_table, prof_field, prof_rows


class MallocMany(hptest.ProfileTest):

    def test_every_object_of_the_batch(self):
        r, hp, prof = self.profile("many")
        out = out_table(r.stdout)
        count, size = out["count"]
        self.assertNotIn("mixed", out)
        self.assertEqual(size, granted(24))
        self.assertGreater(count, 3, "GC_malloc_many returned one-object lists")
        self.assert_bookends(hp)
        self.assertEqual([s for _, s in hp.nonempty()],
                         [{"batch/main": count * size}, {"batch/main": count * size}])
        self.assertEqual(prof_rows(prof), {
            "batch/main": (count, count * size, count * 24, count * size, count * size)})
        self.assertEqual(prof_field(prof, "allocated"),
                         f"{count} objects, {count * size} bytes ({count * 24} requested)")


if __name__ == "__main__":
    hptest.main()
