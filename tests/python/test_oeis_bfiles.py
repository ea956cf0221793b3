"""scripts/oeis_bfiles.py against the terms OEIS publishes, on the committed certified rows and
on small hand-written CSVs (both header variants, the unfinished last run, bad input refused
with exit status 2); scripts/compare_periods.py on the same kind of files, and on every pair of
committed results."""

import itertools

import pytest
from conftest import REPO, run_script

# The published terms, as the OEIS entries hold them (data section, %S %T %U lines; each by
# Achim Flammenkamp, from A. Dress, A. Flammenkamp and N. Pink, Additive periodicity of the
# Sprague-Grundy function of certain Nim games, Adv. Appl. Math. 22 (1999) 249-270).
# A046874 "Row/column pre-periods of Sprague-Grundy values of Wythoff's Game", offset 0.
A046874 = [0, 0, 0, 8, 9, 27, 37, 92, 102, 127, 224, 277, 347, 382, 613, 693, 771, 865, 919,
           1032, 1165, 1252, 1293, 1373, 1732, 2208, 2314, 2608, 2889, 3221, 3890, 4422, 4419,
           5614, 6065, 6837, 7116, 8041, 8356, 9208, 10333, 10799, 12518, 13849, 14190, 15844]
# A046875 "Row/column periods of Sprague-Grundy values of Wythoff's Game", offset 0.
A046875 = [1, 3, 3, 6, 12, 24, 12, 24, 24, 24, 24, 48, 48, 96, 96, 96, 192, 192, 384, 384, 384,
           768, 768, 768, 768, 768, 768, 768, 768, 768, 768, 768, 768, 768, 768, 768, 768, 768,
           768, 768, 768, 768, 768, 768, 1536, 1536, 1536, 1536, 1536, 1536, 1536, 1536, 1536,
           1536]
# A046876 "Length of runs in the sequence of row/column periods of Sprague-Grundy values of
# Wythoff's Game (A046875)", offset 1, keyword "more"; comment: a(20) >= 12 (Sean A. Irvine,
# May 02 2021).
A046876 = [1, 2, 1, 1, 1, 1, 4, 2, 3, 2, 3, 23, 24, 3, 20, 18, 84, 25, 43]

# jobs/results/oeis is made from the committed row-periods CSV with the most rows.
COMMITTED_CSV = max((REPO / "jobs" / "results").glob("row-periods-*.csv"),
                    key=lambda p: int(p.stem.rsplit("-", 1)[1]))
COMMITTED_DIR = REPO / "jobs" / "results" / "oeis"
NAMES = ("b046874.txt", "b046875.txt", "b046876.txt")


def read_bfile(path):
    """The (n, a(n)) pairs of a b-file, every line checked to be two integers."""
    pairs = []
    for line in path.read_text(encoding="ascii").splitlines():
        n, value = line.split(" ")
        pairs.append((int(n), int(value)))
    return pairs


def terms(path, offset):
    pairs = read_bfile(path)
    assert [n for n, _ in pairs] == list(range(offset, offset + len(pairs))), path
    return [v for _, v in pairs]


def write(tmp_path, text, name="p.csv"):
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.fixture(scope="module")
def committed(tmp_path_factory):
    out = tmp_path_factory.mktemp("oeis")
    r = run_script("oeis_bfiles.py", COMMITTED_CSV, "-o", out)
    assert r.returncode == 0, r.stderr
    return out


def test_published_terms(committed):
    pre = terms(committed / "b046874.txt", 0)
    per = terms(committed / "b046875.txt", 0)
    runs = terms(committed / "b046876.txt", 1)
    rows = int(COMMITTED_CSV.stem.rsplit("-", 1)[1])
    assert len(pre) == len(per) == rows >= 2048
    assert pre[:len(A046874)] == A046874
    assert per[:len(A046875)] == A046875
    assert runs[:len(A046876)] == A046876
    assert runs[19] >= 12  # the bound OEIS records for a(20)


def test_runs_cover_the_rows_but_the_last_run(committed):
    """A046876 from the periods by another route (a scan for changes), the last run left out."""
    per = terms(committed / "b046875.txt", 0)
    runs = terms(committed / "b046876.txt", 1)
    starts = [0] + [y for y in range(1, len(per)) if per[y] != per[y - 1]]
    assert runs == [b - a for a, b in zip(starts, starts[1:])]
    assert sum(runs) == starts[-1] < len(per)  # rows starts[-1]..: the unfinished run
    for first, length in zip(itertools.accumulate([0] + runs), runs):
        assert len(set(per[first:first + length])) == 1


def test_committed_files_are_current(committed):
    """jobs/results/oeis holds what the script writes from the committed CSV today."""
    for name in NAMES:
        assert (COMMITTED_DIR / name).read_bytes() == (committed / name).read_bytes(), name


@pytest.mark.parametrize("header,fill", [
    ("row,preperiod,period,periods_observed,certified,block", ",1,"),
    ("row,preperiod,period,certified,block", "1,"),
])
def test_small_csv_both_headers(tmp_path, header, fill):
    # Periods 1, 3, 3, 6, 12, 24, 12, 24: runs 1, 2, 1, 1, 1, 1 and an unfinished run of 24.
    rows = [(0, 1), (0, 3), (0, 3), (8, 6), (9, 12), (27, 24), (37, 12), (92, 24)]
    text = header + "\n" + "".join(f"{y},{p},{q},{fill}\n" for y, (p, q) in enumerate(rows))
    out = tmp_path / "out"
    r = run_script("oeis_bfiles.py", write(tmp_path, "# a comment line\n" + text), "-o", out)
    assert r.returncode == 0, r.stderr
    assert (out / "b046874.txt").read_text() == "0 0\n1 0\n2 0\n3 8\n4 9\n5 27\n6 37\n7 92\n"
    assert (out / "b046875.txt").read_text() == "0 1\n1 3\n2 3\n3 6\n4 12\n5 24\n6 12\n7 24\n"
    assert (out / "b046876.txt").read_text() == "1 1\n2 2\n3 1\n4 1\n5 1\n6 1\n"
    assert "n = 1..6 (the run of period 24 from row 7 reaches the last row, 7" in r.stdout


def test_no_complete_run(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "b046876.txt").write_text("1 1\n")  # from an earlier, longer CSV
    r = run_script("oeis_bfiles.py", write(tmp_path, "row,preperiod,period,certified\n0,0,1,1\n"),
                   "-o", out)
    assert r.returncode == 0, r.stderr
    assert (out / "b046875.txt").read_text() == "0 1\n"
    assert not (out / "b046876.txt").exists()


def test_bad_input(tmp_path):
    head = "row,preperiod,period,certified\n"
    cases = {
        "missing": (None, "no such file"),
        "columns": ("row,preperiod\n0,0\n", "missing column(s) period"),
        "uncertain": ("row,preperiod,period,periods_observed,block\n0,0,1,9,\n",
                      "no certified column"),
        "uncertified": (head + "0,0,1,1\n1,0,3,0\n", "row 1 is not certified"),
        "undetermined": (head + "0,0,1,1\n1,,,0\n", "row 1 is not certified"),
        "gap": (head + "0,0,1,1\n2,0,3,1\n", "row 2 where row 1 was expected"),
        "number": (head + "0,0,x,1\n", ":2: column period"),
        "negative": (head + "0,-1,1,1\n", "column preperiod"),
        "half": (head + "0,0,,1\n", "both be set"),
        "empty": (head, "no rows"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / f"{name}.csv"
        if text is not None:
            path.write_text(text)
        r = run_script("oeis_bfiles.py", path, "-o", tmp_path / name)
        assert r.returncode == 2 and message in r.stderr, (name, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, name
        assert not (tmp_path / name).exists(), name  # nothing written


def test_compare_periods(tmp_path):
    new = write(tmp_path, "row,preperiod,period,periods_observed,certified,block\n"
                "0,0,1,,1,\n1,0,3,,1,\n2,0,3,,1,\n", "new.csv")
    old = write(tmp_path, "row,preperiod,period,certified,block\n0,0,1,1,0\n1,0,3,1,3 3 0\n",
                "old.csv")
    r = run_script("compare_periods.py", old, new)
    assert r.returncode == 0 and "rows 0..1 identical" in r.stdout, r.stdout + r.stderr
    r = run_script("compare_periods.py", old, new, "--rows", 3)
    assert r.returncode == 2 and "2 rows, fewer than --rows 3" in r.stderr
    other = write(tmp_path, "row,preperiod,period,certified\n0,0,1,1\n1,1,3,1\n", "other.csv")
    r = run_script("compare_periods.py", old, other)
    assert r.returncode == 1
    assert "row 1: preperiod 0, period 3, certified 1 in" in r.stdout
    assert "preperiod 1, period 3, certified 1 in" in r.stdout
    assert "1 of rows 0..1 differ" in r.stdout
    uncertified = write(tmp_path, "row,preperiod,period,certified\n0,0,1,1\n1,0,3,0\n", "u.csv")
    assert run_script("compare_periods.py", old, uncertified).returncode == 1


# Every committed result, smallest first: each is an independent run (or a certified prefix of
# one), so any two must agree on the rows they share, and each must be certified throughout.
COMMITTED_RESULTS = sorted((REPO / "jobs" / "results").glob("row-periods-*.csv"),
                           key=lambda p: int(p.stem.rsplit("-", 1)[1]))


def test_committed_results_agree_on_the_rows_they_share():
    assert len(COMMITTED_RESULTS) >= 4
    for path in COMMITTED_RESULTS:
        rows = int(path.stem.rsplit("-", 1)[1])
        lines = path.read_text().splitlines()
        header = lines[0].split(",")
        cert = header.index("certified")
        data = [line.split(",") for line in lines[1:] if not line.startswith("#")]
        assert [int(f[0]) for f in data] == list(range(rows)), path.name
        assert all(f[cert] == "1" for f in data), path.name + ": a row not certified"
    for small, large in itertools.combinations(COMMITTED_RESULTS, 2):
        r = run_script("compare_periods.py", small, large)
        assert r.returncode == 0, (small.name, large.name, r.stdout)
        rows = int(small.stem.rsplit("-", 1)[1])
        assert f"rows 0..{rows - 1} identical" in r.stdout, r.stdout
