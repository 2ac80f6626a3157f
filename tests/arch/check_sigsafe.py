#!/usr/bin/env python3
"""check_sigsafe: code that may run in a signal handler or with the world
stopped calls only what is safe there.

Every object DIR/*_sigsafe.c.o (meson names libheapprof's objects after
their sources: ldv/hp_ldv_trap_sigsafe.c -> ldv_hp_ldv_trap_sigsafe.c.o)
may leave undefined (nm -u) only:
  - functions of the allowlist (tests/arch/sigsafe_allowlist.txt);
  - functions defined by another *_sigsafe.c.o object of DIR;
  - data (variables, TLS): reading heapprof's state is allowed. A symbol
    is data when the object that defines it says so (readelf: OBJECT or
    TLS), or when no object of DIR defines it as a function.
Everything else (malloc, printf, pthread_mutex_lock, a heapprof function
of a file that is not signal-safe) is reported as OBJECT: NAME and makes
the exit status 1.

    check_sigsafe.py DIR [--allowlist FILE]
"""
import argparse
import glob
import os
import subprocess
import sys


def run(args):
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def allowlist(path):
    names = set()
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                names.add(line)
    return names


def definitions(obj):
    """{name: type} of the global symbols obj defines (readelf -sW)."""
    out = {}
    for l in run(["readelf", "-sW", obj]).splitlines():
        p = l.split()
        if len(p) == 8 and p[4] in ("GLOBAL", "WEAK") and p[6] != "UND":
            out[p[7]] = p[3]
    return out


def undefined(obj):
    return sorted({l.split()[-1] for l in run(["nm", "-u", obj]).splitlines() if l.strip()})


def check(objdir, allowed):
    objs = sorted(glob.glob(os.path.join(objdir, "*.o")))
    safe = [o for o in objs if o.endswith("_sigsafe.c.o")]
    funcs_safe, data, funcs_other = set(), set(), set()
    for o in objs:
        for name, typ in definitions(o).items():
            if typ in ("OBJECT", "TLS", "COMMON"):
                data.add(name)
            elif typ == "FUNC":
                (funcs_safe if o in safe else funcs_other).add(name)
    errors = []
    for o in safe:
        for name in undefined(o):
            if name in allowed or name in funcs_safe or name in data:
                continue
            why = ("defined in a file that is not signal-safe" if name in funcs_other
                   else "not async-signal-safe")
            errors.append("%s: %s (%s)" % (os.path.basename(o), name, why))
    return safe, errors


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("objdir")
    ap.add_argument("--allowlist", default=os.path.join(here, "sigsafe_allowlist.txt"))
    a = ap.parse_args(argv)
    safe, errors = check(a.objdir, allowlist(a.allowlist))
    if not safe:
        print("check_sigsafe: no *_sigsafe.c.o object in %s" % a.objdir)
        return 1
    for e in errors:
        print(e)
    if errors:
        print("check_sigsafe: %d call(s) that are not signal-safe in %d objects"
              % (len(errors), len(safe)))
        return 1
    print("check_sigsafe: %d signal-safe objects call only signal-safe functions" % len(safe))
    return 0


if __name__ == "__main__":
    sys.exit(main())
