"""The report page in a real browser: headless Chromium (Debian package
chromium) loads pages written by `heapprof report` from file:// URLs,
driven over the Chrome DevTools Protocol (cdp.py, standard library only).
Checks that the chart and legend are drawn (DOM, and a screenshot that is
not blank), that pointing at a band names it with its bytes at that time,
that the legend hides and shows bands, that tables sort, that the page
raises no script error and makes no network request.

Set HEAPPROF_SCREENSHOTS=DIR to keep the screenshots."""
import math
import os
import pathlib
import unittest

import re

import cdp
import hptest
import tltest
from test_report import (FLAME_FRAMES, FLAME_ROWS, FRAMES_LABELS, FRAMES_PROF, flame_prof,
                         frames_hp, many_stacks_prof)
from tltest import fixture, report

NBANDS, NSAMPLES = 25, 120


def synthetic():
    """{label: [bytes per sample]} of a profile with 25 bands, and times."""
    times = [round(i * 0.05, 6) for i in range(NSAMPLES)]
    bands = {}
    for j in range(NBANDS):
        vals = []
        for i in range(NSAMPLES):
            v = (j + 1) * 256 * (1.3 + math.sin(i / 12 + j * 0.7))
            vals.append(int(v) // 16 * 16)
        bands[f"band_{j:02d}/main"] = vals
    return times, bands


def write_hp(path, times, bands):
    lines = ['JOB "./synthetic 25"', 'DATE "Sun Nov 22 04:56 2026"', 'SAMPLE_UNIT "seconds"',
             'VALUE_UNIT "bytes"']
    for i, t in enumerate(times):
        lines.append("BEGIN_SAMPLE %.6f" % t)
        for name, vals in bands.items():
            if vals[i]:
                lines.append(f"{name}\t{vals[i]}")
        lines.append("END_SAMPLE %.6f" % t)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


class BrowserTest(unittest.TestCase):
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
        errors = page.events("Runtime.exceptionThrown")
        self.assertEqual(errors, [])
        console = [e for e in page.events("Runtime.consoleAPICalled")
                   if e["params"]["type"] in ("error", "warning")]
        self.assertEqual(console, [])
        requests = [e["params"]["request"]["url"] for e in page.events("Network.requestWillBeSent")]
        self.assertEqual(requests, [url])
        self.assertEqual(page.events("Network.loadingFailed"), [])

    def plot(self, page):
        return page.evaluate("""(() => {
            const r = document.getElementById('plot-area').getBoundingClientRect();
            const s = document.getElementById('plot');
            return {x: r.left, y: r.top, w: r.width, h: r.height,
                    sx: window.scrollX, sy: window.scrollY,
                    t0: +s.dataset.t0, t1: +s.dataset.t1, ymax: +s.dataset.ymax}; })()""")

    def clip(self, P):
        """The plot area in document coordinates, for Page.captureScreenshot."""
        return {"x": P["x"] + P["sx"], "y": P["y"] + P["sy"], "width": P["w"],
                "height": P["h"], "scale": 0.5}

    def legend_title(self, page, label):
        return page.evaluate(f"""Array.from(document.querySelectorAll('#legend li'))
            .find(li => li.querySelector('.name').textContent === {label!r}).title""")

    def band_title(self, page, label):
        i = page.evaluate(f"heapprofReport.data.bands.findIndex(b => b.name === {label!r})")
        return page.evaluate(f"document.querySelector('#plot path.band[data-band=\"{i}\"] "
                             f"title').textContent")

    def bands_row(self, label):
        return (f"Array.from(document.querySelectorAll('#bands tbody tr'))"
                f".find(r => r.cells[0].textContent === {label!r})")

    def stacks_cell(self, page, label):
        """The bands table's full-stack cell of a label: its stacks' names,
        whether each is open, the visible text of their frames."""
        return page.evaluate(f"""(() => {{
            const c = {self.bands_row(label)}.cells[5];
            const d = Array.from(c.querySelectorAll('details.stack'));
            return {{summaries: d.map(x => x.querySelector('summary').textContent),
                     open: d.map(x => x.open),
                     frames: d.map(x => Array.from(x.querySelectorAll('ol.frames li'))
                                         .map(li => li.innerText.replace(/\\s+/g, ' ').trim())),
                     height: c.getBoundingClientRect().height}}; }})()""")

    def open_stacks(self, label):
        """Script: a click on each stack name of the label's cell; how many."""
        return (f"(() => {{ const s = {self.bands_row(label)}.cells[5]"
                f".querySelectorAll('summary'); s.forEach(x => x.click()); return s.length; }})()")

    def test_full_stacks(self):
        # Labels cut from C++ stacks, two stacks behind one label: the page
        # shows each label's full stacks, frame by frame, with source lines.
        d = tltest.tempdir(self)
        with open(os.path.join(d, "f.hp"), "w") as f:
            f.write(frames_hp(FRAMES_LABELS))
        with open(os.path.join(d, "f.prof"), "w") as f:
            f.write(FRAMES_PROF)
        r = report(self, ["f.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        with cdp.Browser(self) as b:
            page, url = self.open_page(b, os.path.join(d, "f.html"))
            shared = "allocate_node_buffer/buil"
            title = self.legend_title(page, shared)
            self.assertTrue(title.startswith(shared + "\npeak "), title)
            self.assertIn("\n\n2 stacks behind this label (innermost frame first):\n\n"
                          "allocate_node_buffer  (/src/app.c:7)\nbuild_tree  (/src/app.c:20)\n"
                          "main  (/src/app.c:31)\n\nallocate_node_buffer  (/src/app.c:7)\n"
                          "build_list  (/src/app.c:25)\nmain  (/src/app.c:31)", title)
            self.assertIn("build_list  (/src/app.c:25)", self.band_title(page, shared))
            # A C++ label (short names) and the full, demangled stack behind it.
            cxx = "ns::Store<...>::put<...>/"
            self.assertIn("void ns::Store<int, std::less<int> >::put<long>(long, int const&) "
                          "const  (/src/store.hh:12)\nmain  (/src/app.c:31)",
                          self.legend_title(page, cxx))
            cell = self.stacks_cell(page, shared)
            self.assertEqual(cell["summaries"], FRAMES_LABELS[shared])
            page.evaluate(self.open_stacks(shared))
            cell = self.stacks_cell(page, shared)
            self.assertEqual(cell["open"], [True, True])
            self.assertEqual(cell["frames"][1], ["allocate_node_buffer /src/app.c:7 app+0x1200",
                                                 "build_list /src/app.c:25 app+0x1400",
                                                 "main /src/app.c:31 app+0x1080"])
            cell = self.stacks_cell(page, cxx)
            self.assertEqual(cell["summaries"], FRAMES_LABELS[cxx])
            # Names that look like markup are text.
            self.assertEqual(self.stacks_cell(page, "</script><b>x</b>/main")["summaries"],
                             ["</script><b>x</b>/main"])
            self.assertEqual(page.evaluate("document.querySelectorAll('b').length"), 0)
            # Sorting the bands table keeps each row's stacks with it.
            page.evaluate("document.querySelector('#bands th').click()")
            self.assertEqual(self.stacks_cell(page, cxx)["summaries"], FRAMES_LABELS[cxx])
            self.assert_clean(page, url)

    def test_synthetic_profile(self):
        d = tltest.tempdir(self)
        times, bands = synthetic()
        write_hp(os.path.join(d, "syn.hp"), times, bands)
        r = report(self, ["syn.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        # The 20 largest by total, largest first (drawn at the bottom), then OTHER.
        ranked = sorted(bands, key=lambda n: -sum(bands[n]))
        drawn = ranked[:20] + ["OTHER"]
        values = {n: bands[n] for n in ranked[:20]}
        values["OTHER"] = [sum(bands[n][i] for n in ranked[20:]) for i in range(NSAMPLES)]

        with cdp.Browser(self) as b:
            page, url = self.open_page(b, os.path.join(d, "syn.html"))
            # --- drawn: chart, legend, peak ---
            self.assertEqual(page.evaluate("document.querySelectorAll('#plot path.band').length"), 21)
            legend = page.evaluate("Array.from(document.querySelectorAll('#legend li .name'))"
                                   ".map(e => e.textContent)")
            # The largest peak first, OTHER last.
            self.assertEqual(legend, sorted(ranked[:20], key=lambda n: -max(bands[n]))
                             + ["OTHER (5)"])
            totals = [sum(v[i] for v in bands.values()) for i in range(NSAMPLES)]
            peak_i = totals.index(max(totals))
            self.assertEqual(page.evaluate("document.querySelector('#peak text').textContent"),
                             "peak %.2f KiB at %.3f s" % (totals[peak_i] / 1024, times[peak_i]))
            self.assertEqual(page.evaluate("document.getElementById('count').textContent"),
                             "21 of 21 shown")

            # --- the screenshot is a picture, not a blank page ---
            self.keep("synthetic.png", page.screenshot())
            P = self.plot(page)
            clip = self.clip(P)
            drawn_px = cdp.colour_counts(page.screenshot(clip))
            npx = sum(drawn_px.values())
            white = drawn_px.get((255, 255, 255), 0)
            self.assertGreater(len(drawn_px), 25, "too few colours: blank chart?")
            self.assertLess(white / npx, 0.5, "the plot area is mostly white")
            colours = page.evaluate("heapprofReport.data.bands.map(b => b.colour)")
            for c in colours[:10]:     # the ten largest bands show in their own colour
                self.assertGreater(drawn_px.get(cdp.hex_rgb(c), 0), 30, f"colour {c} not drawn")

            # --- pointing at a band names it, with its bytes at that time ---
            def point(band, i):
                P = self.plot(page)
                k = drawn.index(band)
                below = sum(values[n][i] for n in drawn[:k])
                mid = below + values[band][i] / 2
                x = P["x"] + (times[i] - P["t0"]) / (P["t1"] - P["t0"]) * P["w"]
                y = P["y"] + P["h"] - mid / P["ymax"] * P["h"]
                return x, y

            for band, i in ((ranked[0], 10), (ranked[3], 60), (ranked[19], 100), ("OTHER", 30)):
                with self.subTest(band=band, sample=i):
                    page.mouse("mouseMoved", *point(band, i))
                    self.assertEqual(page.evaluate("getComputedStyle(document.getElementById('tip')).display"),
                                     "block")
                    tip = page.evaluate("document.getElementById('tip').innerText")
                    self.assertIn(band, tip)
                    self.assertIn(f"{values[band][i]:,} bytes", tip)
                    self.assertIn("at %.6f s" % times[i], tip)
                    hot = page.evaluate("Array.from(document.querySelectorAll('#plot path.band.hot'))"
                                        ".map(p => p.querySelector('title').textContent)")
                    self.assertEqual(hot, [band])
            # Off the chart: no tooltip.
            page.mouse("mouseMoved", 5, 5)
            self.assertEqual(page.evaluate("getComputedStyle(document.getElementById('tip')).display"),
                             "none")

            # --- the legend hides and shows bands ---
            top = ranked[0]
            legend_item = f"""(() => {{
                const li = Array.from(document.querySelectorAll('#legend li'))
                    .find(e => e.querySelector('.name').textContent === {top!r});
                li.scrollIntoView({{block: 'center'}});
                const r = li.getBoundingClientRect();
                return [r.left + r.width / 2, r.top + r.height / 2]; }})()"""
            page.click(*page.evaluate(legend_item))
            self.assertEqual(page.evaluate("document.querySelectorAll('#plot path.band').length"), 20)
            titles = page.evaluate("Array.from(document.querySelectorAll('#plot path.band title'))"
                                   ".map(t => t.textContent)")
            self.assertNotIn(top, titles)
            self.assertEqual(page.evaluate("document.querySelectorAll('#legend li.off').length"), 1)
            self.assertEqual(page.evaluate("document.getElementById('count').textContent"),
                             "20 of 21 shown")
            # The band above it now sits at the bottom: pointing there names it.
            page.evaluate("window.scrollTo(0, 0)")
            P = self.plot(page)
            x = P["x"] + (times[40] - P["t0"]) / (P["t1"] - P["t0"]) * P["w"]
            y = P["y"] + P["h"] - values[ranked[1]][40] / 2 / P["ymax"] * P["h"]
            page.mouse("mouseMoved", x, y)
            self.assertIn(ranked[1], page.evaluate("document.getElementById('tip').innerText"))
            page.click(*page.evaluate(legend_item))
            self.assertEqual(page.evaluate("document.querySelectorAll('#plot path.band').length"), 21)
            self.assertEqual(page.evaluate("document.querySelectorAll('#legend li.off').length"), 0)
            # hide all: the chart is empty, and the screenshot shows it.
            page.evaluate("document.getElementById('none').click()")
            self.assertEqual(page.evaluate("document.querySelectorAll('#plot path.band').length"), 0)
            P = self.plot(page)
            clip = self.clip(P)
            empty_px = cdp.colour_counts(page.screenshot(clip))
            self.assertGreater(empty_px.get((255, 255, 255), 0) / sum(empty_px.values()), 0.9)
            self.assertLess(len(empty_px), len(drawn_px) / 2)
            page.evaluate("document.getElementById('all').click()")
            self.assertEqual(page.evaluate("document.querySelectorAll('#plot path.band').length"), 21)

            # --- tables sort by a click on their header ---
            peak_order = page.evaluate("Array.from(document.querySelectorAll('#bands tbody tr'))"
                                       ".map(r => +r.cells[1].dataset.v)")
            self.assertEqual(peak_order, sorted(peak_order, reverse=True))
            page.evaluate("document.querySelector('#bands th').click()")
            names = page.evaluate("Array.from(document.querySelectorAll('#bands tbody tr'))"
                                  ".map(r => r.cells[0].textContent)")
            self.assertEqual(names, sorted(bands))
            self.assert_clean(page, url)

    def test_heapprof_profile_with_prof(self):
        # A real run of the bundled example, with its .prof beside it.
        r = hptest.run(self, [os.path.join(hptest.BUILD, "examples", "trees"), "10"],
                       heapprof="cc,interval=0")
        self.assertEqual(r.rc, 0, r.stderr)
        hp = hptest.check_hp_format(self, r.hp_path)
        labels = {l for _t, s in hp.samples for l in s}
        rr = report(self, ["trees.hp"], cwd=r.cwd)
        self.assertEqual(rr.returncode, 0, rr.stderr)
        with cdp.Browser(self) as b:
            page, url = self.open_page(b, os.path.join(r.cwd, "trees.html"))
            self.assertEqual(page.evaluate("document.querySelectorAll('#plot path.band').length"),
                             len(labels))
            self.assertEqual(set(page.evaluate("Array.from(document.querySelectorAll('#legend li .name'))"
                                               ".map(e => e.textContent)")), labels)
            self.assertEqual(page.evaluate("document.querySelector('#job').textContent"),
                             hp.header["JOB"].strip('"'))
            # The .prof: summary and the allocation table, sortable.
            self.assertTrue(page.evaluate("!!document.getElementById('summary')"))
            self.assertGreaterEqual(page.evaluate("document.querySelectorAll('.prof-table').length"), 1)
            stacks = page.evaluate("Array.from(document.querySelectorAll('#table-0 tbody tr'))"
                                   ".map(r => r.cells[r.cells.length - 1].textContent)")
            self.assertIn("make/main", stacks)
            # The full stack behind a label, with its source lines: in the
            # legend's tooltip, the band's, and the bands table.
            src = r"\S*examples/trees\.c:\d+"
            want = rf"full stack \(innermost frame first\):\nmake  \({src}\)\nmain  \({src}\)$"
            self.assertRegex(self.legend_title(page, "make/main"), want)
            self.assertRegex(self.band_title(page, "make/main"), "^make/main\n\n" + want)
            cell = self.stacks_cell(page, "make/main")
            self.assertEqual(cell["summaries"], ["make/main"])
            self.assertEqual(cell["open"], [False])
            self.assertEqual(page.evaluate(self.open_stacks("make/main")), 1)
            cell = self.stacks_cell(page, "make/main")
            self.assertEqual(cell["open"], [True])
            self.assertEqual(len(cell["frames"][0]), 2)
            self.assertRegex(cell["frames"][0][0], rf"^make {src} trees\+0x[0-9a-f]+$")
            self.assertRegex(cell["frames"][0][1], rf"^main {src} trees\+0x[0-9a-f]+$")
            self.assertGreater(cell["height"], 30)      # opened: its frames take room
            # The .prof's STACK FRAMES section.
            heads = page.evaluate("Array.from(document.querySelectorAll('#stack-frames "
                                  "tr.stack-head')).map(r => r.textContent)")
            self.assertIn("make/main", heads)
            self.keep("trees.png", page.screenshot())
            P = self.plot(page)
            clip = self.clip(P)
            px = cdp.colour_counts(page.screenshot(clip))
            self.assertLess(px.get((255, 255, 255), 0) / sum(px.values()), 0.9)
            self.assertGreater(len(px), 10)
            self.assert_clean(page, url)

    # --- the axes: each tick label is the value at its gridline ---

    AXES = """(() => {
        // The plot area, the axis scales, and each tick label with the
        // position of its gridline (y) or tick mark (x), from the DOM.
        const a = document.getElementById('plot-area'), s = document.getElementById('plot');
        const num = (e, k) => +e.getAttribute(k);
        const labels = anchor => Array.from(document.querySelectorAll(
            `.axis text:not(.title)[text-anchor="${anchor}"]`));
        const grid = Array.from(document.querySelectorAll('.axis line.grid'));
        const ticks = Array.from(document.querySelectorAll('.axis line.tick'));
        return {px: num(a, 'x'), py: num(a, 'y'), pw: num(a, 'width'), ph: num(a, 'height'),
                t0: +s.dataset.t0, t1: +s.dataset.t1, ymax: +s.dataset.ymax,
                unit: document.querySelector('.axis text.title').textContent,
                y: labels('end').map(t => [t.textContent,
                    grid.filter(l => Math.abs(num(l, 'y1') - (num(t, 'y') - 4)) < 1e-6)
                        .map(l => num(l, 'y1'))]),
                x: labels('middle').map(t => [t.textContent,
                    ticks.filter(l => Math.abs(num(l, 'x1') - num(t, 'x')) < 1e-6)
                         .map(l => num(l, 'x1'))])}; })()"""

    UNITS = {"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}

    def check_ticks(self, A):
        """Every tick label is the value at its gridline (y) or tick mark
        (x), with no more decimals than the step needs; returns the y and
        x labels."""
        ys, xs = [], []
        for axis, out in (("y", ys), ("x", xs)):
            for label, where in A[axis]:
                self.assertEqual(len(where), 1, f"{axis} label {label!r}: no gridline under it")
                if axis == "y":
                    value = ((A["py"] + A["ph"] - where[0]) / A["ph"] * A["ymax"]
                             / self.UNITS[A["unit"]])
                else:
                    value = A["t0"] + (where[0] - A["px"]) / A["pw"] * (A["t1"] - A["t0"])
                out.append((label, value))
            values = [v for _l, v in out]
            step = values[1] - values[0]
            places = next(d for d in range(7) if abs(round(step * 10 ** d) - step * 10 ** d) < 1e-6)
            for label, value in out:
                with self.subTest(axis=axis, label=label):
                    self.assertAlmostEqual(float(label), value, delta=1e-9 * max(1, value))
                    self.assertLessEqual(len(label.partition(".")[2]), places)
        return [l for l, _v in ys], [l for l, _v in xs]

    def test_biography_of_the_bundled_example(self):
        # Issue "ldv truthful by default": `heapprof -hb examples/trees 14`
        # (the default policy) draws the long-lived tree (2^15 - 1 nodes
        # of 32 bytes, built first, walked once at the end) as LAG until
        # the walk and DRAG after it; before the credit rule it was one
        # VOID band. Checked on the drawn chart: pointing at the middle of
        # a band at a sample names that band in the tooltip.
        tree = (2 ** 15 - 1) * hptest.granted(24)
        d = tltest.tempdir(self)
        trees = os.path.join(hptest.BUILD, "examples", "trees")
        r = tltest.launch(self, ["-hb", trees, "14"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        rr = report(self, ["trees.hp"], cwd=d)
        self.assertEqual(rr.returncode, 0, rr.stderr)
        with cdp.Browser(self) as b:
            page, url = self.open_page(b, os.path.join(d, "trees.html"))
            data = page.evaluate("({times: heapprofReport.data.times, "
                                 "bands: heapprofReport.data.bands.map(b => [b.name, b.values])})")
            names = [n for n, _v in data["bands"]]
            self.assertIn("LAG", names)
            self.assertIn("DRAG", names)
            vals = dict(data["bands"])
            times = data["times"]
            # The samples with the heap: all but the empty first and last.
            live = [i for i in range(len(times)) if any(v[i] for v in vals.values())]
            self.assertGreaterEqual(len(live), 2, data)   # one census or more, then exit
            before, after = live[:-1], live[-1]

            def band_at(band, i):
                """The band the tooltip names at the middle of `band` at
                sample i."""
                P = self.plot(page)
                below = sum(vals[n][i] for n in names[:names.index(band)])
                mid = below + vals[band][i] / 2
                x = P["x"] + (times[i] - P["t0"]) / (P["t1"] - P["t0"]) * P["w"]
                y = P["y"] + P["h"] - mid / P["ymax"] * P["h"]
                page.mouse("mouseMoved", x, y)
                tip = page.evaluate("document.getElementById('tip').innerText")
                return tip.split("\n")[0]

            # Every census before the walk, once the tree is built (a first
            # census may come while it is being built): the tree not yet
            # used, all of it LAG. (Young trees that straddle a collection
            # may be VOID: the policy's known limit, doc/semantics.md.)
            built = [i for i in before if vals["LAG"][i] >= tree]
            self.assertTrue(built and built[-1] == before[-1], data)
            self.assertEqual(built, before[before.index(built[0]):], data)
            # The tooltip names the band of the sample nearest the pointer:
            # a sample within two pixels of the next one cannot be pointed
            # at on its own. Under ldv the walk is mostly faults, which the
            # profile's clock leaves out, so the census just before it and
            # the one at exit can share an x (0.3 ms of the program's own
            # time on this machine).
            P = self.plot(page)
            px = P["w"] / (P["t1"] - P["t0"])

            def alone(i):
                return all(abs(times[j] - times[i]) * px >= 2
                           for j in (i - 1, i + 1) if 0 <= j < len(times))

            pointable = [i for i in built if alone(i)]
            self.assertTrue(pointable, (built, times))
            for i in (pointable[0], pointable[-1]):
                self.assertEqual(band_at("LAG", i), "LAG", (i, times[i]))
            # After the walk: the tree used, and held to the end.
            self.assertGreaterEqual(vals["DRAG"][after], tree * 0.95)
            self.assertEqual(band_at("DRAG", after), "DRAG")
            self.keep("trees-hb.png", page.screenshot())
            self.assert_clean(page, url)

    def test_tick_labels(self):
        # A peak of 12.25 MiB over 1.7 s: the y step is 2.5 MiB, the x step
        # 0.25 s; labels 2.5 and 0.25, not 3 and 0.3.
        d = tltest.tempdir(self)
        hptest.hp2ps_accepts(self, fixture("steps.hp"))     # a heap profile, as GHC's
        with open(fixture("steps.hp")) as f:
            with open(os.path.join(d, "steps.hp"), "w") as out:
                out.write(f.read())
        r = report(self, ["steps.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        with cdp.Browser(self) as b:
            page, url = self.open_page(b, os.path.join(d, "steps.html"))
            A = page.evaluate(self.AXES)
            self.assertEqual(A["unit"], "MiB")
            ys, xs = self.check_ticks(A)
            self.assertEqual(ys, ["0", "2.5", "5", "7.5", "10", "12.5"])
            self.assertEqual(xs[:4], ["0", "0.25", "0.5", "0.75"])
            # Hiding the spike rescales the y axis: the labels follow.
            page.evaluate("Array.from(document.querySelectorAll('#legend li'))"
                          ".find(li => li.textContent.startsWith('spike/main')).click()")
            ys, _ = self.check_ticks(page.evaluate(self.AXES))
            self.assertEqual(ys, ["0", "2", "4", "6", "8"])
            # Other profiles' axes: a real run (KiB, short times), GHC's.
            for hp in (fixture("trees-ghc-hc.hp"), fixture("trees-ghc-hb.hp")):
                with self.subTest(hp=hp):
                    rr = report(self, [hp, "-o", "g.html"], cwd=d)
                    self.assertEqual(rr.returncode, 0, rr.stderr)
                    page, url = self.open_page(b, os.path.join(d, "g.html"))
                    self.check_ticks(page.evaluate(self.AXES))
            self.assert_clean(page, url)

    # --- the legend: the largest peak first ---

    def legend(self, page):
        return page.evaluate("Array.from(document.querySelectorAll('#legend li .name'))"
                             ".map(e => e.textContent)")

    def test_legend_order(self):
        d = tltest.tempdir(self)
        path = os.path.join(d, "steps.hp")
        with open(fixture("steps.hp")) as f:
            with open(path, "w") as out:
                out.write(f.read())
        samples = hptest.HpFile(path).samples
        labels = {l for _t, s in samples for l in s}
        peak = {l: max(s.get(l, 0) for _t, s in samples) for l in labels}
        mean = {l: sum(s.get(l, 0) for _t, s in samples) for l in labels}
        by_peak = sorted(labels, key=lambda l: -peak[l])
        by_mean = sorted(labels, key=lambda l: -mean[l])
        self.assertNotEqual(by_peak, by_mean)       # the fixture tells them apart
        self.assertEqual(report(self, ["steps.hp"], cwd=d).returncode, 0)
        self.assertEqual(report(self, ["steps.hp", "--top", "3", "-o", "top3.html"],
                                cwd=d).returncode, 0)
        with cdp.Browser(self) as b:
            page, url = self.open_page(b, os.path.join(d, "steps.html"))
            self.assertEqual(self.legend(page), by_peak)
            # The stack: the largest mean at the bottom (as hp2ps), so a
            # spike does not lift the bands above it.
            self.assertEqual(page.evaluate("heapprofReport.data.bands.map(b => b.name)"),
                             by_mean)
            # Each entry still stands for its band.
            page.evaluate("document.querySelector('#legend li').click()")
            titles = page.evaluate("Array.from(document.querySelectorAll('#plot path.band "
                                   "title')).map(t => t.textContent)")
            self.assertEqual(sorted(titles), sorted(set(labels) - {by_peak[0]}))
            self.assert_clean(page, url)
            # With OTHER: the drawn bands by peak, OTHER last.
            page, url = self.open_page(b, os.path.join(d, "top3.html"))
            drawn = by_mean[:3]
            self.assertEqual(self.legend(page), [l for l in by_peak if l in drawn] + ["OTHER (2)"])
            self.assert_clean(page, url)

    # --- the .prof's tables: their real column names, in every mode ---

    TABLES = """Array.from(document.querySelectorAll('section.prof-table')).map(s => ({
        title: s.querySelector('h2').firstChild.textContent.trim(),
        kv: !!s.querySelector('table.kv'),
        heads: Array.from(s.querySelectorAll('thead th')).map(th => th.textContent),
        notes: Array.from(s.querySelectorAll('td.prose')).map(td => td.textContent)}))"""

    def test_prof_tables_in_every_mode(self):
        runs = [(m, ["retainers"]) for m in ("cc", "retainer", "roots", "ldv", "module", "kind")]
        runs += [("roots", ["roots", "hsc"]), ("retainer", ["finalizers"])]
        with cdp.Browser(self) as b:
            for mode, argv in runs + [("cc", None)]:
                with self.subTest(mode=mode, prog=argv):
                    if argv:
                        r = hptest.run(self, [hptest.prog(argv[0])] + argv[1:],
                                       heapprof=mode + ",interval=0")
                    else:
                        r = hptest.run(self, [os.path.join(hptest.BUILD, "examples", "trees"),
                                              "10"], heapprof="cc,interval=0")
                    self.assertEqual(r.rc, 0, r.stderr)
                    stem = os.path.basename(r.hp_path)[:-3]
                    rr = report(self, [stem + ".hp"], cwd=r.cwd)
                    self.assertEqual(rr.returncode, 0, rr.stderr)
                    page, url = self.open_page(b, os.path.join(r.cwd, stem + ".html"))
                    tables = page.evaluate(self.TABLES)
                    for t in tables:
                        if t["kv"]:
                            continue
                        self.assertGreaterEqual(len(t["heads"]), 2, t)
                        for h in t["heads"]:
                            self.assertNotRegex(h, r"^[-+]?\.?\d", t)
                    titles = [t["title"] for t in tables]
                    self.assertEqual(titles[0], "Allocation by cost-centre stack")
                    self.assertEqual(tables[0]["heads"],
                                     ["objects", "bytes", "requested", "survived", "live@peak",
                                      "cost-centre stack (innermost first)"])
                    # The census tables: the columns their title lists.
                    prof = r.prof()
                    listed = dict(re.findall(r"^(RETAINER CENSUSES|ROOT CENSUSES) \((.*)\)$",
                                             prof, re.M))
                    self.assertEqual(set(listed), {"retainer": {"RETAINER CENSUSES"},
                                                   "roots": {"ROOT CENSUSES"}}.get(mode, set()))
                    for name, cols in listed.items():
                        t = tables[titles.index(name.capitalize())]
                        self.assertEqual(t["heads"][:8], cols.split(", "))
                        self.assertIn(t["heads"][8:], ([], ["note"]))
                        if argv == ["finalizers"]:
                            self.assertIn("held by gc:finalization", " ".join(t["notes"]))
                        if argv == ["retainers"] and mode == "roots":
                            self.assertIn("no traversal (no named root is alive)", t["notes"][0])
                    if mode == "ldv":
                        self.assertIn("Lag, drag, void, use", titles)
                        self.assertTrue(tables[titles.index("Lag, drag, void, use")]["kv"])
                        for which in ("DRAG", "VOID"):
                            t = tables[titles.index("Top cost-centre stacks by " + which)]
                            self.assertEqual(t["heads"], ["byte-seconds", "share",
                                                          "cost-centre stack"])
                    self.assert_clean(page, url)

    # --- the .prof's warnings and notes, over the chart ---

    CALLOUT = """(() => {
        // The callout: its items, where it is against the chart, its style.
        const c = document.getElementById('callout');
        if (!c) return null;
        const ch = document.getElementById('chart'), style = getComputedStyle(c);
        const cr = c.getBoundingClientRect(), hr = ch.getBoundingClientRect();
        const texts = sel => Array.from(document.querySelectorAll(sel)).map(p => p.textContent);
        return {items: Array.from(c.querySelectorAll('p')).map(p => [p.className, p.textContent]),
                before: !!(c.compareDocumentPosition(ch) & Node.DOCUMENT_POSITION_FOLLOWING),
                sameCard: c.closest('section') === ch.closest('section'),
                gap: hr.top - cr.bottom, height: cr.height,
                shown: style.display !== 'none' && style.visibility === 'visible',
                warnBg: Array.from(c.querySelectorAll('p.warn'))
                             .map(p => getComputedStyle(p).backgroundColor),
                summary: texts('#summary .note')}; })()"""

    def test_warnings_next_to_the_chart(self):
        trees = os.path.join(hptest.BUILD, "examples", "trees")
        with cdp.Browser(self) as b:
            for heapprof in ("cc,ccs=mak", "roots"):
                with self.subTest(heapprof=heapprof):
                    r = hptest.run(self, [trees, "12"], heapprof=heapprof)
                    self.assertEqual(r.rc, 0, r.stderr)
                    said = re.findall(r"^ {8}\((warning|note): (.*)\)$", r.prof(), re.M)
                    self.assertIn("warning", [k for k, _t in said])
                    rr = report(self, ["trees.hp"], cwd=r.cwd)
                    self.assertEqual(rr.returncode, 0, rr.stderr)
                    page, url = self.open_page(b, os.path.join(r.cwd, "trees.html"))
                    C = page.evaluate(self.CALLOUT)
                    self.assertIsNotNone(C, "no callout")
                    self.assertTrue(C["shown"])
                    self.assertGreater(C["height"], 10)
                    self.assertTrue(C["before"])
                    self.assertTrue(C["sameCard"])
                    self.assertGreaterEqual(C["gap"], 0)
                    self.assertLess(C["gap"], 40)           # right above the chart
                    want = [["warn" if k == "warning" else "info", f"{k}: {text}"]
                            for k, text in said]
                    for item in want:
                        self.assertIn(item, C["items"])
                    self.assertEqual(set(C["warnBg"]), {"rgb(255, 244, 224)"})
                    for k, text in said:                    # and still under the summary
                        self.assertIn(f"{k}: {text}", C["summary"])
                    self.assert_clean(page, url)

    # --- the flame graph (icicle) of the .prof's allocation table ---

    # The drawn frames: each one's path from the root (full names, ';'
    # apart), its box against the graph's, its label, class and colour.
    FLAME = """(() => {
        const f = heapprofReport.flame, box = document.getElementById('flame-graph');
        const b = box.getBoundingClientRect();
        const path = id => { const p = []; for (let n = f.nodes[id]; n.parent >= 0; n = f.nodes[n.parent])
                                             p.unshift(f.name(n.id)); return p.join(';'); };
        const nodes = {};
        for (const e of box.querySelectorAll('.fnode')) {
            const r = e.getBoundingClientRect();
            nodes[path(+e.dataset.id)] = {left: r.left - b.left, width: r.width, top: r.top - b.top,
                x: r.left + r.width / 2, y: r.top + r.height / 2, text: e.textContent,
                cls: e.className, bg: getComputedStyle(e).backgroundColor};
        }
        return {width: b.width, nodes: nodes, state: f.state(),
                status: document.getElementById('flame-status').textContent,
                reset: document.getElementById('flame-reset').disabled,
                pressed: ['flame-bytes', 'flame-live'].map(
                    id => document.getElementById(id).getAttribute('aria-pressed'))}; })()"""

    def flame(self, page):
        page.evaluate("document.getElementById('flame').scrollIntoView({block: 'start'})")
        return page.evaluate(self.FLAME)

    def hover(self, page, node):
        page.mouse("mouseMoved", node["x"], node["y"])
        self.assertEqual(page.evaluate("getComputedStyle(document.getElementById('flame-tip'))"
                                       ".display"), "block")
        return page.evaluate("document.getElementById('flame-tip').innerText")

    def check_widths(self, G, values, zoomed=""):
        """Each frame drawn under the zoomed one (the root: '') is as wide as
        its share of the zoomed frame's value, within a pixel, and lies
        within its parent, the larger siblings first; each frame is one
        row (20 px) below its parent."""
        scale = G["width"] / values[zoomed]

        def parent(p):
            return p.rpartition(";")[0] if ";" in p else None if p == "" else ""
        for path, n in G["nodes"].items():
            if zoomed and not (path + ";").startswith(zoomed + ";"):
                continue
            with self.subTest(path=path):
                self.assertAlmostEqual(n["width"], values[path] * scale, delta=1)
                self.assertEqual(n["top"], 20 * (path.count(";") + 1 if path else 0))
                if path != zoomed:
                    up = G["nodes"][parent(path)]
                    self.assertGreaterEqual(n["left"], up["left"] - 0.5)
                    self.assertLessEqual(n["left"] + n["width"], up["left"] + up["width"] + 0.5)
                    for other, m in G["nodes"].items():
                        if parent(other) == parent(path) and values[other] > values[path]:
                            self.assertLess(m["left"], n["left"], (other, path))

    def test_flame_graph(self):
        d = tltest.tempdir(self)
        with open(os.path.join(d, "f.hp"), "w") as f:
            f.write(frames_hp(["make/build/main", "make/main", "main"]))
        with open(os.path.join(d, "f.prof"), "w") as f:
            f.write(flame_prof())
        r = report(self, ["f.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        # The value of each path from the root (outermost frame first), in
        # both weightings, from the table's rows.
        alloc, live = {"": 0}, {"": 0}
        for b, lv, name in FLAME_ROWS:
            frames = [f[0] for f in reversed(FLAME_FRAMES[name])] or [name]
            for k in range(len(frames) + 1):
                p = ";".join(frames[:k])
                alloc[p] = alloc.get(p, 0) + b
                live[p] = live.get(p, 0) + lv
        cxx = "ns::Map<int, std::pair<int, long> >::insert(std::pair<int, long> const&, int)"
        with cdp.Browser(self) as b:
            page, url = self.open_page(b, os.path.join(d, "f.html"))
            G = self.flame(page)
            self.keep("flame.png", page.screenshot())
            # --- drawn: every frame, the root the whole width, widths as bytes ---
            self.assertEqual(set(G["nodes"]), set(alloc))
            root = G["nodes"][""]
            self.assertEqual((root["left"], root["top"], root["text"]), (0, 0, "all stacks"))
            self.assertAlmostEqual(root["width"], G["width"], delta=0.5)
            self.assertGreater(G["width"], 1000)
            self.check_widths(G, alloc)
            self.assertEqual(G["nodes"]["main;build;" + cxx]["text"], "ns::Map<...>::insert")
            # Too narrow to label (9 px), still drawn; a name that looks like
            # markup is text.
            self.assertEqual(G["nodes"]["main;</script><b>x</b>"]["text"], "")
            self.assertLess(G["nodes"]["main;</script><b>x</b>"]["width"], 24)
            self.assertEqual(G["nodes"]["main;ns::operator/(ns::V const&, ns::V const&)"]
                             ["text"], "ns::operator/")
            self.assertEqual(page.evaluate("document.querySelectorAll('#flame b').length"), 0)
            # A function's colour is the same wherever it is called.
            self.assertEqual(G["nodes"]["main;make"]["bg"], G["nodes"]["main;build;make"]["bg"])
            self.assertNotEqual(G["nodes"]["main;make"]["bg"], G["nodes"]["main;build"]["bg"])
            self.assertEqual(G["status"], "all stacks: 8,448 bytes (8.25 KiB) allocated in 8 "
                                          "stacks")
            self.assertEqual((G["reset"], G["pressed"]), (True, ["true", "false"]))
            # The screenshot: the frames' colours are drawn.
            clip = page.evaluate("""(() => { const r = document.getElementById('flame-graph')
                .getBoundingClientRect(); return {x: r.left + scrollX, y: r.top + scrollY,
                width: r.width, height: r.height, scale: 1}; })()""")
            px = cdp.colour_counts(page.screenshot(clip))
            self.assertIn((223, 227, 234), px)                  # the root's grey
            self.assertGreater(len(px), 10)

            # --- pointing at a frame: its full name, bytes and shares ---
            tip = self.hover(page, G["nodes"]["main;build;" + cxx])
            self.assertEqual(tip.split("\n"),
                             [cxx, "/src/map.hh:40", "768 bytes allocated",
                              "9.1% of all stacks", "live at the peak: 256 bytes",
                              "1 stack \u00b7 click to zoom"])
            tip = self.hover(page, G["nodes"]["main;build"])
            self.assertEqual(tip.split("\n")[:5],
                             ["build", "/src/app.c:20, /src/app.c:21",
                              "4,864 bytes (4.75 KiB) allocated", "57.6% of all stacks",
                              "live at the peak: 1,280 bytes (1.25 KiB)"])
            tip = self.hover(page, G["nodes"]["main"])
            self.assertIn("in the function itself: 1,024 bytes (1.00 KiB)", tip)
            tip = self.hover(page, G["nodes"]["main;</script><b>x</b>"])
            self.assertEqual(tip.split("\n")[:4], ["</script><b>x</b>", "64 bytes allocated",
                                                   "0.8% of all stacks",
                                                   "live at the peak: 64 bytes"])
            self.assertEqual(page.evaluate("document.querySelectorAll('#flame b').length"), 0)
            page.mouse("mouseMoved", 5, 5)
            self.assertEqual(page.evaluate("getComputedStyle(document.getElementById('flame-tip'))"
                                           ".display"), "none")

            # --- a click zooms: the frame spans the width, its ancestors above ---
            page.click(G["nodes"]["main;build"]["x"], G["nodes"]["main;build"]["y"])
            Z = self.flame(page)
            self.assertEqual(Z["state"]["weight"], 0)
            zb = Z["nodes"]["main;build"]
            self.assertEqual(zb["left"], 0)
            self.assertAlmostEqual(zb["width"], Z["width"], delta=0.5)
            self.assertIn("zoomed", zb["cls"])
            for anc in ("", "main"):
                self.assertIn("anc", Z["nodes"][anc]["cls"])
                self.assertAlmostEqual(Z["nodes"][anc]["width"], Z["width"], delta=0.5)
            # Its siblings and their frames are gone; its children fill it.
            self.assertEqual(set(Z["nodes"]), {"", "main", "main;build", "main;build;make",
                                               "main;build;" + cxx})
            self.check_widths(Z, alloc, "main;build")
            self.assertFalse(Z["reset"])
            self.assertIn("zoomed on build: 57.6%", Z["status"])
            tip = self.hover(page, Z["nodes"]["main;build;make"])
            self.assertIn("48.5% of all stacks \u00b7 84.2% of build (zoomed)", tip)
            # Reset restores the whole graph; so does a click on the root.
            page.evaluate("document.getElementById('flame-reset').click()")
            R = self.flame(page)
            self.assertEqual(set(R["nodes"]), set(alloc))
            self.check_widths(R, alloc)
            self.assertTrue(R["reset"])
            page.click(R["nodes"]["main;build;make"]["x"], R["nodes"]["main;build;make"]["y"])
            self.assertEqual(set(self.flame(page)["nodes"]), {"", "main", "main;build",
                                                             "main;build;make"})
            root = self.flame(page)["nodes"][""]
            page.click(root["x"], root["y"])
            self.assertEqual(set(self.flame(page)["nodes"]), set(alloc))

            # --- the toggle: live at the peak ---
            page.evaluate("document.getElementById('flame-live').click()")
            L = self.flame(page)
            self.assertEqual((L["state"]["weight"], L["pressed"]), (1, ["false", "true"]))
            shown = {p for p, v in live.items() if v or p == ""}
            self.assertEqual(set(L["nodes"]), shown)            # none of 0 bytes live
            self.assertNotIn("main;make", L["nodes"])
            self.assertNotIn("UNKNOWN", L["nodes"])
            self.check_widths(L, live)
            self.assertAlmostEqual(L["nodes"][""]["width"], L["width"], delta=0.5)
            self.assertEqual(L["status"], "all stacks: 2,240 bytes (2.19 KiB) live at the peak "
                                          "in 8 stacks")
            tip = self.hover(page, L["nodes"]["main;build"])
            self.assertEqual(tip.split("\n")[2:5],
                             ["1,280 bytes (1.25 KiB) live at the peak", "57.1% of all stacks",
                              "allocated: 4,864 bytes (4.75 KiB)"])
            # Zoomed in the live view; back to allocated keeps the zoom.
            page.click(L["nodes"]["main;build"]["x"], L["nodes"]["main;build"]["y"])
            self.check_widths(self.flame(page), live, "main;build")
            page.evaluate("document.getElementById('flame-bytes').click()")
            A = self.flame(page)
            self.assertEqual(A["state"]["weight"], 0)
            self.check_widths(A, alloc, "main;build")
            self.assertIn("zoomed on build", A["status"])
            # A frame with nothing live: the live view shows every stack.
            page.evaluate("document.getElementById('flame-reset').click()")
            mk = self.flame(page)["nodes"]["main;make"]
            page.click(mk["x"], mk["y"])
            page.evaluate("document.getElementById('flame-live').click()")
            self.assertEqual(set(self.flame(page)["nodes"]), shown)
            self.assert_clean(page, url)
            # Nothing live at the peak: the live view says so.
            rows = [(b, 0, name) for b, _lv, name in FLAME_ROWS]
            with open(os.path.join(d, "z.prof"), "w") as f:
                f.write(flame_prof(rows=rows))
            r = report(self, ["f.hp", "--prof", "z.prof", "-o", "z.html"], cwd=d)
            self.assertEqual(r.returncode, 0, r.stderr)
            page, url = self.open_page(b, os.path.join(d, "z.html"))
            self.assertEqual(set(self.flame(page)["nodes"]), set(alloc))
            page.evaluate("document.getElementById('flame-live').click()")
            Z = self.flame(page)
            self.assertEqual((Z["nodes"], Z["status"]),
                             ({}, "all stacks: 0 bytes live at the peak in 8 stacks"))
            self.assertEqual(page.evaluate("document.querySelector('#flame-graph .empty')"
                                           ".textContent"),
                             "No bytes of these stacks were live at the peak.")
            page.evaluate("document.getElementById('flame-bytes').click()")
            self.assertEqual(set(self.flame(page)["nodes"]), set(alloc))
            self.assert_clean(page, url)

    def test_flame_graph_of_many_stacks(self):
        # 3000 stacks: the frames narrower than a pixel are not drawn (and
        # counted), the drawn ones are at least a pixel wide; zooming in
        # draws more of them; drawing takes milliseconds.
        d = tltest.tempdir(self)
        text, rows = many_stacks_prof(3000)
        with open(os.path.join(d, "m.prof"), "w") as f:
            f.write(text)
        with open(os.path.join(d, "m.hp"), "w") as f:
            f.write(frames_hp(["main"]))
        r = report(self, ["m.hp"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        count = """(() => { const f = heapprofReport.flame, w = f.state().weight;
            return f.nodes.filter(n => n.v[w] > 0).length; })()"""
        with cdp.Browser(self) as b:
            page, url = self.open_page(b, os.path.join(d, "m.html"))
            ms = page.evaluate("(() => { const t = performance.now(); heapprofReport.flame"
                               ".render(); return performance.now() - t; })()")
            self.assertLess(ms, 1000)
            G = self.flame(page)
            box = page.evaluate("Object.assign({}, document.getElementById('flame-graph')"
                                ".dataset)")
            drawn, narrow = int(box["drawn"]), int(box["narrow"])
            self.assertEqual(drawn, len(G["nodes"]))
            self.assertGreater(narrow, 100)
            self.assertEqual(drawn + narrow, page.evaluate(count))
            self.assertIn(f"{narrow:,} frames narrower than a pixel not drawn", G["status"])
            self.assertEqual(G["nodes"][""]["text"], "all stacks")
            for path, n in G["nodes"].items():
                self.assertGreaterEqual(n["width"], 1 - 1e-6, path)
            self.assertEqual(page.evaluate("heapprofReport.flame.nodes[0].v[0]"),
                             sum(rows.values()))
            # Zoom into the second-largest frame under main: more of its
            # subtree is drawn than was.
            under = sorted((p for p in G["nodes"] if p.count(";") == 1),
                           key=lambda p: -G["nodes"][p]["width"])
            target = under[1]
            before = sum(1 for p in G["nodes"] if p.startswith(target + ";"))
            page.click(G["nodes"][target]["x"], G["nodes"][target]["y"])
            Z = self.flame(page)
            self.assertAlmostEqual(Z["nodes"][target]["width"], Z["width"], delta=0.5)
            self.assertGreater(sum(1 for p in Z["nodes"] if p.startswith(target + ";")), before)
            self.assertNotIn(under[0], Z["nodes"])
            self.assert_clean(page, url)

    # --- mode retainer's dominator tree (dominators=yes) ---

    DOMTREE = """(() => {
        // Each node of the dominator tree: its level, name, figures as
        // shown, whether it is drawn now, and where to click it.
        const rows = document.querySelectorAll('.prof-tree .dt-row:not(.dt-head)');
        return Array.from(rows).map(r => {
            const b = r.getBoundingClientRect(), q = s => r.querySelector(s);
            const d = r.tagName === 'SUMMARY' ? r.parentElement : null;
            return {level: +r.dataset.level, name: q('.dt-stack').textContent,
                    held: q('.dt-held') ? q('.dt-held').textContent : '',
                    retained: q('.dt-ret').textContent, exact: q('.dt-ret').title,
                    objects: q('.dt-obj').textContent, own: q('.dt-own').textContent,
                    share: q('.dt-pct').textContent, barWidth: q('.dt-bar i').style.width,
                    shown: r.checkVisibility() && b.height > 0,
                    open: d ? d.open : null, x: b.left + 40, y: b.top + b.height / 2}; }); })()"""

    def domtree(self, page, scroll_to=None):
        """The tree's nodes; with scroll_to (an index), that node scrolled
        into view first (for its click coordinates)."""
        if scroll_to is not None:
            page.evaluate("document.querySelectorAll('.prof-tree .dt-row:not(.dt-head)')"
                          f"[{scroll_to}].scrollIntoView({{block: 'center'}})")
        return page.evaluate(self.DOMTREE)

    def test_dominator_tree(self):
        # A real run of tests/progs/retained.c (its dominator tree known by
        # construction): the .prof's tree, three levels down, as a tree a
        # click opens level by level.
        r = hptest.run(self, [hptest.prog("retained")],
                       heapprof="retainer,interval=0,dominators=yes")
        self.assertEqual(r.rc, 0, r.stderr)
        want = {w[1]: (int(w[2]), int(w[3])) for w in map(str.split, r.stdout.splitlines())
                if w[0] == "TOP"}
        # The .prof's tree, read here by its fixed columns: retained bytes
        # (11), objects (13), own bytes (13, blank on a line of others),
        # two blanks and two more a level, the name (and at the first
        # level '; ' and the retainer set).
        prof = r.prof()
        reached = int(re.search(r"^RETAINED SIZES \(dominators=yes: .* the most bytes reached: "
                                r"(\d+) bytes", prof, re.M).group(1))
        lines = prof.split("\nThe dominator tree, three levels down", 1)[1]
        lines = lines.split("\n\n", 1)[0].splitlines()[2:]
        rows = []
        for line in lines:
            rest = line[39:]
            name = rest.lstrip(" ")
            rows.append(((len(rest) - len(name)) // 2, int(line[:11]), int(line[11:24]),
                         line[24:37].strip(), name))
        self.assertGreaterEqual(len(rows), 13)
        rr = report(self, ["retained.hp"], cwd=r.cwd)
        self.assertEqual(rr.returncode, 0, rr.stderr)

        def human(b):
            return "%.2f KiB" % (b / 1024) if b >= 1024 else f"{b} bytes"

        with cdp.Browser(self) as b:
            page, url = self.open_page(b, os.path.join(r.cwd, "retained.html"))
            T = self.domtree(page)
            # Every line of the .prof is a node, in its order, with its level and figures.
            self.assertEqual([(n["level"], int(n["exact"].split()[0].replace(",", "")),
                               int(n["objects"].replace(",", "")), n["own"].replace(",", ""))
                              for n in T], [row[:4] for row in rows])
            self.assertEqual([n["name"] + ("; " + n["held"][len("held by "):] if n["level"] == 0
                                           and n["held"].startswith("held by ") else "")
                              for n in T], [row[4] for row in rows])
            # The first level is shown: each node its retained bytes (readable,
            # exact in the title), objects, own bytes and share of what was reached.
            top = {}
            for n, row in zip(T, rows):
                if n["level"] == 0:
                    self.assertTrue(n["shown"], n)
                    top.setdefault(n["name"], []).append(n)
                    ret = row[1]
                    self.assertEqual((n["retained"], n["exact"], n["objects"]),
                                     (human(ret), f"{ret:,} bytes retained", f"{row[2]:,}"))
                    self.assertEqual(n["share"], "%.1f%%" % (100 * ret / reached)
                                     if 100 * ret / reached >= 0.1 else "<0.1%")
                    self.assertAlmostEqual(float(n["barWidth"].rstrip("%")),
                                           100 * ret / reached, delta=0.005)
                    self.assertEqual(n["open"], None if row is rows[-1] or
                                     rows[rows.index(row) + 1][0] == 0 else False)
                else:
                    # Deeper levels: hidden until their parent is opened.
                    self.assertFalse(n["shown"], n)
            for key, stack in (("list", "make_list"), ("shared", "make_shared"),
                               ("holder", "make_holder")):
                (n,) = top[stack + "/build/main"]
                self.assertEqual((n["exact"], n["objects"]),
                                 (f"{want[key][0]:,} bytes retained", f"{want[key][1]:,}"))
            self.assertEqual([(n["exact"], n["objects"]) for n in top["make_leaf/build/main"]],
                             [(f"{want['leaf'][0]:,} bytes retained", "1")])
            # (A retainer set's number varies from run to run.)
            self.assertRegex(top["make_leaf/build/main"][0]["held"],
                             r"^held by \(\d+\)g_holder,g_leaf$")
            self.assertRegex(top["make_holder/build/main"][0]["held"], r"^held by \(\d+\)g_holder$")
            self.assertRegex(top["make_list/build/main"][0]["held"], r"^held by \(\d+\)g_list$")
            self.assertEqual(top["make_holder/build/main"][0]["own"],
                             str(want["holder"][0] - (want["holder"][1] - 1) * want["leaf"][0]))
            # A click on the holder's node shows its children: five leaves and
            # the other fourteen on one line; nothing else opens.
            h = [i for i, n in enumerate(T) if n["name"] == "make_holder/build/main"][0]
            kids = list(range(h + 1, h + 7))
            leaf = want["leaf"][0]
            T = self.domtree(page, h)
            page.click(T[h]["x"], T[h]["y"])
            T = self.domtree(page)
            self.assertTrue(T[h]["open"])
            self.assertEqual([(n["level"], n["name"], n["exact"], n["objects"], n["own"],
                               n["shown"]) for n in (T[k] for k in kids)],
                             [(1, "make_leaf/build/main", f"{leaf} bytes retained", "1",
                               str(leaf), True)] * 5 +
                             [(1, "(14 others)", f"{14 * leaf} bytes retained", "14", "", True)])
            self.assertEqual(T[kids[-1]]["retained"], human(14 * leaf))
            self.assertEqual([i for i, n in enumerate(T) if n["shown"]],
                             sorted([i for i, n in enumerate(T) if n["level"] == 0] + kids))
            self.keep("domtree.png", page.screenshot())
            # A second click hides them again.
            T = self.domtree(page, h)
            page.click(T[h]["x"], T[h]["y"])
            T = self.domtree(page)
            self.assertFalse(T[h]["open"])
            self.assertEqual([T[k]["shown"] for k in kids], [False] * 6)
            self.assertEqual([i for i, n in enumerate(T) if n["shown"]],
                             [i for i, n in enumerate(T) if n["level"] == 0])
            # Level by level: the list's head opens on its next node only,
            # whose own click shows the third level.
            T = self.domtree(page, 0)
            page.click(T[0]["x"], T[0]["y"])
            T = self.domtree(page, 1)
            self.assertEqual([T[1]["shown"], T[1]["open"], T[2]["shown"]], [True, False, False])
            page.click(T[1]["x"], T[1]["y"])
            T = self.domtree(page)
            self.assertEqual((T[2]["level"], T[2]["shown"], T[2]["exact"]),
                             (2, True, f"{rows[2][1]:,} bytes retained"))
            # Open all and close all.
            page.evaluate("document.querySelector('.dt-tools button[data-dt=open]').click()")
            self.assertTrue(all(n["shown"] for n in self.domtree(page)))
            page.evaluate("document.querySelector('.dt-tools button[data-dt=close]').click()")
            self.assertEqual([n["shown"] for n in self.domtree(page)],
                             [n["level"] == 0 for n in T])
            # The section's other tables are sortable tables still.
            titles = [t["title"] for t in page.evaluate(self.TABLES)]
            self.assertIn("What each object under the root keeps alive alone, largest first",
                          titles)
            self.assertIn("What each allocation stack's objects keep alive", titles)
            self.assert_clean(page, url)


if __name__ == "__main__":
    unittest.main()
