"""bh: helpers shared by the behaviour tests (tests/behaviour/test_*.py).

Finds the programs built in this directory (HEAPPROF_BEHAVIOUR), starts
programs under the preloaded library without waiting for them (for the
signal tests), and lists the profile files a run left behind. Builds on
tests/integration/hptest.py. Standard library only.
"""
import os
import re
import shutil
import signal
import subprocess
import tempfile

import hptest

BEHAVIOUR = os.environ.get("HEAPPROF_BEHAVIOUR", "")

WROTE_RE = re.compile(r"^heapprof: wrote (\S+)\.hp, (\S+)\.prof and \S+\.alloc\.csv \((\d+) censuses, "
                      r"peak (\d+) bytes live\); view with: hp2ps -c (\S+)\.hp; also "
                      r"\5\.pb\.gz \(go tool pprof \5\.pb\.gz\), \5\.folded and "
                      r"\5\.live\.folded \(flame graphs\)$")


def check_env(testcase):
    """Fail (never skip) when the build did not give us what we need."""
    testcase.assertTrue(os.path.isfile(hptest.LIB), f"HEAPPROF_LIB={hptest.LIB!r}")
    testcase.assertTrue(os.path.isdir(BEHAVIOUR), f"HEAPPROF_BEHAVIOUR={BEHAVIOUR!r}")


def bprog(name):
    """Path of a program built from tests/behaviour/NAME.c."""
    return os.path.join(BEHAVIOUR, name)


def environ(heapprof=None, preload=True):
    e = dict(os.environ)
    e.pop("HEAPPROF", None)
    e.pop("LD_PRELOAD", None)
    if preload:
        e["LD_PRELOAD"] = hptest.LIB
    if heapprof is not None:
        e["HEAPPROF"] = heapprof
    return e


def _default_signals():
    # Whoever ran the tests may have ignored SIGINT/SIGTERM; an ignored
    # signal stays ignored across exec and heapprof rightly leaves it so.
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, signal.SIG_DFL)


def start(testcase, argv, heapprof=None):
    """Start argv under heapprof in a new temporary directory; returns
    (Popen, dir). stdout/stderr are pipes (text)."""
    d = tempfile.mkdtemp(prefix="bhtest-")
    testcase.addCleanup(shutil.rmtree, d, True)
    p = subprocess.Popen(argv, cwd=d, env=environ(heapprof), stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=_default_signals)

    def reap():
        if p.poll() is None:
            p.kill()
            p.wait()
    testcase.addCleanup(reap)
    return p, d


def profile_files(d):
    """The .hp/.prof files in directory d, sorted."""
    return sorted(f for f in os.listdir(d) if f.endswith((".hp", ".prof")))


def wrote_lines(stderr):
    return [l for l in stderr.splitlines() if l.startswith("heapprof: wrote ")]
