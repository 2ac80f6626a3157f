"""heapprof diff (scripts/heapprof_diff.py, `heapprof diff OLD.hp NEW.hp`):
the figures of the difference between two runs, on hand-made profiles with
known numbers (fixtures/diff/: peak, mean, their change in bytes and
percent, the order, bands and stacks new in NEW or gone from it), the
allocation tables from the .prof files or the .alloc.csv files, the page
it writes (self-contained, escaped, the pprof -base command), the errors
(missing file, a .prof given for the .hp, ...: a message naming the fix,
exit status 2, no page) and the launcher's `diff` subcommand; and on two
real runs of examples/trees, against the runs' own files and go tool
pprof -base."""
import csv
import glob
import html.parser
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

import hptest
import tltest
from tltest import fixture, launch

DIFF = os.path.join(hptest.SRC, "scripts", "heapprof_diff.py")
TREES = os.path.join(hptest.BUILD, "examples", "trees")

_module = None


def diff_module():
    """scripts/heapprof_diff.py, imported."""
    global _module
    if _module is None:
        spec = importlib.util.spec_from_file_location("heapprof_diff", DIFF)
        _module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_module)
    return _module


def diff(testcase, args, cwd):
    """`heapprof diff ARGS` through the launcher; CompletedProcess."""
    return launch(testcase, ["diff"] + list(args), cwd=cwd, timeout=120)


def fixtures_dir(testcase, names=("old.hp", "new.hp", "old.prof", "new.prof")):
    """A temporary directory with copies of fixtures/diff/ files."""
    d = tltest.tempdir(testcase, "tldiff-")
    for n in names:
        shutil.copy(fixture(os.path.join("diff", n)), os.path.join(d, n))
    return d


def page_data(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r'<script type="application/json" id="hp-data">(.*?)</script>', text, re.S)
    return json.loads(m.group(1)), text


class Tables(html.parser.HTMLParser):
    """The cells' text of every table of a page, by the table's id:
    {id: {"head": [[...]], "body": [[...]], "foot": [[...]]}}, and each
    body cell's data-v."""

    def __init__(self, text):
        super().__init__()
        self.tables, self.values = {}, {}
        self.cur = self.part = self.row = self.cell = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id"):
            self.cur = self.tables[a["id"]] = {"head": [], "body": [], "foot": []}
            self.values[a["id"]] = []
        elif self.cur is not None and tag in ("thead", "tbody", "tfoot"):
            self.part = {"thead": "head", "tbody": "body", "tfoot": "foot"}[tag]
        elif self.cur is not None and tag == "tr":
            self.row = []
            self.cur[self.part].append(self.row)
            if self.part == "body":
                self.vrow = []
                self.values[self.table_id()].append(self.vrow)
        elif self.row is not None and tag in ("td", "th"):
            self.cell = ""
            if self.part == "body":
                self.vrow.append(a.get("data-v"))

    def table_id(self):
        return next(k for k, v in self.tables.items() if v is self.cur)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(self.cell)
            self.cell = None
        elif tag == "table":
            self.cur = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


# The fixtures' figures, worked out by hand (fixtures/diff/README.md).
# (name, status, peak before, after, change, change %, mean before, after,
# change, change %), by the change in peak, the largest increase first.
BANDS = [
    ("grow/main", "both", 2000, 4000, 2000, 100.0, 1000.0, 2000.0, 1000.0, 100.0),
    ("fresh/main", "new", None, 1500, 1500, None, None, 500.0, 500.0, None),
    ("steady/main", "both", 400, 400, 0, 0.0, 250.0, 200.0, -50.0, -20.0),
    ("gone/main", "gone", 300, None, -300, None, 100.0, None, -100.0, None),
    ("shrink/main", "both", 800, 200, -600, -75.0, 300.0, 60.0, -240.0, -80.0),
]
# As the page shows them (band, peak before, after, change, %, mean ...).
BANDS_SHOWN = [
    ["grow/main", "2,000", "4,000", "+2,000", "+100.0%", "1,000", "2,000", "+1,000", "+100.0%"],
    ["fresh/main", "—", "1,500", "+1,500", "new", "—", "500", "+500", "new"],
    ["steady/main", "400", "400", "0", "0.0%", "250", "200", "-50", "-20.0%"],
    ["gone/main", "300", "—", "-300", "gone", "100", "—", "-100", "gone"],
    ["shrink/main", "800", "200", "-600", "-75.0%", "300", "60", "-240", "-80.0%"],
]
# The whole heap: peak 2900 -> 5700, mean 6600/4 = 1650 -> 13800/5 = 2760.
HEAP_SHOWN = ["whole heap (all bands)", "2,900", "5,700", "+2,800", "+96.6%", "1,650", "2,760",
              "+1,110", "+67.3%"]
# The allocation tables: (stack, status, bytes before, after, change, %,
# live@peak before, after, change, %), by the change in bytes (ties: by
# the change in live@peak).
ALLOC = [
    ("grow/main", "both", 20000, 50000, 30000, 150.0, 2000, 4000, 2000, 100.0),
    ("fresh/main", "new", None, 30000, 30000, None, None, 1500, 1500, None),
    ("steady/main", "both", 15000, 15000, 0, 0.0, 400, 200, -200, -50.0),
    ("gone/main", "gone", 10000, None, -10000, None, 100, None, -100, None),
    ("shrink/main", "both", 15000, 5000, -10000, -10000 / 15000 * 100, 400, 0, -400, -100.0),
]
ALLOC_SHOWN = [
    ["grow/main", "20,000", "50,000", "+30,000", "+150.0%", "2,000", "4,000", "+2,000",
     "+100.0%"],
    ["fresh/main", "—", "30,000", "+30,000", "new", "—", "1,500", "+1,500", "new"],
    ["steady/main", "15,000", "15,000", "0", "0.0%", "400", "200", "-200", "-50.0%"],
    ["gone/main", "10,000", "—", "-10,000", "gone", "100", "—", "-100", "gone"],
    ["shrink/main", "15,000", "5,000", "-10,000", "-66.7%", "400", "0", "-400", "-100.0%"],
]
ALLOC_TOTAL_SHOWN = ["total profiled", "60,000", "100,000", "+40,000", "+66.7%", "2,900",
                     "5,700", "+2,800", "+96.6%"]


def band_tuples(rows):
    return [tuple(r[k] for k in ("name", "status", "peakOld", "peakNew", "peakChange",
                                 "peakPct", "meanOld", "meanNew", "meanChange", "meanPct"))
            for r in rows]


def alloc_tuples(rows):
    return [tuple(r[k] for k in ("name", "status", "bytesOld", "bytesNew", "bytesChange",
                                 "bytesPct", "liveOld", "liveNew", "liveChange", "livePct"))
            for r in rows]


class Figures(unittest.TestCase):
    """The diff's figures, from the module's functions."""

    def setUp(self):
        tltest.check_env(self)
        self.D = diff_module()

    def test_band_stats(self):
        hp = self.D.parse_hp(fixture("diff/old.hp"))
        stats, totals = self.D.band_stats(hp)
        self.assertEqual(stats, {
            "grow/main": {"peak": 2000, "peakTime": 1.0, "mean": 1000.0},
            "steady/main": {"peak": 400, "peakTime": 0.5, "mean": 250.0},
            "shrink/main": {"peak": 800, "peakTime": 0.5, "mean": 300.0},
            "gone/main": {"peak": 300, "peakTime": 0.5, "mean": 100.0}})
        self.assertEqual(totals, [0, 2500, 2900, 1200])
        heap = self.D.heap_figures(hp, totals)
        self.assertEqual((heap["peak"], heap["peakTime"], heap["mean"], heap["samples"]),
                         (2900, 1.0, 1650.0, 4))
        hp = self.D.parse_hp(fixture("diff/new.hp"))
        stats, totals = self.D.band_stats(hp)
        self.assertEqual(stats["fresh/main"], {"peak": 1500, "peakTime": 3.0, "mean": 500.0})
        self.assertEqual(totals, [0, 1600, 4000, 5700, 2500])
        heap = self.D.heap_figures(hp, totals)
        self.assertEqual((heap["peak"], heap["peakTime"], heap["mean"], heap["samples"]),
                         (5700, 3.0, 2760.0, 5))

    def test_band_diff(self):
        old = self.D.band_stats(self.D.parse_hp(fixture("diff/old.hp")))[0]
        new = self.D.band_stats(self.D.parse_hp(fixture("diff/new.hp")))[0]
        self.assertEqual(band_tuples(self.D.diff_bands(old, new)), BANDS)
        # Swapped: every change the other way, new and gone swapped, the
        # order by the (new) change in peak.
        back = band_tuples(self.D.diff_bands(new, old))
        self.assertEqual([r[0] for r in back], ["shrink/main", "gone/main", "steady/main",
                                                "fresh/main", "grow/main"])
        self.assertEqual({r[0]: r[1] for r in back}["fresh/main"], "gone")
        self.assertEqual({r[0]: r[1] for r in back}["gone/main"], "new")
        self.assertEqual({r[0]: (r[4], r[5]) for r in back}["shrink/main"], (600, 300.0))
        # Equal changes: by name.
        same = {"b": {"peak": 5, "peakTime": 0, "mean": 1}, "a": {"peak": 5, "peakTime": 0,
                                                                  "mean": 1}}
        self.assertEqual([r["name"] for r in self.D.diff_bands(same, same)], ["a", "b"])

    def test_percent(self):
        self.assertEqual(self.D.pct(200, 300), 50.0)
        self.assertEqual(self.D.pct(0, 0), 0.0)
        self.assertIsNone(self.D.pct(0, 10))       # from nothing: no percentage
        self.assertEqual(self.D.fmt_pct(12.345, "both"), "+12.3%")
        self.assertEqual(self.D.fmt_pct(-0.01, "both"), "0.0%")
        self.assertEqual(self.D.fmt_pct(None, "new"), "new")
        self.assertEqual(self.D.fmt_pct(None, "gone"), "gone")
        self.assertEqual(self.D.fmt_pct(None, "both"), "from 0")

    def test_alloc_from_prof(self):
        old = self.D.Side(fixture("diff/old.hp"), [])
        new = self.D.Side(fixture("diff/new.hp"), [])
        self.assertEqual(old.alloc_source, fixture("diff/old.prof"))
        self.assertEqual(old.alloc_total, (60000, 2900))
        self.assertEqual(new.alloc_total, (100000, 5700))
        self.assertEqual((old.allocated(), new.allocated()), (60000, 100000))
        self.assertEqual(alloc_tuples(self.D.diff_alloc(old.alloc, new.alloc)), ALLOC)

    def test_alloc_from_csv(self):
        # No .prof: the .alloc.csv files, rows of breakdown "all" only; a
        # stack with a comma in it (quoted in the CSV).
        d = fixtures_dir(self, ("old.hp", "new.hp"))
        header = "stack,breakdown,objects,bytes,requested,overhead,survived,live_at_peak,source"
        for name, rows in (("old", [("total profiled", 61000, 2950), ("grow/main", 20000, 2000),
                                    ('"f(a, b)/main"', 1000, 50)]),
                           ("new", [("total profiled", 50000, 4000), ("grow/main", 50000, 4000)])):
            with open(os.path.join(d, name + ".alloc.csv"), "w") as f:
                f.write(header + "\n")
                for stack, b, live in rows:
                    f.write(f"{stack},all,10,{b},{b},0,0,{live},a.c:1\n")
                    f.write(f"{stack},survived:0,9,{b - 1},{b},0,,,\n")      # left out
        old = self.D.Side(os.path.join(d, "old.hp"), [])
        new = self.D.Side(os.path.join(d, "new.hp"), [])
        self.assertEqual(old.alloc_source, os.path.join(d, "old.alloc.csv"))
        self.assertEqual(old.alloc, {"grow/main": (20000, 2000), "f(a, b)/main": (1000, 50)})
        self.assertEqual(alloc_tuples(self.D.diff_alloc(old.alloc, new.alloc)), [
            ("grow/main", "both", 20000, 50000, 30000, 150.0, 2000, 4000, 2000, 100.0),
            ("f(a, b)/main", "gone", 1000, None, -1000, None, 50, None, -50, None)])
        r = diff(self, ["old.hp", "new.hp"], d)
        self.assertEqual(r.returncode, 0, r.stderr)
        T = Tables(page_data(os.path.join(d, "new.diff.html"))[1]).tables
        self.assertEqual(T["alloc-diff"]["foot"], [["total profiled", "61,000", "50,000",
                                                    "-11,000", "-18.0%", "2,950", "4,000",
                                                    "+1,050", "+35.6%"]])

    def test_top_and_other(self):
        old, _ = self.D.load_run(fixture("diff/old.hp"), "t")
        new, _ = self.D.load_run(fixture("diff/new.hp"), "t")
        data = self.D.build_data(old, new, 2)
        # Drawn: the two largest by the larger of their means; the rest OTHER.
        self.assertEqual([b["name"] for b in data["bands"]], ["grow/main", "fresh/main", "OTHER"])
        self.assertEqual(data["bands"][-1]["other"], 3)
        before, after = data["runs"]
        self.assertEqual(before["values"], [[0, 1000, 2000, 1000], [0, 0, 0, 0],
                                            [0, 1500, 900, 200]])
        self.assertEqual(after["values"][2], [0, 600, 500, 200, 0])
        self.assertEqual((before["times"], after["times"]),
                         ([0.0, 0.5, 1.0, 1.5], [0.0, 1.0, 2.0, 3.0, 4.0]))
        # Every band is still in the table.
        self.assertEqual(len(data["bandDiff"]), 5)
        data = self.D.build_data(old, new, 0)
        self.assertEqual([b["name"] for b in data["bands"]],
                         ["grow/main", "fresh/main", "shrink/main", "steady/main", "gone/main"])


class Page(unittest.TestCase):
    """The page `heapprof diff` writes."""

    def setUp(self):
        tltest.check_env(self)

    def test_fixture_page(self):
        d = fixtures_dir(self)
        r = diff(self, ["old.hp", "new.hp"], d)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = os.path.join(d, "new.diff.html")
        self.assertEqual(r.stdout, f"heapprof diff: wrote {out} (peak 2.83 KiB -> 5.57 KiB "
                                   "(+96.6%), 5 bands; with the allocation tables)\n")
        self.assertEqual(r.stderr, "")
        data, text = page_data(out)
        self.assertEqual(band_tuples(data["bandDiff"]), BANDS)
        self.assertEqual(alloc_tuples(data["allocDiff"]), ALLOC)
        T = Tables(text)
        bands = T.tables["bands-diff"]
        self.assertEqual(bands["head"], [["", "peak", "mean"],
                                         ["band"] + ["before", "after", "change",
                                                     "change %"] * 2])
        self.assertEqual(bands["body"], BANDS_SHOWN)
        self.assertEqual(bands["foot"], [HEAP_SHOWN])
        # The sort keys: a new band's percentage is the largest, a gone one's -100.
        self.assertEqual([v[4] for v in T.values["bands-diff"]],
                         ["100.0", "Infinity", "0.0", "-100", "-75.0"])
        alloc = T.tables["alloc-diff"]
        self.assertEqual(alloc["head"][1][0], "cost-centre stack (innermost first)")
        self.assertEqual(alloc["head"][0], ["", "bytes", "live@peak"])
        self.assertEqual(alloc["body"], ALLOC_SHOWN)
        self.assertEqual(alloc["foot"], [ALLOC_TOTAL_SHOWN])
        # Both runs named: JOB and DATE.
        for key, job, date in (("before", "app 100", "Mon Nov 23 10:00 2026"),
                               ("after", "app 200", "Tue Nov 24 11:30 2026")):
            self.assertIn(f'<td class="job" id="job-{key}">{job}</td>', text)
            self.assertIn(f'<td class="date" id="date-{key}">{date}</td>', text)
        # The figures over the tables.
        self.assertIn("1 new, 1 gone", text)
        self.assertIn("58.59 KiB → 97.66 KiB", text)
        # Self-contained; no pprof section without the .pb.gz files.
        self.assertEqual(set(re.findall(r"https?://[^\s\"')]+", text)),
                         {"http://www.w3.org/2000/svg"})
        self.assertNotRegex(text, r"<(link|img|iframe)\b|\bsrc=")
        self.assertNotIn('id="pprof"', text)
        self.assertNotIn("pprof", data)

    def test_output_place(self):
        d = fixtures_dir(self)
        os.mkdir(os.path.join(d, "runs"))
        shutil.move(os.path.join(d, "new.hp"), os.path.join(d, "runs", "new.hp"))
        r = diff(self, ["old.hp", "runs/new.hp"], d)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.isfile(os.path.join(d, "runs", "new.diff.html")))
        r = diff(self, ["old.hp", "runs/new.hp", "-o", "x.html"], d)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith(f"heapprof diff: wrote {d}/x.html ("), r.stdout)
        # No .prof beside NEW: no allocation tables, and the page says why.
        data, text = page_data(os.path.join(d, "x.html"))
        self.assertNotIn("allocDiff", data)
        self.assertIn("Not compared: no heapprof .prof or .alloc.csv with an allocation "
                      "table beside runs/new.hp.", text)

    def test_pprof_hint(self):
        d = fixtures_dir(self)
        for n in ("old.pb.gz", "new.pb.gz"):
            open(os.path.join(d, n), "wb").close()
        os.mkdir(os.path.join(d, "a b"))
        shutil.copy(os.path.join(d, "new.hp"), os.path.join(d, "a b", "new.hp"))
        shutil.copy(os.path.join(d, "new.pb.gz"), os.path.join(d, "a b", "new.pb.gz"))
        r = diff(self, ["old.hp", "new.hp"], d)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("; with the allocation tables and the pprof -base command)", r.stdout)
        data, text = page_data(os.path.join(d, "new.diff.html"))
        cmd = "go tool pprof -top -sample_index=alloc_space -base old.pb.gz new.pb.gz"
        self.assertEqual(data["pprof"], cmd)
        self.assertIn(f'<pre class="cmd">{cmd}</pre>', text)
        self.assertIn("go tool pprof -top -sample_index=inuse_space -base old.pb.gz new.pb.gz",
                      text)
        # A path with a blank is quoted for the shell.
        r = diff(self, ["old.hp", "a b/new.hp", "-o", "q.html"], d)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(page_data(os.path.join(d, "q.html"))[0]["pprof"],
                         "go tool pprof -top -sample_index=alloc_space -base old.pb.gz "
                         "'a b/new.pb.gz'")
        # One of the two missing: no command.
        os.remove(os.path.join(d, "old.pb.gz"))
        r = diff(self, ["old.hp", "new.hp"], d)
        self.assertEqual(r.returncode, 0, r.stderr)
        data, text = page_data(os.path.join(d, "new.diff.html"))
        self.assertNotIn("pprof", data)
        self.assertNotIn('id="pprof"', text)

    def test_everything_escaped(self):
        d = tltest.tempdir(self, "tldiff-")
        evil = "</script><b>x</b>&amp;/main"
        for name, v in (("old", 100), ("new", 300)):
            with open(os.path.join(d, name + ".hp"), "w") as f:
                f.write(f'JOB "<script>alert(1)</script> {name}"\nDATE "<i>d</i>"\n'
                        f'SAMPLE_UNIT "seconds"\nVALUE_UNIT "bytes"\n'
                        f"BEGIN_SAMPLE 1.0\n{evil}\t{v}\nEND_SAMPLE 1.0\n")
        r = diff(self, ["old.hp", "new.hp"], d)
        self.assertEqual(r.returncode, 0, r.stderr)
        data, text = page_data(os.path.join(d, "new.diff.html"))
        self.assertEqual(data["bandDiff"][0]["name"], evil)
        self.assertEqual(data["runs"][0]["job"], "<script>alert(1)</script> old")
        self.assertNotIn("<b>x", text)
        self.assertNotIn("<i>d", text)
        self.assertNotIn("<script>alert", text)
        self.assertEqual(text.count("</script>"), 2)        # the page's own two
        T = Tables(text).tables
        self.assertEqual(T["bands-diff"]["body"][0][:5],
                         [evil, "100", "300", "+200", "+200.0%"])

    def test_comparison_warnings(self):
        # Different kinds of profile: said on stderr and on the page.
        d = fixtures_dir(self)
        path = os.path.join(d, "new.prof")
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text.replace("mode cc,", "mode kind,").replace("label length 25",
                                                                   "label length 40"))
        r = diff(self, ["old.hp", "new.hp"], d)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr.splitlines(), [
            "heapprof diff: warning: the runs are different kinds of profile (mode cc before, "
            "kind after): their bands are not the same things; profile both the same way",
            "heapprof diff: warning: the runs cut their labels to different lengths (25 "
            "before, 40 after: length=/-L): a band may show as gone in one and new in the "
            "other"])
        text = page_data(os.path.join(d, "new.diff.html"))[1]
        self.assertIn('<p class="warn">the runs are different kinds of profile (mode cc '
                      'before, kind after)', text)
        # No band in common (GHC's profiles of one run by cost centre and by type).
        r = diff(self, [fixture("trees-ghc-hc.hp"), fixture("trees-ghc-hy.hp"), "-o", "g.html"],
                 d)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "heapprof diff: warning: no band is in both runs: are they "
                                   "the same kind of profile (-hc, -hy, ...) with the same "
                                   "label length? Every band shows as new or gone\n")
        # A run with no samples.
        with open(os.path.join(d, "empty.hp"), "w") as f:
            f.write('JOB "app 0"\nDATE "Mon Nov 23 10:00 2026"\n')
        r = diff(self, ["empty.hp", "new.hp", "-o", "e.html"], d)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "heapprof diff: warning: empty.hp has no samples: there is "
                                   "nothing to compare over time\n")
        data = page_data(os.path.join(d, "e.html"))[0]
        self.assertEqual({row["status"] for row in data["bandDiff"]}, {"new"})
        self.assertEqual(data["runs"][0]["heap"]["peak"], 0)
        # The same file twice.
        r = diff(self, ["old.hp", "old.hp", "-o", "same.html"], d)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("warning: the two files are the same file: every change is 0", r.stderr)
        data = page_data(os.path.join(d, "same.html"))[0]
        self.assertEqual({row["peakChange"] for row in data["bandDiff"]}, {0})

    def test_partial_profile(self):
        # Mode ldv, a run that did not finish: PROG.hp without samples,
        # PROG.partial.hp beside it is compared instead (as report draws it).
        d = fixtures_dir(self, ("old.hp", "new.hp"))
        shutil.move(os.path.join(d, "new.hp"), os.path.join(d, "new.partial.hp"))
        with open(os.path.join(d, "new.hp"), "w") as f:
            f.write('JOB "app 200"\nDATE "Tue Nov 24 11:30 2026"\nSAMPLE_UNIT "seconds"\n'
                    'VALUE_UNIT "bytes"\n')
        r = diff(self, ["old.hp", "new.hp"], d)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("heapprof diff: note: new.hp has no samples: the program did not finish "
                      "(mode ldv writes its samples at the end); using new.partial.hp, the "
                      "partial profile heapprof kept, instead", r.stderr)
        data, _ = page_data(os.path.join(d, "new.diff.html"))
        self.assertEqual(band_tuples(data["bandDiff"]), BANDS)
        self.assertEqual(data["runs"][1]["source"], "new.partial.hp")


class Errors(unittest.TestCase):
    """Bad input: a message naming the problem and the fix, status 2, no page."""

    def setUp(self):
        tltest.check_env(self)

    def check(self, args, message, d=None, files=("old.hp", "new.hp", "old.prof", "new.prof")):
        d = d or fixtures_dir(self, files)
        before = set(os.listdir(d))
        r = diff(self, args, d)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stdout, "")
        if hasattr(message, "search"):
            self.assertRegex(r.stderr, message)
        else:
            self.assertEqual(r.stderr, message + "\n")
        self.assertEqual(set(os.listdir(d)), before, "a file was written")
        return r

    def test_missing_file(self):
        self.check(["old.hp", "nothere.hp"],
                   "heapprof diff: nothere.hp: no such file; give the .hp file heapprof wrote "
                   "for the run (PROG.hp, or STEM.hp with out=STEM)")
        # A stem given for the file: the .hp is named.
        self.check(["old", "new.hp"],
                   "heapprof diff: old: no such file; give the .hp file heapprof wrote for "
                   "the run (PROG.hp, or STEM.hp with out=STEM) (old.hp exists: give that)")

    def test_prof_given(self):
        self.check(["old.prof", "new.hp"],
                   "heapprof diff: old.prof is heapprof's text report, not a heap profile: "
                   "give the .hp file (old.hp is beside it)")
        self.check(["old.hp", "new.prof"],
                   "heapprof diff: new.prof is heapprof's text report, not a heap profile: "
                   "give the .hp file (new.hp is beside it)")

    def test_other_files_given(self):
        d = fixtures_dir(self)
        with open(os.path.join(d, "new.alloc.csv"), "w") as f:
            f.write("stack,breakdown,objects,bytes,requested,overhead,survived,live_at_peak,"
                    "source\n")
        self.check(["old.hp", "new.alloc.csv"],
                   "heapprof diff: new.alloc.csv is heapprof's allocation table (CSV), not a "
                   "heap profile: give the .hp file (new.hp is beside it)", d)
        self.check(["old.hp", "."], "heapprof diff: . is a directory; give the .hp file of a "
                                    "run in it", d)
        self.check(["old.hp", TREES], re.compile(
            r"^heapprof diff: \S+/trees is a program \(an ELF executable\), not a heap "
            r"profile: give the \.hp file\n$"), d)

    def test_malformed(self):
        d = fixtures_dir(self)
        with open(os.path.join(d, "bad.hp"), "w") as f:
            f.write('JOB "x"\nBEGIN_SAMPLE 0.5\nmain\t12x\nEND_SAMPLE 0.5\n')
        self.check(["bad.hp", "new.hp"],
                   "bad.hp:3: expected a whole number of bytes after the label 'main', got "
                   "'12x'\nheapprof diff: bad.hp is not a valid heap profile; no page written",
                   d)

    def test_output_over_an_input(self):
        self.check(["old.hp", "new.hp", "-o", "old.prof"],
                   "heapprof diff: old.prof is one of the runs' files and would be "
                   "overwritten; write the page elsewhere with -o OUT.html")
        self.check(["old.hp", "new.hp", "-o", "nodir/x.html"],
                   "heapprof diff: cannot write nodir/x.html: No such file or directory; "
                   "choose another place with -o OUT.html")

    def test_usage(self):
        self.check(["old.hp"], re.compile(r"^usage: heapprof diff .*\nheapprof diff: error: "
                                          r"the following arguments are required: NEW\.hp\n$",
                                          re.S))
        self.check(["old.hp", "new.hp", "--top", "-1"],
                   re.compile(r"heapprof diff: error: --top takes a number of bands"))


class Launcher(unittest.TestCase):
    """`heapprof diff` in the launcher, its help, and the script run alone."""

    def setUp(self):
        tltest.check_env(self)

    def test_dispatch_and_help(self):
        r = launch(self, ["--help"])
        self.assertEqual(r.returncode, 0)
        self.assertIn("  heapprof diff OLD.hp NEW.hp [-o OUT.html] [--top N]\n", r.stdout)
        self.assertIn("heapprof diff old.hp new.hp            # -> new.diff.html", r.stdout)
        r = launch(self, ["diff", "--help"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("usage: heapprof diff [-h] [-o OUT.html] [--top N] "
                                            "OLD.hp NEW.hp\n"), r.stdout)
        # A program named diff is run after `--`.
        r = launch(self, ["-n", "--", "diff", "a", "b"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.rstrip().endswith(" diff a b"), r.stdout)
        # The script alone does the same as the launcher.
        d = fixtures_dir(self)
        r = subprocess.run([sys.executable, DIFF, "old.hp", "new.hp", "-o", "alone.html"],
                           cwd=d, capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("heapprof_diff: wrote "), r.stdout)
        self.assertEqual(band_tuples(page_data(os.path.join(d, "alone.html"))[0]["bandDiff"]),
                         BANDS)


class RealRuns(unittest.TestCase):
    """Two runs of examples/trees (depth 8 and 10): the page's figures are
    the runs' own, and its pprof command works."""

    def setUp(self):
        tltest.check_env(self)

    def test_trees(self):
        d = tltest.tempdir(self, "tldiff-")
        for stem, depth in (("old", "8"), ("new", "10")):
            r = hptest.run(self, [TREES, depth],
                           heapprof=f"cc,interval=0,out={os.path.join(d, stem)}")
            self.assertEqual(r.rc, 0, r.stderr)
        r = diff(self, ["old.hp", "new.hp"], d)
        self.assertEqual(r.returncode, 0, r.stderr)
        data, text = page_data(os.path.join(d, "new.diff.html"))
        hps = [hptest.check_hp_format(self, os.path.join(d, s + ".hp")) for s in ("old", "new")]
        # Per band: peak and mean over the samples, from tests/integration's reader.
        want = {}
        for k, hp in enumerate(hps):
            n = len(hp.samples)
            for label in {l for _t, s in hp.samples for l in s}:
                vals = [s.get(label, 0) for _t, s in hp.samples]
                want.setdefault(label, [None, None, None, None])
                want[label][k], want[label][2 + k] = max(vals), sum(vals) / n
        got = {r["name"]: [r["peakOld"], r["peakNew"], r["meanOld"], r["meanNew"]]
               for r in data["bandDiff"]}
        self.assertEqual(set(got), set(want))
        for label in want:
            self.assertEqual(got[label][:2], want[label][:2], label)
            for k in (2, 3):
                self.assertAlmostEqual(got[label][k], want[label][k], places=6)
        changes = [r["peakChange"] for r in data["bandDiff"]]
        self.assertEqual(changes, sorted(changes, reverse=True))
        self.assertIn("make/main", got)
        # The allocation table: the .prof's, which is the CSV's.
        csvs = []
        for s in ("old", "new"):
            with open(os.path.join(d, s + ".alloc.csv"), newline="") as f:
                csvs.append({r["stack"]: (int(r["bytes"]), int(r["live_at_peak"]))
                             for r in csv.DictReader(f) if r["breakdown"] == "all"
                             and r["stack"] != "total profiled"})
        alloc = {r["name"]: r for r in data["allocDiff"]}
        self.assertEqual(set(alloc), set(csvs[0]) | set(csvs[1]))
        for stack, row in alloc.items():
            self.assertEqual((row["bytesOld"], row["liveOld"]), csvs[0].get(stack, (None, None)))
            self.assertEqual((row["bytesNew"], row["liveNew"]), csvs[1].get(stack, (None, None)))
        # The page's pprof command, run where heapprof diff was: per
        # innermost function, the change in bytes the table shows.
        self.assertEqual(data["pprof"], "go tool pprof -top -sample_index=alloc_space -base "
                                        "old.pb.gz new.pb.gz")
        go = shutil.which("go")
        self.assertIsNotNone(go, "go is not installed (Debian package golang-go): "
                                 "run scripts/install-deps.sh --test")
        env = tltest.clean_env(HOME=os.environ.get("HOME", "/tmp"), PPROF_TMPDIR=d)
        argv = data["pprof"].split()
        p = subprocess.run([go] + argv[1:3] + ["-unit=B"] + argv[3:], cwd=d, env=env,
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        flat = {}
        for stack, row in alloc.items():
            leaf = stack.split("/")[0]
            flat[leaf] = flat.get(leaf, 0) + row["bytesChange"]
        for leaf, change in flat.items():
            if change:
                self.assertRegex(p.stdout, r"(?m)^\s+%dB .* %s$" % (change, re.escape(leaf)))
        self.assertFalse(glob.glob(os.path.join(d, "pprof*")), "pprof left files")


if __name__ == "__main__":
    unittest.main()
