"""Architecture test: what libheapprof.so exports and what its own calls
bind to.

- `nm -D --defined-only` lists only GC_* functions, heapprof_rt_*
  functions and the interposers of tests/arch/interposers.txt;
- no call of heapprof's own binds to a symbol heapprof defines itself (the
  symbols of its JUMP_SLOT and GLOB_DAT relocations do not meet the ones it
  exports: without that, heapprof's own write() would run its own ldv
  wrapper);
- every exported symbol is defined by an object built from preload/ (the
  entry points, level 1)."""
import glob
import os
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = os.environ["HEAPPROF_LIB"]
BUILD = os.environ.get("HEAPPROF_BUILD", os.path.dirname(LIB))


def lines(args):
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout.splitlines()


def exported():
    return sorted(l.split()[-1] for l in lines(["nm", "-D", "--defined-only", LIB]) if l.strip())


def interposers():
    with open(os.path.join(HERE, "interposers.txt")) as f:
        return {l.strip() for l in f if l.strip() and not l.startswith("#")}


class Exports(unittest.TestCase):

    def test_only_entry_points_are_exported(self):
        allowed = interposers()
        names = exported()
        bad = [n for n in names
               if not (n.startswith("GC_") or n.startswith("heapprof_rt_") or n in allowed)]
        self.assertEqual(bad, [], "exported but neither a GC_ wrapper, a heapprof_rt_ "
                         "function nor an ldv interposer: %s" % bad)
        # Every interposer listed is there (the list says what is exported).
        self.assertEqual(sorted(allowed - set(names)), [])
        self.assertGreaterEqual(len([n for n in names if n.startswith("GC_")]), 50)
        self.assertIn("heapprof_rt_set_roots", names)

    def test_no_own_call_binds_to_an_own_definition(self):
        relocs = set()
        for l in lines(["readelf", "-rW", LIB]):
            parts = l.split()
            if len(parts) >= 5 and ("JUMP_SLOT" in parts[2] or "GLOB_DAT" in parts[2]):
                relocs.add(parts[4].split("@")[0])
        own = set(exported())
        both = sorted(relocs & own)
        self.assertEqual(both, [], "heapprof's own calls bind to its own definitions "
                         "(through the PLT, a preloaded library's own symbols come first): "
                         + ", ".join("%s binds to its own interposer" % n for n in both))

    def test_exports_are_defined_in_preload_objects(self):
        objs = glob.glob(os.path.join(BUILD, "libheapprof.so.p", "*.o"))
        self.assertTrue(objs, "no objects under %s/libheapprof.so.p" % BUILD)
        where = {}
        for o in objs:
            for l in lines(["readelf", "-sW", o]):
                p = l.split()
                # Num: Value Size Type Bind Vis Ndx Name
                if len(p) == 8 and p[4] == "GLOBAL" and p[5] == "DEFAULT" and p[6] != "UND":
                    where.setdefault(p[7], []).append(os.path.basename(o))
        outside = {}
        for name in exported():
            objs_of = where.get(name, [])
            self.assertTrue(objs_of, "%s: no object defines it" % name)
            if not all(x.startswith("preload_") for x in objs_of):
                outside[name] = objs_of
        self.assertEqual(outside, {}, "exported symbols defined outside preload/ "
                         "(level 1): %s" % outside)


if __name__ == "__main__":
    unittest.main()
