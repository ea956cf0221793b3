"""scripts/eta_check.py: the ETAs of a finished run's progress logs against the running time that
was left, over pieces with gaps between them; bad logs give exit status 2 and one line."""

import subprocess

from conftest import run_script

LINE = ("{t} phase 1/2: column {col} (10.00 k col/s), rows 0..{rows} settled, certificate "
        "expected near column 2.00 M, ETA {eta}\n")


def write_pieces(tmp_path):
    """Two pieces of 100 s each, an hour apart: the gap is not running time."""
    first = tmp_path / "piece1.log"
    first.write_text(
        "starting a run\n"
        + LINE.format(t="2026-11-29T10:00:00Z", col="1.00 k", rows=0, eta="unknown")
        + LINE.format(t="2026-11-29T10:00:50Z", col="500.00 k", rows=40, eta="150 s")
        + "2026-11-29T10:00:55Z a line of another kind\n"
        + LINE.format(t="2026-11-29T10:01:40Z", col="1.00 M", rows=60,
                      eta="100 s, checkpoint at column 1.00 M"))
    second = tmp_path / "piece2.log"
    second.write_text(
        "2026-11-29T11:00:01Z starting (allocating, reading the checkpoint)\n"
        + LINE.format(t="2026-11-29T11:00:01Z", col="1.00 M", rows=60, eta="unknown")
        + LINE.format(t="2026-11-29T11:00:51Z", col="1.50 M", rows=80, eta="40 s")
        + LINE.format(t="2026-11-29T11:01:41Z", col="2.10 M", rows=99, eta="unknown")
        + "certified rows 0..99\n")
    return first, second


def test_shown_against_left_over_pieces(tmp_path):
    first, second = write_pieces(tmp_path)
    r = run_script("eta_check.py", first, second, "--points", "3")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "2 piece(s), 3.3 min of running time to the end of phase 1 (column 2.1e+06)"
    rows = [line.split() for line in lines[2:]]
    # At 50 s, 100 s and 150 s of running time: 150 s, 100 s and 50 s were left.
    assert rows == [
        ["25%", "2.5", "min", "2.5", "min", "1.00", "0..40", "0.95"],
        ["50%", "1.7", "min", "1.7", "min", "1.00", "0..60", "0.95"],
        ["75%", "40", "s", "50", "s", "0.80", "0..80", "0.95"],
    ], r.stdout


def test_work_lost_to_a_kill_is_not_counted(tmp_path):
    # Piece 1 was killed at column 2.00 M, but its last checkpoint was at 1.50 M, where piece 2
    # resumed: its 50 s from 1.50 M to 2.00 M were swept again, and are not running time.
    first = tmp_path / "piece1.log"
    first.write_text(
        LINE.format(t="2026-11-29T10:00:00Z", col="0", rows=0, eta="unknown")
        + LINE.format(t="2026-11-29T10:01:40Z", col="1.00 M", rows=60, eta="100 s")
        + LINE.format(t="2026-11-29T10:03:20Z", col="2.00 M", rows=70, eta="10 s"))
    second = tmp_path / "piece2.log"
    second.write_text(
        LINE.format(t="2026-11-29T12:00:00Z", col="1.50 M", rows=65, eta="unknown")
        + LINE.format(t="2026-11-29T12:00:50Z", col="2.00 M", rows=99, eta="unknown"))
    r = run_script("eta_check.py", first, second, "--points", "1")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "2 piece(s), 3.3 min of running time to the end of phase 1 (column 2e+06)"
    assert lines[2].split() == ["50%", "1.7", "min", "1.7", "min", "1.00", "0..60", "1.00"], \
        r.stdout


def test_a_pause_is_not_running_time(tmp_path):
    # A line every 10 s, and 300 s with none while the run was stopped (SIGSTOP): 70 s of
    # running time in all, 50 s of them after the line that says 50 s.
    times = ["10:00:00", "10:00:10", "10:00:20", "10:00:30", "10:00:40", "10:05:40", "10:05:50",
             "10:06:00"]
    log = tmp_path / "paused.log"
    log.write_text("".join(
        LINE.format(t=f"2026-11-29T{t}Z", col=f"{i + 1}.00 M", rows=i, eta="50 s" if i == 2
                    else "unknown") for i, t in enumerate(times)))
    r = run_script("eta_check.py", log, "--points", "1")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("1 piece(s), 1.2 min of running time"), r.stdout  # 70 s
    assert lines[2].split()[:6] == ["29%", "50", "s", "50", "s", "1.00"], r.stdout


def test_a_real_log(grundy_exe, tmp_path):
    log = tmp_path / "run.log"
    with open(log, "w") as err:
        done = subprocess.run([grundy_exe, "periods", "--rows", "100", "--test-delay-us", "300000",
                               "--progress", "--progress-every", "0.25", "--csv",
                               str(tmp_path / "p.csv"), "--checkpoint", str(tmp_path / "c.ckpt"),
                               "--checkpoint-every", "0"], stderr=err, timeout=120)
    assert done.returncode == 0
    r = run_script("eta_check.py", log)
    assert r.returncode == 0, r.stderr
    # (The format is the binary's own, checkpoint column and all: a line it did not understand
    # would leave none.)
    assert r.stdout.startswith("1 piece(s), "), r.stdout


def test_bad_logs(tmp_path):
    first, _ = write_pieces(tmp_path)
    plain = tmp_path / "plain.log"
    plain.write_text("\rphase 1/2: column 1 (0 col/s), rows 0..0 settled\n")
    backwards = tmp_path / "backwards.log"
    backwards.write_text(first.read_text().replace("10:01:40", "09:01:40"))
    garbled = tmp_path / "garbled.log"
    garbled.write_text(LINE.format(t="2026-11-29T10:00:00Z", col="1.00 k", rows=0, eta="soon"))
    for path, message in ((tmp_path / "none.log", "No such file"),
                          (plain, "no stamped progress line"),
                          (backwards, "the times go backwards"),
                          (garbled, "a progress line not understood")):
        r = run_script("eta_check.py", path)
        assert r.returncode == 2, (path, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and message in lines[0] and path.name in lines[0], r.stderr
    r = run_script("eta_check.py", first, "--points", "0")
    assert r.returncode == 2 and "--points must be at least 1" in r.stderr


def test_lines_naming_rows_that_repeat_past_the_ring(tmp_path):
    # A run whose period grew past its ring says so in its lines; they are read all the same.
    repeat = ("rows 0..{rows} settled, rows 0..70 repeat with period 196608, which the ring cannot "
              "hold (phase 2 gives their preperiods), certificate")
    log = tmp_path / "run.log"
    log.write_text(
        LINE.format(t="2026-11-29T10:00:00Z", col="0", rows=0, eta="unknown")
        + LINE.format(t="2026-11-29T10:01:40Z", col="1.00 M", rows=60,
                      eta="100 s").replace("rows 0..60 settled, certificate",
                                           repeat.format(rows=60))
        + LINE.format(t="2026-11-29T10:03:20Z", col="2.00 M", rows=60,
                      eta="unknown").replace("rows 0..60 settled, certificate",
                                             repeat.format(rows=60)))
    assert "repeat with period" in log.read_text()
    r = run_script("eta_check.py", log, "--points", "1")
    assert r.returncode == 0, r.stderr
    assert "3.3 min of running time to the end of phase 1 (column 2e+06)" in r.stdout, r.stdout
    rows = [line.split() for line in r.stdout.splitlines()[2:]]
    assert rows == [["50%", "1.7", "min", "1.7", "min", "1.00", "0..60", "1.00"]], r.stdout
