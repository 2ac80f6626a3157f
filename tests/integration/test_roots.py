"""Integration test: the profile by named roots (HEAPPROF=roots) and the
public API of include/heapprof.h (tests/progs/roots.c).

The seed's worked example, rebuilt in C: an HscEnv object with fields EPS,
FC and OTHER, boxed words x, y, z, e, f, t (pointer-free 8-byte objects),
EPS = {x, e, t}, FC = {y, f, t}, OTHER = {z}; roots hsc, eps, fc. The
bins, and the arithmetic of their bytes on x86-64 bdwgc (all-interior-
pointers adds one byte to each request, granules are 16 bytes):

  hsc         HscEnv (24 -> 32) + OTHER (8 -> 16) + z (8 -> 16)   = 64
  hsc-eps     EPS (24 -> 32) + x (16) + e (16)                    = 64
  hsc-fc      FC (24 -> 32) + y (16) + f (16)                     = 64
  hsc-eps-fc  t (16), shared by EPS and FC                        = 16
  eps, fc     empty: everything eps or fc reaches, hsc reaches too

The program prints each bin's bytes from GC_size, so the test checks the
profile against the collector's own figures and the arithmetic above.
"""
import re

import hptest


def expected(stdout, tag="EXPECT"):
    return {w[1]: int(w[2]) for w in (l.split() for l in stdout.splitlines())
            if len(w) == 3 and w[0] == tag}


def rcs(stdout):
    return {w[1]: int(w[2]) for w in (l.split() for l in stdout.splitlines())
            if len(w) == 3 and w[0] == "rc"}


class Roots(hptest.ProfileTest):

    def roots(self, scenario, extra=""):
        return self.profile(["roots", scenario], heapprof="roots,interval=0,length=400" + extra)

    def test_seed_example(self):
        r, hp, prof = self.roots("hsc")
        self.assertEqual(rcs(r.stdout), {"set": 0})
        exp = expected(r.stdout)
        self.assertEqual(exp, {"hsc": 64, "hsc-eps": 64, "hsc-fc": 64, "hsc-eps-fc": 16})
        self.assertEqual(hp.last(), exp)
        self.assertIn("set: hsc, eps, fc", prof)

    def test_noroot_when_asked(self):
        r, hp, prof = self.roots("hsc", ",noroot=yes")
        last = hp.last()
        self.assertEqual({k: v for k, v in last.items() if k != "NOROOT"}, expected(r.stdout))
        # Nothing else is allocated by the program: NOROOT only if the
        # collector reported objects heapprof saw allocated outside the roots.
        self.assertEqual(last.get("NOROOT", 0), 0)

    def test_noroot_by_retainer(self):
        # noroot=retainers (issue "retainers on real runtimes": named roots
        # gain the retainer profile's naming for what no named root
        # reaches): the bins are as without it, and a chain only the static
        # g_cache holds is NOROOT:(id)g_cache, exactly its bytes, though
        # one of its links points into eps (named roots take precedence).
        # The .prof carries the retainer sections for those bytes: all
        # attributed.
        r, hp, prof = self.roots("rest", ",noroot=retainers")
        exp = expected(r.stdout)
        got = {re.sub(r"^NOROOT:\(\d+\)", "NOROOT:", k): v for k, v in hp.last().items()}
        self.assertEqual(got, exp)
        self.assertIn("SET ", prof.split("What no named root reached")[1])
        lines = re.findall(r"^\S+  .*bytes.*$", prof.split("RETAINER CENSUSES")[1], re.M)
        m = re.search(r"(\d+) of (\d+) bytes", lines[-1])
        self.assertEqual(int(m.group(1)), exp["NOROOT:g_cache"], lines[-1])
        self.assertEqual(m.group(1), m.group(2), lines[-1])

    def test_64_roots_overlapping(self):
        r, hp, prof = self.roots("many")
        self.assertEqual(rcs(r.stdout), {"set": 0})
        exp = expected(r.stdout)
        self.assertEqual(len(exp), 64)
        self.assertEqual(hp.last(), exp)
        self.assertIn("r0-r1-r2-r3-r4-r5-r6-r7-r8-r9-r10", "\n".join(hp.last()))

    def test_root_dies(self):
        r, hp, prof = self.roots("die")
        self.assertEqual(hp.last(), expected(r.stdout))
        self.assertRegex(prof, r"\d+\.\d+ s  died \(unreachable at a collection\): b")

    def test_roots_replaced(self):
        r, hp, prof = self.roots("replace")
        samples = hp.nonempty()
        first = expected(r.stdout, "FIRST")
        self.assertIn(first, [s for _, s in samples])
        self.assertEqual(hp.last(), expected(r.stdout))
        self.assertIn("set: first", prof)
        self.assertIn("set: second", prof)
        self.assertIn("added: third", prof)

    def test_bad_input(self):
        r, hp, prof = self.roots("bad")
        self.assertEqual(rcs(r.stdout), {
            "good": 0, "null_name": -1, "null_array": -1, "duplicate": -2, "dash": -1,
            "blank": -1, "digit": -1, "reserved": -1, "not_gc": -4, "null_ptr": -4,
            "too_many": -3, "add_dup": -2, "remove_unknown": -5})
        for text in ["a root's name is NULL", "the roots array is NULL",
                     "names must be unique: 'x'", "'a-b'", "'a b'", "'9lives'", "'JOB'",
                     "not an object of the collector's heap", "at most 64 named roots; got '65'",
                     "exists already", "no root of this name"]:
            self.assertIn(text, r.stderr)
        # The failed calls changed nothing: the root set first is in force.
        self.assertEqual(hp.last(), expected(r.stdout))

    def test_without_the_library(self):
        r = hptest.run(self, [hptest.prog("roots"), "hsc"], preload=False)
        self.assertEqual(r.rc, 0, r.stderr)
        self.assertEqual(rcs(r.stdout), {"set": 0})
        self.assertEqual(r.stderr, "")

    def test_api_in_another_mode_is_harmless(self):
        r, hp, prof = self.profile(["roots", "hsc"], heapprof="cc,interval=0")
        self.assertEqual(rcs(r.stdout), {"set": 0})
        self.assertNotIn("hsc-eps", hp.text)


if __name__ == "__main__":
    hptest.unittest.main()
