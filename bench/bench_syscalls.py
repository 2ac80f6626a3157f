#!/usr/bin/env python3
"""bench_syscalls: what seeing every system call costs in mode ldv.

bench/syscall_loop.c (a 64 MiB heap of small objects; N rounds of four
system calls, one of them into a heap buffer; a collection every N/8
rounds) is built and run plainly, under mode cc, and under mode ldv with
syscalls=wrappers (only the interposed C library calls are seen) and
syscalls=dispatch (every call, by syscall user dispatch: one SIGSYS per
call while pages are protected). Prints the loop's seconds (best of -n
runs), the ratio to the plain run, and the calls dispatched (from the
.prof). Then, when GNU poke is installed, the same for a real program that
makes ten million system calls: poke -L tests/external/runtimes/sum.pk
over 40,000 random bytes (its lseeks come from stdio's ftello and fseeko,
which heapprof's interposers run undispatched), wall seconds of one run
each. Not a test: never registered with meson test.

    bench/bench_syscalls.py [N] [-n RUNS] [--lib PATH]
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def dispatched(prof):
    """The .prof's "system calls dispatched" figure, or "-"."""
    if os.path.exists(prof):
        for line in open(prof):
            if line.strip().startswith("system calls dispatched"):
                return line.split()[-1]
    return "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", nargs="?", type=int, default=200000)
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--lib", default=os.path.join(ROOT, "build", "libheapprof.so"))
    a = ap.parse_args()
    if not os.path.exists(a.lib):
        sys.exit("bench_syscalls: %s not found: build first (meson setup build && "
                 "meson compile -C build) or give --lib" % a.lib)
    d = tempfile.mkdtemp(prefix="hpbench-sys-")
    prog = os.path.join(d, "syscall_loop")
    subprocess.run(["cc", "-O2", "-o", prog, os.path.join(HERE, "syscall_loop.c"), "-lgc"],
                   check=True)
    runs = [("plain", None), ("cc", "cc"), ("ldv syscalls=wrappers", "ldv,syscalls=wrappers"),
            ("ldv syscalls=dispatch", "ldv,syscalls=dispatch")]
    print("syscall_loop, %d rounds of 4 calls, best of %d, library %s\n" % (a.n, a.runs, a.lib))
    print("| run | loop s | / plain | calls dispatched |")
    print("| --- | --- | --- | --- |")
    base = None
    for name, hp in runs:
        best = None
        disp = "-"
        for _ in range(a.runs):
            e = dict(os.environ)
            e.pop("LD_PRELOAD", None)
            if hp:
                e["LD_PRELOAD"] = a.lib
                e["HEAPPROF"] = hp
            r = subprocess.run([prog, str(a.n)], cwd=d, env=e, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit("%s failed: %s" % (name, r.stderr))
            t = float(r.stdout.split()[0])
            best = t if best is None else min(best, t)
            if hp and hp.startswith("ldv"):
                disp = dispatched(os.path.join(d, "syscall_loop.prof"))
        if base is None:
            base = best
        print("| %s | %.3f | %.2fx | %s |" % (name, best, best / base, disp))
    poke(d, a.lib)


def poke(d, lib):
    import random
    import shutil
    import time
    if not shutil.which("poke"):
        print("\n(poke not installed: scripts/install-deps.sh --all)")
        return
    shutil.copy(os.path.join(ROOT, "tests", "external", "runtimes", "sum.pk"), d)
    with open(os.path.join(d, "data.bin"), "wb") as f:
        f.write(bytes(random.Random(2).randrange(256) for _ in range(40000)))
    print("\npoke -L sum.pk over 40,000 random bytes, one run each\n")
    print("| run | wall s | / plain | calls dispatched |")
    print("| --- | --- | --- | --- |")
    base, expected = None, None
    for name, hp in (("plain", None), ("cc", "cc"), ("ldv", "ldv")):
        e = dict(os.environ)
        e.pop("LD_PRELOAD", None)
        if hp:
            e["LD_PRELOAD"] = lib
            e["HEAPPROF"] = hp
        t0 = time.monotonic()
        r = subprocess.run(["poke", "-L", "sum.pk"], cwd=d, env=e, capture_output=True, text=True)
        t = time.monotonic() - t0
        if r.returncode != 0 or (expected is not None and r.stdout != expected):
            sys.exit("poke under %s: status %d, output %r" % (name, r.returncode, r.stdout[-200:]))
        expected = r.stdout
        disp = dispatched(os.path.join(d, "poke.prof")) if hp == "ldv" else "-"
        if base is None:
            base = t
        print("| %s | %.2f | %.2fx | %s |" % (name, t, t / base, disp))


if __name__ == "__main__":
    main()
