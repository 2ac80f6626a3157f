"""Object kinds (issue 6): the allocation report's BY KIND section, the
.hp mode kind (bands KIND:SIZE) and the kind= filter, with exact figures
(tests/progs/report_kinds.c).

Sites, all kept until exit (so every object survives the one explicit
collection and the final one: bucket 2), with bdwgc 8.2 on x86-64 (16-byte
granules; all-interior-pointers adds one byte to a request):
  normal/main          10 x GC_malloc(24)        granted 32: 24+1 -> 32
  atomic/main          10 x GC_malloc_atomic(100) granted 112: 101 -> 112
  uncollectable/main    6 x GC_malloc_uncollectable(48)          granted 48
  auncollectable/main   4 x GC_malloc_atomic_uncollectable(48)   granted 48
        (bdwgc drops the extra byte of uncollectable objects: "this won't
        be collected anyway"; so no overhead)
  typed/main            8 x GC_malloc_explicitly_typed(24, d)     granted 32
        (gc_typed.h adds the descriptor word less the extra byte, 7: 24+7+1)
  custom/main           5 x GC_generic_malloc(64, kind 6)         granted 80
        (kinds 0-3 are bdwgc's own, 4 and 5 the typed kinds made by
        GC_make_descriptor; the program's GC_new_kind is 6)
  debug/main            3 x GC_debug_malloc(24)                   granted 64
        (the debug header (file, line, size, check word: 32 bytes) and an
        end-of-object word less the extra byte: 24+32+7+1 = 64; the object's
        requested size is the program's 24, so overhead is 40 each)
  odd _name_, here      2 x GC_malloc(8) under an explicit cost centre (.hp label
                        odd__name_,_here),
                        granted 16
"""
import hptest
from hptest import out_table, prof_field
from test_report import section, table

# name: (objects, requested each, granted each, kind category, kind label)
SITES = {
    "normal/main": (10, 24, 32, "normal", "normal"),
    "atomic/main": (10, 100, 112, "atomic", "atomic"),
    "uncollectable/main": (6, 48, 48, "uncollectable", "uncollectable"),
    "auncollectable/main": (4, 48, 48, "uncollectable", "uncollectable"),
    "typed/main": (8, 24, 32, "typed", "typed"),
    "custom/main": (5, 64, 80, "other", "kind6"),
    "debug/main": (3, 24, 64, "normal", "normal"),
    "odd _name_, here": (2, 8, 16, "normal", "normal"),
}
# The table, largest bytes first (equal bytes: the name resolved first comes
# first, as doc/guide.md says; auncollectable/main's stack is met first).
ORDER = ["atomic/main", "custom/main", "normal/main", "uncollectable/main", "typed/main",
         "auncollectable/main", "debug/main", "odd _name_, here"]


def label(name):
    """The .hp label of a stack name (blanks become _)."""
    return name.replace(" ", "_")


def labelled(bands):
    return {label(n): v for n, v in bands.items()}


def row(name):
    n, req, gr, _, _ = SITES[name]
    return n, n * gr, n * req, n * gr - n * req


class Kinds(hptest.ProfileTest):

    def kinds_run(self, heapprof):
        r, hp, prof = self.profile("report_kinds", heapprof=heapprof)
        self.assertEqual(out_table(r.stdout), {
            "normal": (10, 32), "atomic": (10, 112), "uncollectable": (6, 48),
            "auncollectable": (4, 48), "typed": (8, 32), "custom": (5, 80, 6),
            "debug": (3, 64), "odd": (2, 16)})
        return r, hp, prof

    def test_by_kind(self):
        _, hp, prof = self.kinds_run("interval=0,report=full")
        # Table: objects bytes requested survived live@peak; everything is
        # live at both censuses (the peak is the first).
        self.assertEqual(table(prof), [
            ("total profiled", (48, 2800, 2320, 2800, 2800)),
            ("atomic/main", (10, 1120, 1000, 1120, 1120)),
            ("custom/main", (5, 400, 320, 400, 400)),
            ("normal/main", (10, 320, 240, 320, 320)),
            ("uncollectable/main", (6, 288, 288, 288, 288)),
            ("typed/main", (8, 256, 192, 256, 256)),
            ("auncollectable/main", (4, 192, 192, 192, 192)),
            ("debug/main", (3, 192, 72, 192, 192)),
            ("odd _name_, here", (2, 32, 16, 32, 32)),
        ])
        for name, (objects, nbytes, requested, survived, at_peak) in table(prof)[1:]:
            n, b, req, _ = row(name)
            self.assertEqual((objects, nbytes, requested, survived, at_peak), (n, b, req, b, b))
        self.assertEqual([n for n, _ in table(prof)[1:]], ORDER)
        # BY KIND: the totals per category, then each stack's one line.
        #   normal: 10x32 + 3x64 + 2x16 = 544 bytes, overhead 80+120+16 = 216
        #   uncollectable: 6x48 + 4x48 = 480 bytes, overhead 0
        self.assertEqual(section(prof, "BY KIND"), [
            ("normal", 15, 544, 216, "total profiled"),
            ("atomic", 10, 1120, 120, "total profiled"),
            ("uncollectable", 10, 480, 0, "total profiled"),
            ("typed", 8, 256, 64, "total profiled"),
            ("other", 5, 400, 80, "total profiled"),
            ("atomic", 10, 1120, 120, "atomic/main"),
            ("other", 5, 400, 80, "custom/main"),
            ("normal", 10, 320, 80, "normal/main"),
            ("uncollectable", 6, 288, 0, "uncollectable/main"),
            ("typed", 8, 256, 64, "typed/main"),
            ("uncollectable", 4, 192, 0, "auncollectable/main"),
            ("normal", 3, 192, 120, "debug/main"),
            ("normal", 2, 32, 16, "odd _name_, here"),
        ])
        for name in ORDER:
            n, b, _, over = row(name)
            self.assertIn((SITES[name][3], n, b, over, name), section(prof, "BY KIND"))
        # Every object survives the explicit collection and the final one.
        self.assertEqual(section(prof, "BY COLLECTIONS SURVIVED"),
                         [("2", 48, 2800, 480, "total profiled")] +
                         [("2",) + row(name)[:2] + (row(name)[3], name) for name in ORDER])
        self.assertEqual(prof_field(prof, "allocated"),
                         "48 objects, 2800 bytes (2320 requested)")

    # Mode kind: one band per (category or kindN, granted size).
    BANDS = {"normal:32": 320, "atomic:112": 1120, "uncollectable:48": 480,
             "typed:32": 256, "kind6:80": 400, "normal:64": 192, "normal:16": 32}

    def test_kind_mode_bands(self):
        _, hp, prof = self.kinds_run("kind,interval=0")
        expect = {}
        for n, _, gr, _, label in SITES.values():
            expect[f"{label}:{gr}"] = expect.get(f"{label}:{gr}", 0) + n * gr
        self.assertEqual(expect, self.BANDS)
        self.assert_bookends(hp)
        # GC_INIT's empty census, the explicit collection, the final census.
        self.assertEqual([s for _, s in hp.samples[1:-1]], [{}, self.BANDS, self.BANDS])
        self.assertIn("mode kind,", prof)
        self.assertRegex(prof_field(prof, "peak live"), r"^2800 bytes in 48 objects at ")
        # The table is the mode cc one, live@peak included (everything is
        # live at the peak census).
        self.assertEqual(table(prof)[0], ("total profiled", (48, 2800, 2320, 2800, 2800)))
        self.assertEqual([n for n, _ in table(prof)[1:]], ORDER)
        self.assertEqual({n: v for n, v in table(prof)[1:]},
                         {n: row(n)[:3] + (row(n)[1], row(n)[1]) for n in SITES})

    def test_kind_filter(self):
        cases = {
            # filter: cc-mode bands of the one census and the final one
            "normal": {"normal/main": 320, "debug/main": 192, "odd _name_, here": 32},
            "atomic": {"atomic/main": 1120},
            "uncollectable": {"uncollectable/main": 288, "auncollectable/main": 192},
            "typed": {"typed/main": 256},
            "other": {"custom/main": 400},
            "kind6": {"custom/main": 400},
            "kind7": {},        # no such kind: nothing
            "gcj": {},
        }
        _, _, unfiltered = self.kinds_run("interval=0")
        for kind, bands in cases.items():
            with self.subTest(kind=kind):
                _, hp, prof = self.kinds_run(f"interval=0,kind={kind}")
                self.assertEqual([s for _, s in hp.samples[1:-1]],
                                 [{}, labelled(bands), labelled(bands)])
                total = sum(bands.values())
                self.assertRegex(prof_field(prof, "peak live"), rf"^{total} bytes in ")
                # The allocation table is not filtered; live@peak counts
                # only what passes (doc/options.md). Rows of equal bytes
                # (debug/main, auncollectable/main) may swap places: their
                # order is that of name resolution, which a filter changes.
                self.assertEqual({n: v[:4] for n, v in table(prof)},
                                 {n: v[:4] for n, v in table(unfiltered)})
                self.assertEqual([v[1] for _, v in table(prof)[1:]],
                                 [v[1] for _, v in table(unfiltered)[1:]])
                self.assertEqual({n: v[4] for n, v in table(prof)[1:]},
                                 {n: bands.get(n, 0) for n in SITES})

    def test_kind_filter_in_kind_mode(self):
        _, hp, prof = self.kinds_run("kind,interval=0,kind=normal")
        bands = {"normal:32": 320, "normal:64": 192, "normal:16": 32}
        self.assertEqual([s for _, s in hp.samples[1:-1]], [{}, bands, bands])
        self.assertRegex(prof_field(prof, "peak live"), r"^544 bytes in 15 objects at ")
        self.assertEqual({n: v[4] for n, v in table(prof)},
                         {"total profiled": 544, "normal/main": 320, "debug/main": 192,
                          "odd _name_, here": 32, "atomic/main": 0, "custom/main": 0,
                          "uncollectable/main": 0, "auncollectable/main": 0,
                          "typed/main": 0})


if __name__ == "__main__":
    hptest.main()
