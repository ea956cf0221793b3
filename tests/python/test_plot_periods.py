"""scripts/plot_periods.py on small hand-written CSVs: extra columns accepted, undetermined
rows skipped with a note, bad CSVs refused with exit status 2."""

from conftest import read_png, run_script

GOOD = """row,preperiod,period,certified,periods_observed,block
0,0,1,1,9,
1,0,3,1,9,
2,1,3,1,9,
3,8,6,1,5,
4,17,12,1,3,
5,,,0,0,
6,40,24,0,2,
7,55,48,1,2,
"""


def write(tmp_path, text, name="p.csv"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_plot(tmp_path):
    out = tmp_path / "p.png"
    r = run_script("plot_periods.py", write(tmp_path, GOOD), "-o", out, "--dpi", 50)
    assert r.returncode == 0, r.stderr
    assert "7 rows plotted, 1 skipped" in r.stdout
    assert "skipped: 5" in r.stderr                     # the note names the undetermined row
    img = read_png(out)
    assert img.shape == (250, 400, 3)                   # 8 x 5 inches at 50 dpi
    assert (img != 255).any(axis=2).mean() > 0.02       # something is drawn


def test_bad_csvs(tmp_path):
    cases = {
        "row,period\n0,1\n": "missing column(s) preperiod",
        "row,preperiod,period\n0,0,x\n": ":2: column period",
        "row,preperiod,period\n0,,\n1,,\n": "no row with a determined period",
        "row,preperiod,period\n0,-1,3\n": "not an integer >= 0",
        "row,preperiod,period\n1,0,3\n": "rows must run 0, 1, 2",
    }
    for i, (text, message) in enumerate(cases.items()):
        r = run_script("plot_periods.py", write(tmp_path, text, f"{i}.csv"), "-o",
                       tmp_path / f"{i}.png")
        assert r.returncode == 2 and message in r.stderr, (text, r.stderr)
        assert "Traceback" not in r.stderr


def test_every_row_periods_header(tmp_path):
    """The one format both commands write now, and the two each wrote before it (the committed
    jobs/results/*.csv keep the periods one)."""
    rows = "0,0,1,{0}0\n1,0,3,{0}3 3 0\n2,,,{1}\n"
    headers = {
        "row,preperiod,period,periods_observed,certified,block\n": ("9,0,", ",0,"),
        "row,preperiod,period,periods_observed,block\n": ("9,", ","),
        "row,preperiod,period,certified,block\n": ("1,", "0,"),
    }
    for i, (header, (fill, undetermined)) in enumerate(headers.items()):
        path = write(tmp_path, header + rows.format(fill, undetermined), f"p{i}.csv")
        r = run_script("plot_periods.py", path, "-o", tmp_path / f"p{i}.png", "--dpi", 30)
        assert r.returncode == 0, (header, r.stderr)
        assert "2 rows plotted, 1 skipped" in r.stdout, (header, r.stdout)


def test_hdf5_of_both_commands(tmp_path, table, grundy_exe):
    """The HDF5 files of `grundy analyze` (rows of the table, not certified) and of
    `grundy periods --output` (certified), read through /analysis/row_periods."""
    import shutil
    import subprocess

    analysed = tmp_path / "analysed.h5"
    shutil.copy(table, analysed)
    subprocess.run([grundy_exe, "analyze", str(analysed), "--passes", "periodicity"], check=True,
                   capture_output=True)
    certified = tmp_path / "certified.h5"
    subprocess.run([grundy_exe, "periods", "--rows", "12", "--output", str(certified), "-q"],
                   check=True, capture_output=True)
    for path, plotted in ((analysed, None), (certified, "12 rows plotted, 0 skipped")):
        r = run_script("plot_periods.py", path, "-o", tmp_path / (path.stem + ".png"),
                       "--dpi", 30)
        assert r.returncode == 0, r.stderr
        assert "rows plotted" in r.stdout, r.stdout
        if plotted:
            assert plotted in r.stdout, r.stdout


def test_hdf5_before_the_group_layout(tmp_path):
    """A file analysed before the one layout: an int64 [rows, 4] dataset (-1: undetermined)."""
    import h5py
    import numpy as np

    path = tmp_path / "old.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("analysis/row_periods", data=np.array(
            [(0, 0, 1, 9), (1, 0, 3, 9), (2, 0, 3, 9), (3, -1, -1, -1)], dtype=np.int64))
    r = run_script("plot_periods.py", path, "-o", tmp_path / "old.png", "--dpi", 30)
    assert r.returncode == 0, r.stderr
    assert "3 rows plotted, 1 skipped" in r.stdout, r.stdout
