"""hptest: shared helpers for heapprof's integration tests.

Runs programs under the preloaded library in a fresh temporary directory,
parses the .hp and .prof files heapprof writes, and has GHC's hp2ps read
every .hp (an outside reader: a file it rejects fails the test).
Standard library only.
"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

LIB = os.environ.get("HEAPPROF_LIB", "")
SRC = os.environ.get("HEAPPROF_SRC", "")
BUILD = os.environ.get("HEAPPROF_BUILD", "")
PROGS = os.environ.get("HEAPPROF_PROGS", "")


def prog(name):
    """Path of a test program built from tests/progs/NAME.c."""
    return os.path.join(PROGS, name)


class HpFile:
    """A parsed .hp file: header fields and samples [(time, {label: bytes})]."""

    def __init__(self, path):
        self.path = path
        with open(path) as f:
            self.text = f.read()
        self.lines = self.text.splitlines()
        self.header = {}
        self.samples = []
        cur = None
        for i, line in enumerate(self.lines):
            if i < 4:
                key, _, val = line.partition(" ")
                self.header[key] = val
                continue
            if line.startswith("BEGIN_SAMPLE "):
                cur = (float(line.split()[1]), {})
            elif line.startswith("END_SAMPLE "):
                self.samples.append(cur)
                cur = None
            else:
                label, value = line.split("\t")
                assert label not in cur[1], f"label {label} repeated in a sample"
                cur[1][label] = int(value)
        self.complete = cur is None

    def nonempty(self):
        return [s for s in self.samples if s[1]]

    def last(self):
        """The last sample that has bands (the final census)."""
        ne = self.nonempty()
        return ne[-1][1] if ne else {}


def check_hp_format(testcase, path):
    """Check the strict format of hp-format.md, then have hp2ps read it."""
    hp = HpFile(path)
    lines = hp.lines
    testcase.assertTrue(lines[0].startswith('JOB "') and lines[0].endswith('"'), lines[0])
    testcase.assertTrue(lines[1].startswith('DATE "') and lines[1].endswith('"'), lines[1])
    testcase.assertEqual(lines[2], 'SAMPLE_UNIT "seconds"')
    testcase.assertEqual(lines[3], 'VALUE_UNIT "bytes"')
    testcase.assertEqual(lines[0].count('"'), 2)
    last = -1.0
    for line in lines[4:]:
        if line.startswith(("BEGIN_SAMPLE ", "END_SAMPLE ")):
            t = line.split(" ")[1]
            testcase.assertRegex(t, r"^\d+\.\d{6}$")
            testcase.assertGreaterEqual(float(t), last)
            last = float(t)
        else:
            words = line.split("\t")
            testcase.assertEqual(len(words), 2, line)
            testcase.assertRegex(words[0], r'^[^\s\d"]\S*$')
            testcase.assertNotIn(words[0], ("JOB", "DATE", "SAMPLE_UNIT", "VALUE_UNIT",
                                            "MARK", "BEGIN_SAMPLE", "END_SAMPLE"))
            testcase.assertRegex(words[1], r"^\d+$")
    testcase.assertTrue(hp.complete, "file ends inside a sample")
    hp2ps_accepts(testcase, path)
    return hp


def hp2ps_accepts(testcase, path):
    hp2ps = shutil.which("hp2ps")
    testcase.assertIsNotNone(hp2ps, "hp2ps (Debian package ghc) is needed by the tests")
    with tempfile.TemporaryDirectory() as d:
        copy = os.path.join(d, "p.hp")
        shutil.copy(path, copy)
        r = subprocess.run([hp2ps, "-c", "p.hp"], cwd=d, capture_output=True, text=True,
                           timeout=120)
        testcase.assertEqual(r.returncode, 0, f"hp2ps rejected {path}: {r.stderr}")
        ps = os.path.join(d, "p.ps")
        testcase.assertTrue(os.path.exists(ps) and os.path.getsize(ps) > 0)


class Run:
    """Result of running a program under heapprof."""

    def __init__(self, proc, cwd, stem):
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.cwd = cwd
        self.hp_path = os.path.join(cwd, stem + ".hp")
        self.prof_path = os.path.join(cwd, stem + ".prof")

    def hp(self):
        return HpFile(self.hp_path)

    def prof(self):
        with open(self.prof_path) as f:
            return f.read()


def run(testcase, argv, heapprof=None, preload=True, env=None, stem=None, timeout=600,
        stdin=None):
    """Run argv in a new temporary directory (kept for the test's life)."""
    d = tempfile.mkdtemp(prefix="hptest-")
    testcase.addCleanup(shutil.rmtree, d, True)
    e = dict(os.environ)
    e.pop("HEAPPROF", None)
    e.pop("LD_PRELOAD", None)
    if preload:
        e["LD_PRELOAD"] = LIB
    if heapprof is not None:
        e["HEAPPROF"] = heapprof
    if env:
        e.update(env)
    proc = subprocess.run(argv, cwd=d, env=e, capture_output=True, text=True,
                          timeout=timeout, input=stdin)
    return Run(proc, d, stem or os.path.basename(argv[0]))


def prof_rows(prof_text, total=False):
    """The per-stack table of a .prof: {name: (objects, bytes, requested,
    survived, live@peak)}; the "total profiled" row only with total=True
    (under the key "total profiled"). The table ends at its first blank line."""
    rows = {}
    in_table = False
    for line in prof_text.splitlines():
        if line.strip().startswith("objects") and "cost-centre stack" in line:
            in_table = True
            continue
        if in_table:
            if not line.strip():
                break
            parts = line.split(None, 5)
            if parts[5] == "total profiled" and not total:
                continue
            rows[parts[5]] = tuple(int(x) for x in parts[:5])
    return rows


def prof_field(prof_text, key):
    """The value text after a summary key, e.g. prof_field(t, 'censuses')."""
    m = re.search(r"^\s+" + re.escape(key) + r"\s+(.*)$", prof_text, re.M)
    return m.group(1) if m else None


# ---- Additions for the exact-figure tests (tests/progs programs). ----

def granted(requested):
    """Bytes bdwgc 8.2 grants a small GC_malloc(requested) on x86-64 with
    all-interior-pointers: one extra byte, rounded up to 16-byte granules."""
    return (requested + 1 + 15) // 16 * 16


def out_table(text):
    """Lines 'name int int ...' printed by a test program: {name: (ints,)}.
    Words that are not integers are skipped, so 'moved 10 0 misaligned 0'
    gives {'moved': (10, 0, 0)}."""
    table = {}
    for line in text.splitlines():
        words = line.split()
        if not words:
            continue
        table[words[0]] = tuple(int(w) for w in words[1:] if re.fullmatch(r"-?\d+", w))
    return table


class ProfileTest(unittest.TestCase):
    """Base class: runs test programs under heapprof and has every .hp file
    any run leaves behind go through check_hp_format (at tearDown, for files
    a test did not check itself)."""

    def setUp(self):
        super().setUp()
        self._run_dirs = []
        self._checked_hp = set()

    def run_prog(self, argv, heapprof="interval=0", **kw):
        """run() of a tests/progs program (a name, or argv whose first word
        is a name), keeping its directory for the .hp sweep."""
        if isinstance(argv, str):
            argv = [argv]
        argv = [prog(argv[0]) if os.sep not in argv[0] else argv[0]] + list(argv[1:])
        r = run(self, argv, heapprof=heapprof, **kw)
        self._run_dirs.append(r.cwd)
        return r

    def check_hp(self, path):
        hp = check_hp_format(self, path)
        self._checked_hp.add(os.path.realpath(path))
        return hp

    def profile(self, argv, heapprof="interval=0", **kw):
        """Run under heapprof, require success and both files; returns
        (Run, checked HpFile, .prof text)."""
        r = self.run_prog(argv, heapprof=heapprof, **kw)
        self.assertEqual(r.rc, 0, f"exit status {r.rc}; stderr:\n{r.stderr}")
        self.assertTrue(os.path.exists(r.hp_path), f"no {r.hp_path}; stderr:\n{r.stderr}")
        self.assertTrue(os.path.exists(r.prof_path), f"no {r.prof_path}; stderr:\n{r.stderr}")
        return r, self.check_hp(r.hp_path), r.prof()

    def assert_bookends(self, hp):
        """The empty sample at 0.000000 first and the closing empty sample."""
        self.assertGreaterEqual(len(hp.samples), 2)
        self.assertEqual(hp.samples[0], (0.0, {}))
        self.assertEqual(hp.samples[-1][1], {})

    def tearDown(self):
        for d in self._run_dirs:
            if not os.path.isdir(d):
                continue
            for name in sorted(os.listdir(d)):
                path = os.path.realpath(os.path.join(d, name))
                if name.endswith(".hp") and path not in self._checked_hp:
                    self.check_hp(path)
        super().tearDown()


main = unittest.main
