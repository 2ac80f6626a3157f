"""Safety tests (issue "safe on any program"): a program profiled by
heapprof behaves as it does without it, keeps its data, and heapprof never
claims a profile it did not write. Each case runs the same program plainly
and under heapprof in every mode that takes censuses by collection (cc,
module, kind, retainer, roots), and compares stdout, exit status and the
program's own files byte for byte; then checks the profile is valid
(hp2ps reads it) or that stderr says why it is not, and that the exit line
claims only what was written.
"""
import os
import re
import shutil
import stat
import subprocess
import tempfile
import unittest

import hptest

SAFETY = os.environ.get("HEAPPROF_SAFETY", "")
MODES = ("cc", "module", "kind", "retainer", "roots")


def sprog(name):
    return os.path.join(SAFETY, name)


def run_in(d, argv, heapprof=None, timeout=120, wrap=None):
    e = dict(os.environ)
    e.pop("HEAPPROF", None)
    e.pop("LD_PRELOAD", None)
    if heapprof is not None:
        e["LD_PRELOAD"] = hptest.LIB
        e["HEAPPROF"] = heapprof
    cmd = (wrap or []) + argv
    return subprocess.run(cmd, cwd=d, env=e, capture_output=True, text=True, timeout=timeout)


class Safe(unittest.TestCase):

    def tmp(self):
        d = tempfile.mkdtemp(prefix="hpsafe-")
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def same_as_plain(self, name, modes=MODES, extra=""):
        """Run sprog(name) plainly and in each mode; return {mode: (run, dir)}."""
        d0 = self.tmp()
        plain = run_in(d0, [sprog(name)])
        runs = {}
        for m in modes:
            d = self.tmp()
            r = run_in(d, [sprog(name)], heapprof=m + ",interval=0" + extra)
            self.assertEqual((r.returncode, r.stdout), (plain.returncode, plain.stdout),
                             "%s under HEAPPROF=%s: stderr %s" % (name, m, r.stderr))
            runs[m] = (r, d)
        return plain, runs

    def assert_profile(self, r, d, stem):
        hp = os.path.join(d, stem + ".hp")
        self.assertIn("heapprof: wrote %s.hp" % stem, r.stderr)
        hptest.check_hp_format(self, hp)
        self.assertTrue(os.path.getsize(os.path.join(d, stem + ".prof")) > 0)
        self.assertTrue(os.path.getsize(os.path.join(d, stem + ".alloc.csv")) > 0)

    # 1. The last census runs no finalizer and no program callback.
    def test_exit_runs_no_finalizer_after_the_programs_teardown(self):
        plain, runs = self.same_as_plain("sf_atexit_finalizers")
        self.assertEqual(plain.returncode, 0)
        self.assertNotIn("finalized\n", plain.stdout)
        for m, (r, d) in runs.items():
            self.assert_profile(r, d, "sf_atexit_finalizers")

    # 1b. Nor the collector code the program gave it (a start callback here;
    #     a runtime's mark procedures): no collection then at exit.
    def test_exit_runs_no_program_collector_code_after_teardown(self):
        plain, runs = self.same_as_plain("sf_startcb")
        self.assertEqual(plain.returncode, 0)
        for m, (r, d) in runs.items():
            self.assert_profile(r, d, "sf_startcb")
            prof = open(os.path.join(d, "sf_startcb.prof")).read()
            self.assertIn("(the program gave the collector code of its own", prof)

    # 2. A collector shut down with GC_deinit is not started again.
    def test_exit_after_gc_deinit(self):
        plain, runs = self.same_as_plain("sf_deinit")
        self.assertEqual(plain.returncode, 0)
        for m, (r, d) in runs.items():
            self.assert_profile(r, d, "sf_deinit")
            prof = open(os.path.join(d, "sf_deinit.prof")).read()
            self.assertIn("(the collector was shut down (GC_deinit) before exit: the last "
                          "census counts every object not found dead by an earlier "
                          "collection)", prof)

    # 3. heapprof keeps no descriptor of its own in the program's way, and
    #    never writes into one the program opened.
    def test_descriptors_closed_and_reused_by_the_program(self):
        for unwind in ("fp", "libunwind"):
            plain, runs = self.same_as_plain("sf_fds", modes=("cc",), extra=",unwind=" + unwind)
            self.assertIn("after open: 3\n", plain.stdout)
            self.assertIn("data.txt: 40 lines, 0 not the program's", plain.stdout)
            r, d = runs["cc"]
            self.assert_profile(r, d, "sf_fds")
            # A census at each of the 40 GC_gcollect calls at least, none lost.
            self.assertGreaterEqual(len(hptest.HpFile(os.path.join(d, "sf_fds.hp")).nonempty()), 41)

    # 4. A write that fails (a full disk) is reported; a profile that could
    #    not be completed is not claimed, and the .hp is never left cut
    #    mid-line.
    def test_full_disk_is_reported_not_claimed(self):
        d = self.tmp()
        mnt = os.path.join(d, "small")
        os.mkdir(mnt)
        # 8 KiB, half of it taken: the .hp fills the rest during the run.
        script = ("mount -t tmpfs -o size=8k tmpfs %s && cd %s && "
                  "head -c 4096 /dev/zero > fill && exec %s" % (mnt, mnt, sprog("sf_alloc")))
        plain = run_in(d, ["unshare", "-rm", "sh", "-c", script])
        self.assertEqual(plain.returncode, 0, plain.stderr)
        r = run_in(d, ["unshare", "-rm", "sh", "-c",
                       script + "; echo; ls -l; cat sf_alloc.hp | tail -2"],
                   heapprof="cc,interval=0")
        # unshare's namespace is gone with it: look at what the run said.
        self.assertTrue(r.stdout.startswith(plain.stdout), r.stdout)
        self.assertNotIn("heapprof: wrote sf_alloc.hp", r.stderr)
        self.assertRegex(r.stderr, r"heapprof: cannot write .*sf_alloc\.\w+: No space left on device")
        self.assertIn("heapprof: no complete profile written for sf_alloc", r.stderr)

    def test_full_disk_leaves_a_readable_hp(self):
        # The same, with the file system kept: what is left must read.
        d = self.tmp()
        mnt = os.path.join(d, "small")
        os.mkdir(mnt)
        keep = os.path.join(d, "kept.hp")
        script = ("mount -t tmpfs -o size=8k tmpfs %s && cd %s && head -c 4096 /dev/zero > fill "
                  "&& %s; cp %s/sf_alloc.hp %s 2>/dev/null; true"
                  % (mnt, mnt, sprog("sf_alloc"), mnt, keep))
        run_in(d, ["unshare", "-rm", "sh", "-c", script], heapprof="cc,interval=0")
        if os.path.exists(keep) and os.path.getsize(keep) > 0:
            with open(keep) as f:
                text = f.read()
            self.assertTrue(text.endswith("\n"), "the .hp ends mid-line: %r" % text[-80:])
            lines = text.splitlines()
            self.assertTrue(lines[-1].startswith("END_SAMPLE ") or len(lines) == 4, lines[-3:])

    # 6. heapprof's own memory is mapped as it is used, not reserved up
    #    front: a program that limits its address space to 4 GiB allocates
    #    as it does alone (it got NULL from GC_malloc when heapprof had
    #    reserved 175 GB of addresses). ldv's policies share its memory;
    #    ldv=precise (3.5M single steps here, 160-170 s) is not run.
    def test_program_rlimit_as_is_respected(self):
        plain, runs = self.same_as_plain("sf_rlimit_as", modes=MODES + ("ldv",))
        self.assertEqual(plain.returncode, 0)
        self.assertIn("failed allocations: 0", plain.stdout)
        for m, (r, d) in runs.items():
            self.assertNotIn("Out of Memory", r.stderr, m)
            self.assert_profile(r, d, "sf_rlimit_as")

    #    A limit that fits the program's heap but not heapprof's records
    #    of it: the program's allocations all succeed as alone (791,168 of
    #    2,000,000 failed when heapprof took the room first); heapprof
    #    records what fits in half of what the program leaves, and says, in
    #    the .prof and at exit, how many objects it could not record.
    def test_tight_rlimit_as_program_first(self):
        plain, runs = self.same_as_plain("sf_rlimit_tight", modes=("cc", "ldv"))
        self.assertEqual(plain.returncode, 0)
        self.assertIn("failed allocations: 0", plain.stdout)
        for m, (r, d) in runs.items():
            self.assertNotIn("Out of Memory", r.stderr, m)
            self.assert_profile(r, d, "sf_rlimit_tight")
            said = re.search(r"heapprof: warning: (\d+) objects \((\d+) bytes\) were not "
                             r"recorded: heapprof had no memory left", r.stderr)
            self.assertIsNotNone(said, r.stderr[-600:])
            with open(os.path.join(d, "sf_rlimit_tight.prof")) as f:
                prof = f.read()
            self.assertIn("(warning: %s objects (%s bytes) were not recorded" % said.groups(), prof)
            allocated = int(re.search(r"allocated\s+(\d+) objects", prof).group(1))
            # every allocation is either in the profile or counted as lost
            self.assertEqual(allocated + int(said.group(1)), 2000001, m)

    # 7. Output never follows a planted link, opens a FIFO, or writes into a
    #    file another user owns.
    def test_planted_symlink_is_not_followed(self):
        d = self.tmp()
        victim = os.path.join(d, "victim.txt")
        with open(victim, "w") as f:
            f.write("precious\n")
        for ext in (".hp", ".prof", ".alloc.csv"):
            os.symlink(victim, os.path.join(d, "sf_alloc" + ext))
        plain = run_in(self.tmp(), [sprog("sf_alloc")])
        r = run_in(d, [sprog("sf_alloc")], heapprof="cc,interval=0")
        self.assertEqual((r.returncode, r.stdout), (plain.returncode, plain.stdout), r.stderr)
        with open(victim) as f:
            self.assertEqual(f.read(), "precious\n")
        self.assertNotIn("heapprof: wrote", r.stderr)
        self.assertRegex(r.stderr, r"heapprof: cannot write .*sf_alloc\.hp: .*(link|not a regular)")

    def test_planted_fifo_does_not_hang(self):
        d = self.tmp()
        os.mkfifo(os.path.join(d, "sf_alloc.hp"))
        plain = run_in(self.tmp(), [sprog("sf_alloc")])
        r = run_in(d, [sprog("sf_alloc")], heapprof="cc,interval=0", timeout=60)
        self.assertEqual((r.returncode, r.stdout), (plain.returncode, plain.stdout), r.stderr)
        self.assertNotIn("heapprof: wrote", r.stderr)
        self.assertRegex(r.stderr, r"heapprof: cannot write .*sf_alloc\.hp: .*not a regular file")

    def test_probe_file_name_taken_does_not_stop_the_program(self):
        d = self.tmp()
        # The probe name heapprof used to take (.heapprof-probe-PID) is
        # taken by a directory: the start-up check must not depend on it.
        plain = run_in(self.tmp(), [sprog("sf_alloc")])
        r = run_in(d, [sprog("sf_alloc")], heapprof="cc,interval=0",
                   wrap=["sh", "-c", 'mkdir ".heapprof-probe-$$" 2>/dev/null; exec "$0" "$@"'])
        self.assertEqual((r.returncode, r.stdout), (plain.returncode, plain.stdout), r.stderr)
        self.assert_profile(r, d, "sf_alloc")

    # 5 and 11. Processes the program starts inherit LD_PRELOAD: one that
    #    cannot write its profile runs unprofiled, and one that uses no
    #    libgc says nothing.
    def test_helpers_started_by_the_program(self):
        plain, runs = self.same_as_plain("sf_spawn")
        self.assertEqual(plain.stdout, "helper\nsystem returned 0, kept\n")
        for m, (r, d) in runs.items():
            self.assertNotIn("no bdwgc allocations", r.stderr)
            self.assertNotIn("cannot write", r.stderr)
            self.assert_profile(r, d, "sf_spawn")   # where the program began

    # 8. A program that forks and execs itself: two profiles, each whole.
    def test_self_exec_gets_a_profile_of_its_own(self):
        plain, runs = self.same_as_plain("sf_selfexec", modes=("cc", "retainer"))
        self.assertEqual(plain.stdout, "child done 1\nparent done 1\n")
        for m, (r, d) in runs.items():
            self.assert_profile(r, d, "sf_selfexec")
            others = [f for f in os.listdir(d) if f.endswith(".hp") and f != "sf_selfexec.hp"]
            self.assertEqual(len(others), 1, os.listdir(d))
            self.assertRegex(others[0], r"^sf_selfexec\.\d+\.hp$")
            hptest.check_hp_format(self, os.path.join(d, others[0]))
            self.assertTrue(os.path.exists(os.path.join(d, others[0][:-3] + ".prof")))
            job = hptest.HpFile(os.path.join(d, "sf_selfexec.hp")).header["JOB"]
            self.assertNotIn("child", job)

    # 11. A forked worker's profile is complete or absent.
    def test_forked_workers_profiles_complete_or_absent(self):
        plain, runs = self.same_as_plain("sf_forkworker", modes=("cc",))
        self.assertEqual(plain.stdout, "worker 0: 0\nworker 1: 0\n")
        r, d = runs["cc"]
        self.assert_profile(r, d, "sf_forkworker")
        hps = sorted(f for f in os.listdir(d) if f.endswith(".hp"))
        # The parent's and the worker that returned; none from the _exit one.
        self.assertEqual(len(hps), 2, os.listdir(d))
        for f in hps:
            hptest.check_hp_format(self, os.path.join(d, f))
            self.assertTrue(os.path.exists(os.path.join(d, f[:-3] + ".prof")), f)

    # 8. Two runs of one program in one directory at once: each writes a
    #    profile of its own, neither corrupts the other's.
    def test_two_runs_at_once_write_two_profiles(self):
        d = self.tmp()
        e = dict(os.environ)
        e.update(LD_PRELOAD=hptest.LIB, HEAPPROF="cc,interval=0")
        first = subprocess.Popen([sprog("sf_slow")], cwd=d, env=e, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        import time
        time.sleep(0.3)
        second = subprocess.Popen([sprog("sf_slow")], cwd=d, env=e, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        out2, err2 = second.communicate(timeout=60)
        out1, err1 = first.communicate(timeout=60)
        self.assertEqual((first.returncode, out1), (0, "done 1\n"), err1)
        self.assertEqual((second.returncode, out2), (0, "done 1\n"), err2)
        mine = "sf_slow.%d.hp" % second.pid
        self.assertIn("heapprof: sf_slow.hp is being written by another process still "
                      "running; this one writes %s" % mine, err2)
        self.assertIn("heapprof: wrote sf_slow.hp,", err1)
        self.assertIn("heapprof: wrote %s," % mine, err2)
        for f in ("sf_slow.hp", mine):
            hp = hptest.check_hp_format(self, os.path.join(d, f))
            self.assertEqual(len(hptest.HpFile(os.path.join(d, f)).header), 4)
        with open(os.path.join(d, "sf_slow.hp")) as f:
            self.assertEqual(f.read().count("JOB "), 1)

    # ldv (issue "ldv never breaks a program", point 3): a program's SIGSEGV
    # handler that leaves by longjmp does not leave SIGSEGV blocked.
    def test_ldv_program_probe_handler_leaving_by_longjmp(self):
        plain = run_in(self.tmp(), [sprog("sf_ldv_probe")])
        self.assertEqual(plain.stdout, "probes 0 0, sum 199990000\n")
        for policy in ("adaptive", "page", "precise"):
            d = self.tmp()
            r = run_in(d, [sprog("sf_ldv_probe")], heapprof="ldv,ldv=" + policy)
            self.assertEqual((r.returncode, r.stdout), (plain.returncode, plain.stdout),
                             "ldv=%s: %s" % (policy, r.stderr))
            self.assert_profile(r, d, "sf_ldv_probe")


if __name__ == "__main__":
    unittest.main()
