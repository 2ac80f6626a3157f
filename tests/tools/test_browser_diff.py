"""The page of `heapprof diff` in a real browser: headless Chromium
(cdp.py) loads it from a file:// URL. Checks the bands table's order and
values as shown, that its columns sort (the whole-heap row staying under
them), that the two charts are drawn on one y scale (the same top tick,
the larger peak's) with their own time axes, that hiding a band in the
shared legend rescales both alike, that pointing at a band names it with
its bytes, and that the page raises no script error and makes no network
request. On hand-made profiles (fixtures/diff/) and on two real runs.

Set HEAPPROF_SCREENSHOTS=DIR to keep the screenshots."""
import os
import pathlib
import unittest

import cdp
import hptest
import tltest
from test_diff import BANDS_SHOWN, HEAP_SHOWN, TREES, diff, fixtures_dir


class BrowserDiff(unittest.TestCase):
    def setUp(self):
        tltest.check_env(self)
        self.shots = os.environ.get("HEAPPROF_SCREENSHOTS")

    def keep(self, name, png):
        if self.shots:
            os.makedirs(self.shots, exist_ok=True)
            with open(os.path.join(self.shots, name), "wb") as f:
                f.write(png)

    def open_page(self, browser, path):
        page = browser.new_page()
        page.call("Network.enable")
        page.call("Page.enable")
        page.call("Runtime.enable")
        url = pathlib.Path(path).as_uri()
        page.call("Page.navigate", url=url)
        page.wait_event("Page.loadEventFired", timeout=60)
        return page, url

    def assert_clean(self, page, url):
        """No script error, no request but the page itself."""
        self.assertEqual(page.events("Runtime.exceptionThrown"), [])
        console = [e for e in page.events("Runtime.consoleAPICalled")
                   if e["params"]["type"] in ("error", "warning")]
        self.assertEqual(console, [])
        requests = [e["params"]["request"]["url"] for e in page.events("Network.requestWillBeSent")]
        self.assertEqual(requests, [url])
        self.assertEqual(page.events("Network.loadingFailed"), [])

    # Each chart: its scale, its y tick labels (top last), its unit, the
    # plot area, its time range, its peak marker.
    CHARTS = """['before', 'after'].map(k => {
        const s = document.getElementById('plot-' + k);
        if (!s) return null;
        const a = document.getElementById('plot-area-' + k), c = s.querySelector('.peak circle');
        const num = (e, n) => +e.getAttribute(n);
        return {ymax: +s.dataset.ymax, t0: +s.dataset.t0, t1: +s.dataset.t1,
                yticks: Array.from(s.querySelectorAll('.ytick')).map(t => t.textContent),
                xticks: Array.from(s.querySelectorAll('.xtick')).map(t => t.textContent),
                unit: s.querySelector('.axis .title').textContent,
                py: num(a, 'y'), ph: num(a, 'height'), px: num(a, 'x'), pw: num(a, 'width'),
                peakY: c ? num(c, 'cy') : null,
                bands: s.querySelectorAll('path.band').length,
                left: s.getBoundingClientRect().left, top: s.getBoundingClientRect().top}; })"""

    def rows(self, page, part="tbody"):
        return page.evaluate(f"Array.from(document.querySelectorAll('#bands-diff {part} tr'))"
                             ".map(r => Array.from(r.cells).map(c => c.textContent))")

    def sort_by(self, page, col):
        page.evaluate(f"document.querySelectorAll('#bands-diff thead tr.cols th')[{col}].click()")

    def test_fixture_pair(self):
        d = fixtures_dir(self)
        r = diff(self, ["old.hp", "new.hp"], d)
        self.assertEqual(r.returncode, 0, r.stderr)
        with cdp.Browser(self) as b:
            page, url = self.open_page(b, os.path.join(d, "new.diff.html"))
            self.keep("diff-fixture.png", page.screenshot())
            # --- the bands table: by the change in peak, largest increase first ---
            self.assertEqual(self.rows(page), BANDS_SHOWN)
            self.assertEqual(self.rows(page, "tfoot"), [HEAP_SHOWN])
            self.assertEqual(page.evaluate("document.querySelector('#bands-diff th.desc')"
                                           ".title"), "sort by peak change")
            # New and gone bands marked as such.
            self.assertEqual(page.evaluate("Array.from(document.querySelectorAll("
                                           "'#bands-diff tbody tr')).map(r => r.className)"),
                             ["", "new", "", "gone", ""])
            # Sorting: by name; by the change in percent (a new band the
            # largest, a gone one -100%); again to reverse; the whole heap
            # stays last.
            names = lambda: [r[0] for r in self.rows(page)]
            self.sort_by(page, 0)
            self.assertEqual(names(), ["fresh/main", "gone/main", "grow/main", "shrink/main",
                                       "steady/main"])
            self.sort_by(page, 4)
            self.assertEqual(names(), ["fresh/main", "grow/main", "steady/main", "shrink/main",
                                       "gone/main"])
            self.sort_by(page, 4)
            self.assertEqual(names(), ["gone/main", "shrink/main", "steady/main", "grow/main",
                                       "fresh/main"])
            self.sort_by(page, 7)      # mean change, largest first
            self.assertEqual(names(), ["grow/main", "fresh/main", "steady/main", "gone/main",
                                       "shrink/main"])
            self.sort_by(page, 1)      # peak before; a band not in it counts 0
            self.assertEqual(names(), ["grow/main", "shrink/main", "steady/main", "gone/main",
                                       "fresh/main"])
            self.assertEqual(self.rows(page, "tfoot"), [HEAP_SHOWN])
            self.sort_by(page, 3)
            self.assertEqual(self.rows(page), BANDS_SHOWN)
            # The allocation table, by the change in bytes.
            self.assertEqual(page.evaluate("Array.from(document.querySelectorAll('#alloc-diff "
                                           "tbody tr')).map(r => r.cells[0].textContent)"),
                             ["grow/main", "fresh/main", "steady/main", "gone/main",
                              "shrink/main"])

            # --- the two charts: one y scale, each its own time axis ---
            before, after = page.evaluate(self.CHARTS)
            # Peaks 2900 and 5700 bytes: the scale of 5700 (0-6 KiB, step 2)
            # in both; alone, the first would have been 0-3 KiB.
            for c in (before, after):
                self.assertEqual(c["ymax"], 6144)
                self.assertEqual(c["yticks"], ["0", "2", "4", "6"])
                self.assertEqual(c["unit"], "KiB")
                self.assertEqual(c["bands"], 5)
            self.assertEqual(before["yticks"][-1], after["yticks"][-1])
            self.assertEqual(before["ph"], after["ph"])
            # Each run's peak drawn at its height on that one scale.
            for c, peak in ((before, 2900), (after, 5700)):
                self.assertAlmostEqual(c["peakY"], c["py"] + c["ph"] * (1 - peak / 6144),
                                       delta=0.01)
            # Their own time axes: 0-1.5 s and 0-4 s.
            self.assertEqual((before["t0"], before["t1"], after["t0"], after["t1"]),
                             (0, 1.5, 0, 4))
            self.assertEqual(before["xticks"][-1], "1.5")
            self.assertEqual(after["xticks"][-1], "4")
            # Side by side, level.
            self.assertLess(before["left"], after["left"])
            self.assertEqual(before["top"], after["top"])

            # --- pointing at a band names it, with its bytes then ---
            page.evaluate("window.scrollTo(0, 0)")
            c = page.evaluate(self.CHARTS)[1]
            # grow/main at 3 s in the after run: 0-4000 bytes, at the bottom.
            x = c["left"] + c["px"] + 3 / 4 * c["pw"]
            y = c["top"] + c["py"] + c["ph"] * (1 - 2000 / 6144)
            page.mouse("mouseMoved", x, y)
            tip = page.evaluate("document.querySelector('#chart-after .tip').innerText")
            self.assertIn("grow/main", tip)
            self.assertIn("4,000 bytes", tip)
            self.assertIn("after, at 3.000000 s", tip)
            hot = page.evaluate("Array.from(document.querySelectorAll('svg.plot path.band.hot'))"
                                ".map(p => p.querySelector('title').textContent)")
            self.assertEqual(hot, ["grow/main (before)", "grow/main (after)"])
            page.mouse("mouseMoved", 3, 3)

            # --- the legend hides a band in both; both rescale alike ---
            page.evaluate("Array.from(document.querySelectorAll('#legend li')).find(li => "
                          "li.querySelector('.name').textContent === 'grow/main').click()")
            before, after = page.evaluate(self.CHARTS)
            # Without grow/main: peaks 1500 and 1700 bytes, so 0-2 KiB in both.
            for c in (before, after):
                self.assertEqual(c["bands"], 4)
                self.assertEqual(c["ymax"], 2048)
                self.assertEqual(c["yticks"], ["0", "0.5", "1", "1.5", "2"])
            self.assertEqual(page.evaluate("document.getElementById('count').textContent"),
                             "4 of 5 shown")
            page.evaluate("document.getElementById('all').click()")
            self.assertEqual(page.evaluate(self.CHARTS)[0]["ymax"], 6144)
            self.assert_clean(page, url)

    def test_real_runs(self):
        # examples/trees at depths 10 and 13: the deeper run's peak sets
        # the scale of both charts.
        d = tltest.tempdir(self, "tldiff-")
        for stem, depth in (("old", "10"), ("new", "13")):
            r = hptest.run(self, [TREES, depth],
                           heapprof=f"cc,interval=0,out={os.path.join(d, stem)}")
            self.assertEqual(r.rc, 0, r.stderr)
        peaks = []
        for stem in ("old", "new"):
            hp = hptest.check_hp_format(self, os.path.join(d, stem + ".hp"))
            peaks.append(max(sum(s.values()) for _t, s in hp.samples))
        self.assertGreater(peaks[1], 2 * peaks[0])
        r = diff(self, ["old.hp", "new.hp"], d)
        self.assertEqual(r.returncode, 0, r.stderr)
        with cdp.Browser(self) as b:
            page, url = self.open_page(b, os.path.join(d, "new.diff.html"))
            self.keep("diff-trees.png", page.screenshot())
            before, after = page.evaluate(self.CHARTS)
            self.assertEqual(before["ymax"], after["ymax"])
            self.assertEqual(before["yticks"], after["yticks"])
            self.assertEqual(before["unit"], after["unit"])
            self.assertGreaterEqual(after["ymax"], peaks[1])
            self.assertLess(after["ymax"], 2 * peaks[1])
            for c, peak in ((before, peaks[0]), (after, peaks[1])):
                self.assertAlmostEqual(c["peakY"], c["py"] + c["ph"] * (1 - peak / c["ymax"]),
                                       delta=0.01)
            self.assertNotEqual(before["t1"], after["t1"])
            # The table: by the change in peak, largest first.
            changes = page.evaluate("Array.from(document.querySelectorAll('#bands-diff tbody tr'))"
                                    ".map(r => +r.cells[3].dataset.v)")
            self.assertEqual(changes, sorted(changes, reverse=True))
            names = page.evaluate("Array.from(document.querySelectorAll('#bands-diff tbody tr'))"
                                  ".map(r => r.cells[0].textContent)")
            self.assertIn("make/main", names)
            self.assertTrue(page.evaluate("!!document.querySelector('#alloc-diff tbody tr')"))
            self.assertIn("-base old.pb.gz new.pb.gz",
                          page.evaluate("document.getElementById('pprof').textContent"))
            # The header names both runs.
            self.assertEqual(page.evaluate("document.getElementById('job-before').textContent"),
                             TREES + " 10")
            self.assertEqual(page.evaluate("document.getElementById('job-after').textContent"),
                             TREES + " 13")
            # Drawn: the screenshot of each plot area is not blank.
            for c in (before, after):
                clip = {"x": c["left"] + c["px"], "y": c["top"] + c["py"], "width": c["pw"],
                        "height": c["ph"], "scale": 0.5}
                px = cdp.colour_counts(page.screenshot(clip))
                self.assertLess(px.get((255, 255, 255), 0) / sum(px.values()), 0.95)
            self.assert_clean(page, url)


if __name__ == "__main__":
    unittest.main()
