"""A real Debian program that allocates with bdwgc: w3m, under the preloaded library.

`w3m -dump` renders local HTML files (a small page with a table and text,
and a big generated one so the collector runs many times) with and without
heapprof: the output must be identical, and the profile must exist, pass
the strict format check and hp2ps, attribute allocations to w3m code, and
report a nonzero number of allocated objects.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import hptest

SMALL_HTML = """<html><head><title>heapprof w3m test</title></head>
<body>
<h1>Fruit stock</h1>
<p>The table below lists the fruit in the shop this morning.</p>
<table border="1">
<tr><th>fruit</th><th>count</th><th>colour</th></tr>
<tr><td>apple</td><td>12</td><td>red</td></tr>
<tr><td>banana</td><td>7</td><td>yellow</td></tr>
<tr><td>cherry</td><td>140</td><td>dark red</td></tr>
</table>
<p>Prices are <b>per kilogram</b> and change every week.</p>
</body></html>
"""


def big_html():
    rows = "".join(f"<tr><td>row {i}</td><td>{i * i}</td><td>{'word ' * (i % 7 + 1)}</td></tr>\n"
                   for i in range(3000))
    paras = "".join(f"<p>Paragraph {i}: {'lorem ipsum dolor sit amet ' * 5}</p>\n"
                    for i in range(1000))
    return (f"<html><body><h1>Big page</h1><table border=1>\n{rows}</table>\n"
            f"{paras}</body></html>\n")


class W3m(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.w3m = shutil.which("w3m")
        if cls.w3m is None:
            raise AssertionError("w3m is not installed (Debian package w3m): "
                                 "run scripts/install-deps.sh")

    def test_links_libgc(self):
        r = subprocess.run(["ldd", self.w3m], capture_output=True, text=True)
        self.assertIn("libgc.so", r.stdout, "w3m no longer links libgc: this test is moot")

    def w3m_functions(self):
        """A predicate for the names w3m's own frames get: its functions
        when it has a symbol table, else (Debian's w3m is stripped) w3m+0xN,
        N the start of a function in its unwind tables."""
        r = subprocess.run(["nm", "--defined-only", self.w3m], capture_output=True, text=True)
        funcs = {line.split()[2] for line in r.stdout.splitlines()
                 if len(line.split()) == 3 and line.split()[1] in "tT"}
        return lambda name: name in funcs or re.fullmatch(r"w3m\+0x[0-9a-f]+", name)

    def render(self, name, text, heapprof):
        """w3m -dump of a local page, without and with heapprof: (plain, profiled)."""
        d = tempfile.mkdtemp(prefix="hp-w3m-page-")
        self.addCleanup(shutil.rmtree, d, True)
        page = os.path.join(d, name)
        with open(page, "w") as f:
            f.write(text)
        argv = [self.w3m, "-dump", "-cols", "100", page]
        env = {"TERM": "dumb", "HOME": d, "LANG": "C.UTF-8"}
        plain = hptest.run(self, argv, preload=False, env=env, timeout=120)
        self.assertEqual(plain.rc, 0, plain.stderr[-2000:])
        prof = hptest.run(self, argv, heapprof=heapprof, env=env, timeout=120)
        self.assertEqual(prof.rc, 0, prof.stderr[-2000:])
        return plain, prof

    def check_profile(self, r):
        self.assertTrue(os.path.exists(r.hp_path), "no w3m.hp: " + r.stderr[-2000:])
        self.assertTrue(os.path.exists(r.prof_path), "no w3m.prof")
        self.assertIn("heapprof: wrote w3m.hp, w3m.prof and w3m.alloc.csv", r.stderr)
        hp = hptest.check_hp_format(self, r.hp_path)
        prof = r.prof()
        allocated = hptest.prof_field(prof, "allocated")
        self.assertIsNotNone(allocated, prof[:2000])
        self.assertGreater(int(allocated.split()[0]), 0, allocated)
        labels = set()
        for _, bands in hp.samples:
            labels.update(bands)
        self.assertTrue(labels, "no bands in w3m.hp")
        self.assertFalse(all(lab.startswith("UNKNOWN") for lab in labels), labels)
        # Some allocation is attributed to w3m's own code, innermost, in both
        # the .prof table and the .hp labels.
        own = self.w3m_functions()
        rows = hptest.prof_rows(prof)
        self.assertTrue(any(own(name.split("/")[0]) for name in rows), sorted(rows)[:20])
        self.assertTrue(any(own(lab.split("/")[0]) for lab in labels), sorted(labels)[:20])
        # Its functions are told apart, not one frame named after it.
        innermost = {name.split("/")[0] for name in rows if own(name.split("/")[0])}
        self.assertGreaterEqual(len(innermost), 5, sorted(rows)[:20])
        return prof

    def test_small_page(self):
        plain, prof = self.render("page.html", SMALL_HTML, "interval=0")
        self.assertIn("Fruit stock", plain.stdout)
        for word in ("apple", "banana", "cherry", "140", "per kilogram"):
            self.assertIn(word, plain.stdout)
        self.assertEqual(prof.stdout, plain.stdout)
        self.assertFalse(os.path.exists(plain.hp_path))
        self.check_profile(prof)

    def test_big_page(self):
        plain, prof = self.render("big.html", big_html(), "interval=0.05")
        self.assertIn("row 2999", plain.stdout)
        self.assertIn("Paragraph 999", plain.stdout)
        self.assertEqual(prof.stdout, plain.stdout)
        text = self.check_profile(prof)
        collections = int(hptest.prof_field(text, "collections").split()[0])
        self.assertGreater(collections, 2, "the big page should make the collector run")
        censuses = int(hptest.prof_field(text, "censuses").split()[0])
        self.assertGreaterEqual(censuses, 2)

    def test_ldv(self):
        # Mode ldv: w3m opens files by path names it keeps in the GC heap
        # (GC_strdup) and reads and writes GC buffers; with every heap page
        # protected, the output must be the same. Precise re-arming leaves
        # no page open, so every such call must be wrapped.
        for policy in ("adaptive", "precise"):
            with self.subTest(ldv=policy):
                plain, prof = self.render("page.html", SMALL_HTML,
                                          "ldv,interval=0,ldv=" + policy)
                self.assertEqual(prof.stdout, plain.stdout)
                hp = hptest.check_hp_format(self, prof.hp_path)
                bands = set()
                for _, b in hp.samples:
                    bands.update(b)
                self.assertTrue(bands)
                self.assertTrue(bands <= {"VOID", "LAG", "USE", "INHERENT_USE", "DRAG"}, bands)
                self.assertEqual(hptest.prof_field(prof.prof(), "EFAULT retries"), "0")


if __name__ == "__main__":
    sys.exit(unittest.main())
