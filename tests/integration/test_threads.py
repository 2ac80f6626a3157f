"""Integration test 3: six collector-registered threads allocate at once at
three thread functions (two threads each) and keep their objects
(tests/progs/threads.c). Exact per-thread-function totals at the census
taken while the threads are alive, at the census after they were joined,
and at exit; exact total. Thread start frames in libc and libgc are not
part of the names: a thread function's objects are named by it alone.
Then a thread whose walks stop at its start code, and a coroutine on a
stack inside the thread's (tests/progs/thread_coro.c).
"""
import hptest
from hptest import granted, out_table, prof_field, prof_rows

PER_FN = 2 * 2000               # two threads per function, 2000 objects each
SIZES = {"worker_a": 40, "worker_b": 200, "worker_c": 24}
BANDS = {fn: PER_FN * granted(req) for fn, req in SIZES.items()}
TOTAL = sum(BANDS.values())     # 192000 + 832000 + 128000


class Threads(hptest.ProfileTest):

    def check(self, heapprof):
        r, hp, prof = self.profile("threads", heapprof=heapprof)
        self.assertEqual(out_table(r.stdout),
                         {fn: (PER_FN, granted(req)) for fn, req in SIZES.items()})
        self.assert_bookends(hp)
        census = [s for _, s in hp.nonempty()]
        # alive, joined, final
        self.assertEqual(census, [BANDS, BANDS, BANDS])
        self.assertEqual(sum(census[0].values()), TOTAL)
        self.assertEqual(prof_rows(prof), {
            fn: (PER_FN, BANDS[fn], PER_FN * req, BANDS[fn], BANDS[fn])
            for fn, req in SIZES.items()})
        self.assertEqual(prof_field(prof, "allocated"),
                         f"{3 * PER_FN} objects, {TOTAL} bytes "
                         f"({PER_FN * sum(SIZES.values())} requested)")

    def test_threads_libunwind(self):
        self.check("interval=0,unwind=libunwind")

    def test_threads_fp(self):
        self.check("interval=0,unwind=fp")


class ThreadStart(hptest.ProfileTest):
    """A thread's walks stop at its start code's frame once a walk has
    reached it (core/hp_capture.c, Note [Where a thread's stacks end]):
    its stacks' names and figures stay what they were, also for the
    objects it makes after that; and a coroutine whose stack lies inside
    the thread's (tests/progs/thread_coro.c) is named up to its function,
    its walk ending at glibc's __start_context (core/hp_unwind.c, Note [A
    coroutine's outermost frame]; it was ".../libc.so.6/[jit]" under the
    default unwinder)."""

    def check(self, heapprof):
        r, hp, prof = self.profile("thread_coro", heapprof=heapprof)
        out = out_table(r.stdout)
        self.assertEqual(out, {"alloc_plain/worker_plain": (600, granted(48)),
                               "coro_alloc/coro_entry": (300, granted(80))})
        self.assertEqual(prof_rows(prof), {
            "alloc_plain/worker_plain":
                (600, 600 * granted(48), 600 * 48, 600 * granted(48), 600 * granted(48)),
            "coro_alloc/coro_entry":
                (300, 300 * granted(80), 300 * 80, 300 * granted(80), 300 * granted(80))})

    def test_thread_start_libunwind(self):
        self.check("interval=0,unwind=libunwind")

    def test_thread_start_fp(self):
        self.check("interval=0,unwind=fp")


if __name__ == "__main__":
    hptest.main()
