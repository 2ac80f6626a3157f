#!/usr/bin/env python3
"""heapprof_report: draw a heap profile (.hp, GHC's format, as heapprof or
GHC writes it) as one self-contained HTML page, with heapprof's .prof
report beside it when there is one.

    heapprof report FILE.hp [--prof FILE.prof] [-o OUT.html] [--top N]
    python3 heapprof_report.py FILE.hp ...          (the same)

The page has no outside references: its CSS, script and data are inline
and the chart is drawn as SVG in the page, so it opens from a file with no
network. Python 3 standard library only.

A band's label is a cost-centre stack cut short (25 bytes by default), so
with heapprof's .prof the page also names the full, demangled stack(s)
behind each label, frame by frame with source lines (the .prof's STACK
FRAMES): in the legend's and the chart's tooltips and in the bands table.

With heapprof's .prof the page also has a flame graph (an icicle) of its
allocation table, of the bytes allocated or live at the peak: click a
frame to zoom, point at one for its full name and bytes (flame_tree,
flame_data; drawn by the page's script).

The dominator tree of mode retainer's RETAINED SIZES section
(dominators=yes), three levels down in the .prof, is a tree on the page
that a click opens level by level, as Eclipse MAT's: each node its
retained bytes and objects, own bytes and share of what the census
reached (_parse_dom_tree, dom_tree_section; nested <details>, so it opens
without the script too).
"""
import argparse
import html
import json
import math
import os
import re
import sys
import zlib

PROG = "heapprof report"

HEADER_KEYS = ("JOB", "DATE", "SAMPLE_UNIT", "VALUE_UNIT")

# Colours of the top bands (largest first); OTHER is grey.
PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
           "#ff9da7", "#9c755f", "#a0cbe8", "#ffbe7d", "#8cd17d", "#b6992d", "#499894",
           "#d37295", "#86bcb6", "#fabfd2", "#d4a6c8", "#f1ce63", "#79706e"]
OTHER_COLOUR = "#c9ced6"
# Biographical bands (GHC -hb, heapprof ldv) get colours that say what they are.
LDV_COLOURS = {"USE": "#59a14f", "INHERENT_USE": "#4e79a7", "LAG": "#edc948",
               "DRAG": "#e15759", "VOID": "#9c755f"}
LDV_ORDER = ["INHERENT_USE", "USE", "LAG", "DRAG", "VOID"]


# The JOB line of heapprof's checkpoint, PROG.partial.hp (mode ldv).
PARTIAL_RE = re.compile(r"\(partial profile: as if the program had ended at census (\d+), "
                        r"([\d.]+) s\)$")


class HpError(Exception):
    """A malformed .hp file: str() is 'FILE:LINE: expected ...'."""


def colour(i):
    if i < len(PALETTE):
        return PALETTE[i]
    hue = (i * 137.508) % 360          # golden angle: distinct hues past the palette
    return "hsl(%.0f, 55%%, %d%%)" % (hue, 55 + (i % 3) * 8)


# ---------------------------------------------------------------------------
# .hp parser

class HeapProfile:
    """A parsed .hp file.

    header: {JOB, DATE, SAMPLE_UNIT, VALUE_UNIT} (strings, '' when absent)
    times: [t]; labels: [label]; values: [{label index: value}] per sample
    marks: [t]; warnings: [str]
    """

    def __init__(self):
        self.header = {k: "" for k in HEADER_KEYS}
        self.times = []
        self.values = []
        self.labels = []
        self.marks = []
        self.warnings = []


def _time(name, line, word, lineno, prev):
    try:
        t = float(word)
    except ValueError:
        raise HpError(f"{name}:{lineno}: expected a time (seconds, e.g. 0.100000) "
                      f"after {line.split()[0]}, got {word!r}") from None
    if not math.isfinite(t) or t < 0:
        raise HpError(f"{name}:{lineno}: expected a time (seconds, not negative) "
                      f"after {line.split()[0]}, got {word!r}")
    if t < prev:
        raise HpError(f"{name}:{lineno}: expected a time not before {prev:f} (the "
                      f"previous sample's), got {word}")
    return t


def parse_hp(path, name=None):
    """Parse a .hp file; raises HpError ('FILE:LINE: expected ...') or OSError."""
    name = name or path
    with open(path, "rb") as f:
        data = f.read()
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    ends_with_newline = text.endswith("\n")
    if ends_with_newline:
        lines.pop()
    if not lines or (len(lines) == 1 and not lines[0].strip()):
        raise HpError(f"{name}:1: expected JOB \"...\" (a heap profile's first line); "
                      "the file is empty")
    hp = HeapProfile()
    index = {}
    labels = hp.labels
    in_header = True
    cur = None          # {label index: value} of the open sample
    cur_line = 0
    prev_t = 0.0
    last = len(lines)
    for lineno, line in enumerate(lines, 1):
        if line.endswith("\r"):
            line = line[:-1]
        if cur is not None:
            # The common case first: a band line inside a sample.
            label, tab, value = line.rpartition("\t")
            if not tab:
                parts = line.rsplit(None, 1)
                if len(parts) == 2:
                    label, value = parts
                else:
                    label, value = "", line
            label = label.strip()
            if label and value.isdigit() and label not in ("BEGIN_SAMPLE", "END_SAMPLE"):
                k = index.get(label)
                if k is None:
                    k = index[label] = len(labels)
                    labels.append(label)
                v = int(value)
                cur[k] = cur.get(k, 0) + v      # a label twice in a sample: one band
                continue
            word = line.split(None, 1)[0] if line.strip() else ""
            if word == "END_SAMPLE":
                parts = line.split()
                if len(parts) != 2:
                    raise HpError(f"{name}:{lineno}: expected END_SAMPLE TIME")
                _time(name, line, parts[1], lineno, 0.0)
                hp.values.append(cur)
                cur = None
                continue
            if lineno == last and not ends_with_newline:
                break       # a line cut off by a killed writer: truncated, see below
            if word == "BEGIN_SAMPLE":
                raise HpError(f"{name}:{lineno}: expected END_SAMPLE (the sample begun "
                              f"at line {cur_line} is not ended), got BEGIN_SAMPLE")
            if not line.strip():
                continue
            if not label:
                raise HpError(f"{name}:{lineno}: expected LABEL<TAB>BYTES or END_SAMPLE, "
                              f"got {line.strip()[:60]!r}")
            raise HpError(f"{name}:{lineno}: expected a whole number of bytes after the "
                          f"label {label[:60]!r}, got {value[:30]!r}")
        if not line.strip():
            continue
        word, _, rest = line.strip().partition(" ")
        if word == "BEGIN_SAMPLE":
            parts = line.split()
            if len(parts) != 2:
                raise HpError(f"{name}:{lineno}: expected BEGIN_SAMPLE TIME")
            t = _time(name, line, parts[1], lineno, prev_t)
            prev_t = t
            hp.times.append(t)
            cur = {}
            cur_line = lineno
            in_header = False
            continue
        if word == "MARK":
            parts = line.split()
            if len(parts) != 2:
                raise HpError(f"{name}:{lineno}: expected MARK TIME")
            hp.marks.append(_time(name, line, parts[1], lineno, 0.0))
            in_header = False
            continue
        if in_header and word in HEADER_KEYS:
            rest = rest.strip()
            if len(rest) < 2 or rest[0] != '"' or rest[-1] != '"':
                raise HpError(f"{name}:{lineno}: expected {word} \"...\" (a quoted string), "
                              f"got {line.strip()[:60]!r}")
            hp.header[word] = rest[1:-1]
            continue
        if lineno == last and not ends_with_newline:
            hp.warnings.append(f"{name}:{lineno}: the last line is cut off; left out")
            break
        if word == "END_SAMPLE":
            raise HpError(f"{name}:{lineno}: expected BEGIN_SAMPLE (END_SAMPLE with no "
                          "sample begun)")
        if in_header:
            if lineno == 1:
                raise HpError(f"{name}:1: expected JOB \"...\" (a heap profile's first "
                              f"line), got {line.strip()[:60]!r}")
            raise HpError(f"{name}:{lineno}: expected a header line (JOB, DATE, "
                          f"SAMPLE_UNIT or VALUE_UNIT \"...\") or BEGIN_SAMPLE, got "
                          f"{line.strip()[:60]!r}")
        raise HpError(f"{name}:{lineno}: expected BEGIN_SAMPLE or MARK, got "
                      f"{line.strip()[:60]!r}")
    if cur is not None:
        # A writer killed in the middle of a sample (heapprof writes samples
        # whole, but a copy or another tool may cut a file short).
        hp.times.pop()
        hp.warnings.append(f"{name}:{cur_line}: the file ends inside the sample begun "
                           "here; that sample is left out")
    return hp


# The first words of a heap profile's lines (a file that begins otherwise
# and is not named .hp is not taken for a broken one).
HP_FIRST_WORDS = HEADER_KEYS + ("BEGIN_SAMPLE", "END_SAMPLE", "MARK")


def _first_line(path):
    """(the first 4 KiB of the file at path, its first line that is not
    blank, '' when none); (b"", "") for what is not a regular file (a pipe
    read already). Raises OSError."""
    if not os.path.isfile(path):
        return b"", ""
    with open(path, "rb") as f:
        head = f.read(4096)
    lines = head.decode("utf-8", "replace").splitlines()
    return head, next((l.strip() for l in lines if l.strip()), "")


def file_kind(path):
    """What the file at path is when it is plainly not a heap profile, as a
    phrase ("heapprof's text report", "a program (an ELF executable)",
    ...); "" for a file that is not one but is none of those either; None
    for one whose faults parse_hp names line by line (an empty file, a file
    named .hp or beginning as a heap profile does). Raises OSError."""
    head, first = _first_line(path)
    if not first:
        return None
    if head.startswith(b"\x7fELF"):
        return "a program (an ELF executable)"
    words = first.split()
    if first.startswith("heapprof report"):
        return "heapprof's text report"
    if first.startswith("stack,breakdown,"):
        return "heapprof's allocation table (CSV)"
    if first.lower().startswith(("<!doctype html", "<html")):
        return "an HTML page"
    if head.startswith(b"%!PS"):
        return "a PostScript file"
    if "Profiling Report" in first or first.startswith("Retainer Profiling:"):
        return "GHC's profiling report"
    if words[0] in HP_FIRST_WORDS or path.endswith(".hp"):
        return None
    return "a binary file" if b"\0" in head else ""


def hp_beside(path):
    """The heap profile beside the file at path (app.hp beside app.prof,
    app.alloc.csv, app.html or the program app), or None."""
    stem = path[:-len(".alloc.csv")] if path.endswith(".alloc.csv") else \
        os.path.splitext(path)[0]
    for cand in (stem + ".hp", path + ".hp"):
        if cand != path and os.path.isfile(cand):
            return cand
    return None


def not_hp_message(path, kind, prog=PROG):
    """The message for a file given as the heap profile that is not one:
    what it is, and the .hp to give instead when there is one beside it."""
    beside = hp_beside(path)
    where = f" ({beside} is beside it)" if beside else ""
    if kind:
        return f"{prog}: {path} is {kind}, not a heap profile: give the .hp file{where}"
    first = _first_line(path)[1]
    return (f"{prog}: {path} is not a heap profile (its first line is {first[:60]!r}; "
            f"a heap profile's is JOB \"...\"): give the .hp file{where}")


# ---------------------------------------------------------------------------
# .prof parser (heapprof's report; of other .prof files only SET lines)

SET_RE = re.compile(r"^SET (\d+) = \{(.*)\}\s*$")
PID_RE = re.compile(r"^\s+(.*?)\s+\(pid (\d+)\)\s*$")
SUMMARY_RE = re.compile(r"^ {8}([A-Za-z@][^\t]*?) {2,}(\S.*)$")


def _split_header(line):
    return [c for c in re.split(r"\s{2,}", line.strip()) if c]


def _is_header(cols):
    """Whether cells split from a line can be a table's header: two or
    more, none a number (a row of numbers is no header)."""
    return len(cols) >= 2 and not any(re.match(r"[-+]?\.?\d", c) for c in cols)


def _is_number(word):
    return bool(re.fullmatch(r"[-+]?\d+(\.\d+)?%?", word))


def _row(line, ncols):
    parts = line.split(None, ncols - 1)
    if len(parts) != ncols:
        return None
    if not any(_is_number(p) for p in parts[:ncols - 1]):
        return None
    return parts


# A section title after the summary: a line at the margin, capitalised,
# ending in a parenthesised aside ("RETAINER CENSUSES (time s, ...)", "Top
# cost-centre stacks by DRAG (bytes x seconds held after last use):").
TITLE_RE = re.compile(r"^[A-Z][^()]*\((.*)\):?$")
# The aside of a title that lists its table's columns: "(time s, traversal
# ms, ...)", names with no ';', ':' or '=' (which other asides have).
LISTED_RE = re.compile(r"^[A-Z][^()]*\(([^()]*)\)$")


def _listed_columns(title):
    """The columns the title of a section lists (RETAINER CENSUSES, ROOT
    CENSUSES), or [] when its aside is no list of columns."""
    m = LISTED_RE.match(title)
    if not m or re.search(r"[;:=]", m.group(1)):
        return []
    cols = [c.strip() for c in m.group(1).split(",")]
    return cols if len(cols) >= 2 and all(cols) else []


def _listed_row(line, ncols):
    """The cells of a row of a table whose title lists its columns, and a
    note last: the columns are set apart by two or more blanks, and what
    follows the last one's value after '; ' is the note ('9509312 of
    9509312 bytes; held by ...'); a row that gives leading numbers, then a
    sentence ('0.00  no traversal (...)'), has those numbers, empty cells
    and the sentence as its note. None for a line that begins with no
    number."""
    fields = re.split(r" {2,}", line.strip(), maxsplit=ncols - 1)
    k = 0
    while k < min(len(fields), ncols - 1) and _is_number(fields[k]):
        k += 1
    if k == 0 or len(fields) < 2:
        return None
    if k == ncols - 1 and len(fields) == ncols:
        value, _, note = fields[-1].partition("; ")
        return fields[:-1] + [value, note]
    rest = re.split(r" {2,}", line.strip(), maxsplit=k)[-1]
    return fields[:k] + [""] * (ncols - k) + [rest]


def _parse_listed(lines, i, cols):
    """The table whose title lines[i] lists its columns `cols`, its rows
    after a blank line; (table, index of the line after its rows), or None
    when no row follows the title."""
    n = len(lines)
    j = i + 1
    while j < n and not lines[j].strip():
        j += 1
    rows = []
    while j < n:
        r = _listed_row(lines[j], len(cols)) if lines[j][:1].isdigit() else None
        if r is None:
            break
        rows.append(r)
        j += 1
    if not rows:
        return None
    columns = list(cols)
    if any(r[-1] for r in rows):
        columns.append("note")      # what the rows say beyond the columns
    else:
        rows = [r[:-1] for r in rows]
    return {"title": lines[i].strip(), "columns": columns, "rows": rows, "notes": [],
            "kind": "listed"}, j


def _counter(line):
    """(name, value) of a line of a section of counters ('  censuses
    10', '  a fault in the kernel (ns, measured) 2769', '  DRAG
    byte-seconds 1.031, uncertain 0.000 (0.0%)'): the value is set apart by
    two or more blanks, or is the first number after a blank; '' for a line
    with none. None for a line that is not indented by two blanks or is a
    parenthesised note."""
    if not line.startswith("  ") or not line.strip() or line.strip().startswith("("):
        return None
    s = line.strip()
    m = re.fullmatch(r"(.*?\S) {2,}(\S.*)", s) or \
        re.fullmatch(r"(.*?\S) ([-+]?\d[\d.,]*%?(?: .*)?)", s)
    return (m.group(1), m.group(2)) if m else (s, "")


def _parse_counters(lines, i):
    """A section of counters (mode ldv's: 'Lag, drag, void, use (...)',
    'Uncertain DRAG and VOID (...)'): its title lines[i], then indented
    lines NAME  VALUE and parenthesised notes (which may run over several
    lines); (table of kind "kv", index of the line after it), or None when
    lines[i + 1] is no counter with a value."""
    n = len(lines)
    first = _counter(lines[i + 1]) if i + 1 < n else None
    if not first or not re.match(r"[-+]?\d", first[1]):
        return None
    table = {"title": lines[i].strip(), "columns": ["", ""], "rows": [], "notes": [],
             "kind": "kv"}
    j = i + 1
    while j < n and lines[j].startswith("  ") and lines[j].strip():
        s = lines[j].strip()
        if s.startswith("("):
            # A note, up to the ')' that closes its '(' ('(vm.max_map_count)'
            # may end one of its lines).
            note = s
            while note.count("(") > note.count(")") and j + 1 < n and \
                    lines[j + 1].startswith("   "):
                j += 1
                note += " " + lines[j].strip()
            table["notes"].append(note[1:-1] if note.endswith(")") else note[1:])
        else:
            table["rows"].append(list(_counter(lines[j])))
        j += 1
    return table, j


# STACK FRAMES: a frame line is 4 blanks, FUNCTION, MODULE+0xADDRESS (or
# "explicit": a cost centre the program named; "-": [jit], code in no
# module), SOURCE (file:line or -),
# two blanks apart; the function may have blanks of its own.
FRAMES_TITLE = "STACK FRAMES"
FRAME_WHERE_RE = re.compile(r"^(explicit|-|\S.*\+0x[0-9a-fA-F]+)$")


def _frame(line):
    """(function, where, source or None) of a STACK FRAMES frame line, or None."""
    if not line.startswith("    ") or line[4:5].isspace() or not line[4:5]:
        return None
    parts = line[4:].rstrip().rsplit("  ", 2)
    if len(parts) != 3 or not parts[0] or not FRAME_WHERE_RE.match(parts[1]) \
            or not parts[2].strip():
        return None
    source = parts[2].strip()
    return (parts[0], parts[1], None if source == "-" else source)


def _parse_frames(lines, i, prof):
    """Reads the STACK FRAMES section whose title is lines[i] into
    prof["frames"] ({full stack name: [(function, where, source or None)]})
    and prof["frames_notes"]; returns the index of the first line after it.
    The section ends at the end of the file or at a line that is not part
    of it (the next section's title: a line at the margin that no frame
    line follows)."""
    prof["frames_title"] = lines[i].strip()
    n = len(lines)
    i += 1
    while i < n:
        line = lines[i]
        s = line.strip()
        if not s:
            i += 1
            continue
        if line.startswith("        (") and s.endswith(")"):
            prof["frames_notes"].append(s[1:-1])
            i += 1
            continue
        if line[:1].isspace():
            break
        frames = []
        j = i + 1
        while j < n:
            f = _frame(lines[j])
            if f is None:
                break
            frames.append(f)
            j += 1
        # A stack with no frame at all is named UNKNOWN; any other line at
        # the margin with no frame under it begins the next section.
        if not frames and s != "UNKNOWN":
            break
        prof["frames"][s] = frames
        i = j
    return i


# Mode retainer's RETAINED SIZES section (dominators=yes): its title names
# the census whose dominator tree the section shows and what that census
# reached; one of its tables is the tree itself, three levels down, one
# line a node: retained bytes (11 characters), retained objects (13), own
# bytes (13; blank on the line that sums the rest of a level), two blanks
# and two more a level, then the allocation stack ('STACK; SET' at the
# first level: the retainer set that holds it) or '(N others)'.
RETAINED_RE = re.compile(r"^RETAINED SIZES \(dominators=yes: .*?\bcensus at ([\d.]+) s\b.*?"
                         r"most bytes reached: (\d+) bytes in (\d+) objects")
DOM_TREE_TITLE = "The dominator tree"
DOM_ROW_RE = re.compile(r"^ *(\d+) +(\d+)(?:( +)(\d+))?( +)(\S.*?)\s*$")
DOM_OTHERS_RE = re.compile(r"^\((\d+) others?\)$")


def _dom_row(line):
    """(level, retained bytes, retained objects, own bytes or None, text) of
    a line of the dominator tree, or None. The level is from the blanks
    before the text: two, then two a level, after the own bytes; 15, then
    two a level, where the own bytes are blank (the 13 of their column and
    the two after it)."""
    m = DOM_ROW_RE.match(line)
    if not m:
        return None
    own = int(m.group(4)) if m.group(4) else None
    gap = len(m.group(5))
    level = max(0, (gap - (2 if own is not None else 15)) // 2)
    return level, int(m.group(1)), int(m.group(2)), own, m.group(6)


def _parse_dom_tree(lines, i, prof):
    """The dominator tree whose title is lines[i] (RETAINED SIZES, mode
    retainer with dominators=yes), its header line next, then one line a
    node up to a blank line; (table of kind "tree", index of the line after
    its rows), or None when no header line of the tree follows the title.

    The table's rows are its nodes in the file's order, roots are the first
    level's; a node is a dict: name (the allocation stack, or '(N others)'),
    held_by (the retainer set holding it, at the first level; else ''),
    retained and objects (what it keeps alive alone: its own and those of
    every node under it), own (its own bytes; None on a line of others),
    others (how many nodes a line of others sums, else None), level (0 for
    the first; a line deeper than the one before it by more than one is
    taken as its child) and children [nodes]. reached is {time, bytes,
    objects} of the census, from the section's title (None without it)."""
    n = len(lines)
    cols = _split_header(lines[i + 1]) if i + 1 < n else []
    if not (_is_header(cols) and cols[0] == "retained" and "objects" in cols):
        return None
    nodes, roots, path = [], [], []
    j = i + 2
    while j < n and lines[j].strip():
        r = _dom_row(lines[j])
        if r is None:
            break
        level, retained, objects, own, text = r
        level = min(level, len(path))
        name, held = text, ""
        m = DOM_OTHERS_RE.match(text) if own is None else None
        if level == 0 and not m:
            name, sep, held = text.rpartition("; ")
            if not sep:
                name, held = text, ""
        node = {"name": name, "held_by": held, "retained": retained, "objects": objects,
                "own": own, "others": int(m.group(1)) if m else None, "level": level,
                "children": []}
        del path[level:]
        (path[-1]["children"] if path else roots).append(node)
        path.append(node)
        nodes.append(node)
        j += 1
    return {"title": lines[i].strip(), "columns": cols, "rows": nodes, "roots": roots,
            "notes": [], "kind": "tree", "reached": prof.get("retained")}, j


def parse_prof(path):
    """Returns a dict: heapprof (bool), date, job, pid, settings, summary
    [(key, value)], notes [str] (those under the summary, among them the
    'warning: ...' and 'note: ...' lines), tables [{title, columns, rows,
    notes [str], kind}], sets [(id, [members])], frames {full stack name:
    [(function, module+address or 'explicit', source line or None)]} (the
    STACK FRAMES section, in the file's order), frames_title, frames_notes
    [str], retained ({time, bytes, objects} of the census mode retainer's
    RETAINED SIZES section shows, from its title; None without one),
    other [str].

    A table's kind is "header" (a header line of columns set apart by two
    or more blanks, then rows whose leading columns are numbers), "listed"
    (its title lists the columns: RETAINER CENSUSES, ROOT CENSUSES; rows
    after a blank line, with a last column "note" for what rows say beyond
    the columns), "kv" (a section of counters, NAME  VALUE: ldv's) or
    "tree" (RETAINED SIZES' dominator tree: _parse_dom_tree). A
    table's notes are the lines of its section after its rows ("traversal
    total ..."); other has the lines in no table."""
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    lines = text.splitlines()
    prof = {"heapprof": bool(lines) and lines[0].startswith("heapprof report"),
            "date": "", "job": "", "pid": "", "settings": "", "summary": [], "notes": [],
            "tables": [], "sets": [], "frames": {}, "frames_title": "", "frames_notes": [],
            "retained": None, "other": []}
    for line in lines:
        m = SET_RE.match(line)
        if m:
            members = [x.strip() for x in re.split(r">,\s*<", m.group(2).strip())]
            members = [x.lstrip("<").rstrip(">") for x in members if x]
            prof["sets"].append((int(m.group(1)), members))
    if not prof["heapprof"]:
        return prof
    prof["date"] = lines[0].split("\t")[-1].strip()
    i = 1
    n = len(lines)
    in_summary = True   # before the first table or section
    cur = None          # the table whose section this is: lines after its rows are its notes
    while i < n:
        line = lines[i]
        s = line.strip()
        if not s or SET_RE.match(line):
            i += 1
            continue
        m = PID_RE.match(line)
        if m and not prof["job"]:
            prof["job"], prof["pid"] = m.group(1), m.group(2)
            i += 1
            continue
        if s.startswith("mode ") and not prof["settings"]:
            prof["settings"] = s
            i += 1
            continue
        if line.startswith(FRAMES_TITLE) and not prof["frames_title"]:
            i = _parse_frames(lines, i, prof)
            in_summary, cur = False, None
            continue
        if line.startswith(DOM_TREE_TITLE):
            found = _parse_dom_tree(lines, i, prof)
            if found:
                in_summary = False
                cur, i = found
                prof["tables"].append(cur)
                continue
        if TITLE_RE.match(line):
            # A section: a table its title lists the columns of, counters,
            # or a title over a header line (taken below) or other lines.
            in_summary, cur = False, None
            m = RETAINED_RE.match(s)
            if m:
                prof["retained"] = {"time": m.group(1), "bytes": int(m.group(2)),
                                    "objects": int(m.group(3))}
            cols = _listed_columns(s)
            found = (_parse_listed(lines, i, cols) if cols else None) or \
                _parse_counters(lines, i)
            if found:
                cur, i = found
                prof["tables"].append(cur)
                continue
            prof["other"].append(s)
            i += 1
            continue
        # A table: a header of columns set apart by two or more blanks, then
        # rows ("(none)" for none).
        cols = _split_header(line)
        if _is_header(cols) and i + 1 < n and (_row(lines[i + 1], len(cols)) or
                                               lines[i + 1].strip() == "(none)"):
            title = ""
            prev = lines[i - 1].strip() if i > 0 else ""
            where = cur["notes"] if cur else prof["other"]
            if prev and where and where[-1] == prev:
                title = where.pop()
            rows = []
            i += 1
            while i < n and lines[i].strip():
                r = _row(lines[i], len(cols))
                if r is None:
                    break
                rows.append(r)
                i += 1
            if not rows and i < n and lines[i].strip() == "(none)":
                i += 1
            if not title:
                title = ("allocation by cost-centre stack"
                         if any("cost-centre" in c for c in cols) else "table")
            cur = {"title": title, "columns": cols, "rows": rows, "notes": [],
                   "kind": "header"}
            prof["tables"].append(cur)
            in_summary = False
            continue
        m = SUMMARY_RE.match(line)
        if m and in_summary:
            prof["summary"].append((m.group(1).strip(), m.group(2).strip()))
            i += 1
            continue
        if in_summary and s.startswith("(") and s.endswith(")"):
            prof["notes"].append(s[1:-1])
            i += 1
            continue
        (cur["notes"] if cur else prof["other"]).append(s)
        i += 1
    return prof


# ---------------------------------------------------------------------------
# .hp labels and the full stacks behind them
#
# heapprof's .hp labels are cost-centre stacks cut to the label length,
# made of a short form of each function's name (libiberty's demangling
# without parameter lists, each outermost template argument list shown as
# <...>); the .prof names the full stacks. A label can stand for several.

HP_KEYWORDS = ("JOB", "DATE", "SAMPLE_UNIT", "VALUE_UNIT", "MARK", "BEGIN_SAMPLE",
               "END_SAMPLE")
LABEL_LENGTH_RE = re.compile(r"\blabel length (\d+)")
# What may follow a function's parameter list in its full name.
FUNCTION_TAIL_RE = re.compile(r"(\s*\[clone [^\]]*\]|\s+(?:const|volatile|&&|&|noexcept|"
                              r"transaction_safe|throw\(\)))$")
# Special names (thunks, clones, data): libiberty keeps their parameters.
SPECIAL_NAME_RE = re.compile(r"^(?:(?:non-)?virtual thunk to|covariant return thunk to|"
                             r"(?:non-)?transaction clone for|TLS (?:init|wrapper) function "
                             r"for|typeinfo (?:name |fn )?for|(?:construction )?vtable for|"
                             r"VTT for|guard variable for|hidden alias for|reference "
                             r"temporary #\d+ for|template parameter object for) ")
OPENERS, CLOSERS = "([{<", ")]}>"


def _open_of(s, end):
    """Index of the '(' that the ')' at s[end] closes, or -1."""
    depth = 0
    for k in range(end, -1, -1):
        if s[k] == ")":
            depth += 1
        elif s[k] == "(":
            depth -= 1
            if depth == 0:
                return k
    return -1


def shorten_templates(s):
    """Each outermost <...> of s as <...> (operator<, operator<< and the
    like kept): heapprof's hp_demangle short form, in Python."""
    out = []
    depth = 0
    k = 0
    while k < len(s):
        c = s[k]
        if c in "<>" and (s[:k].endswith("operator") or s[:k].endswith("operator-")):
            # operator<, operator<<=, operator>>, operator-> ...: not brackets
            # (at any depth; kept only outside template arguments).
            run = c
            while k + 1 < len(s) and s[k + 1] in "<>=":
                k += 1
                run += s[k]
            if depth == 0:
                out.append(run)
        elif c == "<":
            if depth == 0:
                out.append("<...")
            depth += 1
        elif c == ">" and depth > 0:
            depth -= 1
            if depth == 0:
                out.append(">")
        elif depth == 0:
            out.append(c)
        k += 1
    return "".join(out)


def _drop_return_type(s):
    """A template function's name without the return type the full
    demangling puts before it ('void ns::f<...>' is 'ns::f<...>'): what
    comes before the last blank outside brackets, before the first '(' or
    'operator' outside brackets."""
    depth = 0
    cut = -1
    for k, c in enumerate(s):
        if depth == 0 and (c == "(" and not s.endswith("decltype", 0, k) or
                           s.startswith("operator", k) and
                           (k == 0 or not (s[k - 1].isalnum() or s[k - 1] == "_"))):
            break
        if c in OPENERS:
            depth += 1
        elif c in CLOSERS and depth > 0:
            depth -= 1
        elif depth == 0 and c == " ":
            cut = k
    return s[cut + 1:] if cut >= 0 else s


def short_function(name):
    """The short form of a function's full (demangled) name, as heapprof
    makes its .hp labels of it: 'ns::f(int) const' is 'ns::f', 'void
    ns::g<int>(int)' is 'ns::g<...>', 'f() [clone .cold]' is 'f'; a local
    name keeps its enclosing function's parameters, as libiberty does
    ('f(int)::{lambda()#1}::operator()'). Names that are not C++ (C
    functions, MODULE+0xADDRESS) come back as they are."""
    s = name.strip()
    if SPECIAL_NAME_RE.match(s):
        return shorten_templates(s)
    while True:
        t = FUNCTION_TAIL_RE.sub("", s)
        if t == s:
            break
        s = t
    if s.endswith(")"):
        k = _open_of(s, len(s) - 1)
        if k > 0:
            s = s[:k]
    return _drop_return_type(shorten_templates(s))


def _collapse(names):
    """Recursion collapsed as heapprof (and GHC) does, innermost first in
    and out: f/g/f/main is f/main."""
    st = []
    for x in reversed(names):
        if x in st:
            del st[st.index(x) + 1:]
        else:
            st.append(x)
    return st[::-1]


def _operator_slash(name, k):
    """Whether the '/' at name[k] is part of C++'s operator/ or operator/=
    (in 'ns::operator/(A, A)/main', the short 'ns::operator//main',
    'f<&operator/>(int)'): right after the word 'operator', and followed by
    the end or one of '(/=>, ' (a C function named 'operator' is followed
    by the next frame's name)."""
    if not name.endswith("operator", 0, k):
        return False
    before = name[k - 9] if k >= 9 else ""
    return not (before.isalnum() or before == "_") and \
        (k + 1 == len(name) or name[k + 1] in "(/=>, ")


def split_stack(name):
    """The frames of a stack name ('f(int, char*)/main'), split at the
    slashes outside brackets (C++'s operator/ kept whole)."""
    out, depth, start = [], 0, 0
    for k, c in enumerate(name):
        if c in "([{":
            depth += 1
        elif c in ")]}" and depth > 0:
            depth -= 1
        elif c == "/" and depth == 0 and not _operator_slash(name, k):
            out.append(name[start:k])
            start = k + 1
    out.append(name[start:])
    return out


def hp_label(text, length=25):
    """The .hp label heapprof makes of `text`: cut to `length` bytes, every
    byte up to the blank, '"' and DEL as '_', a '_' before a leading digit
    or a label that is a keyword of the format; empty is UNKNOWN."""
    s = text.encode("utf-8")[:length].decode("utf-8", "replace")
    s = "".join("_" if ord(c) <= 0x20 or c in '"\x7f' else c for c in s)
    if not s:
        return "UNKNOWN"
    if s[0].isdigit() and s[0].isascii() or s in HP_KEYWORDS:
        s = "_" + s
    return s


def label_length(prof):
    """The .hp label length of the run the .prof describes (default 25)."""
    m = LABEL_LENGTH_RE.search(prof.get("settings", ""))
    return int(m.group(1)) if m else 25


def prof_stacks(prof):
    """[(full stack name, [(function, where, source or None)])] of the
    .prof: the STACK FRAMES section's, then the allocation table's stacks
    it does not list (older reports have no STACK FRAMES), their frames
    from the name."""
    stacks = dict(prof["frames"])
    for t in prof["tables"]:
        if t["title"] == "allocation by cost-centre stack":
            for r in t["rows"]:
                if r[-1] != "total profiled" and r[-1] not in stacks:
                    stacks[r[-1]] = [(f, "", None) for f in split_stack(r[-1])]
            break
    return list(stacks.items())


def label_stacks(prof, labels):
    """{label: [full stack names]} for the .hp labels that stacks of the
    .prof stand behind, in the .prof's order (largest first). A stack
    belongs to label L when the label heapprof makes of its short form is
    L, or failing that the label of its full name. Only for a heapprof
    report of mode cc: the labels of other modes are not stacks."""
    if not prof or not prof["heapprof"]:
        return {}
    mode = re.match(r"mode (\S+?),", prof["settings"])
    if mode and mode.group(1) != "cc":
        return {}
    length = label_length(prof)
    wanted = set(labels)
    out = {}
    for name, frames in prof_stacks(prof):
        # (An explicit cost centre's name is the program's: never shortened.)
        names = [f[0] if f[1] == "explicit" else short_function(f[0]) for f in frames]
        short = "/".join(_collapse(names)) if names else name
        label = hp_label(short, length)
        if label not in wanted:
            label = hp_label(name, length)
            if label not in wanted:
                continue
        out.setdefault(label, []).append(name)
    return out


TIP_STACKS = 5      # full stacks shown in a band's tooltip
TIP_FRAMES = 24     # frames shown of each


def _frame_line(frame):
    """A frame as a tooltip shows it: 'make  (examples/trees.c:7)'."""
    function, _, source = frame
    return f"{function}  ({source})" if source else function


def stack_tip(names, frames_of):
    """The tooltip text of the full stacks behind a label: each stack one
    frame a line (with its source line where known), stacks a blank line
    apart; the first TIP_STACKS, then how many more. '' when none."""
    if not names:
        return ""
    if len(names) == 1:
        head = "full stack (innermost frame first):"
    else:
        head = f"{len(names)} stacks behind this label (innermost frame first):\n"
    parts = []
    for name in names[:TIP_STACKS]:
        frames = frames_of.get(name) or [(f, "", None) for f in split_stack(name)]
        lines = [_frame_line(f) for f in frames[:TIP_FRAMES]]
        if len(frames) > TIP_FRAMES:
            lines.append(f"... {len(frames) - TIP_FRAMES} more frames")
        parts.append("\n".join(lines))
    text = head + "\n" + "\n\n".join(parts)
    if len(names) > TIP_STACKS:
        text += (f"\n\n... and {len(names) - TIP_STACKS} more "
                 f"stack{'s' if len(names) - TIP_STACKS > 1 else ''} (see the Bands table)")
    return text


# ---------------------------------------------------------------------------
# The flame graph: the .prof's allocation table as a call tree
#
# Each row of the table (a cost-centre stack, innermost frame first) is a
# path from the root, its outermost frame first: its bytes (and its bytes
# live at the peak) are the self values of the path's last node, and a
# node's value is the sum over the stacks through it. Frames are merged by
# function name (as flame graphs do), so a node is a function called along
# one path of callers.

FLAME_ROOT = "all stacks"
# A function with no symbol: MODULE+0xADDRESS, [jit] code, UNKNOWN.
NO_SYMBOL_RE = re.compile(r"^(?:\S+\+0x[0-9a-fA-F]+|\[jit\]|-|UNKNOWN)$")
FLAME_SOURCES = 3       # source lines named per node, then how many more


def alloc_table(prof):
    """The .prof's allocation table (columns objects, bytes, requested,
    survived, live@peak, cost-centre stack): the first table with a header
    line whose columns include bytes and live@peak and whose last is the
    cost-centre stack; None when there is none (not heapprof's .prof)."""
    if not prof or not prof.get("heapprof"):
        return None
    for t in prof["tables"]:
        cols = t["columns"]
        if t.get("kind") == "header" and cols and cols[-1].startswith("cost-centre stack") \
                and "bytes" in cols and "live@peak" in cols:
            return t
    return None


def stack_frames(name, frames_of):
    """[(function, where, source or None)] of the stack `name`, innermost
    frame first: the .prof's STACK FRAMES when it lists the stack (a
    function's own '/' is no frame boundary there), else split from the
    name (split_stack). A stack with no frame (UNKNOWN) is one frame of
    its name."""
    frames = frames_of.get(name)
    if frames is None:
        frames = [(f, "", None) for f in split_stack(name)]
    return frames or [(name, "", None)]


def _flame_node(name):
    return {"name": name, "bytes": 0, "live": 0, "self_bytes": 0, "self_live": 0,
            "stacks": 0, "sources": [], "explicit": False, "children": {}}


def flame_tree(prof):
    """The call tree of the .prof's allocation table, or None when it has
    none (or only empty rows). A node is a dict: name (the function's full,
    demangled name as the .prof gives it; the root's is FLAME_ROOT), bytes
    and live (allocated bytes and bytes live at the peak, of every stack
    through the node), self_bytes and self_live (of the stacks that end
    there: allocated by the function itself), stacks (how many stacks go
    through it), sources (its distinct source lines, in the table's order),
    explicit (an explicit cost centre: named by the program) and children
    ({function: node}, in the table's order). The root's values are the
    sums of the table's rows (the 'total profiled' row's)."""
    table = alloc_table(prof)
    if table is None:
        return None
    cols = table["columns"]
    ib, il = cols.index("bytes"), cols.index("live@peak")
    root = _flame_node(FLAME_ROOT)
    frames_of = prof.get("frames", {})
    rows = 0
    for r in table["rows"]:
        name = r[-1]
        if name == "total profiled":
            continue
        try:
            b, live = int(r[ib]), int(r[il])
        except ValueError:
            continue
        rows += 1
        node = root
        path = [root]
        for function, where, source in reversed(stack_frames(name, frames_of)):
            child = node["children"].get(function)
            if child is None:
                child = node["children"][function] = _flame_node(function)
            if where == "explicit":
                child["explicit"] = True
            if source and source not in child["sources"]:
                child["sources"].append(source)
            node = child
            path.append(node)
        node["self_bytes"] += b
        node["self_live"] += live
        for n in path:
            n["bytes"] += b
            n["live"] += live
            n["stacks"] += 1
    return root if rows else None


def flame_colour(name):
    """The colour of a function's nodes: from the CRC-32 of its name, so a
    function has the same colour wherever it is called and in every page;
    warm hues (red to yellow, as flamegraph.pl's); functions with no symbol
    (MODULE+0xADDRESS, [jit]) grey."""
    h = zlib.crc32(name.encode("utf-8"))
    if NO_SYMBOL_RE.match(name):
        return "hsl(220, 9%%, %d%%)" % (72 + h % 12)
    return "hsl(%d, %d%%, %d%%)" % (h % 56, 62 + (h >> 8) % 24, 60 + (h >> 16) % 14)


def flame_label(name, explicit=False):
    """The label drawn on a node: the short form of a C++ function's name
    ('ns::f(int) const' is 'ns::f', 'void ns::g<int>(int)' is
    'ns::g<...>'), as in the .hp labels; other names (C functions,
    MODULE+0xADDRESS, an explicit cost centre's) as they are."""
    if explicit or not ("(" in name or "<" in name):
        return name
    return short_function(name) or name


def flame_data(tree):
    """The flame graph as the page's data, or None for no tree:
    {"funcs": [[full name, label, colour]] (one per function),
     "srcs": [source lines text],
     "nodes": [[parent, func, bytes, live, src, stacks]] in preorder, the
     root first (parent and func -1), children largest (allocated bytes)
     first, then by name; src an index into srcs or -1,
     "stacks": rows of the table}."""
    if tree is None:
        return None
    funcs, func_index, srcs, src_index, nodes = [], {}, [], {}, []
    explicit = set()

    def visit(n):
        if n["explicit"]:
            explicit.add(n["name"])
        for c in n["children"].values():
            visit(c)
    visit(tree)
    pending = [(tree, -1)]
    while pending:
        n, parent = pending.pop()
        f = -1
        if parent >= 0:
            f = func_index.get(n["name"])
            if f is None:
                f = func_index[n["name"]] = len(funcs)
                funcs.append([n["name"], flame_label(n["name"], n["name"] in explicit),
                              flame_colour(n["name"])])
        src = -1
        if n["sources"]:
            text = ", ".join(n["sources"][:FLAME_SOURCES])
            if len(n["sources"]) > FLAME_SOURCES:
                text += f" and {len(n['sources']) - FLAME_SOURCES} more"
            src = src_index.get(text)
            if src is None:
                src = src_index[text] = len(srcs)
                srcs.append(text)
        me = len(nodes)
        nodes.append([parent, f, n["bytes"], n["live"], src, n["stacks"]])
        kids = sorted(n["children"].values(), key=lambda c: (-c["bytes"], c["name"]))
        for c in reversed(kids):
            pending.append((c, me))
    return {"funcs": funcs, "srcs": srcs, "nodes": nodes, "stacks": tree["stacks"]}


# ---------------------------------------------------------------------------
# The page's data

def build_data(hp, prof, top, source_name, prof_name):
    """The data the page's script draws from (embedded as JSON): the
    samples, the drawn bands (the `top` largest and OTHER, or an ldv
    profile's in their fixed order), every band for the bands table, the
    peak."""
    nlab = len(hp.labels)
    nsamp = len(hp.times)
    totals = [0] * nlab
    peaks = [0] * nlab
    peak_at = [0] * nlab
    sample_totals = []
    for i, vals in enumerate(hp.values):
        s = 0
        for k, v in vals.items():
            totals[k] += v
            s += v
            if v > peaks[k]:
                peaks[k] = v
                peak_at[k] = i
        sample_totals.append(s)
    # Largest first by the mean (as hp2ps): the --top drawn, stacked from
    # the bottom in this order, so the bottom band is the broadest base (a
    # spike stacked low would make every band above it jump).
    order = sorted(range(nlab), key=lambda k: (-totals[k], -peaks[k], hp.labels[k]))
    ldv = nlab > 0 and all(lab in LDV_COLOURS for lab in hp.labels)
    if ldv:
        order = sorted(range(nlab), key=lambda k: LDV_ORDER.index(hp.labels[k]))
        shown = order
    else:
        shown = order if top <= 0 or nlab <= top else order[:top]
    shown_set = set(shown)
    rest = [k for k in order if k not in shown_set] if len(shown) < nlab else []
    # The full stacks (from the .prof) behind each label.
    stacks = label_stacks(prof, hp.labels)
    frames_of = dict(prof_stacks(prof)) if stacks else {}
    bands = []
    for rank, k in enumerate(shown):
        bands.append({"name": hp.labels[k],
                      "colour": LDV_COLOURS[hp.labels[k]] if ldv else colour(rank),
                      "values": [vals.get(k, 0) for vals in hp.values],
                      "peak": peaks[k],
                      "peakTime": hp.times[peak_at[k]] if nsamp else 0,
                      "stackText": stack_tip(stacks.get(hp.labels[k]), frames_of)})
    if rest:
        other_vals = [sum(v for k, v in vals.items() if k not in shown_set)
                      for vals in hp.values]
        pk = max(range(nsamp), key=lambda i: other_vals[i]) if nsamp else 0
        bands.append({"name": "OTHER", "colour": OTHER_COLOUR, "other": len(rest),
                      "values": other_vals, "peak": other_vals[pk] if nsamp else 0,
                      "peakTime": hp.times[pk] if nsamp else 0, "stackText": ""})
    peak_i = 0
    for i, s in enumerate(sample_totals):
        if s > sample_totals[peak_i]:
            peak_i = i
    all_bands = []
    in_chart = set(shown)
    for k in order:
        all_bands.append({"name": hp.labels[k], "peak": peaks[k],
                          "peakTime": hp.times[peak_at[k]] if nsamp else 0,
                          "mean": totals[k] / nsamp if nsamp else 0,
                          "shown": k in in_chart,
                          "stacks": stacks.get(hp.labels[k], [])})
    return {
        "source": source_name, "prof": prof_name,
        "job": hp.header["JOB"], "date": hp.header["DATE"],
        "sampleUnit": hp.header["SAMPLE_UNIT"] or "seconds",
        "valueUnit": hp.header["VALUE_UNIT"] or "bytes",
        "times": hp.times, "totals": sample_totals, "marks": hp.marks,
        "bands": bands, "ldv": ldv, "legend": legend_order(bands),
        "peak": {"index": peak_i, "time": hp.times[peak_i] if nsamp else 0,
                 "bytes": sample_totals[peak_i] if nsamp else 0},
        "nLabels": nlab, "nSamples": nsamp, "allBands": all_bands,
        "warnings": hp.warnings,
        "flame": flame_data(flame_tree(prof)),
    }


def legend_order(bands):
    """The order of the legend's entries (indices into bands): the largest
    peak first, so the bands holding most of the heap head the list;
    OTHER last."""
    return sorted(range(len(bands)),
                  key=lambda b: ("other" in bands[b], -bands[b]["peak"], b))


# ---------------------------------------------------------------------------
# HTML

def esc(s):
    return html.escape(str(s), quote=True)


def human(n, unit="bytes"):
    if unit != "bytes":
        return f"{n:,} {unit}"
    for u, f in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= f:
            return f"{n / f:.2f} {u}"
    return f"{n} bytes"


def sortable_table(columns, rows, numeric, cls="", first_sort=None, desc=True, markup=(),
                   prose=()):
    """An HTML table whose header cells sort it (script below); numeric
    cells carry their value in data-v; the cells of the columns in
    `markup` are HTML already (escaped by the caller); those of the
    columns in `prose` are sentences (set as text, not as names)."""
    attrs = f' class="sortable {cls}"'
    if first_sort is not None:
        attrs += f' data-sort="{first_sort}" data-desc="{1 if desc else 0}"'
    out = [f"<table{attrs}><thead><tr>"]
    for j, c in enumerate(columns):
        out.append(f'<th class="{"num" if numeric[j] else "txt"}" title="sort by {esc(c)}">'
                   f"{esc(c)}</th>")
    out.append("</tr></thead><tbody>")
    for r in rows:
        out.append('<tr class="total">' if r and r[-1] == "total profiled" else "<tr>")
        for j, cell in enumerate(r):
            if numeric[j]:
                v = cell.rstrip("%")
                out.append(f'<td class="num" data-v="{esc(v)}">{esc(fmt_num(cell))}</td>')
            elif j in markup:
                out.append(f'<td class="txt stacks">{cell}</td>')
            elif j in prose:
                out.append(f'<td class="txt prose">{esc(cell)}</td>')
            else:
                out.append(f'<td class="txt">{esc(cell)}</td>')
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def fmt_num(cell):
    if re.fullmatch(r"\d{4,}", cell):
        return f"{int(cell):,}"
    return cell


def frames_list(frames):
    """HTML: a stack's frames, innermost first, each with its source line
    and module+address."""
    items = []
    for function, where, source in frames:
        items.append(f'<li><span class="fn">{esc(function)}</span>'
                     + (f' <span class="src">{esc(source)}</span>' if source else "")
                     + (f' <span class="where">{esc(where)}</span>'
                        if where and where != function else "")
                     + "</li>")
    return f'<ol class="frames">{"".join(items)}</ol>'


def stacks_cell(names, frames_of):
    """HTML of a bands-table cell: the full stacks behind a label, each its
    name, to open for its frames and their source lines."""
    out = []
    for name in names:
        frames = frames_of.get(name) or [(f, "", None) for f in split_stack(name)]
        out.append(f'<details class="stack"><summary>{esc(name)}</summary>'
                   f"{frames_list(frames)}</details>")
    return "".join(out)


def frames_section(prof):
    """HTML of the .prof's STACK FRAMES section: a table of each stack's
    frames (function, module+address, source line)."""
    body = []
    for name, frames in prof["frames"].items():
        body.append(f'<tbody><tr class="stack-head"><td colspan="4">{esc(name)}</td></tr>')
        for i, (function, where, source) in enumerate(frames):
            body.append(f'<tr><td class="num">{i}</td><td class="txt">{esc(function)}</td>'
                        f'<td class="txt">{esc(where)}</td>'
                        f'<td class="txt">{esc(source or "-")}</td></tr>')
        if not frames:
            body.append('<tr><td></td><td class="txt" colspan="3">(no frames)</td></tr>')
        body.append("</tbody>")
    notes = "".join(f'<p class="note">{esc(n)}</p>' for n in prof["frames_notes"])
    n = len(prof["frames"])
    return (f'<section class="card" id="stack-frames"><h2>Stack frames <span class="sub">'
            f'{n} stack{"" if n == 1 else "s"} of the allocation table, innermost frame '
            f'first</span></h2>{notes}<div class="scroll"><table class="data frames"><thead>'
            f'<tr><th class="num">#</th><th class="txt">function</th><th class="txt">'
            f'module+address</th><th class="txt">source</th></tr></thead>{"".join(body)}'
            f"</table></div></section>")


def table_title(title):
    """(heading, aside) of a .prof section's title: 'BY KIND (as allocated;
    ...)' is ('By kind', 'as allocated; ...')."""
    title, _, aside = title.rstrip(":").partition(" (")
    if title.isupper():
        title = title.lower()
    return title[:1].upper() + title[1:], aside[:-1] if aside.endswith(")") else ""


def table_section(t, table):
    """HTML of a table of the .prof: sortable, in the file's order (it is
    meaningful: largest first, grouped by stack), with the notes of its
    section under it; a section of counters as a list of them."""
    title, aside = table_title(table["title"])
    cols = table["columns"]
    rows = table["rows"]
    notes = "".join(f'<p class="note">{esc(n)}</p>' for n in table.get("notes", ()))
    if table.get("kind") == "kv":
        body = "".join(f"<tr><th>{esc(k)}</th><td>{esc(fmt_summary(v))}</td></tr>"
                       for k, v in rows)
        return (f'<section class="card prof-table" id="table-{t}"><h2>{esc(title)} '
                f'<span class="sub">{esc(aside)}</span></h2><table class="kv">{body}</table>'
                f"{notes}</section>")
    prose = ()
    if table.get("kind") == "listed":
        aside = ""          # the columns it lists head the table
        if cols[-1] == "note":
            prose = (len(cols) - 1,)
    # A column of numbers (empty cells allowed: a census with no traversal).
    numeric = [any(r[j] for r in rows) and all(_is_number(r[j]) for r in rows if r[j])
               for j in range(len(cols))]
    if not rows:
        notes = '<p class="note">(none)</p>' + notes
    return (f'<section class="card prof-table" id="table-{t}"><h2>{esc(title)} '
            f'<span class="sub">{esc(aside + " · " if aside else "")}{len(rows)} rows; '
            f'click a column to sort</span></h2><div class="scroll">'
            f'{sortable_table(cols, rows, numeric, "data", prose=prose)}</div>{notes}'
            f"</section>")


def _share(v, total):
    """v as a percentage of total ('51.6%', '<0.1%'); '-' for no total."""
    if not total:
        return "-"
    p = 100 * v / total
    return ("<0.1" if 0 < p < 0.1 else f"{p:.1f}") + "%"


def _dom_node_row(node, total, frames_of, tag):
    """HTML of a node of the dominator tree, one row: what it is (its stack
    and, at the first level, the retainer set holding it), its retained
    bytes (exact in the title), objects and own bytes, and its share of
    what the census reached as a bar; `tag` is summary for a node with
    children (a click opens it), else div."""
    name, held = node["name"], node["held_by"]
    if node["others"] is not None:
        what = (f'<span class="dt-stack">{esc(name)}</span>'
                '<span class="dt-held">the rest of this level, summed</span>')
        tip = (f'{node["others"]} more node{"" if node["others"] == 1 else "s"} at this level '
               f"(the largest are shown above)")
    else:
        frames = frames_of.get(name)
        tip = stack_tip([name], frames_of) if frames else name
        what = f'<span class="dt-stack">{esc(name)}</span>'
        if held:
            what += ('<span class="dt-held" title="the retainer set that holds it">'
                     f"held by {esc(held)}</span>")
            tip += f"\n\nheld by {held} (the retainer set that holds it)"
    retained, objects, own = node["retained"], node["objects"], node["own"]
    share = _share(retained, total)
    width = min(100.0, 100 * retained / total) if total else 0
    cls = "dt-row" + (" dt-others" if node["others"] is not None else "")
    return (f'<{tag} class="{cls}" data-level="{node["level"]}" data-retained="{retained}" '
            f'data-objects="{objects}" data-own="{"" if own is None else own}">'
            '<span class="dt-caret" aria-hidden="true"></span>'
            f'<span class="dt-what" title="{esc(tip)}">{what}</span>'
            f'<span class="dt-num dt-ret" title="{retained:,} bytes retained">'
            f"{esc(human(retained))}</span>"
            f'<span class="dt-num dt-obj" title="{objects:,} object{"" if objects == 1 else "s"} '
            f'retained">{objects:,}</span>'
            f'<span class="dt-num dt-own"'
            + ("" if own is None else f' title="{own:,} bytes of its own"')
            + f'>{"" if own is None else f"{own:,}"}</span>'
            f'<span class="dt-share" title="{esc(share)} of the {total:,} bytes reached">'
            f'<span class="dt-bar"><i style="width:{width:.2f}%"></i></span>'
            f'<span class="dt-pct">{esc(share)}</span></span></{tag}>')


def dom_tree_section(t, table, prof):
    """HTML of RETAINED SIZES' dominator tree (a table of kind "tree"): a
    tree of nested <details>, the first level shown and each node opened
    by a click on it (as Eclipse MAT's dominator tree); a node's share is of
    the bytes the census reached (the section's title), or of the first
    level's sum without it."""
    title, _, what = table["title"].partition(" (")[0].partition(": ")
    reached = table.get("reached")
    roots = table["roots"]
    total = reached["bytes"] if reached and reached["bytes"] else \
        sum(r["retained"] for r in roots)
    sub = [what] if what else []
    if reached:
        sub.append(f'the census at {reached["time"]} s reached {reached["bytes"]:,} bytes in '
                   f'{reached["objects"]:,} objects')
    sub.append("a line's figures include the lines under it; click a node to open it")
    frames_of = prof.get("frames", {})
    out = []
    depth = 0           # <details> open around the current node
    for node in table["rows"]:
        while depth > node["level"]:
            out.append("</div></details>")
            depth -= 1
        if node["children"]:
            out.append('<details class="dt-node">'
                       + _dom_node_row(node, total, frames_of, "summary")
                       + '<div class="dt-kids">')
            depth += 1
        else:
            out.append(_dom_node_row(node, total, frames_of, "div"))
    out.append("</div></details>" * depth)
    notes = "".join(f'<p class="note">{esc(n)}</p>' for n in table.get("notes", ()))
    if not roots:
        body = '<p class="note">(none: no object under the root)</p>'
    else:
        body = ('<div class="dt-tools"><button type="button" data-dt="open">open all</button>'
                '<button type="button" data-dt="close">close all</button></div>'
                '<div class="domtree" role="group" aria-label="dominator tree">'
                '<div class="dt-row dt-head"><span class="dt-caret"></span>'
                '<span class="dt-what">allocated at; held by (the first level)</span>'
                '<span class="dt-num">retained</span><span class="dt-num">objects</span>'
                '<span class="dt-num">own bytes</span>'
                f'<span class="dt-share" title="share of the {total:,} bytes '
                f'{"the census reached" if reached else "of the first level"}">share of '
                f'{esc(human(total))}</span></div>'
                + "".join(out) + "</div>")
    return (f'<section class="card prof-tree" id="table-{t}"><h2>{esc(title)} '
            f'<span class="sub">{esc(" · ".join(sub))}</span></h2>{body}{notes}</section>')


def prof_sections(prof, data):
    """HTML of the .prof part of the page."""
    parts = []
    if prof["heapprof"]:
        items = []
        if prof["settings"]:
            items.append(("settings", prof["settings"]))
        items += prof["summary"]
        rows = "".join(f"<tr><th>{esc(k)}</th><td>{esc(fmt_summary(v))}</td></tr>"
                       for k, v in items)
        notes = "".join(f'<p class="note">{esc(n)}</p>' for n in prof["notes"])
        parts.append(f'<section class="card" id="summary"><h2>Run summary '
                     f'<span class="sub">{esc(data["prof"])}</span></h2>'
                     f'<table class="kv">{rows}</table>{notes}</section>')
        for t, table in enumerate(prof["tables"]):
            parts.append(dom_tree_section(t, table, prof) if table.get("kind") == "tree"
                         else table_section(t, table))
        if prof["frames_title"]:
            parts.append(frames_section(prof))
        if prof["other"]:
            parts.append('<section class="card"><h2>Other lines of the report</h2><pre>'
                         + esc("\n".join(prof["other"])) + "</pre></section>")
    if prof["sets"]:
        by_id = {}
        for b in data["allBands"]:
            m = re.match(r"^\((\d+)\)", b["name"])
            if m:
                by_id[int(m.group(1))] = b
        rows = []
        for sid, members in sorted(prof["sets"]):
            b = by_id.get(sid)
            rows.append([str(sid), str(b["peak"]) if b else "0",
                         ", ".join(m or "(no name)" for m in members) if members
                         else "(empty)"])
        parts.append('<section class="card" id="retainer-sets"><h2>Retainer sets '
                     f'<span class="sub">{len(rows)} sets; a band named (N)... is set N'
                     '</span></h2><div class="scroll">'
                     + sortable_table(["set", "peak bytes", "retainers"], rows,
                                      [True, True, False], "data", 1)
                     + "</div></section>")
    return "\n".join(parts)


def fmt_summary(v):
    return re.sub(r"(?<![\d.])\d{5,}(?![\d.])", lambda m: f"{int(m.group(0)):,}", v)


def json_for_script(obj):
    s = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    # Inside <script>: no "</script>", "<!--", nor line separators.
    return (s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def prof_callout(prof, prof_name):
    """HTML of the callout over the chart: the notes under the .prof's
    summary ('warning: ...', 'note: ...' and the others, such as a stop by
    a signal), each warning styled as one; '' when there are none."""
    items = []
    for note in prof["notes"]:
        kind, sep, rest = note.partition(": ")
        if sep and kind in ("warning", "note"):
            items.append(f'<p class="{"warn" if kind == "warning" else "info"}">'
                         f"<strong>{kind}:</strong> {esc(rest)}</p>")
        else:
            items.append(f'<p class="info">{esc(note)}</p>')
    if not items:
        return ""
    return (f'<div class="callout" id="callout" role="note" aria-label="warnings and notes '
            f'of {esc(prof_name)}">{"".join(items)}</div>')


def flame_section(data):
    """HTML of the flame graph's card (drawn by the page's script from
    data["flame"]); '' when there is no allocation table."""
    F = data.get("flame")
    if not F:
        return ""
    n = F["stacks"]
    return ('<section class="card" id="flame"><h2>Flame graph <span class="sub">'
            f'the .prof\'s allocation table as a call tree ({n:,} stack{"" if n == 1 else "s"}), '
            'outermost frame at the top; a frame\'s width is its bytes; click a frame to zoom, '
            'point at one for its bytes</span></h2>'
            '<div class="flame-tools"><span class="seg" role="group" aria-label="weighting">'
            '<button type="button" id="flame-bytes" class="on" aria-pressed="true" title="bytes '
            'allocated over the run (the table\'s bytes column)">allocated bytes</button>'
            '<button type="button" id="flame-live" aria-pressed="false" title="bytes live at '
            'the peak census (the table\'s live@peak column)">live at peak</button></span>'
            '<button type="button" id="flame-reset" disabled title="show every stack">'
            'reset zoom</button></div><div id="flame-status" class="muted"></div>'
            '<div id="flame-graph" role="img" aria-label="flame graph (icicle) of the '
            'allocation table"><noscript><p class="empty">The flame graph needs JavaScript.'
            '</p></noscript><div id="flame-tip"></div></div></section>')


def render_page(data, prof):
    unit = data["valueUnit"]
    peak = data["peak"]
    cards = [("peak", human(peak["bytes"], unit),
              f'at {peak["time"]:.3f} {esc(data["sampleUnit"][:1])}' if peak["bytes"]
              else "nothing live"),
             ("samples", f'{data["nSamples"]:,}',
              f'over {data["times"][-1]:.3f} {esc(data["sampleUnit"])}'
              if data["nSamples"] else ""),
             ("bands", f'{data["nLabels"]:,}',
              f'{len(data["bands"])} drawn' + (" (top + OTHER)" if any(
                  b.get("other") for b in data["bands"]) else ""))]
    if prof and prof["heapprof"]:
        summary = dict(prof["summary"])
        if "allocated" in summary:
            m = re.match(r"(\d+) objects, (\d+) bytes", summary["allocated"])
            if m:
                cards.append(("allocated", human(int(m.group(2))),
                              f"{int(m.group(1)):,} objects"))
        if "collections" in summary:
            cards.append(("collections", summary["collections"],
                          summary.get("censuses", "") and
                          f'{summary.get("censuses")} censuses'))
    card_html = "".join(f'<div class="stat"><div class="k">{esc(k)}</div>'
                        f'<div class="v">{esc(v)}</div><div class="s">{s}</div></div>'
                        for k, v, s in cards)
    bands_rows = [[b["name"], str(b["peak"]), "%.6f" % b["peakTime"], "%.0f" % b["mean"],
                   "chart" if b["shown"] else "OTHER"] for b in data["allBands"]]
    columns = ["band", "peak " + unit, "at (s)", "mean " + unit, "drawn in"]
    numeric = [False, True, True, True, False]
    markup = ()
    if any(b["stacks"] for b in data["allBands"]):
        # The full stacks behind each label, from the .prof.
        frames_of = dict(prof_stacks(prof))
        for row, b in zip(bands_rows, data["allBands"]):
            row.append(stacks_cell(b["stacks"], frames_of))
        columns.append("full stack (innermost first; open for source lines)")
        numeric.append(False)
        markup = (len(columns) - 1,)
    bands_table = sortable_table(columns, bands_rows, numeric, "data", 1, markup=markup)
    warnings = "".join(f'<p class="warn">{esc(w)}</p>' for w in data["warnings"])
    callout = prof_callout(prof, data["prof"]) if prof and prof["heapprof"] else ""
    ldv_note = ""
    if data["ldv"]:
        ldv_note = ('<p class="note">Biographical profile: <b>lag</b> = created, not yet '
                    'used; <b>use</b> = between first and last use; <b>drag</b> = after its '
                    'last use, before it died; <b>void</b> = never used.</p>')
    subtitle = " · ".join(esc(x) for x in (data["date"], data["source"]) if x)
    prof_html = prof_sections(prof, data) if prof else ""
    values = {}
    for key, value in (("@TITLE@", esc(data["job"] or data["source"])),
                       ("@JOB@", esc(data["job"] or "(no JOB line)")),
                       ("@SUBTITLE@", subtitle),
                       ("@CARDS@", card_html),
                       ("@WARNINGS@", warnings + ldv_note),
                       ("@CALLOUT@", callout),
                       ("@BANDS_TABLE@", bands_table),
                       ("@FLAME@", flame_section(data)),
                       ("@NBANDS@", str(data["nLabels"])),
                       ("@PROF@", prof_html),
                       ("@CHART_HELPERS@", CHART_HELPERS_JS),
                       ("@DATA@", json_for_script(data))):
        values[key] = value
    # In one pass: a value that happens to contain '@DATA@' stays as it is.
    return re.sub(r"@[A-Z_]+@", lambda m: values.get(m.group(0), m.group(0)), PAGE)



# The chart's JavaScript helpers, shared by this page and heapprof diff's
# (scripts/heapprof_diff.py): SVG elements, byte formatting, axis steps and
# tick labels. They read the page's `D`, `NS` and `bytesUnit`.
CHART_HELPERS_JS = r"""  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function grouped(v) { return Math.round(v).toLocaleString("en-US"); }
  function human(v) {
    if (!bytesUnit) return grouped(v) + " " + D.valueUnit;
    const u = [["GiB", 1073741824], ["MiB", 1048576], ["KiB", 1024]];
    for (const [name, f] of u) if (v >= f) return (v / f).toFixed(2) + " " + name;
    return grouped(v) + " bytes";
  }
  function fullValue(v) {
    return bytesUnit ? grouped(v) + " bytes" + (v >= 1024 ? " (" + human(v) + ")" : "")
                     : grouped(v) + " " + D.valueUnit;
  }
  function niceStep(range, count) {
    const raw = range / Math.max(count, 1), p = Math.pow(10, Math.floor(Math.log10(raw)));
    const m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
  }
  function yUnit(max) {
    if (!bytesUnit) return ["", 1];
    if (max >= 1073741824) return ["GiB", 1073741824];
    if (max >= 1048576) return ["MiB", 1048576];
    if (max >= 1024) return ["KiB", 1024];
    return ["bytes", 1];
  }
  function decimals(step) {
    // As many decimals as the step needs: 2.5 one, 0.25 two, 5 none.
    let d = 0;
    while (d < 6 && Math.abs(step * 10 ** d - Math.round(step * 10 ** d)) > 1e-6) d++;
    return d;
  }
  function fmtTick(v, step) {
    // The value at the tick, to the step's decimals, without trailing zeros
    // (0, 2.5, 5, 7.5; 0.25, 0.5, 0.75, 1).
    return String(+v.toFixed(decimals(step)));
  }
  function bandUnder(G, times, visible, mx, my) {
    // Which band a chart of geometry G draws under (mx, my), and the
    // nearest sample: G.cum[b][i] is the top of band b at sample i.
    const n = times.length;
    const t = G.t0 + (mx - G.ml) / G.pw * (G.t1 - G.t0);
    let lo = 0, hi = n - 1;
    while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (times[mid] <= t) lo = mid; else hi = mid; }
    const f = times[hi] > times[lo] ? Math.min(1, Math.max(0, (t - times[lo]) / (times[hi] - times[lo]))) : 0;
    const near = (n > 1 && f > 0.5) ? hi : lo;
    const v = (G.mt + G.ph - my) / G.ph * G.ytop;
    let found = -1, below = 0;
    for (let b = 0; b < visible.length; b++) {
      if (!visible[b]) continue;
      const top = G.cum[b][lo] + (G.cum[b][hi] - G.cum[b][lo]) * f;
      if (v >= below && v < top) { found = b; break; }
      below = top;
    }
    return {band: found, sample: near};
  }"""

PAGE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>heapprof: @TITLE@</title>
<style>
:root { --bg: #f4f5f7; --card: #fff; --ink: #1d2330; --muted: #687085; --line: #e3e6ec;
        --accent: #3b5bdb; --mono: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
       font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", "Liberation Sans", sans-serif; }
header { background: #1f2637; color: #fff; padding: 18px 28px 16px; }
header .brand { font-size: 12px; letter-spacing: .08em; text-transform: uppercase; color: #9fb0d8; font-weight: 600; }
header h1 { margin: 2px 0 2px; font-size: 21px; font-weight: 600; font-family: var(--mono); word-break: break-all; }
header .sub { color: #b8c2d9; font-size: 13px; }
main { max-width: 1400px; margin: 0 auto; padding: 18px 24px 40px; }
.stats { display: flex; flex-wrap: wrap; gap: 12px; margin-bottom: 16px; }
.stat { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 16px; min-width: 150px; }
.stat .k { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .05em; }
.stat .v { font-size: 22px; font-weight: 600; }
.stat .s { color: var(--muted); font-size: 12px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 18px; margin-bottom: 16px; }
.card h2 { font-size: 15px; margin: 0 0 10px; font-weight: 600; }
.card h2 .sub { color: var(--muted); font-weight: 400; font-size: 12px; margin-left: 8px; }
.chartwrap { display: flex; gap: 16px; align-items: stretch; }
#chart { flex: 1 1 auto; min-width: 0; position: relative; }
#chart svg { display: block; user-select: none; }
#legend { flex: 0 0 300px; max-height: 470px; display: flex; flex-direction: column; }
#legend .tools { display: flex; gap: 6px; margin-bottom: 6px; align-items: center; color: var(--muted); font-size: 12px; }
#legend .tools button { font: inherit; border: 1px solid var(--line); background: #f8f9fb; border-radius: 5px; padding: 2px 9px; cursor: pointer; color: var(--ink); }
#legend .tools button:hover { border-color: var(--accent); }
#legend .lhead { display: flex; justify-content: space-between; color: var(--muted); font-size: 11px; padding: 2px 4px; border-top: 1px solid var(--line); }
#legend ul { list-style: none; margin: 0; padding: 0; overflow-y: auto; flex: 1; border-top: 1px solid var(--line); }
#legend li { display: flex; align-items: center; gap: 8px; padding: 3px 4px; cursor: pointer; border-radius: 4px; border-bottom: 1px solid #f0f1f4; }
#legend li:hover, #legend li.hot { background: #eef2ff; }
#legend li .sw { flex: 0 0 13px; height: 13px; border-radius: 3px; border: 1px solid rgba(0,0,0,.15); }
#legend li .name { flex: 1; font-family: var(--mono); font-size: 12px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
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
.cursor { stroke: #1d2330; stroke-opacity: .45; pointer-events: none; }
.mark { stroke: #e15759; stroke-opacity: .6; stroke-dasharray: 2 2; }
#tip { position: absolute; pointer-events: none; background: rgba(29,35,48,.94); color: #fff; border-radius: 6px;
       padding: 7px 10px; font-size: 12px; line-height: 1.4; box-shadow: 0 4px 14px rgba(0,0,0,.2); max-width: 420px; display: none; z-index: 5; }
#tip .band { font-family: var(--mono); font-weight: 600; word-break: break-all; display: flex; gap: 6px; align-items: baseline; }
#tip .band i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; flex: 0 0 10px; }
#tip .muted { color: #b8c2d9; }
.empty { padding: 60px 0; text-align: center; color: var(--muted); }
.scroll { max-height: 520px; overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
table.data { border-collapse: collapse; width: 100%; font-size: 12.5px; }
table.data th { position: sticky; top: 0; background: #f3f5f9; text-align: left; font-weight: 600; padding: 6px 10px;
                border-bottom: 1px solid var(--line); cursor: pointer; white-space: nowrap; }
table.data th.num { text-align: right; }
table.data th:hover { color: var(--accent); }
table.data th.asc::after { content: " \25B2"; font-size: 9px; }
table.data th.desc::after { content: " \25BC"; font-size: 9px; }
table.data td { padding: 4px 10px; border-bottom: 1px solid #f0f1f4; }
table.data td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.data td.txt { font-family: var(--mono); font-size: 12px; word-break: break-all; }
table.data tbody tr:hover { background: #f6f8ff; }
table.data tbody tr.total td { font-weight: 600; background: #fafbfc; }
#bands table.data td { vertical-align: top; }
#bands table.data td:first-child { min-width: 220px; }
table.data td.stacks { min-width: 320px; }
table.data td.prose { font-family: inherit; word-break: normal; min-width: 320px; }
details.stack summary { cursor: pointer; }
details.stack + details.stack { margin-top: 3px; border-top: 1px dashed var(--line); padding-top: 3px; }
ol.frames { margin: 3px 0 4px; padding-left: 26px; }
ol.frames .src { color: var(--accent); }
ol.frames .where, table.frames td:nth-child(3) { color: var(--muted); }
table.frames td:nth-child(3) { white-space: nowrap; word-break: normal; }
#stack-frames .note { margin: 0 0 8px; }
table.frames th { cursor: default; }
table.frames th:hover { color: inherit; }
table.frames tr.stack-head td { font-family: var(--mono); font-size: 12px; font-weight: 600;
                                background: #f6f7fa; word-break: break-all; padding-top: 7px; }
table.kv { border-collapse: collapse; }
table.kv th { text-align: left; font-weight: 500; color: var(--muted); padding: 3px 24px 3px 0; white-space: nowrap; vertical-align: top; }
table.kv td { padding: 3px 0; font-variant-numeric: tabular-nums; }
.note { color: var(--muted); font-size: 13px; margin: 8px 0 0; }
.warn { background: #fff4e0; border: 1px solid #f5d7a1; border-radius: 6px; padding: 6px 10px; margin: 0 0 12px; }
.callout { margin: 0 0 12px; }
.callout p { margin: 0 0 6px; padding: 6px 10px; border-radius: 6px; }
.callout p.warn { border-left: 4px solid #e8590c; }
.callout p.warn strong { color: #b34700; }
.callout p.info { background: #eef3fb; border: 1px solid #cdd9ee; border-left: 4px solid #3b5bdb; }
pre { font-family: var(--mono); font-size: 12px; white-space: pre-wrap; margin: 0; }
.flame-tools { display: flex; gap: 10px; align-items: center; margin-bottom: 8px; font-size: 12px; flex-wrap: wrap; }
.flame-tools button { font: inherit; border: 1px solid var(--line); background: #f8f9fb; padding: 2px 10px; cursor: pointer; color: var(--ink); border-radius: 5px; }
.flame-tools button:hover:not(:disabled) { border-color: var(--accent); }
.flame-tools button:disabled { color: #a3a9b6; cursor: default; }
.flame-tools .seg { display: inline-flex; }
.flame-tools .seg button { border-radius: 0; }
.flame-tools .seg button:first-child { border-radius: 5px 0 0 5px; }
.flame-tools .seg button:last-child { border-radius: 0 5px 5px 0; border-left: 0; }
.flame-tools .seg button.on { background: var(--accent); border-color: var(--accent); color: #fff; }
.muted { color: var(--muted); }
#flame-status { font-size: 12px; margin: 0 0 6px; min-height: 18px; }
#flame-graph { position: relative; user-select: none; min-height: 20px; }
#flame-graph .fnode { position: absolute; height: 19px; border-right: 1px solid #fff; overflow: hidden;
                      white-space: nowrap; text-overflow: ellipsis; font: 11.5px/19px var(--mono); color: #1d2330;
                      padding: 0 4px; cursor: pointer; }
#flame-graph .fnode:hover { outline: 1.5px solid #1d2330; outline-offset: -1.5px; z-index: 1; }
#flame-graph .fnode.root { background: #dfe3ea !important; }
#flame-graph .fnode.anc { opacity: .55; }
#flame-graph .fnode.zoomed { font-weight: 600; }
#flame-tip { position: absolute; pointer-events: none; background: rgba(29,35,48,.94); color: #fff; border-radius: 6px;
             padding: 7px 10px; font-size: 12px; line-height: 1.45; box-shadow: 0 4px 14px rgba(0,0,0,.2);
             max-width: 560px; display: none; z-index: 5; }
#flame-tip .fname { font-family: var(--mono); font-weight: 600; word-break: break-all; }
#flame-tip .muted, #flame-tip .fsrc { color: #b8c2d9; }
#flame-tip .fsrc { font-family: var(--mono); word-break: break-all; }
.dt-tools { display: flex; gap: 6px; margin-bottom: 8px; font-size: 12px; }
.dt-tools button { font: inherit; border: 1px solid var(--line); background: #f8f9fb; padding: 2px 10px; cursor: pointer; color: var(--ink); border-radius: 5px; }
.dt-tools button:hover { border-color: var(--accent); }
.domtree { max-height: 640px; overflow: auto; border: 1px solid var(--line); border-radius: 6px; font-size: 12.5px; }
.domtree .dt-row { display: flex; align-items: center; gap: 10px; padding: 3px 10px 3px 6px; border-bottom: 1px solid #f0f1f4; }
.domtree .dt-head { position: sticky; top: 0; z-index: 1; background: #f3f5f9; font-weight: 600; border-bottom-color: var(--line); }
.domtree summary { cursor: pointer; list-style: none; }
.domtree summary::-webkit-details-marker { display: none; }
.domtree summary:hover { background: #f6f8ff; }
.domtree summary:focus-visible { outline: 2px solid var(--accent); outline-offset: -2px; }
.dt-caret { flex: 0 0 12px; color: var(--muted); font-size: 11px; }
.domtree summary > .dt-caret::before { content: "\25B8"; }
.domtree details[open] > summary > .dt-caret::before { content: "\25BE"; }
.dt-what { flex: 1 1 auto; min-width: 0; display: flex; flex-wrap: wrap; gap: 2px 10px; align-items: baseline; }
.dt-stack { font-family: var(--mono); font-size: 12px; word-break: break-all; }
.dt-held { color: var(--muted); font-family: var(--mono); font-size: 11.5px; word-break: break-all; }
.dt-others .dt-stack { color: var(--muted); font-style: italic; }
.dt-num { flex: 0 0 86px; text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.dt-share { flex: 0 0 150px; display: flex; align-items: center; gap: 6px; white-space: nowrap; }
.dt-bar { flex: 1 1 auto; height: 8px; background: #edf0f4; border-radius: 4px; overflow: hidden; }
.dt-bar i { display: block; height: 100%; background: var(--accent); }
.dt-pct { flex: 0 0 44px; text-align: right; color: var(--muted); font-size: 11.5px; font-variant-numeric: tabular-nums; }
.dt-head .dt-share { justify-content: flex-end; }
.dt-kids { margin-left: 16px; border-left: 1px dashed #d5dae3; }
footer { color: var(--muted); font-size: 12px; text-align: center; margin-top: 20px; }
@media (max-width: 900px) { .chartwrap { flex-direction: column; } #legend { flex-basis: auto; max-height: 300px; } }
</style>
</head>
<body>
<header>
  <div class="brand">heapprof heap profile</div>
  <h1 id="job">@JOB@</h1>
  <div class="sub">@SUBTITLE@</div>
</header>
<main>
  @WARNINGS@
  <div class="stats">@CARDS@</div>
  <section class="card">
    <h2>Live heap by band over time <span class="sub">point at a band for its bytes; click the legend to hide or show a band</span></h2>
    @CALLOUT@
    <div class="chartwrap">
      <div id="chart"><noscript><p class="empty">The chart needs JavaScript.</p></noscript><div id="tip"></div></div>
      <div id="legend"><div class="tools"><button type="button" id="all">show all</button><button type="button" id="none">hide all</button><span id="count"></span></div><div class="lhead"><span>band, largest peak first</span><span>peak</span></div><ul id="legend-list"></ul></div>
    </div>
  </section>
  @FLAME@
  <section class="card" id="bands">
    <h2>Bands <span class="sub">@NBANDS@ labels in the .hp file; click a column to sort</span></h2>
    <div class="scroll">@BANDS_TABLE@</div>
  </section>
  @PROF@
  <footer>Written by heapprof report. Self-contained: no network needed.</footer>
</main>
<script type="application/json" id="hp-data">@DATA@</script>
<script>
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("hp-data").textContent);
  const NS = "http://www.w3.org/2000/svg";
  const bands = D.bands, times = D.times, n = times.length;
  const visible = bands.map(() => true);
  const chart = document.getElementById("chart"), tip = document.getElementById("tip");
  const bytesUnit = D.valueUnit === "bytes";
  let geom = null, hotBand = -1;

@CHART_HELPERS@

  function stackTops() {
    // cum[b][i]: top of band b at sample i (visible bands only add height).
    const cum = [], base = new Float64Array(n);
    for (let b = 0; b < bands.length; b++) {
      const top = new Float64Array(n), vals = bands[b].values;
      for (let i = 0; i < n; i++) top[i] = base[i] + (visible[b] ? vals[i] : 0);
      cum.push(top);
      base.set(top);
    }
    return cum;
  }

  function render() {
    const old = chart.querySelector("svg");
    if (old) old.remove();
    if (!n || D.totals.every(v => v === 0) && !bands.length) {
      if (!chart.querySelector(".empty")) {
        const p = document.createElement("p");
        p.className = "empty";
        p.textContent = n ? "No census had live objects: the profile is empty." : "The profile has no samples.";
        chart.appendChild(p);
      }
      geom = null;
      return;
    }
    const W = Math.max(chart.clientWidth, 360), H = 470;
    const ml = 64, mr = 18, mt = 30, mb = 44;
    const pw = W - ml - mr, ph = H - mt - mb;
    const cum = stackTops();
    let ymax = 0;
    const last = cum.length ? cum[cum.length - 1] : new Float64Array(n);
    for (let i = 0; i < n; i++) if (last[i] > ymax) ymax = last[i];
    const [uname, ufac] = yUnit(ymax || 1);
    const ystep = niceStep((ymax || 1) / ufac, 5) * ufac;
    const ytop = Math.max(ystep, Math.ceil((ymax || 1) / ystep - 1e-9) * ystep);
    const t0 = times[0], t1 = times[n - 1] > t0 ? times[n - 1] : t0 + 1;
    const X = t => ml + (t - t0) / (t1 - t0) * pw;
    const Y = v => mt + ph - v / ytop * ph;
    const svg = el("svg", {width: W, height: H, id: "plot", role: "img",
                           "aria-label": "stacked area chart of the heap profile",
                           "data-t0": t0, "data-t1": t1, "data-ymax": ytop});
    chart.insertBefore(svg, tip);
    const ax = el("g", {class: "axis"}, svg);
    // Ticks at whole multiples of the step (k * step: no error piles up).
    for (let k = 0; k * ystep <= ytop + ystep / 2; k++) {
      const v = k * ystep, y = Y(v);
      el("line", {class: "grid", x1: ml, x2: ml + pw, y1: y, y2: y}, ax);
      const t = el("text", {class: "ytick", x: ml - 8, y: y + 4, "text-anchor": "end"}, ax);
      t.textContent = fmtTick(v / ufac, ystep / ufac);
    }
    const xstep = niceStep(t1 - t0, Math.max(2, Math.floor(pw / 90)));
    for (let k = Math.ceil(t0 / xstep - 1e-6); k * xstep <= t1 + xstep * 1e-6; k++) {
      const v = k * xstep, x = X(v);
      el("line", {class: "tick", x1: x, x2: x, y1: mt + ph, y2: mt + ph + 5}, ax);
      const t = el("text", {class: "xtick", x: x, y: mt + ph + 18, "text-anchor": "middle"}, ax);
      t.textContent = fmtTick(v, xstep);
    }
    el("path", {d: `M${ml},${mt} V${mt + ph} H${ml + pw}`, fill: "none"}, ax);
    const yt = el("text", {class: "title", x: 4, y: mt - 12}, ax);
    yt.textContent = bytesUnit ? uname : D.valueUnit;
    const xt = el("text", {class: "title", x: ml + pw, y: H - 6, "text-anchor": "end"}, ax);
    xt.textContent = D.sampleUnit;
    // The bands: each a polygon between its lower and upper stacked edges.
    const g = el("g", {id: "bands-g"}, svg);
    const xs = times.map(t => X(t).toFixed(2));
    for (let b = 0; b < bands.length; b++) {
      if (!visible[b]) continue;
      const top = cum[b], low = b ? cum[b - 1] : new Float64Array(n);
      let d = "M" + xs[0] + "," + Y(top[0]).toFixed(2);
      for (let i = 1; i < n; i++) d += "L" + xs[i] + "," + Y(top[i]).toFixed(2);
      for (let i = n - 1; i >= 0; i--) d += "L" + xs[i] + "," + Y(low[i]).toFixed(2);
      const p = el("path", {d: d + "Z", fill: bands[b].colour, class: "band", "data-band": b}, g);
      el("title", {}, p).textContent = bands[b].name + (bands[b].stackText ? "\n\n" + bands[b].stackText : "");
    }
    for (const m of D.marks) el("line", {class: "mark", x1: X(m), x2: X(m), y1: mt, y2: mt + ph}, svg);
    // The peak: the census with the most live bytes (all bands).
    if (D.peak.bytes > 0) {
      const pk = D.peak, x = X(pk.time), y = Y(last[pk.index]);
      const pg = el("g", {class: "peak", id: "peak"}, svg);
      el("line", {x1: x, x2: x, y1: mt - 6, y2: mt + ph}, pg);
      el("circle", {cx: x, cy: y, r: 4}, pg);
      const right = x < ml + pw * 0.6;
      const t = el("text", {x: right ? x + 7 : x - 7, y: mt - 10, "text-anchor": right ? "start" : "end"}, pg);
      t.textContent = "peak " + human(pk.bytes) + " at " + pk.time.toFixed(3) + " s";
    }
    const cursor = el("line", {class: "cursor", y1: mt, y2: mt + ph, x1: -10, x2: -10}, svg);
    el("rect", {id: "plot-area", x: ml, y: mt, width: pw, height: ph, fill: "transparent"}, svg);
    geom = {svg, cum, X, Y, ml, mt, pw, ph, t0, t1, ytop, cursor};
    if (hotBand >= 0) focus(hotBand);
  }

  function bandAt(mx, my) { return bandUnder(geom, times, visible, mx, my); }

  function focus(b) {
    if (!geom) return;
    geom.svg.classList.toggle("focus", b >= 0);
    for (const p of geom.svg.querySelectorAll(".band")) p.classList.toggle("hot", +p.dataset.band === b);
    for (const li of document.querySelectorAll("#legend li")) li.classList.toggle("hot", +li.dataset.band === b);
  }

  function move(ev) {
    if (!geom) return;
    const r = geom.svg.getBoundingClientRect();
    const mx = ev.clientX - r.left, my = ev.clientY - r.top;
    if (mx < geom.ml || mx > geom.ml + geom.pw || my < geom.mt || my > geom.mt + geom.ph) { leave(); return; }
    const {band, sample} = bandAt(mx, my);
    const x = geom.X(times[sample]);
    geom.cursor.setAttribute("x1", x); geom.cursor.setAttribute("x2", x);
    let h = "";
    if (band >= 0) {
      const B = bands[band];
      h += '<div class="band"><i style="background:' + B.colour + '"></i><span></span></div>';
      h += '<div class="val"></div>';
    }
    h += '<div class="muted when"></div>';
    tip.innerHTML = h;
    if (band >= 0) {
      const B = bands[band], v = B.values[sample], tot = D.totals[sample];
      tip.querySelector(".band span").textContent = B.name + (B.other ? "  (" + B.other + " bands)" : "");
      tip.querySelector(".val").textContent = fullValue(v) + (tot ? "  ·  " + (100 * v / tot).toFixed(1) + "% of the heap" : "");
    }
    tip.querySelector(".when").textContent = "at " + times[sample].toFixed(6) + " s  ·  total " + human(D.totals[sample]);
    tip.style.display = "block";
    const cw = chart.clientWidth, tw = tip.offsetWidth;
    let left = mx + 16; if (left + tw > cw) left = Math.max(0, mx - tw - 16);
    tip.style.left = left + "px"; tip.style.top = Math.max(0, my - 10) + "px";
    if (band !== hotBand) { hotBand = band; focus(band); }
  }
  function leave() {
    tip.style.display = "none";
    if (geom) { geom.cursor.setAttribute("x1", -10); geom.cursor.setAttribute("x2", -10); }
    if (hotBand !== -1) { hotBand = -1; focus(-1); }
  }
  chart.addEventListener("mousemove", move);
  chart.addEventListener("mouseleave", leave);

  // Legend: the largest peak first (D.legend), OTHER last.
  const list = document.getElementById("legend-list");
  function legendCount() {
    document.getElementById("count").textContent = visible.filter(x => x).length + " of " + bands.length + " shown";
  }
  for (const b of D.legend) {
    const B = bands[b], li = document.createElement("li");
    li.dataset.band = b;
    li.title = B.name + (B.other ? " (" + B.other + " smaller bands)" : "") + "\npeak " + fullValue(B.peak) + " at " + B.peakTime.toFixed(3) + " s\nclick to hide or show" + (B.stackText ? "\n\n" + B.stackText : "");
    const sw = document.createElement("span"); sw.className = "sw"; sw.style.background = B.colour;
    const nm = document.createElement("span"); nm.className = "name"; nm.textContent = B.name + (B.other ? " (" + B.other + ")" : "");
    const vl = document.createElement("span"); vl.className = "val"; vl.textContent = human(B.peak);
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
  window.addEventListener("resize", () => {
    clearTimeout(rt);
    rt = setTimeout(() => { render(); if (flame) flame.render(); }, 80);
  });

  // Sortable tables: click a header; numeric cells sort by data-v.
  function sortTable(table, col, desc) {
    const body = table.tBodies[0], rows = Array.from(body.rows);
    const num = table.tHead.rows[0].cells[col].classList.contains("num");
    // (An empty numeric cell, a census with no traversal, sorts as the least.)
    const number = v => { const x = parseFloat(v); return isNaN(x) ? -Infinity : x; };
    const key = r => num ? number(r.cells[col].dataset.v) : r.cells[col].textContent;
    rows.sort((a, b) => {
      const x = key(a), y = key(b);
      const c = num ? (x < y ? -1 : x > y ? 1 : 0) : x.localeCompare(y);
      return desc ? -c : c;
    });
    for (const r of rows) body.appendChild(r);
    for (const th of table.tHead.rows[0].cells) th.classList.remove("asc", "desc");
    table.tHead.rows[0].cells[col].classList.add(desc ? "desc" : "asc");
    table.dataset.sort = col; table.dataset.desc = desc ? 1 : 0;
  }
  for (const table of document.querySelectorAll("table.sortable")) {
    const ths = table.tHead.rows[0].cells;
    for (let c = 0; c < ths.length; c++) {
      ths[c].addEventListener("click", () => {
        const same = table.dataset.sort == c;
        const desc = same ? table.dataset.desc !== "1" : ths[c].classList.contains("num");
        sortTable(table, c, desc);
      });
    }
    if (table.dataset.sort !== undefined) sortTable(table, +table.dataset.sort, table.dataset.desc === "1");
  }

  // The flame graph (an icicle: the outermost frame at the top) of the
  // .prof's allocation table, D.flame: nodes [parent, func, bytes, live,
  // src, stacks] in preorder, the root first. Two weightings (w: 0
  // allocated bytes, 1 live at the peak); a zoomed node spans the width,
  // its ancestors above it; frames narrower than a pixel are not drawn.
  function initFlame(F) {
    const box = document.getElementById("flame-graph"), ftip = document.getElementById("flame-tip");
    const status = document.getElementById("flame-status"), reset = document.getElementById("flame-reset");
    const buttons = [document.getElementById("flame-bytes"), document.getElementById("flame-live")];
    const ROW = 20, LABEL_MIN = 24;
    const nodes = F.nodes.map((r, i) => ({id: i, parent: r[0], func: r[1], v: [r[2], r[3]], src: r[4],
                                          stacks: r[5], kids: [], depth: 0, sorted: [null, null]}));
    for (const nd of nodes) {
      if (nd.parent >= 0) { const p = nodes[nd.parent]; p.kids.push(nd); nd.depth = p.depth + 1; }
    }
    const root = nodes[0];
    const WHAT = ["allocated", "live at the peak"];
    let w = 0, zoom = root;
    const fullName = nd => nd.func < 0 ? "all stacks" : F.funcs[nd.func][0];
    const label = nd => nd.func < 0 ? "all stacks" : F.funcs[nd.func][1];
    function bytesText(v) {
      // Exact, and in KiB/MiB/GiB from 1 KiB (the table is in bytes whatever the .hp's unit).
      const u = [["GiB", 1073741824], ["MiB", 1048576], ["KiB", 1024]];
      for (const [name, f] of u) if (v >= f) return grouped(v) + " bytes (" + (v / f).toFixed(2) + " " + name + ")";
      return grouped(v) + " bytes";
    }
    function share(v, t) {
      if (!t) return "-";
      const p = 100 * v / t;
      return (p > 0 && p < 0.1 ? "<0.1" : p.toFixed(1)) + "%";
    }
    function kidsOf(nd) {
      // Children by the weighting's value, largest first, then by name; none of value 0.
      if (!nd.sorted[w]) {
        nd.sorted[w] = nd.kids.filter(k => k.v[w] > 0).sort((a, b) => {
          if (a.v[w] !== b.v[w]) return b.v[w] - a.v[w];
          const x = fullName(a), y = fullName(b);
          return x < y ? -1 : x > y ? 1 : a.id - b.id;
        });
      }
      return nd.sorted[w];
    }
    let maxDepth = [0, 0];
    for (const nd of nodes) for (const k of [0, 1]) if (nd.v[k] > 0 && nd.depth > maxDepth[k]) maxDepth[k] = nd.depth;

    function render() {
      for (const e of box.querySelectorAll(".fnode, .empty")) e.remove();
      ftip.style.display = "none";
      const total = root.v[w];
      reset.disabled = zoom === root;
      if (!total) {
        const p = document.createElement("p");
        p.className = "empty";
        p.textContent = w ? "No bytes of these stacks were live at the peak." : "The stacks allocated no bytes.";
        box.style.height = "";
        box.appendChild(p);
        status.textContent = "all stacks: 0 bytes " + WHAT[w] + " in " + grouped(F.stacks) +
                             " stack" + (F.stacks === 1 ? "" : "s");
        box.dataset.drawn = 0;
        box.dataset.narrow = 0;
        return;
      }
      const W = box.clientWidth, scale = W / zoom.v[w];
      const frag = document.createDocumentFragment();
      function put(nd, x, width, cls) {
        const e = document.createElement("div");
        e.className = "fnode" + cls;
        e.dataset.id = nd.id;
        e.style.left = x + "px";
        e.style.width = width + "px";
        e.style.top = nd.depth * ROW + "px";
        if (nd.func >= 0) e.style.background = F.funcs[nd.func][2];
        if (width >= LABEL_MIN) e.textContent = label(nd);
        frag.appendChild(e);
      }
      // The zoomed node's ancestors, the whole width.
      for (let a = zoom.parent >= 0 ? nodes[zoom.parent] : null; a; a = a.parent >= 0 ? nodes[a.parent] : null)
        put(a, 0, W, a === root ? " root anc" : " anc");
      let narrow = 0, drawn = 0;
      const pending = [[zoom, 0]];
      while (pending.length) {
        const [nd, x] = pending.pop();
        put(nd, x, nd.v[w] * scale, (nd === root ? " root" : "") + (nd === zoom ? " zoomed" : ""));
        drawn++;
        let cx = x;
        for (const k of kidsOf(nd)) {
          const kw = k.v[w] * scale;
          if (kw >= 1) pending.push([k, cx]);
          else {
            // Not drawn, nor what is under it: counted in the status line.
            const more = [k];
            while (more.length) { const m = more.pop(); narrow++; more.push(...kidsOf(m)); }
          }
          cx += kw;
        }
      }
      box.style.height = (maxDepth[w] + 1) * ROW + "px";
      box.appendChild(frag);
      let st = "all stacks: " + bytesText(total) + " " + WHAT[w] + " in " + grouped(F.stacks) +
               " stack" + (F.stacks === 1 ? "" : "s");
      if (zoom !== root) st += "  ·  zoomed on " + label(zoom) + ": " + share(zoom.v[w], total);
      if (narrow) st += "  ·  " + grouped(narrow) + " frame" + (narrow === 1 ? "" : "s") +
                        " narrower than a pixel not drawn (zoom in to see them)";
      status.textContent = st;
      box.dataset.drawn = drawn;
      box.dataset.narrow = narrow;
    }

    function zoomTo(nd) {
      zoom = nd && nd.v[w] > 0 ? nd : root;
      render();
    }
    function setWeight(k) {
      w = k;
      buttons.forEach((b, i) => { b.classList.toggle("on", i === k); b.setAttribute("aria-pressed", i === k ? "true" : "false"); });
      if (!(zoom.v[w] > 0)) zoom = root;
      render();
    }

    function tipLine(cls, text) {
      const d = document.createElement("div");
      d.className = cls;
      d.textContent = text;
      ftip.appendChild(d);
    }
    function showTip(nd, ev) {
      ftip.textContent = "";
      const v = nd.v[w], other = nd.v[1 - w];
      tipLine("fname", fullName(nd));
      if (nd.src >= 0) tipLine("fsrc", F.srcs[nd.src]);
      tipLine("fval", bytesText(v) + " " + WHAT[w]);
      tipLine("fshare", share(v, root.v[w]) + " of all stacks" +
                        (zoom !== root ? "  ·  " + share(v, zoom.v[w]) + " of " + label(zoom) + " (zoomed)" : ""));
      let self = v;
      for (const k of nd.kids) self -= k.v[w];
      if (nd !== root && nd.kids.length && self > 0) tipLine("fself muted", "in the function itself: " + bytesText(self));
      tipLine("fother muted", (w ? "allocated: " : "live at the peak: ") + bytesText(other));
      tipLine("muted", grouped(nd.stacks) + " stack" + (nd.stacks === 1 ? "" : "s") +
                       (nd === zoom ? (nd === root ? "" : "  ·  click an ancestor or reset to zoom out") : "  ·  click to zoom"));
      ftip.style.display = "block";
      const r = box.getBoundingClientRect();
      const mx = ev.clientX - r.left, my = ev.clientY - r.top;
      const tw = ftip.offsetWidth, th = ftip.offsetHeight;
      let left = mx + 14;
      if (left + tw > box.clientWidth) left = Math.max(0, mx - tw - 14);
      // Below the pointer, or above it where the window ends first.
      let top = my + 16;
      if (r.top + top + th > window.innerHeight && r.top + my - th - 8 >= 0) top = my - th - 8;
      ftip.style.left = left + "px";
      ftip.style.top = top + "px";
    }
    box.addEventListener("mousemove", ev => {
      const e = ev.target.closest && ev.target.closest(".fnode");
      if (!e) { ftip.style.display = "none"; return; }
      showTip(nodes[+e.dataset.id], ev);
    });
    box.addEventListener("mouseleave", () => { ftip.style.display = "none"; });
    box.addEventListener("click", ev => {
      const e = ev.target.closest && ev.target.closest(".fnode");
      if (e) zoomTo(nodes[+e.dataset.id]);
    });
    reset.addEventListener("click", () => zoomTo(root));
    buttons.forEach((b, i) => b.addEventListener("click", () => setWeight(i)));
    render();
    return {nodes: nodes, render: render, zoomTo: id => zoomTo(nodes[id]), setWeight: setWeight,
            name: id => fullName(nodes[id]), state: () => ({weight: w, zoom: zoom.id})};
  }
  const flame = D.flame ? initFlame(D.flame) : null;

  // The dominator tree (nested <details>, each opened by a click on it):
  // open or close every node of it at once.
  for (const b of document.querySelectorAll(".dt-tools button")) {
    b.addEventListener("click", () => {
      for (const d of b.closest("section").querySelectorAll("details.dt-node")) d.open = b.dataset.dt === "open";
    });
  }
  window.heapprofReport = {data: D, visible: visible, render: render, flame: flame};
})();
</script>
</body>
</html>
"""


# ---------------------------------------------------------------------------

def main(argv=None, prog=PROG):
    ap = argparse.ArgumentParser(
        prog=prog,
        description="Write one self-contained HTML page (no network needed) drawing a "
                    "heap profile: a stacked area chart of the bands over time, a legend, "
                    "and heapprof's .prof report as sortable tables.",
        epilog="FILE.prof next to FILE.hp is read when --prof is not given. "
               "See doc/report.md.")
    ap.add_argument("hp", metavar="FILE.hp", help="heap profile (heapprof's or GHC's)")
    ap.add_argument("--prof", metavar="FILE.prof",
                    help="heapprof's report of the same run (default: FILE.prof, if present)")
    ap.add_argument("-o", "--output", metavar="OUT.html",
                    help="where to write the page (default: FILE.html beside FILE.hp)")
    ap.add_argument("--top", metavar="N", type=int, default=20,
                    help="bands drawn, the largest first; the rest are merged into OTHER "
                         "(default 20; 0 = all)")
    args = ap.parse_args(argv)
    if args.top < 0:
        ap.error("--top takes a number of bands, 0 or more")

    def fail(msg):
        sys.stderr.write(msg + "\n")
        return 2

    try:
        hp = parse_hp(args.hp, args.hp)
    except HpError as e:
        try:
            kind = file_kind(args.hp)
        except OSError:
            kind = None
        if kind is not None:
            # A .prof, a program, a page... given where the .hp is wanted.
            return fail(not_hp_message(args.hp, kind, prog))
        fail(str(e))
        return fail(f"{prog}: {args.hp} is not a valid heap profile; no page written")
    except OSError as e:
        return fail(f"{prog}: cannot read {args.hp}: {e.strerror}")
    for w in hp.warnings:
        sys.stderr.write(f"{prog}: warning: {w}\n")

    stem = args.hp[:-3] if args.hp.endswith(".hp") else args.hp
    source = args.hp
    # A program that did not finish in mode ldv leaves PROG.hp without
    # samples (they are written at the end) and PROG.partial.hp, the
    # checkpoint heapprof keeps (doc/limitations.md, "Exit paths").
    partial = stem + ".partial.hp"
    if not any(hp.values) and not PARTIAL_RE.search(hp.header["JOB"]) \
            and os.path.isfile(partial):
        try:
            php = parse_hp(partial, partial)
        except (HpError, OSError) as e:
            sys.stderr.write(f"{prog}: warning: cannot read {partial}: {e}; left out\n")
        else:
            sys.stderr.write(f"{prog}: note: {args.hp} has no samples: the program did not "
                             f"finish (mode ldv writes its samples at the end); drawing "
                             f"{partial}, the partial profile heapprof kept, instead\n")
            hp, source = php, partial
    m = PARTIAL_RE.search(hp.header["JOB"])
    if m:
        what = (f"{source} is a recovered, partial profile: the program did not finish "
                f"(killed, aborted, crashed or still running), and this is its profile as if "
                f"it had ended at census {m.group(1)} ({m.group(2)} s)")
        sys.stderr.write(f"{prog}: note: {what}\n")
        hp.warnings.insert(0, what)

    prof = None
    prof_name = ""
    if args.prof:
        try:
            prof = parse_prof(args.prof)
        except OSError as e:
            return fail(f"{prog}: cannot read {args.prof}: {e.strerror}")
        if not prof["heapprof"] and not prof["sets"]:
            return fail(f"{args.prof}:1: expected 'heapprof report' (a .prof file written by "
                        f"heapprof)\n{prog}: no page written")
        prof_name = args.prof
    elif os.path.isfile(stem + ".prof"):
        try:
            prof = parse_prof(stem + ".prof")
            prof_name = stem + ".prof"
        except OSError as e:
            sys.stderr.write(f"{prog}: warning: cannot read {stem}.prof: {e.strerror}; "
                             "left out\n")
        if prof is not None and not prof["heapprof"] and not prof["sets"]:
            sys.stderr.write(f"{prog}: note: {stem}.prof is not a heapprof report; left out\n")
            prof, prof_name = None, ""

    out = args.output or stem + ".html"
    data = build_data(hp, prof, args.top, os.path.basename(source),
                      os.path.basename(prof_name) if prof_name else "")
    page = render_page(data, prof)
    try:
        with open(out, "w", encoding="utf-8") as f:
            f.write(page)
    except OSError as e:
        return fail(f"{prog}: cannot write {out}: {e.strerror}; choose another place "
                    "with -o OUT.html")
    peak = data["peak"]
    ns, nl = data["nSamples"], data["nLabels"]
    what = f'{ns} sample{"" if ns == 1 else "s"}, {nl} band{"" if nl == 1 else "s"}'
    if data["nSamples"]:
        what += f', peak {human(peak["bytes"], data["valueUnit"])} at {peak["time"]:.3f} s'
    print(f"{prog}: wrote {os.path.abspath(out)} ({what}"
          f"{'; with ' + os.path.basename(prof_name) if prof_name else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main(prog="heapprof_report"))
