"""Abnormal ends: what a program that does not finish leaves behind.

Mode ldv writes its .hp samples at the end (an object's lag, drag, void or
use is known only when it dies), so a program killed by SIGKILL, or ending
by abort(), _exit() or a crash of its own, used to leave a .hp with only the
header. heapprof now keeps PROG.partial.hp beside it (a checkpoint, renamed
over after each census with checkpoint=0): the biography as if the program
had ended at its last census. ldv_truth (tests/progs/ldv_truth.c) knows its
biography by construction: the partial profile of a run stopped after its
4th collection must be exactly the truth for a run of 4 collections, and
the first censuses of a normal run that exits right there.

Modes cc and retainer write a sample per census: the .hp left by each
abnormal end must hold every census taken and be valid for hp2ps.
"""
import os
import signal
import subprocess
import tempfile
import shutil

import hptest
from hptest import out_table
from test_ldv import expected_bands

STOP = 4          # the program ends right after its 4th collection
LDV = "ldv,interval=0,ldv=precise,checkpoint=0"
ENDS = {"kill": -signal.SIGKILL, "abort": -signal.SIGABRT, "_exit": 3,
        "segv": -signal.SIGSEGV}


class AbnormalEnd(hptest.ProfileTest):

    def end_run(self, how, heapprof, before=None):
        """Run ldv_truth STOP HOW in a new directory (where `before` may
        plant files first); SIGKILL it once it says it stopped."""
        d = tempfile.mkdtemp(prefix="hptest-")
        self.addCleanup(shutil.rmtree, d, True)
        self._run_dirs.append(d)
        if before:
            before(d)
        env = dict(os.environ, LD_PRELOAD=hptest.LIB, HEAPPROF=heapprof)
        p = subprocess.Popen([hptest.prog("ldv_truth"), str(STOP), how], cwd=d, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out = ""
        if how == "kill":
            while not out.endswith("stopped %d\n" % STOP):
                line = p.stdout.readline()
                self.assertTrue(line, out)
                out += line
            p.kill()
        rest, err = p.communicate(timeout=120)
        out += rest
        self.assertEqual(p.returncode, ENDS[how], err)
        return out, err, d

    def normal_samples(self):
        """The samples of a normal run that exits after its STOP-th
        collection, up to that census (the exit census left out)."""
        r, hp, _ = self.profile(["ldv_truth", str(STOP), "exit"], heapprof=LDV)
        self.assertFalse(os.path.exists(os.path.join(r.cwd, "ldv_truth.partial.hp")),
                         "a whole profile leaves no checkpoint behind")
        self.assertFalse(os.path.exists(os.path.join(r.cwd, "ldv_truth.partial.hp.tmp")))
        base = out_table(r.stdout)["base"][0]
        samples = [s for _, s in hp.samples[1:-1]]
        self.assertEqual(len(samples), base + STOP + 1, hp.text)   # and the exit census
        return base, samples[:base + STOP]

    def recovered(self, how):
        out, err, d = self.end_run(how, LDV)
        base = out_table(out)["base"][0]
        partial = os.path.join(d, "ldv_truth.partial.hp")
        self.assertTrue(os.path.exists(partial), f"no {partial}; stderr:\n{err}")
        self.assertFalse(os.path.exists(partial + ".tmp"))
        hp = self.check_hp(partial)                     # the strict format, and hp2ps
        self.assertIn(" (partial profile: as if the program had ended at census %d, "
                      % (base + STOP), hp.header["JOB"])
        self.assertEqual(hp.samples[0], (0.0, {}))
        samples = [s for _, s in hp.samples[1:]]
        self.assertEqual(len(samples), base + STOP, hp.text)
        got = {t: samples[base + t - 1] for t in range(1, STOP + 1)}
        self.assertEqual(got, expected_bands(STOP))
        nbase, normal = self.normal_samples()
        self.assertEqual(nbase, base)
        self.assertEqual(samples, normal)
        # PROG.hp itself is left as it was: the header, valid for hp2ps.
        self.check_hp(os.path.join(d, "ldv_truth.hp"))

    def test_ldv_sigkill(self):
        self.recovered("kill")

    def test_ldv_abort(self):
        self.recovered("abort")

    def test_ldv_exit_without_atexit(self):
        self.recovered("_exit")

    def test_ldv_own_crash(self):
        self.recovered("segv")

    def test_report_says_partial(self):
        # heapprof report on the PROG.hp left without samples draws the
        # partial profile instead, and says what it is.
        import sys
        _, _, d = self.end_run("abort", LDV)
        r = subprocess.run([sys.executable, os.path.join(hptest.SRC, "scripts", "heapprof"),
                            "report", "ldv_truth.hp"], cwd=d, capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("ldv_truth.hp has no samples: the program did not finish", r.stderr)
        self.assertIn("ldv_truth.partial.hp is a recovered, partial profile", r.stderr)
        self.assertIn("as if it had ended at census", r.stderr)
        with open(os.path.join(d, "ldv_truth.html")) as f:
            self.assertIn("recovered, partial profile", f.read())

    def test_ldv_default_checkpoints(self):
        # Without checkpoint=: one at the first census at least (then at most
        # every second); checkpoint=off: none.
        _, _, d = self.end_run("_exit", "ldv,interval=0")
        hp = self.check_hp(os.path.join(d, "ldv_truth.partial.hp"))
        self.assertIn("(partial profile: as if the program had ended at census",
                      hp.header["JOB"])
        _, _, d = self.end_run("_exit", "ldv,interval=0,checkpoint=off")
        self.assertFalse(os.path.exists(os.path.join(d, "ldv_truth.partial.hp")))

    def test_stale_checkpoint_removed(self):
        # A checkpoint left by an earlier run that did not finish is removed
        # when a new run creates its .hp (before its own first checkpoint).
        def plant(d):
            with open(os.path.join(d, "ldv_truth.partial.hp"), "w") as f:
                f.write("stale\n")
        _, _, d = self.end_run("_exit", "cc,interval=0", before=plant)
        self.assertFalse(os.path.exists(os.path.join(d, "ldv_truth.partial.hp")))

    def every_census_kept(self, mode):
        for how in ENDS:
            with self.subTest(mode=mode, end=how):
                out, err, d = self.end_run(how, mode + ",interval=0")
                base = out_table(out)["base"][0]
                hp = self.check_hp(os.path.join(d, "ldv_truth.hp"))
                self.assertEqual(hp.samples[0], (0.0, {}))
                # One sample per census, the last with the program's objects
                # (no closing sample: the program did not finish).
                self.assertEqual(len(hp.samples), 1 + base + STOP, hp.text)
                self.assertEqual(sum(hp.samples[-1][1].values()),
                                 sum(sum(b.values()) for b in [expected_bands(STOP)[STOP]]))
                self.assertFalse(os.path.exists(os.path.join(d, "ldv_truth.partial.hp")))

    def test_cc_keeps_every_census(self):
        self.every_census_kept("cc")

    def test_retainer_keeps_every_census(self):
        self.every_census_kept("retainer")


if __name__ == "__main__":
    hptest.main()
