"""External test, slow suite (scripts/test.sh --all): ECL under
HEAPPROF=ldv=precise, which faults on every access to a protected page and
emulates (or single-steps) the instruction, so that every use is seen. On
the smallest input (tests/external/runtimes/tiny.lsp: 100 pairs kept across
a collection and read back) the output and exit status are those of the
unprofiled run and the profile is written and not empty. Issue "ldv never
breaks a program": ECL and Crystal under ldv, ldv=page and ldv=precise.
The rest runs in the default suite (test_runtimes.py: ECL under ldv and
ldv=page; test_crystal.py: the Crystal compiler under ldv and ldv=page, a
Crystal program under all three). ECL's start-up alone takes about 13
million faults under ldv=precise: about 6 minutes on a 2-CPU VM.
And w3m -dump of a 1000-row table under ldv=precise (about 25 s) as the
truth for the default policy on a real program."""
import os
import shutil
import subprocess
import tempfile
import unittest

import hptest

HERE = os.path.dirname(os.path.abspath(__file__))


def run(argv, d, heapprof=None, timeout=2400):
    e = dict(os.environ)
    e.pop("HEAPPROF", None)
    e.pop("LD_PRELOAD", None)
    if heapprof:
        e["LD_PRELOAD"] = hptest.LIB
        e["HEAPPROF"] = heapprof
    return subprocess.run(argv, cwd=d, env=e, capture_output=True, text=True, timeout=timeout)


class Precise(unittest.TestCase):

    def tmp(self):
        d = tempfile.mkdtemp(prefix="hpprecise-")
        self.addCleanup(shutil.rmtree, d, True)
        shutil.copy(os.path.join(HERE, "runtimes", "tiny.lsp"), d)
        return d

    def test_ecl_precise(self):
        self.assertTrue(shutil.which("ecl"), "ecl is not installed: scripts/install-deps.sh "
                        "--test installs it")
        argv = ["ecl", "--norc", "--shell", "tiny.lsp"]
        plain = run(argv, self.tmp())
        self.assertEqual((plain.returncode, plain.stdout), (0, "tiny 100 328350\n"), plain.stderr)
        d = self.tmp()
        r = run(argv, d, "ldv=precise")
        self.assertEqual((r.returncode, r.stdout), (plain.returncode, plain.stdout),
                         r.stderr[-2000:])
        self.assertIn("heapprof: wrote ecl.hp", r.stderr)
        hp = os.path.join(d, "ecl.hp")
        hptest.check_hp_format(self, hp)
        self.assertTrue(hptest.HpFile(hp).nonempty())
        prof = open(os.path.join(d, "ecl.prof")).read()
        self.assertIn("policy precise", prof)

    def test_w3m_default_against_precise(self):
        # Issue "ldv truthful by default" on a real program: w3m -dump of
        # a 1000-row table, census at every collection, the default policy
        # against ldv=precise, the share of each band's byte-censuses in
        # the same band, census by census. Measured (2026-11-29, the
        # default repeat=8): LAG 91.3%, USE 96.2%, DRAG 97.9% (repeat=1,
        # the default before: 92.2 / 90.8 / 97.9%; a 400-row table 84.7 /
        # 92.0 / 95.8%) -- LAG below the 95% the issue asks of the
        # ground-truth programs: w3m's allocator works on pages of older
        # objects, which the policy leaves open at its faults (Note
        # [Faults that teach nothing]). The bounds guard what is reached:
        # re-protecting pages where protecting again does not pay spent
        # the budget here and gave LAG 58.8-73.8% (Note [The allocator
        # moves on]).
        w3m = shutil.which("w3m")
        self.assertTrue(w3m, "w3m is not installed: scripts/install-deps.sh --test installs it")
        rows = "".join(f"<tr><td>row {i}</td><td>{i * i}</td><td>{'word ' * (i % 7 + 1)}</td></tr>\n"
                       for i in range(1000))
        page = f"<html><body><table border=1>\n{rows}</table></body></html>\n"
        argv = [w3m, "-dump", "-cols", "100", "t.html"]

        def profile(policy):
            d = self.tmp()
            with open(os.path.join(d, "t.html"), "w") as f:
                f.write(page)
            os.environ.setdefault("TERM", "dumb")
            r = run(argv, d, "ldv,interval=0,ldv=" + policy)
            self.assertEqual(r.returncode, 0, r.stderr[-2000:])
            self.assertIn("row 999", r.stdout)
            with open(os.path.join(d, "w3m.prof")) as f:
                prof = f.read()
            return [b for _, b in hptest.HpFile(os.path.join(d, "w3m.hp")).samples[1:-1]], prof

        exact, _ = profile("precise")
        for _ in range(3):   # (another number of collections: no census-by-census comparison)
            got, prof = profile("adaptive")
            if len(got) == len(exact):
                break
        # Its bursts after faults on objects used already find too little
        # to pay for their reads of protected pages: most are not made
        # (Note [Bursts after a fault on a used object]; without the rule
        # its watching cost went past the budget by a fifth).
        skipped = hptest.prof_field(prof, "not made after a fault on a used object, for want of uses")
        self.assertGreater(int(skipped), 100, prof)
        self.assertEqual(len(got), len(exact))
        # (w3m's own allocations differ by a few dozen bytes run to run.)
        for a, b in zip(got, exact):
            self.assertLessEqual(abs(sum(a.values()) - sum(b.values())), 0.01 * sum(b.values()))
        bounds = {"LAG": 0.85, "USE": 0.90, "DRAG": 0.93}
        for band, bound in bounds.items():
            want = sum(s.get(band, 0) for s in exact)
            self.assertGreater(want, 0, (band, exact))
            same = sum(min(a.get(band, 0), b.get(band, 0)) for a, b in zip(got, exact))
            self.assertGreaterEqual(same / want, bound, (band, same / want))


if __name__ == "__main__":
    unittest.main(verbosity=2)
