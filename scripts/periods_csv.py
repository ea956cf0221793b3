"""A strict reader of row-periods CSVs, for the scripts that publish or compare rows
(oeis_bfiles.py, compare_periods.py): every field checked, the row numbers checked to run
0, 1, 2, ... without a gap, so that a row's place in the file is its row number.

The CSV contract (docs/file-format.md, "Row periods"; jobs/results/README.md): comment lines `# ...` may
come first, then a header line, then one line per row with at least the columns row,
preperiod, period; a row whose period is not determined has both fields empty. `grundy analyze`
and `grundy periods` write `row,preperiod,period,periods_observed,certified,block`; the
committed files made before that keep `row,preperiod,period,certified,block`, and old analyze
files have no `certified`. Columns are found by name, so every variant reads alike; extra
columns are ignored.
"""

from __future__ import annotations

import csv
import os
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grundy_data as gd  # noqa: E402  (the shared helpers live beside this module)

REQUIRED = ("row", "preperiod", "period")


@dataclass(frozen=True)
class RowPeriod:
    row: int
    preperiod: int | None  # None: not determined (both fields empty)
    period: int | None
    certified: bool | None  # None: the file has no certified column


def read_row_periods(path: str) -> tuple[list[RowPeriod], list[str]]:
    """The rows of a row-periods CSV in order, and its header.

    Raises DataError for a missing or unreadable file, a missing column, a malformed field, or
    row numbers that are not 0, 1, 2, ... in order.
    """
    if not os.path.exists(path):
        raise gd.DataError(f"{path}: no such file")
    try:
        handle = open(path, newline="", encoding="utf-8")
    except OSError as e:
        raise gd.DataError(f"{path}: cannot read: {e.strerror}") from e
    rows: list[RowPeriod] = []
    # A block column holds a whole period of values: megabytes for the rows of a long strip,
    # beyond the csv module's default limit of 131072 characters a field.
    csv.field_size_limit(sys.maxsize)
    with handle:
        try:
            comments: list[int] = [0]
            reader = csv.DictReader(_skip_comments(handle, comments))
            header = [h.strip() for h in (reader.fieldnames or [])]
            missing = [c for c in REQUIRED if c not in header]
            if missing:
                raise gd.DataError(f"{path}: not a row-periods CSV: missing column(s) "
                                   f"{', '.join(missing)} in header {','.join(header)}")
            reader.fieldnames = header
            has_cert = "certified" in header
            for record in reader:
                line = reader.line_num + comments[0]  # the line in the file
                field = {c: (record.get(c) or "").strip() for c in header}
                row = _integer(field["row"], path, line, "row")
                if row != len(rows):
                    raise gd.DataError(f"{path}:{line}: row {row} where row {len(rows)} was "
                                       "expected (rows must run 0, 1, 2, ... in order)")
                pre, per = field["preperiod"], field["period"]
                if bool(pre) != bool(per):
                    raise gd.DataError(f"{path}:{line}: preperiod and period must both be set "
                                       "or both be empty")
                certified = None
                if has_cert:
                    if field["certified"] not in ("0", "1"):
                        raise gd.DataError(f"{path}:{line}: column certified: "
                                           f"'{field['certified']}' is not 0 or 1")
                    certified = field["certified"] == "1"
                period = _integer(per, path, line, "period") if per else None
                if period == 0:
                    raise gd.DataError(f"{path}:{line}: column period: 0 is not a period")
                rows.append(RowPeriod(row, _integer(pre, path, line, "preperiod") if pre else None,
                                      period, certified))
        except (UnicodeDecodeError, csv.Error) as e:
            raise gd.DataError(f"{path}: not a readable CSV: {e}") from e
    return rows, header


def _skip_comments(lines, count: list[int]):
    """The lines from the first one that is not a `# ...` comment on; count[0]: those skipped."""
    in_comments = True
    for line in lines:
        if in_comments and line.startswith("#"):
            count[0] += 1
            continue
        in_comments = False
        yield line


def _integer(text: str, path: str, line: int, column: str) -> int:
    if not text.isdigit() or not text.isascii():
        raise gd.DataError(f"{path}:{line}: column {column}: '{text}' is not an integer >= 0")
    return int(text)
