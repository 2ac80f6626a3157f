"""External test: Debian's Crystal compiler (it allocates with libgc) builds
a small program (tests/external/runtimes/hello.cr) under HEAPPROF=ldv
(adaptive) and ldv=page, and with --threads 1: the build succeeds as it does
without heapprof, the program it built prints the same, and the compiler's
profile is written and not empty. Under ldv the build used to exit 1 (its
forked code-generation workers, started with every signal blocked, died on
their first touch of a protected page) -- issue "ldv never breaks a
program". (The compiler under ldv=precise, which faults on every access to
a protected page, would take hours: doc/limitations.md.)

A Crystal program (tests/external/runtimes/work.cr, built without heapprof)
runs under ldv, ldv=page and ldv=precise: output and status as unprofiled,
a profile that is not empty."""
import os
import shutil
import subprocess
import tempfile
import unittest

import hptest

HERE = os.path.dirname(os.path.abspath(__file__))


def build(d, extra=(), heapprof=None):
    e = dict(os.environ)
    e.pop("HEAPPROF", None)
    e.pop("LD_PRELOAD", None)
    e["CRYSTAL_CACHE_DIR"] = os.path.join(d, "cache")   # no reuse between runs
    if heapprof:
        e["LD_PRELOAD"] = hptest.LIB
        e["HEAPPROF"] = heapprof
    shutil.copy(os.path.join(HERE, "runtimes", "hello.cr"), d)
    r = subprocess.run(["crystal", "build", *extra, "hello.cr", "-o", "hello"], cwd=d, env=e,
                       capture_output=True, text=True, timeout=300)
    out = None
    if r.returncode == 0:
        out = subprocess.run([os.path.join(d, "hello")], capture_output=True, text=True,
                             timeout=60).stdout
    return r, out


class Crystal(unittest.TestCase):

    def tmp(self):
        d = tempfile.mkdtemp(prefix="hpcr-")
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def test_build_under_ldv(self):
        self.assertTrue(shutil.which("crystal"), "crystal is not installed: "
                        "scripts/install-deps.sh --test installs it")
        plain, out = build(self.tmp())
        self.assertEqual(plain.returncode, 0, plain.stderr)
        self.assertEqual(out, "sum 999000 keys 1000\n")
        for policy, extra in (("ldv", ()), ("ldv=page", ()), ("ldv", ("--threads", "1"))):
            d = self.tmp()
            r, got = build(d, extra, heapprof=policy)
            what = "crystal build %s under HEAPPROF=%s" % (" ".join(extra), policy)
            self.assertEqual((r.returncode, r.stdout), (plain.returncode, plain.stdout),
                             "%s: %s" % (what, r.stderr[-2000:]))
            self.assertEqual(got, out, what)
            self.assertIn("heapprof: wrote crystal.hp", r.stderr, what)
            hp = os.path.join(d, "crystal.hp")
            hptest.check_hp_format(self, hp)
            self.assertTrue(hptest.HpFile(hp).nonempty(), what)

    def test_program_under_every_policy(self):
        self.assertTrue(shutil.which("crystal"), "crystal is not installed: "
                        "scripts/install-deps.sh --test installs it")
        d = self.tmp()
        shutil.copy(os.path.join(HERE, "runtimes", "work.cr"), d)
        e = dict(os.environ)
        e.pop("HEAPPROF", None)
        e.pop("LD_PRELOAD", None)
        e["CRYSTAL_CACHE_DIR"] = os.path.join(d, "cache")
        r = subprocess.run(["crystal", "build", "work.cr", "-o", "work"], cwd=d, env=e,
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        argv = [os.path.join(d, "work"), "300"]
        plain = subprocess.run(argv, cwd=d, env=e, capture_output=True, text=True, timeout=60)
        self.assertEqual(plain.returncode, 0, plain.stderr)
        self.assertEqual(plain.stdout, "rounds 20 n 300 sum 906050 kept 5\n")
        for policy in ("ldv", "ldv=page", "ldv=precise"):
            run_dir = self.tmp()
            pe = dict(e, LD_PRELOAD=hptest.LIB, HEAPPROF=policy)
            r = subprocess.run(argv, cwd=run_dir, env=pe, capture_output=True, text=True,
                               timeout=300)
            what = "work.cr under HEAPPROF=%s" % policy
            self.assertEqual((r.returncode, r.stdout), (0, plain.stdout),
                             "%s: %s" % (what, r.stderr[-2000:]))
            self.assertIn("heapprof: wrote work.hp", r.stderr, what)
            hp = os.path.join(run_dir, "work.hp")
            hptest.check_hp_format(self, hp)
            self.assertTrue(hptest.HpFile(hp).nonempty(), what)
            prof = open(os.path.join(run_dir, "work.prof")).read()
            self.assertIn("policy %s" % {"ldv": "adaptive", "ldv=page": "page",
                                         "ldv=precise": "precise"}[policy], prof, what)


if __name__ == "__main__":
    unittest.main(verbosity=2)
