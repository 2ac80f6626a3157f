"""External test (slow suite, scripts/test.sh --all, which installs the
packages with scripts/install-deps.sh --all): the retainer profile on more
Debian programs that allocate with libgc -- Inkscape exporting an SVG to
PNG (C++, uncollectable containers), nix-instantiate evaluating a fold
into a large attribute set (C++, GC_malloc_many), GNU poke running a
script over a binary file (finalizers, GC_realloc grown in place),
Asymptote running a script (libgc, and libsigsegv's handler on an
alternate stack of its own). Each runs under HEAPPROF=retainer,interval=0
with the same output as without heapprof, and at every census with a
traversal at least 99% of live bytes are attributed to named retainers
(issue "retainers on real runtimes"); Asymptote also under mode ldv with
the default policy and ldv=page (it died under every ldv policy when
heapprof's faults ran on its alternate stack)."""
import hashlib
import os
import random
import shutil
import tempfile
import unittest

from test_runtimes import HERE, retainer_coverage, run


def svg():
    rnd = random.Random(1)
    els = "".join('<rect x="%d" y="%d" width="%d" height="%d" fill="#%06x"/>\n'
                  % (rnd.randint(0, 900), rnd.randint(0, 900), rnd.randint(5, 80),
                     rnd.randint(5, 80), rnd.randint(0, 0xffffff)) for _ in range(1500))
    els += "".join('<text x="%d" y="%d">label %d</text>\n'
                   % (rnd.randint(0, 900), rnd.randint(0, 900), i) for i in range(100))
    return '<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000">%s</svg>' % els


class Programs(unittest.TestCase):

    def same_as_plain(self, name, argv, files, env=None, output=None):
        """Retainer coverage, and the run's output (stdout, or the file
        `output`) as without heapprof."""
        r = retainer_coverage(self, name, argv, env=env, files=files)
        d = r.dir + "-plain"
        os.makedirs(d)
        self.addCleanup(shutil.rmtree, d, True)
        for fname in os.listdir(r.dir):
            if fname in files or not fname.startswith((argv[0] + ".", "out.")):
                shutil.copy(os.path.join(r.dir, fname), d)
        plain = run(argv, d, extra_env=env)
        self.assertEqual(plain.returncode, 0, plain.stderr[-2000:])
        if output:
            def digest(p):
                with open(p, "rb") as f:
                    return hashlib.sha256(f.read()).hexdigest()
            self.assertEqual(digest(os.path.join(r.dir, output)), digest(os.path.join(d, output)))
        else:
            self.assertEqual(r.stdout, plain.stdout)

    def test_inkscape(self):
        home = tempfile.mkdtemp(prefix="hp-inkscape-home-")
        self.addCleanup(shutil.rmtree, home, True)
        self.same_as_plain("inkscape",
                           ["inkscape", "--export-type=png", "--export-filename=out.png", "pic.svg"],
                           {"pic.svg": svg()}, env={"HOME": home},
                           output="out.png")

    def test_nix(self):
        # tests/external/runtimes/fold.nix (copied beside the run).
        self.same_as_plain("nix-instantiate", ["nix-instantiate", "--eval", "fold.nix"], {})

    def test_poke(self):
        # tests/external/runtimes/sum.pk over 40,000 random bytes.
        data = bytes(random.Random(2).randrange(256) for _ in range(40000))
        self.same_as_plain("poke", ["poke", "-L", "sum.pk"], {"data.bin": data})

    def test_asymptote(self):
        # tests/external/runtimes/trees.asy (copied beside the run).
        argv = ["asy", "-noV", "trees.asy"]
        self.same_as_plain("asy", argv, {})
        d = tempfile.mkdtemp(prefix="hp-asy-")
        self.addCleanup(shutil.rmtree, d, True)
        shutil.copy(os.path.join(HERE, "runtimes", "trees.asy"), d)
        plain = run(argv, d)
        self.assertEqual(plain.returncode, 0, plain.stderr[-2000:])
        self.assertEqual(plain.stdout, "997489328\n20000\n4999950000\n")
        for policy in ("ldv", "ldv,ldv=page"):
            r = run(argv, d, heapprof=policy + ",interval=0")
            self.assertEqual((r.returncode, r.stdout), (0, plain.stdout),
                             "%s: %s" % (policy, r.stderr[-2000:]))
            self.assertIn("heapprof: wrote asy.hp", r.stderr)


if __name__ == "__main__":
    unittest.main()
