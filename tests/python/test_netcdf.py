"""Tables as netCDF-4 tools see them: /grundy's dimensions are named (y, x) by the coordinate
datasets /y and /x (HDF5 dimension scales), so xarray (engine h5netcdf) selects by coordinate
and ncdump lists the dimensions by name; /grundy and the /analysis datasets have long_name."""

import resource
import shutil
import signal
import subprocess

import numpy as np
import pytest

from conftest import COLS, ROWS

xr = pytest.importorskip("xarray")
pytest.importorskip("h5netcdf")


def open_xr(path):
    return xr.open_dataset(path, engine="h5netcdf")


def test_xarray_names_the_dimensions(table, reference):
    with open_xr(table) as ds:
        assert ds.grundy.dims == ("y", "x")
        assert dict(ds.sizes) == {"y": ROWS, "x": COLS}
        np.testing.assert_array_equal(ds.y.values, np.arange(ROWS))
        np.testing.assert_array_equal(ds.x.values, np.arange(COLS))
        row3 = ds.grundy.sel(y=3, x=slice(0, 11)).values  # slice: both ends included
        assert row3.tolist() == [3, 4, 5, 6, 2, 0, 1, 9, 10, 12, 8, 7]
        np.testing.assert_array_equal(ds.grundy.values, reference)
        np.testing.assert_array_equal(ds.grundy.sel(x=40, y=slice(10, 20)).values,
                                      reference[10:21, 40])
        assert "Wythoff" in ds.grundy.attrs["long_name"]
        assert ds.x.attrs["long_name"].startswith("x, ")
        assert ds.y.attrs["long_name"].startswith("y, ")


def test_ncdump_lists_dimensions_by_name(table):
    ncdump = shutil.which("ncdump")
    if not ncdump:
        pytest.skip("no ncdump (Debian: netcdf-bin)")
    header = subprocess.run([ncdump, "-h", str(table)], capture_output=True, text=True,
                            check=True).stdout
    assert f"y = {ROWS} ;" in header
    assert f"x = {COLS} ;" in header
    assert "grundy(y, x) ;" in header
    assert "phony_dim" not in header


def test_analysis_datasets_have_long_names(grundy_exe, table, tmp_path):
    path = tmp_path / "analysed.h5"
    shutil.copy(table, path)
    subprocess.run([grundy_exe, "analyze", str(path)], check=True, capture_output=True)
    # Their axes have no coordinates (phony dimensions, which h5netcdf wants named on request).
    with xr.open_dataset(path, engine="h5netcdf", group="analysis/row_periods",
                         phony_dims="sort") as ds:
        for name in ("row", "preperiod", "period", "periods_observed", "certified",
                     "block_values", "block_offsets"):
            assert ds[name].attrs["long_name"], name
        assert ds.period.shape == (ROWS,)
    with open_xr(path) as ds:  # the table still opens, named, after analyze wrote /analysis
        assert ds.grundy.dims == ("y", "x")


def test_resumed_file_has_coordinates(grundy_exe, tmp_path):
    """A run stopped midway (exit status 75) and resumed ends with the coordinates, even when
    the stopped file had none (written by a grundy from before them). The stop is a file size
    limit at half the finished file's size, which stops the run like a full disk, at the same
    chunk however fast the machine is (a signal sent on a sign of progress could come after a
    fast machine's end)."""
    h5py = pytest.importorskip("h5py")
    args = [grundy_exe, "compute", "--rows", "3000", "--cols", "3000", "--tile", "64",
            "--threads", "1", "-q", "-o"]
    finished = tmp_path / "finished.h5"
    subprocess.run(args + [str(finished)], check=True)
    limit = finished.stat().st_size // 2

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # grundy must ignore it itself

    path = tmp_path / "t.h5"
    args.append(str(path))
    r = subprocess.run(args, capture_output=True, text=True, preexec_fn=limited)
    assert r.returncode == 75, r.stderr
    assert "File too large" in r.stderr and "--resume" in r.stderr, r.stderr
    with h5py.File(path, "r+") as f:
        assert f.attrs["complete"] == 0 and f.attrs["resumable"] == 1
        for axis, name in enumerate(("y", "x")):
            f["grundy"].dims[axis].detach_scale(f[name])
            del f[name]
    subprocess.run(args + ["--resume"], check=True)
    with open_xr(path) as ds:
        assert ds.grundy.dims == ("y", "x")
        np.testing.assert_array_equal(ds.x.values, np.arange(3000))
        assert ds.grundy.sel(y=3, x=slice(0, 11)).values.tolist() == [
            3, 4, 5, 6, 2, 0, 1, 9, 10, 12, 8, 7]
        with h5py.File(finished, "r") as f:
            np.testing.assert_array_equal(ds.grundy.values, f["grundy"][...])
