"""Fixtures for the Python scripts' tests: the grundy executable, small tables it computes, an
independent reference table computed here by the definition (direct mex), and helpers to run
the scripts and read back their pictures.

The executable is $GRUNDY_EXE (set by scripts/test), else build/grundy under the repository
root; tests that need it are skipped when neither exists.
"""

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts"
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def import_grundy():
    """The module `grundy`, or the calling test file skipped where it is not built; scripts/test
    sets GRUNDY_REQUIRE_MODULE=1, and a module that does not import then fails the run."""
    if os.environ.get("GRUNDY_REQUIRE_MODULE") == "1":
        import grundy

        return grundy
    return pytest.importorskip("grundy")


ROWS, COLS = 64, 96  # the small table every test draws from


def reference_table(rows, cols):
    """g[y, x] by the definition: the least value not in the row to the left, the column below
    or the diagonal down-left. Independent of the engine (no bit windows, no tiles)."""
    g = np.zeros((rows, cols), dtype=np.int64)
    row_seen = [set() for _ in range(rows)]
    col_seen = [set() for _ in range(cols)]
    diag_seen = {}
    for y in range(rows):
        for x in range(cols):
            d = diag_seen.setdefault(x - y, set())
            v = 0
            while v in row_seen[y] or v in col_seen[x] or v in d:
                v += 1
            g[y, x] = v
            row_seen[y].add(v)
            col_seen[x].add(v)
            d.add(v)
    return g


def p_positions(rows, cols):
    """The P-positions (x, y) inside the rectangle, from Wythoff's formula in exact integers:
    a_n = (n + isqrt(5 n^2)) // 2, b_n = a_n + n."""
    cells = set()
    n = 0
    while True:
        a = (n + math.isqrt(5 * n * n)) // 2
        b = a + n
        if a >= rows and a >= cols:
            break
        for x, y in ((a, b), (b, a)):
            if x < cols and y < rows:
                cells.add((x, y))
        n += 1
    return cells


def mpi_exe():
    """grundy-mpi: $GRUNDY_MPI_EXE (set by scripts/test), else build/grundy-mpi."""
    return os.environ.get("GRUNDY_MPI_EXE") or str(REPO / "build" / "grundy-mpi")


@pytest.fixture(scope="session")
def grundy_exe():
    exe = os.environ.get("GRUNDY_EXE") or str(REPO / "build" / "grundy")
    if not os.access(exe, os.X_OK):
        pytest.skip(f"no grundy executable at {exe} (build it, or set GRUNDY_EXE)")
    return exe


@pytest.fixture(scope="session")
def table(grundy_exe, tmp_path_factory):
    """A complete ROWS x COLS table written by the engine (small tiles: several chunk bands)."""
    path = tmp_path_factory.mktemp("tables") / "table.h5"
    subprocess.run([grundy_exe, "compute", "--rows", str(ROWS), "--cols", str(COLS),
                    "--tile", "16", "--output", str(path), "--quiet"], check=True)
    return path


@pytest.fixture(scope="session")
def reference():
    return reference_table(ROWS, COLS)


def run_script(name, *args):
    """Runs scripts/NAME with /usr/bin/python3; returns the CompletedProcess (text output)."""
    return subprocess.run([PYTHON, str(SCRIPTS / name), *map(str, args)],
                          capture_output=True, text=True, timeout=60)


def read_png(path):
    """The picture as an int array [height, width, 3] of 0..255 values."""
    from matplotlib import image as mimage

    img = mimage.imread(str(path))
    if img.dtype != np.uint8:
        img = np.rint(img * 255)
    return img[..., :3].astype(np.int64)


def viridis(level):
    """The colour the scripts promise for a level in [0, 1], from matplotlib's own colormap."""
    from matplotlib import colormaps

    return np.array(colormaps["viridis"](float(level), bytes=True)[:3], dtype=np.int64)


def committed_rows(rows=512):
    """(row, preperiod, period) of the committed certified rows 0..rows-1
    (jobs/results/row-periods-512.csv), read by the scripts' strict reader."""
    sys.path.insert(0, str(SCRIPTS))
    import periods_csv  # noqa: E402
    found, _ = periods_csv.read_row_periods(str(REPO / "jobs" / "results" / "row-periods-512.csv"))
    return [(r.row, r.preperiod, r.period) for r in found[:rows]]


def certified_prefix(path, rows):
    """A stopped run's row-periods CSV: every row listed, the certified ones first, each equal
    to the committed row, the rest undetermined. Returns how many are certified."""
    sys.path.insert(0, str(SCRIPTS))
    import periods_csv  # noqa: E402
    found, _ = periods_csv.read_row_periods(str(path))
    assert len(found) == rows
    k = sum(1 for r in found if r.certified)
    assert all(r.certified for r in found[:k]), "a certified row after one that is not"
    assert all(r.period is None for r in found[k:])
    assert [(r.row, r.preperiod, r.period) for r in found[:k]] == committed_rows(k)
    return k
