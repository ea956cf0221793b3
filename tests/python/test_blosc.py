"""A table written with --compression blosc reads in h5py (through the Blosc filter plugin that
scripts/setup.sh installs) with the same values as the reference table."""

import subprocess

import h5py
import pytest

from conftest import COLS, ROWS


def test_h5py_reads_blosc_table(grundy_exe, tmp_path, reference):
    path = tmp_path / "blosc.h5"
    subprocess.run([grundy_exe, "compute", "--rows", str(ROWS), "--cols", str(COLS), "--tile",
                    "16", "--compression", "blosc", "--output", str(path), "--quiet"], check=True)
    with h5py.File(path, "r") as f:
        d = f["grundy"]
        assert "32001" in d._filters  # Blosc's registered filter id
        if not h5py.h5z.filter_avail(32001):
            pytest.skip("the Blosc filter plugin is not installed (hdf5-filter-plugin-blosc-serial)")
        assert (d[...] == reference).all()
