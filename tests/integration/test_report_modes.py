"""HEAPPROF=module (GHC -hm) and the heap-profile filters ccs=, module= and
kind= (issue 6), with exact bands (tests/progs/report_modhost.c, which
dlopen()s tests/progs/plugin.c's libhpplugin.so).

Sites, all live at the plugin's collection and at exit:
  prog_alloc/main               25 x GC_malloc(24)         granted 32:  800
  prog_atomic/main              12 x GC_malloc_atomic(200) granted 208: 2496
  phase (explicit cost centre)   3 x GC_malloc(100)        granted 112: 336
  plugin_alloc/plugin_run/main  60 x GC_malloc(40)         granted 48:  2880
The first two are in the program (module report_modhost), the third under
an explicit cost centre (module "explicit"), the last in libhpplugin.so.
Censuses: GC_INIT's (empty), the plugin's collection, the final one.
Filters restrict the .hp samples, "peak live" and the live@peak column
only; the table's other columns count every object (doc/options.md).
"""
import os
import re

import hptest
from hptest import granted, out_table, prof_field
from test_report import table

# full name: (objects, requested each, granted each, module, kind label)
SITES = {
    "prog_alloc/main": (25, 24, 32, "report_modhost", "normal"),
    "prog_atomic/main": (12, 200, 208, "report_modhost", "atomic"),
    "phase": (3, 100, 112, "explicit", "normal"),
    "plugin_alloc/plugin_run/main": (60, 40, 48, "libhpplugin.so", "normal"),
}
PL = "plugin_alloc/plugin_run/m"   # the plugin stack's label (length 25)
ALL = set(SITES)


def nbytes(name):
    n, _, gr, _, _ = SITES[name]
    return n * gr


def bands(mode, names):
    """The census bands of the sites `names` in `mode`."""
    out = {}
    for name in names:
        n, _, gr, module, kind = SITES[name]
        label = {"cc": name[:25], "module": module, "kind": f"{kind}:{gr}"}[mode]
        out[label] = out.get(label, 0) + n * gr
    return out


class Modes(hptest.ProfileTest):

    def modhost(self, heapprof):
        argv = ["report_modhost", hptest.prog("libhpplugin.so")]
        r, hp, prof = self.profile(argv, heapprof=heapprof)
        self.assertEqual(out_table(r.stdout), {
            "prog_alloc": (25, granted(24)), "prog_atomic": (12, granted(200)),
            "phase": (3, granted(100)), "plugin_alloc": (60, granted(40))})
        self.assert_bookends(hp)
        return r, hp, prof

    def check_table(self, prof, live):
        """The allocation table is that of an unfiltered run; live@peak is
        each site's bytes when it is in `live`, else 0."""
        self.assertEqual(table(prof), [
            ("total profiled", (100, 6512, 5700, 6512, sum(nbytes(n) for n in live))),
            ("plugin_alloc/plugin_run/main", (60, 2880, 2400, 2880,
                                              2880 if "plugin_alloc/plugin_run/main" in live
                                              else 0)),
            ("prog_atomic/main", (12, 2496, 2400, 2496,
                                  2496 if "prog_atomic/main" in live else 0)),
            ("prog_alloc/main", (25, 800, 600, 800, 800 if "prog_alloc/main" in live else 0)),
            ("phase", (3, 336, 300, 336, 336 if "phase" in live else 0)),
        ])

    def check_samples(self, hp, expect):
        # GC_INIT's empty census, the plugin's collection, the final census.
        self.assertEqual([s for _, s in hp.samples[1:-1]], [{}, expect, expect])

    def test_module_mode(self):
        r, hp, prof = self.modhost("module,interval=0")
        expect = {"report_modhost": 800 + 2496, "explicit": 336, "libhpplugin.so": 2880}
        self.assertEqual(bands("module", ALL), expect)
        self.check_samples(hp, expect)
        self.assertIn("mode module,", prof)
        self.check_table(prof, ALL)
        self.assertEqual(
            r.stderr.strip().splitlines()[-1],
            "heapprof: wrote report_modhost.hp, report_modhost.prof and "
            "report_modhost.alloc.csv (3 censuses, peak 6512 bytes live); "
            "view with: hp2ps -c report_modhost.hp"
            "; also report_modhost.pb.gz (go tool pprof report_modhost.pb.gz), report_modhost.folded and report_modhost.live.folded (flame graphs)")

    def test_cc_mode_reference(self):
        _, hp, prof = self.modhost("interval=0")
        expect = {"prog_alloc/main": 800, "prog_atomic/main": 2496, "phase": 336, PL: 2880}
        self.assertEqual(bands("cc", ALL), expect)
        self.check_samples(hp, expect)
        self.check_table(prof, ALL)

    def test_kind_mode(self):
        _, hp, prof = self.modhost("kind,interval=0")
        expect = {"normal:32": 800, "atomic:208": 2496, "normal:112": 336, "normal:48": 2880}
        self.assertEqual(bands("kind", ALL), expect)
        self.check_samples(hp, expect)
        self.check_table(prof, ALL)

    def test_kind_mode_without_stacks(self):
        # stacks=no (GHC -hT): no record per object, each census the
        # collector's walk of what its collection marked. The program's
        # objects make the same bands as with records, exactly; the walk
        # counts every marked object, so objects heapprof does not record
        # (the collector's own) may add to them or make bands of their own.
        r, hp, prof = self.modhost("kind,interval=0,stacks=no")
        expect = {"normal:32": 800, "atomic:208": 2496, "normal:112": 336, "normal:48": 2880}
        samples = [s for _, s in hp.samples[1:-1]]
        self.assertEqual(len(samples), 3)
        for s in samples[1:]:
            for label, nb in expect.items():
                self.assertGreaterEqual(s.get(label, 0), nb, (label, s))
            # Anything more is small: the collector's own objects.
            self.assertLess(sum(s.values()) - sum(expect.values()), 16384, s)
        # Compare with the run with records: the same program bands.
        _, hp2, _ = self.modhost("kind,interval=0")
        for s, s2 in zip(samples[1:], [x for _, x in hp2.samples[1:-1]][1:]):
            for label in s2:
                self.assertGreaterEqual(s.get(label, 0), s2[label])
        # The .prof says what the run kept; no CSV, pprof or folded files.
        self.assertIn("mode kind, stacks=no (no call stacks, no record per object", prof)
        self.assertRegex(prof_field(prof, "allocated"),
                         r"^\d+ bytes \(the collector's count, GC_get_total_bytes;")
        self.assertEqual(table(prof), [("total profiled", (0, 0, 0, 0, 0))])
        for ext in (".alloc.csv", ".pb.gz", ".folded", ".live.folded"):
            self.assertFalse(os.path.exists(r.hp_path[:-3] + ext), ext)
        self.assertRegex(r.stderr, r"heapprof: wrote \S+\.hp and \S+\.prof \(3 censuses")

    # filter -> the sites that pass it
    FILTERS = {
        "ccs=plugin_run": {"plugin_alloc/plugin_run/main"},
        "ccs=plugin_alloc": {"plugin_alloc/plugin_run/main"},
        "ccs=main": {"prog_alloc/main", "prog_atomic/main", "plugin_alloc/plugin_run/main"},
        "ccs=prog_alloc": {"prog_alloc/main"},
        "ccs=phase": {"phase"},
        "ccs=plugin": set(),                   # whole names only
        "ccs=GC_malloc": set(),                # collector frames are not in stacks
        "module=libhpplugin.so": {"plugin_alloc/plugin_run/main"},
        "module=report_modhost": {"prog_alloc/main", "prog_atomic/main"},
        "module=explicit": {"phase"},
        "module=libgc.so.1": set(),
        "kind=atomic": {"prog_atomic/main"},
        "kind=normal": {"prog_alloc/main", "phase", "plugin_alloc/plugin_run/main"},
        "ccs=main,module=report_modhost,kind=normal": {"prog_alloc/main"},
        "ccs=main,module=explicit": set(),
    }

    def test_filters_cc_mode(self):
        for flt, live in self.FILTERS.items():
            with self.subTest(filter=flt):
                r, hp, prof = self.modhost(f"interval=0,{flt}")
                self.check_samples(hp, bands("cc", live))
                self.check_table(prof, live)
                peak = sum(nbytes(n) for n in live)
                self.assertRegex(prof_field(prof, "peak live"),
                                 rf"^{peak} bytes in {sum(SITES[n][0] for n in live)} objects")
                self.assertIn(f"(3 censuses, peak {peak} bytes live)", r.stderr)

    def test_filters_exact_bands(self):
        """The same, spelled out for a few filters."""
        cases = {
            "interval=0,ccs=plugin_run": {PL: 2880},
            "interval=0,ccs=main": {"prog_alloc/main": 800, "prog_atomic/main": 2496,
                                    PL: 2880},
            "interval=0,module=report_modhost": {"prog_alloc/main": 800,
                                                 "prog_atomic/main": 2496},
            "interval=0,module=explicit": {"phase": 336},
            "module,interval=0,kind=atomic": {"report_modhost": 2496},
            "module,interval=0,ccs=main": {"report_modhost": 3296, "libhpplugin.so": 2880},
            "kind,interval=0,module=libhpplugin.so": {"normal:48": 2880},
            "kind,interval=0,module=report_modhost": {"normal:32": 800, "atomic:208": 2496},
            "kind,interval=0,ccs=phase": {"normal:112": 336},
        }
        for heapprof, expect in cases.items():
            with self.subTest(heapprof=heapprof):
                _, hp, _ = self.modhost(heapprof)
                self.check_samples(hp, expect)

    def test_filters_other_modes(self):
        for flt, live in self.FILTERS.items():
            for mode in ("module", "kind"):
                with self.subTest(mode=mode, filter=flt):
                    _, hp, prof = self.modhost(f"{mode},interval=0,{flt}")
                    self.check_samples(hp, bands(mode, live))
                    self.check_table(prof, live)



class RecordSize(hptest.ProfileTest):
    """The .prof's "shadow table" line gives the size of a record: 16 bytes
    where the mode reads no birth and no traversal label (cc, module, kind:
    the compact table, core/hp_shadow_internal.h), 24 in mode ldv (the
    compact table and 8 bytes beside it: core/hp_shadow.h, Note [Side
    entries]), 32 elsewhere (retainer, and cc with rset=, whose filter is a
    traversal's label). The figures of those runs are checked exactly by
    the tests of each mode."""

    def test_record_bytes_by_mode(self):
        argv = ["report_modhost", hptest.prog("libhpplugin.so")]
        for heapprof, want in [("cc", 16), ("module", 16), ("kind", 16),
                               ("cc,sample=4096,seed=1", 16), ("ldv", 24),
                               ("retainer", 32), ("cc,rset=NOROOT", 32)]:
            with self.subTest(heapprof=heapprof):
                _, _, prof = self.profile(argv, heapprof=heapprof)
                runs = (" (8 where it repeats the stack, sizes and kind of the one before; 8 for a run "
                        "of up to 256 such, each one size below the last, as a block is handed out)")
                side = (" (16 in the table, 8 where it repeats the stack, sizes and kind of the "
                        "one before, 8 for a run of up to 256 such, each one size below the last, "
                        "as a block is handed out; and 8 beside it, its birth and LDV word)")
                self.assertRegex(prof, r"\n\s+shadow table\s+%d bytes a record%s; " %
                                 (want, re.escape(runs) if want == 16 else
                                  re.escape(side) if want == 24 else ""))


if __name__ == "__main__":
    hptest.main()
