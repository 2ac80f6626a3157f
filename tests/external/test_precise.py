"""External test, slow suite (scripts/test.sh --all): ECL and Crystal
under HEAPPROF=ldv=precise, which faults on every first access to a page
and single-steps or emulates the instruction, so that every use is seen.
On small inputs (ECL's list workload, Crystal's build of hello.cr with
--threads 1) the output and exit status are those of the unprofiled run
and the profile is written and not empty. Issue "ldv never breaks a
program": ECL and Crystal under ldv, ldv=page and ldv=precise (the first
two run in the default suite, tests/external/test_runtimes.py and
test_crystal.py). ECL's start-up alone takes about 24 million faults."""
import os
import shutil
import subprocess
import tempfile
import unittest

import hptest

HERE = os.path.dirname(os.path.abspath(__file__))


def run(argv, d, heapprof=None, env=None, timeout=1500):
    e = dict(os.environ)
    e.pop("HEAPPROF", None)
    e.pop("LD_PRELOAD", None)
    e.update(env or {})
    if heapprof:
        e["LD_PRELOAD"] = hptest.LIB
        e["HEAPPROF"] = heapprof
    return subprocess.run(argv, cwd=d, env=e, capture_output=True, text=True, timeout=timeout)


class Precise(unittest.TestCase):

    def tmp(self):
        d = tempfile.mkdtemp(prefix="hpprecise-")
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def check(self, argv, files, prog, env=None):
        self.assertTrue(shutil.which(argv[0]), "%s is not installed: scripts/install-deps.sh "
                        "--test installs it" % argv[0])
        dirs = []
        for heapprof in (None, "ldv=precise"):
            d = self.tmp()
            for f in files:
                shutil.copy(os.path.join(HERE, "runtimes", f), d)
            e = dict(env or {})
            e.update({k: v.replace("@D@", d) for k, v in e.items()})
            dirs.append((d, run(argv, d, heapprof, e)))
        (d0, plain), (d, r) = dirs
        self.assertEqual(plain.returncode, 0, plain.stderr)
        self.assertEqual((r.returncode, r.stdout.replace(d, "DIR")),
                         (plain.returncode, plain.stdout.replace(d0, "DIR")), r.stderr[-2000:])
        self.assertIn("heapprof: wrote %s.hp" % prog, r.stderr)
        hp = os.path.join(d, prog + ".hp")
        hptest.check_hp_format(self, hp)
        self.assertTrue(hptest.HpFile(hp).nonempty())
        return d

    def test_ecl_list_precise(self):
        self.check(["ecl", "--norc", "--shell", "list.lsp"], ("list.lsp", "small.lsp"), "ecl",
                   env={"HP_LISP_N": "200"})

    def test_crystal_build_precise(self):
        d = self.check(["crystal", "build", "--threads", "1", "hello.cr", "-o", "hello"],
                       ("hello.cr",), "crystal", env={"CRYSTAL_CACHE_DIR": "@D@/cache"})
        out = subprocess.run([os.path.join(d, "hello")], capture_output=True, text=True,
                             timeout=60).stdout
        self.assertEqual(out, "sum 999000 keys 1000\n")


if __name__ == "__main__":
    unittest.main(verbosity=2)
