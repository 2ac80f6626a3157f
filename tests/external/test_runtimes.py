"""External test: language runtimes built on libgc (Debian's guile-3.0 and
ecl) run a hash-table workload (tests/external/runtimes/) under heapprof
in modes cc, module, kind and roots: the same output and exit status as
without heapprof, a profile hp2ps reads, and nothing on stderr but the
exit line. (Their speed under heapprof is measured by
bench/bench_runtimes.py, not here.)"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import hptest

HERE = os.path.dirname(os.path.abspath(__file__))
RUNTIMES = {
    "guile": ["guile", "--no-auto-compile", "-s", os.path.join(HERE, "runtimes", "hash.scm")],
    "ecl": ["ecl", "--norc", "--shell", os.path.join(HERE, "runtimes", "hash.lsp")],
}
MODES = ("cc", "module", "kind", "roots")


def run(argv, d, heapprof=None, extra_env=None):
    e = dict(os.environ)
    e.pop("HEAPPROF", None)
    e.pop("LD_PRELOAD", None)
    e["HP_N"] = "20000"
    e.update(extra_env or {})
    if heapprof:
        e["LD_PRELOAD"] = hptest.LIB
        e["HEAPPROF"] = heapprof
    return subprocess.run(argv, cwd=d, env=e, capture_output=True, text=True, timeout=300)


# Issue "retainers on real runtimes": under HEAPPROF=retainer, at every
# census with a traversal, at least 99% of the live bytes are
# attributed to a named retainer (ECL: 55% before tagged pointers and
# pushed heap roots were seen), and no root is named by a raw address.
def retainer_coverage(self, name, argv, env=None, files=None):
    """Run argv (in a directory holding tests/external/runtimes/ and
    `files`) under HEAPPROF=retainer,interval=0; check it exits 0, that at
    every census with a traversal at least 99% of live bytes are
    attributed, and that no root is named by address. Returns the run."""
    self.assertTrue(shutil.which(argv[0]), "%s is not installed" % argv[0])
    d = tempfile.mkdtemp(prefix="hprt-")
    self.addCleanup(shutil.rmtree, d, True)
    for f in os.listdir(os.path.join(HERE, "runtimes")):
        shutil.copy(os.path.join(HERE, "runtimes", f), d)
    for fname, text in (files or {}).items():
        with open(os.path.join(d, fname), "wb" if isinstance(text, bytes) else "w") as f:
            f.write(text)
    r = run(argv, d, heapprof="retainer,interval=0", extra_env=env)
    self.assertEqual(r.returncode, 0, r.stderr[-2000:])
    r.dir = d
    prof = open(os.path.join(d, argv[0] + ".prof")).read()
    section = prof.split("RETAINER CENSUSES")[1].split("traversal total")[0]
    traced = 0
    for line in section.splitlines():
        m = re.search(r"  (\d+) of (\d+) bytes", line)
        if not m or int(m.group(2)) == 0:
            continue
        got, live = int(m.group(1)), int(m.group(2))
        traced += 1
        self.assertGreaterEqual(got, 0.99 * live, "%s: %s" % (name, line[:200]))
    self.assertGreater(traced, 0, "%s: no census had a traversal" % name)
    # A census without a traversal says why (the exit census of a runtime
    # with mark procedures: heapprof runs none of its code after exit).
    for line in section.splitlines():
        if "no traversal (" in line:
            self.assertNotIn("no traversal (no collection could be run)", line, name)
    self.assertNotIn("roots@", prof)
    return r


class Runtimes(unittest.TestCase):

    def check(self, name):
        argv = RUNTIMES[name]
        self.assertTrue(shutil.which(argv[0]), "%s is not installed: scripts/install-deps.sh "
                        "--test installs it" % argv[0])
        d0 = tempfile.mkdtemp(prefix="hprt-")
        self.addCleanup(shutil.rmtree, d0, True)
        plain = run(argv, d0)
        self.assertEqual(plain.returncode, 0, plain.stderr)
        self.assertIn("entries 10000 sum 199990000", plain.stdout)
        for m in MODES:
            d = tempfile.mkdtemp(prefix="hprt-")
            self.addCleanup(shutil.rmtree, d, True)
            r = run(argv, d, heapprof=m)
            self.assertEqual((r.returncode, r.stdout), (plain.returncode, plain.stdout),
                             "%s under HEAPPROF=%s: %s" % (name, m, r.stderr))
            lines = [l for l in r.stderr.splitlines() if l.startswith("heapprof:")]
            self.assertTrue(lines[0].startswith("heapprof: wrote %s.hp" % argv[0]), r.stderr)
            # Then only what the names cannot tell (a stack ending in JIT
            # code, ...), as in the .prof.
            with open(os.path.join(d, argv[0] + ".prof")) as f:
                prof = f.read()
            for extra in lines[1:]:
                self.assertRegex(extra, r"^heapprof: (note|warning): ", r.stderr)
                self.assertIn("        (%s)\n" % extra[len("heapprof: "):], prof)
            hptest.check_hp_format(self, os.path.join(d, argv[0] + ".hp"))

    def test_guile(self):
        self.check("guile")

    def test_ecl(self):
        self.check("ecl")

    def test_guile_retainer_coverage(self):
        retainer_coverage(self, "guile", RUNTIMES["guile"])

    def test_ecl_retainer_coverage(self):
        retainer_coverage(self, "ecl", ["ecl", "--norc", "--shell", "list.lsp"])

    def test_ecl_retainer_every_traversal_a_census(self):
        # With the default interval the first censuses are early ones, due
        # while the profiler's time is within a fifth of the run's. The
        # traversal made because a census was due when a collection began
        # used to count against that share when the census was decided,
        # at the collection's end, and the census was dropped: ECL's list
        # workload made 10 traversals for 5 censuses. Every traversal now
        # has its census: the per-census traversal times add up to the
        # total, and there are as many as the .prof says.
        self.assertTrue(shutil.which("ecl"), "ecl is not installed")
        d = tempfile.mkdtemp(prefix="hprt-")
        self.addCleanup(shutil.rmtree, d, True)
        shutil.copy(os.path.join(HERE, "runtimes", "list.lsp"), d)
        r = run(["ecl", "--norc", "--shell", "list.lsp"], d, heapprof="retainer")
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        prof = open(os.path.join(d, "ecl.prof")).read()
        section, total = prof.split("RETAINER CENSUSES")[1].split("traversal total")
        rows = [l.split() for l in section.splitlines()[2:] if l.strip()]
        timed = [(float(f[1]), float(f[2])) for f in rows if "no traversal" not in " ".join(f)]
        m = re.match(r" ([\d.]+) ms, collector mark total ([\d.]+) ms over (\d+) censuses", total)
        self.assertIsNotNone(m, total[:200])
        self.assertEqual(len(timed), int(m.group(3)), section)
        # (8 to 12 censuses as a rule; how many of the early ones are due
        # depends on the profiler's share of the run, which a loaded
        # machine raises: one clean-clone run of the suite had 5, each with
        # its traversal, and one suite run 2 -- ECL's heap, 110,000 records
        # at most, takes no helper thread, so that was the load alone. The
        # equality above is what the old fault broke.)
        self.assertGreaterEqual(len(timed), 2, section)
        self.assertAlmostEqual(sum(t for t, _ in timed), float(m.group(1)),
                               delta=0.01 * len(timed) + 0.01, msg=section)
        self.assertAlmostEqual(sum(k for _, k in timed), float(m.group(2)),
                               delta=0.01 * len(timed) + 0.01, msg=section)

    def test_w3m_retainer_coverage(self):
        # w3m rendering a 2000-row table (a C program on libgc, stripped).
        rows = "".join("<tr><td>%d</td><td>cell %d</td><td><a href='x%d.html'>link</a></td></tr>\n"
                       % (i, 7 * i, i) for i in range(2000))
        retainer_coverage(self, "w3m", ["w3m", "-dump", "table.html"],
                          files={"table.html": "<html><body><table>%s</table></body></html>"
                                               % rows})

    # Issue "ldv never breaks a program", point 1: ECL died of SIGSEGV under
    # ldv (its thread-interrupt handler runs with SIGSEGV blocked and
    # touches the heap). A list, an array and a compile-file workload, under
    # ldv (adaptive) and ldv=page: the same output and status, and a
    # profile. (ldv=precise faults on every access: ECL's start-up alone
    # takes 24 million faults, and the list workload at 200 elements did
    # not finish in 1,500 s; it is not run here: doc/limitations.md.)
    def test_ecl_ldv(self):
        self.assertTrue(shutil.which("ecl"), "ecl is not installed: scripts/install-deps.sh "
                        "--test installs it")
        for name in ("list", "array", "compile"):
            argv = ["ecl", "--norc", "--shell", name + ".lsp"]
            d0 = tempfile.mkdtemp(prefix="hprt-")
            self.addCleanup(shutil.rmtree, d0, True)
            for f in (name + ".lsp", "small.lsp"):
                shutil.copy(os.path.join(HERE, "runtimes", f), d0)
            plain = run(argv, d0)
            self.assertEqual(plain.returncode, 0, plain.stderr)
            for policy in ("ldv", "ldv=page"):
                d = tempfile.mkdtemp(prefix="hprt-")
                self.addCleanup(shutil.rmtree, d, True)
                for f in (name + ".lsp", "small.lsp"):
                    shutil.copy(os.path.join(HERE, "runtimes", f), d)
                r = run(argv, d, heapprof=policy)
                # (compile-file names the directory it works in)
                self.assertEqual((r.returncode, r.stdout.replace(d, "DIR")),
                                 (plain.returncode, plain.stdout.replace(d0, "DIR")),
                                 "ecl %s under HEAPPROF=%s: %s" % (name, policy, r.stderr[-2000:]))
                self.assertIn("heapprof: wrote ecl.hp", r.stderr)
                hp = os.path.join(d, "ecl.hp")
                hptest.check_hp_format(self, hp)
                self.assertTrue(hptest.HpFile(hp).nonempty(), "empty profile: %s %s" % (name, policy))


if __name__ == "__main__":
    unittest.main()
