"""Every script: --help works, and bad input (missing file, not HDF5, no /grundy, incomplete
table) gives exit status 2 with one clear line on stderr."""

import h5py
import numpy as np
import pytest

from conftest import run_script

TABLE_SCRIPTS = ["plot_table.py", "summarize.py"]


def args_for(script, path, tmp_path):
    return [path, "-o", tmp_path / "out.png"] if script == "plot_table.py" else [path]


@pytest.mark.parametrize("script", TABLE_SCRIPTS + ["plot_periods.py", "oeis_bfiles.py",
                                                  "period_growth.py", "compare_periods.py",
                                                  "eta_check.py"])
def test_help(script):
    r = run_script(script, "--help")
    assert r.returncode == 0 and "usage:" in r.stdout


@pytest.fixture
def bad_files(tmp_path):
    text = tmp_path / "text.h5"
    text.write_text("row,preperiod,period\n")
    no_grundy = tmp_path / "no_grundy.h5"
    with h5py.File(no_grundy, "w") as f:
        f["other"] = np.zeros((4, 4), dtype=np.uint16)
        f.attrs["complete"] = 1
    incomplete = tmp_path / "incomplete.h5"
    with h5py.File(incomplete, "w") as f:
        f["grundy"] = np.zeros((4, 4), dtype=np.uint16)
        f.attrs["complete"] = 0
    no_flag = tmp_path / "no_flag.h5"
    with h5py.File(no_flag, "w") as f:
        f["grundy"] = np.zeros((4, 4), dtype=np.uint16)
    return {"missing": (tmp_path / "missing.h5", "no such file"),
            "text": (text, "not an HDF5 file"),
            "no_grundy": (no_grundy, "no dataset /grundy"),
            "incomplete": (incomplete, "incomplete"),
            "no_flag": (no_flag, "incomplete")}


@pytest.mark.parametrize("script", TABLE_SCRIPTS)
@pytest.mark.parametrize("kind", ["missing", "text", "no_grundy", "incomplete", "no_flag"])
def test_bad_table_files(tmp_path, bad_files, script, kind):
    path, message = bad_files[kind]
    r = run_script(script, *args_for(script, path, tmp_path))
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and str(path.name) in lines[0]
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("script", TABLE_SCRIPTS)
def test_allow_incomplete(tmp_path, bad_files, script):
    path, _ = bad_files["incomplete"]
    r = run_script(script, *args_for(script, path, tmp_path), "--allow-incomplete")
    assert r.returncode == 0, r.stderr


def test_plot_periods_missing_file(tmp_path):
    r = run_script("plot_periods.py", tmp_path / "none.csv", "-o", tmp_path / "p.png")
    assert r.returncode == 2 and "no such file" in r.stderr
