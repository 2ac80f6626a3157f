"""meson install: a fresh build directory configured with a temporary
--prefix installs the library, the header, the pkg-config file, the
launcher and the report tool, and the installed launcher finds the
installed library with no help from the environment."""
import glob
import os
import shlex
import shutil
import subprocess
import unittest

import hptest
import tltest


class Install(unittest.TestCase):
    def setUp(self):
        tltest.check_env(self)

    def sh(self, argv, **kw):
        r = subprocess.run(argv, capture_output=True, text=True, timeout=280, **kw)
        self.assertEqual(r.returncode, 0, f"{shlex.join(argv)}:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
        return r

    def test_install_into_a_prefix(self):
        d = tltest.tempdir(self, "hp-install-")
        build, prefix = os.path.join(d, "build"), os.path.join(d, "inst")
        self.sh(["meson", "setup", build, hptest.SRC, "--prefix", prefix, "-Dtests=false",
                 "-Dbuildtype=release"])
        self.sh(["ninja", "-C", build, "install"])

        libs = glob.glob(os.path.join(prefix, "lib*", "**", "libheapprof.so"), recursive=True)
        self.assertEqual(len(libs), 1, libs)
        lib = libs[0]
        launcher = os.path.join(prefix, "bin", "heapprof")
        self.assertTrue(os.access(launcher, os.X_OK), launcher)
        self.assertTrue(os.path.isfile(os.path.join(prefix, "share", "heapprof",
                                                    "heapprof_report.py")))
        self.assertTrue(os.path.isfile(os.path.join(prefix, "include", "heapprof.h")))
        pcs = glob.glob(os.path.join(prefix, "lib*", "**", "pkgconfig", "heapprof.pc"),
                        recursive=True)
        self.assertEqual(len(pcs), 1, pcs)
        if shutil.which("pkg-config"):
            r = self.sh(["pkg-config", "--cflags", "heapprof"],
                        env=dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pcs[0])))
            self.assertIn("-I" + os.path.join(prefix, "include"), r.stdout)

        # The installed launcher, with no HEAPPROF_LIB or HEAPPROF_BUILD, run
        # from a directory unrelated to the source or build trees.
        env = tltest.clean_env(HEAPPROF_LIB=None, HEAPPROF_BUILD=None)
        work = os.path.join(d, "work")
        os.mkdir(work)
        r = self.sh([launcher, "--version"], env=env, cwd=work)
        self.assertRegex(r.stdout, r"^heapprof \d+\.\d+\.\d+\n$")
        r = self.sh([launcher, "-n", tltest.tprog("tl_gc")], env=env, cwd=work)
        self.assertIn("LD_PRELOAD=" + lib, shlex.split(r.stdout))
        r = self.sh([launcher, "-hc", "-i0", tltest.tprog("tl_gc"), "alloc"], env=env, cwd=work)
        self.assertEqual(r.stdout, "allocated\n")
        hp = hptest.check_hp_format(self, os.path.join(work, "tl_gc.hp"))
        self.assertEqual(hp.last(), {"alloc_some/gc_start/main": 3200})
        # The installed report tool, through the launcher.
        r = self.sh([launcher, "report", "tl_gc.hp"], env=env, cwd=work)
        html = os.path.join(work, "tl_gc.html")
        self.assertEqual(r.stdout.split(" (")[0], "heapprof report: wrote " + html)
        with open(html, encoding="utf-8") as f:
            self.assertIn("alloc_some/gc_start/main", f.read())


if __name__ == "__main__":
    unittest.main()
