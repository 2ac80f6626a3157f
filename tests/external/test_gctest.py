"""bdwgc's own test program (tests/test.c, "gctest") under the preloaded library.

The libgc source matching the installed libgc-dev is fetched with
`apt-get source` into a cache outside the repository (default
/var/cache/heapprof-test, or $HEAPPROF_TEST_CACHE); bdwgc source is never
copied into heapprof. gctest is built against the installed libgc (it needs
the source tree's include/ for private/gc_priv.h) and run plain, then under
heapprof with interval=0.05, once with the default unwinder and once with
unwind=fp, in the retainer profile, and once in mode ldv (page protection). Every run must exit 0 and print gctest's success message; every
.hp written (gctest forks, so children write <stem>.<pid>.hp) must pass the
strict format check and hp2ps.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import hptest

CACHE = os.environ.get("HEAPPROF_TEST_CACHE", "/var/cache/heapprof-test")
SUCCESS = "Collector appears to work"
# The Debian build: threads, thread-local allocation, parallel marking, gcj and
# disclaim support, and GCC's atomic builtins (configured
# --with-libatomic-ops=none, so libatomic_ops' header is not needed).
GCTEST_CFLAGS = ["-O2", "-DGC_BUILTIN_ATOMIC", "-DGC_THREADS", "-DPARALLEL_MARK",
                 "-DTHREAD_LOCAL_ALLOC", "-DGC_GCJ_SUPPORT", "-DENABLE_DISCLAIM"]
FIX = ("run scripts/install-deps.sh (it adds the deb-src entry apt-get source "
       "needs), or set HEAPPROF_TEST_CACHE to a writable directory")


def installed_libgc_version():
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libgc-dev"],
                       capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout:
        raise AssertionError("libgc-dev is not installed: " + FIX)
    return r.stdout.strip()


def source_dir(version):
    """The unpacked libgc source for `version`, fetched into CACHE if absent."""
    upstream = version.split(":", 1)[-1].rsplit("-", 1)[0]
    want = os.path.join(CACHE, "libgc-" + upstream)
    if os.path.exists(os.path.join(want, "tests", "test.c")):
        return want
    try:
        os.makedirs(CACHE, exist_ok=True)
    except OSError as e:
        raise AssertionError(f"cannot create the source cache {CACHE}: {e}; {FIX}")
    if not os.access(CACHE, os.W_OK):
        raise AssertionError(f"the source cache {CACHE} is not writable; {FIX}")
    log = []
    for spec in ("libgc=" + version, "libgc"):
        r = subprocess.run(["apt-get", "-q", "source", spec], cwd=CACHE,
                           capture_output=True, text=True, timeout=600)
        log.append(f"$ apt-get source {spec} (exit {r.returncode})\n{r.stdout}{r.stderr}")
        if os.path.exists(os.path.join(want, "tests", "test.c")):
            return want
        if r.returncode == 0:
            break
    found = sorted(glob.glob(os.path.join(CACHE, "libgc-*", "tests", "test.c")))
    if found:
        return os.path.dirname(os.path.dirname(found[-1]))
    raise AssertionError(f"could not fetch the libgc source into {CACHE}; {FIX}\n"
                         + "\n".join(log))


class GcTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.src = source_dir(installed_libgc_version())
        cls.tmp = tempfile.mkdtemp(prefix="hp-gctest-")
        cls.exe = os.path.join(cls.tmp, "gctest")
        cmd = (["gcc"] + GCTEST_CFLAGS + ["-I" + os.path.join(cls.src, "include"),
               os.path.join(cls.src, "tests", "test.c"), "-o", cls.exe, "-lgc", "-lpthread"])
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            shutil.rmtree(cls.tmp, True)
            raise AssertionError(f"building gctest failed: {' '.join(cmd)}\n{r.stderr}")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def check_run(self, r):
        self.assertEqual(r.rc, 0, f"gctest exited {r.rc}\nstdout tail:\n{r.stdout[-2000:]}"
                                  f"\nstderr tail:\n{r.stderr[-2000:]}")
        self.assertIn(SUCCESS, r.stdout, r.stdout[-2000:])

    def test_plain(self):
        r = hptest.run(self, [self.exe], preload=False, timeout=240)
        self.check_run(r)
        self.assertEqual(glob.glob(os.path.join(r.cwd, "*.hp")), [])

    def profiled(self, heapprof):
        r = hptest.run(self, [self.exe], heapprof=heapprof, timeout=240)
        self.check_run(r)
        self.assertTrue(os.path.exists(r.hp_path), "no gctest.hp: " + r.stderr[-2000:])
        self.assertTrue(os.path.exists(r.prof_path), "no gctest.prof")
        self.assertIn("heapprof: wrote gctest.hp, gctest.prof and gctest.alloc.csv", r.stderr)
        hps = sorted(glob.glob(os.path.join(r.cwd, "*.hp")))
        for path in hps:
            with self.subTest(hp=os.path.basename(path)):
                hptest.check_hp_format(self, path)
        hp = r.hp()
        self.assertGreaterEqual(len(hp.nonempty()), 2, "expected several censuses")
        prof = r.prof()
        objects = int(hptest.prof_field(prof, "allocated").split()[0])
        self.assertGreater(objects, 1000000)
        # gctest's allocating functions appear by name (it has a symbol table).
        names = set(hptest.prof_rows(prof))
        self.assertTrue(any(n.split("/")[0] in ("mktree", "alloc8bytes", "cons")
                            for n in names), sorted(names))
        return r

    def test_profiled_libunwind(self):
        self.profiled("interval=0.05")

    def test_profiled_fp(self):
        self.profiled("interval=0.05,unwind=fp")

    def test_profiled_retainer(self):
        r = self.profiled("retainer,interval=0.05,unwind=fp")
        prof = r.prof()
        self.assertIn("RETAINER SETS", prof)
        # gctest keeps its trees on thread stacks and in globals.
        self.assertRegex(prof, r"SET \d+ = \{<stack:main>\}")
        censuses = prof.split("RETAINER CENSUSES")[1]
        self.assertRegex(censuses, r"\d+ of \d+ bytes")
        # A census that attributed under 95% of the bytes live when its
        # roots were read (objects allocated during the collection, named
        # on its line, are left out) is warned about, with the least share
        # (gctest: some are far under, from roots heapprof does not see
        # yet; see doc/limitations.md).
        shares = []
        for line in censuses.splitlines():
            m = re.search(r"  (\d+) of (\d+) bytes", line)
            if not m:
                continue
            during = re.search(r"allocated during the collection: (\d+) bytes", line)
            new = int(during.group(1)) if during else 0
            if int(m.group(2)) - new:
                shares.append((int(m.group(1)), int(m.group(2)) - new, new))
        least = min(shares, key=lambda abn: abn[0] / abn[1])
        if least[0] * 100 < least[1] * 95:
            self.assertIn("heapprof: warning: the retainer profile attributed only %.1f%% of "
                          "the live bytes" % (100.0 * least[0] / least[1]), r.stderr)
            self.assertIn("(%d of %d%s)" % (least[0], least[1], ", not counting %d bytes "
                          "allocated during the collection" % least[2] if least[2] else ""),
                          r.stderr)
        else:
            self.assertNotIn("retainer profile attributed only", r.stderr)
    def check_censuses(self, r, stray=False):
        """Every census of the main process and of its forked children
        attributes at least 95% of its live bytes, counting the objects
        allocated while the collection ran (they have no retainer yet: the
        .prof names them); with stray, at most 1% of a census's bytes, or 64
        objects, are left unreached (a pointer in a stopped thread's
        register, or the collecting thread's outside a wrapped call), and
        no more than that from mktree (its frames skipped left thousands)."""
        profs = sorted(glob.glob(os.path.join(r.cwd, "*.prof")))
        self.assertGreaterEqual(len(profs), 2, "the main process and its forked children")
        for path in profs:
            with open(path) as f:
                censuses = f.read().split("RETAINER CENSUSES")[1]
            with self.subTest(prof=os.path.basename(path)):
                lines = [l for l in censuses.splitlines() if re.search(r"  \d+ of \d+ bytes", l)]
                self.assertTrue(lines, censuses[:500])
                for line in lines:
                    got, live = map(int, re.search(r"  (\d+) of (\d+) bytes", line).groups())
                    during = re.search(r"allocated during the collection: (\d+) bytes", line)
                    got += int(during.group(1)) if during else 0
                    self.assertGreaterEqual(got * 100, live * 95, line)
                    m = re.search(r"not reached from known roots: (\d+) bytes in (\d+) objects",
                                  line)
                    if stray and m:
                        # (a stray pointer holds what it reaches: one run in
                        # ten or so left 37 objects of gctest's lists, 3% of
                        # a 3.9 MB census, unreached; what this guards
                        # against, mktree's frames skipped, left thousands)
                        self.assertTrue(int(m.group(1)) * 100 <= live or int(m.group(2)) <= 64,
                                        line)
                        # (a stray pointer into a tree mktree is building
                        # leaves a few of its objects: 7, 224 bytes, in one
                        # clean-clone run of 2026-11-29; the frames skipped
                        # left thousands)
                        if "from mktree" in line:
                            self.assertLessEqual(int(m.group(2)), 64, line)

    def test_retainer_without_incremental_mode(self):
        # gctest's trees are built in mktree, which registers finalizers
        # and disappearing links as it goes: a collection can start inside
        # GC_register_finalizer (an internal allocation) while the tree
        # being built is held only in mktree's frames. heapprof now wraps
        # those calls, so it knows where the program's frames end (before,
        # it did not, skipped that thread's stack, and attributed 80% at
        # the worst census, 3.5 MB "not reached" from mktree). With incremental mode off, every
        # census of the main process and of its forked children attributes
        # at least 95% (the rest: objects allocated while the collection
        # ran, a stray object), and none leaves mktree's trees unreached.
        r = hptest.run(self, [self.exe], heapprof="retainer,interval=0.05,unwind=fp",
                       env={"GC_DISABLE_INCREMENTAL": "1"}, timeout=240)
        self.check_run(r)
        self.check_censuses(r, stray=True)
        self.assertNotIn("retainer profile attributed only", r.stderr)

    def test_retainer_ignores_incremental_mode(self):
        # gctest calls GC_enable_incremental: a retainer profile ignores it
        # (and says so), so every census is of a full collection, and every
        # census of the main process and of its forked children attributes
        # at least 95% (it attributed 1.0% at the worst census, and 8.8% in
        # the children, while the collections were incremental).
        r = hptest.run(self, [self.exe], heapprof="retainer,interval=0.05,unwind=fp",
                       timeout=240)
        self.check_run(r)
        self.assertIn("heapprof: GC_enable_incremental ignored: a retainer or named-roots "
                      "profile", r.stderr)
        self.check_censuses(r)
        self.assertNotIn("retainer profile attributed only", r.stderr)

    def test_profiled_ldv(self):
        # Mode ldv: every heap page protected after each collection; gctest's
        # threads, finalizers, GC_free, fork and its GC_enable_incremental
        # call (ignored, with a warning) must not disturb it.
        r = self.profiled("ldv,interval=0.05")
        self.assertIn("GC_enable_incremental ignored", r.stderr)
        hp = r.hp()
        for _, bands in hp.nonempty():
            self.assertTrue(set(bands) <= {"VOID", "LAG", "USE", "INHERENT_USE", "DRAG"}, bands)
        self.assertGreater(int(hptest.prof_field(r.prof(), "uses recorded")), 0)


if __name__ == "__main__":
    sys.exit(unittest.main())
