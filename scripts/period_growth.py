#!/usr/bin/python3
"""How the row periods of Wythoff's game grow, from a row-periods CSV (`grundy periods --csv`,
e.g. jobs/results/row-periods-2048.csv), as Markdown for README and notes:

- the running maximum of the period and the rows where it grows (it has always doubled: every
  period from row 1 on is 3 * 2^k), with the length of each run of rows under one maximum;
- the running maximum of the preperiod and its growth exponent over each octave of rows: for
  rows 2^k - 1 to 2^(k+1) - 1, b = log(M(2^(k+1) - 1) / M(2^k - 1)) / log((2^(k+1) - 1) /
  (2^k - 1)), where M(y) is the largest preperiod of rows 0..y. A falling b is the slow-down of
  the certificate's growth. Where the rows end inside an octave, its part so far is given too,
  marked "so far", with the exponent over the rows it has;
- the rows whose preperiod is smaller than the row's below (preperiods are not monotone).

Rows whose period is not determined are refused (the running maxima would be wrong), as are
malformed files: one line on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grundy_data as gd  # noqa: E402  (the shared helpers live beside this script)
from periods_csv import read_row_periods  # noqa: E402


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="period_growth.py",
        description="The running maximum of the row period and the rows where it grows, the "
                    "running maximum of the preperiod with its growth exponent over each "
                    "octave of rows, and the rows whose preperiod falls, from a row-periods "
                    "CSV, as Markdown tables.",
        epilog="Exit status: 0 on success, 2 on bad input (missing file, malformed fields, a "
               "row without a determined period).")
    p.add_argument("csv", metavar="PERIODS.csv", help="row-periods CSV (row, preperiod, period)")
    return p.parse_args(argv)


def period_steps(periods: list[int]) -> list[tuple[int, int]]:
    """(row, new maximum) for each row where the running maximum of the period grows."""
    steps, best = [], 0
    for row, p in enumerate(periods):
        if p > best:
            steps.append((row, p))
            best = p
    return steps


def octave_exponents(preperiods: list[int]) -> list[tuple[int, int, int, int, float | None]]:
    """(first row, last row, M(first), M(last), exponent) for each octave 2^k - 1 ..
    2^(k+1) - 1 within the rows, and for the part of the next one that the rows reach (its last
    row is then the last row, below 2^(k+1) - 1), M the running maximum of the preperiod; the
    exponent is None where M(first) is 0 (no power law to fit)."""
    running, best = [], 0
    for v in preperiods:
        best = max(best, v)
        running.append(best)
    out = []
    k = 1
    last = len(preperiods) - 1
    while 2 ** k - 1 < last:
        lo, hi = 2 ** k - 1, min(2 ** (k + 1) - 1, last)
        m_lo, m_hi = running[lo], running[hi]
        b = math.log(m_hi / m_lo) / math.log(hi / lo) if m_lo > 0 else None
        out.append((lo, hi, m_lo, m_hi, b))
        k += 1
    return out


def drops(preperiods: list[int]) -> list[tuple[int, int, int]]:
    """(row, its preperiod, the preperiod of the row below) wherever the preperiod falls."""
    return [(y, preperiods[y], preperiods[y - 1]) for y in range(1, len(preperiods))
            if preperiods[y] < preperiods[y - 1]]


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    rows, _ = read_row_periods(a.csv)
    if not rows:
        raise gd.DataError(f"{a.csv}: no rows")
    for r in rows:
        if r.period is None:
            raise gd.DataError(f"{a.csv}: row {r.row} has no determined period")
    periods = [r.period for r in rows]
    preperiods = [r.preperiod for r in rows]
    last = len(rows) - 1
    print(f"Rows 0..{last} of {a.csv}\n")
    print("| row | largest period so far | rows under it |")
    print("| ---: | ---: | ---: |")
    steps = period_steps(periods)
    for i, (row, p) in enumerate(steps):
        end = steps[i + 1][0] if i + 1 < len(steps) else last + 1
        more = "+" if i + 1 == len(steps) else ""  # the last run may go on above the CSV
        print(f"| {row} | {p} | {end - row}{more} |")
    print()
    print("| rows | largest preperiod at the first | at the last | growth exponent |")
    print("| --- | ---: | ---: | ---: |")
    for lo, hi, m_lo, m_hi, b in octave_exponents(preperiods):
        part = "" if (hi + 1) & hi == 0 else " (so far)"  # an octave ends at 2^(k+1) - 1
        print(f"| {lo}..{hi}{part} | {m_lo} | {m_hi} | {'-' if b is None else f'{b:.2f}'} |")
    print()
    print("| row | preperiod | the row below's |")
    print("| ---: | ---: | ---: |")
    for row, pre, below in drops(preperiods):
        print(f"| {row} | {pre} | {below} |")
    return 0


if __name__ == "__main__":
    sys.exit(gd.run_main(main))
