"""scripts/summarize.py: the Markdown summary holds the right numbers (checked against the
reference table and Wythoff's formula) and lists whatever is under /analysis."""

import shutil
import subprocess

import h5py
import numpy as np

from conftest import COLS, ROWS, p_positions, run_script


def row(text, name):
    """The value cell of the Markdown table row '| name | value |'."""
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] == name:
            return cells[1]
    raise AssertionError(f"no row '{name}' in:\n{text}")


def test_summary_numbers(table, reference):
    r = run_script("summarize.py", table)
    assert r.returncode == 0, r.stderr
    s = r.stdout
    assert s.startswith("# Summary of `table.h5`")
    assert row(s, "rows × cols") == f"{ROWS} × {COLS}"
    assert row(s, "cells") == str(ROWS * COLS)
    assert row(s, "dtype") == "uint16"
    assert row(s, "chunks") == "16 × 16"              # the engine's tile, --tile 16
    assert "gzip" in row(s, "filters") and "shuffle" in row(s, "filters")
    assert row(s, "game") == "wythoff"
    assert row(s, "complete") == "1"
    assert row(s, "minimum") == "0"
    assert row(s, "maximum") == str(reference.max())
    assert row(s, "P-positions (g = 0)") == str(len(p_positions(ROWS, COLS)))
    with h5py.File(table, "r") as f:  # the run's own figure, as the file holds it
        assert row(s, "elapsed") == f"{f.attrs['elapsed_seconds']:.3f} s"
        assert row(s, "threads") == str(f.attrs["threads"])
    assert "no /analysis group" in s


def test_summary_timings(tmp_path, table):
    """The timing rows, from the run's attributes: 6144 cells in 2.5 s on 2 threads are 2458
    cells per second, 8.14e+05 ns per cell and thread."""
    copy = tmp_path / "timed.h5"
    shutil.copy(table, copy)
    with h5py.File(copy, "a") as f:
        f.attrs["elapsed_seconds"] = 2.5
        f.attrs["threads"] = 2
    assert ROWS * COLS == 6144
    r = run_script("summarize.py", copy)
    assert r.returncode == 0, r.stderr
    assert row(r.stdout, "elapsed") == "2.500 s"
    assert row(r.stdout, "threads") == "2"
    assert row(r.stdout, "cells per second") == "2458"
    assert row(r.stdout, "ns per cell and thread") == "8.14e+05"


def test_summary_lists_analysis(tmp_path, table):
    copy = tmp_path / "with_analysis.h5"
    shutil.copy(table, copy)
    dt = np.dtype([("row", "<u8"), ("preperiod", "<i8"), ("period", "<i8")])
    with h5py.File(copy, "a") as f:
        g = f.create_group("analysis")
        d = g.create_dataset("row_periods", data=np.array([(0, 0, 1), (1, 0, 3), (2, 1, 3)], dt))
        d.attrs["method"] = "z-function"
        g.create_group("nested").create_dataset("counts", data=np.arange(50))
    out = tmp_path / "summary.md"
    r = run_script("summarize.py", copy, "-o", out, "--analysis-rows", 10)
    assert r.returncode == 0, r.stderr
    s = out.read_text()
    assert "### `/analysis/row_periods`" in s and "| row | preperiod | period |" in s
    assert "| 1 | 0 | 3 |" in s
    assert row(s, "method") == "z-function"
    assert "### `/analysis/nested/counts`" in s and "40 more rows not shown" in s


def test_summary_prints_row_periods_as_one_table(tmp_path, table, grundy_exe):
    """/analysis/row_periods as `grundy analyze` and `grundy periods` write it: a group of one
    column per dataset, printed as one table with the row's fields side by side."""
    copy = tmp_path / "analysed.h5"
    shutil.copy(table, copy)
    subprocess.run([grundy_exe, "analyze", str(copy), "--passes", "periodicity"], check=True,
                   capture_output=True)
    out = tmp_path / "summary.md"
    r = run_script("summarize.py", copy, "-o", out, "--analysis-rows", 5)
    assert r.returncode == 0, r.stderr
    s = out.read_text()
    assert "### `/analysis/row_periods` (group)" in s
    assert "| row | preperiod | period | periods_observed | certified |" in s
    assert "| 4 | 9 | 12 | " in s  # row 4: preperiod 9, period 12 (OEIS A004485)
    assert "### `/analysis/row_periods/period`" not in s  # not again as a dataset of its own


def test_summary_of_a_periods_file(tmp_path, grundy_exe):
    """`grundy periods --output` writes results without a table: summarised all the same."""
    path = tmp_path / "p.h5"
    subprocess.run([grundy_exe, "periods", "--rows", "6", "--output", str(path), "-q"],
                   check=True, capture_output=True)
    r = run_script("summarize.py", path)
    assert r.returncode == 0, r.stderr
    assert "### `/analysis/row_periods` (group)" in r.stdout
    assert "| 3 | 8 | 6 | 0 | 1 |" in r.stdout  # row 3: preperiod 8, period 6, certified
    assert row(r.stdout, "P") == "24"  # the certificate: x0 and P (rows 0..5: P = 24)


def test_no_scan(table):
    r = run_script("summarize.py", table, "--no-scan")
    assert r.returncode == 0 and "not scanned" in r.stdout and "| maximum |" not in r.stdout
