"""Integration test: names a user can act on.

- names_cpp (C++ on gc_cpp: a namespace, a class template, gc_cpp's
  operator new): the .prof table, its STACK FRAMES, the CSV, the .hp labels
  and the HTML report show demangled names (full ones with parameter lists
  in the .prof and CSV; short ones, without, in the .hp labels).
- names_lines (C, built with -g): each frame's file:line is the line of
  its function's first instruction in the source, read back from the
  source's markers; the CSV's source column agrees.
- names_lines stripped (a copy made here with strip): its two allocating
  functions stay two frames, named names_lines+0xADDRESS, and addr2line on
  the unstripped program resolves each address back to alpha and beta;
  the .prof says how to resolve such names, and warns (with stderr) that
  the program has no symbols.
- names_jit (allocation from an anonymous executable mapping, as JIT code
  does): the stack is [jit], and the .prof and stderr count such stacks;
  under unwind=fp, the warning about one-frame stacks.
Every .hp goes through hp2ps (hptest's check).
"""
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile

import hptest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def frames_section(prof):
    """{stack name: [(function, where, source)]} from STACK FRAMES."""
    part = prof.split("\nSTACK FRAMES (", 1)[1]
    out, cur = {}, None
    for line in part.splitlines()[1:]:
        if not line.strip() or line.startswith("        ("):
            continue
        if line.startswith("    "):
            name, where, source = line.strip().rsplit("  ", 2)
            out[cur].append((name, where, source))
        elif re.match(r"^[A-Z][A-Z ]+[ (]", line):
            break
        else:
            cur = line
            out[cur] = []
    return out


def csv_rows(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {r["stack"]: r for r in rows if r["breakdown"] == "all"}


def marker_line(path, marker):
    with open(path) as f:
        for i, line in enumerate(f, 1):
            if marker in line:
                return i
    raise AssertionError(f"{marker} not in {path}")


class Names(hptest.ProfileTest):

    def test_cpp_demangled_everywhere(self):
        r, hp, prof = self.profile("names_cpp")
        out = hptest.out_table(r.stdout)
        grow = "gc::operator new(unsigned long, GCPlacement)/geo::Mesh::grow(unsigned long)/main"
        add = ("gc::operator new(unsigned long, GCPlacement)/"
               "geo::Store<geo::Point>::add(double, double)/main")
        rows = hptest.prof_rows(prof)
        self.assertEqual(rows[grow][0], out["CELLS"][0], rows)
        self.assertEqual(rows[add][0], out["POINTS"][0], rows)
        self.assertNotRegex(prof, r"_Z[A-Z0-9]", "a mangled name is left in the .prof")
        frames = frames_section(prof)
        self.assertEqual([f[0] for f in frames[add]],
                         ["gc::operator new(unsigned long, GCPlacement)",
                          "geo::Store<geo::Point>::add(double, double)", "main"])
        # The function's first instruction: the line of its head, or of its
        # opening brace below.
        head = marker_line(os.path.join(REPO, "tests/progs/names_cpp.cc"), "T *add(")
        self.assertRegex(frames[add][1][2], r"tests/progs/names_cpp\.cc:(%d|%d)$"
                         % (head, head + 1), frames[add])
        # The CSV: the same full names.
        csv_path = os.path.join(r.cwd, "names_cpp.alloc.csv")
        crow = csv_rows(csv_path)
        self.assertEqual(crow[grow]["objects"], str(out["CELLS"][0]))
        self.assertEqual(crow[add]["objects"], str(out["POINTS"][0]))
        # The .hp: short names (no parameters), cut to 25 bytes.
        labels = set()
        for _, bands in hp.samples:
            labels.update(bands)
        self.assertIn("gc::operator_new/geo::Mes", labels)
        self.assertIn("gc::operator_new/geo::Sto", labels)
        with open(r.hp_path) as f:
            self.assertNotRegex(f.read(), r"_Z[A-Z0-9]")
        # The HTML report: the demangled names, none mangled.
        page = os.path.join(r.cwd, "names_cpp.html")
        rep = subprocess.run([sys.executable, os.path.join(REPO, "scripts", "heapprof_report.py"),
                              r.hp_path, "-o", page], capture_output=True, text=True)
        self.assertEqual(rep.returncode, 0, rep.stderr)
        with open(page) as f:
            html = f.read()
        self.assertIn("geo::Mesh::grow(unsigned long)", html)
        self.assertIn("geo::Store&lt;geo::Point&gt;::add(double, double)", html)
        self.assertNotRegex(html, r"_ZN[0-9]")

    def test_source_lines(self):
        r, hp, prof = self.profile("names_lines")
        out = hptest.out_table(r.stdout)
        src = os.path.join(REPO, "tests", "progs", "names_lines.c")
        frames = frames_section(prof)
        want = {"alpha": marker_line(src, "/* ALPHA-START */"), "beta": marker_line(src, "/* BETA-START */"),
                "main": marker_line(src, "/* MAIN-START */")}
        rows = hptest.prof_rows(prof)
        self.assertEqual(rows["alpha/main"][0], out["A"][0])
        self.assertEqual(rows["beta/main"][0], out["B"][0])
        for stack in ("alpha/main", "beta/main"):
            got = frames[stack]
            self.assertEqual([f[0] for f in got], stack.split("/"))
            for name, where, source in got:
                self.assertRegex(where, r"^names_lines\+0x[0-9a-f]+$")
                self.assertTrue(source.endswith("tests/progs/names_lines.c:%d" % want[name]),
                                (name, source, want[name]))
        crow = csv_rows(os.path.join(r.cwd, "names_lines.alloc.csv"))
        self.assertEqual([s.rsplit(":", 1)[1] for s in crow["alpha/main"]["source"].split(";")],
                         [str(want["alpha"]), str(want["main"])])
        self.assertNotIn("no source lines", prof)

    def test_c_library_frames_have_no_line(self):
        # names_libc: qsort's comparison allocates, so its stack runs
        # through libc.so.6. The program's frames have their lines; the C
        # library's have none, and the .prof says why: its lines are not
        # the program's, and reading its debug file (libc6-dbg, which
        # scripts/install-deps.sh --test installs) cost 38 ms at every exit
        # (with it installed, msort_with_tmp had read "msort.c:...").
        r, hp, prof = self.profile("names_libc")
        src = os.path.join(REPO, "tests", "progs", "names_libc.c")
        want = {"compare": marker_line(src, "/* COMPARE-START */"),
                "main": marker_line(src, "/* MAIN-START */")}
        frames = frames_section(prof)
        through = [st for st in frames if st.startswith("compare/") and st.endswith("/main")]
        self.assertTrue(through, "no stack from compare through qsort to main")
        for stack in through:
            got = frames[stack]
            libc = [f for f in got if f[1].startswith("libc.so.6+0x")]
            self.assertTrue(libc, got)
            for name, where, source in got:
                if where.startswith("libc.so.6+0x"):
                    self.assertEqual(source, "-", (name, where))
                else:
                    self.assertTrue(source.endswith("tests/progs/names_libc.c:%d" % want[name]),
                                    (name, source))
        self.assertIn("(frames in the C library, libc, ld.so and libm, have no line", prof)
        crow = csv_rows(os.path.join(r.cwd, "names_libc.alloc.csv"))
        for stack in through:
            lines = crow[stack]["source"].split(";")
            self.assertEqual(lines[0].rsplit(":", 1)[1], str(want["compare"]))
            self.assertEqual(lines[-1].rsplit(":", 1)[1], str(want["main"]))
            self.assertNotIn("msort", crow[stack]["source"])

    def test_frames_by_call_site(self):
        """frames=call: each call site its own frame, function+0xOFFSET,
        with the line of the call."""
        r, hp, prof = self.profile("names_lines", heapprof="interval=0,frames=call")
        out = hptest.out_table(r.stdout)
        src = os.path.join(REPO, "tests", "progs", "names_lines.c")
        rows = hptest.prof_rows(prof)
        by_count = {v[0]: k for k, v in rows.items()}
        a, b = by_count[out["A"][0]], by_count[out["B"][0]]
        self.assertRegex(a, r"^alpha\+0x[0-9a-f]+/main\+0x[0-9a-f]+$")
        self.assertRegex(b, r"^beta\+0x[0-9a-f]+/main\+0x[0-9a-f]+$")
        # main's two call sites are two frames.
        self.assertNotEqual(a.split("/")[1], b.split("/")[1])
        frames = frames_section(prof)
        main_calls = {}
        with open(src) as f:
            for i, line in enumerate(f, 1):
                if line.strip() in ("alpha();", "beta();"):
                    main_calls[line.strip()[:-3]] = i
        for stack, fn in ((a, "alpha"), (b, "beta")):
            call = marker_line(src, "/* " + fn.upper() + "-CALL */")
            lines = [int(x[2].rsplit(":", 1)[1]) for x in frames[stack]]
            self.assertEqual(lines, [call, main_calls[fn]], frames[stack])
        labels = set()
        for _, bands in hp.samples:
            labels.update(bands)
        self.assertIn(a, labels)
        # A filter by function matches its call sites.
        r2, hp2, prof2 = self.profile("names_lines", heapprof="interval=0,frames=call,ccs=beta")
        self.assertRegex(hptest.prof_field(prof2, "peak live"), r"^%d bytes" % rows[b][4])

    def test_stripped_program(self):
        d = tempfile.mkdtemp(prefix="hp-strip-")
        self.addCleanup(shutil.rmtree, d, True)
        full = hptest.prog("names_lines")
        stripped = os.path.join(d, "names_lines")
        shutil.copy(full, stripped)
        subprocess.run(["strip", "--strip-all", stripped], check=True)
        nm = subprocess.run(["nm", stripped], capture_output=True, text=True)
        self.assertIn("no symbols", nm.stderr)
        r, hp, prof = self.profile(stripped)
        rows = hptest.prof_rows(prof)
        out = hptest.out_table(r.stdout)
        # Two rows (one per function), each innermost frame its own name.
        by_count = {v[0]: k for k, v in rows.items()}
        a, b = by_count[out["A"][0]], by_count[out["B"][0]]
        fa, fb = a.split("/")[0], b.split("/")[0]
        self.assertRegex(fa, r"^names_lines\+0x[0-9a-f]+$")
        self.assertRegex(fb, r"^names_lines\+0x[0-9a-f]+$")
        self.assertNotEqual(fa, fb)
        # addr2line, given the symbols (the unstripped build), names them.
        for name, want in ((fa, "alpha"), (fb, "beta")):
            a2l = subprocess.run(["addr2line", "-f", "-e", full, name.split("+")[1]],
                                 capture_output=True, text=True, check=True)
            self.assertEqual(a2l.stdout.splitlines()[0], want, a2l.stdout)
        self.assertIn("addr2line -f -e MODULE 0xADDRESS", prof)
        # No debug information: the .prof says so.
        self.assertIn("no source lines", prof)
        # The program has no symbols of its own: a warning, in the .prof
        # and on stderr, saying what to do.
        warn = ("warning: names_lines has no symbols for its own functions (it is "
                "stripped): in 100.0% of the objects allocated through it they are named "
                "names_lines+0xADDRESS")
        self.assertIn("        (" + warn, prof)
        self.assertIn("heapprof: " + warn, r.stderr)
        self.assertIn("-dbgsym", r.stderr)

    def test_jit_code(self):
        """Allocation from code no module covers: the stack ends in [jit],
        and the .prof and stderr say how many stacks and bytes."""
        r, hp, prof = self.profile("names_jit")
        out = hptest.out_table(r.stdout)
        rows = hptest.prof_rows(prof)
        self.assertEqual(rows, {"[jit]": (out["JIT"][0], out["JIT"][1], out["JIT"][0] * 32,
                                          out["JIT"][1], out["JIT"][1])})
        note = ("note: 1 stack (100.0% of the bytes allocated) end in [jit]: code no loaded "
                "module covers")
        self.assertIn("        (" + note, prof)
        self.assertIn("heapprof: " + note, r.stderr)
        self.assertIn("\n[jit]\n    [jit]  -  -\n", prof)
        # With frame pointers the chain through such code is not followed:
        # one-frame stacks, and a warning that says what to do.
        r, hp, prof = self.profile("names_jit", heapprof="interval=0,unwind=fp")
        warn = ("warning: 100.0% of the objects have a stack of one frame or none under "
                "unwind=fp")
        self.assertIn("        (" + warn, prof)
        self.assertIn("heapprof: " + warn, r.stderr)
        self.assertIn("use unwind=libunwind", r.stderr)


if __name__ == "__main__":
    hptest.main()
