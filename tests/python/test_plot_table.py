"""scripts/plot_table.py: picture size, orientation, and the colours at known cells, checked
against values known independently of the engine and of the script (Wythoff's formula for the
P-positions, the direct-mex reference table, g(x, 0) = x, symmetry)."""

import sys

import numpy as np
import pytest

from conftest import COLS, ROWS, SCRIPTS, p_positions, read_png, run_script, viridis

BLACK = np.array([0, 0, 0])
RED = np.array([255, 0, 0])


def pixel(img, x, y, origin="lower", x0=0, y0=0, stride=1):
    """The pixel showing cell (x, y) in a picture of the region starting at (x0, y0)."""
    i, j = (y - y0) // stride, (x - x0) // stride
    return img[img.shape[0] - 1 - i, j] if origin == "lower" else img[i, j]


def close(a, b, tol=1):
    return bool(np.all(np.abs(np.asarray(a) - np.asarray(b)) <= tol))


def plot(tmp_path, table, *args, name="out.png"):
    out = tmp_path / name
    r = run_script("plot_table.py", table, "-o", out, *args)
    assert r.returncode == 0, r.stderr
    return read_png(out)


def test_reference_table_is_right(reference):
    # The reference itself, against facts from the literature (guards the guard).
    assert list(reference[0, :10]) == list(range(10))            # g(x, 0) = x
    assert list(reference[3, :12]) == [3, 4, 5, 6, 2, 0, 1, 9, 10, 12, 8, 7]
    assert np.array_equal(reference[:, :ROWS], reference[:, :ROWS].T)  # symmetric
    zeros = {(x, y) for y, x in zip(*np.nonzero(reference == 0))}
    assert zeros == p_positions(ROWS, COLS)


def test_size_orientation_and_p_positions(tmp_path, table, reference):
    img = plot(tmp_path, table)
    assert img.shape == (ROWS, COLS, 3)                  # one pixel per cell, width = columns
    assert close(img[ROWS - 1, 0], BLACK)                # (0, 0) at the bottom-left
    assert close(pixel(img, 1, 2), BLACK) and close(pixel(img, 2, 1), BLACK)
    ps = p_positions(ROWS, COLS)
    for y in range(ROWS):
        for x in range(COLS):
            assert close(pixel(img, x, y), BLACK) == ((x, y) in ps), (x, y)
    # Without --mod the colour is viridis(g / max g): row 0 holds g(x, 0) = x.
    top = reference.max()
    for x in (1, 10, 50, 95):
        assert close(pixel(img, x, 0), viridis(x / top)), x


def test_mod_colours(tmp_path, table, reference):
    m = 5
    img = plot(tmp_path, table, "--mod", m)
    for (x, y) in [(0, 3), (3, 0), (7, 9), (9, 7), (40, 20), (95, 63), (60, 1)]:
        g = reference[y, x]
        assert g != 0
        assert close(pixel(img, x, y), viridis((g % m) / (m - 1))), (x, y, g)


def test_highlight_is_from_k_on(tmp_path, table, reference):
    k = 100
    img = plot(tmp_path, table, "--mod", 7, "--highlight", k)
    for y in range(ROWS):
        for x in range(COLS):
            g = reference[y, x]
            red = close(pixel(img, x, y), RED)
            assert red == (g >= k), (x, y, g)
    # g(x, 0) = x < COLS <= K: nothing red on row 0; column 0 too (g(0, y) = y < 64).
    assert not any(close(pixel(img, x, 0), RED) for x in range(COLS))


def test_transforms(tmp_path, table, reference):
    # Row 1 of g - x + 2y repeats [3, 3, 0] (seed 001); with --mod 4 the colours follow it.
    img = plot(tmp_path, table, "--transform", "g-x+2y", "--mod", 4)
    for x in range(3, 60):
        v = reference[1, x] - x + 2
        assert v == [3, 3, 0][x % 3]  # the reference agrees with seed 001 ...
        if reference[1, x] != 0:       # ... and the picture with both
            assert close(pixel(img, x, 1), viridis((v % 4) / 3)), x
    # x + y - g is 0 on row 0 (g(x, 0) = x) and 0 <= x + y - g everywhere.
    img = plot(tmp_path, table, "--transform", "x+y-g", "--vmax", 50, name="t2.png")
    for x in range(1, COLS):
        assert close(pixel(img, x, 0), viridis(0.0)), x
    x, y = 40, 30
    v = x + y - reference[y, x]
    assert close(pixel(img, x, y), viridis(min(v, 50) / 50))


def test_origin_upper(tmp_path, table, reference):
    img = plot(tmp_path, table, "--origin", "upper", "--mod", 3)
    assert close(img[0, 0], BLACK)                       # (0, 0) at the top-left
    assert close(pixel(img, 2, 1, "upper"), BLACK)
    assert close(pixel(img, 5, 3, "upper"), BLACK)       # (5, 3) is a P-position
    g = reference[ROWS - 1, 0]
    assert close(img[ROWS - 1, 0], viridis((g % 3) / 2))


def test_region_stride_and_scale(tmp_path, table, reference):
    # Rows 10..49 and columns 20..89 with at most 20 pixels a side: stride ceil(70/20) = 4.
    img = plot(tmp_path, table, "--rows", "10:50", "--cols", "20:90", "--max-pixels", 20,
               "--mod", 6)
    assert img.shape == (10, 18, 3)
    for (x, y) in [(20, 10), (24, 14), (88, 46), (60, 30)]:
        g = reference[y, x]
        want = BLACK if g == 0 else viridis((g % 6) / 5)
        assert close(pixel(img, x, y, x0=20, y0=10, stride=4), want), (x, y)
    # --scale 3: each cell a 3 x 3 square; --max-pixels counts the scaled pixels.
    img = plot(tmp_path, table, "--rows", ":8", "--cols", ":8", "--scale", 3, "--mod", 4,
               name="s.png")
    assert img.shape == (24, 24, 3)
    assert close(img[-3:, :3], np.broadcast_to(BLACK, (3, 3, 3)))       # (0, 0)
    g = reference[0, 7]
    assert close(img[-3:, 21:24], np.broadcast_to(viridis((g % 4) / 3), (3, 3, 3)))


def test_reads_only_the_region(monkeypatch):
    # iter_bands on a fake dataset that records what is read: only the selected cells, one band
    # of chunk rows at a time, never the whole table.
    sys.path.insert(0, str(SCRIPTS))
    import grundy_data as gd

    class FakeDataset:
        shape, chunks = (1000, 1200), (100, 100)

        def __init__(self):
            self.data = np.arange(1000 * 1200).reshape(self.shape)
            self.reads = []

        def __getitem__(self, key):
            block = self.data[key]
            self.reads.append(block.size)
            return block

    d = FakeDataset()
    got = np.concatenate([b for _, b in gd.iter_bands(d, 150, 920, 30, 1100, 7)])
    assert np.array_equal(got, d.data[150:920:7, 30:1100:7])
    assert sum(d.reads) == got.size
    assert max(d.reads) <= (100 // 7 + 1) * got.shape[1]
    ys = np.concatenate([ys for ys, _ in gd.iter_bands(d, 150, 920, 30, 1100, 7)])
    assert np.array_equal(ys, np.arange(150, 920, 7))


@pytest.mark.parametrize("args, message", [
    (["--mod", "1"], "--mod"),
    (["--rows", "70:80"], "empty"),
    (["--rows", "a:b"], "--rows"),
    (["--scale", "0"], "--scale"),
])
def test_bad_options(tmp_path, table, args, message):
    r = run_script("plot_table.py", table, "-o", tmp_path / "x.png", *args)
    assert r.returncode == 2
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.png").exists()
