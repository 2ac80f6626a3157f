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
4. dominators=yes against the same run without, on trees.c and Guile's
   hash table: the dominator trees' milliseconds and memory against the
   traversal and the collector's mark.
5. Real runtimes (when installed): Guile filling a hash table
   (tests/external/runtimes/hash.scm, HP_N=150000) and sorting 300,000
   strings, ECL's list workload (list.lsp), w3m dumping a 5000-row table,
   nix-instantiate folding into an 8000-attribute set, GNU poke running a
   script over a binary file, Inkscape exporting a 3300-element SVG to PNG
   (inputs made here): the traversal against the collector's mark over the
   whole run (.prof "traversal total"), the run's wall time against the
   plain run (best of N), under retainer and roots, and the smallest share
   of live bytes the retainer profile attributed at a census.

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


SORT_SCM = ('(define l (let loop ((i 0) (acc (quote ()))) (if (= i 300000) acc '
            '(loop (+ i 1) (cons (number->string (* i 7919)) acc)))))'
            '(display (length (sort l string<?))) (newline)')


def other_programs(work):
    """The other Debian programs on libgc, with inputs made here (each
    skipped, with the package to install, when missing)."""
    import random
    rnd = random.Random(1)
    progs = []
    d = os.path.join(work, "inputs")
    os.makedirs(d, exist_ok=True)
    missing = []
    if shutil.which("w3m"):
        rows = "".join("<tr><td>%d</td><td>cell %d</td><td><a href='x%d.html'>link %d</a></td></tr>\n"
                       % (i, i * 7, i, i) for i in range(5000))
        with open(os.path.join(d, "table.html"), "w") as f:
            f.write("<html><body><table>%s</table></body></html>" % rows)
        progs.append(("w3m -dump, 5000-row table", ["w3m", "-dump", os.path.join(d, "table.html")],
                      {}, "w3m"))
    else:
        missing.append("w3m")
    rt = os.path.join(REPO, "tests", "external", "runtimes")
    if shutil.which("nix-instantiate"):
        progs.append(("nix-instantiate --eval, fold into an 8000-attribute set",
                      ["nix-instantiate", "--eval", os.path.join(rt, "fold.nix")], {},
                      "nix-instantiate"))
    else:
        missing.append("nix-bin")
    if shutil.which("poke"):
        with open(os.path.join(d, "data.bin"), "wb") as f:
            f.write(bytes(rnd.randrange(256) for _ in range(40000)))
        with open(os.path.join(rt, "sum.pk")) as f:
            script = f.read()
        with open(os.path.join(d, "sum.pk"), "w") as f:
            f.write(script.replace("data.bin", os.path.join(d, "data.bin")))
        progs.append(("poke -L, a script over a binary file",
                      ["poke", "-L", os.path.join(d, "sum.pk")], {}, "poke"))
    else:
        missing.append("poke")
    if shutil.which("inkscape"):
        els = "".join('<rect x="%d" y="%d" width="%d" height="%d" fill="#%06x"/>\n'
                      % (rnd.randint(0, 900), rnd.randint(0, 900), rnd.randint(5, 80),
                         rnd.randint(5, 80), rnd.randint(0, 0xffffff)) for _ in range(3000))
        els += "".join('<text x="%d" y="%d">label %d</text>\n'
                       % (rnd.randint(0, 900), rnd.randint(0, 900), i) for i in range(300))
        with open(os.path.join(d, "pic.svg"), "w") as f:
            f.write('<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000">%s</svg>'
                    % els)
        home = os.path.join(d, "home")
        os.makedirs(home, exist_ok=True)
        progs.append(("inkscape --export-type=png, 3300 elements",
                      ["inkscape", "--export-type=png",
                       "--export-filename=" + os.path.join(d, "out.png"),
                       os.path.join(d, "pic.svg")], {"HOME": home}, "inkscape"))
    else:
        missing.append("inkscape")
    if missing:
        print("\n(not installed, so not measured: %s; apt-get install %s)"
              % (", ".join(missing), " ".join(missing)))
    return progs


def coverage(prof_path):
    """The smallest share of live bytes attributed at a census with a
    traversal (RETAINER CENSUSES 'N of M bytes'), or None."""
    with open(prof_path) as f:
        text = f.read()
    if "RETAINER CENSUSES" not in text:
        return None
    worst = None
    for m in re.finditer(r"  (\d+) of (\d+) bytes", text.split("RETAINER CENSUSES", 1)[1]):
        got, live = int(m.group(1)), int(m.group(2))
        if live:
            worst = got / live if worst is None else min(worst, got / live)
    return worst


def runtimes(work, base, lib, runs):
    rt = os.path.join(REPO, "tests", "external", "runtimes")
    progs = []
    if shutil.which("guile"):
        progs.append(("guile, hash table (150k)", ["guile", "-q", "--no-auto-compile",
                                                   os.path.join(rt, "hash.scm")],
                      {"HP_N": "150000"}, "guile"))
        progs.append(("guile, sort 300k strings", ["guile", "-q", "--no-auto-compile", "-c",
                                                   SORT_SCM], {}, "guile"))
    if shutil.which("ecl"):
        progs.append(("ecl, list workload", ["ecl", "--norc", "--shell",
                                             os.path.join(rt, "list.lsp")], {}, "ecl"))
    progs += other_programs(work)
    if not progs:
        print("\n(none of guile, ecl, w3m, nix-instantiate, poke, inkscape installed: "
              "no runtime figures)")
        return
    print()
    print(f"real runtimes, best of {runs} wall seconds; traversal and mark over the whole run")
    print()
    print("| program | mode | wall s | vs plain | traversal ms | mark ms | traversal / mark "
          "| least attributed at a census |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, argv, extra, stem in progs:
        plain = None
        for _ in range(runs):
            w, _, _ = bench_trees.run_once(argv, dict(base, **extra), work)
            plain = w if plain is None else min(plain, w)
        print(f"| {name} | plain | {plain:.2f} | 1.00x | | | | |")
        for mode, section in (("retainer", "RETAINER CENSUSES"), ("roots", "ROOT CENSUSES")):
            best, tr, mk = None, None, None
            for i in range(runs):
                cwd = os.path.join(work, f"rt-{stem}-{mode}-{i}")
                os.makedirs(cwd, exist_ok=True)
                env = dict(base, LD_PRELOAD=lib, HEAPPROF=mode, **extra)
                w, _, _ = bench_trees.run_once(argv, env, cwd)
                if best is None or w < best:
                    best = w
                    cov = coverage(os.path.join(cwd, stem + ".prof"))
                    rows = census_lines(os.path.join(cwd, stem + ".prof"), section)
                    tr = sum(r[0] for r in rows) if rows else None
                    mk = sum(r[1] for r in rows) if rows else None
            ratio = f"{tr / mk:.2f}x" if tr is not None and mk else "-"
            trs = f"{tr:.1f}" if tr is not None else "-"
            mks = f"{mk:.1f}" if mk is not None else "-"
            covs = f"{100 * cov:.2f}%" if cov is not None else ""
            print(f"| {name} | {mode} | {best:.2f} | {best / plain:.2f}x | {trs} | {mks} | {ratio} "
                  f"| {covs} |")


def dominators(work, base, lib, trees, depth):
    """dominators=yes against the same run without: the traversal's and
    the dominator trees' milliseconds against the collector's mark, the
    dominator arrays' memory, peak RSS and wall (one run each), on trees.c
    and Guile's hash table (150k entries)."""
    progs = [(f"trees.c {depth}", [trees, str(depth)], {}, "trees")]
    if shutil.which("guile"):
        progs.append(("guile, hash table (150k)",
                      ["guile", "-q", "--no-auto-compile",
                       os.path.join(REPO, "tests", "external", "runtimes", "hash.scm")],
                      {"HP_N": "150000"}, "guile"))
    print()
    print("dominators=yes, one run each (interval 0.1): traversal and dominator trees against "
          "the collector's mark over the run's censuses")
    print()
    print("| program | run | wall s | peak RSS MiB | traversal ms | dominator trees ms "
          "| collector mark ms | dominators / mark | dominator arrays MiB "
          "| objects reached (most) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, argv, extra, stem in progs:
        for dom in ("no", "yes"):
            cwd = os.path.join(work, f"dom-{stem}-{dom}")
            os.makedirs(cwd, exist_ok=True)
            env = dict(base, LD_PRELOAD=lib, HEAPPROF=f"retainer,dominators={dom}", **extra)
            wall, rss, _ = bench_trees.run_once(argv, env, cwd)
            with open(os.path.join(cwd, stem + ".prof")) as f:
                text = f.read()
            tot = re.search(r"^traversal total ([\d.]+) ms, collector mark total ([\d.]+) ms",
                            text, re.M)
            cost = re.search(r"^Cost: \d+ trees?, ([\d.]+) ms in all .*their arrays at most "
                             r"(\d+) bytes \(the most objects reached at a census: (\d+)\)",
                             text, re.M)
            tr, mk = (float(tot.group(1)), float(tot.group(2))) if tot else (0.0, 0.0)
            if cost:
                dms, mem, objs = float(cost.group(1)), int(cost.group(2)), int(cost.group(3))
                dcells = (f"{dms:.1f} | {mk:.1f} | {dms / mk:.2f}x | {mem / 2 ** 20:.1f} "
                          f"| {objs}")
            else:
                dcells = f"- | {mk:.1f} | - | - | -"
            print(f"| {name} | dominators={dom} | {wall:.2f} | {rss / 1024:.0f} | {tr:.1f} "
                  f"| {dcells} |", flush=True)


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
        dominators(work, base, lib, o2, args.depth)
        runtimes(work, base, lib, args.runs)
    finally:
        shutil.rmtree(work, True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
