"""Integration test for mode ldv (lag/drag/void/use through page protection).

ldv_truth (tests/progs/ldv_truth.c) builds objects whose biographies are
known by construction; the expected bands of every census are computed here
from the same table with the conventions of doc/semantics.md: census t is
taken at the t-th collection; an object created in period a (between
censuses a and a+1) and dropped in period d is live at censuses a+1 .. d;
a use in period u is seen from census u+1 on; LAG before the first use,
USE from the census after the first use to the last use's period, DRAG
after it, VOID if never used. Precise and adaptive re-arming must match it
byte for byte; page re-arming only misses uses (never invents one), so it
must keep the totals and never show more used bytes than the truth.

ldv_sys checks system calls and stdio on protected GC objects, a program's
own SIGSEGV handler, and that a NULL dereference still kills with SIGSEGV.
ldv_stress checks the map-entry budget on a 300 MB heap read at random.
"""
import os
import platform
import shutil
import signal
import subprocess

import re

import hptest
from hptest import out_table, prof_field

SZ = hptest.granted(100)   # 112
# group: (objects, created in period, periods used in, dropped in period or None)
# (program periods: period 0 ends at the program's first GC_gcollect)
GROUPS = {
    "V": (10, 0, [], 3),
    "D": (20, 0, [1], None),
    "U": (30, 1, [2, 3, 4], 5),
    "W": (40, 2, [3], None),
    "I": (50, 2, [], None),
    "S": (60, 0, [4], None),
}
PROGRAM_CENSUSES = 7   # six GC_gcollect, then the one at exit
BANDS = ("VOID", "LAG", "USE", "INHERENT_USE", "DRAG")


def band_shares(got, exact):
    """Of each band's byte-censuses in `exact` (a run's censuses, as
    [{band: bytes}]), the share `got` puts in the same band, census by
    census: {band: share}, for the bands `exact` has."""
    out = {}
    for band in BANDS:
        want = sum(smp.get(band, 0) for smp in exact)
        if want:
            out[band] = sum(min(a.get(band, 0), b.get(band, 0))
                            for a, b in zip(got, exact)) / want
    return out


def expected_bands(stop=None):
    """{census: {band: bytes}} in the program's census numbering; with
    `stop`, of a run that ends right after its collection `stop` (uses in
    later periods never happen, objects still held die at census `stop`)."""
    end = stop or PROGRAM_CENSUSES
    out = {t: {} for t in range(1, end + 1)}
    for n, a, uses, d in GROUPS.values():
        uses = [u for u in uses if u < end] if stop else uses
        last = d if d is not None and d <= end else end
        for t in range(a + 1, last + 1):
            if not uses:
                band = "VOID"
            elif t <= uses[0]:
                band = "LAG"
            elif t <= uses[-1]:
                band = "USE"
            else:
                band = "DRAG"
            out[t][band] = out[t].get(band, 0) + n * SZ
    return out


class Ldv(hptest.ProfileTest):

    def truth_run(self, policy):
        r, hp, prof = self.profile("ldv_truth", heapprof="ldv,interval=0,ldv=" + policy)
        out = out_table(r.stdout)
        self.assertEqual(out["size"], (SZ,))
        base = out["base"][0]            # collections before the program's first
        self.assertEqual(out["collections"], (base + 6,))
        self.assertEqual(out["wrote"], (60 * 100,))
        self.assert_bookends(hp)
        samples = [s for _, s in hp.samples[1:-1]]
        self.assertEqual(len(samples), base + PROGRAM_CENSUSES, hp.text)
        for s in samples:
            self.assertTrue(set(s) <= set(BANDS), s)
        got = {t: samples[base + t - 1] for t in range(1, PROGRAM_CENSUSES + 1)}
        self.assertIn("Lag, drag, void, use", prof)
        return got, prof

    def test_bands_by_stack(self):
        """bands= (launcher -hc -hbdrag,void): each census's DRAG and VOID
        bytes by cost-centre stack, in one run. ldv_cross's stacks hold
        known bands; their sum at every census equals the DRAG and VOID
        bands of a plain ldv run of the same program."""
        plain_r, plain, _ = self.profile("ldv_cross", heapprof="ldv,interval=0,ldv=precise")
        out = hptest.out_table(plain_r.stdout)
        void, drag, used = out["VOID"]   # "VOID n DRAG n USED n"
        for bands, names in (("drag+void", ("DRAG", "VOID")), ("void", ("VOID",)),
                             ("drag", ("DRAG",))):
            with self.subTest(bands=bands):
                r, hp, prof = self.profile("ldv_cross",
                                           heapprof="ldv,interval=0,ldv=precise,bands=" + bands)
                self.assertIn("by cost-centre stack (bands=", prof)
                got = [s for _, s in hp.samples]
                want = [s for _, s in plain.samples]
                self.assertEqual(len(got), len(want))
                for g, w in zip(got, want):
                    self.assertEqual(sum(g.values()), sum(w.get(n, 0) for n in names), (g, w))
                    self.assertLessEqual(set(g), {"make_void/main", "make_drag/main",
                                                  "make_used/main"})
                # The stacks: make_void's objects are VOID from their first
                # census; make_drag's DRAG once read; make_used's DRAG only
                # at the last census (read in every period).
                last = [s for s in got if s][-1]
                if "VOID" in names:
                    self.assertEqual(last["make_void/main"], void)
                    self.assertTrue(all(s.get("make_void/main") == void for s in got if s))
                if "DRAG" in names:
                    self.assertEqual((last["make_drag/main"], last["make_used/main"]),
                                     (drag, used))
                    self.assertEqual(sum(1 for s in got if "make_used/main" in s), 1)
                else:
                    self.assertNotIn("make_drag/main", last)
        r = self.run_prog("ldv_cross", heapprof="ldv,bands=lag")
        self.assertEqual(r.rc, 2)
        self.assertIn("bands is drag, void or drag+void", r.stderr)

    def test_precise_is_exact(self):
        got, prof = self.truth_run("precise")
        self.assertEqual(got, expected_bands())
        self.assertIn("policy precise", prof)
        self.assertRegex(prof, r"Top cost-centre stacks by DRAG[^\n]*\n[^\n]*\n\s+[\d.]+\s+100\.0%\s+create/main")
        # Stacks that print the same are one row, as in the table above.
        for which in ("DRAG", "VOID"):
            block = prof.split("Top cost-centre stacks by " + which)[1].split("\n\n")[0]
            names = [l.split()[-1] for l in block.splitlines()[2:] if l.strip()]
            self.assertEqual(len(names), len(set(names)), block)
            self.assertEqual(names, ["create/main"], block)

    def uncertain(self, prof):
        """{band: (byte-seconds, uncertain byte-seconds)} from the .prof."""
        out = {}
        for band, total, unsure in re.findall(
                r"^  (DRAG|VOID) byte-seconds ([\d.]+), uncertain ([\d.]+) \(", prof, re.M):
            out[band] = (float(total), float(unsure))
        self.assertEqual(set(out), {"DRAG", "VOID"}, prof[-800:])
        return out

    def test_settled_pages_left_open_inside_a_period(self):
        """A collection inside a period (no census) leaves open the pages
        whose objects are all used already in the period, and no first use
        is lost: ldv_settled (every object used in its period, held to
        exit) is all DRAG at the exit census; its 16-page object, read
        again after the second collection, costs no fault then (64 + 64
        small objects, one fault each, and 16 for the big one's first
        read: 144; protected again, as before this rule, 160). One fault
        per access: without bursts, which would see several uses a fault
        (test_bursts_keep_precise_exact)."""
        for policy in ("precise", "adaptive"):
            with self.subTest(policy=policy):
                r, hp, prof = self.profile("ldv_settled",
                                           heapprof="ldv,interval=1000,burst=off,ldv=" + policy)
                nbytes = out_table(r.stdout)["bytes"][0]
                last = hp.samples[-2][1]   # (the last sample is the empty bookend)
                self.assertEqual(last, {"DRAG": nbytes}, hp.text)
                self.assertTrue(all("VOID" not in s for _, s in hp.samples), hp.text)
                # passes 2 and 3 each leave big and early[64] open
                self.assertEqual(prof_field(prof, "objects a pass left open, used this period"),
                                 "130")
                self.assertEqual(prof_field(prof, "faults"), "144")

    def test_adaptive_is_exact_here(self):
        # The default: on this program its fruitless-fault limit is never reached.
        got, prof = self.truth_run("adaptive")
        self.assertEqual(got, expected_bands())
        self.assertIn("policy adaptive, repeat=8", prof)

    def pattern_bands(self, pattern, policy):
        """The censuses of ldv_patterns PATTERN under a policy ("" = the
        default), as [{band: bytes}], with the .prof."""
        opts = "ldv,interval=0" + (",ldv=" + policy if policy else "")
        r, hp, prof = self.profile(["ldv_patterns", pattern], heapprof=opts)
        self.assertIn("done 1", r.stdout)
        return [s for _, s in hp.samples[1:-1]], prof

    def test_default_policy_matches_precise(self):
        # Issue "ldv truthful by default": on each access pattern of
        # ldv_patterns (a structure left alone then walked once, touching
        # each node twice in address order; a list walked by pointer
        # chasing; hash-table lookups that re-read chain heads; objects
        # read once in the period after their birth; objects read and
        # replaced by turns, so that the allocator works on the pages the
        # program reads), the default policy puts at least 95% of each
        # band's byte-censuses in that band, as precise mode does, census
        # by census.
        for pattern in ("tree", "list", "hash", "young", "churn"):
            with self.subTest(pattern=pattern):
                exact, _ = self.pattern_bands(pattern, "precise")
                got, prof = self.pattern_bands(pattern, "")
                self.assertEqual(len(got), len(exact))
                used = 0
                for band in BANDS:
                    want = sum(s.get(band, 0) for s in exact)
                    same = sum(min(a.get(band, 0), b.get(band, 0)) for a, b in zip(got, exact))
                    if band != "VOID":
                        used += want
                    if want:
                        self.assertGreaterEqual(same / want, 0.95, (band, got, exact))
                self.assertGreater(used, 0, exact)   # the pattern's uses were seen
                # The same census totals: a policy moves bytes between
                # bands, never changes what is live.
                self.assertEqual([sum(s.values()) for s in got],
                                 [sum(s.values()) for s in exact])
        # Where the old rule (a page left open at its first fault without a
        # new use) gets the walked tree wrong: page re-arming shows most of
        # it VOID (the pattern's test would fail on it).
        exact, _ = self.pattern_bands("tree", "precise")
        page, _ = self.pattern_bands("tree", "page")
        self.assertLess(sum(s.get("LAG", 0) for s in page),
                        0.5 * sum(s.get("LAG", 0) for s in exact))

    def test_lookups_fault_no_more_than_precise(self):
        # ldv_patterns hash re-reads chain heads already used this period.
        # Within the budget the default policy bursts after such a fault
        # as precise mode does (the page stays protected on credit, and
        # the lookup's next accesses there are performed in the handler,
        # not faulted one by one): no more faults than precise's. Bursts
        # after new uses only, it took 16,071 faults against precise's
        # 3,002 (2026-11-29).
        _, exact = self.pattern_bands("hash", "precise")
        _, default = self.pattern_bands("hash", "")
        precise_faults = int(prof_field(exact, "faults"))
        self.assertGreater(precise_faults, 1000, exact)
        self.assertLessEqual(int(prof_field(default, "faults")), 1.25 * precise_faults, default)
        self.assertEqual(prof_field(default, "past the budget first at (s)"), "never", default)

    def test_faults_that_teach_nothing_open_the_page(self):
        # ldv/hp_ldv_trap_sigsafe.c, Note [Faults that teach nothing]:
        # ldv_patterns churn replaces one object of two it reads, so the
        # collector takes free objects off lists on the pages it protects
        # and the program sets them. Under the default policy each such
        # fault (the collector's, or on memory no indexed object holds)
        # opens its page at once: no second one there; and the bands are
        # what the rule before gave (the page opened where the allocator
        # works, not where the program reads). With the rule off (each
        # such fault re-armed until the page's credit ran out), 1,122
        # collector faults and 217 on new objects where it takes 125 and
        # 0, the bands the same (2026-11-29). Such a page is protected
        # again once the thread opens another so (Note [The allocator moves
        # on]): the allocator has moved on, and the program's later reads
        # there are seen (test_default_policy_matches_precise's churn).
        _, prof = self.pattern_bands("churn", "")
        alien = int(prof_field(prof, "collector faults")) + \
            int(prof_field(prof, "faults on objects made since the pass, or free memory"))
        opened = int(prof_field(prof, "pages left open at a fault that could teach nothing"))
        rearmed = int(prof_field(prof, "protected again once the allocator worked elsewhere"))
        self.assertGreater(opened, 20, prof)
        self.assertEqual(opened, alien, prof)
        self.assertGreater(rearmed, opened // 2, prof)
        self.assertLess(rearmed, opened, prof)
        paid = int(prof_field(prof, "whose next fault found a use"))
        wasted = int(prof_field(prof, "whose next fault could teach nothing"))
        self.assertGreater(paid, wasted, prof)
        # Where protecting again does not pay (ldv_patterns fronts: the
        # allocator works on two pages by turns, and no old object is
        # read), it stops: the recent waste halves at each of the 7
        # passes and may exceed twice what paid by 16 before it stops.
        _, prof = self.pattern_bands("fronts", "")
        self.assertEqual(prof_field(prof, "whose next fault found a use"), "0", prof)
        self.assertGreater(int(prof_field(prof, "collector faults")), 500, prof)
        self.assertLessEqual(
            int(prof_field(prof, "protected again once the allocator worked elsewhere")),
            16 + 7 * 10, prof)
        self.assertEqual(prof_field(prof, "past the budget first at (s)"), "never", prof)

    def test_default_policy_matches_precise_on_trees(self):
        # Issue "ldv truthful by default": examples/trees.c at depth 14 (a
        # depth of the guide), a census at every collection: the default
        # policy puts at least 95% of each band's byte-censuses in that
        # band, as precise mode does, census by census. Its USE band is
        # the upper nodes of the long-lived tree, each written (its right
        # child) after its left subtree was built across a collection;
        # before young objects' first writes earned a fault of credit, the
        # second write found the page's credit spent and left it open,
        # and 19 of 45 such nodes stayed LAG (USE 57.8%).
        # Precise mode itself is not the same from run to run here (one
        # run in eight moves a young tree between VOID and LAG: 4% of the
        # small VOID band): the default must match one of two of its runs.
        # Both run with the address space laid out the same each time
        # (setarch -R): with it randomised, about one run in six of either
        # policy had another heap layout and another collection schedule
        # (USE 128,032 byte-censuses instead of 115,392), and an adaptive
        # run of that kind against a precise run of the other failed the
        # VOID bound (76.5%) in 2 of 4 full-suite runs, the session-26
        # build as well; with -R, 16 adaptive runs of 16 gave one profile.
        trees = os.path.join(hptest.BUILD, "examples", "trees")
        setarch = shutil.which("setarch")
        fixed = [setarch, platform.machine(), "-R"] if setarch else []

        def bands(policy):
            r, hp, prof = self.profile(fixed + [trees, "14"], stem="trees",
                                       heapprof="ldv,interval=0,ldv=" + policy)
            return [smp for _, smp in hp.samples[1:-1]]

        got = bands("adaptive")
        tried = []
        for attempt in range(4):
            exact = bands("precise")
            if len(exact) != len(got):   # (another number of collections)
                got = bands("adaptive")
                continue
            self.assertGreater(sum(smp.get("USE", 0) for smp in exact), 0)
            tried.append(band_shares(got, exact))
            if min(tried[-1].values()) >= 0.95 or len(tried) == 2:
                break
        self.assertTrue(tried)
        self.assertTrue(any(min(t.values()) >= 0.95 for t in tried), tried)

    def test_floor_in_faults_on_a_slow_machine(self):
        # Note [A floor in faults] (ldv/hp_ldv_prot_sigsafe.c): a short
        # program is watched on the budget's floor alone, so what it is
        # told must not depend on what a fault costs. bench/ldv_precision.c
        # (random reads of 20,000 objects over 12 periods: 26,000 faults
        # under the default policy, in 0.04 s of its own time) is run here
        # as is, and under strace, which stops at every signal (with
        # --seccomp-bpf and no call traced, at signals only): each fault
        # then costs about three times what it does alone. The default
        # policy puts at least 95% of each band's byte-censuses in precise
        # mode's band in both, and the slow run's floor is larger, in
        # proportion to what its faults cost. The floor in seconds alone
        # (faults=0: as before the note) fails the bound there: the check
        # can fail.
        strace = shutil.which("strace")
        self.assertIsNotNone(strace, "strace is missing: scripts/install-deps.sh --test")
        # (the library preloaded into the traced program, not into strace)
        slow = [strace, "-f", "--seccomp-bpf", "-qq", "-o", os.devnull, "-e", "trace=none",
                "-E", "LD_PRELOAD=" + hptest.LIB]

        def bands(opts, wrap=()):
            r, hp, prof = self.profile(list(wrap) + [hptest.prog("ldv_precision")],
                                       stem="ldv_precision", preload=not wrap,
                                       heapprof="ldv,interval=0" + opts)
            return [smp for _, smp in hp.samples[1:-1]], prof

        def shares(got, exact):
            # (The same censuses; their totals may differ by an object
            # now and then, as the collector's own allocations fall.)
            self.assertEqual(len(got), len(exact))
            return band_shares(got, exact)

        exact, _ = bands(",ldv=precise")
        floors = []
        for wrap in ((), slow):
            got, prof = bands("", wrap)
            for band, share in shares(got, exact).items():
                self.assertGreaterEqual(share, 0.95, (band, bool(wrap), prof[-3000:]))
            floor = int(re.search(r"of it the floor \(ms\) +(\d+)", prof).group(1))
            kernel = int(prof_field(prof, "a fault in the kernel (ns, measured)"))
            floors.append((floor, kernel))
        (fast_floor, fast_kernel), (slow_floor, slow_kernel) = floors
        self.assertGreater(slow_kernel, 2 * fast_kernel, floors)   # strace did slow them
        self.assertGreater(slow_floor, 2 * fast_floor, floors)
        got, prof = bands(",faults=0", slow)
        self.assertLess(min(shares(got, exact).values()), 0.95, prof[-3000:])

    def test_window_watches_reads_soon_after_making(self):
        # Issue "ldv truthful by default" (reads in an object's creation
        # period): tests/progs/ldv_window.c reads each of 3,000 objects once,
        # 200 objects (16,000 bytes of allocation) after making it, and
        # keeps them all; its only census is at exit. Every read falls in
        # its object's creation period, before any collection: unwatched,
        # so all 240,000 bytes are VOID at exit. With window=4K a collection
        # comes after every 4 KB allocated, and its protect pass watches
        # what was made before it: the reads are seen, the objects DRAG
        # (but the last ones, read after the last collection: at most
        # 4 KB's worth asked for, 64 objects). The program's output is the
        # same.
        want = 3000 * hptest.granted(64)
        plain = hptest.run(self, [hptest.prog("ldv_window")], preload=False)
        for policy in ("precise", "adaptive"):
            with self.subTest(policy=policy):
                runs = {}
                for window in ("", ",window=4K"):
                    r, hp, prof = self.profile(
                        "ldv_window", heapprof="ldv,interval=10,ldv=" + policy + window)
                    self.assertEqual(r.stdout, plain.stdout)
                    last = [smp for _, smp in hp.samples if smp][-1]
                    runs[window] = (last, prof)
                last, prof = runs[""]
                self.assertEqual(last, {"VOID": want}, last)
                self.assertNotIn("window collections", prof)
                # (and the .prof says what is not watched, and how to measure it)
                self.assertIn("(not watched: reads of an object between its making and the "
                              "next collection", prof)
                last, prof = runs[",window=4K"]
                self.assertEqual(sum(last.values()), want, last)
                # (the window counts bytes asked for: 64 objects of 64)
                tail = (4096 // 64 + 1) * hptest.granted(64)
                self.assertLessEqual(last.get("VOID", 0), tail, last)
                self.assertGreaterEqual(last.get("DRAG", 0), want - tail, last)
                self.assertNotIn("(not watched:", prof)
                m = re.search(r"^  window collections +(\d+) \(window=4096", prof, re.M)
                self.assertIsNotNone(m, prof[-2000:])
                # (3,000 objects asking 64 bytes each)
                self.assertGreaterEqual(int(m.group(1)), 3000 * 64 // 4096 - 1)

    def test_the_long_lived_tree_at_the_bench_depth(self):
        # Issue "ldv truthful by default": examples/trees.c at depth 18
        # (the benches' depth) under the default policy. Its long-lived
        # tree (2^19 - 1 nodes, 16 MB) is built first and walked once at
        # the end: LAG until then (precise: 98% of all byte-seconds LAG).
        # The walk comes after 3 s of young trees, whose walks right after
        # a collection spend fault-handler time; with a budget of a tenth
        # of the program's time the budget was spent before the walk ended
        # and the tree showed as VOID (LAG 0-68% of the byte-seconds).
        # On a slower or busier machine the walk's faults can still spend
        # the budget before it ends (a run of 5-6 s of program time here,
        # one run in three alone, more beside other tests): the tree is
        # then VOID, and the profile must say that this VOID is uncertain
        # (it does: 80-98% of VOID in such runs). So: LAG is right, or
        # the budget was spent and what is not LAG is marked uncertain.
        # "Right" is 85% of all byte-seconds: the young trees' own VOID and
        # DRAG (read only in their creation period, which is not watched)
        # move with the collections' timing -- LAG 90.7-97.5% of the total
        # in three runs alone (2026-11-28), 89.7% once beside other tests,
        # with the budget never spent -- while the bug this guards against
        # left 0-68% LAG.
        trees = os.path.join(hptest.BUILD, "examples", "trees")
        r, hp, prof = self.profile([trees, "18"], heapprof="ldv")
        # The index is updated from pass to pass, not built whole, as the
        # heap grows below itself (ldv/hp_ldv_internal.h, Note [Eight-byte
        # entries]): an update lowers the index's origin. When an addition
        # below the origin meant a whole build, 11 of 124 passes here were
        # whole, against the first pass alone.
        whole = re.search(r"^  index built whole \(passes\) +(\d+)$", prof, re.M)
        passes = re.search(r"^  protect passes +(\d+)$", prof, re.M)
        self.assertIsNotNone(whole, prof[-1500:])
        self.assertIsNotNone(passes, prof[-1500:])
        # (A pass past the budget rests: it updates the index too, and
        # protects nothing; Note [Resting past the budget].)
        rested = re.search(r"^  periods rested past the budget +(\d+)$", prof, re.M)
        self.assertIsNotNone(rested, prof[-1500:])
        self.assertGreater(int(passes.group(1)) + int(rested.group(1)), 40, prof[-1500:])
        self.assertLessEqual(int(whole.group(1)), 2, prof[-1500:])
        secs, unsure = {}, {}
        for band in ("LAG", "DRAG", "VOID"):
            m = re.search(r"^  %s byte-seconds ([\d.]+), uncertain ([\d.]+)" % band, prof, re.M)
            self.assertIsNotNone(m, prof[-1500:])
            secs[band], unsure[band] = float(m.group(1)), float(m.group(2))
        tree = (2 ** 19 - 1) * hptest.granted(24)
        total = sum(secs.values())
        if secs["LAG"] > tree * 1.0 and secs["LAG"] / total >= 0.85:   # (the run is over 2 s)
            return
        past = re.search(r"^  past the budget first at \(s\) +([\d.]+)$", prof, re.M)
        self.assertIsNotNone(past, "LAG wrong with the budget never spent: %s" % secs)
        told = secs["LAG"] + unsure["VOID"] + unsure["DRAG"]
        self.assertGreater(told, tree * 1.0, (secs, unsure))
        self.assertGreaterEqual(told / total, 0.85, (secs, unsure))

    def test_bursts_keep_precise_exact(self):
        # ldv/hp_ldv_burst_sigsafe.c: after a fault, the next instructions
        # are emulated and their accesses to protected pages are uses. Under
        # ldv=precise that must change no band, census by census, on each
        # pattern, against the same policy with one fault per access
        # (burst=off) -- and must take fewer faults: that is its point.
        for pattern in ("tree", "list", "hash", "young"):
            with self.subTest(pattern=pattern):
                on, prof_on = self.pattern_bands(pattern, "precise")
                off, prof_off = self.pattern_bands(pattern, "precise,burst=off")
                self.assertEqual(on, off)
                self.assertEqual(prof_field(prof_off, "bursts (emulated on after a fault)"), "0")
                self.assertGreater(int(prof_field(prof_on, "bursts (emulated on after a fault)")), 0)
                if pattern in ("tree", "list"):   # walks: most faults were the walk's next node
                    self.assertLess(int(prof_field(prof_on, "faults")),
                                    int(prof_field(prof_off, "faults")) / 2, (prof_on, prof_off))

    def test_two_threads_sharing_pages(self):
        # ldv_patterns threads: every object is read in period 2, by one
        # thread or the other (no VOID in truth). With two threads running
        # the handler still performs a faulting load through /proc/self/mem
        # (serialised with every opening of a heap page: hp_ldv_peek_sigsafe.c),
        # and the .prof counts those; where it opens a page for one
        # instruction instead, the other thread's first uses there meanwhile
        # are not seen: under every policy, each VOID byte the profile shows
        # must be one it calls uncertain.
        for policy in ("precise", ""):
            with self.subTest(policy=policy or "default"):
                got, prof = self.pattern_bands("threads", policy)
                live = [sum(s.values()) for s in got]
                self.assertTrue(any(live), got)
                unc = self.uncertain(prof)
                void, void_unsure = unc["VOID"]
                self.assertAlmostEqual(void, void_unsure, delta=0.002, msg=prof[-1500:])
                self.assertGreaterEqual(
                    int(prof_field(prof, "of them while other threads ran")), 1000, prof[-2500:])
                self.assertGreaterEqual(
                    int(prof_field(prof, "emulated without opening the page")),
                    int(prof_field(prof, "of them while other threads ran")))
                # The bytes are all there, as LAG before the reads and DRAG
                # (or uncertain VOID) after them.
                self.assertEqual(sum(s.get("USE", 0) for s in got), 0, got)

    def test_threads_share_words_through_the_kernel(self):
        # ldv_torn: a writer thread and a reader share 64-bit words on
        # protected pages; faulting loads and stores are performed through
        # /proc/self/mem while both threads run. The program's output is
        # its plain run's (no torn read, every store seen), and the .prof
        # shows the faults were taken so, not by opening pages.
        plain = subprocess.run([hptest.prog("ldv_torn")], capture_output=True, text=True)
        self.assertEqual(plain.stdout, "torn 0 rounds 60 last 60\n")
        for policy in ("precise", ""):
            with self.subTest(policy=policy or "default"):
                opts = "ldv,interval=0" + (",ldv=" + policy if policy else "")
                r, _, prof = self.profile("ldv_torn", heapprof=opts)
                self.assertEqual(r.stdout, plain.stdout)
                shared = int(prof_field(prof, "of them while other threads ran"))
                self.assertGreaterEqual(shared, 1000, prof[-2500:])
                self.assertGreater(shared, 100 * int(prof_field(
                    prof, "opened for one instruction while other threads ran")))

    def test_uncertain_drag_and_void(self):
        # Issue "ldv truthful by default": the .prof says how much of DRAG
        # and VOID comes from objects on pages left open for the rest of a
        # period before they were seen used (a use there may be missed).
        # ldv_stress reads 4-to-a-page objects at random, and makes no
        # system call on a heap buffer: under precise nothing is uncertain;
        # under page (every page stays open after its first fault) most
        # VOID is (not on pages no read touched); adaptive with repeat=1
        # (the default before 2026-11-29) lies between. (The default,
        # repeat=8, leaves no page open here before its objects are seen.)
        got, warned, lags, profs = {}, {}, {}, {}
        for policy in ("precise", "adaptive", "page"):
            r, hp, prof = self.profile(["ldv_stress", "8"],
                                       heapprof="ldv,interval=0,ldv=" + policy +
                                       (",repeat=1" if policy == "adaptive" else ""))
            got[policy] = self.uncertain(prof)
            m = re.search(r"^Uncertain LAG \(.*\n  LAG byte-seconds ([\d.]+), uncertain ([\d.]+) \(",
                          prof, re.M)
            self.assertIsNotNone(m, prof[-800:])
            lags[policy] = (float(m.group(1)), float(m.group(2)))
            profs[policy] = prof
            warned[policy] = [l for l in r.stderr.splitlines() if "are uncertain" in l]
            # The exit says so when a tenth or more is uncertain (the .hp
            # alone shows it as fact), with the share the .prof gives, why,
            # and what sees more; the .prof repeats it.
            (dt, du), (vt, vu) = got[policy]["DRAG"], got[policy]["VOID"]
            share = 100 * (du + vu) / (dt + vt)
            if share < 10:
                self.assertEqual(warned[policy], [], policy)
                continue
            self.assertEqual(len(warned[policy]), 1, (policy, r.stderr))
            line = warned[policy][0]
            self.assertTrue(line.startswith("heapprof: warning: "), line)
            said = float(line.split("warning: ")[1].split("%")[0])
            self.assertAlmostEqual(said, share, delta=0.11)
            self.assertIn(line[len("heapprof: "):], prof)
            if policy == "page":
                self.assertIn("ldv=page leaves a page open", line)
        self.assertEqual(warned["precise"], [])
        self.assertNotEqual(warned["page"], [])
        for band in ("DRAG", "VOID"):
            self.assertGreater(got["precise"][band][0], 0, band)
            self.assertEqual(got["precise"][band][1], 0.0, band)
            for policy in ("adaptive", "page"):
                total, unsure = got[policy][band]
                self.assertLessEqual(unsure, total, (policy, band))
        share = {p: got[p]["VOID"][1] / got[p]["VOID"][0] for p in ("adaptive", "page")}
        self.assertGreater(share["adaptive"], 0)
        self.assertGreater(share["page"], share["adaptive"])
        # LAG too: an object first seen used after a period in which its
        # page was left open before it was seen used may have been used
        # then (its LAG partly USE or DRAG). None under precise; some under
        # page, whose pages stay open after one fault a period.
        for policy, (total, unsure) in lags.items():
            self.assertGreater(total, 0, policy)
            self.assertLessEqual(unsure, total, policy)
        self.assertEqual(lags["precise"][1], 0.0)
        # (Seen 0 once, in a full run of the suite on a loaded machine; not
        # again in 10 reruns, nor under two CPU hogs: the .prof's ldv part
        # goes with the failure, to tell why.)
        self.assertGreater(lags["page"][1], 0.0, profs["page"].split("Lag, drag, void, use")[-1])

    def assert_excess_uncertain(self, got, exact, prof):
        """Census by census, the VOID and DRAG bytes of `got` beyond
        precise mode's (`exact`: uses it missed), weighted by the period
        each census ends as the .prof weighs them, are more than nothing
        and at most the .prof's uncertain byte-seconds."""
        unc = self.uncertain(prof)
        excess = 0.0
        for k in range(1, len(got)):
            dt = got[k][0] - got[k - 1][0]
            for band in ("VOID", "DRAG"):
                excess += max(0, got[k][1].get(band, 0) - exact[k][1].get(band, 0)) * dt
        unsure = unc["VOID"][1] + unc["DRAG"][1]
        self.assertGreater(excess, 0)
        self.assertLessEqual(excess, unsure * 1.001 + 0.001, (excess, unc))

    def test_past_the_budget_groups_are_uncertain(self):
        # Past the budget (budget=0: from the start), a fault that finds no
        # new use opens its page's aligned group of 16 pages for the rest
        # of the period, not the page alone (Guile's 400,000-entry hash
        # table: 4.7 s -> 3.0 s). Whatever that hides must be counted
        # uncertain: census by census, the VOID and DRAG bytes this run
        # shows beyond ldv=precise's (uses it missed), weighted by the
        # period each census ends as the .prof weighs them, are at most
        # its uncertain byte-seconds.
        runs = {}
        for policy in ("ldv=precise", "budget=0"):
            r, hp, prof = self.profile(["ldv_stress", "8"], heapprof="ldv,interval=0," + policy)
            runs[policy] = (hp.samples, prof)
        exact, _ = runs["ldv=precise"]
        got, prof = runs["budget=0"]
        self.assertGreater(int(prof_field(prof, "with their group of 16 (64 KiB)")), 0,
                           prof[-2500:])
        self.assertEqual(len(got), len(exact))
        self.assert_excess_uncertain(got, exact, prof)   # (the groups did hide uses)

    def test_rested_periods_are_uncertain(self):
        # Past the budget, counting every cost of watching (the passes and
        # what the machine charges after them as well as the handlers), a
        # pass protects nothing: the period rests (ldv/hp_ldv_prot.c, Note
        # [Resting past the budget]). With no floor and almost no budget,
        # every pass after the first rests, so the walk of the tree left
        # alone is never seen: what precise mode calls LAG and DRAG shows
        # as VOID here, and all of it must be counted uncertain, census by
        # census as in the test above; the live bytes are precise's.
        runs = {}
        for policy in ("ldv=precise", "budget=0.001,floor=0,faults=0"):
            r, hp, prof = self.profile(["ldv_patterns", "tree"],
                                       heapprof="ldv,interval=0," + policy)
            self.assertIn("done 1", r.stdout)
            runs[policy] = (hp.samples, prof, r.stderr)
        exact, _, _ = runs["ldv=precise"]
        got, prof, err = runs["budget=0.001,floor=0,faults=0"]
        self.assertEqual(int(prof_field(prof, "protect passes")), 1, prof[-2500:])
        self.assertGreaterEqual(int(prof_field(prof, "periods rested past the budget")), 1)
        self.assertIn("periods not watched at all", err)
        self.assertEqual(len(got), len(exact))
        self.assertEqual([sum(smp.values()) for _, smp in got],
                         [sum(smp.values()) for _, smp in exact])
        self.assertGreater(sum(smp.get("LAG", 0) for _, smp in exact), 0)
        self.assertEqual(sum(smp.get("LAG", 0) + smp.get("USE", 0) for _, smp in got), 0)
        self.assert_excess_uncertain(got, exact, prof)

    def test_page_only_misses_uses(self):
        got, prof = self.truth_run("page")
        want = expected_bands()
        for t in want:
            with self.subTest(census=t):
                self.assertEqual(sum(got[t].values()), sum(want[t].values()))
                used = lambda s: s.get("USE", 0) + s.get("DRAG", 0)
                self.assertLessEqual(used(got[t]), used(want[t]))
                # S is given to write(2): the wrapper sees it whatever the page.
                if t >= 5:
                    self.assertGreaterEqual(used(got[t]), 60 * SZ)

    def test_system_calls_and_stdio(self):
        self.system_calls("ldv_sys", "adaptive")

    def test_system_calls_fortified_precise(self):
        # Built as distributions build (-O2 -D_FORTIFY_SOURCE=2: stdio through
        # __printf_chk; the GC buffers' sizes are unknown to the compiler, so
        # read and recv stay plain), under precise re-arming, which leaves no
        # page open behind a fault.
        self.system_calls("ldv_sys_fortify", "precise")

    def system_calls(self, name, policy):
        r, hp, prof = self.profile([name, "io"], heapprof="ldv,interval=0,ldv=" + policy,
                                   stem=name)
        fails = [l for l in r.stdout.splitlines() if l.startswith("fail")]
        self.assertEqual(fails, [])
        oks = [l.split()[1] for l in r.stdout.splitlines() if l.startswith("ok ")]
        for name in ("write_ret", "write_errno_kept", "read_data", "readv_data", "recv_data",
                     "sock_data", "pread_data", "fread_data", "stderr_ok"):
            self.assertIn(name, oks)
        self.assertEqual(r.stdout.count("a GC string printed through stdio"), 2)
        self.assertIn("a GC string printed through stdio", r.stderr)
        self.assertGreater(int(prof_field(prof, "system-call buffer uses")), 0)
        self.assertEqual(prof_field(prof, "EFAULT retries"), "0")

    def test_emulation_matches_the_cpu(self):
        # Each faulting load, store, compare or test is performed by the
        # handler (no single-step trap); ldv_emul runs every case on a
        # malloc() buffer too and compares registers, flags and memory.
        # The forms it declines (SSE, lock, AH, add/xchg to memory) are
        # single-stepped, with the same results.
        for policy in ("precise", "adaptive"):
            with self.subTest(policy=policy):
                r, hp, prof = self.profile("ldv_emul", heapprof="ldv,interval=0,ldv=" + policy)
                self.assertIn("mismatches 0", r.stdout)
                self.assertNotIn("fail", r.stdout)
                out = out_table(r.stdout)
                emulable, declined = out["cases"][1], out["cases"][2]
                self.assertEqual((emulable, declined), (552, 40))
                if policy == "precise":
                    # Every case's access faults: the emulable ones (and
                    # more: the program's own reads of its objects) are
                    # performed, the declined ones stepped.
                    self.assertGreaterEqual(int(prof_field(prof, "re-armed, emulated")), emulable)
                    self.assertGreaterEqual(int(prof_field(prof, "re-armed, single-stepped")),
                                            declined)
                    # One thread: every emulation went through /proc/self/mem.
                    self.assertEqual(prof_field(prof, "emulated without opening the page"),
                                     prof_field(prof, "re-armed, emulated"))
                    # ... and its identity was checked at the protect
                    # passes, not at each fault: nothing the program did
                    # could change it (ldv/hp_ldv_peek_sigsafe.c, Note
                    # [Trusting the descriptor]).
                    self.assertLessEqual(
                        int(prof_field(prof, "the descriptor's identity checked")),
                        int(prof_field(prof, "protect passes")) + 2)

    def test_dispatch_is_profiler_time(self):
        # Each system call the program makes while pages are protected is
        # dispatched (a SIGSYS, about 2 us): that is heapprof's time, not
        # the program's. Counted as the program's, GNU poke's ten million
        # calls made its run time read 25 s (3 s unprofiled) and stretched
        # its census interval. The handler's time and the kernel's part
        # (measured at the first protect pass) are profiler time; the
        # call's own is the program's. 200,000 getppid calls: the loop's
        # wall time is nearly all dispatch, the run time a small part.
        r, hp, prof = self.profile(["ldv_sys", "calls", "200000"], heapprof="ldv")
        loop = float(re.search(r"^loop ([\d.]+)$", r.stdout, re.M).group(1))
        run = float(re.search(r"run time\s+([\d.]+) s", prof).group(1))
        self.assertLess(run, 0.6 * loop, (run, loop))
        kernel = int(prof_field(prof, "a dispatched call in the kernel (ns, measured)"))
        spent = int(prof_field(prof, "dispatch, profiler time (ms)"))
        self.assertGreaterEqual(int(prof_field(prof, "system calls dispatched")), 200000)
        self.assertGreater(kernel, 0)
        # At least the kernel's part of each call is counted.
        self.assertGreaterEqual(spent, 200000 * kernel / 1e6 * 0.9, prof)
        self.assertIn("system-call dispatch)", prof)

    def test_buffers_open_once_a_period(self):
        # A page opened for a system call's buffer stays open until the
        # next collection: later calls there do not open it again. They
        # did: every call counted one more opening against the map-entry
        # budget, and past it each opened the whole run again (flags and
        # page tables of every page), so 40,000 reads into 64 objects made
        # hundreds of coarse opens and bench_syscalls' loop ran 4.2x its
        # plain time (now 2.1x).
        r, hp, prof = self.profile(["ldv_sys", "reads", "40000"], heapprof="ldv,interval=0")
        self.assertIn("read 2560000", r.stdout)
        self.assertEqual(int(prof_field(prof, "coarse opens (budget)")), 0, prof[-3000:])
        self.assertEqual(int(prof_field(prof, "map calls failed near the limit")), 0)

    def test_program_sigsegv_handler(self):
        r, hp, prof = self.profile(["ldv_sys", "handler"], heapprof="ldv,interval=0")
        fails = [l for l in r.stdout.splitlines() if l.startswith("fail")]
        self.assertEqual(fails, [])
        self.assertIn("ok caught_signal", r.stdout)
        signed = lambda v: v - 256 if v > 127 else v   # the objects hold chars
        self.assertEqual(out_table(r.stdout)["sum"],
                         (50 * signed(ord("x") + 10) + 100 * signed(ord("x") + 20),))
        # heapprof kept seeing uses around the program's own faults.
        self.assertGreaterEqual(int(prof_field(prof, "uses recorded")), 100)
        self.assertGreater(hp.last().get("DRAG", 0), 0)

    def test_null_dereference_still_crashes(self):
        r = self.run_prog(["ldv_sys", "crash"], heapprof="ldv,interval=0")
        self.assertEqual(r.rc, -signal.SIGSEGV, r.stderr)
        self.assertIn("read f", r.stdout)

    def test_incremental_refused(self):
        r = self.run_prog("ldv_truth", heapprof="ldv", env={"GC_ENABLE_INCREMENTAL": "1"})
        self.assertEqual(r.rc, 2)
        self.assertIn("GC_ENABLE_INCREMENTAL", r.stderr)
        self.assertFalse(os.path.exists(r.hp_path))

    def test_sigterm_completes_the_profile(self):
        # The bands are known only at death: SIGTERM writes them all first.
        import subprocess
        import time
        loop = os.path.join(hptest.BUILD, "tests", "behaviour", "bh_loop")
        d = self.run_dir = __import__("tempfile").mkdtemp(prefix="hptest-")
        self._run_dirs.append(d)
        env = dict(os.environ, LD_PRELOAD=hptest.LIB, HEAPPROF="ldv,interval=0.05")
        p = subprocess.Popen([loop, "5"], cwd=d, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.stdout.readline(), "started\n")
        time.sleep(1.0)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, -signal.SIGTERM, err)
        hp = self.check_hp(os.path.join(d, "bh_loop.hp"))
        self.assert_bookends(hp)
        self.assertGreaterEqual(len(hp.nonempty()), 3)
        for _, bands in hp.nonempty():
            self.assertTrue(set(bands) <= set(BANDS), bands)
        with open(os.path.join(d, "bh_loop.prof")) as f:
            self.assertIn("Lag, drag, void, use", f.read())

    def test_map_entry_budget(self):
        # Page re-arming: every page a read opens stays open and costs map
        # entries; 300 MB read at ~75000 random places would pass
        # vm.max_map_count (65530) without the budget.
        r, hp, prof = self.profile(["ldv_stress", "300"], heapprof="ldv,ldv=page", timeout=300)
        out = out_table(r.stdout)
        self.assertEqual(out["sum"][0], out["sum"][1])
        self.assertEqual(out["maps"], (2000,))
        self.assertGreater(int(prof_field(prof, "coarse opens (budget)")), 0)
        self.assertIn("precision degraded", prof)
        self.assertGreater(hp.last().get("DRAG", 0) + hp.last().get("USE", 0), 0)


if __name__ == "__main__":
    hptest.main()
