"""scripts/bench on a tiny table: besides the engine clocks, it reports the whole run with
output against the whole run without (the processes as a user times them), in the table and in
every alternated round, with the time a virtual machine's host took from each of those runs and
what a tile's sweep and the rest of its task took in each."""

import os
import re
import shutil
import subprocess
from pathlib import Path

from conftest import PYTHON, REPO


def test_bench_reports_whole_run_ratio():
    r = subprocess.run([str(REPO / "scripts" / "bench"), "--threads", "2", "--alternate", "1",
                        "512"], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "| 512 | 2 | grundy compute --no-output (whole run) |" in out, out
    assert re.search(r"\(whole run, [0-9.]+ x the whole run without output, peak RSS", out), out
    rounds = [line for line in out.splitlines() if line.startswith("| 1 |")]
    assert len(rounds) == 1, out
    cells = [c.strip() for c in rounds[0].strip("|").split("|")]
    with_output, without, ratio = (float(c) for c in cells[-6:-3])
    assert with_output > 0 and without > 0
    assert abs(ratio - with_output / without) < 0.01 + 0.01 * ratio
    # The host's steal during each of the two runs: seconds of all the cores, never more than
    # the run took on every one of them.
    steal = [float(c) for c in cells[-3].split(",")]
    cores = os.cpu_count() or 1
    assert len(steal) == 2 and all(s >= 0 for s in steal), cells
    assert steal[0] <= cores * with_output + 0.02 and steal[1] <= cores * without + 0.02, cells
    # A tile's CPU in those runs (GRUNDY_SCHEDULE_STATS): the sweep with and without output, and
    # what the run with output did besides: µs that fit in the whole runs' time on every core.
    sweeps = [int(c) for c in cells[-2].split(",")]
    rest = int(cells[-1])
    assert len(sweeps) == 2, cells
    assert 0 < sweeps[0] <= cores * with_output * 1e6 and 0 < sweeps[1] <= cores * without * 1e6, \
        cells
    assert 0 < rest <= cores * with_output * 1e6, cells


def test_bench_against_refuses_an_unknown_revision():
    # Checked before anything is installed, checked out or built.
    r = subprocess.run([str(REPO / "scripts" / "bench"), "--against", "no-such-revision-here"],
                       cwd=REPO, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [
        "scripts/bench: 'no-such-revision-here' is not a git revision here"], r.stderr
    assert r.stdout == ""


def test_bench_against_refuses_unknown_options():
    r = subprocess.run([str(REPO / "scripts" / "bench"), "--against", "HEAD", "--bogus"],
                       cwd=REPO, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "unknown option --bogus" in r.stderr


def bench_strip(*args, timeout=300):
    return subprocess.run([str(REPO / "scripts" / "bench_strip"), *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout)


def test_bench_strip_table_is_consistent():
    """One line per thread count (and per rank count where mpirun is installed), each line's
    columns per second and speed-up computed from its own wall time, its CPU time measured (the
    exit status 3 of a strip stopped at --max-cols is the expected end, not a failure)."""
    cols, rows = 65536, 160
    ranks = ["--ranks", "2"] if shutil.which("mpirun") else []
    r = bench_strip("--rows", rows, "--cols", cols, "--threads", "1 2", *ranks)
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stdout.splitlines() if re.match(r"\| \d+ \| ", line)]
    layouts = ["1 process x 1 thread(s)", "1 process x 2 thread(s)"]
    if ranks:
        layouts.append("2 rank(s) x 1 thread")
    assert [line.split("|")[2].strip() for line in lines] == layouts, r.stdout
    first = None
    for line in lines:
        cells = [c.strip() for c in line.strip("|").split("|")]
        wall, kcols, speedup = float(cells[2]), float(cells[3]), float(cells[4].rstrip(" x"))
        cpu, ns = float(cells[5]), float(cells[6])
        assert wall > 0 and cpu > 0, line
        assert abs(ns - cpu * 1e9 / (cols * rows)) <= 0.05 * ns + 0.1, line
        first = first or wall
        assert abs(kcols - cols / wall / 1000) <= 0.03 * kcols + 0.1, line
        assert abs(speedup - first / wall) <= 0.03 * speedup + 0.01, line


def test_bench_strip_against_the_table():
    """--against-table R: R rounds, each ratio the quotient of its own round's strip and table
    figures (wall, user + system, user), then their medians over the rounds."""
    r = bench_strip("--rows", 160, "--cols", 65536, "--threads", "2", "--against-table", 3)
    assert r.returncode == 0, r.stderr
    rounds = [line for line in r.stdout.splitlines() if re.match(r"\| \d+ \| ", line)]
    assert len(rounds) == 3, r.stdout
    found = {"wall": [], "cpu": [], "user": []}
    for line in rounds:
        cells = [c.strip() for c in line.strip("|").split("|")]
        table_s, strip_s = float(cells[1]), float(cells[2])
        (table_cpu, table_user), (strip_cpu, strip_user) = (
            map(float, re.match(r"([\d.]+) \(([\d.]+) \+ [\d.]+\)$", c).groups())
            for c in (cells[4], cells[5]))
        assert table_s > 0 and strip_s > 0 and strip_cpu > 0, line
        for key, ratio, (a, b) in (("wall", cells[3], (table_s, strip_s)),
                                   ("cpu", cells[6], (table_cpu, strip_cpu)),
                                   ("user", cells[7], (table_user, strip_user))):
            if a > 0:  # the figures are rounded to 10 ms, the ratios computed before that
                assert abs(float(ratio) - b / a) <= 0.02 * b / a + 0.01 / a, (key, line)
                found[key].append(float(ratio))
            else:
                assert ratio == "n/a", line
    median = next(line for line in r.stdout.splitlines() if line.startswith("| median"))
    cells = [c.strip() for c in median.strip("|").split("|")]
    for key, cell in (("wall", cells[3]), ("cpu", cells[6]), ("user", cells[7])):
        m, lo, hi = map(float, re.match(r"\*\*([\d.]+)\*\* \(([\d.]+)-([\d.]+)\)$", cell).groups())
        values = sorted(found[key])
        assert (lo, hi) == (values[0], values[-1]), (key, median)
        assert m == values[len(values) // 2] or len(values) % 2 == 0, (key, median)


def test_bench_strip_refuses_bad_numbers():
    for args in (["--rows", "0"], ["--threads", "two"], ["--bogus"], ["--against-table", "0"],
                 ["--against-table", "x"]):
        r = bench_strip(*args, timeout=60)
        assert r.returncode == 2, (args, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert r.stdout == ""


def test_bench_view_makes_its_folder(tmp_path, grundy_exe):
    # --dir names a folder that does not exist yet: the script makes it and leaves it empty.
    d = tmp_path / "new" / "folder"
    r = subprocess.run([PYTHON, str(REPO / "scripts" / "bench_view.py"), "--size", "64",
                        "--rounds", "1", "--compute-only", "--dir", str(d)],
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, GRUNDY_EXE=grundy_exe))
    assert r.returncode == 0, r.stderr
    assert "median ratio" in r.stdout, r.stdout
    assert d.is_dir() and not any(d.iterdir())


def test_bench_view_opens_a_stored_table_and_leaves_it(tmp_path, grundy_exe):
    # --table: a table and pyramid already there, opened from a cold page cache, kept as they were.
    table = tmp_path / "t.h5"
    subprocess.run([grundy_exe, "compute", "--rows", "64", "--cols", "4096", "-o", str(table),
                    "--quiet"], check=True)
    before = table.read_bytes(), Path(f"{table}.pyramid").read_bytes()
    r = subprocess.run([PYTHON, str(REPO / "scripts" / "bench_view.py"), "--table", str(table),
                        "--cold", "--rounds", "2", "--tiles", "1"],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, GRUNDY_EXE=grundy_exe))
    assert r.returncode == 0, r.stderr
    assert "open: median" in r.stdout and "zoom  -4" in r.stdout, r.stdout
    assert "compute" not in r.stdout, r.stdout
    assert (table.read_bytes(), Path(f"{table}.pyramid").read_bytes()) == before


def test_bench_view_says_in_one_line_what_is_wrong(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    cases = [
        (["--dir", str(blocker / "sub")], "cannot make the folder"),
        (["--rounds", "0"], "--rounds must be at least 1"),
        (["--cold"], "--cold needs --table"),
        (["--table", str(tmp_path / "none.h5")], "no table"),
    ]
    for args, message in cases:
        r = subprocess.run([PYTHON, str(REPO / "scripts" / "bench_view.py"), *args],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, (args, r.stderr)
        assert message in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)


def test_bench_output_parts_times_each_sink_and_refuses_bad_arguments(grundy_exe):
    tool = Path(grundy_exe).parent / "grundy_bench_output_parts"
    for sink in ("none", "encode", "pyramid", "both"):
        r = subprocess.run([str(tool), "1024", sink, "2"], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        name, side, seconds = r.stdout.split()
        assert (name, side) == (sink, "1024") and float(seconds) > 0, r.stdout
    for bad in (["1024", "file"], ["0", "none"], ["12x", "none"], ["1024"]):
        r = subprocess.run([str(tool), *bad], capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and r.stderr.startswith("usage:"), (bad, r.stderr)


def test_bench_planes_times_each_code_and_refuses_bad_arguments(grundy_exe):
    tool = Path(grundy_exe).parent / "grundy_bench_planes"
    r = subprocess.run([str(tool), "64", "5"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = [line.split() for line in r.stdout.splitlines()]
    has_avx2 = " avx2 " in f" {Path('/proc/cpuinfo').read_text()} "
    names = ["portable"] + (["avx2"] if has_avx2 else []) + ["best"]
    assert [line[0] for line in lines] == names, r.stdout
    assert all(line[1] == "64" and float(line[2]) > 0 for line in lines), r.stdout
    for bad in (["8"], ["64", "0"], ["6x"], ["64", "5", "1"]):
        r = subprocess.run([str(tool), *bad], capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and r.stderr.startswith("usage:"), (bad, r.stderr)
