#!/usr/bin/python3
"""Summarise a Grundy table file in Markdown: size, storage, attributes, timings, value range,
and whatever analysis results are stored under /analysis.

The value range (minimum, maximum, number of P-positions) is computed by streaming the table in
bands of one chunk row, so the memory used is one band whatever the table's size; --no-scan
skips it for a quick look at a huge file. Everything under /analysis is listed generically
(groups, datasets, attributes), with the contents of small datasets printed as tables, so new
analysis passes show up without changes here. A group that stores a table by columns (1-D
datasets of one entry per row, `row` first: /analysis/row_periods as both `grundy analyze` and
`grundy periods` write it) is printed as one table; files from before that layout, with a
[rows, 4] dataset there, are printed as they are. The file of `grundy periods --output` (results
without a table) is summarised too: its attributes and /analysis.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grundy_data as gd  # noqa: E402  (the shared helpers live beside this script)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="summarize.py",
        description="Print a Markdown summary of a Grundy table file: size, dtype, chunking, "
                    "compression, attributes, timings, value range (streamed), and the "
                    "datasets and attributes under /analysis.",
        epilog="Exit status: 0 on success, 2 on bad input (missing, non-HDF5 or incomplete "
               "file).")
    p.add_argument("table", metavar="TABLE.h5", help="table written by grundy compute")
    p.add_argument("-o", "--output", metavar="OUT.md", help="write the summary here, not stdout")
    p.add_argument("--no-scan", action="store_true",
                   help="do not read the values (no value range): for a quick look at big files")
    p.add_argument("--analysis-rows", type=int, default=20, metavar="N",
                   help="print at most N rows of each dataset under /analysis (default 20)")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="summarise a table whose run did not finish (complete != 1)")
    return p.parse_args(argv)


def human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    return f"{n} B"  # not reached


def md_cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def scan_values(dset) -> dict:
    """Minimum, maximum, P-positions and the cells where the maximum is, streamed by bands."""
    lo, hi, zeros, where_hi = None, None, 0, None
    for ys, block in gd.iter_bands(dset):
        if block.size == 0:
            continue
        b_lo, b_hi = int(block.min()), int(block.max())
        lo = b_lo if lo is None else min(lo, b_lo)
        if hi is None or b_hi > hi:
            i, j = np.unravel_index(int(block.argmax()), block.shape)
            hi, where_hi = b_hi, (int(j), int(ys[i]))
        zeros += int(np.count_nonzero(block == 0))
    return {"min": lo, "max": hi, "zeros": zeros, "argmax": where_hi}


def storage_lines(path: str, dset) -> list[str]:
    rows, cols = dset.shape
    raw = rows * cols * dset.dtype.itemsize
    file_size = os.path.getsize(path)
    filters = []
    if dset.shuffle:
        filters.append("shuffle")
    if dset.compression:
        opts = f":{dset.compression_opts}" if dset.compression_opts is not None else ""
        filters.append(f"{dset.compression}{opts}")
    if dset.fletcher32:
        filters.append("fletcher32")
    chunks = " × ".join(str(c) for c in dset.chunks) if dset.chunks else "contiguous"
    ratio = f"{raw / file_size:.2f}" if file_size else "n/a"
    return [
        "| what | value |",
        "| --- | --- |",
        f"| rows × cols | {rows} × {cols} |",
        f"| cells | {rows * cols} |",
        f"| dtype | {dset.dtype} |",
        f"| chunks | {chunks} |",
        f"| filters | {', '.join(filters) if filters else 'none'} |",
        f"| file size | {file_size} bytes ({human_bytes(file_size)}) |",
        f"| raw size | {raw} bytes ({human_bytes(raw)}) |",
        f"| compression ratio (raw / file) | {ratio} |",
    ]


# HDF5's bookkeeping of the dimension scales (/grundy's coordinates y and x): object
# references, nothing a reader of the summary can use.
DIMENSION_SCALE_ATTRIBUTES = {"DIMENSION_LIST", "REFERENCE_LIST", "CLASS", "NAME"}


def attribute_lines(obj) -> list[str]:
    names = sorted(n for n in obj.attrs if n not in DIMENSION_SCALE_ATTRIBUTES)
    if not names:
        return ["(none)"]
    lines = ["| attribute | value |", "| --- | --- |"]
    for name in names:
        lines.append(f"| {md_cell(name)} | {md_cell(gd.attr_text(obj.attrs[name]))} |")
    return lines


def timing_lines(f, cells: int) -> list[str]:
    elapsed = f.attrs.get("elapsed_seconds")
    threads = f.attrs.get("threads")
    if elapsed is None:
        return ["(no elapsed_seconds attribute)"]
    elapsed = float(np.asarray(elapsed).reshape(-1)[0])
    lines = ["| what | value |", "| --- | --- |", f"| elapsed | {elapsed:.3f} s |"]
    if threads is not None:
        lines.append(f"| threads | {int(np.asarray(threads).reshape(-1)[0])} |")
    if elapsed > 0:
        rate = cells / elapsed
        lines.append(f"| cells per second | {rate:.4g} |")
        if threads is not None:
            t = int(np.asarray(threads).reshape(-1)[0])
            lines.append(f"| ns per cell and thread | {1e9 / rate * t:.3g} |")
    for name in ("mex_kernel", "tile", "created"):
        if name in f.attrs:
            lines.append(f"| {name} | {md_cell(gd.attr_text(f.attrs[name]))} |")
    return lines


def dataset_table(dset, max_rows: int) -> list[str]:
    """The first max_rows rows of a dataset as a Markdown table (compound types as columns)."""
    n = dset.shape[0] if dset.ndim else 1
    shown = min(n, max_rows)
    if dset.ndim == 0:
        return [f"value: `{gd.attr_text(dset[()])}`"]
    data = dset[:shown]
    if dset.dtype.names:
        header = list(dset.dtype.names)
        rows = [[gd.attr_text(r[name]) for name in header] for r in data]
    elif dset.ndim == 1:
        header, rows = ["index", "value"], [[str(i), gd.attr_text(v)] for i, v in enumerate(data)]
    elif dset.ndim == 2 and dset.shape[1] <= 16:
        header = ["index"] + [str(j) for j in range(dset.shape[1])]
        rows = [[str(i)] + [gd.attr_text(v) for v in r] for i, r in enumerate(data)]
    else:
        return [f"({dset.ndim}-D, not printed)"]
    lines = ["| " + " | ".join(md_cell(h) for h in header) + " |",
             "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(md_cell(c) for c in r) + " |" for r in rows]
    if shown < n:
        lines.append(f"\n({n - shown} more rows not shown; --analysis-rows N shows more)")
    return lines


def row_columns(group) -> list[str]:
    """The 1-D datasets of a group with one entry per row, `row` first (the layout of
    /analysis/row_periods: a table stored by columns), or [] for other groups."""
    h5py = gd.import_h5py()
    row = group.get("row")
    if not isinstance(row, h5py.Dataset) or row.ndim != 1:
        return []
    names = [n for n, d in group.items() if isinstance(d, h5py.Dataset) and d.ndim == 1
             and d.shape == row.shape]
    # The row-periods fields in the order of the CSV, then any others by name.
    order = ["row", "preperiod", "period", "periods_observed", "certified"]
    return sorted(names, key=lambda n: (order.index(n) if n in order else len(order), n))


def columns_table(group, columns: list[str], max_rows: int) -> list[str]:
    """The first max_rows entries of the columns of a group as one Markdown table."""
    n = group["row"].shape[0]
    shown = min(n, max_rows)
    data = [group[c][:shown] for c in columns]
    lines = ["| " + " | ".join(md_cell(c) for c in columns) + " |", "|" + " --- |" * len(columns)]
    lines += ["| " + " | ".join(md_cell(gd.attr_text(col[i])) for col in data) + " |"
              for i in range(shown)]
    if shown < n:
        lines.append(f"\n({n - shown} more rows not shown; --analysis-rows N shows more)")
    return lines


def analysis_lines(f, max_rows: int) -> list[str]:
    h5py = gd.import_h5py()
    if "analysis" not in f:
        return ["(no /analysis group: run `grundy analyze` on the file to add analyses)"]
    lines: list[str] = []
    shown: set[str] = set()  # datasets already printed as columns of their group's table

    def visit(name, obj):
        path = "/analysis/" + name
        if path in shown:
            return
        if isinstance(obj, h5py.Group):
            lines.append(f"### `{path}` (group)\n")
            columns = row_columns(obj)
            if columns:
                shown.update(f"{path}/{c}" for c in columns)
                lines.extend(columns_table(obj, columns, max_rows))
                lines.append("")
        else:
            lines.append(f"### `{path}`\n")
            lines.append(f"shape {obj.shape}, type {obj.dtype}\n")
            lines.extend(dataset_table(obj, max_rows))
            lines.append("")
        if len(obj.attrs):
            lines.append("Attributes:\n")
            lines.extend(attribute_lines(obj))
            lines.append("")

    group = f["analysis"]
    if len(group.attrs):
        lines.append("Attributes of `/analysis`:\n")
        lines.extend(attribute_lines(group))
        lines.append("")
    group.visititems(visit)
    return lines or ["(the /analysis group is empty)"]


def results_only(path: str) -> bool:
    """Whether the file holds results without a table: `grundy periods --output`'s."""
    h5py = gd.import_h5py()
    try:
        if not (os.path.isfile(path) and h5py.is_hdf5(path)):
            return False
        with h5py.File(path, "r") as f:
            return "grundy" not in f and "analysis" in f
    except OSError:
        return False  # open_table says what is wrong with it


def summarize(path: str, no_scan: bool, max_rows: int, allow_incomplete: bool) -> str:
    if results_only(path):
        h5py = gd.import_h5py()
        with h5py.File(path, "r") as f:
            out = [f"# Summary of `{os.path.basename(path)}` (results, no table)", ""]
            out += ["## Attributes of `/`", ""] + attribute_lines(f) + [""]
            out += ["## Analysis results", ""] + analysis_lines(f, max_rows) + [""]
        return "\n".join(out)
    f, dset = gd.open_table(path, allow_incomplete)
    with f:
        rows, cols = dset.shape
        out = [f"# Summary of `{os.path.basename(path)}`", ""]
        complete = f.attrs.get("complete")
        if complete is None or int(np.asarray(complete).reshape(-1)[0]) != 1:
            out += [f"**Warning: incomplete table (complete = {complete!r}).**", ""]
        out += ["## Size and storage", ""] + storage_lines(path, dset) + [""]
        out += ["## Attributes of `/`", ""] + attribute_lines(f) + [""]
        if len(dset.attrs):
            out += ["## Attributes of `/grundy`", ""] + attribute_lines(dset) + [""]
        out += ["## Timings", ""] + timing_lines(f, rows * cols) + [""]
        out += ["## Values", ""]
        if no_scan:
            out += ["(not scanned: --no-scan)", ""]
        else:
            start = time.monotonic()
            s = scan_values(dset)
            took = time.monotonic() - start
            out += ["| what | value |", "| --- | --- |",
                    f"| minimum | {s['min']} |",
                    f"| maximum | {s['max']} |",
                    f"| maximum at (x, y) | {s['argmax']} |",
                    f"| P-positions (g = 0) | {s['zeros']} |",
                    f"| scan time | {took:.2f} s |", ""]
        out += ["## Analysis results", ""] + analysis_lines(f, max_rows) + [""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    if a.analysis_rows < 0:
        raise gd.DataError("--analysis-rows must be non-negative")
    text = summarize(a.table, a.no_scan, a.analysis_rows, a.allow_incomplete)
    if a.output:
        try:
            with open(a.output, "w", encoding="utf-8") as out:
                out.write(text)
        except OSError as e:
            raise gd.DataError(f"cannot write {a.output}: {e.strerror}") from e
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(gd.run_main(main))
