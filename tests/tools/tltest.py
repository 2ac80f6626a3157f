"""tltest: helpers shared by the tools tests (tests/tools/test_*.py): where
the launcher, the report tool, the test programs and the fixtures are, and
a runner for the launcher. Builds on tests/integration/hptest.py.
Standard library only."""
import os
import shutil
import signal
import subprocess
import sys
import tempfile

import hptest

TOOLS = os.environ.get("HEAPPROF_TOOLS", "")          # build dir of tests/tools
FIXTURES = os.environ.get("HEAPPROF_FIXTURES", "")    # tests/tools/fixtures
LAUNCHER = os.path.join(hptest.SRC, "scripts", "heapprof")
REPORT = os.path.join(hptest.SRC, "scripts", "heapprof_report.py")
BUILD_LAUNCHER = os.path.join(hptest.BUILD, "scripts", "heapprof")


def tprog(name):
    """A program built from tests/tools (tl_gc, tl_nogc)."""
    return os.path.join(TOOLS, name)


def dummy_lib():
    return os.path.join(TOOLS, "libtl_dummy.so")


def fixture(name):
    return os.path.join(FIXTURES, name)


def check_env(testcase):
    """Fail (never skip) when the build did not give us what we need."""
    for path in (hptest.LIB, LAUNCHER, REPORT, tprog("tl_gc"), tprog("tl_nogc"),
                 tprog("tl_gcstatic"), dummy_lib()):
        testcase.assertTrue(os.path.isfile(path), f"missing {path!r}: check the meson env")


def tempdir(testcase, prefix="tltest-"):
    d = tempfile.mkdtemp(prefix=prefix)
    testcase.addCleanup(shutil.rmtree, d, True)
    return d


def clean_env(**extra):
    """The test process's environment without HEAPPROF and LD_PRELOAD, with
    HEAPPROF_LIB pointing at the build's library, plus `extra` (a value of
    None removes the variable)."""
    e = dict(os.environ)
    e.pop("HEAPPROF", None)
    e.pop("LD_PRELOAD", None)
    e["HEAPPROF_LIB"] = hptest.LIB
    for k, v in extra.items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    return e


def _default_signals():
    # An ignored SIGINT/SIGTERM in whoever runs the tests would be inherited.
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, signal.SIG_DFL)


def launch(testcase, args, cwd=None, env=None, stdin=None, launcher=None, timeout=60):
    """Run `heapprof ARGS` (the source checkout's launcher by default) in a
    temporary directory; returns CompletedProcess (text)."""
    cwd = cwd or tempdir(testcase)
    return subprocess.run([sys.executable, launcher or LAUNCHER] + list(args), cwd=cwd,
                          env=env if env is not None else clean_env(),
                          input=stdin, capture_output=True, text=True, timeout=timeout,
                          preexec_fn=_default_signals)


def start(testcase, args, cwd, env=None):
    """Start `heapprof ARGS` without waiting; returns the Popen."""
    p = subprocess.Popen([sys.executable, LAUNCHER] + list(args), cwd=cwd,
                         env=env if env is not None else clean_env(),
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, preexec_fn=_default_signals)

    def reap():
        if p.poll() is None:
            p.kill()
            p.wait()
    testcase.addCleanup(reap)
    return p


def report(testcase, args, cwd=None, timeout=120):
    """Run `heapprof report ARGS`; returns CompletedProcess (text)."""
    return launch(testcase, ["report"] + list(args), cwd=cwd, timeout=timeout)


def notes(stderr):
    return [l for l in stderr.splitlines() if l.startswith("heapprof: note: ")]


_report_module = None


def report_module():
    """scripts/heapprof_report.py, imported (for its parsers)."""
    global _report_module
    if _report_module is None:
        import importlib.util
        spec = importlib.util.spec_from_file_location("heapprof_report", REPORT)
        _report_module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_report_module)
    return _report_module
