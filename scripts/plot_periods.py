#!/usr/bin/python3
"""Plot the additive periods and preperiods of the rows of Wythoff's Grundy table against the
row number, on a logarithmic scale, from a row-periods CSV (written by `grundy analyze --csv`
or `grundy periods --csv`) or from the HDF5 file either command wrote (/analysis/row_periods).

The CSV contract (src/DESIGN.md, section 5.3), read by periods_csv.py as the other scripts
read it: a header line, then one line per row, rows 0, 1, 2, ... in order, with at least the
columns row, preperiod, period; a row whose period is not determined has both fields empty.
Such rows are skipped, with a note on stderr. Extra columns are accepted and ignored, except
`certified` (0 or 1): rows with 0 there are drawn with hollow markers.

The HDF5 input (read with h5py): /analysis/row_periods as both commands write it, a group with
one entry per row in the datasets row, preperiod, period (0: undetermined) and certified; or,
in files analysed before that layout, an int64 [rows, 4] dataset (row, preperiod, period,
periods_observed; -1: undetermined), whose rows count as not certified.

The known growth is made visible by a reference curve 20·y² for the preperiods and by the
least-squares power law c·y^k fitted to each series (rows y >= 1), shown in the legend.
The vertical axis is symlog (logarithmic above 1, linear from 0 to 1), so that preperiod 0
(rows 0 and 1) still has a place on it.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grundy_data as gd  # noqa: E402  (the shared helpers live beside this script)
import periods_csv  # noqa: E402


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="plot_periods.py",
        description="Plot period and preperiod against the row (log scale) from a row-periods "
                    "CSV (columns row,preperiod,period, extra columns allowed; rows with empty "
                    "fields are undetermined and skipped with a note).",
        epilog="Exit status: 0 on success, 2 on bad input (missing file, missing columns, "
               "malformed numbers, no determined row).")
    p.add_argument("csv", metavar="PERIODS.csv",
                   help="row-periods CSV, or an HDF5 file with /analysis/row_periods")
    p.add_argument("-o", "--output", required=True, metavar="OUT.png", help="picture to write")
    p.add_argument("--title", help="title of the plot (default: the CSV's file name)")
    p.add_argument("--logx", action="store_true", help="logarithmic row axis too")
    p.add_argument("--no-reference", action="store_true",
                   help="leave out the 20·y² reference curve and the fitted power laws")
    p.add_argument("--dpi", type=int, default=120, help="resolution of the picture (default 120)")
    return p.parse_args(argv)


def read_periods_h5(path: str) -> tuple[dict, list[int]]:
    """Reads /analysis/row_periods of an HDF5 file; returns what read_periods does."""
    h5py = gd.import_h5py()
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise gd.DataError(f"{path}: cannot open as HDF5: {e}") from e
    with f:
        node = f.get("analysis/row_periods")
        if isinstance(node, h5py.Group):
            row, pre, per = (np.asarray(node[n][:], dtype=np.int64)
                             for n in ("row", "preperiod", "period"))
            cert = np.asarray(node["certified"][:], dtype=bool)
            determined = per > 0
        elif isinstance(node, h5py.Dataset) and node.ndim == 2 and node.shape[1] >= 3:
            table = np.asarray(node[:], dtype=np.int64)
            row, pre, per = table[:, 0], table[:, 1], table[:, 2]
            cert = np.zeros(row.shape, dtype=bool)
            determined = per > 0
        else:
            raise gd.DataError(f"{path}: no /analysis/row_periods (run grundy analyze on it, "
                               "or grundy periods --output)")
    data = {"row": row[determined], "preperiod": pre[determined], "period": per[determined],
            "certified": cert[determined]}
    return data, [int(r) for r in row[~determined]]


def read_periods(path: str) -> tuple[dict, list[int]]:
    """Reads the CSV (through periods_csv, the scripts' one reader of the contract) or the HDF5
    file; returns ({'row','preperiod','period','certified'}: arrays, skipped rows).

    Raises DataError for a missing file, missing columns, or malformed fields (with the line).
    """
    if not os.path.exists(path):
        raise gd.DataError(f"{path}: no such file")
    with open(path, "rb") as probe:
        if probe.read(8) == b"\x89HDF\r\n\x1a\n":
            return read_periods_h5(path)
    rows, _ = periods_csv.read_row_periods(path)
    determined = [r for r in rows if r.period is not None]
    data = {"row": np.array([r.row for r in determined], dtype=np.int64),
            "preperiod": np.array([r.preperiod for r in determined], dtype=np.int64),
            "period": np.array([r.period for r in determined], dtype=np.int64),
            # A file without the column (old analyze files) counts as certified: drawn solid.
            "certified": np.array([r.certified is not False for r in determined], dtype=bool)}
    return data, [r.row for r in rows if r.period is None]


def fit_power_law(y: np.ndarray, v: np.ndarray):
    """(c, k) of the least-squares fit log v = log c + k log y over y >= 1, v >= 1; or None."""
    keep = (y >= 1) & (v >= 1)
    if np.count_nonzero(keep) < 3:
        return None
    k, log_c = np.polyfit(np.log(y[keep]), np.log(v[keep]), 1)
    return float(np.exp(log_c)), float(k)


def plot(data: dict, skipped: list[int], a: argparse.Namespace) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed on a cluster node
    import matplotlib.pyplot as plt

    y = data["row"]
    fig, ax = plt.subplots(figsize=(8, 5))
    series = (("period", "tab:blue", "o"), ("preperiod", "tab:orange", "s"))
    for name, colour, marker in series:
        v = data[name]
        cert = data["certified"]
        ax.plot(y, v, color=colour, linewidth=0.8, alpha=0.6)
        ax.scatter(y[cert], v[cert], color=colour, marker=marker, s=14, label=name, zorder=3)
        if np.any(~cert):
            ax.scatter(y[~cert], v[~cert], facecolors="none", edgecolors=colour, marker=marker,
                       s=14, label=f"{name} (not certified)", zorder=3)
        if not a.no_reference:
            fit = fit_power_law(y, v)
            if fit:
                xs = np.linspace(max(1, y.min()), max(1, y.max()), 200)
                fx = fit[0] * xs ** fit[1]
                keep = fx >= 1  # below 1 the symlog axis turns linear and bends the curve
                ax.plot(xs[keep], fx[keep], color=colour, linestyle=":", linewidth=1,
                        label=f"{name} fit ≈ {fit[0]:.3g}·y^{fit[1]:.2f}")
    if not a.no_reference and y.size:
        xs = np.linspace(max(1, y.min()), max(1, y.max()), 200)
        ax.plot(xs, 20 * xs ** 2, color="gray", linestyle="--", linewidth=1,
                label="reference 20·y²")
    ax.set_yscale("symlog", linthresh=1)
    if a.logx:
        ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel("row y")
    ax.set_ylabel("columns (log scale)")
    title = a.title or os.path.basename(a.csv)
    if skipped:
        title += f" ({len(skipped)} undetermined row{'s' if len(skipped) > 1 else ''} skipped)"
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    try:
        fig.savefig(a.output, dpi=a.dpi)
    except (OSError, ValueError) as e:
        raise gd.DataError(f"cannot write {a.output}: {e}") from e
    finally:
        plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    if a.dpi < 10:
        raise gd.DataError(f"--dpi must be at least 10, got {a.dpi}")
    out_dir = os.path.dirname(os.path.abspath(a.output))
    if not os.path.isdir(out_dir):
        raise gd.DataError(f"output directory {out_dir} does not exist")
    data, skipped = read_periods(a.csv)
    if skipped:
        shown = ", ".join(str(r) for r in skipped[:20]) + (", ..." if len(skipped) > 20 else "")
        print(f"note: {len(skipped)} row(s) with undetermined period skipped: {shown}",
              file=sys.stderr)
    if data["row"].size == 0:
        raise gd.DataError(f"{a.csv}: no row with a determined period")
    plot(data, skipped, a)
    print(f"wrote {a.output}: {data['row'].size} rows plotted, {len(skipped)} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(gd.run_main(main))
