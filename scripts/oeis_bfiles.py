#!/usr/bin/python3
"""Write OEIS b-files of the row periods of Wythoff's game from a certified row-periods CSV
(`grundy periods --csv`, e.g. jobs/results/row-periods-2048.csv):

  b046874.txt  A046874, the preperiod of row n, n = 0..rows-1 (offset 0);
  b046875.txt  A046875, the period of row n, n = 0..rows-1 (offset 0);
  b046876.txt  A046876, the lengths of the runs of equal terms of A046875, n = 1, 2, ...
               (offset 1). The last run reaches the CSV's last row, so the rows above could
               extend it: it is left out, and so is every term not yet certain.

Each file holds `n a(n)` lines, as OEIS b-files do. A b-file may only hold terms that are
certain, so every row must be certified (the strip's certificate makes preperiod and period
exact for ever) and the rows must run 0, 1, 2, ... without a gap. Anything else is refused
with one line on stderr and exit status 2. The files are written atomically (a temporary file
renamed over the old one).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grundy_data as gd  # noqa: E402  (the shared helpers live beside this script)
from periods_csv import read_row_periods  # noqa: E402


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="oeis_bfiles.py",
        description="Write the OEIS b-files b046874.txt (preperiod of row n), b046875.txt "
                    "(period of row n) and b046876.txt (lengths of the runs of equal periods, "
                    "the last, possibly unfinished run left out) from a certified row-periods "
                    "CSV.",
        epilog="Exit status: 0 on success, 2 on bad input (missing file, missing columns, "
               "malformed fields, rows not 0, 1, 2, ... in order, a row not certified).")
    p.add_argument("csv", metavar="PERIODS.csv",
                   help="row-periods CSV with the columns row, preperiod, period, certified")
    p.add_argument("-o", "--output-dir", required=True, metavar="DIR",
                   help="directory for the b-files (made if missing)")
    return p.parse_args(argv)


def certified_rows(path: str) -> tuple[list[int], list[int]]:
    """(preperiods, periods) of rows 0..n-1; DataError unless every row is certified."""
    rows, header = read_row_periods(path)
    if "certified" not in header:
        raise gd.DataError(f"{path}: no certified column: a b-file takes only certified rows "
                           "(grundy periods --csv)")
    if not rows:
        raise gd.DataError(f"{path}: no rows")
    for r in rows:
        if not r.certified or r.period is None:
            raise gd.DataError(f"{path}: row {r.row} is not certified: a b-file takes only "
                               "terms that are certain")
    return [r.preperiod for r in rows], [r.period for r in rows]


def complete_runs(periods: list[int]) -> list[int]:
    """The lengths of the runs of equal periods, without the last one: it reaches the last row,
    and the next rows could lengthen it."""
    return [len(list(group)) for _, group in itertools.groupby(periods)][:-1]


def write_bfile(directory: str, name: str, offset: int, terms: list[int]) -> None:
    path = os.path.join(directory, name)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="ascii", newline="\n") as out:
        for n, value in enumerate(terms, start=offset):
            out.write(f"{n} {value}\n")
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    preperiods, periods = certified_rows(a.csv)
    runs = complete_runs(periods)
    try:
        os.makedirs(a.output_dir, exist_ok=True)
        write_bfile(a.output_dir, "b046874.txt", 0, preperiods)
        write_bfile(a.output_dir, "b046875.txt", 0, periods)
        if runs:
            write_bfile(a.output_dir, "b046876.txt", 1, runs)
        elif os.path.exists(os.path.join(a.output_dir, "b046876.txt")):
            # One from a longer CSV would not match the two files just written.
            os.remove(os.path.join(a.output_dir, "b046876.txt"))
    except OSError as e:
        raise gd.DataError(f"{a.output_dir}: cannot write: {e.strerror}") from e
    last = len(periods) - 1
    print(f"b046874.txt, b046875.txt: n = 0..{last}")
    unfinished = (f"the run of period {periods[-1]} from row {sum(runs)} reaches the last "
                  f"row, {last}, and is left out")
    if runs:
        print(f"b046876.txt: n = 1..{len(runs)} ({unfinished})")
    else:
        print(f"b046876.txt: none, no run is complete ({unfinished})")
    return 0


if __name__ == "__main__":
    sys.exit(gd.run_main(main))
