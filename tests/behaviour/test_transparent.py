"""Behaviour: a libgc program behaves the same under heapprof: the same
stdout for the same stdin, and the same exit status (exit(3), exit(0))."""
import unittest

import bh
import hptest


def make_input(n):
    return "".join(f"line {i}: {'xyz' * (i % 40)} end\n" for i in range(n))


def expected_output(text, status):
    lines = text.splitlines()
    out = ["bh_alloc start"] + [l[::-1] for l in lines]
    out.append(f"lines={len(lines)} bytes={sum(len(l) for l in lines)} status={status}")
    return "\n".join(out) + "\n"


class Transparent(unittest.TestCase):
    def setUp(self):
        bh.check_env(self)

    def test_same_behaviour(self):
        for status, nlines in ((3, 3000), (0, 0), (77, 1)):
            with self.subTest(status=status, lines=nlines):
                text = make_input(nlines)
                argv = [bh.bprog("bh_alloc"), str(status)]
                plain = hptest.run(self, argv, preload=False, stdin=text)
                self.assertEqual(plain.rc, status)
                self.assertEqual(plain.stdout, expected_output(text, status))
                self.assertEqual(plain.stderr, "")
                r = hptest.run(self, argv, heapprof="cc,interval=0", stdin=text)
                self.assertEqual(r.rc, status, r.stderr)
                self.assertEqual(r.stdout, plain.stdout)
                self.assertEqual(len(bh.wrote_lines(r.stderr)), 1, r.stderr)
                hp = hptest.check_hp_format(self, r.hp_path)
                # 100 cells of 24 bytes (granted 32) are live at the end.
                self.assertEqual(hp.last().get("make_cell/main"), 3200)
                self.assertEqual(bh.profile_files(r.cwd), ["bh_alloc.hp", "bh_alloc.prof"])


if __name__ == "__main__":
    hptest.main()
