#!/usr/bin/env python3
"""bench_threads: what heapprof costs a program that allocates from
threads, in one run (issue "cost that does not grow with the heap",
Threads).

1. trees.c (as bench_trees.py finds it) built without and with GC_THREADS
   (-DGC_THREADS -pthread), plain and under heapprof (mode cc, default
   unwinder and unwind=fp): a build with threads should cost no more than
   one without.
2. bench/trees_threads.c: the short-lived trees of trees.c made by one
   thread, then by two at once (twice the work), plain and under heapprof:
   two allocating threads should cost no more, as a ratio, than one.
Prints the median wall seconds of N interleaved runs (default 3) and each
ratio to its plain run. Not a test: never registered with meson test.

    bench/bench_threads.py [DEPTH] [-n RUNS] [--lib PATH]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_trees as bt  # noqa: E402


def build(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"bench_threads: {' '.join(cmd)} failed:\n{r.stderr}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("depth", nargs="?", type=int, default=18)
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--lib")
    args = ap.parse_args()
    lib = bt.find_lib(args.lib)
    work = tempfile.mkdtemp(prefix="hp-bench-thr-")
    try:
        src = bt.find_source()
        plain_b, thr_b = os.path.join(work, "trees"), os.path.join(work, "trees-threads")
        build(["gcc", "-O2", src, "-o", plain_b, "-lgc"])
        build(["gcc", "-O2", "-DGC_THREADS", "-pthread", src, "-o", thr_b, "-lgc"])
        tt = os.path.join(work, "trees_threads")
        build(["gcc", "-O2", "-pthread", os.path.join(bt.REPO, "bench", "trees_threads.c"),
               "-o", tt, "-lgc"])
        base = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "HEAPPROF")}
        d = str(args.depth)
        cases = [("trees.c", [plain_b, d]), ("trees.c, GC_THREADS", [thr_b, d]),
                 ("trees_threads, 1 thread", [tt, str(args.depth - 2), "1"]),
                 ("trees_threads, 2 threads", [tt, str(args.depth - 2), "2"])]
        modes = [None, "cc", "cc,unwind=fp"]
        walls = {}
        for _ in range(args.runs):
            for name, argv in cases:
                for hp in modes:
                    cwd = os.path.join(work, "run")
                    os.makedirs(cwd, exist_ok=True)
                    env = dict(base)
                    if hp:
                        env.update(LD_PRELOAD=lib, HEAPPROF=hp)
                    w, _, _ = bt.run_once(argv, env, cwd)
                    walls.setdefault((name, hp), []).append(w)
        print(f"median of {args.runs} interleaved runs; trees.c depth {args.depth}, "
              f"trees_threads depth {args.depth - 2}")
        print()
        print("| program | plain s | cc | cc, unwind=fp |")
        print("| --- | --- | --- | --- |")
        for name, _ in cases:
            p = statistics.median(walls[(name, None)])
            cells = []
            for hp in modes[1:]:
                w = statistics.median(walls[(name, hp)])
                cells.append(f"{w:.2f} s ({w / p:.2f}x)")
            print(f"| {name} | {p:.2f} | {cells[0]} | {cells[1]} |")
    finally:
        shutil.rmtree(work, True)


if __name__ == "__main__":
    main()
