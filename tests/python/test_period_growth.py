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
DROP_HEADER = "| row | preperiod | the row below's |"


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
    assert len(octaves) == 2  # rows 0..7 end an octave: no part of the next one
    assert table(r.stdout, DROP_HEADER) == []  # these preperiods never fall


def test_part_of_an_octave_and_the_drops(tmp_path):
    # Rows 0..10: the octave 7..15 is cut at row 10; the preperiod falls at rows 6 and 9.
    csv = tmp_path / "p.csv"
    pre = [0, 0, 0, 8, 9, 27, 20, 92, 100, 95, 700]
    csv.write_text("row,preperiod,period\n" +
                   "".join(f"{y},{pre[y]},{3 if y else 1}\n" for y in range(len(pre))))
    r = run_script("period_growth.py", csv)
    assert r.returncode == 0, r.stderr
    octaves = table(r.stdout, OCTAVE_HEADER)
    assert [o[0] for o in octaves] == ["1..3", "3..7", "7..10 (so far)"]
    # M(7) = 92, M(10) = 700: the running maximum, not the row's own preperiod.
    assert octaves[2][1:3] == ["92", "700"]
    assert float(octaves[2][3]) == round(math.log(700 / 92) / math.log(10 / 7), 2)
    assert table(r.stdout, DROP_HEADER) == [["6", "20", "27"], ["9", "95", "100"]]


@pytest.mark.parametrize("rows, last_step", [
    (2048, ["1654", "786432", "394+"]),
    (4096, ["1654", "786432", "2442+"]),
    (4172, ["1654", "786432", "2518+"]),
    (6144, ["4172", "1572864", "1972+"]),
])
def test_committed_rows_give_the_runs_of_the_largest_period(rows, last_step):
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
    assert steps[-1] == last_step
    # The rows whose preperiod falls, found again here; rows 32, 1930 and 3126 are those that
    # README and docs/results.md name (none falls in rows 4096..6143).
    pre = [int(line.split(",")[1]) for line in csv.read_text().splitlines()[1:]]
    falls = [[str(y), str(pre[y]), str(pre[y - 1])] for y in range(1, rows) if pre[y] < pre[y - 1]]
    assert table(r.stdout, DROP_HEADER) == falls
    named = [y for y in (32, 1930, 3126) if y < rows]
    assert [int(f[0]) for f in falls] == named


def test_undetermined_row_or_missing_file_exit_2(tmp_path):
    csv = tmp_path / "p.csv"
    csv.write_text("row,preperiod,period\n0,0,1\n1,,\n")
    r = run_script("period_growth.py", csv)
    assert r.returncode == 2
    assert "row 1 has no determined period" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = run_script("period_growth.py", tmp_path / "none.csv")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
