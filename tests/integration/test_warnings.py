"""Integration test: a profile never misleads in silence (issue "never
mislead in silence").

- A short run (short_run: 0.2 s, about 1900 collections) gets at least 20
  censuses by default, and as before with interval= written out.
- A run with 2 censuses or fewer (short_run tiny) is warned about in the
  .prof and on stderr.
- Filters that match nothing (ccs=, module=, rset=) are named, with the
  closest names there are; filters that match say nothing.
- A named-roots profile of a program that names no root says so, and
  does not walk the heap.
"""
import re

import hptest


def censuses(prof):
    return int(hptest.prof_field(prof, "censuses"))


class Warnings(hptest.ProfileTest):

    def test_short_run_gets_twenty_censuses(self):
        r, hp, prof = self.profile("short_run", heapprof="cc")
        self.assertGreater(hptest.out_table(r.stdout)["GC"][0], 20)
        self.assertGreaterEqual(censuses(prof), 20)
        # The first samples of the .hp: one per collection (every census
        # writes one), so at least 20 samples besides the bookends.
        self.assertGreaterEqual(len(hp.samples), 20)
        # An interval written out is obeyed from the start.
        r, hp, prof = self.profile("short_run", heapprof="cc,interval=10")
        self.assertLessEqual(censuses(prof), 3, prof[:800])

    def test_few_censuses_warned(self):
        r, hp, prof = self.profile(["short_run", "tiny"], heapprof="cc")
        n = censuses(prof)
        self.assertLessEqual(n, 2)
        warn = "warning: only %d censuses (the program made " % n
        self.assertIn("        (" + warn, prof)
        self.assertIn("heapprof: " + warn, r.stderr)
        self.assertIn("GC_gcollect()", r.stderr)
        # Enough censuses: no such warning.
        r, hp, prof = self.profile("short_run", heapprof="cc")
        self.assertNotIn("warning: only", prof)
        self.assertNotIn("warning: only", r.stderr)


    def assert_warned(self, r, prof, text):
        self.assertIn("        (" + text, prof)
        self.assertIn("heapprof: " + text, r.stderr)

    def test_filters_that_match_nothing(self):
        cases = [
            ("ccs=alph", "warning: ccs=alph (-hC) matched nothing: no allocation had a "
                         "function of that name on its stack; the closest names: alpha"),
            ("module=names_line", "warning: module=names_line (-hM) matched nothing: no "
                                  "allocation was made in a module of that name; the closest "
                                  "names: names_lines"),
            ("ccs=zzzzzzzz", "warning: ccs=zzzzzzzz (-hC) matched nothing: no allocation had "
                             "a function of that name on its stack; no name is close"),
        ]
        for flt, text in cases:
            with self.subTest(filter=flt):
                r, hp, prof = self.profile("names_lines", heapprof="cc,interval=0," + flt)
                self.assertRegex(hptest.prof_field(prof, "peak live"), r"^0 bytes")
                self.assert_warned(r, prof, text)
        # rset= in the retainer profile: the closest retainer names.
        r, hp, prof = self.profile("retainers", heapprof="retainer,interval=0,rset=g_cach")
        self.assert_warned(r, prof, "warning: rset=g_cach (-hR) matched nothing: no object's "
                                    "retainer set at any census held a retainer of that "
                                    "name; the closest names: g_cache")
        # Filters that match: no warning.
        for flt, prog in (("ccs=alpha", "names_lines"), ("module=names_lines", "names_lines")):
            r, hp, prof = self.profile(prog, heapprof="cc,interval=0," + flt)
            self.assertNotIn("matched nothing", prof)
            self.assertNotIn("matched nothing", r.stderr)

    def test_roots_without_named_roots(self):
        for noroot, what in (("yes", "every live byte is in NOROOT"),
                             ("no", "what no named root reaches is left out")):
            with self.subTest(noroot=noroot):
                r, hp, prof = self.profile("names_lines",
                                           heapprof="roots,interval=0,noroot=" + noroot)
                self.assert_warned(r, prof, "warning: the program named no roots "
                                            "(heapprof_set_roots, include/heapprof.h)")
                self.assertIn(what, r.stderr)
                # Said once (stderr), and no walk of the heap at any census.
                self.assertEqual(r.stderr.count("named no roots"), 1)
                lines = re.findall(r"^\d+\.\d+  .*$",
                                   prof.split("ROOT CENSUSES")[1].split("\n\n", 2)[1], re.M)
                self.assertTrue(lines)
                for line in lines:
                    self.assertIn("no traversal (no named root is alive)", line)
        # A program that names roots: no such warning.
        r, hp, prof = self.profile("roots", heapprof="roots,interval=0")
        self.assertNotIn("named no roots", r.stderr)


    def test_kind_bands_of_large_sizes(self):
        """Mode kind: sizes above 2048 bytes go by powers of two, one band
        per range, with exact bytes; small sizes stay exact."""
        r, hp, prof = self.profile(["short_run", "large"], heapprof="kind,interval=0")
        out = [l.split() for l in r.stdout.splitlines()]
        bins = {int(w[1]): int(w[2]) for w in out if w[0] == "BIN"}
        distinct = [int(w[1]) for w in out if w[0] == "DISTINCT"][0]
        self.assertGreater(distinct, 50)
        last = [s for _, s in hp.samples if s][-1]
        want = {"normal:%d-%d" % (hi // 2 + 1, hi): b for hi, b in bins.items()}
        self.assertEqual({k: v for k, v in last.items() if "-" in k}, want)
        self.assertLessEqual(len(want), 4)
        # Small sizes keep their own band (GC_INIT's and the program's own
        # small objects, if any, are exact sizes).
        self.assertTrue(all(re.fullmatch(r"[a-z0-9]+:\d+", k) for k in last if "-" not in k),
                        last)


if __name__ == "__main__":
    hptest.main()
