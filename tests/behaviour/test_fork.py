"""Behaviour: fork. The parent writes bh_fork.hp, a child that keeps
allocating writes bh_fork.<pid>.hp with its own allocation site, and the
parent's profile has none of the child's sites. A child that only execs or
_exits writes nothing."""
import os
import re
import unittest

import bh
import hptest


class Fork(unittest.TestCase):
    def setUp(self):
        bh.check_env(self)

    def all_labels(self, hp):
        return {label for _, bands in hp.samples for label in bands}

    def test_child_allocates(self):
        r = hptest.run(self, [bh.bprog("bh_fork"), "alloc"], heapprof="cc,interval=0",
                       stdin="")
        self.assertEqual(r.rc, 0, r.stderr)
        m = re.fullmatch(r"child (\d+)\nparent: child (\d+) exited 0\n", r.stdout)
        self.assertIsNotNone(m, r.stdout)
        pid = m.group(1)
        self.assertEqual(m.group(2), pid)
        child = f"bh_fork.{pid}"
        self.assertEqual(bh.profile_files(r.cwd),
                         sorted(["bh_fork.hp", "bh_fork.prof", child + ".hp", child + ".prof"]))

        parent_hp = hptest.check_hp_format(self, r.hp_path)
        child_hp = hptest.check_hp_format(self, os.path.join(r.cwd, child + ".hp"))

        # Child: its own site, 64 objects of 80 bytes (granted 96).
        self.assertEqual(child_hp.last().get("child_site/main"), 64 * 96)
        with open(os.path.join(r.cwd, child + ".prof")) as f:
            child_rows = hptest.prof_rows(f.read())
        self.assertEqual(child_rows.get("child_site/main", ())[:3], (64, 64 * 96, 64 * 80))

        # Parent: its site (64 objects of 48 bytes, granted 64), never the child's.
        self.assertEqual(parent_hp.last().get("parent_site/main"), 64 * 64)
        self.assertFalse([l for l in self.all_labels(parent_hp) if "child_site" in l])
        parent_rows = hptest.prof_rows(r.prof())
        self.assertEqual(parent_rows.get("parent_site/main", ())[:3], (64, 64 * 64, 64 * 48))
        self.assertFalse([n for n in parent_rows if "child_site" in n])

        wrote = bh.wrote_lines(r.stderr)
        self.assertEqual(len(wrote), 2, r.stderr)
        self.assertEqual(sorted(bh.WROTE_RE.match(l).group(1) for l in wrote),
                         sorted(["bh_fork", child]))

    def test_child_censuses_are_its_own(self):
        # A traversing profile (retainer; roots, which also keeps retainer
        # lines for what no named root reaches) of a forked child lists the
        # child's censuses only: the parent's lines and its least-attributed
        # census are the parent's .prof's, not the child's. The child's
        # heap at each of its censuses: the parent's 64 x 64 bytes and its
        # own 64 x 96.
        for mode, sections in (("retainer", ["RETAINER CENSUSES"]),
                               ("roots,noroot=retainers", ["ROOT CENSUSES", "RETAINER CENSUSES"])):
            with self.subTest(mode=mode):
                r = hptest.run(self, [bh.bprog("bh_fork"), "alloc"],
                               heapprof=mode + ",interval=0", stdin="")
                self.assertEqual(r.rc, 0, r.stderr)
                pid = re.match(r"child (\d+)\n", r.stdout).group(1)
                wrote = {bh.WROTE_RE.match(l).group(1): int(bh.WROTE_RE.match(l).group(3))
                         for l in bh.wrote_lines(r.stderr)}
                with open(os.path.join(r.cwd, f"bh_fork.{pid}.prof")) as f:
                    child = f.read()
                censuses = wrote[f"bh_fork.{pid}"]
                self.assertEqual(censuses, 2, r.stderr)
                for name in sections:
                    block = child.split(name)[1].split("\n\n")[1]
                    lines = block.strip().splitlines()
                    self.assertEqual(len(lines), censuses, block)
                    for line in lines:
                        if name == "RETAINER CENSUSES":
                            self.assertTrue(line.endswith("  10240 of 10240 bytes"), line)
                        else:
                            self.assertTrue(line.endswith("  10240"), line)
                self.assertIn("over %d censuses" % censuses, child)

    def test_child_execs_or_exits(self):
        for mode in ("exec", "_exit"):
            with self.subTest(mode=mode):
                r = hptest.run(self, [bh.bprog("bh_fork"), mode],
                               heapprof="cc,interval=0", stdin="")
                self.assertEqual(r.rc, 0, r.stderr)
                self.assertRegex(r.stdout, r"^parent: child \d+ exited 0\n$")
                self.assertEqual(bh.profile_files(r.cwd), ["bh_fork.hp", "bh_fork.prof"])
                hp = hptest.check_hp_format(self, r.hp_path)
                self.assertEqual(hp.last().get("parent_site/main"), 64 * 64)
                wrote = bh.wrote_lines(r.stderr)
                self.assertEqual(len(wrote), 1, r.stderr)
                self.assertEqual(bh.WROTE_RE.match(wrote[0]).group(1), "bh_fork")


if __name__ == "__main__":
    hptest.main()
