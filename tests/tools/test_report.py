"""heapprof report (scripts/heapprof_report.py): its .hp parser on files
written by GHC itself (fixtures/, from /work/shared/workloads/Trees.hs
compiled with ghc -prof: see fixtures/README.md) and by heapprof, its
errors on malformed files (line numbers and what was expected), its .prof
parser, top-N + OTHER on a large generated profile, and the page it writes
(self-contained, data as drawn)."""
import contextlib
import html
import io
import json
import os
import re
import time
import unittest

import hptest
import tltest
from tltest import fixture, report

R = tltest.report_module()

GHC_FIXTURES = {
    # file: (samples, labels, peak bytes, peak time)
    "trees-ghc-hc.hp": (27, 11, 39888, 0.16457),
    "trees-ghc-hy.hp": (24, 26, 39888, 0.147757),
    "trees-ghc-hr.hp": (14, 14, 2976, 0.178781),
    "trees-ghc-hb.hp": (19, 5, 39832, 0.283434),
}


def page_data(path):
    """The data embedded in a page written by heapprof report."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r'<script type="application/json" id="hp-data">(.*?)</script>', text, re.S)
    return json.loads(m.group(1)), text


def write(d, name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


HEAD = 'JOB "app"\nDATE "Sun Nov 22 04:56 2026"\nSAMPLE_UNIT "seconds"\nVALUE_UNIT "bytes"\n'


class Parser(unittest.TestCase):
    def setUp(self):
        tltest.check_env(self)

    def same_as_hptest(self, path, hp):
        """Our parse agrees with tests/integration's independent reader."""
        ref = hptest.HpFile(path)
        self.assertEqual(len(hp.times), len(ref.samples))
        for (t, bands), rt, vals in zip(ref.samples, hp.times, hp.values):
            self.assertEqual(rt, t)
            self.assertEqual({hp.labels[k]: v for k, v in vals.items()}, bands)

    def test_ghc_files(self):
        for name, (nsamples, nlabels, peak, peak_t) in GHC_FIXTURES.items():
            with self.subTest(name=name):
                path = fixture(name)
                hptest.hp2ps_accepts(self, path)          # a real GHC heap profile
                hp = R.parse_hp(path)
                self.assertEqual(hp.warnings, [])
                self.assertEqual(len(hp.times), nsamples)
                self.assertEqual(len(hp.labels), nlabels)
                self.assertEqual(hp.header["SAMPLE_UNIT"], "seconds")
                self.assertEqual(hp.header["VALUE_UNIT"], "bytes")
                self.assertTrue(hp.header["JOB"].startswith("Trees 16 +RTS -h"))
                self.same_as_hptest(path, hp)
                data = R.build_data(hp, None, 20, name, "")
                self.assertEqual((data["peak"]["bytes"], data["peak"]["time"]), (peak, peak_t))

    def test_ghc_labels(self):
        hp = R.parse_hp(fixture("trees-ghc-hy.hp"))
        for label in ("->>IO", "(,)", "[]", "->(#,#)", "ARR_WORDS", "T"):
            self.assertIn(label, hp.labels)
        hp = R.parse_hp(fixture("trees-ghc-hc.hp"))
        self.assertIn("(257)make/main.long/main", hp.labels)
        # The first sample: the one at 0.000000 is empty, then these.
        self.assertEqual(hp.times[:2], [0.0, 0.00764])
        self.assertEqual(hp.values[0], {})
        first = {hp.labels[k]: v for k, v in hp.values[1].items()}
        self.assertEqual(first, {"(251)main": 64, "(253)main.sums/main": 40,
                                 "(233)GHC.IO.Encoding.Iconv.CAF": 120,
                                 "(235)GHC.IO.Encoding.CAF": 912,
                                 "(244)GHC.Conc.Signal.CAF": 640,
                                 "(225)GHC.IO.Handle.FD.CAF": 680, "MAIN": 160,
                                 "(127)PINNED": 36816, "(254)make/main.sums/main": 80})

    def test_heapprof_files(self):
        # heapprof's own output: a program with several censuses.
        r = hptest.run(self, [os.path.join(hptest.BUILD, "examples", "trees"), "8"],
                       heapprof="cc,interval=0")
        self.assertEqual(r.rc, 0, r.stderr)
        hptest.check_hp_format(self, r.hp_path)
        hp = R.parse_hp(r.hp_path)
        self.assertEqual(hp.warnings, [])
        self.same_as_hptest(r.hp_path, hp)
        self.assertGreater(len(hp.times), 3)
        self.assertIn("make/main", hp.labels)
        # Its .prof: the summary and the table as hptest reads them.
        prof = R.parse_prof(r.prof_path)
        text = r.prof()
        self.assertTrue(prof["heapprof"])
        self.assertEqual(prof["pid"] != "", True)
        self.assertTrue(prof["settings"].startswith("mode cc, interval 0.000 s"))
        summary = dict(prof["summary"])
        for key in ("run time", "collections", "censuses", "peak live", "allocated"):
            self.assertEqual(summary[key], hptest.prof_field(text, key))
        table = prof["tables"][0]
        self.assertEqual(table["columns"], ["objects", "bytes", "requested", "survived",
                                            "live@peak", "cost-centre stack (innermost first)"])
        rows = {r[-1]: tuple(int(x) for x in r[:5]) for r in table["rows"]}
        total = rows.pop("total profiled", None)
        self.assertEqual(rows, hptest.prof_rows(text))
        if total is not None:       # the total row, when the .prof has one
            self.assertEqual(total, tuple(map(sum, zip(*rows.values()))))
        # Its STACK FRAMES: each stack of the table, frame by frame, with the
        # example's source lines (built with -g); nothing of it elsewhere.
        self.assertEqual(set(prof["frames"]), set(rows))
        frames = prof["frames"]["make/main"]
        self.assertEqual([f[0] for f in frames], ["make", "main"])
        for function, where, source in frames:
            self.assertRegex(where, r"^trees\+0x[0-9a-f]+$")
            self.assertRegex(source, r"examples/trees\.c:\d+$")
        self.assertEqual(prof["other"], [])
        # Each C stack is its own label (short names, under 25 bytes).
        stacks = R.label_stacks(prof, hp.labels)
        self.assertEqual(stacks["make/main"], ["make/main"])
        self.assertEqual(set(stacks), set(hp.labels) & set(rows))

    def test_heapprof_profile_with_known_figures(self):
        d = tltest.tempdir(self)
        r = tltest.launch(self, ["-i0", tltest.tprog("tl_gc"), "alloc"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        hp_path = os.path.join(d, "tl_gc.hp")
        hptest.check_hp_format(self, hp_path)
        r = report(self, ["tl_gc.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        data, _ = page_data(os.path.join(d, "tl_gc.html"))
        self.assertEqual([b["name"] for b in data["bands"]], ["alloc_some/gc_start/main"])
        self.assertEqual(data["bands"][0]["peak"], 3200)
        self.assertEqual(data["peak"]["bytes"], 3200)
        self.assertEqual(data["prof"], "tl_gc.prof")
        self.assertEqual(data["bands"][0]["values"][0], 0)       # the empty first sample
        self.assertEqual(data["bands"][0]["values"][-1], 0)      # the closing sample
        self.assertEqual(max(data["totals"]), 3200)


class Malformed(unittest.TestCase):
    """Each malformed file is rejected with FILE:LINE: expected ..., exit 2."""

    CASES = [
        ("", 1, 'expected JOB "..." (a heap profile\'s first line); the file is empty'),
        ("hello world\n", 1,
         'expected JOB "..." (a heap profile\'s first line), got \'hello world\''),
        ('JOB app\n', 1, 'expected JOB "..." (a quoted string), got \'JOB app\''),
        ('JOB "app"\nDATE "x"\nhello world\n', 3,
         'expected a header line (JOB, DATE, SAMPLE_UNIT or VALUE_UNIT "...") or '
         "BEGIN_SAMPLE, got 'hello world'"),
        (HEAD + "BEGIN_SAMPLE\n", 5, "expected BEGIN_SAMPLE TIME"),
        (HEAD + "BEGIN_SAMPLE abc\n", 5,
         "expected a time (seconds, e.g. 0.100000) after BEGIN_SAMPLE, got 'abc'"),
        (HEAD + "BEGIN_SAMPLE -1.0\n", 5,
         "expected a time (seconds, not negative) after BEGIN_SAMPLE, got '-1.0'"),
        (HEAD + "BEGIN_SAMPLE 0.5\nEND_SAMPLE 0.5\nBEGIN_SAMPLE 0.2\nEND_SAMPLE 0.2\n", 7,
         "expected a time not before 0.500000 (the previous sample's), got 0.2"),
        (HEAD + "BEGIN_SAMPLE 0.1\nmain\t12x\nEND_SAMPLE 0.1\n", 6,
         "expected a whole number of bytes after the label 'main', got '12x'"),
        (HEAD + "BEGIN_SAMPLE 0.1\nmain\t-12\nEND_SAMPLE 0.1\n", 6,
         "expected a whole number of bytes after the label 'main', got '-12'"),
        (HEAD + "BEGIN_SAMPLE 0.1\nlonely\nEND_SAMPLE 0.1\n", 6,
         "expected LABEL<TAB>BYTES or END_SAMPLE, got 'lonely'"),
        (HEAD + "BEGIN_SAMPLE 0.1\nmain\t12\nBEGIN_SAMPLE 0.2\n", 7,
         "expected END_SAMPLE (the sample begun at line 5 is not ended), got BEGIN_SAMPLE"),
        (HEAD + "BEGIN_SAMPLE 0.1\nEND_SAMPLE 0.1\nmain\t12\n", 7,
         "expected BEGIN_SAMPLE or MARK, got 'main\\t12'"),
        (HEAD + "END_SAMPLE 0.1\n", 5, "expected BEGIN_SAMPLE (END_SAMPLE with no sample begun)"),
        (HEAD + "BEGIN_SAMPLE 0.1\nEND_SAMPLE\n", 6, "expected END_SAMPLE TIME"),
        (HEAD + "BEGIN_SAMPLE 0.1\nEND_SAMPLE 0.1\nJOB \"again\"\n", 7,
         "expected BEGIN_SAMPLE or MARK, got 'JOB \"again\"'"),
        (HEAD + "MARK\n", 5, "expected MARK TIME"),
    ]

    def setUp(self):
        tltest.check_env(self)

    def test_cases(self):
        d = tltest.tempdir(self)
        for i, (text, line, message) in enumerate(self.CASES):
            with self.subTest(i=i, text=text[-40:]):
                write(d, "bad.hp", text)
                r = report(self, ["bad.hp"], cwd=d)
                self.assertEqual(r.returncode, 2)
                self.assertEqual(r.stdout, "")
                self.assertEqual(r.stderr.splitlines(), [
                    f"bad.hp:{line}: {message}",
                    "heapprof report: bad.hp is not a valid heap profile; no page written"])
                self.assertFalse(os.path.exists(os.path.join(d, "bad.html")))

    def test_unreadable(self):
        d = tltest.tempdir(self)
        r = report(self, ["missing.hp"], cwd=d)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "heapprof report: cannot read missing.hp: "
                                   "No such file or directory\n")

    def test_cut_off_file_is_read_up_to_its_last_sample(self):
        # A copy cut short inside a sample (heapprof itself writes samples
        # whole): the complete samples are drawn, with a warning.
        d = tltest.tempdir(self)
        write(d, "cut.hp", HEAD + "BEGIN_SAMPLE 0.000000\nEND_SAMPLE 0.000000\n"
              "BEGIN_SAMPLE 0.100000\nf/main\t4096\nEND_SAMPLE 0.100000\n"
              "BEGIN_SAMPLE 0.200000\nf/main\t8192\ng/ma")
        r = report(self, ["cut.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "heapprof report: warning: cut.hp:10: the file ends inside "
                                   "the sample begun here; that sample is left out\n")
        data, _ = page_data(os.path.join(d, "cut.html"))
        self.assertEqual(data["times"], [0.0, 0.1])
        self.assertEqual(data["bands"][0]["values"], [0, 4096])

    def test_accepted_variants(self):
        # Blank lines, CRLF, MARK lines, a label twice in a sample (summed,
        # as one band), labels with blanks, no closing sample.
        d = tltest.tempdir(self)
        write(d, "v.hp", HEAD.replace("\n", "\r\n") + "\nMARK 0.05\r\nBEGIN_SAMPLE 0.1\r\n"
              "a b c\t10\r\na b c\t5\r\nx 7\r\nEND_SAMPLE 0.1\r\n")
        r = report(self, ["v.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        data, _ = page_data(os.path.join(d, "v.html"))
        self.assertEqual(data["marks"], [0.05])
        self.assertEqual({b["name"]: b["values"] for b in data["bands"]},
                         {"a b c": [15], "x": [7]})


class LargeProfile(unittest.TestCase):
    """Hundreds of bands, thousands of samples: top N drawn, the rest OTHER."""

    def setUp(self):
        tltest.check_env(self)

    def test_top_and_other(self):
        d = tltest.tempdir(self)
        nb, ns = 300, 3000
        lines = [HEAD.rstrip("\n")]
        for i in range(ns):
            t = "%.6f" % (i * 0.01)
            lines.append("BEGIN_SAMPLE " + t)
            for b in range(nb):
                # band b is worth (b + 1) * 16 bytes, varying a little in time
                lines.append(f"fn{b:03d}/main\t{(b + 1) * 16 + (i % 7) * 16}")
            lines.append("END_SAMPLE " + t)
        write(d, "big.hp", "\n".join(lines) + "\n")
        start = time.monotonic()
        r = report(self, ["big.hp"], cwd=d)
        elapsed = time.monotonic() - start
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertLess(elapsed, 30, "report of 900,000 band lines too slow")
        data, text = page_data(os.path.join(d, "big.html"))
        names = [b["name"] for b in data["bands"]]
        self.assertEqual(names, [f"fn{b:03d}/main" for b in range(299, 279, -1)] + ["OTHER"])
        other = data["bands"][-1]
        self.assertEqual(other["other"], 280)
        # OTHER at sample i: bands 0..279.
        for i in (0, 1, 2999):
            want = sum((b + 1) * 16 + (i % 7) * 16 for b in range(280))
            self.assertEqual(other["values"][i], want)
        self.assertEqual(len(data["times"]), ns)
        self.assertEqual(data["nLabels"], nb)
        self.assertEqual(len(data["allBands"]), nb)
        total6 = sum((b + 1) * 16 + 6 * 16 for b in range(nb))
        self.assertEqual(data["peak"], {"index": 6, "time": 0.06, "bytes": total6})
        self.assertEqual(r.stdout, f"heapprof report: wrote {os.path.join(d, 'big.html')} "
                                   f"(3000 samples, 300 bands, peak "
                                   f"{R.human(total6)} at 0.060 s)\n")
        # --top 5 and --top 0 (all).
        r = report(self, ["big.hp", "--top", "5", "-o", "top5.html"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        data, _ = page_data(os.path.join(d, "top5.html"))
        self.assertEqual(len(data["bands"]), 6)
        r = report(self, ["big.hp", "--top", "0", "-o", "all.html"], cwd=d)
        data, _ = page_data(os.path.join(d, "all.html"))
        self.assertEqual(len(data["bands"]), nb)
        self.assertNotIn("OTHER", [b["name"] for b in data["bands"]])


class Page(unittest.TestCase):
    def setUp(self):
        tltest.check_env(self)

    def test_self_contained(self):
        d = tltest.tempdir(self)
        r = report(self, [fixture("trees-ghc-hc.hp"), "-o", "p.html"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(d, "p.html"), encoding="utf-8") as f:
            text = f.read()
        for bad in ("<link", " src=", "@import", "url(", "<iframe", "fetch(", "XMLHttpRequest"):
            self.assertNotIn(bad, text)
        # The only URL is the SVG namespace (a name, never fetched).
        self.assertEqual(set(re.findall(r"https?://[^\s\"')]+", text)),
                         {"http://www.w3.org/2000/svg"})

    def test_labels_are_escaped(self):
        d = tltest.tempdir(self)
        write(d, "x.hp", 'JOB "a</script><b>"\nDATE "d"\nSAMPLE_UNIT "seconds"\n'
              'VALUE_UNIT "bytes"\nBEGIN_SAMPLE 0.1\n</script><img>&amp;\t16\nEND_SAMPLE 0.1\n')
        r = report(self, ["x.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        data, text = page_data(os.path.join(d, "x.html"))
        self.assertEqual(data["bands"][0]["name"], "</script><img>&amp;")
        self.assertEqual(data["job"], "a</script><b>")
        self.assertEqual(text.count("</script>"), 2)        # the page's own two
        self.assertNotIn("<img>", text)
        self.assertIn("&lt;/script&gt;&lt;img&gt;&amp;amp;", text)   # bands table

    def test_default_output_and_message(self):
        d = tltest.tempdir(self)
        src = fixture("trees-ghc-hb.hp")
        with open(src) as f:
            write(d, "run.hp", f.read())
        r = report(self, ["run.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, f"heapprof report: wrote {os.path.join(d, 'run.html')} "
                                   "(19 samples, 5 bands, peak 38.90 KiB at 0.283 s)\n")
        self.assertEqual(r.stderr, "")
        data, text = page_data(os.path.join(d, "run.html"))
        # GHC's biographical bands: drawn all, in their own colours.
        self.assertTrue(data["ldv"])
        self.assertEqual([b["name"] for b in data["bands"]],
                         ["INHERENT_USE", "USE", "LAG", "DRAG", "VOID"])
        self.assertEqual(data["bands"][3]["colour"], R.LDV_COLOURS["DRAG"])
        self.assertIn("Biographical profile", text)

    def test_unwritable_output(self):
        d = tltest.tempdir(self)
        r = report(self, [fixture("trees-ghc-hc.hp"), "-o", "/nonexistent/dir/x.html"], cwd=d)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "heapprof report: cannot write /nonexistent/dir/x.html: No "
                                   "such file or directory; choose another place with -o OUT.html\n")

    def test_bad_arguments(self):
        r = report(self, [])
        self.assertEqual(r.returncode, 2)
        self.assertIn("usage: heapprof report", r.stderr)
        r = report(self, [fixture("trees-ghc-hc.hp"), "--top", "-1"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--top takes a number of bands", r.stderr)
        r = report(self, ["--help"])
        self.assertEqual(r.returncode, 0)
        self.assertIn("--prof FILE.prof", r.stdout)


class Prof(unittest.TestCase):
    """The .prof part of the page."""

    def setUp(self):
        tltest.check_env(self)

    def test_retainer_sets_from_ghc(self):
        # trees-ghc-hr.prof (found beside the .hp) is GHC's: of it, the SET lines.
        d = tltest.tempdir(self)
        for ext in ("hp", "prof"):
            with open(fixture("trees-ghc-hr." + ext)) as f:
                write(d, "hr." + ext, f.read())
        r = report(self, ["hr.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        data, text = page_data(os.path.join(d, "hr.html"))
        self.assertEqual(data["prof"], "hr.prof")
        self.assertIn('id="retainer-sets"', text)
        self.assertIn("GHC.Conc.Sync.CAF, GHC.IO.Handle.FD.CAF, SYSTEM.SYSTEM", text)
        prof = R.parse_prof(os.path.join(d, "hr.prof"))
        self.assertFalse(prof["heapprof"])
        self.assertEqual(len(prof["sets"]), 10)
        self.assertIn((118, ["GHC.Conc.Sync.CAF", "GHC.IO.Handle.FD.CAF", "SYSTEM.SYSTEM"]),
                      prof["sets"])

    def test_other_prof_beside_is_left_out(self):
        d = tltest.tempdir(self)
        with open(fixture("trees-ghc-hc.hp")) as f:
            write(d, "t.hp", f.read())
        write(d, "t.prof", "\tSun Nov 22 2026 Time and Allocation Profiling Report  (Final)\n")
        r = report(self, ["t.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "heapprof report: note: t.prof is not a heapprof report; "
                                   "left out\n")
        # Named explicitly, it is an error.
        r = report(self, ["t.hp", "--prof", "t.prof"], cwd=d)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "t.prof:1: expected 'heapprof report' (a .prof file written "
                                   "by heapprof)\nheapprof report: no page written\n")

    def test_tables_with_titles(self):
        # Tables the report does not know by name (biographical drag/void,
        # breakdowns) are shown from their header line, with their title.
        d = tltest.tempdir(self)
        write(d, "b.hp", HEAD + "BEGIN_SAMPLE 0.1\nf/main\t64\nEND_SAMPLE 0.1\n")
        write(d, "b.prof", (
            "heapprof report\t\tSun Nov 22 04:56 2026\n\n"
            "        ./app 3    (pid 77)\n\n"
            "        mode ldv, interval 0.100 s, depth 8, label length 25, unwind fp\n\n"
            "        run time                  1.500000 s (mutator clock)\n"
            "        censuses                  15\n\n"
            "        (the program was stopped by a signal: figures are as of the last census)\n\n"
            "      objects          bytes      requested       survived      live@peak  "
            "cost-centre stack (innermost first)\n"
            "            4            128            100            128             64  f/main\n"
            "            1             32             24              0              0  main\n\n"
            "DRAG AND VOID BY COST-CENTRE STACK (bytes x seconds)\n"
            "         drag           void  cost-centre stack\n"
            "          100              0  f/main\n"
            "            7             12  g h/main\n\n"
            "SET 1 = {<f/main>, <main>}\n"))
        r = report(self, ["b.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        prof = R.parse_prof(os.path.join(d, "b.prof"))
        self.assertEqual((prof["job"], prof["pid"]), ("./app 3", "77"))
        self.assertEqual(prof["date"], "Sun Nov 22 04:56 2026")
        self.assertEqual(prof["summary"], [("run time", "1.500000 s (mutator clock)"),
                                           ("censuses", "15")])
        self.assertEqual(prof["notes"], ["the program was stopped by a signal: figures are as "
                                         "of the last census"])
        self.assertEqual([t["title"] for t in prof["tables"]],
                         ["allocation by cost-centre stack",
                          "DRAG AND VOID BY COST-CENTRE STACK (bytes x seconds)"])
        self.assertEqual(prof["tables"][1]["columns"], ["drag", "void", "cost-centre stack"])
        self.assertEqual(prof["tables"][1]["rows"], [["100", "0", "f/main"],
                                                     ["7", "12", "g h/main"]])
        self.assertEqual(prof["sets"], [(1, ["f/main", "main"])])
        self.assertEqual(prof["other"], [])
        _, text = page_data(os.path.join(d, "b.html"))
        self.assertIn('Drag and void by cost-centre stack <span class="sub">bytes x seconds · '
                      '2 rows', text)
        self.assertIn('<td class="num" data-v="100">100</td>', text)
        self.assertIn("stopped by a signal", text)
        self.assertIn('id="retainer-sets"', text)


    def test_sections_by_their_real_header(self):
        # RETAINER CENSUSES and ROOT CENSUSES: the columns are those their
        # title lists (not their first row); what a row says beyond them
        # ('; held by ...', 'no traversal (...)') is its note; the lines
        # after the rows are the table's.
        d = tltest.tempdir(self)
        prof = R.parse_prof(write(d, "r.prof", prof_text("retainer") + RETAINER_SECTIONS))
        self.assertEqual(len(prof["tables"]), 2)
        table = prof["tables"][1]
        self.assertEqual(table["title"], RETAINER_SECTIONS.split("\n")[6])
        self.assertEqual(table["columns"], ["time s", "traversal ms", "collector mark ms", "ratio",
                                            "visits", "sets", "visits per object",
                                            "bytes attributed of live", "note"])
        self.assertEqual(table["rows"], [
            ["0.00"] + [""] * 7 + ["no traversal (no collection could be run): every live "
                                   "object counted as not reached"],
            ["0.05", "0.58", "0.08", "7.55", "11573", "6", "1.99", "188464 of 188464 bytes", ""],
            ["0.12", "168.87", "4.85", "34.80", "3431321", "40", "8.98",
             "9509312 of 9509312 bytes", "held by gc:finalization (marked by the collector "
             "after the mark phase, for finalization): 128 bytes in 4 objects; not reached "
             "from known roots: 64 bytes in 2 objects"]])
        self.assertEqual(table["notes"], [
            "traversal total 169.45 ms, collector mark total 4.93 ms over 2 censuses",
            "walks: 2 depth-first from each root, 0 by strongly connected components "
            "(walk=auto)"])
        self.assertEqual(prof["other"], [RETAINER_SECTIONS.split("\n")[1]])    # RETAINER SETS
        self.assertEqual(prof["notes"], [])
        self.assertEqual(len(prof["sets"]), 2)
        # Rows with no note: no note column.
        no_notes = "\n".join(l.partition("; ")[0] for l in RETAINER_SECTIONS.split("\n")
                             if not l.startswith("0.00"))
        table = R.parse_prof(write(d, "r2.prof", prof_text("retainer") + no_notes))["tables"][1]
        self.assertEqual(table["columns"][-1], "bytes attributed of live")
        self.assertEqual(table["rows"][0][-1], "188464 of 188464 bytes")

        prof = R.parse_prof(write(d, "o.prof", prof_text("roots") + ROOTS_SECTIONS))
        table = prof["tables"][1]
        self.assertEqual(table["columns"], ["time s", "traversal ms", "collector mark ms", "ratio",
                                            "objects reached", "bins", "bytes reached",
                                            "bytes reached by no named root", "note"])
        self.assertEqual(table["rows"], [
            ["0.00"] + [""] * 7 + ["no traversal (no named root is alive): every live byte "
                                   "reached by no named root"],
            ["0.04", "0.20", "0.03", "6.78", "10", "4", "208", "0", ""],
            ["0.09", "0.15", "0.08", "1.82", "10", "4", "208", "320", ""]])
        self.assertEqual(table["notes"], ["What no named root reached, by retainer set "
                                          "(noroot=retainers): the retainer profile's sections "
                                          "below count those bytes only."])
        # The NAMED ROOTS lines are no table, and none is a note of the summary.
        self.assertEqual(prof["other"], ROOTS_SECTIONS.strip().split("\n")[:4:2] +
                         ["0.05 s  died (unreachable at a collection): eps"])
        self.assertEqual(prof["notes"], [])
        prof = R.parse_prof(write(d, "n.prof", prof_text("roots") + ROOTS_SECTIONS.replace(
            "0.00 s  set: hsc, eps, fc\n0.05 s  died (unreachable at a collection): eps",
            "(the program named no roots)")))
        self.assertEqual(prof["notes"], [])
        self.assertIn("(the program named no roots)", prof["other"])

        # The page: the real column names head each table.
        write(d, "r.hp", HEAD + "BEGIN_SAMPLE 0.1\n(4)g_cache\t64\nEND_SAMPLE 0.1\n")
        write(d, "r.prof", prof_text("retainer") + RETAINER_SECTIONS)
        r = report(self, ["r.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        _, text = page_data(os.path.join(d, "r.html"))
        heads = re.findall(r'<th class="\w+" title="sort by [^"]*">([^<]*)</th>',
                           text[text.index('id="table-1"'):text.index('id="retainer-sets"')])
        self.assertEqual(heads, R.parse_prof(os.path.join(d, "r.prof"))["tables"][1]["columns"])
        self.assertIn('<p class="note">walks: 2 depth-first', text)

    def test_ldv_sections(self):
        # Mode ldv's sections: counters (NAME  VALUE, notes over several
        # lines), tables with a header line, one of them empty: (none).
        d = tltest.tempdir(self)
        prof = R.parse_prof(write(d, "l.prof", prof_text("ldv") + LDV_SECTIONS))
        self.assertEqual([t["kind"] for t in prof["tables"]],
                         ["header", "kv", "header", "header", "kv"])
        lag, drag, void, unsure = prof["tables"][1:]
        self.assertEqual(lag["title"], "Lag, drag, void, use (HEAPPROF=ldv, policy adaptive, "
                                       "repeat=1)")
        self.assertEqual(lag["rows"], [["censuses", "10"],
                                       ["a fault in the kernel (ns, measured)", "2769"],
                                       ["system calls seen by dispatch", ""],
                                       ["faults on objects made since the pass, or free memory",
                                        "0"]])
        self.assertEqual(lag["notes"], ["precision degraded: the kernel's map-entry budget "
                                        "(vm.max_map_count) did not allow protecting or opening "
                                        "every page singly; see doc/limitations.md"])
        for table in (drag, void):
            self.assertEqual(table["columns"], ["byte-seconds", "share", "cost-centre stack"])
        self.assertTrue(drag["title"].startswith("Top cost-centre stacks by DRAG"))
        self.assertEqual(drag["rows"], [])
        self.assertEqual(void["rows"], [["1773165.281", "100.0%", "make_list/build/main"],
                                        ["90.053", "0.0%", "make_tree/worker"]])
        self.assertEqual(unsure["rows"], [["DRAG byte-seconds", "0.000, uncertain 0.000 (0.0%)"],
                                          ["VOID byte-seconds",
                                           "1773255.334, uncertain 368.927 (0.0%)"]])
        self.assertEqual(prof["other"], [])
        self.assertEqual(prof["notes"], [])         # "(none)" is no note of the run
        # The page: the counters as a list, the empty table says so.
        write(d, "l.hp", HEAD + "BEGIN_SAMPLE 0.1\nVOID\t64\nEND_SAMPLE 0.1\n")
        r = report(self, ["l.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        _, text = page_data(os.path.join(d, "l.html"))
        self.assertIn('<h2>Lag, drag, void, use <span class="sub">HEAPPROF=ldv, policy adaptive, '
                      'repeat=1</span></h2><table class="kv"><tr><th>censuses</th><td>10</td>',
                      text)
        self.assertIn('<h2>Top cost-centre stacks by DRAG <span class="sub">bytes x seconds held '
                      'after last use · 0 rows', text)
        self.assertIn('<p class="note">(none)</p>', text)
        self.assertNotIn("Other lines of the report", text)

    def test_ldv_by_retainer_sections(self):
        # Mode retainer with bands= (-hr -hbdrag,void): after the stack
        # tables, the (retainer set, stack) tables, four columns each.
        d = tltest.tempdir(self)
        text = prof_text("retainer") + LDV_SECTIONS.replace(
            "\nUncertain DRAG", BYRET_SECTIONS + "Uncertain DRAG")
        prof = R.parse_prof(write(d, "b.prof", text))
        pairs = [t for t in prof["tables"] if t["title"].startswith("Top retainer sets")]
        self.assertEqual(len(pairs), 2)
        for t in pairs:
            self.assertEqual(t["columns"], ["byte-seconds", "share", "retainer set",
                                            "cost-centre stack"])
        self.assertEqual(pairs[0]["rows"], [])
        self.assertEqual(pairs[1]["rows"],
                         [["25986.443", "99.2%", "(63)session_log", "log_reply/main"],
                          ["4.903", "0.0%", "(64)gc:frames,stack:main",
                           "make_reply/handle/main"]])
        self.assertEqual(prof["other"], [])
        write(d, "b.hp", HEAD + "BEGIN_SAMPLE 0.1\n(63)session_log\t64\nEND_SAMPLE 0.1\n")
        r = report(self, ["b.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        _, page = page_data(os.path.join(d, "b.html"))
        self.assertIn('<td class="txt">(63)session_log</td><td class="txt">log_reply/main</td>',
                      page)
        self.assertNotIn("Other lines of the report", page)

    def test_warnings_beside_the_chart(self):
        # The .prof's warnings and notes (under its summary): in a callout
        # over the chart, warnings as warnings, and still in the summary.
        d = tltest.tempdir(self)
        write(d, "w.hp", HEAD + "BEGIN_SAMPLE 0.1\nf/main\t64\nEND_SAMPLE 0.1\n")
        write(d, "w.prof", prof_text("cc", WARNING_NOTES))
        r = report(self, ["w.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        prof = R.parse_prof(os.path.join(d, "w.prof"))
        self.assertEqual(prof["notes"], [n.strip()[1:-1] for n in WARNING_NOTES.split("\n")
                                         if n.strip()])
        _, text = page_data(os.path.join(d, "w.html"))
        chart = text.index('<div class="chartwrap">')
        m = re.search(r'<div class="callout" id="callout"[^>]*>(.*?)</div>', text)
        self.assertIsNotNone(m)
        self.assertLess(text.index('<h2>Live heap by band over time'), m.start())
        self.assertEqual(text[m.end():chart].strip(), "")      # right above the chart
        self.assertEqual(re.findall(r'<p class="(\w+)">', m.group(1)),
                         ["warn", "warn", "info", "info"])
        self.assertIn('<p class="warn"><strong>warning:</strong> ccs=mak (-hC) matched nothing: '
                      'no allocation had a function of that name on its stack; the closest '
                      'names: make, main</p>', m.group(1))
        self.assertIn('<p class="warn"><strong>warning:</strong> a name &lt;b&gt;like&lt;/b&gt; '
                      'this &amp; that</p>', m.group(1))
        self.assertIn('<p class="info"><strong>note:</strong> 21 stacks (97.2% of the bytes '
                      'allocated) end in [jit]', m.group(1))
        self.assertIn('<p class="info">the program was stopped by a signal', m.group(1))
        summary = text[text.index('id="summary"'):]
        self.assertIn('<p class="note">warning: ccs=mak (-hC) matched nothing', summary)
        self.assertNotIn("<b>like</b>", text)
        # No notes, no callout.
        write(d, "w.prof", prof_text("cc"))
        report(self, ["w.hp", "-o", "q.html"], cwd=d)
        _, text = page_data(os.path.join(d, "q.html"))
        self.assertNotIn('id="callout"', text)


def prof_text(mode, notes=""):
    """The head of a heapprof .prof of `mode`: the summary (with `notes`,
    lines '        (...)') and the allocation table."""
    return ("heapprof report\t\tSun Nov 22 04:56 2026\n\n"
            "        ./app 3    (pid 77)\n\n"
            f"        mode {mode}, interval 0.100 s, depth 8, label length 25, unwind fp\n\n"
            "        run time                  1.500000 s (mutator clock)\n"
            "        censuses                  2\n"
            + (f"\n{notes}" if notes else "") +
            "\n      objects          bytes      requested       survived      live@peak  "
            "cost-centre stack (innermost first)\n"
            "            4            128            100            128             64  f/main\n")


# What heapprof's retainer profile (mode retainer) writes after the table.
RETAINER_SECTIONS = (
    "\nRETAINER SETS (every set that held live bytes at a census; sets of more than 8 "
    "retainers are MANY)\n\n"
    "SET 4 = {<g_cache>}\nSET 9 = {<gc:data>, <stack:main>}\n\n"
    "RETAINER CENSUSES (time s, traversal ms, collector mark ms, ratio, visits, sets, visits "
    "per object, bytes attributed of live)\n\n"
    "0.00  no traversal (no collection could be run): every live object counted as not "
    "reached\n"
    "0.05  0.58  0.08  7.55  11573  6  1.99  188464 of 188464 bytes\n"
    "0.12  168.87  4.85  34.80  3431321  40  8.98  9509312 of 9509312 bytes; held by "
    "gc:finalization (marked by the collector after the mark phase, for finalization): 128 "
    "bytes in 4 objects; not reached from known roots: 64 bytes in 2 objects\n\n"
    "traversal total 169.45 ms, collector mark total 4.93 ms over 2 censuses\n"
    "walks: 2 depth-first from each root, 0 by strongly connected components (walk=auto)\n")

# The profile by named roots (mode roots, noroot=retainers: no retainer
# sections here).
ROOTS_SECTIONS = (
    "\nNAMED ROOTS (heapprof_set_roots and friends; times are profile seconds)\n\n"
    "0.00 s  set: hsc, eps, fc\n0.05 s  died (unreachable at a collection): eps\n\n"
    "ROOT CENSUSES (time s, traversal ms, collector mark ms, ratio, objects reached, bins, "
    "bytes reached, bytes reached by no named root)\n\n"
    "0.00  no traversal (no named root is alive): every live byte reached by no named root\n"
    "0.04  0.20  0.03  6.78  10  4  208  0\n"
    "0.09  0.15  0.08  1.82  10  4  208  320\n\n"
    "What no named root reached, by retainer set (noroot=retainers): the retainer profile's "
    "sections below count those bytes only.\n")

# Mode ldv's sections (a shortened list of counters).
LDV_SECTIONS = (
    "\nLag, drag, void, use (HEAPPROF=ldv, policy adaptive, repeat=1)\n"
    "  censuses                  10\n"
    "  a fault in the kernel (ns, measured) 2769\n"
    "  system calls seen by dispatch\n"
    "  faults on objects made since the pass, or free memory 0\n"
    "  (precision degraded: the kernel's map-entry budget (vm.max_map_count)\n"
    "   did not allow protecting or opening every page singly; see\n"
    "   doc/limitations.md)\n\n"
    "Top cost-centre stacks by DRAG (bytes x seconds held after last use):\n"
    "  byte-seconds  share  cost-centre stack\n"
    "  (none)\n\n"
    "Top cost-centre stacks by VOID (bytes x seconds never used):\n"
    "  byte-seconds  share  cost-centre stack\n"
    "  1773165.281  100.0%  make_list/build/main\n"
    "  90.053  0.0%  make_tree/worker\n\n"
    "Uncertain DRAG and VOID (objects on a page left open for the rest of a period before "
    "they were seen used -- by the policy, or for a system call's buffer: a use there may "
    "have been missed, so part of their DRAG or VOID may be USE or LAG)\n"
    "  DRAG byte-seconds 0.000, uncertain 0.000 (0.0%)\n"
    "  VOID byte-seconds 1773255.334, uncertain 368.927 (0.0%)\n\n")

# The (retainer set, stack) tables of mode retainer with bands=.
BYRET_SECTIONS = (
    "\nTop retainer sets and cost-centre stacks by DRAG (bytes x seconds held after last "
    "use, under the set that held them):\n"
    "  byte-seconds  share  retainer set  cost-centre stack\n"
    "  (none)\n\n"
    "Top retainer sets and cost-centre stacks by VOID (bytes x seconds never used, under "
    "the set that held them):\n"
    "  byte-seconds  share  retainer set  cost-centre stack\n"
    "  25986.443  99.2%  (63)session_log  log_reply/main\n"
    "  4.903  0.0%  (64)gc:frames,stack:main  make_reply/handle/main\n\n")

# Warnings and notes under a .prof's summary (as heapprof writes them).
WARNING_NOTES = (
    "        (warning: ccs=mak (-hC) matched nothing: no allocation had a function of that "
    "name on its stack; the closest names: make, main)\n"
    "        (warning: a name <b>like</b> this & that)\n"
    "        (note: 21 stacks (97.2% of the bytes allocated) end in [jit]: code no loaded "
    "module covers)\n"
    "        (the program was stopped by a signal: the last census counts every object not "
    "found dead by the last collection)\n")


class NotAHeapProfile(unittest.TestCase):
    """A file given where the .hp is wanted that is not a heap profile (the
    .prof beside it, the program, ...): said so, with the .hp beside it;
    exit status 2, no page."""

    def setUp(self):
        tltest.check_env(self)

    def rejected(self, d, name, message):
        before = set(os.listdir(d))
        r = report(self, [name], cwd=d)
        self.assertEqual((r.returncode, r.stdout), (2, ""), r.stderr)
        self.assertEqual(r.stderr, message + "\n")
        self.assertEqual(set(os.listdir(d)), before)        # no page written

    def test_prof_of_a_real_run(self):
        r = hptest.run(self, [os.path.join(hptest.BUILD, "examples", "trees"), "8"],
                       heapprof="cc,interval=0")
        self.assertEqual(r.rc, 0, r.stderr)
        self.rejected(r.cwd, "trees.prof", "heapprof report: trees.prof is heapprof's text "
                      "report, not a heap profile: give the .hp file (trees.hp is beside it)")
        self.rejected(r.cwd, "trees.alloc.csv", "heapprof report: trees.alloc.csv is heapprof's "
                      "allocation table (CSV), not a heap profile: give the .hp file (trees.hp "
                      "is beside it)")
        # Through main() too; the page of the .hp is then written as ever.
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(R.main([os.path.join(r.cwd, "trees.prof")]), 2)
        self.assertEqual(err.getvalue(), f"heapprof report: {r.cwd}/trees.prof is heapprof's "
                         f"text report, not a heap profile: give the .hp file ({r.cwd}/trees.hp "
                         "is beside it)\n")
        rr = report(self, ["trees.hp"], cwd=r.cwd)
        self.assertEqual(rr.returncode, 0, rr.stderr)
        self.rejected(r.cwd, "trees.html", "heapprof report: trees.html is an HTML page, not a "
                      "heap profile: give the .hp file (trees.hp is beside it)")

    def test_other_files(self):
        d = tltest.tempdir(self)
        write(d, "app.prof", FRAMES_PROF)
        self.rejected(d, "app.prof", "heapprof report: app.prof is heapprof's text report, not "
                      "a heap profile: give the .hp file")
        write(d, "app.hp", frames_hp(FRAMES_LABELS))
        self.rejected(d, "app.prof", "heapprof report: app.prof is heapprof's text report, not "
                      "a heap profile: give the .hp file (app.hp is beside it)")
        # The program itself.
        with open(tltest.tprog("tl_gc"), "rb") as f:
            with open(os.path.join(d, "app"), "wb") as out:
                out.write(f.read())
        self.rejected(d, "app", "heapprof report: app is a program (an ELF executable), not a "
                      "heap profile: give the .hp file (app.hp is beside it)")
        # GHC's .prof; a file of text; a .prof named .hp.
        with open(fixture("trees-ghc-hr.prof")) as f:
            write(d, "ghc.prof", f.read())
        self.rejected(d, "ghc.prof", "heapprof report: ghc.prof is GHC's profiling report, not "
                      "a heap profile: give the .hp file")
        write(d, "notes.txt", "\nhello world\n")
        self.rejected(d, "notes.txt", "heapprof report: notes.txt is not a heap profile (its "
                      "first line is 'hello world'; a heap profile's is JOB \"...\"): give the "
                      ".hp file")
        write(d, "copy.hp", FRAMES_PROF)
        self.rejected(d, "copy.hp", "heapprof report: copy.hp is heapprof's text report, not "
                      "a heap profile: give the .hp file")
        # A broken .hp keeps its precise message (see Malformed).
        write(d, "bad.hp", "hello world\n")
        r = report(self, ["bad.hp"], cwd=d)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "bad.hp:1: expected JOB \"...\" (a heap profile's first "
                                   "line), got 'hello world'\nheapprof report: bad.hp is not a "
                                   "valid heap profile; no page written\n")


# A .prof of mode cc with a STACK FRAMES section, then another section.
FRAMES_PROF = (
    "heapprof report\t\tSun Nov 22 04:56 2026\n\n"
    "        ./app 3    (pid 77)\n\n"
    "        mode cc, interval 0.100 s, depth 8, label length 25, unwind fp\n\n"
    "        run time                  1.500000 s (mutator clock)\n\n"
    "      objects          bytes      requested       survived      live@peak  "
    "cost-centre stack (innermost first)\n"
    "           15            640            500            640            640  total profiled\n"
    "            4            256            200            256            256  "
    "allocate_node_buffer/build_tree/main\n"
    "            3            128            100            128            128  "
    "allocate_node_buffer/build_list/main\n"
    "            2             96             80             96             96  "
    "nix::EvalState::callFunction(nix::Value&, unsigned long)/main\n"
    "            2             64             50             64             64  "
    "void ns::Store<int, std::less<int> >::put<long>(long, int const&) const/main\n"
    "            2             64             50             64             64  "
    "ns::operator<<(std::ostream&, ns::A const&)/ns::f(int)/main\n"
    "            1             16             10             16             16  "
    "phase one/main\n"
    "            1             16             10             16             16  "
    "</script><b>x</b>/main\n\n"
    "STACK FRAMES (each stack of the table, innermost frame first: function, "
    "module+address, source line)\n"
    "        (no source lines for some frames: their modules have no DWARF line tables)\n\n"
    "allocate_node_buffer/build_tree/main\n"
    "    allocate_node_buffer  app+0x1200  /src/app.c:7\n"
    "    build_tree  app+0x1300  /src/app.c:20\n"
    "    main  app+0x1080  /src/app.c:31\n\n"
    "allocate_node_buffer/build_list/main\n"
    "    allocate_node_buffer  app+0x1200  /src/app.c:7\n"
    "    build_list  app+0x1400  /src/app.c:25\n"
    "    main  app+0x1080  /src/app.c:31\n\n"
    "nix::EvalState::callFunction(nix::Value&, unsigned long)/main\n"
    "    nix::EvalState::callFunction(nix::Value&, unsigned long)  libnixexpr.so+0xc5280  -\n"
    "    main  app+0x1080  /src/app.c:31\n\n"
    "void ns::Store<int, std::less<int> >::put<long>(long, int const&) const/main\n"
    "    void ns::Store<int, std::less<int> >::put<long>(long, int const&) const  "
    "libstore.so+0x40  /src/store.hh:12\n"
    "    main  app+0x1080  /src/app.c:31\n\n"
    "ns::operator<<(std::ostream&, ns::A const&)/ns::f(int)/main\n"
    "    ns::operator<<(std::ostream&, ns::A const&)  app+0x1500  /src/a.cc:3\n"
    "    ns::f(int)  app+0x1600  /src/a.cc:9\n"
    "    main  app+0x1080  /src/app.c:31\n\n"
    "phase one/main\n"
    "    phase one  explicit  -\n"
    "    main  app+0x1080  /src/app.c:31\n\n"
    "</script><b>x</b>/main\n"
    "    </script><b>x</b>  explicit  -\n"
    "    main  app+0x1080  /src/app.c:31\n\n"
    "RETAINER SETS (every set that held live bytes at a census; sets of more than 8 "
    "retainers are MANY)\n\n"
    "SET 6 = {<stack:main>}\n")

# The .hp labels heapprof writes of those stacks (short names, cut to 25).
FRAMES_LABELS = {
    "allocate_node_buffer/buil": ["allocate_node_buffer/build_tree/main",
                                  "allocate_node_buffer/build_list/main"],
    "nix::EvalState::callFunct": ["nix::EvalState::callFunction(nix::Value&, unsigned "
                                  "long)/main"],
    "ns::Store<...>::put<...>/": ["void ns::Store<int, std::less<int> >::put<long>(long, "
                                  "int const&) const/main"],
    "ns::operator<</ns::f/main": ["ns::operator<<(std::ostream&, ns::A const&)/ns::f(int)"
                                  "/main"],
    "phase_one/main": ["phase one/main"],
    "</script><b>x</b>/main": ["</script><b>x</b>/main"],
}


def frames_hp(labels):
    """A .hp with one sample: each label 64 bytes more than the next."""
    lines = [HEAD.rstrip("\n"), "BEGIN_SAMPLE 0.100000"]
    for i, label in enumerate(labels):
        lines.append(f"{label}\t{64 * (len(labels) - i)}")
    lines.append("END_SAMPLE 0.100000")
    return "\n".join(lines) + "\n"


class StackFrames(unittest.TestCase):
    """The .prof's STACK FRAMES section, the full stacks behind each .hp
    label, and where the page shows them."""

    def setUp(self):
        tltest.check_env(self)

    def test_frames_section_parsed(self):
        d = tltest.tempdir(self)
        prof = R.parse_prof(write(d, "f.prof", FRAMES_PROF))
        self.assertEqual(prof["frames_title"].split(" (")[0], "STACK FRAMES")
        self.assertEqual(prof["frames_notes"], ["no source lines for some frames: their "
                                                "modules have no DWARF line tables"])
        self.assertEqual(len(prof["frames"]), 7)
        # A name with blanks and commas, a frame with no source line (-).
        self.assertEqual(prof["frames"]["nix::EvalState::callFunction(nix::Value&, unsigned "
                                        "long)/main"],
                         [("nix::EvalState::callFunction(nix::Value&, unsigned long)",
                           "libnixexpr.so+0xc5280", None),
                          ("main", "app+0x1080", "/src/app.c:31")])
        self.assertEqual(prof["frames"]["void ns::Store<int, std::less<int> >::put<long>(long, "
                                        "int const&) const/main"][0],
                         ("void ns::Store<int, std::less<int> >::put<long>(long, int const&) "
                          "const", "libstore.so+0x40", "/src/store.hh:12"))
        # An explicit cost centre (a name the program gave, with a blank).
        self.assertEqual(prof["frames"]["phase one/main"],
                         [("phase one", "explicit", None), ("main", "app+0x1080",
                                                            "/src/app.c:31")])
        # In the file's order: the table's, largest first.
        table = prof["tables"][0]
        self.assertEqual(list(prof["frames"]), [r[-1] for r in table["rows"][1:]])
        # The section ends at the next one, which is read as before.
        self.assertEqual(len(prof["tables"]), 1)
        self.assertEqual(len(table["rows"]), 8)
        self.assertEqual(prof["other"], ["RETAINER SETS (every set that held live bytes at a "
                                         "census; sets of more than 8 retainers are MANY)"])
        self.assertEqual(prof["sets"], [(6, ["stack:main"])])
        self.assertEqual(prof["notes"], [])
        # The section last in the file, with no newline at its end.
        end = FRAMES_PROF.index("\nRETAINER SETS")
        prof = R.parse_prof(write(d, "g.prof", FRAMES_PROF[:end].rstrip("\n")))
        self.assertEqual(len(prof["frames"]), 7)
        self.assertEqual(prof["frames"]["</script><b>x</b>/main"][-1],
                         ("main", "app+0x1080", "/src/app.c:31"))
        self.assertEqual(prof["other"], [])
        # Sections with other titles (ldv's) end it too.
        prof = R.parse_prof(write(d, "h.prof", FRAMES_PROF[:end] + "\nLag, drag, void, use "
                                  "(HEAPPROF=ldv, policy page)\n  censuses   2\n"))
        self.assertEqual(len(prof["frames"]), 7)
        self.assertEqual(prof["other"], [])
        self.assertEqual(prof["tables"][-1]["title"],
                         "Lag, drag, void, use (HEAPPROF=ldv, policy page)")
        self.assertEqual(prof["tables"][-1]["rows"], [["censuses", "2"]])

    def test_short_names(self):
        # What libiberty writes without parameters, then <...> (checked
        # against c++filt -p on the symbols of nix and libstdc++).
        cases = {
            "main": "main",
            "libnixexpr.so+0x171c50": "libnixexpr.so+0x171c50",
            "nix::EvalState::callFunction(nix::Value&, unsigned long, nix::Value**, "
            "nix::Value&, nix::Pos const&)": "nix::EvalState::callFunction",
            "void nix::EvalState::forceAttrs<nix::EvalState::forceAttrs(nix::Value&, nix::Pos "
            "const&)::{lambda()#1}>(nix::Value&, nix::EvalState::forceAttrs(nix::Value&, "
            "nix::Pos const&)::{lambda()#1})": "nix::EvalState::forceAttrs<...>",
            "std::vector<int, std::allocator<int> >::push_back(int const&)":
                "std::vector<...>::push_back",
            "ns::A::operator<(ns::A const&) const": "ns::A::operator<",
            "ns::operator<<(std::ostream&, ns::A const&)": "ns::operator<<",
            "ns::A::operator()(int) &&": "ns::A::operator()",
            "ns::A::operator unsigned long() const": "ns::A::operator unsigned long",
            "ns::f(int)::{lambda()#1}::operator()() const": "ns::f(int)::{lambda()#1}::operator()",
            "foo::bar() [clone .constprop.0] [clone .cold]": "foo::bar",
            "nix::Suggestions::to_string[abi:cxx11]() const":
                "nix::Suggestions::to_string[abi:cxx11]",
            "non-virtual thunk to nix::Foo::~Foo()": "non-virtual thunk to nix::Foo::~Foo()",
        }
        for full, short in cases.items():
            with self.subTest(full=full):
                self.assertEqual(R.short_function(full), short)

    def test_hp_label(self):
        self.assertEqual(R.hp_label("nix::EvalState::allocBindings/main"),
                         "nix::EvalState::allocBind")
        self.assertEqual(R.hp_label('a b\t"c"\x7f'), "a_b__c__")
        self.assertEqual(R.hp_label("2fast/main"), "_2fast/main")
        self.assertEqual(R.hp_label("MARK"), "_MARK")
        self.assertEqual(R.hp_label(""), "UNKNOWN")
        self.assertEqual(R.hp_label("abcdef", 3), "abc")
        # Cut in bytes, as the C writer does, inside a UTF-8 character.
        self.assertEqual(R.hp_label("ab\u00e9", 3), "ab\ufffd")

    def test_labels_to_stacks(self):
        d = tltest.tempdir(self)
        prof = R.parse_prof(write(d, "f.prof", FRAMES_PROF))
        labels = list(FRAMES_LABELS) + ["not_a_stack"]
        self.assertEqual(R.label_stacks(prof, labels), FRAMES_LABELS)
        # The label length of the run.
        prof40 = dict(prof, settings=prof["settings"].replace("length 25", "length 40"))
        self.assertEqual(R.label_stacks(prof40, ["allocate_node_buffer/build_tree/main",
                                                 "allocate_node_buffer/build_list/main"]),
                         {"allocate_node_buffer/build_tree/main":
                          ["allocate_node_buffer/build_tree/main"],
                          "allocate_node_buffer/build_list/main":
                          ["allocate_node_buffer/build_list/main"]})
        # Failing the short form, the full name cut (older .hp files); a
        # .prof with no STACK FRAMES: the table's stacks.
        no_frames = FRAMES_PROF[:FRAMES_PROF.index("STACK FRAMES")]
        prof = R.parse_prof(write(d, "old.prof", no_frames))
        self.assertEqual(prof["frames"], {})
        self.assertEqual(R.label_stacks(prof, ["nix::EvalState::callFunct",
                                               "ns::operator<<(std::ostre"]),
                         {"nix::EvalState::callFunct": FRAMES_LABELS["nix::EvalState::callFunct"],
                          "ns::operator<<(std::ostre": FRAMES_LABELS["ns::operator<</ns::f/main"]})
        # Other modes' labels are not stacks.
        prof = R.parse_prof(write(d, "m.prof", FRAMES_PROF.replace("mode cc", "mode module")))
        self.assertEqual(R.label_stacks(prof, labels), {})

    def test_tooltip_text(self):
        frames_of = {"a/main": [("a(int)", "app+0x10", "/src/app.c:7"),
                                ("main", "app+0x20", None)]}
        self.assertEqual(R.stack_tip(["a/main"], frames_of),
                         "full stack (innermost frame first):\na(int)  (/src/app.c:7)\nmain")
        many = [f"f{i}/main" for i in range(8)]
        text = R.stack_tip(many, {})
        self.assertTrue(text.startswith("8 stacks behind this label (innermost frame first):\n"
                                        "\nf0\nmain\n\nf1\nmain\n\n"))
        self.assertIn("f4\nmain", text)
        self.assertNotIn("f5", text)
        self.assertTrue(text.endswith("... and 3 more stacks (see the Bands table)"))
        self.assertEqual(R.stack_tip([], frames_of), "")

    def test_page(self):
        d = tltest.tempdir(self)
        write(d, "f.hp", frames_hp(FRAMES_LABELS))
        write(d, "f.prof", FRAMES_PROF)
        r = report(self, ["f.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        data, text = page_data(os.path.join(d, "f.html"))
        bands = {b["name"]: b for b in data["bands"]}
        # Tooltip text of each drawn band (legend and chart): its full stacks.
        tip = bands["allocate_node_buffer/buil"]["stackText"]
        self.assertIn("2 stacks behind this label", tip)
        self.assertIn("allocate_node_buffer  (/src/app.c:7)\nbuild_tree  (/src/app.c:20)\n"
                      "main  (/src/app.c:31)\n\nallocate_node_buffer  (/src/app.c:7)\n"
                      "build_list  (/src/app.c:25)", tip)
        self.assertIn("void ns::Store<int, std::less<int> >::put<long>(long, int const&) const"
                      "  (/src/store.hh:12)", bands["ns::Store<...>::put<...>/"]["stackText"])
        self.assertIn("nix::EvalState::callFunction(nix::Value&, unsigned long)\nmain  "
                      "(/src/app.c:31)", bands["nix::EvalState::callFunct"]["stackText"])
        all_bands = {b["name"]: b for b in data["allBands"]}
        self.assertEqual(all_bands["allocate_node_buffer/buil"]["stacks"],
                         FRAMES_LABELS["allocate_node_buffer/buil"])
        # The bands table: a column of full stacks, frames and source lines.
        self.assertIn("full stack (innermost first; open for source lines)", text)
        bands_html = text[text.index('id="bands"'):text.index('id="summary"')]
        self.assertEqual(bands_html.count('<details class="stack">'), 7)
        self.assertIn("<summary>allocate_node_buffer/build_list/main</summary>", bands_html)
        self.assertIn('<li><span class="fn">build_list</span> <span class="src">/src/app.c:25'
                      '</span> <span class="where">app+0x1400</span></li>', bands_html)
        self.assertIn("<summary>void ns::Store&lt;int, std::less&lt;int&gt; &gt;::put&lt;long"
                      "&gt;(long, int const&amp;) const/main</summary>", bands_html)
        # The STACK FRAMES section, as a table; none of it in other lines.
        self.assertIn('id="stack-frames"', text)
        frames_html = text[text.index('id="stack-frames"'):]
        self.assertIn('<tr class="stack-head"><td colspan="4">phase one/main</td></tr>',
                      frames_html)
        self.assertIn('<td class="txt">phase one</td><td class="txt">explicit</td>'
                      '<td class="txt">-</td>', frames_html)
        self.assertIn("no source lines for some frames", frames_html)
        self.assertNotIn("    allocate_node_buffer  app+0x1200", text)
        # Escaped everywhere: in the HTML and in the page's data.
        self.assertNotIn("<b>x</b>", text)
        self.assertEqual(text.count("</script>"), 2)
        self.assertIn("&lt;/script&gt;&lt;b&gt;x&lt;/b&gt;/main", text)
        self.assertIn("</script><b>x</b>", bands["</script><b>x</b>/main"]["stackText"])

    def test_no_prof_no_column(self):
        # Without a .prof (or one of another mode), the bands table is as before.
        d = tltest.tempdir(self)
        write(d, "n.hp", frames_hp(FRAMES_LABELS))
        r = report(self, ["n.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        data, text = page_data(os.path.join(d, "n.html"))
        self.assertNotIn("full stack (innermost first", text)
        self.assertEqual({b["stackText"] for b in data["bands"]}, {""})
        write(d, "n.prof", FRAMES_PROF.replace("mode cc", "mode kind"))
        r = report(self, ["n.hp", "-o", "k.html"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        data, text = page_data(os.path.join(d, "k.html"))
        self.assertNotIn("full stack (innermost first", text)
        self.assertIn('id="stack-frames"', text)        # the section is still shown


# A .prof of mode cc for the flame graph: nested stacks (make under build
# and under main, main with bytes of its own), live@peak unlike bytes, a
# C++ name with blanks, commas and <>, C++'s operator/, an explicit cost
# centre whose name has a '/', markup, and UNKNOWN (a stack with no frame).
FLAME_ROWS = [
    # (bytes, live@peak, stack)
    (4096, 1024, "make/build/main"),
    (2048, 0, "make/main"),
    (1024, 512, "main"),
    (768, 256, "ns::Map<int, std::pair<int, long> >::insert(std::pair<int, long> const&, int)"
               "/build/main"),
    (256, 256, "ns::operator/(ns::V const&, ns::V const&)/main"),
    (128, 128, "load a/b/main"),
    (64, 64, "</script><b>x</b>/main"),
    (64, 0, "UNKNOWN"),
]
FLAME_FRAMES = {
    "make/build/main": [("make", "app+0x1100", "/src/app.c:7"), ("build", "app+0x1200",
                        "/src/app.c:20"), ("main", "app+0x1080", "/src/app.c:31")],
    "make/main": [("make", "app+0x1100", "/src/app.c:7"), ("main", "app+0x1080",
                  "/src/app.c:33")],
    "main": [("main", "app+0x1080", "/src/app.c:35")],
    FLAME_ROWS[3][2]: [("ns::Map<int, std::pair<int, long> >::insert(std::pair<int, long> "
                        "const&, int)", "app+0x1300", "/src/map.hh:40"),
                       ("build", "app+0x1200", "/src/app.c:21"),
                       ("main", "app+0x1080", "/src/app.c:31")],
    "ns::operator/(ns::V const&, ns::V const&)/main": [
        ("ns::operator/(ns::V const&, ns::V const&)", "app+0x1400", None),
        ("main", "app+0x1080", "/src/app.c:36")],
    "load a/b/main": [("load a/b", "explicit", None), ("main", "app+0x1080", "/src/app.c:37")],
    "</script><b>x</b>/main": [("</script><b>x</b>", "explicit", None),
                               ("main", "app+0x1080", "/src/app.c:38")],
    "UNKNOWN": [],
}


def flame_prof(frames=True, mode="cc", rows=FLAME_ROWS):
    """The text of the flame graph's .prof (with or without STACK FRAMES),
    of FLAME_ROWS or `rows` (the same stacks, other figures)."""
    tb = sum(r[0] for r in rows)
    tl = sum(r[1] for r in rows)
    lines = [prof_text(mode).split("\n      objects")[0],
             "      objects          bytes      requested       survived      live@peak  "
             "cost-centre stack (innermost first)",
             "%13d  %13d  %13d  %13d  %13d  total profiled" % (len(rows), tb, tb, tl, tl)]
    for b, live, name in rows:
        lines.append("%13d  %13d  %13d  %13d  %13d  %s" % (1, b, b, b, live, name))
    if frames:
        lines += ["", "STACK FRAMES (each stack of the table, innermost frame first: function, "
                  "module+address, source line)", ""]
        for _b, _l, name in rows:
            lines.append(name)
            for function, where, source in FLAME_FRAMES[name]:
                lines.append(f"    {function}  {where}  {source or '-'}")
            lines.append("")
    return "\n".join(lines) + "\n"


def fold(tree, weight="bytes"):
    """{'outermost;...;innermost': self value} of a flame tree's nodes with
    some of their own (as FlameGraph's folded stacks)."""
    out = {}

    def walk(node, path):
        own = node["self_" + weight]
        if own:
            out[";".join(path)] = own
        for name, child in node["children"].items():
            walk(child, path + [name.replace(";", ":")])
    walk(tree, [])
    return out


def many_stacks_prof(n):
    """(the text of a .prof whose table has n stacks of long C++ names, 2
    to 8 frames under main; {stack: bytes}): live@peak is half the bytes."""
    funcs = [f"ns{i % 7}::Klass<std::vector<int, std::allocator<int> > >::method_{i}"
             f"(int, char const*, std::map<int, long> const&)" for i in range(300)]
    rows = {}
    k = 0
    while len(rows) < n:
        depth = 2 + k % 7
        path = [funcs[(k * 7919 + j * 104729) % (13 + 40 * j) % 300] for j in range(depth)]
        rows["/".join(path) + "/main"] = 16 * (1 + k % 977)
        k += 1
    total = sum(rows.values())
    lines = [prof_text("cc").split("\n      objects")[0],
             "      objects          bytes      requested       survived      live@peak  "
             "cost-centre stack (innermost first)",
             "%13d  %13d  %13d  %13d  %13d  total profiled" % (len(rows), total, total,
                                                                total, total // 2)]
    for name, b in sorted(rows.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append("%13d  %13d  %13d  %13d  %13d  %s" % (1, b, b, b, b // 2, name))
    return "\n".join(lines) + "\n", rows


class FlameGraph(unittest.TestCase):
    """The flame graph's call tree, built from the .prof's allocation table,
    and its data in the page."""

    def setUp(self):
        tltest.check_env(self)

    def tree(self, text):
        d = tltest.tempdir(self)
        return R.flame_tree(R.parse_prof(write(d, "f.prof", text)))

    def check_sums(self, node):
        """Every node: its value is its own plus its children's (both
        weightings), and the stacks through it are its children's and its own."""
        for w in ("bytes", "live"):
            self.assertEqual(node[w], node["self_" + w] + sum(c[w] for c in
                                                              node["children"].values()),
                             node["name"])
        self.assertGreaterEqual(node["stacks"], sum(c["stacks"] for c in
                                                    node["children"].values()))
        for c in node["children"].values():
            self.check_sums(c)

    def test_tree_from_stack_frames(self):
        t = self.tree(flame_prof())
        self.check_sums(t)
        # The root: every row of the table (the 'total profiled' row's sums).
        self.assertEqual((t["name"], t["bytes"], t["live"], t["stacks"]),
                         ("all stacks", 8448, 2240, 8))
        self.assertEqual((t["self_bytes"], t["self_live"]), (0, 0))
        self.assertEqual(list(t["children"]), ["main", "UNKNOWN"])     # the outermost frames
        main = t["children"]["main"]
        self.assertEqual((main["bytes"], main["live"], main["stacks"]), (8384, 2240, 7))
        self.assertEqual((main["self_bytes"], main["self_live"]), (1024, 512))
        self.assertEqual(list(main["children"]),
                         ["build", "make", "ns::operator/(ns::V const&, ns::V const&)",
                          "load a/b", "</script><b>x</b>"])
        build = main["children"]["build"]
        self.assertEqual((build["bytes"], build["live"], build["self_bytes"]), (4864, 1280, 0))
        cxx = "ns::Map<int, std::pair<int, long> >::insert(std::pair<int, long> const&, int)"
        self.assertEqual(list(build["children"]), ["make", cxx])
        self.assertEqual((build["children"][cxx]["bytes"], build["children"][cxx]["live"]),
                         (768, 256))
        # The same function under two callers: two nodes, each its own bytes.
        self.assertEqual((build["children"]["make"]["bytes"],
                          build["children"]["make"]["live"]), (4096, 1024))
        self.assertEqual((main["children"]["make"]["bytes"],
                          main["children"]["make"]["live"]), (2048, 0))
        # The frames' source lines, distinct, in the table's order; an
        # explicit cost centre (its name kept whole: the '/' is its own).
        self.assertEqual(main["sources"], ["/src/app.c:31", "/src/app.c:33", "/src/app.c:35",
                                           "/src/app.c:36", "/src/app.c:37", "/src/app.c:38"])
        self.assertEqual(build["sources"], ["/src/app.c:20", "/src/app.c:21"])
        self.assertTrue(main["children"]["load a/b"]["explicit"])
        self.assertFalse(build["explicit"])
        # UNKNOWN: a stack with no frame is one node.
        self.assertEqual((t["children"]["UNKNOWN"]["bytes"], t["children"]["UNKNOWN"]["live"],
                          t["children"]["UNKNOWN"]["children"]), (64, 0, {}))
        # Folded back, each stack's row (bytes, and live where not 0).
        rows = {";".join(reversed([f[0] for f in FLAME_FRAMES[n]] or [n])): (b, live)
                for b, live, n in FLAME_ROWS}
        self.assertEqual(fold(t), {k: b for k, (b, _l) in rows.items()})
        self.assertEqual(fold(t, "live"), {k: live for k, (_b, live) in rows.items() if live})

    def test_tree_without_stack_frames(self):
        # An older .prof: the frames split from the names, at the '/'s
        # outside brackets; operator/ is kept whole, an explicit cost
        # centre's own '/' cannot be told from a frame boundary.
        t = self.tree(flame_prof(frames=False))
        self.check_sums(t)
        self.assertEqual((t["bytes"], t["live"], t["stacks"]), (8448, 2240, 8))
        main = t["children"]["main"]
        self.assertEqual(list(main["children"]),
                         ["build", "make", "ns::operator/(ns::V const&, ns::V const&)", "b",
                          "b>"])
        self.assertEqual(list(main["children"]["b"]["children"]), ["load a"])
        self.assertEqual(list(main["children"]["b>"]["children"]), ["script><b>x<"])
        build = main["children"]["build"]
        self.assertEqual(list(build["children"]),
                         ["make", "ns::Map<int, std::pair<int, long> >::insert(std::pair<int, "
                                  "long> const&, int)"])
        self.assertEqual(main["sources"], [])
        self.assertEqual(R.split_stack("ns::operator//main"), ["ns::operator/", "main"])
        self.assertEqual(R.split_stack("ns::operator/=(ns::V&, int)/f(a, b)/main"),
                         ["ns::operator/=(ns::V&, int)", "f(a, b)", "main"])
        self.assertEqual(R.split_stack("int ns::apply<&ns::operator/>(int)/main"),
                         ["int ns::apply<&ns::operator/>(int)", "main"])
        self.assertEqual(R.split_stack("operator/main"), ["operator", "main"])     # C

    def test_no_table_no_tree(self):
        d = tltest.tempdir(self)
        self.assertIsNone(R.flame_tree(None))
        # GHC's .prof (its SET lines only), a report whose table has no rows.
        self.assertIsNone(R.flame_tree(R.parse_prof(fixture("trees-ghc-hr.prof"))))
        empty = flame_prof(frames=False).split("total profiled")[0] + "total profiled\n"
        self.assertIsNone(R.flame_tree(R.parse_prof(write(d, "e.prof", empty))))
        # Every mode's report has the table: the tree is the same.
        for mode in ("retainer", "roots", "ldv", "module", "kind"):
            with self.subTest(mode=mode):
                t = self.tree(flame_prof(mode=mode))
                self.assertEqual((t["bytes"], t["live"]), (8448, 2240))

    def test_data(self):
        F = R.flame_data(self.tree(flame_prof()))
        funcs = [f[0] for f in F["funcs"]]
        nodes = [(funcs[n[1]] if n[1] >= 0 else None, n[2], n[3]) for n in F["nodes"]]
        cxx = "ns::Map<int, std::pair<int, long> >::insert(std::pair<int, long> const&, int)"
        # Preorder, children largest (allocated) first.
        self.assertEqual(nodes, [(None, 8448, 2240), ("main", 8384, 2240), ("build", 4864, 1280),
                                 ("make", 4096, 1024), (cxx, 768, 256), ("make", 2048, 0),
                                 ("ns::operator/(ns::V const&, ns::V const&)", 256, 256),
                                 ("load a/b", 128, 128), ("</script><b>x</b>", 64, 64),
                                 ("UNKNOWN", 64, 0)])
        parents = [n[0] for n in F["nodes"]]
        self.assertEqual(parents, [-1, 0, 1, 2, 2, 1, 1, 1, 1, 0])
        self.assertEqual(F["stacks"], 8)
        # One entry a function: its full name, its label, its colour.
        self.assertEqual(len(funcs), len(set(funcs)))
        labels = {f[0]: f[1] for f in F["funcs"]}
        self.assertEqual(labels[cxx], "ns::Map<...>::insert")
        self.assertEqual(labels["ns::operator/(ns::V const&, ns::V const&)"], "ns::operator/")
        self.assertEqual(labels["load a/b"], "load a/b")
        self.assertEqual(labels["make"], "make")
        # Source lines: the node's distinct lines; none known: -1.
        srcs = [F["srcs"][n[4]] if n[4] >= 0 else None for n in F["nodes"]]
        self.assertEqual(srcs[:4], [None, "/src/app.c:31, /src/app.c:33, /src/app.c:35 and 3 "
                                          "more", "/src/app.c:20, /src/app.c:21", "/src/app.c:7"])
        self.assertEqual(srcs[6], None)
        self.assertEqual([n[5] for n in F["nodes"]], [8, 7, 2, 1, 1, 1, 1, 1, 1, 1])
        self.assertIsNone(R.flame_data(None))

    def test_colours(self):
        # A function's colour is its name's: the same under every caller,
        # in every page; functions with no symbol are grey.
        c = R.flame_colour("make")
        self.assertEqual(c, R.flame_colour("make"))
        self.assertRegex(c, r"^hsl\((\d|[1-4]\d|5[0-5]), \d+%, \d+%\)$")
        self.assertNotEqual(c, R.flame_colour("main"))
        for name in ("libnixexpr.so+0x171c50", "[jit]", "UNKNOWN"):
            self.assertRegex(R.flame_colour(name), r"^hsl\(220, 9%, \d+%\)$")

    def test_page(self):
        d = tltest.tempdir(self)
        write(d, "f.hp", frames_hp(["make/build/main", "make/main", "main"]))
        write(d, "f.prof", flame_prof())
        r = report(self, ["f.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        data, text = page_data(os.path.join(d, "f.html"))
        self.assertEqual(data["flame"], R.flame_data(R.flame_tree(R.parse_prof(
            os.path.join(d, "f.prof")))))
        self.assertEqual(text.count('<section class="card" id="flame">'), 1)
        # After the chart, before the bands table.
        self.assertLess(text.index('id="chart"'), text.index('id="flame"'))
        self.assertLess(text.index('id="flame"'), text.index('id="bands"'))
        for what in ('id="flame-bytes"', 'id="flame-live"', 'id="flame-reset"',
                     'id="flame-graph"', 'id="flame-tip"', "(8 stacks)"):
            self.assertIn(what, text)
        # Names that look like markup are data, escaped in the script's JSON.
        self.assertEqual(text.count("</script>"), 2)
        self.assertNotIn("<b>x</b>", text)
        # Without a .prof, or with GHC's: no flame graph.
        for prof in (None, fixture("trees-ghc-hr.prof")):
            with self.subTest(prof=prof):
                args = ["f.hp", "-o", "n.html"] + (["--prof", prof] if prof else [])
                if prof is None:
                    os.rename(os.path.join(d, "f.prof"), os.path.join(d, "f.prof.off"))
                r = report(self, args, cwd=d)
                self.assertEqual(r.returncode, 0, r.stderr)
                data, text = page_data(os.path.join(d, "n.html"))
                self.assertIsNone(data["flame"])
                self.assertNotIn('id="flame"', text)
                self.assertNotIn('id="flame-graph"', text)

    def test_real_runs_match_folded_stacks(self):
        # heapprof's own folded stacks (PROG.folded, PROG.live.folded) are
        # the same tree: the page's flame graph and flamegraph.pl's agree.
        progs = [([os.path.join(hptest.BUILD, "examples", "trees"), "10"], "trees"),
                 ([hptest.prog("names_cpp")], "names_cpp"),
                 ([hptest.prog("names_lines")], "names_lines")]
        for argv, stem in progs:
            with self.subTest(prog=stem):
                r = hptest.run(self, argv, heapprof="cc,interval=0")
                self.assertEqual(r.rc, 0, r.stderr)
                t = R.flame_tree(R.parse_prof(r.prof_path))
                self.check_sums(t)
                for weight, suffix in (("bytes", ".folded"), ("live", ".live.folded")):
                    with open(os.path.join(r.cwd, stem + suffix)) as f:
                        folded = {}
                        for line in f:
                            path, _, v = line.rstrip("\n").rpartition(" ")
                            folded[path] = folded.get(path, 0) + int(v)
                    self.assertEqual(fold(t, weight), folded, suffix)
                    self.assertEqual(t[weight], sum(folded.values()))
                if stem == "names_cpp":
                    # One function (operator new) under two callers.
                    main = t["children"]["main"]
                    new = [c["children"].get("gc::operator new(unsigned long, GCPlacement)")
                           for c in main["children"].values()]
                    self.assertEqual(len([n for n in new if n]), 2)

    def test_many_stacks(self):
        # Thousands of stacks of long C++ names: the page stays quick to
        # write and its flame data compact (names once, in a table).
        d = tltest.tempdir(self)
        text, rows = many_stacks_prof(4000)
        total = sum(rows.values())
        write(d, "m.prof", text)
        write(d, "m.hp", frames_hp(["main"]))
        start = time.monotonic()
        r = report(self, ["m.hp"], cwd=d)
        elapsed = time.monotonic() - start
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertLess(elapsed, 20, "report of 4000 stacks too slow")
        data, text = page_data(os.path.join(d, "m.html"))
        F = data["flame"]
        self.assertEqual(F["stacks"], 4000)
        self.assertEqual(F["nodes"][0][2:4], [total, sum(b // 2 for b in rows.values())])
        self.assertLessEqual(len(F["funcs"]), 301)
        flame_json = len(json.dumps(F, separators=(",", ":")))
        self.assertLess(flame_json, 60 * len(F["nodes"]) + 150 * len(F["funcs"]))
        self.assertLess(flame_json, len(text) / 3)      # the tables hold more than it


# ---------------------------------------------------------------------------
# Mode retainer's dominator tree (dominators=yes)

# fixtures/: a real run of tests/progs/retained.c with
# HEAPPROF=retainer,interval=0,dominators=yes (see fixtures/README.md).
DOM_PROF = "retained-dominators.prof"
DOM_HP = "retained-dominators.hp"
DOM_TREE_HEAD = "\nThe dominator tree, three levels down"
LIST, SHARED, CHAIN = "make_list/build/main", "make_shared/build/main", "make_chain/build/main"
HOLDER, LEAF = "make_holder/build/main", "make_leaf/build/main"
UNTRACKED = "(objects heapprof does not track)"
# The tree of the fixture, line by line: (level, retained bytes, retained
# objects, own bytes (None on the line of others), name, held by, others).
DOM_ROWS = [
    (0, 4800, 100, 48, LIST, "(29)g_list", None),
    (1, 4752, 99, 48, LIST, "", None),
    (2, 4704, 98, 48, LIST, "", None),
    (0, 2448, 51, 48, SHARED, "(36)g_a,g_b", None),
    (1, 2400, 50, 48, CHAIN, "", None),
    (2, 2352, 49, 48, CHAIN, "", None),
    (0, 1088, 20, 176, HOLDER, "(32)g_holder", None),
] + [(1, 48, 1, 48, LEAF, "", None)] * 5 + [
    (1, 672, 14, None, "(14 others)", "", 14),
    (0, 864, 18, 48, UNTRACKED, "(3)gc:data", None),
    (1, 816, 17, 48, UNTRACKED, "", None),
    (2, 768, 16, 48, UNTRACKED, "", None),
    (0, 48, 1, 48, LEAF, "(38)g_holder,g_leaf", None),
    (0, 48, 1, 48, UNTRACKED, "(37)gc:data,gc:frames", None),
]
# A C++ stack name with what HTML must escape: templates, '&', quotes.
CXX_STACK = ('std::map<int, long>::insert(std::pair<int const, long> const&)/'
             'ns::f<"q" & \'a\'>/main')


def dom_text():
    with open(fixture(DOM_PROF)) as f:
        return f.read()


def dom_line(level, retained, objects, own, text):
    """A line of the .prof's dominator tree, as heapprof writes it."""
    return "%11d%13d%13s  %s%s" % (retained, objects, "" if own is None else own,
                                   "  " * level, text)


def tree_of(prof):
    """The .prof's dominator tree (its table of kind "tree"), or None."""
    trees = [t for t in prof["tables"] if t["kind"] == "tree"]
    return trees[0] if trees else None


def node_row(n):
    return (n["level"], n["retained"], n["objects"], n["own"], n["name"], n["held_by"],
            n["others"])


class DominatorTree(unittest.TestCase):
    """RETAINED SIZES' dominator tree (mode retainer, dominators=yes): parsed
    into nodes, drawn as a tree of <details> a click opens level by level."""

    def setUp(self):
        tltest.check_env(self)

    def parse(self, text, name="t.prof"):
        return R.parse_prof(write(tltest.tempdir(self), name, text))

    def test_tree_from_a_real_prof(self):
        prof = R.parse_prof(fixture(DOM_PROF))
        self.assertEqual(prof["retained"], {"time": "0.00", "bytes": 9296, "objects": 191})
        tree = tree_of(prof)
        self.assertEqual(tree["reached"], prof["retained"])
        self.assertEqual(tree["title"], DOM_TREE_HEAD[1:] + ": each object under the root, the "
                         "largest it keeps alive alone below it, and theirs (each line's figures "
                         "include the lines below it; the rest of each level on one line)")
        self.assertEqual(tree["columns"], ["retained", "objects", "own bytes",
                                           "allocated at (the first level: ; held by)"])
        # Every line: its level, figures, name and (first level) retainer set, exact.
        self.assertEqual([node_row(n) for n in tree["rows"]], DOM_ROWS)
        # The structure: each line's children are the following lines one
        # level deeper, up to the next line of its level or less.
        self.assertEqual([n["name"] for n in tree["roots"]],
                         [LIST, SHARED, HOLDER, UNTRACKED, LEAF, UNTRACKED])
        lst, shared, holder, untracked, leaf, untracked2 = tree["roots"]
        self.assertEqual([(c["retained"], [g["retained"] for g in c["children"]])
                          for c in lst["children"]], [(4752, [4704])])
        self.assertEqual([(c["name"], c["retained"], [(g["name"], g["retained"])
                                                      for g in c["children"]])
                          for c in shared["children"]], [(CHAIN, 2400, [(CHAIN, 2352)])])
        self.assertEqual([node_row(c) for c in holder["children"]], DOM_ROWS[7:13])
        self.assertEqual([c["children"] for c in holder["children"]], [[]] * 6)
        self.assertEqual([c["retained"] for c in untracked["children"]], [816])
        self.assertEqual((leaf["children"], untracked2["children"]), ([], []))
        # The (14 others) line: own bytes blank, the count it sums, no children.
        others = holder["children"][-1]
        self.assertEqual((others["name"], others["others"], others["own"], others["held_by"],
                          others["retained"], others["objects"]),
                         ("(14 others)", 14, None, "", 672, 14))
        # A line's figures include the lines under it: the holder retains its
        # own 176 bytes and its 19 leaves (5 shown, 14 summed) of 48.
        self.assertEqual(holder["retained"], holder["own"] +
                         sum(c["retained"] for c in holder["children"]))
        self.assertEqual(holder["objects"], 1 + sum(c["objects"] for c in holder["children"]))
        for n in tree["rows"]:
            if n["own"] is not None:
                self.assertGreaterEqual(n["retained"], n["own"] +
                                        sum(c["retained"] for c in n["children"]))
        # The first level is all the census reached (fewer than 10 objects under the root).
        self.assertEqual(sum(r["retained"] for r in tree["roots"]), 9296)
        self.assertEqual(sum(r["objects"] for r in tree["roots"]), 191)

    def test_other_tables_of_the_section_unchanged(self):
        prof = R.parse_prof(fixture(DOM_PROF))
        self.assertEqual([(t["title"][:30], t["kind"]) for t in prof["tables"]],
                         [("allocation by cost-centre stac", "header"),
                          ("RETAINER CENSUSES (time s, tra", "listed"),
                          ("What each object under the roo", "header"),
                          ("The dominator tree, three leve", "tree"),
                          ("What each allocation stack's o", "header")])
        per_object, per_stack = prof["tables"][2], prof["tables"][4]
        self.assertEqual(per_object["columns"], ["retained", "objects", "own bytes", "objects",
                                                 "allocated at; held by"])
        self.assertEqual(per_object["rows"][:3], [
            ["4800", "100", "48", "1", "make_list/build/main; (29)g_list"],
            ["2448", "51", "48", "1", "make_shared/build/main; (36)g_a,g_b"],
            ["1088", "20", "176", "1", "make_holder/build/main; (32)g_holder"]])
        self.assertEqual(len(per_object["rows"]), 6)
        self.assertEqual(per_stack["columns"], ["retained", "objects", "cost-centre stack"])
        self.assertEqual(per_stack["rows"], [["4800", "100", LIST], ["2448", "51", SHARED],
                                             ["2400", "50", CHAIN], ["1088", "20", HOLDER],
                                             ["960", "20", LEAF]])
        for t in prof["tables"]:
            self.assertEqual(t["notes"], [] if t["kind"] != "listed" else t["notes"])
        self.assertEqual([o[:20] for o in prof["other"]],
                         ["RETAINER SETS (every", "RETAINED SIZES (domi", "Cost: 3 trees, 0.43 "])

    def test_levels_from_the_blanks(self):
        # Levels jump (a line two deeper than the one before it is its
        # child); '(1 other)'; a first-level line with no retainer set;
        # numbers wider than their columns.
        lines = ["RETAINED SIZES (dominators=yes: the dominator tree of the census at 1.25 s, the "
                 "one with the most bytes reached: 123456789012 bytes in 7 objects; ...)", "",
                 DOM_TREE_HEAD[1:] + ": each object under the root (...)",
                 "   retained      objects    own bytes  allocated at (the first level: ; "
                 "held by)",
                 dom_line(0, 123456789012, 5, 16, "a/main; (4)g_a"),
                 dom_line(2, 100, 2, 64, "b/a/main"),
                 dom_line(1, 36, 1, 36, "c/a/main"),
                 dom_line(2, 20, 1, None, "(1 other)"),
                 dom_line(0, 64, 1, 64, "d/main"),
                 dom_line(0, 48, 2, None, "(2 others)"), "",
                 "What each allocation stack's objects keep alive (...), largest first",
                 "   retained      objects  cost-centre stack",
                 "       4800          100  a/main"]
        prof = self.parse(prof_text("retainer") + "\n".join(lines) + "\n")
        self.assertEqual(prof["retained"], {"time": "1.25", "bytes": 123456789012, "objects": 7})
        tree = tree_of(prof)
        self.assertEqual([node_row(n) for n in tree["rows"]], [
            (0, 123456789012, 5, 16, "a/main", "(4)g_a", None),
            (1, 100, 2, 64, "b/a/main", "", None),
            (1, 36, 1, 36, "c/a/main", "", None),
            (2, 20, 1, None, "(1 other)", "", 1),
            (0, 64, 1, 64, "d/main", "", None),
            (0, 48, 2, None, "(2 others)", "", 2)])
        a = tree["roots"][0]
        self.assertEqual([c["name"] for c in a["children"]], ["b/a/main", "c/a/main"])
        self.assertEqual([g["name"] for g in a["children"][1]["children"]], ["(1 other)"])
        self.assertEqual(prof["tables"][-1]["rows"], [["4800", "100", "a/main"]])

    def test_prof_without_the_tree(self):
        # No RETAINED SIZES section (dominators=no), the section of a run
        # with no census by components, an empty tree, a file cut off in
        # the tree or right after its title: parsed, and the page written.
        text = dom_text()
        head, tail = text.split(DOM_TREE_HEAD)
        title, header, rest = tail.split("\n", 2)
        empty = head + DOM_TREE_HEAD + title + "\n" + header + "\n" + \
            rest[rest.index("\n\n"):]
        cases = {
            "none": (prof_text("retainer") + RETAINER_SECTIONS, None),
            "no census": (prof_text("retainer") + RETAINER_SECTIONS +
                          "\nRETAINED SIZES (dominators=yes): no census walked the heap by "
                          "components\n", None),
            "empty": (empty, 0),
            "cut in the tree": (text[:text.index("(14 others)")], 12),
            "cut after the header": (head + DOM_TREE_HEAD + title + "\n" + header, 0),
            "cut after the title": (head + DOM_TREE_HEAD + title + "\n", None),
        }
        d = tltest.tempdir(self)
        with open(fixture(DOM_HP)) as f:
            write(d, "t.hp", f.read())
        for case, (prof_txt, nrows) in cases.items():
            with self.subTest(case=case):
                write(d, "t.prof", prof_txt)
                prof = R.parse_prof(os.path.join(d, "t.prof"))
                tree = tree_of(prof)
                if nrows is None:
                    self.assertIsNone(tree)
                else:
                    self.assertEqual(len(tree["rows"]), nrows)
                    self.assertEqual([node_row(n) for n in tree["rows"]], DOM_ROWS[:nrows])
                if case == "empty":
                    # The table after the tree still has its title and rows.
                    self.assertEqual(prof["tables"][-1]["rows"][0], ["4800", "100", LIST])
                    self.assertTrue(prof["tables"][-1]["title"].startswith(
                        "What each allocation stack's"))
                if case.startswith("no") or case == "none":
                    self.assertIsNone(prof["retained"])
                r = report(self, ["t.hp", "-o", "t.html"], cwd=d)
                self.assertEqual((r.returncode, r.stderr), (0, ""))
                _, page = page_data(os.path.join(d, "t.html"))
                self.assertEqual(page.count('class="card prof-tree"'), 0 if tree is None else 1)
                self.assertEqual(page.count('<details class="dt-node">'),
                                 0 if not nrows else 5)
                if tree is not None and not nrows:
                    self.assertIn('<p class="note">(none: no object under the root)</p>', page)
                    self.assertNotIn('class="domtree"', page)

    def test_page(self):
        d = tltest.tempdir(self)
        for name in (DOM_PROF, DOM_HP):
            with open(fixture(name)) as f:
                write(d, "r" + name[len("retained-dominators"):], f.read())
        r = report(self, ["r.hp"], cwd=d)
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        _, text = page_data(os.path.join(d, "r.html"))
        # One card, between the section's two other tables, in the .prof's order.
        self.assertEqual(text.count('class="card prof-tree"'), 1)
        tree = text[text.index('<section class="card prof-tree" id="table-3">'):]
        tree = tree[:tree.index("</section>")]
        self.assertLess(text.index('id="table-2"'), text.index('id="table-3"'))
        self.assertLess(text.index('id="table-3"'), text.index('id="table-4"'))
        self.assertIn('<h2>The dominator tree, three levels down <span class="sub">each object '
                      'under the root, the largest it keeps alive alone below it, and theirs · '
                      'the census at 0.00 s reached 9,296 bytes in 191 objects · ', tree)
        # Nodes with children open on a click (<details>, closed); the others are rows.
        self.assertEqual(tree.count('<details class="dt-node">'), 7)
        self.assertEqual(tree.count("<details"), 7)
        self.assertEqual(tree.count("<summary"), 7)
        rows = re.findall(r'<(summary|div) class="dt-row( dt-others)?" data-level="(\d)" '
                          r'data-retained="(\d+)" data-objects="(\d+)" data-own="(\d*)">'
                          r'.*?<span class="dt-stack">([^<]*)</span>', tree, re.S)
        self.assertEqual([(int(lv), int(b), int(o), int(own) if own else None, html.unescape(nm))
                          for _t, _o, lv, b, o, own, nm in rows],
                         [row[:5] for row in DOM_ROWS])
        self.assertEqual([t for t, *_ in rows],
                         ["summary", "summary", "div", "summary", "summary", "div", "summary"] +
                         ["div"] * 6 + ["summary", "summary", "div", "div", "div"])
        self.assertEqual([o for _t, o, *_ in rows].count(" dt-others"), 1)
        # Each node: its retained bytes readable, exact in the title; objects;
        # own bytes; its share of what the census reached.
        first = tree[tree.index('<summary class="dt-row" data-level="0" data-retained="4800"'):]
        first = first[:first.index("</summary>")]
        for want in ('<span class="dt-stack">make_list/build/main</span><span class="dt-held" '
                     'title="the retainer set that holds it">held by (29)g_list</span>',
                     '<span class="dt-num dt-ret" title="4,800 bytes retained">4.69 KiB</span>',
                     '<span class="dt-num dt-obj" title="100 objects retained">100</span>',
                     '<span class="dt-num dt-own" title="48 bytes of its own">48</span>',
                     '<i style="width:51.64%"></i>', '<span class="dt-pct">51.6%</span>',
                     "make_list  (/work/main/tests/progs/retained.c:32)"):
            self.assertIn(want, first)
        others = re.search(r'<div class="dt-row dt-others".*?</div>', tree).group(0)
        self.assertIn('<span class="dt-stack">(14 others)</span>', others)
        self.assertIn('title="672 bytes retained">672 bytes</span>', others)
        self.assertIn('<span class="dt-num dt-own"></span>', others)
        self.assertIn('<span class="dt-pct">7.2%</span>', others)
        self.assertEqual(re.findall(r"<details[^>]*>", tree),
                         ['<details class="dt-node">'] * 7)       # every node closed
        self.assertIn('<span class="dt-num dt-obj" title="1 object retained">1</span>', tree)
        # The section's other tables: sortable tables, as before.
        for t in (2, 4):
            card = text[text.index(f'id="table-{t}"'):]
            self.assertIn('<table class="sortable data">', card[:card.index("</section>")])
        self.assertIn('<td class="num" data-v="4800">4,800</td><td class="num" data-v="100">100'
                      '</td><td class="num" data-v="48">48</td><td class="num" data-v="1">1</td>'
                      '<td class="txt">make_list/build/main; (29)g_list</td>', text)

    def test_names_escaped(self):
        # C++ stacks (templates, '&', quotes) and a retainer set with '<':
        # text in the page, never markup.
        text = dom_text().replace(HOLDER, CXX_STACK).replace("(32)g_holder", "(32)<i>g</i>")
        d = tltest.tempdir(self)
        write(d, "x.prof", text)
        prof = R.parse_prof(os.path.join(d, "x.prof"))
        holder = tree_of(prof)["roots"][2]
        self.assertEqual((holder["name"], holder["held_by"], holder["retained"]),
                         (CXX_STACK, "(32)<i>g</i>", 1088))
        self.assertEqual(len(holder["children"]), 6)
        with open(fixture(DOM_HP)) as f:
            write(d, "x.hp", f.read().replace("(32)g_holder", "(32)<i>g</i>"))
        r = report(self, ["x.hp"], cwd=d)
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        _, page = page_data(os.path.join(d, "x.html"))
        tree = page[page.index('class="card prof-tree"'):]
        tree = tree[:tree.index("</section>")]
        self.assertIn('<span class="dt-stack">std::map&lt;int, long&gt;::insert(std::pair&lt;int '
                      'const, long&gt; const&amp;)/ns::f&lt;&quot;q&quot; &amp; &#x27;a&#x27;&gt;/'
                      'main</span><span class="dt-held" title="the retainer set that holds it">'
                      'held by (32)&lt;i&gt;g&lt;/i&gt;</span>', tree)
        # In the name's title too (its frames, from STACK FRAMES).
        self.assertIn('title="full stack (innermost frame first):\nmake_holder  (', tree)
        self.assertNotIn("<i>g</i>", page)
        self.assertNotIn("<int", page)          # anywhere: tables, flame graph data, tree
        self.assertEqual(page.count("<i>"), 0)
        self.assertEqual(len(re.findall(r"<i ", tree)), 18)        # the bars, one a node


if __name__ == "__main__":
    unittest.main()
