"""The heapprof launcher (scripts/heapprof): GHC-style flags become the
HEAPPROF variable, the library goes first in LD_PRELOAD, and the program
replaces the launcher (exec), so its arguments, standard input, exit
status and signals are its own. Also: clear errors for unknown flags and
missing programs, and the note for programs that do not link libgc."""
import os
import re
import shlex
import signal
import stat
import unittest

import hptest
import tltest
from tltest import launch, clean_env, tprog


def dry_heapprof(testcase, flags, env=None):
    """The HEAPPROF value `heapprof -n FLAGS tl_gc` would run with."""
    r = launch(testcase, ["-n"] + flags + [tprog("tl_gc")], env=env)
    testcase.assertEqual(r.returncode, 0, r.stderr)
    words = shlex.split(r.stdout)
    testcase.assertEqual(words[0], "env")
    testcase.assertEqual(words[-1], tprog("tl_gc"))
    found = [w for w in words if w.startswith("HEAPPROF=")]
    testcase.assertEqual(len(found), 1, r.stdout)
    return found[0][len("HEAPPROF="):]


def program_env(stdout):
    """HEAPPROF, LD_PRELOAD, pid and argv printed by `tl_prog env`."""
    out = {"argv": re.findall(r"^argv\[\d+\]=\[(.*?)\]$", stdout, re.M | re.S)}
    for line in stdout.splitlines():
        if line.startswith(("HEAPPROF", "LD_PRELOAD")):
            name, eq, value = line.partition("=")
            out[name if eq else name.split()[0]] = value if eq else None
        elif line.startswith("pid "):
            out["pid"] = int(line.split()[1])
    return out


class Flags(unittest.TestCase):
    def setUp(self):
        tltest.check_env(self)

    def test_each_flag(self):
        cases = [
            ([], ""),
            (["-hc"], "cc"),
            (["-h"], "cc"),
            (["-hm"], "module"),
            (["-hy"], "kind"),
            (["-hT"], "kind,stacks=no"),
            (["-hr"], "retainer"),
            (["-hb"], "ldv"),
            (["-ho"], "roots"),
            (["-i0.5"], "interval=0.5"),
            (["-i0"], "interval=0"),
            (["-L40"], "length=40"),
            (["-R8"], "bound=8"),
            (["-d12"], "depth=12"),
            (["--depth=3"], "depth=3"),
            (["--depth", "3"], "depth=3"),
            (["--unwind=fp"], "unwind=fp"),
            (["--unwind", "libunwind"], "unwind=libunwind"),
            (["--interval=2"], "interval=2"),
            (["--length=60"], "length=60"),
            (["--report=full"], "report=full"),
            (["-o", "/tmp/run1"], "out=/tmp/run1"),
            (["-o/tmp/run1"], "out=/tmp/run1"),
            (["--out=/tmp/run1"], "out=/tmp/run1"),
            (["-hCmake"], "ccs=make"),
            (["-hr", "-hRg_cache"], "retainer,rset=g_cache"),
            (["-hMlibfoo.so.1"], "module=libfoo.so.1"),
            (["-hKatomic"], "kind=atomic"),
            # The mode first, then the keys in the order given.
            (["-i0.25", "-hr", "-R4", "-hCleaf", "-d16"],
             "retainer,interval=0.25,bound=4,ccs=leaf,depth=16"),
            (["-hc", "-i0", "-L60", "-d4", "--unwind", "fp", "-o", "out dir/x"],
             "cc,interval=0,length=60,depth=4,unwind=fp,out=out dir/x"),
            # The same mode twice is no conflict.
            (["-hc", "-h"], "cc"),
            # Options of one kind of profile; alone, they imply it.
            (["-hb", "--ldv=page", "--repeat", "4"], "ldv,ldv=page,repeat=4"),
            (["--ldv=precise"], "ldv,ldv=precise"),
            (["--repeat=16"], "ldv,repeat=16"),
            (["-hb", "--floor=0.1", "--faults", "0"], "ldv,floor=0.1,faults=0"),
            (["-hb", "--syscalls=wrappers", "--checkpoint=off"],
             "ldv,syscalls=wrappers,checkpoint=off"),
            (["-hr", "--walk=components"], "retainer,walk=components"),
            (["--walk=depth"], "retainer,walk=depth"),
            (["--helper=no"], "retainer,helper=no"),
            (["-hr", "--helper=yes"], "retainer,helper=yes"),
            (["--dominators=yes"], "retainer,dominators=yes"),
            (["--outputs=pprof+folded"], "outputs=pprof+folded"),
            # GHC's -hc -hb<bands>: the biography's bands by stack.
            (["-hc", "-hbdrag,void"], "ldv,bands=drag+void"),
            (["-hbvoid", "-hc"], "ldv,bands=void"),
            (["-hbdrag"], "ldv,bands=drag"),
            # GHC's -hr -hb<bands>: by retainer set, in one run; the
            # biography's own options apply.
            (["-hr", "-hbdrag,void"], "retainer,bands=drag+void"),
            (["-hbvoid", "-hr", "--ldv=precise"], "retainer,bands=void,ldv=precise"),
            (["-hr", "-hbdrag", "--walk=depth", "--repeat=4"],
             "retainer,bands=drag,walk=depth,repeat=4"),
            (["-hr", "--outputs=none"], "retainer,outputs=none"),
            (["--frames=call"], "frames=call"),
            (["-ho", "--noroot=retainers"], "roots,noroot=retainers"),
        ]
        for flags, want in cases:
            with self.subTest(flags=flags):
                self.assertEqual(dry_heapprof(self, flags), want)

    def test_existing_heapprof_is_kept_and_overridden(self):
        cases = [
            ("depth=3", [], "depth=3"),
            ("retainer,depth=3", ["-hc", "-d5"], "cc,depth=3,depth=5"),
            ("ldv,interval=1", ["-i0.5"], "ldv,interval=1,interval=0.5"),
            ("help", ["-hm"], "module,help"),
            ("", ["-hy"], "kind"),
        ]
        for base, flags, want in cases:
            with self.subTest(base=base, flags=flags):
                self.assertEqual(dry_heapprof(self, flags, env=clean_env(HEAPPROF=base)), want)

    def test_environment_reaches_the_program(self):
        # The empty library stands in for libheapprof.so, so any mode and
        # key (implemented by the library or not) reaches the program.
        args = ["-hr", "-R8", "-hCfoo", "-i0.5", tprog("tl_nogc"), "env", "a b", "",
                "  lead", "x'y\"z", "$HOME", "*", "tab\there", "new\nline"]
        r = launch(self, args, env=clean_env(HEAPPROF_LIB=tltest.dummy_lib()))
        self.assertEqual(r.returncode, 0, r.stderr)
        got = program_env(r.stdout)
        self.assertEqual(got["HEAPPROF"], "retainer,bound=8,ccs=foo,interval=0.5")
        self.assertEqual(got["LD_PRELOAD"], tltest.dummy_lib())
        self.assertEqual(got["argv"], [tprog("tl_nogc"), "env", "a b", "", "  lead", "x'y\"z",
                                       "$HOME", "*", "tab\there", "new\nline"])

    def test_ld_preload_prepended(self):
        other = "/lib/x86_64-linux-gnu/libm.so.6"
        self.assertTrue(os.path.exists(other), other)
        env = clean_env(HEAPPROF_LIB=tltest.dummy_lib(), LD_PRELOAD=other)
        r = launch(self, [tprog("tl_nogc"), "env"], env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(program_env(r.stdout)["LD_PRELOAD"], tltest.dummy_lib() + ":" + other)
        # Already there: not twice.
        env["LD_PRELOAD"] = other + " " + tltest.dummy_lib()
        r = launch(self, [tprog("tl_nogc"), "env"], env=env)
        self.assertEqual(program_env(r.stdout)["LD_PRELOAD"], tltest.dummy_lib() + ":" + other)

    def test_argv0_as_typed_and_path_search(self):
        # A program found in PATH keeps the name typed as argv[0], as in a shell.
        env = clean_env(HEAPPROF_LIB=tltest.dummy_lib(),
                        PATH=tltest.TOOLS + os.pathsep + os.environ.get("PATH", ""))
        r = launch(self, ["tl_nogc", "env", "x"], env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(program_env(r.stdout)["argv"], ["tl_nogc", "env", "x"])
        # `--` ends the flags: a program named like a flag or `report`.
        r = launch(self, ["-hc", "--", tprog("tl_nogc"), "env", "-hm"], env=env)
        self.assertEqual(program_env(r.stdout)["HEAPPROF"], "cc")
        self.assertEqual(program_env(r.stdout)["argv"][1:], ["env", "-hm"])

    def test_flags_after_the_program_are_its_own(self):
        env = clean_env(HEAPPROF_LIB=tltest.dummy_lib())
        r = launch(self, ["-hc", tprog("tl_nogc"), "env", "-hm", "-i9", "--help"], env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = program_env(r.stdout)
        self.assertEqual(got["HEAPPROF"], "cc")
        self.assertEqual(got["argv"][1:], ["env", "-hm", "-i9", "--help"])


class Errors(unittest.TestCase):
    def setUp(self):
        tltest.check_env(self)

    def refused(self, args, message):
        r = launch(self, args + [tprog("tl_gc"), "env"])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stdout, "", "the program must not run")
        first = r.stderr.splitlines()[0]
        self.assertEqual(first, "heapprof: " + message)
        self.assertIn("heapprof --help", r.stderr)

    def test_unknown_flags(self):
        self.refused(["-x"], "unknown flag '-x'")
        self.refused(["--bogus=1"], "unknown flag '--bogus=1'")
        self.refused(["-hq"], "unknown flag '-hq'; the kinds of heap profile are -hc, -hm, "
                              "-hy, -hT, -hr, -hb, -ho, and the filters -hC<name>, -hM<module>, "
                              "-hK<kind>, -hR<name>")

    def test_bad_values(self):
        self.refused(["-i"], "-i needs seconds attached (e.g. -i0.5)")
        self.refused(["-d"], "-d needs a depth attached (e.g. -d12)")
        self.refused(["-hC"], "-hC needs a name (e.g. -hCmake)")
        self.refused(["-L10,depth=2"], "-L: '10,depth=2' contains a ','; HEAPPROF separates "
                                       "its options with commas, so a value cannot hold one")
        self.refused(["-hc", "-hr"], "-hc and -hr both given; a run makes one kind of heap "
                                     "profile: choose one")
        # An option of another kind of profile would be ignored: refused.
        self.refused(["-hc", "--ldv=page"], "--ldv applies to -hb (ldv), not to -hc: drop one "
                                            "of them")
        self.refused(["-hr", "--noroot=yes"], "--noroot applies to -ho (roots), not to -hr: "
                                              "drop one of them")
        self.refused(["-ho", "-hbdrag"], "-ho and -hbdrag both given: the biography's bands "
                     "can be crossed with cost-centre stacks (-hc -hbdrag,void) or retainer "
                     "sets (-hr -hbdrag,void)")
        self.refused(["-hr", "-hbdrag", "-hc"], "-hr and -hc both given with -hb<bands>: the "
                     "bands are crossed with stacks (-hc) or with retainer sets (-hr); choose "
                     "one (the -hr run's .prof also names the stacks)")
        self.refused(["-hr", "--ldv=page"], "--ldv applies to -hb (ldv), not to -hr: drop one "
                                            "of them")
        self.refused(["-hc", "-hblag"], "-hblag: 'lag' cannot be crossed with stacks; "
                     "-hb<bands> takes drag, void or drag,void (the bands known when an object "
                     "dies), e.g. -hc -hbdrag,void")
        self.refused(["-ho", "--walk=depth"], "--walk applies to -hr (retainer), not to -ho: "
                                              "drop one of them")

    def test_missing_value_at_end(self):
        r = launch(self, ["--depth"])
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.splitlines()[0], "heapprof: --depth needs a value (e.g. --depth=12)")

    def test_no_program(self):
        r = launch(self, ["-hc"])
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.splitlines()[0], "heapprof: no program given")

    def test_missing_program(self):
        d = tltest.tempdir(self)
        r = launch(self, ["./no-such-program", "a"], cwd=d)
        self.assertEqual(r.returncode, 127)
        self.assertEqual(r.stderr, "heapprof: ./no-such-program: no such program\n")
        r = launch(self, ["no-such-program-xyz"], cwd=d)
        self.assertEqual(r.returncode, 127)
        self.assertEqual(r.stderr,
                         "heapprof: no-such-program-xyz: no such program (not found in PATH)\n")
        # A file in the working directory named without ./ (as a shell would not run it).
        with open(os.path.join(d, "here"), "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(os.path.join(d, "here"), 0o755)
        r = launch(self, ["here"], cwd=d)
        self.assertEqual(r.returncode, 127)
        self.assertIn("not found in PATH (to run the file in this directory, write ./here)",
                      r.stderr)

    def test_not_executable(self):
        d = tltest.tempdir(self)
        path = os.path.join(d, "data.txt")
        with open(path, "w") as f:
            f.write("x\n")
        r = launch(self, [path])
        self.assertEqual(r.returncode, 126)
        self.assertEqual(r.stderr, f"heapprof: {path}: permission denied (not executable)\n")
        r = launch(self, [d])
        self.assertEqual(r.returncode, 126)
        self.assertEqual(r.stderr, f"heapprof: {d}: is a directory, not a program\n")

    def test_library_not_found(self):
        r = launch(self, [tprog("tl_gc")], env=clean_env(HEAPPROF_LIB="/nonexistent/libheapprof.so"))
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "heapprof: HEAPPROF_LIB=/nonexistent/libheapprof.so does not "
                                   "exist; unset it, or point it at libheapprof.so\n")
        # The source checkout's launcher with no build directory to look in.
        r = launch(self, ["-n", tprog("tl_gc")],
                   env=clean_env(HEAPPROF_LIB=None, HEAPPROF_BUILD="/nonexistent"))
        self.assertEqual(r.returncode, 2)
        self.assertTrue(r.stderr.startswith("heapprof: cannot find libheapprof.so (tried "),
                        r.stderr)
        self.assertIn("set HEAPPROF_LIB=/path/libheapprof.so", r.stderr)

    def test_help_and_version(self):
        r = launch(self, ["--help"])
        self.assertEqual(r.returncode, 0)
        for flag in ("-hc", "-hm", "-hy", "-hT", "-hr", "-hb", "-ho", "-hC<name>", "-hM<module>",
                     "-hK<kind>", "-hR<name>", "-i<secs>", "-L<n>", "-R<n>", "-d<n>", "--depth=N",
                     "--unwind=fp|libunwind", "-o STEM", "heapprof report FILE.hp",
                     "--frames=function|call", "--ldv=adaptive", "--repeat=N", "--faults=N",
                     "--outputs=all|none|csv+pprof+folded", "heapprof diff OLD.hp NEW.hp"):
            self.assertIn(flag, r.stdout)
        # Every file a run writes.
        self.assertIn("PROGRAM.hp,\n", r.stdout)
        self.assertIn("PROGRAM.prof and PROGRAM.alloc.csv", r.stdout)
        self.assertEqual(r.stderr, "")
        r = launch(self, ["--help", "-x"])     # help first: it wins
        self.assertEqual(r.returncode, 0)
        r = launch(self, ["--version"])
        self.assertEqual((r.returncode, r.stdout), (0, "heapprof (source checkout)\n"))
        # The build tree's copy has the version substituted.
        r = launch(self, ["--version"], launcher=tltest.BUILD_LAUNCHER)
        self.assertRegex(r.stdout, r"^heapprof \d+\.\d+\.\d+\n$")


class Library(unittest.TestCase):
    """Where the launcher finds libheapprof.so."""

    def setUp(self):
        tltest.check_env(self)

    def preload_of(self, env, launcher=None):
        r = launch(self, ["-n", tprog("tl_gc")], env=env, launcher=launcher)
        self.assertEqual(r.returncode, 0, r.stderr)
        return [w for w in shlex.split(r.stdout) if w.startswith("LD_PRELOAD=")][0][11:]

    def test_heapprof_lib(self):
        self.assertEqual(self.preload_of(clean_env(HEAPPROF_LIB=tltest.dummy_lib())),
                         tltest.dummy_lib())

    def test_source_checkout_with_heapprof_build(self):
        env = clean_env(HEAPPROF_LIB=None, HEAPPROF_BUILD=hptest.BUILD)
        self.assertEqual(self.preload_of(env), os.path.join(hptest.BUILD, "libheapprof.so"))

    def test_build_tree_copy(self):
        # <builddir>/scripts/heapprof uses <builddir>/libheapprof.so.
        env = clean_env(HEAPPROF_LIB=None, HEAPPROF_BUILD=None)
        self.assertEqual(self.preload_of(env, launcher=tltest.BUILD_LAUNCHER),
                         os.path.join(hptest.BUILD, "libheapprof.so"))


class PassThrough(unittest.TestCase):
    """The program runs in the launcher's process, with the real library."""

    def setUp(self):
        tltest.check_env(self)

    def test_exit_status(self):
        for status in (0, 1, 7, 42, 255):
            with self.subTest(status=status):
                r = launch(self, [tprog("tl_gc"), "exit", str(status)])
                self.assertEqual(r.returncode, status, r.stderr)
                self.assertEqual(r.stdout, f"exiting with {status}\n")

    def test_stdin(self):
        text = "".join(f"line {i} with some text\n" for i in range(5000))
        r = launch(self, [tprog("tl_gc"), "cat"], stdin=text)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, text)

    def test_signal_raised_by_the_program(self):
        r = launch(self, [tprog("tl_gc"), "raise", str(int(signal.SIGUSR1))])
        self.assertEqual(r.returncode, -signal.SIGUSR1, r.stderr)

    def test_signals_sent_to_the_program(self):
        for sig in (signal.SIGTERM, signal.SIGINT):
            with self.subTest(sig=sig.name):
                d = tltest.tempdir(self)
                p = tltest.start(self, ["-hc", "-i0", tprog("tl_gc"), "wait"], cwd=d)
                line = p.stdout.readline()
                self.assertRegex(line, r"^ready \d+\n$")
                # exec: the process started is the program itself.
                self.assertEqual(int(line.split()[1]), p.pid)
                p.send_signal(sig)
                out, err = p.communicate(timeout=30)
                self.assertEqual(p.returncode, -sig, err)
                self.assertEqual(out, "")
                # heapprof finished the profile before the signal killed it.
                hp = hptest.check_hp_format(self, os.path.join(d, "tl_gc.hp"))
                self.assertEqual(hp.samples[-1][1], {})
                self.assertEqual(hp.last().get("alloc_some/gc_start/main"), 100 * 32)
                with open(os.path.join(d, "tl_gc.prof")) as f:
                    self.assertIn("the program was stopped by a signal", f.read())

    def test_signal_dispositions(self):
        # Python ignores SIGPIPE and SIGXFSZ; the program must get the
        # defaults back (else a program writing into a closed pipe would not
        # die of SIGPIPE). grep reads its own /proc/self/status here.
        env = clean_env(HEAPPROF_LIB=tltest.dummy_lib())
        r = launch(self, ["/bin/grep", "^SigIgn:", "/proc/self/status"], env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        ignored = int(r.stdout.split()[1], 16)
        for sig in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT, signal.SIGTERM):
            self.assertFalse(ignored & (1 << (sig - 1)), f"{sig.name} ignored: {r.stdout}")

    def test_profile_through_the_launcher(self):
        d = tltest.tempdir(self)
        os.mkdir(os.path.join(d, "out dir"))
        r = launch(self, ["-hc", "-i0", "-d8", "-o", "out dir/run", tprog("tl_gc"), "alloc"],
                   cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "allocated\n")
        self.assertEqual(tltest.notes(r.stderr), [])
        hp = hptest.check_hp_format(self, os.path.join(d, "out dir", "run.hp"))
        # 100 objects of GC_malloc(24), granted 32 bytes each, kept alive.
        self.assertEqual(hp.last(), {"alloc_some/gc_start/main": 3200})
        self.assertEqual(hp.header["JOB"], f'"{tprog("tl_gc")} alloc"')
        with open(os.path.join(d, "out dir", "run.prof")) as f:
            rows = hptest.prof_rows(f.read())
        self.assertEqual(rows["alloc_some/gc_start/main"][:2], (100, 3200))


class LibgcNote(unittest.TestCase):
    def setUp(self):
        tltest.check_env(self)

    def test_program_linking_libgc_gets_no_note(self):
        r = launch(self, ["-n", tprog("tl_gc")])
        self.assertEqual(tltest.notes(r.stderr), [])

    def test_program_without_libgc(self):
        r = launch(self, [tprog("tl_nogc"), "exit", "3"])
        self.assertEqual(r.returncode, 3)          # it still runs
        self.assertEqual(r.stdout, "exiting with 3\n")
        self.assertEqual(tltest.notes(r.stderr), [
            f"heapprof: note: {tprog('tl_nogc')} does not link libgc, so it may not use "
            "libgc (unless it loads it with dlopen); running it anyway"])

    def test_libgc_through_a_library(self):
        # libgccpp links libgc: a program linking only libgccpp uses libgc.
        # Checked on the launcher's ELF reader directly (no C++ compiler needed).
        import importlib.machinery
        import importlib.util
        loader = importlib.machinery.SourceFileLoader("hp_launcher", tltest.LAUNCHER)
        spec = importlib.util.spec_from_loader("hp_launcher", loader)
        mod = importlib.util.module_from_spec(spec)
        loader.exec_module(mod)
        self.assertEqual(mod.libgc_status(tprog("tl_gc")), "links")
        self.assertEqual(mod.libgc_status(tprog("tl_nogc")), "no-libgc")
        self.assertEqual(mod.Elf(tprog("tl_gc")).needed.count("libgc.so.1"), 1)
        gccpp = "/usr/lib/x86_64-linux-gnu/libgccpp.so.1"
        self.assertTrue(os.path.exists(gccpp), gccpp)
        self.assertEqual(mod.libgc_status(gccpp), "links")
        self.assertFalse(mod.Elf(tprog("tl_nogc")).defines("GC_malloc"))
        self.assertTrue(mod.Elf("/usr/lib/x86_64-linux-gnu/libgc.so.1").defines("GC_malloc"))

    def test_statically_linked_libgc(self):
        prog = tprog("tl_gcstatic")
        r = launch(self, [prog, "alloc"])
        self.assertEqual(r.returncode, 0, r.stderr)      # it still runs
        self.assertEqual(r.stdout, "allocated\n")
        self.assertEqual(tltest.notes(r.stderr), [
            f"heapprof: note: {prog} contains its own copy of libgc (linked statically): "
            "heapprof sees only calls into a shared libgc; expect no profile"])

    def test_statically_linked_program(self):
        # Debian's ldconfig is a static-pie program; a dry run does not run it.
        r = launch(self, ["-n", "/sbin/ldconfig"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(tltest.notes(r.stderr), [
            "heapprof: note: /sbin/ldconfig is statically linked: LD_PRELOAD cannot load "
            "heapprof into it; expect no profile"])

    def test_script(self):
        d = tltest.tempdir(self)
        path = os.path.join(d, "run.sh")
        with open(path, "w") as f:
            f.write("#!/bin/sh\necho script ran \"$@\"\nexit 5\n")
        os.chmod(path, 0o755)
        env = clean_env(HEAPPROF_LIB=tltest.dummy_lib())
        r = launch(self, [path, "x y"], env=env)
        self.assertEqual(r.returncode, 5)
        self.assertEqual(r.stdout, "script ran x y\n")
        self.assertEqual(tltest.notes(r.stderr), [
            f"heapprof: note: {path} is a script, so it may not use libgc: heapprof "
            "profiles the programs it runs that do"])


if __name__ == "__main__":
    unittest.main()
