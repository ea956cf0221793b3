"""The Python module's certified row periods (grundy.certify_row_periods, `grundy periods`):
against the row periods of a stored table and the committed results, runs stopped at max_cols
with their rows certified so far, and compact checkpoints resumed.

scripts/test puts build/python on PYTHONPATH and sets GRUNDY_REQUIRE_MODULE=1, so a module that
does not build or import fails the run; elsewhere these tests are skipped without it.
"""

import h5py
import numpy as np
import pytest

from conftest import certified_prefix, committed_rows, import_grundy

grundy = import_grundy()


def test_certified_rows_equal_the_row_periods_of_an_array():
    cert = grundy.certify_row_periods(24, threads=2)
    assert cert.certified and cert.status == "certified" and len(cert.rows) == 24
    periods = grundy.row_periods(grundy.table(24, 8192))
    for c, p in zip(cert.rows, periods):
        assert (c.row, c.preperiod, c.period) == (p.row, p.preperiod, p.period)
        assert c.block.tolist() == p.block.tolist()
        assert type(c) is type(p) and c.block.dtype == p.block.dtype == np.uint32
        assert c.certified and c.determined and c.periods_observed is None


def test_certification_gives_up_after_max_cols_and_checkpoints(tmp_path):
    assert grundy.certify_row_periods(24, max_cols=100).status == "not_certified"
    path = tmp_path / "strip.ckpt"
    first = grundy.certify_row_periods(8, checkpoint=path)
    assert first.certified and [r.period for r in first.rows[:5]] == [1, 3, 3, 6, 12]


def test_compact_checkpoints_resume_to_the_same_rows(tmp_path):
    """A run stopped at max_cols with compact checkpoints (no ring in the file), then resumed
    twice: the file is a small fraction of the ring (100 rows x 24576 columns x 2 bytes), and
    the rows are those of a run that never stopped."""
    whole = grundy.certify_row_periods(100, threads=2)
    path = tmp_path / "strip.ckpt"
    for stop in (70000, 140000):
        cert = grundy.certify_row_periods(100, threads=2, checkpoint=path, max_cols=stop,
                                          compact_checkpoints=True)
        assert cert.status == "not_certified"
        assert path.stat().st_size < 100 * 24576 * 2 // 100
    resumed = grundy.certify_row_periods(100, threads=2, checkpoint=path,
                                         compact_checkpoints=True)
    assert resumed.certified and (resumed.x0, resumed.period) == (whole.x0, whole.period)
    assert [(r.preperiod, r.period) for r in resumed.rows] == \
        [(r.preperiod, r.period) for r in whole.rows]
    with pytest.raises(ValueError, match="compact_checkpoints"):
        grundy.certify_row_periods(8, compact_checkpoints=True)


def test_stopped_certification_keeps_the_settled_rows(tmp_path):
    # Stopped at max_cols: the rows that settled, certified, in the result and in the files.
    csv, h5 = tmp_path / "p.csv", tmp_path / "p.h5"
    cert = grundy.certify_row_periods(160, threads=2, max_cols=250000, csv=csv, output=h5)
    assert cert.status == "not_certified" and not cert.certified
    assert (cert.rows_asked, cert.phase, cert.column) == (160, 1, 250000)
    k = len(cert.rows)
    assert 30 <= k < 160
    assert all(r.certified for r in cert.rows)
    assert [(r.row, r.preperiod, r.period) for r in cert.rows] == committed_rows(k)
    assert f"{k} of 160 rows certified" in repr(cert)
    # The ring (1 GiB by default) holds every period these rows have: none repeat past it.
    assert (cert.repeating_rows, cert.repeating_period) == (0, 0)
    assert cert.repeating_too_long_for is None
    assert certified_prefix(csv, 160) == k
    with h5py.File(h5, "r") as f:
        assert f.attrs["complete"] == 0
        group = f["analysis/row_periods"]
        assert group.attrs["certified_rows"] == k
        assert "repeating_rows" not in group.attrs and "repeating_period" not in group.attrs
    # An existing output is not overwritten without force (no checkpoint to resume from).
    with pytest.raises(FileExistsError, match="exists"):
        grundy.certify_row_periods(8, output=h5)
    assert grundy.certify_row_periods(8, output=h5, force=True).certified
