"""Allocation report (issue 6): the BY COLLECTIONS SURVIVED breakdown, the
table with its total row, the .alloc.csv file against the text report, and
bad report= / filter values (tests/progs/report_ages.c, report_kinds.c).

report_ages allocates, all before the first explicit collection:
    f(): 10 x 24 bytes  (granted 32, overhead 8 each)
    g(): 20 x 40 bytes  (granted 48, overhead 8 each)
    h(): 30 x 100 bytes (granted 112, overhead 12 each)
    k(): 40 x 200 bytes (granted 208, overhead 8 each)
and, after the fourth explicit collection,
    l(): 5 x 16 bytes   (granted 32, overhead 16 each).
Collections heapprof sees: G0, the collection GC_INIT runs (before main
allocates anything: an empty census), C1..C5 (the explicit GC_gcollect()
calls) and X, the final collection at exit. An object's "collections
survived" is counted when it dies (or at exit, for those still live):
    f: dropped before C1, dies at C1               -> 0
    g: survives C1, dropped, dies at C2            -> 1
    h: survives C1, C2, C3, dropped, dies at C4    -> 3
    k: survives C1..C5, dropped, dies at X         -> 5, bucket 4+
    l: allocated after C4, survives C5 and X, still live at exit, so it
       dies at exit having survived 2              -> 2
(G0 judges no program object: all are allocated after it.)
"""
import csv
import os
import re

import hptest
from hptest import granted, out_table, prof_field

# name: (objects, requested size, collections survived bucket)
SITES = {
    "f/main": (10, 24, "0"),
    "g/main": (20, 40, "1"),
    "h/main": (30, 100, "3"),
    "k/main": (40, 200, "4+"),
    "l/main": (5, 16, "2"),
}


def site_bytes(name):
    n, size, _ = SITES[name]
    return n * granted(size)


def site_overhead(name):
    n, size, _ = SITES[name]
    return n * (granted(size) - size)


# ---- parsing the .prof's table and breakdown sections, in order ----

TABLE_HEADER = ("objects", "cost-centre stack")


def table(prof_text):
    """The .prof table in order: [(name, (objects, bytes, requested,
    survived, live@peak))], the total row included."""
    rows = []
    in_table = False
    for line in prof_text.splitlines():
        if not in_table:
            in_table = line.strip().startswith("objects") and "cost-centre stack" in line
            continue
        if not line.strip():
            break
        parts = line.split(None, 5)
        rows.append((parts[5], tuple(int(x) for x in parts[:5])))
    return rows


def section(prof_text, title):
    """The lines of a breakdown section ("BY COLLECTIONS SURVIVED" or
    "BY KIND") in order: [(bucket, objects, bytes, overhead, name)]; None
    when the section is absent."""
    lines = prof_text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(title + " ")]
    if not starts:
        return None
    assert len(starts) == 1, f"{title} twice"
    i = starts[0] + 2                    # the title, then the column header
    out = []
    while i < len(lines) and lines[i].strip():
        what, objects, nbytes, overhead, name = lines[i].split(None, 4)
        out.append((what, int(objects), int(nbytes), int(overhead), name))
        i += 1
    return out


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


GEN_BUCKETS = ["0", "1", "2", "3", "4+"]
KINDS = ["normal", "atomic", "uncollectable", "typed", "gcj", "finalized", "other"]
CSV_HEADER = ["stack", "breakdown", "objects", "bytes", "requested", "overhead", "survived",
              "live_at_peak", "source"]


class CsvMatch:
    """Mixin: the .alloc.csv file holds exactly the text report's table and
    breakdowns, in the same order, zero breakdown lines included."""

    def check_csv(self, r, prof, report):
        path = os.path.join(r.cwd, os.path.basename(r.hp_path)[:-3] + ".alloc.csv")
        header, rows = read_csv(path)
        self.assertEqual(header, CSV_HEADER)
        for row in rows:
            self.assertEqual(len(row), 9, row)
        # source: on a stack's "all" row, one file:line (or ?) per frame,
        # innermost first (these programs are built with -g: every frame
        # of the program has one); empty on the total and breakdown rows.
        for row in rows:
            if row[1] != "all" or row[0] == "total profiled":
                self.assertEqual(row[8], "", row)
            elif "/" in row[0] or row[0].endswith("main"):
                parts = row[8].split(";")
                self.assertEqual(len(parts), len(row[0].split("/")), row)
                self.assertTrue(all(re.fullmatch(r".+\.c:\d+", p) for p in parts), row)
        rows = [row[:8] for row in rows]
        gen = section(prof, "BY COLLECTIONS SURVIVED")
        kind = section(prof, "BY KIND")
        self.assertEqual(gen is not None, report in ("gen", "full"))
        self.assertEqual(kind is not None, report in ("kind", "full"))
        # What the CSV must hold, built from the text report.
        expected = []
        for name, (objects, nbytes, requested, survived, at_peak) in table(prof):
            expected.append([name, "all", str(objects), str(nbytes), str(requested),
                             str(nbytes - requested), str(survived), str(at_peak)])
            for title, lines, buckets, prefix in (
                    ("gen", gen, GEN_BUCKETS, "survived:"),
                    ("kind", kind, KINDS, "kind:")):
                if lines is None:
                    continue
                mine = {w: (o, b, v) for w, o, b, v, n in lines if n == name}
                self.assertLessEqual(set(mine), set(buckets))
                for w in buckets:
                    o, b, v = mine.get(w, (0, 0, 0))
                    expected.append([name, prefix + w, str(o), str(b), str(b - v), str(v),
                                     "", ""])
        self.assertEqual(rows, expected)
        # Every line of the breakdown sections was used above (no stray
        # stack names), and the sections list the table's stacks in order.
        names = [n for n, _ in table(prof)]
        for lines in (gen, kind):
            if lines is not None:
                order = []
                for *_, n in lines:
                    if n not in order:
                        order.append(n)
                self.assertEqual(order, [n for n in names if n in order])
        return rows


class Ages(CsvMatch, hptest.ProfileTest):

    def ages_run(self, heapprof):
        r, hp, prof = self.profile("report_ages", heapprof=heapprof)
        # The program's view of the granted sizes agrees with the rule.
        self.assertEqual(out_table(r.stdout),
                         {n.split("/")[0]: (c, granted(s)) for n, (c, s, _) in SITES.items()})
        return r, hp, prof

    def check_table(self, prof):
        # objects, bytes, requested, survived, live@peak. "survived" is the
        # bytes of objects that survived at least one collection: all but
        # f's. The peak census is C1 (g, h and k live: 12640 bytes).
        rows = table(prof)
        self.assertEqual(rows, [
            ("total profiled", (105, 13120, 12120, 12800, 12640)),
            # largest bytes first: k 8320, h 3360, g 960, f 320, l 160
            ("k/main", (40, 8320, 8000, 8320, 8320)),
            ("h/main", (30, 3360, 3000, 3360, 3360)),
            ("g/main", (20, 960, 800, 960, 960)),
            ("f/main", (10, 320, 240, 0, 0)),
            ("l/main", (5, 160, 80, 160, 0)),
        ])
        for name, (objects, nbytes, requested, _, _) in rows[1:]:
            n, size, _ = SITES[name]
            self.assertEqual((objects, nbytes, requested), (n, site_bytes(name), n * size))
        # The total row is the sum of the others, and agrees with the summary.
        self.assertEqual(rows[0][1], tuple(sum(v[i] for _, v in rows[1:]) for i in range(5)))
        self.assertEqual(prof_field(prof, "allocated"),
                         "105 objects, 13120 bytes (12120 requested)")
        self.assertEqual(prof_field(prof, "survived a collection"), "12800 bytes")
        self.assertRegex(prof_field(prof, "peak live"),
                         r"^12640 bytes in 90 objects at \d+\.\d{6} s$")
        # G0, C1..C5 and the final collection: 7, each a census (interval=0).
        self.assertEqual(prof_field(prof, "collections"), "7")
        self.assertEqual(prof_field(prof, "censuses"), "7")

    # BY COLLECTIONS SURVIVED: one line per stack, in its bucket (see the
    # module docstring); total lines first, one per bucket; then the stacks
    # in the table's order. overhead = n x (granted - requested).
    GEN = [
        ("0", 10, 320, 80, "total profiled"),
        ("1", 20, 960, 160, "total profiled"),
        ("2", 5, 160, 80, "total profiled"),
        ("3", 30, 3360, 360, "total profiled"),
        ("4+", 40, 8320, 320, "total profiled"),
        ("4+", 40, 8320, 320, "k/main"),
        ("3", 30, 3360, 360, "h/main"),
        ("1", 20, 960, 160, "g/main"),
        ("0", 10, 320, 80, "f/main"),
        ("2", 5, 160, 80, "l/main"),
    ]
    # BY KIND: all GC_malloc, so "normal" only.
    KIND = [
        ("normal", 105, 13120, 1000, "total profiled"),
        ("normal", 40, 8320, 320, "k/main"),
        ("normal", 30, 3360, 360, "h/main"),
        ("normal", 20, 960, 160, "g/main"),
        ("normal", 10, 320, 80, "f/main"),
        ("normal", 5, 160, 80, "l/main"),
    ]

    def test_survived_buckets_full(self):
        r, hp, prof = self.ages_run("interval=0,report=full")
        self.check_table(prof)
        self.assertEqual(section(prof, "BY COLLECTIONS SURVIVED"), self.GEN)
        # The expected lines follow from the sites' sizes and buckets.
        for name, (n, size, bucket) in SITES.items():
            self.assertIn((bucket, n, site_bytes(name), site_overhead(name), name), self.GEN)
        self.assertEqual(section(prof, "BY KIND"), self.KIND)
        # The heap profile: G0's empty census, C1..C5, the final census.
        self.assert_bookends(hp)
        g, h, k, l = (site_bytes(n) for n in ("g/main", "h/main", "k/main", "l/main"))
        self.assertEqual([s for _, s in hp.samples[1:-1]], [
            {},                                               # G0
            {"g/main": g, "h/main": h, "k/main": k},          # C1
            {"h/main": h, "k/main": k},                       # C2
            {"h/main": h, "k/main": k},                       # C3
            {"k/main": k},                                    # C4
            {"k/main": k, "l/main": l},                       # C5
            {"l/main": l},                                    # exit
        ])
        self.assertEqual(
            r.stderr.strip().splitlines()[-1],
            "heapprof: wrote report_ages.hp, report_ages.prof and report_ages.alloc.csv "
            "(7 censuses, peak 12640 bytes live); view with: hp2ps -c report_ages.hp"
            "; also report_ages.pb.gz (go tool pprof report_ages.pb.gz), report_ages.folded and report_ages.live.folded (flame graphs)")

    def test_survived_buckets_fp_unwinder(self):
        _, _, prof = self.ages_run("interval=0,report=gen,unwind=fp")
        self.check_table(prof)
        self.assertEqual(section(prof, "BY COLLECTIONS SURVIVED"), self.GEN)
        self.assertIsNone(section(prof, "BY KIND"))

    def test_report_kind_alone(self):
        _, _, prof = self.ages_run("interval=0,report=kind")
        self.check_table(prof)
        self.assertIsNone(section(prof, "BY COLLECTIONS SURVIVED"))
        self.assertEqual(section(prof, "BY KIND"), self.KIND)

    def test_report_off_by_default(self):
        for heapprof in ("interval=0", "interval=0,report=off"):
            with self.subTest(heapprof=heapprof):
                r, _, prof = self.ages_run(heapprof)
                self.check_table(prof)
                self.assertIsNone(section(prof, "BY COLLECTIONS SURVIVED"))
                self.assertIsNone(section(prof, "BY KIND"))
                # The table is followed only by its stacks' frames.
                table_part, _, frames = prof.partition("\nSTACK FRAMES (")
                self.assertTrue(table_part.endswith("  l/main\n"), table_part[-200:])
                self.assertRegex(frames, r"\nl/main\n    l  report_ages\+0x[0-9a-f]+  "
                                         r"\S*tests/progs/report_ages.c:\d+\n")
                rows = self.check_csv(r, prof, "off")
                self.assertEqual([row[1] for row in rows], ["all"] * 6)

    def test_csv_matches_text_ages(self):
        for report in ("full", "gen", "kind"):
            with self.subTest(report=report):
                r, _, prof = self.ages_run(f"interval=0,report={report}")
                rows = self.check_csv(r, prof, report)
                per_stack = 1 + (5 if report != "kind" else 0) + (7 if report != "gen" else 0)
                self.assertEqual(len(rows), 6 * per_stack)
                if report == "full":
                    # Spot checks of exact CSV lines.
                    self.assertEqual(rows[0], ["total profiled", "all", "105", "13120",
                                               "12120", "1000", "12800", "12640"])
                    self.assertIn(["k/main", "survived:4+", "40", "8320", "8000", "320", "",
                                   ""], rows)
                    self.assertIn(["f/main", "survived:4+", "0", "0", "0", "0", "", ""], rows)
                    self.assertIn(["l/main", "kind:atomic", "0", "0", "0", "0", "", ""], rows)

    def test_csv_matches_text_kinds(self):
        """report_kinds: several kinds, and an explicit cost centre whose
        name holds a comma and quotes (the quotes become _ in names: odd
        _name_, here), which the CSV must quote."""
        r, _, prof = self.profile("report_kinds", heapprof="interval=0,report=full")
        rows = self.check_csv(r, prof, "full")
        self.assertEqual(len(rows), 9 * 13)
        self.assertEqual(rows[0], ["total profiled", "all", "48", "2800", "2320", "480",
                                   "2800", "2800"])
        self.assertIn(["odd _name_, here", "all", "2", "32", "16", "16", "32", "32"], rows)
        self.assertIn(["custom/main", "kind:other", "5", "400", "320", "80", "", ""], rows)
        with open(os.path.join(r.cwd, "report_kinds.alloc.csv")) as f:
            raw = f.read()
        self.assertIn('\n"odd _name_, here",all,2,32,16,16,32,32,\n', raw)


class BadValues(hptest.ProfileTest):

    def test_bad_report_and_kind(self):
        cases = {
            "report=bogus":
                "heapprof: bad value in HEAPPROF option 'report=bogus': "
                "report is off, gen, kind or full",
            "interval=0,kind=":
                "heapprof: bad value in HEAPPROF option 'kind=': ccs=, module= and kind= "
                "take one name (a function, a module such as libfoo.so.1, or a kind such "
                "as normal or atomic)",
            "interval=0,kind=bogus":
                "heapprof: bad value in HEAPPROF option 'kind=bogus': kind= is one of normal, "
                "atomic, uncollectable, typed, gcj, finalized, other, or kindN (a collector "
                "kind number)",
        }
        for heapprof, message in cases.items():
            with self.subTest(heapprof=heapprof):
                r = self.run_prog("report_ages", heapprof=heapprof)
                self.assertEqual(r.rc, 2, r.stderr)
                self.assertEqual(r.stderr.strip(), message)
                self.assertEqual(r.stdout, "")          # stopped before main
                self.assertEqual(os.listdir(r.cwd), [])


if __name__ == "__main__":
    hptest.main()
