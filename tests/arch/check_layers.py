#!/usr/bin/env python3
"""check_layers: heapprof's one direction of calls, checked from the sources.

For every .c and .h file of the library (core/ preload/ collector_hooks/
retainer/ roots/ ldv/ hp_writer/ include/) under ROOT:
  - the file must have a level in tests/arch/levels.txt (first glob wins);
  - every #include "X" must name a file of the tree by its root-relative
    path (no "../"), whose level is the including file's or a lower one
    (a higher number): an include of a higher level is a call upward;
  - only files of level 1 (preload/) may define exported symbols: no
    visibility("default") and no definition of a GC_ function elsewhere.
Prints each violation as FILE:LINE: message and exits 1; prints one line
and exits 0 when the tree keeps its layers.

    check_layers.py [ROOT] [--levels FILE]
"""
import argparse
import fnmatch
import os
import re
import sys

DIRS = ("core", "preload", "collector_hooks", "retainer", "roots", "ldv", "hp_writer",
        "include")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
EXPORT = re.compile(r'visibility\s*\(\s*"default"\s*\)')
# A function definition of a GC_ entry point: a return type, the name, the
# parameters, then a body on the same or the next line (not a call, not a
# declaration ending in ';').
GC_DEF = re.compile(r'^[A-Za-z_][\w \t\*]*?\b(GC_\w+)\s*\([^;]*\)\s*(\{.*)?$')


def read_levels(path):
    levels = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2 or not parts[1].isdigit():
                raise SystemExit("%s:%d: expected 'GLOB LEVEL'" % (path, n))
            levels.append((parts[0], int(parts[1])))
    return levels


def level_of(rel, levels):
    for glob, level in levels:
        if fnmatch.fnmatchcase(rel, glob):
            return level
    return None


def sources(root):
    for d in DIRS:
        top = os.path.join(root, d)
        if not os.path.isdir(top):
            continue
        for dirpath, _, files in os.walk(top):
            for name in sorted(files):
                if name.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, name), root)


def check(root, levels):
    errors = []
    files = sorted(sources(root))
    known = set(files)
    for rel in files:
        own = level_of(rel, levels)
        if own is None:
            errors.append("%s:1: no level: give it one in tests/arch/levels.txt" % rel)
            continue
        with open(os.path.join(root, rel), errors="replace") as f:
            lines = f.read().split("\n")
        for n, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if m:
                inc = m.group(1)
                if inc.startswith("../") or "/../" in inc:
                    errors.append("%s:%d: include \"%s\" goes up a directory: write the "
                                  "path from the repository root" % (rel, n, inc))
                    continue
                if inc not in known:
                    if os.path.exists(os.path.join(root, inc)):
                        errors.append("%s:%d: include \"%s\" is outside the library's "
                                      "folders" % (rel, n, inc))
                    else:
                        errors.append("%s:%d: include \"%s\" is not a file of the tree "
                                      "(write the path from the repository root)"
                                      % (rel, n, inc))
                    continue
                theirs = level_of(inc, levels)
                if theirs is None:
                    continue   # reported for that file itself
                if theirs < own:
                    errors.append("%s:%d: level %d includes \"%s\" of level %d: a call "
                                  "upward (only function pointers registered at start-up "
                                  "may go up)" % (rel, n, own, inc, theirs))
            if own != 1 and rel.endswith(".c"):
                if EXPORT.search(line):
                    errors.append("%s:%d: an exported symbol outside preload/ (entry "
                                  "points are level 1)" % (rel, n))
                m = GC_DEF.match(line)
                if m and not line.rstrip().endswith(";"):
                    nxt = lines[n] if n < len(lines) else ""
                    if "{" in line or nxt.strip().startswith("{"):
                        errors.append("%s:%d: defines %s outside preload/ (entry points "
                                      "are level 1)" % (rel, n, m.group(1)))
    return files, errors


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", nargs="?", default=os.path.dirname(os.path.dirname(here)))
    ap.add_argument("--levels", default=None)
    a = ap.parse_args(argv)
    levels = read_levels(a.levels or os.path.join(a.root, "tests", "arch", "levels.txt"))
    files, errors = check(a.root, levels)
    for e in errors:
        print(e)
    if errors:
        print("check_layers: %d violation(s) in %d files" % (len(errors), len(files)))
        return 1
    print("check_layers: %d files keep their layers" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
