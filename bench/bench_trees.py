#!/usr/bin/env python3
"""bench_trees: heapprof's overhead on the reference workload, in one run.

Builds trees.c (../shared/workloads/trees.c next to the repo, else
examples/trees.c) twice, with -O2 and with -O2 -fno-omit-frame-pointer, and
runs it at the given depth (default 18): plain, profiled with
unwind=libunwind (-O2 build), profiled with unwind=fp (frame-pointer
build), profiled with unwind=fp and report=full (the allocation
report's breakdowns on), and in mode kind with and without call stacks
(kind,stacks=no: the launcher's -hT, no record per object), and sampled
(sample=512K: one object recorded per 512 KiB allocated on average), and
in modes ldv and retainer (whose records and indexes are their own: their
memory per live object). Prints the best-of-N wall seconds, the ratio to
the plain run and the maximum RSS (the largest over the runs) of each, the
cost of the report (report=full run / unwind=fp run, same build, same
single invocation), then the "shadow table" and "profiler memory" lines of
the profiled runs' .prof, and how many collections each made (one
untimed run each, with the collector's GC_PRINT_STATS: a run that makes
more collections for the same work pays the collector for them). The
same measure as the GHC figures in
../shared/workloads/README.md (profiled time / plain time).

Not a test: it is never registered with meson test.

    bench/bench_trees.py [DEPTH] [-n RUNS] [--lib PATH] [--interval S]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_source():
    for cand in (os.path.join(REPO, "..", "shared", "workloads", "trees.c"),
                 os.path.join(REPO, "examples", "trees.c")):
        if os.path.exists(cand):
            return os.path.normpath(cand)
    sys.exit("bench_trees: trees.c not found (../shared/workloads/trees.c or examples/trees.c)")


def find_lib(path):
    if path:
        if not os.path.exists(path):
            sys.exit(f"bench_trees: {path} does not exist")
        return os.path.abspath(path)
    build = os.path.join(REPO, "build")
    lib = os.path.join(build, "libheapprof.so")
    steps = [] if os.path.exists(os.path.join(build, "build.ninja")) else [
        ["meson", "setup", build, REPO]]
    # Bring the library up to date (only the library target: fast).
    steps.append(["meson", "compile", "-C", build, "heapprof"])
    for cmd in steps:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"bench_trees: {' '.join(cmd)} failed:\n{r.stdout}{r.stderr}")
    return lib


def compile_trees(src, out, extra):
    cmd = ["gcc", "-O2"] + extra + [src, "-o", out, "-lgc"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"bench_trees: {' '.join(cmd)} failed:\n{r.stderr}")


def run_once(argv, env, cwd):
    """(wall seconds, max RSS in KiB (this process alone), stdout) of one run."""
    with open(os.path.join(cwd, "stdout"), "w+") as out, \
         open(os.path.join(cwd, "stderr"), "w+") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, env=env, cwd=cwd, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if p.returncode != 0:
            sys.exit(f"bench_trees: {' '.join(argv)} exited {p.returncode}:\n{err.read()}")
        return wall, ru.ru_maxrss, out.read()


def collections(argv, env, cwd):
    """How many collections one run makes: an untimed run of its own, with
    the collector's GC_PRINT_STATS (each collection prints "--> Marking for
    collection #N")."""
    e = dict(env, GC_PRINT_STATS="1")
    r = subprocess.run(argv, env=e, cwd=cwd, capture_output=True, text=True, errors="replace")
    return sum(1 for line in r.stderr.splitlines() if line.startswith("--> Marking for collection"))


def prof_line(path, key):
    with open(path) as f:
        for line in f:
            if line.strip().startswith(key):
                return line.rstrip("\n")
    return f"        {key}  (not in {os.path.basename(path)})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("depth", nargs="?", type=int, default=18)
    ap.add_argument("-n", "--runs", type=int, default=int(os.environ.get("BENCH_RUNS", 3)),
                    help="runs of each kind; the best is reported (default 3)")
    ap.add_argument("--lib", help="libheapprof.so (default: build/ in the repo, built if needed)")
    ap.add_argument("--interval", default=None,
                    help="HEAPPROF interval of the profiled runs (default: none written, "
                         "the library's default: a census at each of the first 20 "
                         "collections, then every 0.1 s)")
    args = ap.parse_args()
    if args.runs < 1:
        sys.exit("bench_trees: --runs must be at least 1")

    src = find_source()
    lib = find_lib(args.lib)
    work = tempfile.mkdtemp(prefix="hp-bench-")
    try:
        o2 = os.path.join(work, "trees")
        fp = os.path.join(work, "trees-fp")
        compile_trees(src, o2, [])
        compile_trees(src, fp, ["-fno-omit-frame-pointer"])

        base = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "HEAPPROF")}
        kinds = [
            # (name, binary, HEAPPROF or None)
            ("plain (-O2)", o2, None),
            ("plain (-O2 -fno-omit-frame-pointer)", fp, None),
            ("heapprof unwind=libunwind (-O2)", o2, "unwind=libunwind"),
            ("heapprof unwind=fp (fp build)", fp, "unwind=fp"),
            ("heapprof unwind=fp report=full (fp build)", fp, "unwind=fp,report=full"),
            ("heapprof unwind=fp interval=0.1 (fp build)", fp, "unwind=fp,interval=0.1"),
            ("heapprof kind (-O2)", o2, "kind"),
            ("heapprof kind,stacks=no: -hT (-O2)", o2, "kind,stacks=no"),
            ("heapprof sample=512K (-O2)", o2, "sample=512K"),
            ("heapprof ldv (-O2)", o2, "ldv"),
            ("heapprof retainer (-O2)", o2, "retainer"),
        ]
        report_off, report_on = kinds[3][0], kinds[4][0]
        early, written = kinds[3][0], kinds[5][0]
        best = {}
        expected = None
        for i in range(args.runs):
            # Round-robin, so a slow patch of the machine hits every kind alike.
            for idx, (name, exe, hp) in enumerate(kinds):
                cwd = os.path.join(work, f"run-{idx}")
                os.makedirs(cwd, exist_ok=True)
                env = dict(base)
                if hp is not None:
                    env["LD_PRELOAD"] = lib
                    env["HEAPPROF"] = hp if args.interval is None or "interval=" in hp \
                        else f"{hp},interval={args.interval}"
                wall, rss, out = run_once([exe, str(args.depth)], env, cwd)
                if expected is None:
                    expected = out
                elif out != expected:
                    sys.exit(f"bench_trees: {name} printed different output")
                old_wall, old_rss = best.get(name, (wall, rss))
                best[name] = (min(wall, old_wall), max(rss, old_rss))

        # The collector grows its heap when a collection leaves it nearly
        # full, and each growth spaces the later collections out: a run
        # whose false retentions differ (another stack, another layout)
        # can make a different number of collections for the same work.
        ncoll = {}
        for idx, (name, exe, hp) in enumerate(kinds):
            env = dict(base)
            if hp is not None:
                env["LD_PRELOAD"] = lib
                env["HEAPPROF"] = hp if args.interval is None or "interval=" in hp \
                    else f"{hp},interval={args.interval}"
            ncoll[name] = collections([exe, str(args.depth)], env,
                                      os.path.join(work, f"run-{idx}"))

        plain = best[kinds[0][0]][0]
        print(f"trees.c depth {args.depth} ({src}), best of {args.runs} runs, "
              f"profiled with " + (f"interval={args.interval}" if args.interval else
                                   "the default interval (no interval= written)"))
        print(f"library: {lib}")
        print()
        w = max(len(k[0]) for k in kinds)
        print(f"| {'run':<{w}} | wall s | vs plain | max RSS MiB | collections |")
        print(f"| {'-' * w} | ------ | -------- | ----------- | ----------- |")
        for name, _, _ in kinds:
            wall, rss = best[name]
            print(f"| {name:<{w}} | {wall:6.2f} | {wall / plain:7.2f}x | {rss / 1024:11.1f} "
                  f"| {ncoll[name]:11d} |")
        print()
        print("collections: the collector's own count (GC_PRINT_STATS, one untimed run each). "
              "It grows its heap when a collection leaves it nearly full, which spaces the "
              "later ones out; a run whose stacks hold other stale pointers (another "
              "layout) can keep other garbage for a while and make more or fewer "
              "collections for the same work, each costing the plain run's average.")
        print()
        off, on = best[report_off][0], best[report_on][0]
        print(f"allocation report (report=full) vs off, unwind=fp: {on:.2f} s / {off:.2f} s "
              f"= {on / off:.3f}x ({(on / off - 1) * 100:+.1f}%)")
        if args.interval is None:
            e, wr = best[early][0], best[written][0]
            print(f"default interval (every collection until 20 censuses) vs interval=0.1 "
                  f"written, unwind=fp: {e:.2f} s / {wr:.2f} s = {e / wr:.3f}x "
                  f"({(e / wr - 1) * 100:+.1f}%)")
        print()
        for idx, (name, exe, hp) in enumerate(kinds):
            if hp is None:
                continue
            prof = os.path.join(work, f"run-{idx}", os.path.basename(exe) + ".prof")
            print(f"{name}:")
            for key in ("censuses", "profiler memory", "shadow table"):
                print(prof_line(prof, key))
    finally:
        shutil.rmtree(work, True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
