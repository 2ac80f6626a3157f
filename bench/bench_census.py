#!/usr/bin/env python3
"""bench_census: what a retainer or named-roots census costs, in one run.

1. bench/census_heap.c (about a million live 32-byte objects) run plain:
   the collector's own full collection, timed by the program around
   GC_gcollect() (median of the runs).
2. The same heap under HEAPPROF=retainer and HEAPPROF=roots with 1, 20 and
   64 named roots (interval=0: a census at every collection): the
   traversal's milliseconds and the collector's mark phase of the same
   collections, from the .prof census lines (medians).
3. trees.c (../shared/workloads) at DEPTH: plain vs HEAPPROF=retainer,
   unwind=fp (frame-pointer build) and unwind=libunwind (-O2 build), best
   of N.

Prints ratios: traversal / collector mark (same collections), traversal /
the collector's full collection (plain run), and trees.c overhead.
Not a test: never registered with meson test.

    bench/bench_census.py [DEPTH] [-n RUNS] [--objects N] [--lib PATH]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_trees  # noqa: E402

REPO = bench_trees.REPO


def build_heap_prog(work):
    exe = os.path.join(work, "census_heap")
    cmd = ["gcc", "-O2", "-I" + os.path.join(REPO, "include"),
           os.path.join(REPO, "bench", "census_heap.c"), "-o", exe, "-lgc", "-ldl"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"bench_census: {' '.join(cmd)} failed:\n{r.stderr}")
    return exe


def census_lines(prof_path, section):
    """(traversal ms, mark ms) of each census line of a .prof section."""
    with open(prof_path) as f:
        text = f.read()
    part = text.split(section, 1)[1]
    rows = []
    for line in part.splitlines():
        m = re.match(r"^(\d+\.\d+)  (\d+\.\d+)  (\d+\.\d+)  ", line)
        if m:
            rows.append((float(m.group(2)), float(m.group(3))))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("depth", nargs="?", type=int, default=18)
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--objects", type=int, default=1000000)
    ap.add_argument("--lib")
    args = ap.parse_args()
    lib = bench_trees.find_lib(args.lib)
    work = tempfile.mkdtemp(prefix="hp-census-")
    try:
        heap = build_heap_prog(work)
        base = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "HEAPPROF")}
        ncollect = 5
        # 1. The collector alone.
        gc = []
        for _ in range(args.runs):
            _, _, out = bench_trees.run_once([heap, str(args.objects), "0", str(ncollect)],
                                             base, work)
            gc += [float(x) for x in re.findall(r"gc_ms (\S+)", out)]
        gc_full = statistics.median(gc)
        print(f"heap: {args.objects} objects of 32 bytes in 64 lists; the collector's full "
              f"collection (plain run, median of {len(gc)}): {gc_full:.2f} ms")
        print()
        print("| census | traversal ms | collector mark ms | traversal / mark "
              "| traversal / full collection |")
        print("| --- | --- | --- | --- | --- |")
        cases = [("retainer", "retainer", 0, "RETAINER CENSUSES")]
        for k in (1, 20, 64):
            cases.append((f"roots, {k} named", "roots", k, "ROOT CENSUSES"))
        for name, mode, nroots, section in cases:
            rows = []
            for i in range(args.runs):
                cwd = os.path.join(work, f"{mode}-{nroots}-{i}")
                os.makedirs(cwd)
                env = dict(base, LD_PRELOAD=lib, HEAPPROF=f"{mode},interval=0,unwind=fp")
                bench_trees.run_once([heap, str(args.objects), str(nroots), str(ncollect)],
                                     env, cwd)
                # The program's own collections and the one at exit, on
                # the whole heap (earlier ones ran while it was built).
                rows += census_lines(os.path.join(cwd, "census_heap.prof"),
                                     section)[-(ncollect + 1):]
            big = rows
            tr = statistics.median(r[0] for r in big)
            mk = statistics.median(r[1] for r in big)
            print(f"| {name} | {tr:.2f} | {mk:.2f} | {tr / mk:.2f}x | {tr / gc_full:.2f}x |")
        print()
        # 3. trees.c.
        src = bench_trees.find_source()
        o2, fp = os.path.join(work, "trees"), os.path.join(work, "trees-fp")
        bench_trees.compile_trees(src, o2, [])
        bench_trees.compile_trees(src, fp, ["-fno-omit-frame-pointer"])
        kinds = [("plain (-O2)", o2, None),
                 ("plain (-O2 -fno-omit-frame-pointer)", fp, None),
                 ("heapprof cc unwind=fp (fp build)", fp, "cc,unwind=fp"),
                 ("heapprof retainer unwind=fp (fp build)", fp, "retainer,unwind=fp"),
                 ("heapprof retainer unwind=libunwind (-O2)", o2, "retainer,unwind=libunwind")]
        best = {}
        for _ in range(args.runs):
            for idx, (name, exe, hp) in enumerate(kinds):
                cwd = os.path.join(work, f"trees-{idx}")
                os.makedirs(cwd, exist_ok=True)
                env = dict(base)
                if hp:
                    env.update(LD_PRELOAD=lib, HEAPPROF=hp)
                wall, _, _ = bench_trees.run_once([exe, str(args.depth)], env, cwd)
                best[name] = min(wall, best.get(name, wall))
        print(f"trees.c depth {args.depth}, best of {args.runs}, interval 0.1")
        print()
        print("| run | wall s | vs plain (same build) |")
        print("| --- | --- | --- |")
        for name, exe, hp in kinds:
            plain = best[kinds[1][0]] if exe == fp else best[kinds[0][0]]
            print(f"| {name} | {best[name]:.2f} | {best[name] / plain:.2f}x |")
        prof = os.path.join(work, "trees-3", "trees-fp.prof")
        with open(prof) as f:
            tail = [l for l in f if l.startswith("traversal total")]
        if tail:
            print()
            print("retainer run, trees-fp: " + tail[-1].strip())
    finally:
        shutil.rmtree(work, True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
