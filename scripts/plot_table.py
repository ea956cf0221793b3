#!/usr/bin/python3
"""Draw a Grundy table of Wythoff's game (or a region of it) as a picture, like seed 001's page.

One pixel per cell (times --scale), colours computed here rather than by a plotting library's
automatic scaling, so that the picture is reproducible and its pixels can be checked:

  * P-positions (g = 0) are black, whatever the transform (they are the game's kernel);
  * cells whose shown value is >= K (--highlight K, "à partir de K" as in seed 001) are red;
  * every other cell takes the fixed 'viridis' colormap: with --mod M, class v mod M gets the
    colour viridis(c / (M - 1)); without it, v gets viridis(v / VMAX), VMAX = --vmax or the
    largest value drawn.

The value v of a cell is g(x, y) or one of seed 001's transforms, g - x + 2y or x + y - g (both
eventually periodic along each row). --highlight compares v itself, before reduction mod M.

Orientation: (0, 0) is at the bottom-left and y grows upwards, as on seed 001's board (the
queen moves left, down or diagonally down-left); --origin upper puts row y = 0 at the top, in
matrix order.

--compute ROWS COLS draws a table computed on the spot by the Python module `grundy` (no file;
build/python is found beside this script, else the module must be importable).

Huge tables are never loaded whole: only the region asked for is read, one band of chunk rows
at a time, and when the region has more than --max-pixels cells per side it is sampled with a
stride s (every s-th row and column, the same s on both axes): the pixel at sampled position
(i, j) shows the cell (x0 + j*s, y0 + i*s), not an average.
"""

from __future__ import annotations

import argparse
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grundy_data as gd  # noqa: E402  (the shared helpers live beside this script)

BLACK = (0, 0, 0)
RED = (255, 0, 0)
COLORMAP = "viridis"  # perceptually uniform, and holds neither pure black nor pure red


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="plot_table.py",
        description="Draw a Grundy table (or a region) as a PNG heat map: one pixel per cell, "
                    "(0,0) at the bottom-left, P-positions black, values >= K red, other cells "
                    "coloured by the fixed 'viridis' colormap (mod M if asked).",
        epilog="Examples:\n"
               "  plot_table.py results/quickstart.h5 -o table.png --rows 0:256 --cols 0:256 "
               "--mod 8 --highlight 200\n"
               "  plot_table.py big.h5 -o rows.png --transform g-x+2y --rows 0:64 --mod 12\n"
               "  plot_table.py big.h5 -o overview.png --max-pixels 2048\n"
               "  plot_table.py --compute 256 256 -o table.png --mod 8   (no file: the module)\n"
               "Exit status: 0 on success, 2 on bad input (missing, non-HDF5 or incomplete "
               "file, bad option).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("table", metavar="TABLE.h5", nargs="?",
                   help="table written by grundy compute (or --compute instead)")
    p.add_argument("--compute", nargs=2, type=int, metavar=("ROWS", "COLS"),
                   help="draw the ROWS x COLS table computed now by the Python module grundy "
                        "instead of a file")
    p.add_argument("--threads", type=int, default=0, metavar="T",
                   help="with --compute: worker threads (default: all cores)")
    p.add_argument("-o", "--output", required=True, metavar="OUT.png",
                   help="picture to write (PNG; the extension picks the format)")
    p.add_argument("--mod", type=int, metavar="M",
                   help="colour the values modulo M (M >= 2), as on seed 001's page")
    p.add_argument("--highlight", type=int, metavar="K",
                   help="draw in red the cells whose value is >= K (before the modulo)")
    p.add_argument("--transform", choices=list(gd.TRANSFORMS), default="g",
                   help="value drawn: g (default), g-x+2y or x+y-g")
    p.add_argument("--rows", metavar="A:B",
                   help="rows y = A..B-1 only (half-open; either end may be left out)")
    p.add_argument("--cols", metavar="A:B", help="columns x = A..B-1 only")
    p.add_argument("--max-pixels", type=int, default=4096, metavar="N",
                   help="at most N pixels per side: larger regions are sampled with a stride "
                        "(default 4096)")
    p.add_argument("--scale", type=int, default=1, metavar="S",
                   help="draw each cell as an S x S square of pixels (default 1)")
    p.add_argument("--vmax", type=int, metavar="V",
                   help="without --mod: value drawn with the top colour (default: the largest "
                        "value drawn); fix it to compare pictures")
    p.add_argument("--origin", choices=["lower", "upper"], default="lower",
                   help="where row y = 0 goes: lower (default, like seed 001) or upper")
    p.add_argument("--allow-incomplete", action="store_true",
                   help="draw a table whose run did not finish (complete != 1)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    return p.parse_args(argv)


def check_args(a: argparse.Namespace) -> None:
    if (a.table is None) == (a.compute is None):
        raise gd.DataError("give either a TABLE.h5 file or --compute ROWS COLS")
    if a.compute is not None and min(a.compute) < 1:
        raise gd.DataError(f"--compute needs ROWS and COLS of at least 1, got {a.compute}")
    if a.mod is not None and a.mod < 2:
        raise gd.DataError(f"--mod must be at least 2, got {a.mod}")
    if a.scale < 1:
        raise gd.DataError(f"--scale must be at least 1, got {a.scale}")
    if a.max_pixels < a.scale:
        raise gd.DataError(f"--max-pixels ({a.max_pixels}) must be at least --scale ({a.scale})")
    if a.vmax is not None and a.vmax < 1:
        raise gd.DataError(f"--vmax must be at least 1, got {a.vmax}")
    out_dir = os.path.dirname(os.path.abspath(a.output))
    if not os.path.isdir(out_dir):
        raise gd.DataError(f"output directory {out_dir} does not exist")


def choose_stride(height: int, width: int, max_pixels: int, scale: int) -> int:
    """The smallest stride s with ceil(side / s) * scale <= max_pixels on both axes."""
    cells = max_pixels // scale
    return max(1, math.ceil(height / cells), math.ceil(width / cells))


def colour_cells(values: np.ndarray, g: np.ndarray, mod: int | None, highlight: int | None,
                 vmax: int | None) -> np.ndarray:
    """RGB uint8 image of the values (one pixel per cell, rows in table order).

    Precedence: P-position black over highlight red over the colormap.
    """
    from matplotlib import colormaps

    cmap = colormaps[COLORMAP]
    if mod is not None:
        level = (values % mod) / (mod - 1)
    else:
        top = vmax if vmax is not None else max(1, int(values.max(initial=0)))
        level = np.clip(values / top, 0.0, 1.0)
    rgb = cmap(level, bytes=True)[..., :3].copy()
    if highlight is not None:
        rgb[values >= highlight] = RED
    rgb[g == 0] = BLACK
    return rgb


def read_region(dset, y0: int, y1: int, x0: int, x1: int, stride: int, transform: str):
    """(values, g) of the sampled cells, read band by band (never the whole dataset)."""
    xs = np.arange(x0, x1, stride)
    g_parts, v_parts = [], []
    for ys, block in gd.iter_bands(dset, y0, y1, x0, x1, stride):
        g_parts.append(block)
        v_parts.append(gd.apply_transform(transform, block, xs, ys))
    return np.concatenate(v_parts), np.concatenate(g_parts)


def import_module():
    """The Python module grundy: importable as is, or built beside this script (build/python)."""
    built = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "python")
    try:
        import grundy
    except ImportError:
        if not os.path.isdir(built):
            raise gd.DataError("--compute needs the Python module grundy (build the project with "
                               "cmake, or put its build/python on PYTHONPATH); or give a "
                               "TABLE.h5 file") from None
        sys.path.append(os.path.abspath(built))
        try:
            import grundy
        except ImportError as e:
            raise gd.DataError(f"--compute: cannot import the Python module grundy ({e}); give "
                               "a TABLE.h5 file instead") from None
    return grundy


def computed_region(a: argparse.Namespace):
    """(values, g, bounds, stride) of the region of a table computed now (--compute)."""
    grundy = import_module()
    rows, cols = a.compute
    y0, y1 = gd.parse_range(a.rows, rows, "rows")
    x0, x1 = gd.parse_range(a.cols, cols, "cols")
    stride = choose_stride(y1 - y0, x1 - x0, a.max_pixels, a.scale)
    try:
        # Only the rectangle from (0, 0) that holds the region: g needs all smaller cells.
        table = grundy.table(y1, x1, threads=a.threads)
    except (ValueError, TypeError) as e:
        raise gd.DataError(f"--compute: {e}") from e
    g = table[y0:y1:stride, x0:x1:stride].astype(np.int64)
    xs, ys = np.arange(x0, x1, stride), np.arange(y0, y1, stride)
    return gd.apply_transform(a.transform, g, xs, ys), g, (y0, y1, x0, x1), stride


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    check_args(a)
    if a.compute is not None:
        values, g, (y0, y1, x0, x1), stride = computed_region(a)
        source = f"computed {a.compute[0]} x {a.compute[1]}"
    else:
        source = os.path.basename(a.table)
        f, dset = gd.open_table(a.table, a.allow_incomplete)
        with f:
            rows, cols = dset.shape
            y0, y1 = gd.parse_range(a.rows, rows, "rows")
            x0, x1 = gd.parse_range(a.cols, cols, "cols")
            stride = choose_stride(y1 - y0, x1 - x0, a.max_pixels, a.scale)
            values, g = read_region(dset, y0, y1, x0, x1, stride, a.transform)
    rgb = colour_cells(values, g, a.mod, a.highlight, a.vmax)
    if a.origin == "lower":
        rgb = rgb[::-1]  # image rows run top to bottom; put y0 at the bottom
    if a.scale > 1:
        rgb = np.repeat(np.repeat(rgb, a.scale, axis=0), a.scale, axis=1)

    from matplotlib import image as mimage

    description = (f"{source} rows {y0}:{y1} cols {x0}:{x1} stride {stride} "
                   f"scale {a.scale} transform {a.transform} mod {a.mod} highlight>={a.highlight} "
                   f"origin {a.origin}")
    ext = os.path.splitext(a.output)[1].lower()
    try:
        if ext in ("", ".png"):
            mimage.imsave(a.output, np.ascontiguousarray(rgb), format="png",
                          metadata={"Description": description, "Software": "grundy plot_table"})
        else:
            mimage.imsave(a.output, np.ascontiguousarray(rgb))
    except (OSError, ValueError) as e:
        raise gd.DataError(f"cannot write {a.output}: {e}") from e
    if not a.quiet:
        print(f"wrote {a.output}: {rgb.shape[1]} x {rgb.shape[0]} pixels, rows {y0}:{y1}, "
              f"cols {x0}:{x1}, stride {stride}, scale {a.scale}, transform {a.transform}")
    return 0


if __name__ == "__main__":
    sys.exit(gd.run_main(main))
