#!/usr/bin/env python3
"""heapprof_diff: the difference between two runs as one self-contained
HTML page.

    heapprof diff OLD.hp NEW.hp [-o OUT.html] [--top N]
    python3 heapprof_diff.py OLD.hp NEW.hp ...      (the same)

The page shows, per band (a .hp label), the peak and the mean bytes before
(OLD) and after (NEW) and their change, largest increase of the peak
first, a band found in one run only as new or gone; the two runs' stacked
area charts on one y scale (the larger peak) with their own time axes;
with the .prof (or .alloc.csv) files beside both, the allocation tables'
bytes and live@peak per stack before and after; and, with the .pb.gz
files beside both, the `go tool pprof -base` command that compares them.

Like heapprof report's page it has no outside references (CSS, script and
data inline, charts drawn as SVG in the page) and everything taken from
the files is escaped. Python 3 standard library only; the .hp and .prof
parsers are heapprof_report.py's (next to this file).
"""
import argparse
import csv
import os
import re
import shlex
import sys

try:
    import heapprof_report as R
except ImportError:         # imported by path, from another directory
    sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
    import heapprof_report as R

from heapprof_report import (CHART_HELPERS_JS, esc, human, json_for_script, parse_hp,  # noqa: E402
                             parse_prof)

PROG = "heapprof diff"
ALLOC_TITLE = "allocation by cost-centre stack"


class DiffError(Exception):
    """Input the page cannot be made of: str() is the message, naming the
    problem and what to do; exit status 2, no page."""


# ---------------------------------------------------------------------------
# One run: its .hp, and what lies beside it

def stem_of(path):
    return path[:-3] if path.endswith(".hp") else path


def load_hp(path, prog=PROG):
    """(HeapProfile, the file drawn, [notes for stderr]) of a run's .hp;
    raises DiffError for a file that is missing, unreadable, not a heap
    profile or malformed."""
    if not os.path.exists(path):
        hint = ""
        if not path.endswith(".hp") and os.path.isfile(path + ".hp"):
            hint = f" ({path}.hp exists: give that)"
        raise DiffError(f"{prog}: {path}: no such file; give the .hp file heapprof wrote "
                        f"for the run (PROG.hp, or STEM.hp with out=STEM){hint}")
    if os.path.isdir(path):
        raise DiffError(f"{prog}: {path} is a directory; give the .hp file of a run in it")
    try:
        hp = parse_hp(path, path)
    except R.HpError as e:
        try:
            kind = R.file_kind(path)
        except OSError:
            kind = None
        if kind is not None:
            # A .prof, a CSV, a program, a page... where the .hp is wanted.
            raise DiffError(R.not_hp_message(path, kind, prog)) from None
        raise DiffError(f"{e}\n{prog}: {path} is not a valid heap profile; "
                        "no page written") from None
    except OSError as e:
        raise DiffError(f"{prog}: cannot read {path}: {e.strerror}") from None
    notes = [f"warning: {w}" for w in hp.warnings]
    source = path
    # A run that did not finish in mode ldv: its samples are in
    # PROG.partial.hp (as heapprof report draws it).
    partial = stem_of(path) + ".partial.hp"
    if not any(hp.values) and not R.PARTIAL_RE.search(hp.header["JOB"]) \
            and os.path.isfile(partial):
        try:
            php = parse_hp(partial, partial)
        except (R.HpError, OSError) as e:
            notes.append(f"warning: cannot read {partial}: {e}; left out")
        else:
            notes.append(f"note: {path} has no samples: the program did not finish (mode "
                         f"ldv writes its samples at the end); using {partial}, the partial "
                         "profile heapprof kept, instead")
            hp, source = php, partial
    return hp, source, notes


def band_stats(hp):
    """({label: {peak, peakTime, mean}}, [total bytes per sample]) of a
    parsed .hp. The mean is over the samples, as heapprof report's bands
    table and hp2ps take it; a label's peak is its largest value and the
    first time it had it."""
    nsamp = len(hp.times)
    totals = [0] * len(hp.labels)
    peaks = [0] * len(hp.labels)
    peak_at = [0] * len(hp.labels)
    sample_totals = []
    for i, vals in enumerate(hp.values):
        s = 0
        for k, v in vals.items():
            totals[k] += v
            s += v
            if v > peaks[k]:
                peaks[k], peak_at[k] = v, i
        sample_totals.append(s)
    stats = {}
    for k, label in enumerate(hp.labels):
        stats[label] = {"peak": peaks[k], "peakTime": hp.times[peak_at[k]] if nsamp else 0.0,
                        "mean": totals[k] / nsamp if nsamp else 0.0}
    return stats, sample_totals


def pct(old, new):
    """The change from old to new in percent of old; None when old is 0
    (and new is not: no percentage of nothing)."""
    if old == 0:
        return 0.0 if new == 0 else None
    return (new - old) / old * 100.0


def diff_bands(old_stats, new_stats):
    """Per label of either run: {name, status ("both", "new": only in NEW,
    "gone": only in OLD), peakOld, peakNew, peakChange, peakPct, meanOld,
    meanNew, meanChange, meanPct} (the figures of the run a label is not
    in are None; its change is counted from 0, its percentages None),
    sorted by the change in peak, the largest increase first (then by
    name)."""
    rows = []
    for name in set(old_stats) | set(new_stats):
        o, n = old_stats.get(name), new_stats.get(name)
        status = "both" if o and n else "new" if n else "gone"
        row = {"name": name, "status": status}
        for key in ("peak", "mean"):
            a = o[key] if o else None
            b = n[key] if n else None
            row[key + "Old"], row[key + "New"] = a, b
            row[key + "Change"] = (b or 0) - (a or 0)
            row[key + "Pct"] = pct(a, b) if status == "both" else None
        rows.append(row)
    rows.sort(key=lambda r: (-r["peakChange"], r["name"]))
    return rows


def heap_figures(hp, sample_totals):
    """{peak, peakTime, mean, samples, duration} of the whole heap (all
    bands added up) of a run."""
    n = len(sample_totals)
    pk = max(range(n), key=lambda i: (sample_totals[i], -i)) if n else 0
    return {"peak": sample_totals[pk] if n else 0, "peakTime": hp.times[pk] if n else 0.0,
            "peakIndex": pk, "mean": sum(sample_totals) / n if n else 0.0, "samples": n,
            "duration": hp.times[-1] if n else 0.0}


# ---------------------------------------------------------------------------
# The allocation tables (.prof, or .alloc.csv)

def _int(s):
    try:
        return int(s)
    except (TypeError, ValueError):
        return None


def alloc_from_prof(prof):
    """{stack: (bytes, live@peak)}, total row or None, of the allocation
    table of a parsed heapprof .prof; None when it has none."""
    for t in prof["tables"]:
        if t["title"] != ALLOC_TITLE:
            continue
        cols = t["columns"]
        if "bytes" not in cols or "live@peak" not in cols:
            return None
        jb, jl = cols.index("bytes"), cols.index("live@peak")
        rows, total = {}, None
        for r in t["rows"]:
            b, live = _int(r[jb]), _int(r[jl])
            if b is None or live is None:
                continue
            if r[-1] == "total profiled":
                total = (b, live)
            else:
                rows[r[-1]] = (b, live)
        return rows, total
    return None


def alloc_from_csv(path):
    """The same from heapprof's PROG.alloc.csv (rows of breakdown "all")."""
    rows, total = {}, None
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        reader = csv.DictReader(f)
        if not reader.fieldnames or not {"stack", "breakdown", "bytes", "live_at_peak"} \
                <= set(reader.fieldnames):
            return None
        for r in reader:
            if r["breakdown"] != "all":
                continue
            b, live = _int(r["bytes"]), _int(r["live_at_peak"])
            if b is None or live is None:
                continue
            if r["stack"] == "total profiled":
                total = (b, live)
            else:
                rows[r["stack"]] = (b, live)
    return rows, total


class Side:
    """What lies beside a run's .hp: its .prof (parsed, or None), the
    allocation table from it or from the .alloc.csv ({stack: (bytes,
    live@peak)}, total, the file's name) and the .pb.gz, if any."""

    def __init__(self, hp_path, notes):
        stem = stem_of(hp_path)
        self.prof = None
        self.prof_path = ""
        self.alloc = None
        self.alloc_total = None
        self.alloc_source = ""
        self.pb = stem + ".pb.gz" if os.path.isfile(stem + ".pb.gz") else ""
        prof_path = stem + ".prof"
        if os.path.isfile(prof_path):
            try:
                prof = parse_prof(prof_path)
            except OSError as e:
                notes.append(f"warning: cannot read {prof_path}: {e.strerror}; left out")
            else:
                if prof["heapprof"]:
                    self.prof, self.prof_path = prof, prof_path
                    found = alloc_from_prof(prof)
                    if found:
                        self.alloc, self.alloc_total = found
                        self.alloc_source = prof_path
        csv_path = stem + ".alloc.csv"
        if self.alloc is None and os.path.isfile(csv_path):
            try:
                found = alloc_from_csv(csv_path)
            except (OSError, csv.Error) as e:
                notes.append(f"warning: cannot read {csv_path}: {e}; left out")
                found = None
            if found:
                self.alloc, self.alloc_total = found
                self.alloc_source = csv_path

    def setting(self, pattern):
        m = re.search(pattern, self.prof["settings"]) if self.prof else None
        return m.group(1) if m else None

    def allocated(self):
        """Bytes allocated over the run, from the .prof's summary, or None."""
        if not self.prof:
            return None
        m = re.match(r"(\d+) objects, (\d+) bytes", dict(self.prof["summary"])
                     .get("allocated", ""))
        return int(m.group(2)) if m else None


def diff_alloc(old, new):
    """Per stack of either table: {name, status, bytesOld, bytesNew,
    bytesChange, bytesPct, liveOld, liveNew, liveChange, livePct}, sorted
    by the change in bytes allocated, the largest increase first (then by
    the change in live@peak, then by name)."""
    rows = []
    for name in set(old) | set(new):
        o, n = old.get(name), new.get(name)
        status = "both" if o and n else "new" if n else "gone"
        row = {"name": name, "status": status}
        for j, key in enumerate(("bytes", "live")):
            a = o[j] if o else None
            b = n[j] if n else None
            row[key + "Old"], row[key + "New"] = a, b
            row[key + "Change"] = (b or 0) - (a or 0)
            row[key + "Pct"] = pct(a, b) if status == "both" else None
        rows.append(row)
    rows.sort(key=lambda r: (-r["bytesChange"], -r["liveChange"], r["name"]))
    return rows


def total_row(name, old, new):
    """A row of diff_alloc's shape for two totals (bytes, live), either
    of which may be None (no total row in that run's table)."""
    row = {"name": name, "status": "both"}
    for j, key in enumerate(("bytes", "live")):
        a = old[j] if old else None
        b = new[j] if new else None
        row[key + "Old"], row[key + "New"] = a, b
        row[key + "Change"] = (b or 0) - (a or 0)
        row[key + "Pct"] = pct(a or 0, b or 0)
    return row


def pprof_commands(old_pb, new_pb):
    """The go tool pprof commands comparing the two exports."""
    base = f"-base {shlex.quote(old_pb)} {shlex.quote(new_pb)}"
    return [("bytes allocated over the run, per function: NEW minus OLD",
             f"go tool pprof -top -sample_index=alloc_space {base}"),
            ("bytes live at the peak census",
             f"go tool pprof -top -sample_index=inuse_space {base}"),
            ("the same in a browser (flame graph, call graph, source)",
             f"go tool pprof -http=:8080 -sample_index=alloc_space {base}")]


# ---------------------------------------------------------------------------
# The charts' data: the same bands, colours and stacking order in both

def chart_bands(runs, top):
    """(drawn labels, in stacking order, the largest first; whether the
    profile is biographical). Ranked by the larger of the two means (as
    heapprof report stacks by the mean), so a band large in either run is
    drawn; the rest go into OTHER."""
    stats = [r["stats"] for r in runs]
    labels = set().union(*stats)
    ldv = bool(labels) and all(lab in R.LDV_COLOURS for lab in labels)
    if ldv:
        return sorted(labels, key=R.LDV_ORDER.index), True

    def key(lab):
        means = [s[lab]["mean"] for s in stats if lab in s]
        peaks = [s[lab]["peak"] for s in stats if lab in s]
        return (-max(means), -max(peaks), lab)
    order = sorted(labels, key=key)
    return (order if top <= 0 else order[:top]), False


def run_series(hp, drawn):
    """Values per sample of each drawn band, and of OTHER (the rest)."""
    index = {lab: k for k, lab in enumerate(hp.labels)}
    shown = set(index[lab] for lab in drawn if lab in index)
    series = []
    for lab in drawn:
        k = index.get(lab)
        series.append([vals.get(k, 0) for vals in hp.values] if k is not None
                      else [0] * len(hp.values))
    other = [sum(v for k, v in vals.items() if k not in shown) for vals in hp.values]
    return series, other


def build_data(old, new, top):
    """The page's data (embedded as JSON): both runs' samples and drawn
    bands, the bands table, the allocation table, the figures."""
    runs = [old, new]
    drawn, ldv = chart_bands(runs, top)
    labels = set(old["stats"]) | set(new["stats"])
    n_other = len(labels) - len(drawn)
    bands = []
    for rank, lab in enumerate(drawn):
        bands.append({"name": lab, "colour": R.LDV_COLOURS[lab] if ldv else R.colour(rank)})
    out_runs = []
    for key, run in (("before", old), ("after", new)):
        hp = run["hp"]
        series, other = run_series(hp, drawn)
        if n_other:
            series.append(other)
        out_runs.append({
            "key": key, "source": run["source"], "job": hp.header["JOB"],
            "date": hp.header["DATE"], "sampleUnit": hp.header["SAMPLE_UNIT"] or "seconds",
            "times": hp.times, "totals": run["totals"], "marks": hp.marks,
            "values": series, "heap": run["heap"],
            "peaks": [max(s) if s else 0 for s in series]})
    if n_other:
        bands.append({"name": "OTHER", "colour": R.OTHER_COLOUR, "other": n_other})
    return {"valueUnit": old["hp"].header["VALUE_UNIT"] or "bytes", "bands": bands,
            "runs": out_runs, "ldv": ldv, "nLabels": len(labels),
            "bandDiff": diff_bands(old["stats"], new["stats"])}


# ---------------------------------------------------------------------------
# HTML

def plural(n, word):
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def fmt_bytes(v):
    """A figure of bytes, grouped ('1,234'); '—' for a run it is not in."""
    return "—" if v is None else f"{round(v):,}"


def fmt_change(v):
    r = round(v)
    return f"+{r:,}" if r > 0 else f"{r:,}" if r < 0 else "0"


def fmt_pct(p, status):
    if status in ("new", "gone"):
        return status
    if p is None:
        return "from 0"
    return f"{p:+.1f}%" if abs(p) >= 0.05 else "0.0%"


def pct_key(p, status):
    """The sort value of a change in percent: a new band counts as the
    largest increase, a gone one as -100%."""
    if status == "new" or (p is None and status == "both"):
        return "Infinity"
    if status == "gone":
        return "-100"
    return repr(p)


def num_cell(v, shown, cls=""):
    return f'<td class="num{cls}" data-v="{esc(v)}">{esc(shown)}</td>'


def change_cells(row, key):
    """The before, after, change and change-% cells of one figure."""
    a, b = row[key + "Old"], row[key + "New"]
    ch, p = row[key + "Change"], row[key + "Pct"]
    sign = " up" if ch > 0 else " down" if ch < 0 else ""
    return (num_cell(repr(a or 0), fmt_bytes(a), " first") + num_cell(repr(b or 0), fmt_bytes(b))
            + num_cell(repr(ch), fmt_change(ch), " change" + sign)
            + num_cell(pct_key(p, row["status"]), fmt_pct(p, row["status"]),
                       " pct" + sign))


def diff_table(table_id, first, figures, rows, foot=None):
    """A sortable table: a name column, then per figure (key, heading)
    its before, after, change and change-% columns under the figure's
    heading; sorted already (by the first change column, as its header
    shows); `foot` a row kept under the others when sorting."""
    group = ['<tr class="group"><th class="txt"></th>']
    heads = [f'<th class="txt" title="sort by {esc(first)}">{esc(first)}</th>']
    for _key, name in figures:
        group.append(f'<th class="grp" colspan="4">{esc(name)}</th>')
        for j, what in enumerate(("before", "after", "change", "change %")):
            mark = " desc" if len(heads) == 3 else ""
            heads.append(f'<th class="num{mark}{" first" if j == 0 else ""}" '
                         f'title="sort by {esc(name)} {what}">{what}</th>')
    out = [f'<table class="data sortable diff" id="{table_id}" data-sort="3" data-desc="1">'
           f'<thead>{"".join(group)}</tr><tr class="cols">{"".join(heads)}</tr></thead><tbody>']

    def row_html(row):
        cls = f' class="{row["status"]}"' if row["status"] != "both" else ""
        cells = [f'<td class="txt name">{esc(row["name"])}</td>']
        for key, _name in figures:
            cells.append(change_cells(row, key))
        return f"<tr{cls}>{''.join(cells)}</tr>"
    for row in rows:
        out.append(row_html(row))
    out.append("</tbody>")
    if foot:
        out.append(f"<tfoot>{row_html(foot)}</tfoot>")
    out.append("</table>")
    return "".join(out)


def run_line(label, run, side):
    hp = run["hp"]
    job = hp.header["JOB"] or "(no JOB line)"
    extra = f" · {esc(side.prof_path)}" if side.prof_path else ""
    return (f'<tr class="run-{label}"><th>{"before" if label == "before" else "after"}</th>'
            f'<td class="job" id="job-{label}">{esc(job)}</td>'
            f'<td class="date" id="date-{label}">{esc(hp.header["DATE"])}</td>'
            f'<td class="file">{esc(run["source"])}{extra}</td></tr>')


def stat(k, v, s="", cls=""):
    return (f'<div class="stat{cls}"><div class="k">{esc(k)}</div><div class="v">{esc(v)}'
            f'</div><div class="s">{esc(s)}</div></div>')


def render_page(data, old, new, old_side, new_side, warnings):
    unit = data["valueUnit"]
    ho, hn = old["heap"], new["heap"]
    ch = hn["peak"] - ho["peak"]
    p = pct(ho["peak"], hn["peak"])
    cards = [stat("peak before", human(ho["peak"], unit),
                  f'at {ho["peakTime"]:.3f} s, {ho["samples"]:,} samples'),
             stat("peak after", human(hn["peak"], unit),
                  f'at {hn["peakTime"]:.3f} s, {hn["samples"]:,} samples'),
             stat("peak change", ("+" if ch > 0 else "-" if ch < 0 else "")
                  + human(abs(ch), unit),
                  "from nothing" if p is None else f"{p:+.1f}%",
                  " up" if ch > 0 else " down" if ch < 0 else "")]
    rows = data["bandDiff"]
    nnew = sum(r["status"] == "new" for r in rows)
    ngone = sum(r["status"] == "gone" for r in rows)
    cards.append(stat("bands", f"{len(rows):,}", f"{nnew} new, {ngone} gone"))
    ao, an = old_side.allocated(), new_side.allocated()
    if ao is not None and an is not None:
        pa = pct(ao, an)
        cards.append(stat("allocated", f"{human(ao)} → {human(an)}",
                          "from nothing" if pa is None else f"{pa:+.1f}%"))
    heap_foot = {"name": "whole heap (all bands)", "status": "both"}
    for key in ("peak", "mean"):
        heap_foot[key + "Old"], heap_foot[key + "New"] = ho[key], hn[key]
        heap_foot[key + "Change"] = hn[key] - ho[key]
        heap_foot[key + "Pct"] = pct(ho[key], hn[key])
    bands_table = diff_table("bands-diff", "band", [("peak", "peak"), ("mean", "mean")],
                             rows, heap_foot)

    alloc_html = ""
    if old_side.alloc is not None and new_side.alloc is not None:
        arows = diff_alloc(old_side.alloc, new_side.alloc)
        foot = None
        if old_side.alloc_total or new_side.alloc_total:
            foot = total_row("total profiled", old_side.alloc_total, new_side.alloc_total)
        data["allocDiff"] = arows
        table = diff_table("alloc-diff", "cost-centre stack (innermost first)",
                           [("bytes", "bytes"), ("live", "live@peak")], arows, foot)
        alloc_html = (f'<section class="card" id="alloc"><h2>Allocation by cost-centre stack '
                      f'<span class="sub">{esc(os.path.basename(old_side.alloc_source))} → '
                      f'{esc(os.path.basename(new_side.alloc_source))}; bytes allocated over '
                      f'the run and live at the peak census; {plural(len(arows), "stack")}, by the '
                      f'change in bytes; click a column to sort</span></h2>'
                      f'<div class="scroll">{table}</div></section>')
    else:
        missing = [s for s, side in ((old["source"], old_side), (new["source"], new_side))
                   if side.alloc is None]
        alloc_html = (f'<section class="card" id="alloc"><h2>Allocation by cost-centre stack'
                      f'</h2><p class="note">Not compared: no heapprof .prof or .alloc.csv '
                      f'with an allocation table beside {esc(" and ".join(missing))}.</p>'
                      f"</section>")

    pprof_html = ""
    if old_side.pb and new_side.pb:
        cmds = pprof_commands(old_side.pb, new_side.pb)
        data["pprof"] = cmds[0][1]
        items = "".join(f'<p class="note">{esc(what)}:</p><pre class="cmd">{esc(cmd)}</pre>'
                        for what, cmd in cmds)
        pprof_html = (f'<section class="card" id="pprof"><h2>With pprof <span class="sub">'
                      f'both runs were exported as profile.proto: -base subtracts the '
                      f'first from the second (run where heapprof diff was run)</span></h2>'
                      f"{items}</section>")

    warn_html = "".join(f'<p class="warn">{esc(w)}</p>' for w in warnings)
    title = f'{os.path.basename(old["source"])} → {os.path.basename(new["source"])}'
    values = {"@TITLE@": esc(title),
              "@RUNS@": run_line("before", old, old_side) + run_line("after", new, new_side),
              "@WARNINGS@": warn_html,
              "@CARDS@": "".join(cards),
              "@UNIT@": esc(unit),
              "@NBANDS@": plural(len(rows), "label"),
              "@BANDS_TABLE@": bands_table,
              "@ALLOC@": alloc_html,
              "@PPROF@": pprof_html,
              "@CHART_HELPERS@": CHART_HELPERS_JS,
              "@DATA@": json_for_script(data)}
    return re.sub(r"@[A-Z_]+@", lambda m: values.get(m.group(0), m.group(0)), PAGE)


PAGE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>heapprof diff: @TITLE@</title>
<style>
:root { --bg: #f4f5f7; --card: #fff; --ink: #1d2330; --muted: #687085; --line: #e3e6ec;
        --accent: #3b5bdb; --up: #c92a2a; --down: #2b8a3e;
        --mono: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
       font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", "Liberation Sans", sans-serif; }
header { background: #1f2637; color: #fff; padding: 18px 28px 16px; }
header .brand { font-size: 12px; letter-spacing: .08em; text-transform: uppercase; color: #9fb0d8; font-weight: 600; }
header h1 { margin: 2px 0 8px; font-size: 21px; font-weight: 600; font-family: var(--mono); word-break: break-all; }
table.runs { border-collapse: collapse; color: #b8c2d9; font-size: 13px; }
table.runs th { text-align: left; color: #9fb0d8; font-weight: 600; padding: 1px 14px 1px 0; text-transform: uppercase; font-size: 11px; letter-spacing: .06em; }
table.runs td { padding: 1px 18px 1px 0; vertical-align: baseline; }
table.runs td.job { color: #fff; font-family: var(--mono); word-break: break-all; }
main { max-width: 1400px; margin: 0 auto; padding: 18px 24px 40px; }
.stats { display: flex; flex-wrap: wrap; gap: 12px; margin-bottom: 16px; }
.stat { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 16px; min-width: 150px; }
.stat .k { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .05em; }
.stat .v { font-size: 22px; font-weight: 600; }
.stat .s { color: var(--muted); font-size: 12px; }
.stat.up .v { color: var(--up); }
.stat.down .v { color: var(--down); }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 18px; margin-bottom: 16px; }
.card h2 { font-size: 15px; margin: 0 0 10px; font-weight: 600; }
.card h2 .sub { color: var(--muted); font-weight: 400; font-size: 12px; margin-left: 8px; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.pair figure { margin: 0; min-width: 0; }
.pair figcaption { font-size: 12px; color: var(--muted); margin-bottom: 4px; }
.pair figcaption b { color: var(--ink); text-transform: uppercase; letter-spacing: .05em; margin-right: 6px; }
.pair figcaption .file { font-family: var(--mono); }
.chart { position: relative; min-width: 0; }
.chart svg { display: block; user-select: none; }
#legend { margin-top: 10px; border-top: 1px solid var(--line); padding-top: 6px; }
#legend .tools { display: flex; gap: 6px; margin-bottom: 6px; align-items: center; color: var(--muted); font-size: 12px; }
#legend .tools button { font: inherit; border: 1px solid var(--line); background: #f8f9fb; border-radius: 5px; padding: 2px 9px; cursor: pointer; color: var(--ink); }
#legend .tools button:hover { border-color: var(--accent); }
#legend ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 2px 10px; max-height: 240px; overflow-y: auto; }
#legend li { display: flex; align-items: center; gap: 6px; padding: 2px 6px; cursor: pointer; border-radius: 4px; max-width: 440px; }
#legend li:hover, #legend li.hot { background: #eef2ff; }
#legend li .sw { flex: 0 0 13px; height: 13px; border-radius: 3px; border: 1px solid rgba(0,0,0,.15); }
#legend li .name { font-family: var(--mono); font-size: 12px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
#legend li .val { color: var(--muted); font-size: 11px; white-space: nowrap; font-variant-numeric: tabular-nums; }
#legend li.off .sw { background: transparent !important; }
#legend li.off .name { color: #a3a9b6; text-decoration: line-through; }
.axis text { fill: var(--muted); font-size: 11px; font-variant-numeric: tabular-nums; }
.axis line.grid { stroke: #edf0f4; }
.axis path, .axis line.tick { stroke: #b4bac6; }
.axis .title { fill: var(--ink); font-size: 12px; }
.band { stroke: rgba(255,255,255,.55); stroke-width: .6; transition: opacity .12s; }
svg.focus .band { opacity: .28; }
svg.focus .band.hot { opacity: 1; stroke: #1d2330; stroke-width: 1.2; }
.peak line { stroke: #1d2330; stroke-dasharray: 4 3; }
.peak circle { fill: #fff; stroke: #1d2330; stroke-width: 1.6; }
.peak text { font-size: 12px; font-weight: 600; fill: #1d2330; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
.otherpeak { stroke: #868e96; stroke-dasharray: 1 3; }
.cursor { stroke: #1d2330; stroke-opacity: .45; pointer-events: none; }
.mark { stroke: #e15759; stroke-opacity: .6; stroke-dasharray: 2 2; }
.tip { position: absolute; pointer-events: none; background: rgba(29,35,48,.94); color: #fff; border-radius: 6px;
       padding: 7px 10px; font-size: 12px; line-height: 1.4; box-shadow: 0 4px 14px rgba(0,0,0,.2); max-width: 420px; display: none; z-index: 5; }
.tip .band { font-family: var(--mono); font-weight: 600; word-break: break-all; display: flex; gap: 6px; align-items: baseline; }
.tip .band i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; flex: 0 0 10px; }
.tip .muted { color: #b8c2d9; }
.empty { padding: 60px 0; text-align: center; color: var(--muted); }
.scroll { max-height: 560px; overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
table.data { border-collapse: collapse; width: 100%; font-size: 12.5px; }
table.data thead { position: sticky; top: 0; z-index: 1; }
table.data th { background: #f3f5f9; text-align: left; font-weight: 600; padding: 5px 10px;
                border-bottom: 1px solid var(--line); cursor: pointer; white-space: nowrap; }
table.data tr.group th { cursor: default; text-align: center; border-bottom: 0; padding-bottom: 0; color: var(--muted); text-transform: uppercase; font-size: 11px; letter-spacing: .05em; }
table.data tr.group th:hover { color: var(--muted); }
table.data th.first, table.data td.first, table.data th.grp { border-left: 1px solid var(--line); }
table.data th.num { text-align: right; }
table.data th:hover { color: var(--accent); }
table.data th.asc::after { content: " \25B2"; font-size: 9px; }
table.data th.desc::after { content: " \25BC"; font-size: 9px; }
table.data td { padding: 4px 10px; border-bottom: 1px solid #f0f1f4; }
table.data td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.data td.txt { font-family: var(--mono); font-size: 12px; word-break: break-all; min-width: 200px; }
table.data tbody tr:hover { background: #f6f8ff; }
table.data tfoot td { font-weight: 600; background: #fafbfc; border-top: 1px solid var(--line); position: sticky; bottom: 0; }
table.data td.up { color: var(--up); }
table.data td.down { color: var(--down); }
table.data tr.new td.name::after { content: "new"; margin-left: 8px; font: 600 10px/1 system-ui, sans-serif; color: #fff; background: var(--up); border-radius: 3px; padding: 1px 4px; }
table.data tr.gone td.name::after { content: "gone"; margin-left: 8px; font: 600 10px/1 system-ui, sans-serif; color: #fff; background: var(--down); border-radius: 3px; padding: 1px 4px; }
.note { color: var(--muted); font-size: 13px; margin: 8px 0 4px; }
.warn { background: #fff4e0; border: 1px solid #f5d7a1; border-left: 4px solid #e8590c; border-radius: 6px; padding: 6px 10px; margin: 0 0 12px; }
pre.cmd { font-family: var(--mono); font-size: 12.5px; white-space: pre-wrap; word-break: break-all; margin: 0 0 6px; background: #f6f7fa; border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; }
footer { color: var(--muted); font-size: 12px; text-align: center; margin-top: 20px; }
@media (max-width: 1000px) { .pair { grid-template-columns: 1fr; } }
</style>
</head>
<body>
<header>
  <div class="brand">heapprof: the difference between two runs</div>
  <h1 id="title">@TITLE@</h1>
  <table class="runs">@RUNS@</table>
</header>
<main>
  @WARNINGS@
  <div class="stats">@CARDS@</div>
  <section class="card" id="charts">
    <h2>Live heap by band, before and after <span class="sub">one y scale (the larger peak), each run its own time axis; the dotted line is the other run's peak; point at a band for its bytes; click the legend to hide or show a band in both</span></h2>
    <div class="pair">
      <figure id="fig-before"><figcaption id="cap-before"></figcaption><div class="chart" id="chart-before"><noscript><p class="empty">The charts need JavaScript.</p></noscript><div class="tip"></div></div></figure>
      <figure id="fig-after"><figcaption id="cap-after"></figcaption><div class="chart" id="chart-after"><div class="tip"></div></div></figure>
    </div>
    <div id="legend"><div class="tools"><button type="button" id="all">show all</button><button type="button" id="none">hide all</button><span id="count"></span><span>· each band's peak before → after</span></div><ul id="legend-list"></ul></div>
  </section>
  <section class="card" id="bands">
    <h2>Bands <span class="sub">@NBANDS@ in the two .hp files; @UNIT@; mean over each run's samples; by the change in peak, the largest increase first; click a column to sort</span></h2>
    <div class="scroll">@BANDS_TABLE@</div>
  </section>
  @ALLOC@
  @PPROF@
  <footer>Written by heapprof diff. Self-contained: no network needed.</footer>
</main>
<script type="application/json" id="hp-data">@DATA@</script>
<script>
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("hp-data").textContent);
  const NS = "http://www.w3.org/2000/svg";
  const bands = D.bands, runs = D.runs;
  const visible = bands.map(() => true);
  const bytesUnit = D.valueUnit === "bytes";
  const geoms = runs.map(() => null);
  let hotBand = -1;

@CHART_HELPERS@

  function stackTops(run) {
    // cum[b][i]: top of band b at sample i of the run (visible bands only add height).
    const n = run.times.length, cum = [], base = new Float64Array(n);
    for (let b = 0; b < bands.length; b++) {
      const top = new Float64Array(n), vals = run.values[b];
      for (let i = 0; i < n; i++) top[i] = base[i] + (visible[b] ? vals[i] : 0);
      cum.push(top);
      base.set(top);
    }
    return cum;
  }
  function shownPeak(cum, n) {
    const last = cum.length ? cum[cum.length - 1] : new Float64Array(n);
    let m = 0, at = 0;
    for (let i = 0; i < n; i++) if (last[i] > m) { m = last[i]; at = i; }
    return [m, at];
  }

  function scale(cums) {
    // The one y scale of both charts: the larger peak of what is shown.
    let ymax = 0;
    runs.forEach((r, k) => { ymax = Math.max(ymax, shownPeak(cums[k], r.times.length)[0]); });
    const [uname, ufac] = yUnit(ymax || 1);
    const ystep = niceStep((ymax || 1) / ufac, 5) * ufac;
    const ytop = Math.max(ystep, Math.ceil((ymax || 1) / ystep - 1e-9) * ystep);
    return {ymax, uname, ufac, ystep, ytop};
  }

  function caption(k) {
    const r = runs[k], c = document.getElementById("cap-" + r.key);
    c.textContent = "";
    const b = document.createElement("b"); b.textContent = r.key;
    const f = document.createElement("span"); f.className = "file"; f.textContent = r.source;
    const s = document.createElement("span");
    s.textContent = " · peak " + human(r.heap.peak) + " · " + r.times.length + " samples";
    c.append(b, f, s);
  }

  function renderRun(k, cum, S, otherPeak) {
    const run = runs[k], times = run.times, n = times.length;
    const chart = document.getElementById("chart-" + run.key), tip = chart.querySelector(".tip");
    const old = chart.querySelector("svg");
    if (old) old.remove();
    const oldEmpty = chart.querySelector(".empty");
    if (oldEmpty) oldEmpty.remove();
    if (!n) {
      const p = document.createElement("p");
      p.className = "empty";
      p.textContent = "This profile has no samples.";
      chart.appendChild(p);
      return null;
    }
    const W = Math.max(chart.clientWidth, 320), H = 400;
    const ml = 64, mr = 18, mt = 30, mb = 44;
    const pw = W - ml - mr, ph = H - mt - mb;
    const t0 = times[0], t1 = times[n - 1] > t0 ? times[n - 1] : t0 + 1;
    const ytop = S.ytop, ystep = S.ystep, ufac = S.ufac;
    const X = t => ml + (t - t0) / (t1 - t0) * pw;
    const Y = v => mt + ph - v / ytop * ph;
    const svg = el("svg", {width: W, height: H, id: "plot-" + run.key, class: "plot", role: "img",
                           "aria-label": "stacked area chart of the " + run.key + " run",
                           "data-t0": t0, "data-t1": t1, "data-ymax": ytop}, null);
    chart.insertBefore(svg, tip);
    const ax = el("g", {class: "axis"}, svg);
    for (let i = 0; i * ystep <= ytop + ystep / 2; i++) {
      const v = i * ystep, y = Y(v);
      el("line", {class: "grid", x1: ml, x2: ml + pw, y1: y, y2: y}, ax);
      const t = el("text", {class: "ytick", x: ml - 8, y: y + 4, "text-anchor": "end"}, ax);
      t.textContent = fmtTick(v / ufac, ystep / ufac);
    }
    const xstep = niceStep(t1 - t0, Math.max(2, Math.floor(pw / 90)));
    for (let i = Math.ceil(t0 / xstep - 1e-6); i * xstep <= t1 + xstep * 1e-6; i++) {
      const v = i * xstep, x = X(v);
      el("line", {class: "tick", x1: x, x2: x, y1: mt + ph, y2: mt + ph + 5}, ax);
      const t = el("text", {class: "xtick", x: x, y: mt + ph + 18, "text-anchor": "middle"}, ax);
      t.textContent = fmtTick(v, xstep);
    }
    el("path", {d: `M${ml},${mt} V${mt + ph} H${ml + pw}`, fill: "none"}, ax);
    const yt = el("text", {class: "title", x: 4, y: mt - 12}, ax);
    yt.textContent = bytesUnit ? S.uname : D.valueUnit;
    const xt = el("text", {class: "title", x: ml + pw, y: H - 6, "text-anchor": "end"}, ax);
    xt.textContent = run.sampleUnit;
    const g = el("g", {class: "bands-g"}, svg);
    const xs = times.map(t => X(t).toFixed(2));
    for (let b = 0; b < bands.length; b++) {
      if (!visible[b]) continue;
      const top = cum[b], low = b ? cum[b - 1] : new Float64Array(n);
      let d = "M" + xs[0] + "," + Y(top[0]).toFixed(2);
      for (let i = 1; i < n; i++) d += "L" + xs[i] + "," + Y(top[i]).toFixed(2);
      for (let i = n - 1; i >= 0; i--) d += "L" + xs[i] + "," + Y(low[i]).toFixed(2);
      const p = el("path", {d: d + "Z", fill: bands[b].colour, class: "band", "data-band": b}, g);
      el("title", {}, p).textContent = bands[b].name + " (" + run.key + ")";
    }
    for (const m of run.marks) el("line", {class: "mark", x1: X(m), x2: X(m), y1: mt, y2: mt + ph}, svg);
    // The other run's peak (of what is shown), as a dotted line across.
    if (otherPeak > 0) el("line", {class: "otherpeak", x1: ml, x2: ml + pw, y1: Y(otherPeak), y2: Y(otherPeak)}, svg);
    const [pk, pi] = shownPeak(cum, n);
    if (pk > 0) {
      const x = X(times[pi]), y = Y(pk);
      const pg = el("g", {class: "peak", id: "peak-" + run.key}, svg);
      el("line", {x1: x, x2: x, y1: mt - 6, y2: mt + ph}, pg);
      el("circle", {cx: x, cy: y, r: 4}, pg);
      const right = x < ml + pw * 0.6;
      const t = el("text", {x: right ? x + 7 : x - 7, y: mt - 10, "text-anchor": right ? "start" : "end"}, pg);
      t.textContent = "peak " + human(pk) + " at " + times[pi].toFixed(3) + " s";
    }
    const cursor = el("line", {class: "cursor", y1: mt, y2: mt + ph, x1: -10, x2: -10}, svg);
    el("rect", {class: "plot-area", id: "plot-area-" + run.key, x: ml, y: mt, width: pw, height: ph, fill: "transparent"}, svg);
    return {svg, cum, X, Y, ml, mt, pw, ph, t0, t1, ytop, cursor, chart, tip, run};
  }

  function render() {
    const cums = runs.map(stackTops);
    const S = scale(cums);
    const peaks = runs.map((r, k) => shownPeak(cums[k], r.times.length)[0]);
    runs.forEach((r, k) => { geoms[k] = renderRun(k, cums[k], S, peaks[1 - k]); });
    if (hotBand >= 0) focus(hotBand);
  }

  function bandAt(G, mx, my) { return bandUnder(G, G.run.times, visible, mx, my); }

  function focus(b) {
    for (const G of geoms) {
      if (!G) continue;
      G.svg.classList.toggle("focus", b >= 0);
      for (const p of G.svg.querySelectorAll(".band")) p.classList.toggle("hot", +p.dataset.band === b);
    }
    for (const li of document.querySelectorAll("#legend li")) li.classList.toggle("hot", +li.dataset.band === b);
  }

  function leave(G) {
    if (!G) return;
    G.tip.style.display = "none";
    G.cursor.setAttribute("x1", -10); G.cursor.setAttribute("x2", -10);
    if (hotBand !== -1) { hotBand = -1; focus(-1); }
  }

  runs.forEach((run, k) => {
    const chart = document.getElementById("chart-" + run.key);
    chart.addEventListener("mousemove", ev => {
      const G = geoms[k];
      if (!G) return;
      const r = G.svg.getBoundingClientRect();
      const mx = ev.clientX - r.left, my = ev.clientY - r.top;
      if (mx < G.ml || mx > G.ml + G.pw || my < G.mt || my > G.mt + G.ph) { leave(G); return; }
      const {band, sample} = bandAt(G, mx, my);
      const x = G.X(run.times[sample]);
      G.cursor.setAttribute("x1", x); G.cursor.setAttribute("x2", x);
      let h = "";
      if (band >= 0) h += '<div class="band"><i style="background:' + bands[band].colour + '"></i><span></span></div><div class="val"></div>';
      h += '<div class="muted when"></div>';
      G.tip.innerHTML = h;
      if (band >= 0) {
        const B = bands[band], v = run.values[band][sample], tot = run.totals[sample];
        G.tip.querySelector(".band span").textContent = B.name + (B.other ? "  (" + B.other + " bands)" : "");
        G.tip.querySelector(".val").textContent = fullValue(v) + (tot ? "  ·  " + (100 * v / tot).toFixed(1) + "% of the heap" : "");
      }
      G.tip.querySelector(".when").textContent = run.key + ", at " + run.times[sample].toFixed(6) + " s  ·  total " + human(run.totals[sample]);
      G.tip.style.display = "block";
      const cw = chart.clientWidth, tw = G.tip.offsetWidth;
      let left = mx + 16; if (left + tw > cw) left = Math.max(0, mx - tw - 16);
      G.tip.style.left = left + "px"; G.tip.style.top = Math.max(0, my - 10) + "px";
      if (band !== hotBand) { hotBand = band; focus(band); }
    });
    chart.addEventListener("mouseleave", () => leave(geoms[k]));
    caption(k);
  });

  // The legend, shared: the largest peak (of either run) first, OTHER last.
  const list = document.getElementById("legend-list");
  function legendCount() {
    document.getElementById("count").textContent = visible.filter(x => x).length + " of " + bands.length + " shown";
  }
  const order = bands.map((_, b) => b).sort((a, b) =>
    (!!bands[a].other - !!bands[b].other) ||
    (Math.max(runs[1].peaks[b], runs[0].peaks[b]) - Math.max(runs[1].peaks[a], runs[0].peaks[a])) || a - b);
  for (const b of order) {
    const B = bands[b], li = document.createElement("li");
    li.dataset.band = b;
    li.title = B.name + (B.other ? " (" + B.other + " smaller bands)" : "") + "\npeak before " + fullValue(runs[0].peaks[b]) + "\npeak after " + fullValue(runs[1].peaks[b]) + "\nclick to hide or show";
    const sw = document.createElement("span"); sw.className = "sw"; sw.style.background = B.colour;
    const nm = document.createElement("span"); nm.className = "name"; nm.textContent = B.name + (B.other ? " (" + B.other + ")" : "");
    const vl = document.createElement("span"); vl.className = "val"; vl.textContent = human(runs[0].peaks[b]) + " → " + human(runs[1].peaks[b]);
    li.append(sw, nm, vl);
    li.addEventListener("click", () => { visible[b] = !visible[b]; li.classList.toggle("off", !visible[b]); legendCount(); render(); });
    li.addEventListener("mouseenter", () => { hotBand = b; focus(b); });
    li.addEventListener("mouseleave", () => { hotBand = -1; focus(-1); });
    list.appendChild(li);
  }
  function setAll(on) {
    visible.fill(on);
    for (const li of list.children) li.classList.toggle("off", !on);
    legendCount(); render();
  }
  document.getElementById("all").addEventListener("click", () => setAll(true));
  document.getElementById("none").addEventListener("click", () => setAll(false));
  legendCount();
  render();
  let rt = 0;
  window.addEventListener("resize", () => { clearTimeout(rt); rt = setTimeout(render, 80); });

  // Sortable tables: click a header; numeric cells sort by data-v; the
  // footer row (the whole heap, total profiled) stays under them.
  function sortTable(table, col, desc) {
    const body = table.tBodies[0], rows = Array.from(body.rows);
    const head = table.tHead.rows[table.tHead.rows.length - 1];
    const num = head.cells[col].classList.contains("num");
    const number = v => { const x = parseFloat(v); return isNaN(x) ? -Infinity : x; };
    const key = r => num ? number(r.cells[col].dataset.v) : r.cells[col].textContent;
    rows.sort((a, b) => {
      const x = key(a), y = key(b);
      const c = num ? (x < y ? -1 : x > y ? 1 : 0) : x.localeCompare(y);
      return desc ? -c : c;
    });
    for (const r of rows) body.appendChild(r);
    for (const th of head.cells) th.classList.remove("asc", "desc");
    head.cells[col].classList.add(desc ? "desc" : "asc");
    table.dataset.sort = col; table.dataset.desc = desc ? 1 : 0;
  }
  for (const table of document.querySelectorAll("table.sortable")) {
    const ths = table.tHead.rows[table.tHead.rows.length - 1].cells;
    for (let c = 0; c < ths.length; c++) {
      ths[c].addEventListener("click", () => {
        const same = table.dataset.sort == c;
        const desc = same ? table.dataset.desc !== "1" : ths[c].classList.contains("num");
        sortTable(table, c, desc);
      });
    }
  }
  window.heapprofDiff = {data: D, visible: visible, render: render, sortTable: sortTable};
})();
</script>
</body>
</html>
"""


# ---------------------------------------------------------------------------

def load_run(path, prog):
    """A run's figures: {hp, source, stats, totals, heap}, and notes."""
    hp, source, notes = load_hp(path, prog)
    stats, totals = band_stats(hp)
    return {"hp": hp, "source": source, "stats": stats, "totals": totals,
            "heap": heap_figures(hp, totals)}, notes


def comparison_warnings(old, new, old_side, new_side):
    """What makes the two runs hard to compare, said on the page and on
    stderr (the page is written all the same)."""
    out = []
    uo, un = (r["hp"].header["VALUE_UNIT"] or "bytes" for r in (old, new))
    if uo != un:
        out.append(f"the runs count in different units ({uo} before, {un} after): "
                   "their figures are compared as numbers")
    mo, mn = old_side.setting(r"^mode (\S+?),"), new_side.setting(r"^mode (\S+?),")
    differ = bool(mo and mn and mo != mn)
    if differ:
        out.append(f"the runs are different kinds of profile (mode {mo} before, {mn} after): "
                   "their bands are not the same things; profile both the same way")
    lo = old_side.setting(r"\blabel length (\d+)")
    ln = new_side.setting(r"\blabel length (\d+)")
    if lo and ln and lo != ln:
        differ = True
        out.append(f"the runs cut their labels to different lengths ({lo} before, {ln} "
                   "after: length=/-L): a band may show as gone in one and new in the other")
    if not differ and old["stats"] and new["stats"] and not set(old["stats"]) & set(new["stats"]):
        out.append("no band is in both runs: are they the same kind of profile (-hc, -hy, "
                   "...) with the same label length? Every band shows as new or gone")
    if not old["heap"]["samples"] or not new["heap"]["samples"]:
        empty = [r["source"] for r in (old, new) if not r["heap"]["samples"]]
        out.append(f"{' and '.join(empty)} {'has' if len(empty) == 1 else 'have'} no samples: "
                   "there is nothing to compare over time")
    if os.path.realpath(old["source"]) == os.path.realpath(new["source"]):
        out.append("the two files are the same file: every change is 0")
    return out


def main(argv=None, prog=PROG):
    ap = argparse.ArgumentParser(
        prog=prog,
        description="Write one self-contained HTML page (no network needed) comparing two "
                    "runs: per band of the heap profiles, the peak and mean bytes before "
                    "and after and their change, largest increase first; both runs' charts "
                    "on one scale; with the .prof files beside them, the allocation tables "
                    "per stack; with the .pb.gz files, the go tool pprof -base command.",
        epilog="OLD.prof, OLD.alloc.csv and OLD.pb.gz beside OLD.hp are read when present "
               "(likewise for NEW). See doc/diff.md.")
    ap.add_argument("old", metavar="OLD.hp", help="the heap profile of the first run (before)")
    ap.add_argument("new", metavar="NEW.hp", help="the heap profile of the second run (after)")
    ap.add_argument("-o", "--output", metavar="OUT.html",
                    help="where to write the page (default: NEW.diff.html beside NEW.hp)")
    ap.add_argument("--top", metavar="N", type=int, default=20,
                    help="bands drawn in the charts, the largest first; the rest are merged "
                         "into OTHER (default 20; 0 = all); the table lists every band")
    args = ap.parse_args(argv)
    if args.top < 0:
        ap.error("--top takes a number of bands, 0 or more")

    def fail(msg):
        sys.stderr.write(msg + "\n")
        return 2

    notes = []
    try:
        old, n1 = load_run(args.old, prog)
        new, n2 = load_run(args.new, prog)
    except DiffError as e:
        return fail(str(e))
    notes += n1 + n2
    old_side = Side(args.old, notes)
    new_side = Side(args.new, notes)

    out = args.output or stem_of(args.new) + ".diff.html"
    inputs = {os.path.realpath(p) for p in
              (args.old, args.new, old["source"], new["source"], old_side.prof_path,
               new_side.prof_path, old_side.alloc_source, new_side.alloc_source,
               old_side.pb, new_side.pb) if p}
    if os.path.realpath(out) in inputs:
        return fail(f"{prog}: {out} is one of the runs' files and would be overwritten; "
                    "write the page elsewhere with -o OUT.html")

    warnings = comparison_warnings(old, new, old_side, new_side)
    for n in notes:
        sys.stderr.write(f"{prog}: {n}\n")
    for w in warnings:
        sys.stderr.write(f"{prog}: warning: {w}\n")
    page_warnings = [n.partition(": ")[2] if n.startswith(("warning: ", "note: ")) else n
                     for n in notes] + warnings

    data = build_data(old, new, args.top)
    page = render_page(data, old, new, old_side, new_side, page_warnings)
    try:
        with open(out, "w", encoding="utf-8") as f:
            f.write(page)
    except OSError as e:
        return fail(f"{prog}: cannot write {out}: {e.strerror}; choose another place "
                    "with -o OUT.html")
    ho, hn = old["heap"], new["heap"]
    p = pct(ho["peak"], hn["peak"])
    what = (f'peak {human(ho["peak"], data["valueUnit"])} -> '
            f'{human(hn["peak"], data["valueUnit"])}'
            + (f" ({p:+.1f}%)" if p is not None else "")
            + ", " + plural(data["nLabels"], "band"))
    extra = [x for x, there in (("the allocation tables", "allocDiff" in data),
                                ("the pprof -base command", "pprof" in data)) if there]
    print(f"{prog}: wrote {os.path.abspath(out)} ({what}"
          f"{'; with ' + ' and '.join(extra) if extra else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main(prog="heapprof_diff"))
