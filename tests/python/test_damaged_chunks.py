"""A chunk of a complete table damaged on disk (64 bytes flipped in its middle, as a failing disk
might), with each compression: every reader refuses it, none returns other values. grundy analyze
exits 2 with one line; grundy view answers 500 for the chunk's tiles and values, and exits 2 when
it must read the whole table to build its pyramid; the Python module raises OSError; h5py and
ncdump, through HDF5's own fletcher32 filter, fail. The other chunks still read."""

import json
import os
import shutil
import subprocess

import h5py
import numpy as np
import pytest

from conftest import COLS as COLS_REF
from conftest import ROWS as ROWS_REF
from view_server import Server

try:
    import grundy
except ImportError:
    if os.environ.get("GRUNDY_REQUIRE_MODULE") == "1":
        raise
    grundy = None  # only test_module_raises needs it

# Wider than 4096 columns: grundy view needs a pyramid for it.
ROWS, COLS, TILE = 256, 4608, 64
COMPRESSIONS = ["deflate", "blosc", "none"]


def damage_chunk(path, y, x):
    """Flips 64 bytes in the middle of the stored chunk of /grundy that holds (x, y)."""
    with h5py.File(path, "r") as f:
        info = f["grundy"].id.get_chunk_info_by_coord((y, x))
    data = bytearray(path.read_bytes())
    middle = info.byte_offset + info.size // 2
    for k in range(middle, middle + 64):
        data[k] ^= 0x5A
    path.write_bytes(data)


@pytest.fixture(scope="module", params=COMPRESSIONS)
def damaged(request, grundy_exe, tmp_path_factory):
    """A complete table with its pyramid, its chunk at (64, 64) damaged after both were
    written."""
    path = tmp_path_factory.mktemp("damaged") / f"{request.param}.h5"
    subprocess.run([grundy_exe, "compute", "--rows", str(ROWS), "--cols", str(COLS), "--tile",
                    str(TILE), "--compression", request.param, "-o", str(path), "-q"], check=True)
    assert os.path.exists(f"{path}.pyramid")
    damage_chunk(path, 64, 64)
    return path


def test_analyze_exits_2_with_one_line(grundy_exe, damaged):
    r = subprocess.run([grundy_exe, "analyze", str(damaged)], capture_output=True, text=True)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.count("\n") == 1 and "damaged file?" in r.stderr, r.stderr


def test_module_raises(damaged, reference):
    if grundy is None:
        pytest.skip("the Python module is not built (build/python on PYTHONPATH)")
    with grundy.open(damaged) as t:
        with pytest.raises(OSError, match="damaged"):
            t[64:128, 64:128]  # the chunk whole: decoded by the module's reader
        with pytest.raises(OSError, match="damaged"):
            t[70, 71]  # one cell: read through HDF5's filters
        np.testing.assert_array_equal(t[0:ROWS_REF, 0:COLS_REF], reference)
    with pytest.raises(OSError, match="damaged"):
        grundy.verify(damaged)


def test_h5py_raises(damaged, reference):
    with h5py.File(damaged, "r") as f:
        d = f["grundy"]
        assert d.fletcher32
        if "32001" in d._filters:
            assert h5py.h5z.filter_avail(32001), "the Blosc filter plugin is not installed"
        with pytest.raises(OSError, match="Fletcher32"):
            d[64:128, 64:128]
        np.testing.assert_array_equal(d[0:ROWS_REF, 0:COLS_REF], reference)


def test_ncdump_fails(damaged):
    ncdump = shutil.which("ncdump")
    if not ncdump:
        pytest.skip("no ncdump (Debian: netcdf-bin)")
    r = subprocess.run([ncdump, "-v", "grundy", str(damaged)], capture_output=True, text=True)
    assert r.returncode != 0 and "HDF error" in r.stderr, r.stderr[-500:]


def test_view_answers_500_for_the_damaged_chunk(grundy_exe, damaged, reference):
    with Server(grundy_exe, damaged) as s:
        status, body = s.get("/value?x=70&y=71")
        assert status == 500 and b"damaged" in body, (status, body)
        assert s.get("/tile/mod/0/0/0.png")[0] == 500  # cells 0..255: the chunk among them
        status, body = s.get("/value?x=1&y=2")
        assert status == 200 and json.loads(body)["g"] == reference[2, 1], body
        assert s.get("/tile/mod/0/1/0.png")[0] == 200
        assert s.stop()[0] == 0


def test_view_that_builds_its_pyramid_exits_2(grundy_exe, damaged, tmp_path):
    # Without its pyramid, the view reads the whole table to build one, damaged chunk and all.
    copy = tmp_path / "copy.h5"
    shutil.copyfile(damaged, copy)
    r = subprocess.run([grundy_exe, "view", str(copy), "--port", "0"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stdout == "" and "damaged file?" in r.stderr.splitlines()[-1], r.stderr
    assert not os.path.exists(f"{copy}.pyramid")
