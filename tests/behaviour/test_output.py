"""Behaviour: an output place heapprof cannot write is refused before main
(exit 2, a message naming the path and how to fix it with out=)."""
import os
import shutil
import sys
import tempfile
import unittest

import bh
import hptest


class Output(unittest.TestCase):
    def setUp(self):
        bh.check_env(self)

    def check_refused(self, out, named):
        r = hptest.run(self, [bh.bprog("bh_alloc")], heapprof="cc,out=" + out, stdin="")
        self.assertEqual(r.rc, 2, r.stderr)
        self.assertEqual(r.stdout, "", "main ran")
        self.assertTrue(r.stderr.startswith("heapprof: "), r.stderr)
        self.assertIn(named, r.stderr)
        self.assertIn("out=", r.stderr)
        self.assertIn("the launcher's -o", r.stderr)
        self.assertEqual(bh.profile_files(r.cwd), [])
        return r

    def test_working_directory_named(self):
        """No out=: the working directory, unwritable, is named by its full
        path (it was "."). /proc refuses new files even to root."""
        env = dict(os.environ)
        env.pop("LD_PRELOAD", None)
        env.update({"LD_PRELOAD": hptest.LIB, "HEAPPROF": "cc"})
        import subprocess
        r = subprocess.run([bh.bprog("bh_alloc")], cwd="/proc", env=env, input="",
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("cannot write the profile into directory /proc:", r.stderr)
        self.assertNotIn("directory .:", r.stderr)

    def test_missing_directory(self):
        self.check_refused("/nonexistent-dir/x", "/nonexistent-dir")

    def test_read_only_directory(self):
        d = tempfile.mkdtemp(prefix="bhtest-ro-")
        self.addCleanup(shutil.rmtree, d, True)
        ro = os.path.join(d, "ro")
        os.mkdir(ro)
        os.chmod(ro, 0o555)
        self.addCleanup(os.chmod, ro, 0o755)
        if os.access(ro, os.W_OK):
            # Running as root: mode 555 does not stop us; /proc refuses
            # new files to everyone.
            print("read-only directory is writable (root): using /proc/x instead",
                  file=sys.stderr)
            self.check_refused("/proc/x", "/proc")
        else:
            self.check_refused(os.path.join(ro, "x"), ro)
        self.assertEqual(os.listdir(ro), [])


if __name__ == "__main__":
    hptest.main()
