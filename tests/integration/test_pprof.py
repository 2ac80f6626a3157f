"""Integration test: the pprof export (PROG.pb.gz) and the folded stacks.

- `go tool pprof -raw` on the export of a test program gives, per stack,
  exactly the CSV's objects and bytes allocated and its bytes live at the
  peak, and the .prof's live objects at the peak in all; each location
  names its function and its source line, each mapping its file and
  build id.
- `go tool pprof -top` and `-traces` read it; `-top -base` between two
  runs gives the differences of the two CSVs.
- PROG.folded and PROG.live.folded: one line per stack, outermost first,
  whose totals are the .prof's allocated bytes and live bytes at the peak.
(Debian's golang-go provides go tool pprof: scripts/install-deps.sh --test.)
"""
import csv
import os
import re
import shutil
import subprocess

import hptest


def pprof(testcase, *args):
    go = shutil.which("go")
    testcase.assertIsNotNone(go, "go is not installed (Debian package golang-go): "
                                 "run scripts/install-deps.sh --test")
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env["HOME"] = env.get("HOME", "/tmp")
    env["PPROF_TMPDIR"] = "/tmp"
    r = subprocess.run([go, "tool", "pprof"] + list(args), capture_output=True, text=True,
                       env=env, timeout=120)
    testcase.assertEqual(r.returncode, 0, r.stderr)
    return r.stdout


def raw(testcase, path):
    """(sample types, [(values, [function names innermost first])],
    {location id: (function, source)}, [mapping lines]) of -raw."""
    text = pprof(testcase, "-raw", path)
    part = text.split("Samples:\n", 1)[1]
    samples_txt, rest = part.split("Locations\n", 1)
    locs_txt, maps_txt = rest.split("Mappings\n", 1)
    types = samples_txt.splitlines()[0].split()
    locs = {}
    for line in locs_txt.splitlines():
        m = re.match(r"^\s+(\d+): 0x[0-9a-f]+ (?:M=\d+ )?(.*?) (\S+:\d+|\S*) s=0$", line)
        if m:
            locs[int(m.group(1))] = (m.group(2), m.group(3))
    samples = []
    for line in samples_txt.splitlines()[1:]:
        if ":" not in line:
            continue
        vals, ids = line.split(":")
        names = [locs[int(i)][0] for i in ids.split()]
        samples.append(([int(v) for v in vals.split()], names))
    return types, samples, locs, maps_txt.splitlines()


def csv_all(path):
    with open(path, newline="") as f:
        return {r["stack"]: r for r in csv.DictReader(f) if r["breakdown"] == "all"
                and r["stack"] != "total profiled"}


class Pprof(hptest.ProfileTest):

    def test_raw_matches_csv(self):
        r, hp, prof = self.profile("names_lines")
        pb = os.path.join(r.cwd, "names_lines.pb.gz")
        self.assertIn("also names_lines.pb.gz (go tool pprof names_lines.pb.gz)", r.stderr)
        types, samples, locs, maps = raw(self, pb)
        self.assertEqual(types, ["alloc_objects/count", "alloc_space/bytes",
                                 "inuse_objects/count", "inuse_space/bytes"])
        rows = csv_all(os.path.join(r.cwd, "names_lines.alloc.csv"))
        got = {"/".join(names): vals for vals, names in samples}
        self.assertEqual(set(got), set(rows))
        for stack, row in rows.items():
            vals = got[stack]
            self.assertEqual((vals[0], vals[1], vals[3]),
                             (int(row["objects"]), int(row["bytes"]), int(row["live_at_peak"])),
                             stack)
        self.assertRegex(hptest.prof_field(prof, "peak live"),
                         r"^%d bytes in %d objects " % (sum(v[3] for v in got.values()),
                                                        sum(v[2] for v in got.values())))
        # Functions with their source lines; the program's mapping with its
        # build id.
        self.assertTrue(any(f == "alpha" and s.endswith("names_lines.c:%d" % self.marker("ALPHA"))
                            for f, s in locs.values()), locs)
        notes = subprocess.run(["readelf", "-n", hptest.prog("names_lines")],
                               capture_output=True, text=True, check=True).stdout
        build_id = re.search(r"Build ID: ([0-9a-f]+)", notes).group(1)
        prog_maps = [m for m in maps if m.split()[2:3] == [hptest.prog("names_lines")]]
        self.assertEqual(len(prog_maps), 1, maps)
        self.assertTrue(prog_maps[0].endswith(" %s [FN][FL][LN]" % build_id), prog_maps[0])

    def test_retained_sizes(self):
        # dominators=yes: two more sample types, each stack's retained
        # objects and bytes, as the CSV's `retained` rows and the program's
        # own figures (tests/progs/retained.c).
        r, hp, prof = self.profile("retained", heapprof="retainer,interval=0,dominators=yes")
        want = {}
        for line in r.stdout.splitlines():
            w = line.split()
            if w[0] == "STACK":
                want[w[1] + "/build/main"] = (int(w[3]), int(w[2]))
        types, samples, locs, maps = raw(self, os.path.join(r.cwd, "retained.pb.gz"))
        self.assertEqual(types[4:], ["retained_objects/count", "retained_space/bytes"])
        got = {"/".join(names): (vals[4], vals[5]) for vals, names in samples}
        self.assertEqual(got, want)
        # Without dominators=yes: the four types only.
        r, hp, prof = self.profile("retained", heapprof="retainer,interval=0")
        types, samples, locs, maps = raw(self, os.path.join(r.cwd, "retained.pb.gz"))
        self.assertEqual(len(types), 4)

    def marker(self, name):
        src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "progs", "names_lines.c")
        with open(src) as f:
            for i, line in enumerate(f, 1):
                if "/* %s-START */" % name in line:
                    return i
        raise AssertionError(name)

    def test_top_traces_and_base(self):
        # Two runs of different size: -top -base gives the differences.
        old, _, _ = self.profile(["short_run", "large"], heapprof="cc,interval=0")
        new, _, _ = self.profile("names_lines", heapprof="cc,interval=0")
        for r, stem in ((old, "short_run"), (new, "names_lines")):
            top = pprof(self, "-top", "-sample_index=alloc_space", "-unit=B",
                        os.path.join(r.cwd, stem + ".pb.gz"))
            rows = csv_all(os.path.join(r.cwd, stem + ".alloc.csv"))
            total = sum(int(x["bytes"]) for x in rows.values())
            self.assertIn("Total samples = %dB" % total, top)
            traces = pprof(self, "-traces", os.path.join(r.cwd, stem + ".pb.gz"))
            self.assertIn("main", traces)
        diff = pprof(self, "-top", "-sample_index=alloc_space", "-unit=B", "-base",
                     os.path.join(old.cwd, "short_run.pb.gz"),
                     os.path.join(new.cwd, "names_lines.pb.gz"))
        a = csv_all(os.path.join(old.cwd, "short_run.alloc.csv"))
        b = csv_all(os.path.join(new.cwd, "names_lines.alloc.csv"))
        # Flat bytes per innermost function: new minus old.
        flat = {}
        for rows, sign in ((b, 1), (a, -1)):
            for stack, row in rows.items():
                leaf = stack.split("/")[0]
                flat[leaf] = flat.get(leaf, 0) + sign * int(row["bytes"])
        for leaf, bytes_ in flat.items():
            if bytes_:
                self.assertRegex(diff, r"(?m)^\s+%dB .* %s$" % (bytes_, re.escape(leaf)), diff)

    def test_folded_totals(self):
        r, hp, prof = self.profile("names_lines")
        total = int(hptest.prof_field(prof, "allocated").split()[2])
        peak = int(hptest.prof_field(prof, "peak live").split()[0])
        sums = {}
        for name in ("names_lines.folded", "names_lines.live.folded"):
            with open(os.path.join(r.cwd, name)) as f:
                lines = f.read().splitlines()
            for line in lines:
                self.assertRegex(line, r"^\S.* \d+$")
            sums[name] = sum(int(l.rsplit(" ", 1)[1]) for l in lines)
            self.assertIn("main;alpha %d" % hptest.prof_rows(prof)["alpha/main"][
                1 if name == "names_lines.folded" else 4], lines)
        self.assertEqual(sums["names_lines.folded"], total)
        self.assertEqual(sums["names_lines.live.folded"], peak)


    def test_outputs_chosen(self):
        """outputs=: the files besides .hp and .prof, and the wrote line."""
        cases = {
            "all": ["names_lines.alloc.csv", "names_lines.folded", "names_lines.hp",
                    "names_lines.live.folded", "names_lines.pb.gz", "names_lines.prof"],
            "none": ["names_lines.hp", "names_lines.prof"],
            "pprof": ["names_lines.hp", "names_lines.pb.gz", "names_lines.prof"],
            "csv+folded": ["names_lines.alloc.csv", "names_lines.folded", "names_lines.hp",
                           "names_lines.live.folded", "names_lines.prof"],
        }
        for outputs, files in cases.items():
            with self.subTest(outputs=outputs):
                r, hp, prof = self.profile("names_lines", heapprof="cc,outputs=" + outputs)
                self.assertEqual(sorted(os.listdir(r.cwd)), files)
                wrote = [l for l in r.stderr.splitlines() if l.startswith("heapprof: wrote")][0]
                self.assertEqual("alloc.csv" in wrote, "names_lines.alloc.csv" in files, wrote)
                self.assertEqual(".pb.gz" in wrote, "names_lines.pb.gz" in files, wrote)
                self.assertEqual(".folded" in wrote, "names_lines.folded" in files, wrote)
        r = self.run_prog("names_lines", heapprof="cc,outputs=svg")
        self.assertEqual(r.rc, 2)
        self.assertIn("outputs is all, none, or files joined by '+' among csv, pprof and folded",
                      r.stderr)


if __name__ == "__main__":
    hptest.main()
