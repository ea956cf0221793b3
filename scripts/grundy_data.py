"""Shared helpers for the Python scripts: open a grundy table with its checks, parse regions,
stream the table in bands of chunk rows, apply seed 001's transforms, report errors.

The scripts (plot_table.py, summarize.py, plot_periods.py) import this module; users' own
scripts may too (put scripts/ on sys.path). Nothing here loads a whole table: huge tables are
read band by band or in the region asked for.

The contracts relied on are those of src/DESIGN.md (section 5.2): dataset /grundy of shape
[rows, cols] with f["grundy"][y, x] = g(x, y), unsigned integers, and the root attribute
complete = 1 written last (a file without it is incomplete and refused unless the caller allows
it).
"""

from __future__ import annotations

import os
import sys
from typing import Callable, Iterator

import numpy as np

# Exit status for every user error (missing, unreadable, incomplete or malformed input), as for
# the grundy executable: scripts and batch jobs can tell bad input from a crash (status 1).
EXIT_USAGE = 2


class DataError(Exception):
    """A user-facing problem with the input: reported as one line on stderr, exit status 2."""


def run_main(main: Callable[[list[str] | None], int], argv: list[str] | None = None) -> int:
    """Runs a script's main and turns DataError into one line on stderr and exit status 2."""
    prog = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "grundy-script"
    try:
        return main(argv)
    except DataError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # `summarize.py big.h5 | head` closes the pipe early: not an error worth a traceback.
        return 0


def import_h5py():
    """h5py, or a DataError that says which Debian package provides it."""
    try:
        import h5py  # noqa: WPS433 (imported late so that --help works without h5py)
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise DataError("h5py is not installed (Debian: apt-get install python3-h5py)") from e
    return h5py


def open_table(path: str, allow_incomplete: bool = False):
    """Opens a table file read-only and checks it; returns (file, dataset).

    Raises DataError for a missing file, a file that is not HDF5, a file without a 2-D unsigned
    integer dataset /grundy, and an incomplete file (root attribute complete != 1) unless
    allow_incomplete is true. The caller closes the file (it is a context manager).
    """
    h5py = import_h5py()
    if not os.path.exists(path):
        raise DataError(f"{path}: no such file")
    if os.path.isdir(path):
        raise DataError(f"{path}: is a directory, not an HDF5 file")
    try:
        is_hdf5 = h5py.is_hdf5(path)
    except OSError as e:
        raise DataError(f"{path}: cannot read: {e}") from e
    if not is_hdf5:
        raise DataError(f"{path}: not an HDF5 file")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise DataError(f"{path}: cannot open as HDF5: {e}") from e
    try:
        if "grundy" not in f or not isinstance(f["grundy"], h5py.Dataset):
            raise DataError(f"{path}: no dataset /grundy (not a table written by grundy compute)")
        dset = f["grundy"]
        if dset.ndim != 2 or dset.dtype.kind != "u":
            raise DataError(f"{path}: /grundy must be a 2-D unsigned integer dataset, "
                            f"found shape {dset.shape} and type {dset.dtype}")
        complete = f.attrs.get("complete")
        if not allow_incomplete and not _is_one(complete):
            raise DataError(f"{path}: incomplete table (root attribute complete = {complete!r}, "
                            "not 1): the run that wrote it did not finish; "
                            "use --allow-incomplete to read it anyway")
    except BaseException:
        f.close()
        raise
    return f, dset


def _is_one(value) -> bool:
    try:
        return value is not None and int(np.asarray(value).reshape(-1)[0]) == 1
    except (TypeError, ValueError, IndexError):
        return False


def parse_range(text: str | None, size: int, what: str) -> tuple[int, int]:
    """Parses 'A:B' (half-open, either end may be left out, like a Python slice) against an
    axis of the given size; returns (A, B) clipped to the axis, or raises DataError."""
    if text is None:
        return 0, size
    if text.count(":") != 1:
        raise DataError(f"--{what} must be A:B (half-open, e.g. 0:256 or 1000:), got '{text}'")
    a_text, b_text = (t.strip() for t in text.split(":"))
    try:
        a = int(a_text) if a_text else 0
        b = int(b_text) if b_text else size
    except ValueError as e:
        raise DataError(f"--{what} must be A:B with integers, got '{text}'") from e
    if a < 0 or b < 0:
        raise DataError(f"--{what} takes non-negative bounds, got '{text}'")
    b = min(b, size)
    if a >= b:
        raise DataError(f"--{what} {text} is empty (the table has {size} {what})")
    return a, b


# Seed 001's three views of a table. Each maps (g, x, y) to a non-negative integer array:
# Landman's bounds x - 2y <= g <= x + y make g - x + 2y and x + y - g non-negative, and both are
# eventually periodic along a row (the additive periodicity made visible).
TRANSFORMS: dict[str, Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]] = {
    "g": lambda g, x, y: g,
    "g-x+2y": lambda g, x, y: g - x + 2 * y,
    "x+y-g": lambda g, x, y: x + y - g,
}


def apply_transform(name: str, g: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Applies a transform to a block g[i, j] = g(xs[j], ys[i]); returns int64 values."""
    if name not in TRANSFORMS:
        raise DataError(f"unknown transform '{name}' (choose from {', '.join(TRANSFORMS)})")
    g64 = g.astype(np.int64)
    return TRANSFORMS[name](g64, xs.astype(np.int64)[None, :], ys.astype(np.int64)[:, None])


def band_height(dset) -> int:
    """Rows per streaming band: one row of chunks, so each chunk is decompressed once."""
    return int(dset.chunks[0]) if dset.chunks else max(1, min(dset.shape[0], 256))


def iter_bands(dset, y0: int = 0, y1: int | None = None, x0: int = 0, x1: int | None = None,
               step: int = 1) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yields (ys, block) for the rows y0, y0+step, ... < y1 and columns x0, x0+step, ... < x1,
    one band of chunk rows at a time: block[i, j] = g(x0 + j*step, ys[i]).

    Memory is one band of the selected columns, whatever the table's size.
    """
    rows, cols = dset.shape
    y1 = rows if y1 is None else y1
    x1 = cols if x1 is None else x1
    h = band_height(dset)
    y = y0
    while y < y1:
        band_end = min(y1, (y // h + 1) * h)  # end of the chunk row holding y
        # Selected rows inside [y, band_end): y, y+step, ...
        count = (band_end - y + step - 1) // step
        last = y + (count - 1) * step
        block = dset[y:last + 1:step, x0:x1:step]
        yield np.arange(y, last + 1, step), block
        y = last + step


def attr_text(value) -> str:
    """An HDF5 attribute value as short text (bytes decoded, 1-element arrays unwrapped)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    arr = np.asarray(value)
    if arr.shape == ():
        v = arr.item()
        return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
    if arr.size <= 16:
        return "[" + ", ".join(attr_text(v) for v in arr.reshape(-1)) + "]"
    return f"array of shape {arr.shape}, type {arr.dtype}"
