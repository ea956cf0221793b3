#!/usr/bin/python3
"""Compare two row-periods CSVs row by row on row, preperiod, period and certified: the check
that two independent runs (another build, another method, more rows) agree on the rows they
share, whatever header variant each file has (periods_observed and block are not compared).

  compare_periods.py A.csv B.csv [--rows N]

Without --rows the rows both files hold are compared; with --rows N, rows 0..N-1, which both
files must hold. Prints one line per differing row (the first 20) and a summary.
Exit status: 0 identical, 1 a row differs, 2 bad input (missing file, missing columns,
malformed fields, rows not 0, 1, 2, ... in order, fewer than N rows).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grundy_data as gd  # noqa: E402  (the shared helpers live beside this script)
from periods_csv import read_row_periods  # noqa: E402

SHOWN = 20


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="compare_periods.py",
        description="Compare two row-periods CSVs on row, preperiod, period and certified.",
        epilog="Exit status: 0 identical, 1 a row differs, 2 bad input.")
    p.add_argument("a", metavar="A.csv")
    p.add_argument("b", metavar="B.csv")
    p.add_argument("--rows", type=int, metavar="N",
                   help="compare rows 0..N-1 (both files must hold them); default: the rows "
                        "both hold")
    return p.parse_args(argv)


def fields(r) -> tuple:
    return (r.preperiod, r.period, r.certified)


def show(r) -> str:
    def text(v):
        return "-" if v is None else str(int(v)) if isinstance(v, bool) else str(v)
    return f"preperiod {text(r.preperiod)}, period {text(r.period)}, certified {text(r.certified)}"


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    rows_a, header_a = read_row_periods(a.a)
    rows_b, header_b = read_row_periods(a.b)
    for path, header in ((a.a, header_a), (a.b, header_b)):
        if "certified" not in header:
            raise gd.DataError(f"{path}: no certified column to compare")
    n = min(len(rows_a), len(rows_b))
    if a.rows is not None:
        if a.rows < 1:
            raise gd.DataError(f"--rows must be at least 1, got {a.rows}")
        for path, rows in ((a.a, rows_a), (a.b, rows_b)):
            if len(rows) < a.rows:
                raise gd.DataError(f"{path}: {len(rows)} rows, fewer than --rows {a.rows}")
        n = a.rows
    if n == 0:
        raise gd.DataError("no row to compare")
    differ = [y for y in range(n) if fields(rows_a[y]) != fields(rows_b[y])]
    for y in differ[:SHOWN]:
        print(f"row {y}: {show(rows_a[y])} in {a.a}; {show(rows_b[y])} in {a.b}")
    if differ:
        print(f"{len(differ)} of rows 0..{n - 1} differ")
        return 1
    print(f"rows 0..{n - 1} identical (row, preperiod, period, certified)")
    return 0


if __name__ == "__main__":
    sys.exit(gd.run_main(main))
