#!/usr/bin/env python3
"""bench_runtimes: heapprof on real runtimes built on libgc (Guile, ECL, Crystal).

Runs the hash-table workloads of tests/external/runtimes/ (N string keys
in an equal hash table, HP_N, default 200000) plainly and under heapprof
in modes cc, module, kind and roots, R runs each (default 5), address
randomisation on, and prints per runtime and mode the median and the
slowest wall time and their ratios to the plain run's median: the issue
"safe on any program" asks for each mode within 4x, run after run (a
recipe cache that thrashes by chance of placement shows as a slowest run
far above the median). With crystal installed, also
tests/external/runtimes/work.cr (built here, n = N), a program that
frees much (String::Builder's buffers). Each mode's row ends with its
last run's "profiler memory" from the .prof, in bytes per object live at
the peak (the issue "cost that does not grow with the heap" asks at
most 16 in mode cc).

Not a test: it is never registered with meson test.

    bench/bench_runtimes.py [-n N] [-r RUNS] [--lib PATH]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(REPO, "tests", "external", "runtimes")
RUNTIMES = {
    "guile": ["guile", "--no-auto-compile", "-s", os.path.join(WORK, "hash.scm")],
    "ecl": ["ecl", "--norc", "--shell", os.path.join(WORK, "hash.lsp")],
}
MODES = ("cc", "module", "kind", "roots")


def wall(argv, n, lib=None, mode=None):
    """(wall seconds, stdout, the .prof's profiler memory per object live
    at the peak or None)."""
    e = dict(os.environ)
    e.pop("LD_PRELOAD", None)
    e.pop("HEAPPROF", None)
    e["HP_N"] = str(n)
    if lib:
        e["LD_PRELOAD"] = lib
        e["HEAPPROF"] = mode
    d = tempfile.mkdtemp(prefix="hpbench-")
    try:
        t0 = time.monotonic()
        r = subprocess.run(argv, cwd=d, env=e, capture_output=True, text=True)
        t = time.monotonic() - t0
        if r.returncode != 0:
            sys.exit("bench_runtimes: %s failed (%s): %s" % (argv[0], mode or "plain", r.stderr))
        mem = None
        for f in os.listdir(d):
            if f.endswith(".prof"):
                with open(os.path.join(d, f)) as fp:
                    m = re.search(r"profiler memory\s+\d+ bytes at the most \(\d+ at exit; "
                                  r"([\d.]+) per object", fp.read())
                if m:
                    mem = float(m.group(1))
        return t, r.stdout, mem
    finally:
        shutil.rmtree(d, True)


def build_crystal(tmp):
    """work.cr built in `tmp` (no heapprof), or None when crystal is
    missing or the build fails (said)."""
    if not shutil.which("crystal"):
        return None
    shutil.copy(os.path.join(WORK, "work.cr"), tmp)
    e = dict(os.environ, CRYSTAL_CACHE_DIR=os.path.join(tmp, "cache"))
    e.pop("LD_PRELOAD", None)
    r = subprocess.run(["crystal", "build", "--release", "work.cr", "-o", "work"], cwd=tmp, env=e,
                       capture_output=True, text=True)
    if r.returncode != 0:
        print("(crystal build failed: %s)" % r.stderr.strip()[:200])
        return None
    return os.path.join(tmp, "work")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=200000, help="hash-table entries")
    ap.add_argument("-r", "--runs", type=int, default=5)
    ap.add_argument("--lib", default=os.path.join(REPO, "build", "libheapprof.so"))
    a = ap.parse_args()
    lib = os.path.abspath(a.lib)
    if not os.path.exists(lib):
        sys.exit("bench_runtimes: no %s: build first (meson setup build && meson compile -C build)" % lib)
    print("hash-table workload, %d entries, %d runs each, library %s" % (a.n, a.runs, lib))
    print()
    runtimes = dict(RUNTIMES)
    tmp = tempfile.mkdtemp(prefix="hpbench-crystal-")
    try:
        work = build_crystal(tmp)
        runtimes["crystal work.cr"] = [work, str(a.n)] if work else ["crystal"]
        print("| runtime | run | median s | slowest s | median / plain | slowest / plain "
              "| profiler memory, bytes an object live at the peak |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for name, argv in runtimes.items():
            if not shutil.which(argv[0]):
                print("| %s | not installed (scripts/install-deps.sh --test) | | | | | |" % name)
                continue
            plain = [wall(argv, a.n)[0] for _ in range(a.runs)]
            base = statistics.median(plain)
            print("| %s | plain | %.2f | %.2f | 1.00x | %.2fx | |"
                  % (name, base, max(plain), max(plain) / base))
            for m in MODES:
                runs = [wall(argv, a.n, lib, m) for _ in range(a.runs)]
                ts = [x[0] for x in runs]
                med = statistics.median(ts)
                mem = runs[-1][2]
                print("| %s | %s | %.2f | %.2f | %.2fx | %.2fx | %s |"
                      % (name, m, med, max(ts), med / base, max(ts) / base,
                         "%.1f" % mem if mem is not None else "(no .prof)"))
            sys.stdout.flush()
    finally:
        shutil.rmtree(tmp, True)


if __name__ == "__main__":
    main()
