"""Integration test: the biography crossed with retainer sets, in one run
(HEAPPROF=retainer,bands=..., launcher -hr -hbdrag,void).

tests/progs/drag_held.c builds a heap whose bands and holders are known by
construction: make_entry's objects are held by `held`, read once after
census 1 and never again (DRAG from census 2 on), and half of them pass to
`held2` after census 3; make_unused's objects, held by `never`, are never
read (VOID); make_hot's, held by `hot`, are read in every period (DRAG only
at the census at exit). The program prints each group's granted bytes, so
every band is checked to the byte.

GHC answers "who holds the dragged memory" with two runs: -hc -hbdrag,void
(which stacks), then -hr -hc<stack> (who retains them). One run here must
name both, and agree with those two runs made with heapprof.
"""
import os
import re
import sys
import unittest

import hptest

PROG = "drag_held"


# libgc's own static data is a root: the hint its mmap keeps (last_addr in
# GC_unix_mmap_get_mem, the end of its latest mapping) is the start of the
# mapping before when the kernel places them downwards, so the first object
# of a heap section may be retained by gc:data too, in some runs and not
# others (ASLR). One entry of 80 bytes is the most that can so add it here.
GC_STRAY_MAX = 80


def bands(hp, fold_gc_data=True):
    """Each census's bands with the set number cut: [{name: bytes}]; for
    drag_held's (fold_gc_data), gc:data taken out of each set and the sets
    so merged summed: it may hold GC_STRAY_MAX bytes at a census, and never
    alone."""
    out = []
    for _, s in hp.nonempty():
        got, stray = {}, 0
        for k, v in s.items():
            members = [m for m in re.sub(r"^\(\d+\)", "", k).split(",")
                       if m != "gc:data" or not fold_gc_data]
            if len(members) < len(k.split(",")):
                stray += v
            assert members and stray <= GC_STRAY_MAX, (k, v, s)
            name = ",".join(members)
            got[name] = got.get(name, 0) + v
        out.append(got)
    return out


class BiographyByRetainer(hptest.ProfileTest):
    def sizes(self, r):
        self.assertEqual(r.rc, 0, r.stderr)
        words = r.stdout.split()
        got = dict(zip(words[0::2], map(int, words[1::2])))
        self.assertEqual(sorted(got), ["held", "held2", "hot", "never"], r.stdout)
        return got

    def one_run(self, extra=""):
        r = self.run_prog(PROG, heapprof="retainer,bands=drag+void,interval=0" + extra)
        g = self.sizes(r)
        hp = hptest.check_hp_format(self, r.hp_path)
        return r, g, hp

    def test_bands_by_set_to_the_byte(self):
        r, g, hp = self.one_run(",ldv=precise")
        entries = g["held"] + g["held2"]
        # Program censuses 1-6 (the first census, before any allocation,
        # has no band).
        want = [{"never": g["never"]}]
        want += [{"held": entries, "never": g["never"]}] * 2
        want += [{"held": g["held"], "held2": g["held2"], "never": g["never"]}] * 2
        want += [{"held": g["held"], "held2": g["held2"], "never": g["never"],
                  "hot": g["hot"]}]
        self.assertEqual(bands(hp), want)
        prof = r.prof()
        self.assertIn("by retainer set (mode retainer, bands=", prof)
        self.assertIn("RETAINER SETS", prof)
        self.assertRegex(prof, r"retainer-set history: 16 bytes per record")

    def test_prof_names_holder_and_stack(self):
        r, g, hp = self.one_run(",ldv=precise")
        prof = r.prof()
        drag = prof.split("Top retainer sets and cost-centre stacks by DRAG")[1].split("\n\n")[0]
        void = prof.split("Top retainer sets and cost-centre stacks by VOID")[1].split("\n\n")[0]
        rows = {}
        for line in drag.splitlines()[2:]:
            bs, share, label, stack = line.split(None, 3)
            # (a stale pointer in libgc's own frames or static data may add
            # gc:frames or gc:data to a set in some runs -- doc/retainers.md,
            # limitations: dropped, as test_retainer.py does; neither may
            # hold bytes alone)
            members = [m for m in re.sub(r"^\(\d+\)", "", label).split(",")
                       if m not in ("gc:frames", "gc:data")]
            self.assertTrue(members, line)
            key = (",".join(members), stack)
            rows[key] = rows.get(key, 0) + float(bs)
        self.assertEqual(set(rows), {("held", "make_entry/main"), ("held2", "make_entry/main"),
                                     ("hot", "make_hot/main")}, drag)
        vrows = [l.split(None, 3) for l in void.splitlines()[2:]]
        self.assertEqual({(",".join(m for m in re.sub(r"^\(\d+\)", "", v[2]).split(",")
                                    if m not in ("gc:frames", "gc:data")), v[3]) for v in vrows},
                         {("never", "make_unused/main")}, void)
        # The rows of one stack add up to the stack's own DRAG row.
        by_stack = prof.split("Top cost-centre stacks by DRAG")[1].split("\n\n")[0]
        m = re.search(r"^\s+([\d.]+)\s+[\d.]+%\s+make_entry/main$", by_stack, re.M)
        self.assertIsNotNone(m, by_stack)
        self.assertAlmostEqual(rows[("held", "make_entry/main")] +
                               rows[("held2", "make_entry/main")], float(m.group(1)), delta=0.0025)

    def test_matches_the_two_ghc_style_runs(self):
        r, g, one = self.one_run(",ldv=precise")
        one = bands(one)
        # Run 1, GHC's -hc -hbdrag,void: which stacks hold DRAG and VOID.
        r1 = self.run_prog(PROG, heapprof="ldv,bands=drag+void,ldv=precise,interval=0")
        self.sizes(r1)
        by_stack = [s for _, s in hptest.check_hp_format(self, r1.hp_path).nonempty()]
        self.assertEqual(len(by_stack), len(one))
        for s, o in zip(by_stack, one):
            self.assertEqual(s.get("make_entry/main", 0), o.get("held", 0) + o.get("held2", 0))
            self.assertEqual(s.get("make_unused/main", 0), o.get("never", 0))
            self.assertEqual(s.get("make_hot/main", 0), o.get("hot", 0))
        # Run 2, GHC's -hr -hc<stack>: who retains make_entry's objects.
        r2 = self.run_prog(PROG, heapprof="retainer,ccs=make_entry,interval=0")
        self.sizes(r2)
        held_by = set()
        for s in bands(hptest.check_hp_format(self, r2.hp_path)):
            held_by |= set(s)
        self.assertEqual(held_by, {"held", "held2"})
        self.assertEqual({k for o in one for k in o} - {"never", "hot"}, held_by)

    def test_default_policy(self):
        # The default policy (adaptive) agrees with the truth on this heap
        # to 95% of each band's byte-censuses, totals equal.
        r, g, hp = self.one_run()
        got = bands(hp)
        _, _, exact = self.one_run(",ldv=precise")
        want = bands(exact)
        self.assertEqual(len(got), len(want))
        for name in ("held", "held2", "never", "hot"):
            total = sum(w.get(name, 0) for w in want)
            same = sum(min(a.get(name, 0), w.get(name, 0)) for a, w in zip(got, want))
            self.assertGreaterEqual(same * 100, total * 95, (name, got, want))
        self.assertIn("policy adaptive", r.prof())

    def test_checkpoint_after_sigkill(self):
        # Killed after census 5: PROG.partial.hp (checkpoint=0: after every
        # census) is the profile as if the program had ended at census 5:
        # the normal run's bands for censuses 1-5, except that hot's
        # objects, whose last use came before census 5, die there in DRAG.
        r = self.run_prog([PROG, "kill"],
                          heapprof="retainer,bands=drag+void,ldv=precise,interval=0,checkpoint=0")
        self.assertEqual(r.rc, -9, r.stderr)
        words = r.stdout.split()
        g = dict(zip(words[0::2], map(int, words[1::2])))
        partial = os.path.join(r.cwd, PROG + ".partial.hp")
        hp = hptest.check_hp_format(self, partial)
        self.assertIn("(partial profile: as if the program had ended at census ", hp.header["JOB"])
        want = [{"never": g["never"]}]
        want += [{"held": g["held"] + g["held2"], "never": g["never"]}] * 2
        want += [{"held": g["held"], "held2": g["held2"], "never": g["never"]}]
        want += [{"held": g["held"], "held2": g["held2"], "never": g["never"], "hot": g["hot"]}]
        self.assertEqual(bands(hp), want)
        # The same by stack (ldv,bands=, -hc -hbdrag,void).
        r = self.run_prog([PROG, "kill"],
                          heapprof="ldv,bands=drag+void,ldv=precise,interval=0,checkpoint=0")
        self.assertEqual(r.rc, -9, r.stderr)
        hp = hptest.check_hp_format(self, os.path.join(r.cwd, PROG + ".partial.hp"))
        names = {"held": "make_entry/main", "held2": "make_entry/main",
                 "never": "make_unused/main", "hot": "make_hot/main"}
        by_stack = []
        for w in want:
            s = {}
            for k, v in w.items():
                s[names[k]] = s.get(names[k], 0) + v
            by_stack.append(s)
        self.assertEqual(bands(hp), by_stack)

    def test_guide_leak_in_one_run(self):
        # doc/guide.md, "Finding a leak": one run of examples/leak with
        # -hr -hbdrag,void -i0 --dominators=yes. The log is never read:
        # its entries are VOID under session_log at every census, growing
        # to the whole log (8000 entries of 224 bytes, a few a little
        # more); the .prof's first VOID pair is session_log and
        # log_reply/main; RETAINED SIZES puts the newest entry first.
        leak = os.path.join(hptest.BUILD, "examples", "leak")
        r = hptest.run(self, [leak, "8000"],
                       heapprof="retainer,bands=drag+void,interval=0,dominators=yes")
        self.assertEqual(r.rc, 0, r.stderr)
        self.assertEqual(r.stdout, "8000 requests, 8000 replies kept\n")
        hp = hptest.check_hp_format(self, r.hp_path)
        # (the newest entry may be held by a stack too: its set is then
        # session_log with the stack)
        log = [sum(v for k, v in s.items() if "session_log" in k.split(","))
               for s in bands(hp, fold_gc_data=False)]
        self.assertGreater(len(log), 20)
        self.assertEqual(log, sorted(log))
        self.assertGreaterEqual(log[-1], 8000 * 224)
        self.assertLess(log[-1], 8000 * 224 + 8000 * 224 // 100)
        prof = r.prof()
        void = prof.split("Top retainer sets and cost-centre stacks by VOID")[1]
        first = void.splitlines()[2].split(None, 3)
        self.assertEqual((re.sub(r"^\(\d+\)", "", first[2]), first[3]),
                         ("session_log", "log_reply/main"))
        part = prof.split("\nRETAINED SIZES (dominators=yes", 1)[1]
        self.assertRegex(part, r"\n\s+\d+\s+\d+\s+224\s+1  log_reply/main; \(\d+\)session_log\n")

    def test_refusals(self):
        for heapprof, message in (
                ("retainer,bands=lag", "bands is drag, void or drag+void"),
                ("retainer,bands=drag,rset=held", "HEAPPROF option 'rset=' cannot be used "
                                                  "with bands="),
                ("cc,bands=drag", "HEAPPROF option 'bands=' needs mode ldv"),
                ("roots,bands=void", "HEAPPROF option 'bands=' needs mode ldv")):
            with self.subTest(heapprof=heapprof):
                r = self.run_prog(PROG, heapprof=heapprof)
                self.assertEqual(r.rc, 2, r.stderr)
                self.assertIn(message, r.stderr)


if __name__ == "__main__":
    sys.exit(unittest.main())
