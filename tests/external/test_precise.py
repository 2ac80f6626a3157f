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
million faults under ldv=precise: about 6 minutes on a 2-CPU VM."""
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


if __name__ == "__main__":
    unittest.main(verbosity=2)
