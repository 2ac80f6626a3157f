#!/usr/bin/env python3
"""bench_ldv_programs: what mode ldv costs on real programs, in one run.

The programs of the issue "ldv truthful by default", with inputs made
here (each skipped, with the package to install, when missing):
  - w3m -dump of a 5000-row HTML table;
  - a Crystal program (tests/external/runtimes/work.cr, built here without
    heapprof, n = 20000 and 200000);
  - guild compile of a 200-line Scheme file (made here);
  - Guile filling a 400,000-entry hash table
    (tests/external/runtimes/hash.scm, HP_N=400000).
Each runs plain and under HEAPPROF=ldv with the default policy, with
bursts off (burst=off: one access a fault), with ldv=page, and with
budget=0 (no budget: the credit off, no period rested), and with
floor=0.1,faults=0 (a floor of 0.1 s before the program's time counts,
instead of the larger of 0.5 s and 65,536 faults at a fault's kernel
cost), best of N wall seconds (default 3), with the ratio to the plain
run, the .prof's faults, uses recorded, periods rested of all periods
(a pass past the budget protects nothing: ldv/hp_ldv_prot.c, Note
[Resting past the budget]), and the share of DRAG and VOID byte-seconds
it calls uncertain.
Prints a Markdown table. Not a test: never registered with meson test.

    bench/bench_ldv_programs.py [-n RUNS] [--lib PATH] [--only NAME]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_trees as bt  # noqa: E402

REPO = bt.REPO
RT = os.path.join(REPO, "tests", "external", "runtimes")
POLICIES = (("ldv (default)", "ldv"), ("ldv burst=off", "ldv,burst=off"),
            ("ldv=page", "ldv,ldv=page"), ("ldv budget=0", "ldv,budget=0"),
            ("ldv floor=0.1,faults=0", "ldv,floor=0.1,faults=0"))


def scheme_source(path, lines=200):
    """A Scheme module of about `lines` lines: definitions that use lists,
    strings, vectors and closures, for guild to compile."""
    out = ["(define-module (bench gen))", ""]
    i = 0
    while len(out) < lines:
        out += [f"(define (f{i} xs)",
                f"  (let loop ((xs xs) (acc '()))",
                f"    (if (null? xs) (reverse acc)",
                f"        (loop (cdr xs) (cons (string-append \"k{i}-\" (number->string (car xs))) acc)))))",
                f"(define v{i} (list->vector (map (lambda (x) (* x {i + 1})) (iota 10))))",
                ""]
        i += 1
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def programs(work):
    """(name, argv, extra env, cwd, stem of the .prof) of each program
    installed, and the packages of those missing."""
    progs, missing = [], []
    d = os.path.join(work, "inputs")
    os.makedirs(d, exist_ok=True)
    if shutil.which("w3m"):
        page = os.path.join(d, "table.html")
        rows = "".join(f"<tr><td>row {i}</td><td>{i * i}</td><td>{'word ' * (i % 7 + 1)}</td></tr>\n"
                       for i in range(5000))
        with open(page, "w") as f:
            f.write(f"<html><body><table border=1>\n{rows}</table></body></html>\n")
        progs.append(("w3m -dump, 5000-row table", ["w3m", "-dump", page], {}, "w3m"))
    else:
        missing.append("w3m")
    if shutil.which("crystal"):
        cd = os.path.join(d, "crystal")
        os.makedirs(cd, exist_ok=True)
        shutil.copy(os.path.join(RT, "work.cr"), cd)
        env = dict(os.environ, CRYSTAL_CACHE_DIR=os.path.join(cd, "cache"))
        env.pop("LD_PRELOAD", None)
        r = subprocess.run(["crystal", "build", "--release", "work.cr", "-o", "work"], cwd=cd,
                           env=env, capture_output=True, text=True)
        if r.returncode == 0:
            # n=20000 runs 0.04 s, where the adaptive policy's first half
            # second of fault budget is most of the cost; n=200000, 0.5 s.
            for n in ("20000", "200000"):
                progs.append((f"Crystal work.cr, n={n}", [os.path.join(cd, "work"), n], {},
                              "work"))
        else:
            print(f"(crystal build failed: {r.stderr.strip()[:200]})")
    else:
        missing.append("crystal")
    if shutil.which("guild") or shutil.which("guild3.0"):
        src = os.path.join(d, "gen.scm")
        scheme_source(src)
        guild = shutil.which("guild") or shutil.which("guild3.0")
        progs.append(("guild compile, 200 lines", [guild, "compile", "-o",
                                                   os.path.join(d, "gen.go"), src],
                      {"XDG_CACHE_HOME": os.path.join(d, "cache")}, "guild"))
    else:
        missing.append("guild (package guile-3.0-dev; scripts/install-deps.sh --all)")
    if shutil.which("guile"):
        progs.append(("Guile hash table, 400k entries",
                      ["guile", "-q", "--no-auto-compile", os.path.join(RT, "hash.scm")],
                      {"HP_N": "400000"}, "guile"))
    else:
        missing.append("guile-3.0")
    return progs, missing


def prof_figures(path):
    """(faults, uses, periods rested of all, uncertain share of DRAG+VOID
    byte-seconds) of a .prof."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return "-", "-", "-", "-"
    faults = re.search(r"^  faults +(\d+)$", text, re.M)
    uses = re.search(r"^  uses recorded +(\d+)$", text, re.M)
    tot = unsure = 0.0
    for _b, t, u in re.findall(r"^  (DRAG|VOID) byte-seconds ([\d.]+), uncertain ([\d.]+)",
                               text, re.M):
        tot += float(t)
        unsure += float(u)
    share = f"{100 * unsure / tot:.1f}%" if tot else "-"
    passes = re.search(r"^  protect passes +(\d+)$", text, re.M)
    rested = re.search(r"^  periods rested past the budget +(\d+)$", text, re.M)
    rest = (f"{rested.group(1)} of {int(rested.group(1)) + int(passes.group(1))}"
            if passes and rested else "-")
    return (faults.group(1) if faults else "-", uses.group(1) if uses else "-", rest, share)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--lib")
    ap.add_argument("--only", help="run only the programs whose name contains this")
    args = ap.parse_args()
    lib = bt.find_lib(args.lib)
    work = tempfile.mkdtemp(prefix="hp-bench-ldvp-")
    try:
        progs, missing = programs(work)
        if args.only:
            progs = [p for p in progs if args.only in p[0]]
        if missing:
            print("(not installed, skipped: " + ", ".join(missing) + ")")
        base = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "HEAPPROF")}
        print(f"mode ldv on real programs, best of {args.runs} wall seconds")
        print()
        print("| program | run | wall s | vs plain | faults | uses recorded "
              "| periods rested | DRAG+VOID uncertain |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for name, argv, extra, stem in progs:
            env = dict(base, **extra)
            plain = None
            for _ in range(args.runs):
                w, _, _ = bt.run_once(argv, env, work)
                plain = w if plain is None else min(plain, w)
            print(f"| {name} | plain | {plain:.2f} | 1.00x | | | | |", flush=True)
            for label, hp in POLICIES:
                best, figs = None, ("-", "-", "-", "-")
                for i in range(args.runs):
                    cwd = os.path.join(work, f"{stem}-{hp.replace(',', '_').replace('=', '-')}-{i}")
                    os.makedirs(cwd, exist_ok=True)
                    w, _, _ = bt.run_once(argv, dict(env, LD_PRELOAD=lib, HEAPPROF=hp), cwd)
                    if best is None or w < best:
                        best = w
                        profs = sorted(f for f in os.listdir(cwd) if f.endswith(".prof"))
                        figs = prof_figures(os.path.join(cwd, stem + ".prof")
                                            if stem + ".prof" in profs or not profs
                                            else os.path.join(cwd, profs[0]))
                print(f"| {name} | {label} | {best:.2f} | {best / plain:.2f}x | {figs[0]} "
                      f"| {figs[1]} | {figs[2]} | {figs[3]} |", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
