"""Integration test 7: libgc loaded at run time. dlhost is not linked with
libgc; it dlopen()s libhpplugin.so (linked with libgc), whose plugin_alloc()
keeps 60 objects of 40 bytes and which then runs a collection
(tests/progs/dlhost.c, plugin.c). Both RTLD_LOCAL and RTLD_GLOBAL.
"""
import hptest
from hptest import granted, out_table, prof_rows

NAME = "plugin_alloc/plugin_run/main"
BYTES = 60 * granted(40)        # 2880


class Dlopen(hptest.ProfileTest):

    def check(self, mode):
        argv = ["dlhost", hptest.prog("libhpplugin.so"), mode]
        plain = self.run_prog(argv, preload=False)
        self.assertEqual(plain.rc, 0, plain.stderr)
        r, hp, prof = self.profile(argv)
        self.assertEqual(r.stdout, plain.stdout)
        self.assertEqual(out_table(r.stdout), {"plugin_alloc": (60, granted(40))})
        self.assert_bookends(hp)
        label = NAME[:25]                 # default label length
        # the plugin's census, and the final one
        self.assertEqual([s for _, s in hp.nonempty()], [{label: BYTES}, {label: BYTES}])
        self.assertEqual(prof_rows(prof), {NAME: (60, BYTES, 60 * 40, BYTES, BYTES)})

    def test_rtld_local(self):
        self.check("local")

    def test_rtld_global(self):
        self.check("global")


if __name__ == "__main__":
    hptest.main()
