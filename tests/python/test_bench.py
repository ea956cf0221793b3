"""scripts/bench on a tiny table: besides the engine clocks, it reports the whole run with
output against the whole run without (the processes as a user times them), in the table and in
every alternated round."""

import re
import subprocess

from conftest import REPO


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
    with_output, without, ratio = (float(c) for c in cells[-3:])
    assert with_output > 0 and without > 0
    assert abs(ratio - with_output / without) < 0.01 + 0.01 * ratio


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
