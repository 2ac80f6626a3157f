#!/usr/bin/env python3
"""bench_ldv: what mode ldv costs and how precise its re-arming policies are.

1. Overhead, in one run: trees.c (the reference workload, as bench_trees.py
   finds and builds it) at the given depth (default 18), plain and under
   heapprof in mode cc and in mode ldv with each re-arming policy, best of
   N wall seconds and the ratio to the plain run of the same build, with the
   ldv runs' fault counts from their .prof.
2. Precision: bench/ldv_precision.c (random biographies, one census per
   GC_gcollect) under ldv=precise (exact) and under each other policy; the
   precision of a policy is 1 - (sum over censuses and bands of
   |bytes - exact bytes|) / (2 * sum over censuses of live bytes), i.e. the
   share of byte-censuses put in the right band; with its faults and time.
3. Each policy against ldv=precise on the ground-truth programs (the
   patterns of tests/progs/ldv_patterns.c, trees.c at depths 10, 14 and 16),
   per band, census by census (a run with another number of collections
   than precise mode's is run again, up to RETRIES times).

Not a test: it is never registered with meson test.

    bench/bench_ldv.py [DEPTH] [-n RUNS] [--lib PATH] [--interval S]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_trees as bt  # noqa: E402

BANDS = ("VOID", "LAG", "USE", "INHERENT_USE", "DRAG")
RETRIES = 3


def hp_samples(path):
    samples, cur = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("BEGIN_SAMPLE"):
                cur = {}
            elif line.startswith("END_SAMPLE"):
                samples.append(cur)
                cur = None
            elif cur is not None:
                k, v = line.split("\t")
                cur[k] = int(v)
    return samples[1:-1]   # without the empty first and closing samples


def prof_value(path, key):
    line = bt.prof_line(path, key)
    try:
        return line.split()[-1]
    except IndexError:
        return "?"


def per_band(samples, exact):
    """{band: share of precise's byte-censuses in that band the policy
    also puts there}, census by census (None when the counts differ)."""
    if len(samples) != len(exact):
        return None
    out = {}
    for b in BANDS:
        want = sum(e.get(b, 0) for e in exact)
        if want:
            same = sum(min(a.get(b, 0), e.get(b, 0)) for a, e in zip(samples, exact))
            out[b] = same / want
    return out


def ground_truth(work, base, lib, trees):
    """Each policy against ldv=precise on the ground-truth programs:
    tests/progs/ldv_patterns.c's patterns and trees.c at depths 10, 14 and 16
    (interval=0: a census at every collection), per band."""
    exe = os.path.join(work, "ldv_patterns")
    r = subprocess.run(["gcc", "-O0", "-I" + os.path.join(bt.REPO, "include"),
                        os.path.join(bt.REPO, "tests", "progs", "ldv_patterns.c"), "-o", exe,
                        "-lgc", "-pthread"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("bench_ldv: building ldv_patterns failed:\n" + r.stderr)
    progs = [(f"ldv_patterns {p}", [exe, p], "ldv_patterns")
             for p in ("tree", "list", "hash", "young", "threads", "churn", "fronts")]
    progs += [(f"trees.c {d}", [trees, str(d)], "trees") for d in (10, 14, 16)]
    print("each policy against ldv=precise, share of each band's byte-censuses in the same "
          "band (interval=0; threads: precise itself misses uses, see doc/semantics.md):")
    print()
    print("| program | policy | VOID | LAG | USE | DRAG | faults | wall s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    precise_ratio = []
    for name, argv, stem in progs:
        runs = {}
        for pol in ("precise", "adaptive", "page"):
            cwd = os.path.join(work, "gt-" + stem + "-" + argv[-1] + "-" + pol)
            os.makedirs(cwd, exist_ok=True)
            env = dict(base, LD_PRELOAD=lib, HEAPPROF=f"ldv,interval=0,ldv={pol}")
            # A run with another number of collections than precise mode's
            # (the conservative collector's heap growth can differ by one or
            # two) has no census-by-census comparison: run it again, up to
            # RETRIES times.
            for _ in range(RETRIES + 1):
                wall, _, _ = bt.run_once(argv, env, cwd)
                runs[pol] = (hp_samples(os.path.join(cwd, stem + ".hp")), wall,
                             prof_value(os.path.join(cwd, stem + ".prof"), "faults"))
                if pol == "precise" or len(runs[pol][0]) == len(runs["precise"][0]):
                    break
        exact = runs["precise"][0]
        for pol, (samples, wall, faults) in runs.items():
            shares = per_band(samples, exact)
            if shares is None:
                cells = "(different census count) | | |"
            else:
                cells = " | ".join(f"{100 * shares[b]:.1f}%" if b in shares else "-"
                                   for b in ("VOID", "LAG", "USE", "DRAG"))
            print(f"| {name} | {pol} | {cells} | {faults} | {wall:.2f} |", flush=True)
        if name == "trees.c 14":
            plain, _, _ = bt.run_once(argv, base, work)
            prec_wall = runs["precise"][1]
            print(f"| trees.c 14 | plain (no heapprof) | | | | | | {plain:.2f} |")
            precise_ratio.append((prec_wall, plain))
    for prec_wall, plain in precise_ratio:
        print()
        print(f"ldv=precise on trees.c 14 (interval=0): {prec_wall:.2f} s against {plain:.2f} s "
              f"plain: {prec_wall / plain:.1f}x")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("depth", nargs="?", type=int, default=18)
    ap.add_argument("-n", "--runs", type=int, default=int(os.environ.get("BENCH_RUNS", 3)))
    ap.add_argument("--lib", help="libheapprof.so (default: build/ in the repo, built if needed)")
    ap.add_argument("--interval", default="0.1")
    args = ap.parse_args()
    src = bt.find_source()
    lib = bt.find_lib(args.lib)
    work = tempfile.mkdtemp(prefix="hp-bench-ldv-")
    try:
        o2 = os.path.join(work, "trees")
        fp = os.path.join(work, "trees-fp")
        bt.compile_trees(src, o2, [])
        bt.compile_trees(src, fp, ["-fno-omit-frame-pointer"])
        base = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "HEAPPROF")}
        kinds = [
            ("plain (-O2)", o2, None, None),
            ("plain (fp build)", fp, None, None),
            ("cc unwind=fp", fp, "cc,unwind=fp", "plain (fp build)"),
            ("ldv unwind=fp (adaptive)", fp, "ldv,unwind=fp", "plain (fp build)"),
            ("ldv unwind=fp ldv=page", fp, "ldv,unwind=fp,ldv=page", "plain (fp build)"),
            ("cc (libunwind, -O2)", o2, "cc", "plain (-O2)"),
            ("ldv (libunwind, -O2, adaptive)", o2, "ldv", "plain (-O2)"),
        ]
        best, expected = {}, None
        for _ in range(args.runs):
            for idx, (name, exe, hp, _) in enumerate(kinds):
                cwd = os.path.join(work, f"run-{idx}")
                os.makedirs(cwd, exist_ok=True)
                env = dict(base)
                if hp:
                    env["LD_PRELOAD"] = lib
                    env["HEAPPROF"] = f"{hp},interval={args.interval}"
                wall, rss, out = bt.run_once([exe, str(args.depth)], env, cwd)
                if expected is None:
                    expected = out
                elif out != expected:
                    sys.exit(f"bench_ldv: {name} printed different output")
                best[name] = min(wall, best.get(name, wall))
        print(f"trees.c depth {args.depth}, best of {args.runs} runs, interval={args.interval}")
        print()
        w = max(len(k[0]) for k in kinds)
        print(f"| {'run':<{w}} | wall s | vs plain | faults | uses recorded |")
        print(f"| {'-' * w} | ------ | -------- | ------ | ------------- |")
        for idx, (name, exe, hp, ref) in enumerate(kinds):
            prof = os.path.join(work, f"run-{idx}", os.path.basename(exe) + ".prof")
            ratio = best[name] / best[ref] if ref else 1.0
            faults = prof_value(prof, "faults") if hp and hp.startswith("ldv") else ""
            uses = prof_value(prof, "uses recorded") if hp and hp.startswith("ldv") else ""
            print(f"| {name:<{w}} | {best[name]:6.2f} | {ratio:7.2f}x | {faults:>6} | {uses:>13} |")
        print()

        exe = os.path.join(work, "ldv_precision")
        here = os.path.dirname(os.path.abspath(__file__))
        r = subprocess.run(["gcc", "-O1", os.path.join(here, "ldv_precision.c"), "-o", exe,
                            "-lgc"], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("bench_ldv: building ldv_precision failed:\n" + r.stderr)
        results = {}
        for pol in ("precise", "adaptive", "adaptive,repeat=16", "adaptive,repeat=1", "page"):
            cwd = os.path.join(work, "prec-" + pol.replace(",", "-").replace("=", ""))
            os.makedirs(cwd, exist_ok=True)
            env = dict(base, LD_PRELOAD=lib, HEAPPROF=f"ldv,interval=0,ldv={pol}")
            wall, _, _ = bt.run_once([exe], env, cwd)
            prof = os.path.join(cwd, "ldv_precision.prof")
            results[pol] = (hp_samples(os.path.join(cwd, "ldv_precision.hp")), wall,
                            prof_value(prof, "faults"))
        exact = results["precise"][0]
        total = sum(sum(s.values()) for s in exact)
        print("precision on bench/ldv_precision.c (20000 objects of 64 bytes, 12 periods),"
              " against ldv=precise:")
        print()
        print("| policy              | precision | faults | wall s |")
        print("| ------------------- | --------- | ------ | ------ |")
        for pol, (samples, wall, faults) in results.items():
            if len(samples) != len(exact):
                print(f"| {pol:<19} | (different census count) |")
                continue
            err = sum(abs(a.get(b, 0) - e.get(b, 0)) for a, e in zip(samples, exact)
                      for b in BANDS)
            prec = 1 - err / (2 * total) if total else 1.0
            print(f"| {pol:<19} | {prec * 100:8.2f}% | {faults:>6} | {wall:6.2f} |")
        print()
        ground_truth(work, base, lib, o2)
    finally:
        shutil.rmtree(work, True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
