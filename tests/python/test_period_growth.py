"""scripts/period_growth.py: the running maximum of the period and where it grows, and the
preperiod's growth exponent per octave of rows, checked against values worked out by hand here
and against the published run lengths of A046876 on the committed certified rows."""

import math

import pytest

from conftest import REPO, run_script


def table(out, header):
    """The data lines of the Markdown table that follows `header`, as lists of cells."""
    lines = out.splitlines()
    start = lines.index(header) + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


PERIOD_HEADER = "| row | largest period so far | rows under it |"
OCTAVE_HEADER = "| rows | largest preperiod at the first | at the last | growth exponent |"


def test_small_csv_worked_by_hand(tmp_path):
    # Rows 0..7: periods 1 3 3 6 12 24 12 24, preperiods 0 0 0 8 9 27 37 92 (OEIS' first terms).
    csv = tmp_path / "p.csv"
    periods = [1, 3, 3, 6, 12, 24, 12, 24]
    pre = [0, 0, 0, 8, 9, 27, 37, 92]
    csv.write_text("row,preperiod,period,certified,block\n" +
                   "".join(f"{y},{pre[y]},{periods[y]},1,\n" for y in range(8)))
    r = run_script("period_growth.py", csv)
    assert r.returncode == 0, r.stderr
    # The maximum grows at rows 0, 1, 3, 4, 5; the last run (rows 5..7) may go on above.
    assert table(r.stdout, PERIOD_HEADER) == [
        ["0", "1", "1"], ["1", "3", "2"], ["3", "6", "1"], ["4", "12", "1"], ["5", "24", "3+"]]
    octaves = table(r.stdout, OCTAVE_HEADER)
    # Octave 1..3 starts at a preperiod of 0: no exponent; 3..7: log(92 / 8) / log(7 / 3).
    assert octaves[0] == ["1..3", "0", "8", "-"]
    assert octaves[1][:3] == ["3..7", "8", "92"]
    assert float(octaves[1][3]) == round(math.log(92 / 8) / math.log(7 / 3), 2)
    assert len(octaves) == 2  # 7..15 is not whole in 8 rows


@pytest.mark.parametrize("rows, last_run", [(2048, "394+"), (4096, "2442+"), (4172, "2518+")])
def test_committed_rows_give_the_runs_of_the_largest_period(rows, last_run):
    csv = REPO / "jobs" / "results" / f"row-periods-{rows}.csv"
    r = run_script("period_growth.py", csv)
    assert r.returncode == 0, r.stderr
    steps = table(r.stdout, PERIOD_HEADER)
    # Every step doubles the maximum from row 1 on, and the steps' rows are where the running
    # maximum of the committed periods grows (computed again here, independently).
    periods = [int(line.split(",")[2]) for line in csv.read_text().splitlines()[1:]]
    expected, best = [], 0
    for y, p in enumerate(periods):
        if p > best:
            expected.append((y, p))
            best = p
    assert [(int(s[0]), int(s[1])) for s in steps] == expected
    assert all(int(b[1]) == 2 * int(a[1]) for a, b in zip(steps[2:], steps[3:]))
    assert steps[-1] == ["1654", "786432", last_run]


def test_undetermined_row_or_missing_file_exit_2(tmp_path):
    csv = tmp_path / "p.csv"
    csv.write_text("row,preperiod,period\n0,0,1\n1,,\n")
    r = run_script("period_growth.py", csv)
    assert r.returncode == 2
    assert "row 1 has no determined period" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = run_script("period_growth.py", tmp_path / "none.csv")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
