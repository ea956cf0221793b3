#!/usr/bin/python3
"""How good the ETA of a finished run was: reads the progress logs that `grundy periods` (or
`compute`) writes with --progress where stderr is not a terminal, one stamped line every
--progress-every seconds, and compares each ETA it showed with the running time that was
actually left.

  eta_check.py LOG [LOG...] [--points N]

A run stopped and resumed (--resume) is given as the logs of its pieces in order; the time
between pieces, when nothing ran, is not counted, nor is the work a piece did after its last
checkpoint when it was killed (each piece of `periods` ends where the next one resumed). The run
must have ended in the last log: its last stamped line is the end. A gap between two lines of
more than five times their usual spacing is a pause (SIGSTOP) and counts as one spacing. Lines
of other kinds in the logs are ignored.

For `periods`, the ETA is the time left to the column where the certificate is expected, and
the run ends a little later (the certificate is seen at x0 + P, then the ring's tail or phase
2). The table shows, at N points spread over the running time, the ETA shown, the time that
was left to the end of phase 1 (the last line of phase 1) and their ratio; for `periods` also
the expected column against the last column of phase 1.
Exit status: 0, or 2 for bad input (a missing file, no stamped progress line, a log whose times
go backwards).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grundy_data as gd  # noqa: E402  (the shared helpers live beside this script)

STAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) (.*)$")
PERIODS = re.compile(r"^phase 1/2: column (?P<col>[\d.]+(?: [kMGTP])?) \([^)]*\), "
                     r"rows 0\.\.(?P<rows>\d+) settled, "
                     r"(?:rows 0\.\.\d+ repeat with period \d+, [^,]*, )?"
                     r"certificate expected near column "
                     r"(?P<expected>[\d.]+(?: [kMGTP])?|\?), ETA (?P<eta>[^,]+)"
                     r"(?:, checkpoint at column [\d.]+(?: [kMGTP])?)?$")
COMPUTE = re.compile(r"^\[\s*[\d.]+%\] .* ETA (?P<eta>\d+:\d\d:\d\d|--:--)$")
SCALE = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}


@dataclass
class Line:
    piece: int
    time: float  # seconds since the epoch
    eta: float | None  # seconds; None: unknown
    column: float | None = None
    expected: float | None = None  # the certificate's expected column
    rows: int | None = None  # settled rows 0..rows
    phase1: bool = True  # a line of phase 1 (or of compute)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="eta_check.py",
        description="Compare the ETAs a finished run's progress logs showed with the time left.",
        epilog="Exit status: 0, or 2 for bad input.")
    p.add_argument("logs", nargs="+", metavar="LOG", help="the logs of the run's pieces, in order")
    p.add_argument("--points", type=int, default=9,
                   help="rows of the table, spread evenly over the running time (default 9)")
    return p.parse_args(argv)


def number(text: str) -> float:
    """'1.11 M' -> 1.11e6 (the progress line's human())."""
    value, _, suffix = text.partition(" ")
    return float(value) * SCALE[suffix]


def seconds(text: str) -> float | None:
    """The ETA's text as seconds: '45 s', '12 min', '3.4 h', '1:02:03'; None for unknown."""
    text = text.strip()
    if text in ("unknown", "--:--"):
        return None
    if ":" in text:
        h, m, s = (int(part) for part in text.split(":"))
        return h * 3600.0 + m * 60.0 + s
    value, _, unit = text.partition(" ")
    factor = {"s": 1.0, "min": 60.0, "h": 3600.0}.get(unit)
    if factor is None:
        raise ValueError(text)
    return float(value) * factor


def parse_line(piece: int, stamp: str, text: str) -> Line | None:
    time = dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=dt.timezone.utc).timestamp()
    if text.startswith("phase 2/2") or text.startswith("starting ("):
        return Line(piece, time, None, phase1=False)
    m = PERIODS.match(text)
    if m:
        expected = None if m["expected"] == "?" else number(m["expected"])
        return Line(piece, time, seconds(m["eta"]), number(m["col"]), expected, int(m["rows"]))
    m = COMPUTE.match(text)
    if m:
        return Line(piece, time, seconds(m["eta"]))
    return None


def read_logs(paths: list[str]) -> list[list[Line]]:
    """Each log's stamped progress lines, in order."""
    pieces = []
    for piece, path in enumerate(paths):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError as e:
            raise gd.DataError(f"{path}: {e.strerror or e}") from None
        lines = []
        for raw in text.splitlines():
            m = STAMP.match(raw.strip("\r"))
            if not m:
                continue
            try:
                line = parse_line(piece, m[1], m[2])
            except (ValueError, KeyError):
                raise gd.DataError(f"{path}: a progress line not understood: {raw!r}") from None
            if line is None:
                continue
            if lines and line.time < lines[-1].time:
                raise gd.DataError(f"{path}: the times go backwards at {m[1]}")
            lines.append(line)
        if not lines:
            raise gd.DataError(f"{path}: no stamped progress line (was the run given --progress "
                               "with stderr in this file?)")
        pieces.append(lines)
    return pieces


def resumed_at(lines: list[Line]) -> float | None:
    """The column a piece began at: that of its first line of phase 1."""
    return next((line.column for line in lines if line.column is not None), None)


def cut_at(lines: list[Line], column: float) -> list[Line]:
    """The lines of a piece up to the moment its column reached `column`, a last line put there
    (the time between the two lines around it, in proportion)."""
    for i, line in enumerate(lines):
        if line.column is None or line.column < column:
            continue
        before = lines[i - 1] if i > 0 else None
        if line.column == column or before is None or before.column is None:
            return lines[:i + 1]
        share = (column - before.column) / (line.column - before.column)
        time = before.time + share * (line.time - before.time)
        return lines[:i] + [Line(line.piece, time, None, column, line.expected, line.rows)]
    return lines


def trim_lost_work(pieces: list[list[Line]]) -> list[list[Line]]:
    """Each piece of `periods` cut where the next one resumed: a piece killed after its last
    checkpoint swept columns that the next sweeps again, and that time was not progress."""
    out = []
    for k, lines in enumerate(pieces):
        resumed = resumed_at(pieces[k + 1]) if k + 1 < len(pieces) else None
        out.append(lines if resumed is None else cut_at(lines, resumed))
    return out


# A gap between two lines of a piece longer than this many times the usual spacing is time the
# run did not run (stopped with SIGSTOP, a suspended machine): the progress thread did not run
# either. It counts as one usual spacing.
PAUSE = 5.0


def running_time(pieces: list[list[Line]]) -> list[tuple[Line, float]]:
    """Every line with the running time before it: the pieces' own spans added up, pauses
    left out."""
    gaps = sorted(b.time - a.time for lines in pieces for a, b in zip(lines, lines[1:]))
    usual = gaps[len(gaps) // 2] if gaps else 0.0
    out, clock = [], 0.0
    for lines in pieces:
        for i, line in enumerate(lines):
            if i > 0:
                gap = line.time - lines[i - 1].time
                clock += usual if usual > 0 and gap > PAUSE * usual else gap
            out.append((line, clock))
    return out


def table(pieces: list[list[Line]], points: int) -> list[dict]:
    """The rows of the report: at `points` running times spread evenly, the nearest line with an
    ETA, what it showed and what followed."""
    timed = running_time(pieces)
    phase1 = [(line, t) for line, t in timed if line.phase1]
    if not phase1:
        raise gd.DataError("no line of phase 1 to check")
    end_line, end = phase1[-1]
    shown = [(line, t) for line, t in phase1 if line.eta is not None and t < end]
    rows = []
    for k in range(1, points + 1):
        want = end * k / (points + 1)
        candidates = [(abs(t - want), line, t) for line, t in shown]
        if not candidates:
            break
        _, line, t = min(candidates, key=lambda c: c[0])
        if rows and rows[-1]["at"] == t:
            continue
        left = end - t
        row = {"at": t, "share": t / end, "eta": line.eta, "left": left,
               "ratio": line.eta / left, "rows": line.rows,
               "column": line.column, "expected": line.expected}
        if line.expected is not None and end_line.column:
            row["column_ratio"] = line.expected / end_line.column
        rows.append(row)
    return rows


def hours(s: float) -> str:
    return f"{s / 3600:.2f} h" if s >= 3600 else f"{s / 60:.1f} min" if s >= 60 else f"{s:.0f} s"


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    if a.points < 1:
        raise gd.DataError(f"--points must be at least 1, got {a.points}")
    pieces = trim_lost_work(read_logs(a.logs))
    rows = table(pieces, a.points)
    timed = running_time(pieces)
    end_line, end = [(line, t) for line, t in timed if line.phase1][-1]
    print(f"{len(pieces)} piece(s), {hours(end)} of running time to the end of phase 1"
          + (f" (column {end_line.column:.6g})" if end_line.column else ""))
    if not rows:
        print("no ETA was shown before the end")
        return 0
    periods = rows[0]["column"] is not None
    head = "  run   ETA shown   time left   shown/left"
    if periods:
        head += "   rows settled   expected column / last column"
    print(head)
    for r in rows:
        text = (f"{100 * r['share']:4.0f}%  {hours(r['eta']):>10}  {hours(r['left']):>10}  "
                f"{r['ratio']:10.2f}")
        if periods:
            ratio = r.get("column_ratio")
            text += f"   0..{r['rows']:<10}   " + (f"{ratio:.2f}" if ratio is not None else "-")
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(gd.run_main(main))
