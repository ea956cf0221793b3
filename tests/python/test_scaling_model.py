"""scripts/scaling_model.py: the list scheduler checked on graphs worked out by hand, the task
graphs against the program's shapes, and the strip's lag loop found where it binds."""

import importlib.util
import os
import re
import subprocess

import pytest

from conftest import SCRIPTS, run_script

spec = importlib.util.spec_from_file_location("scaling_model", SCRIPTS / "scaling_model.py")
model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(model)


def test_scheduler_on_hand_worked_graphs():
    # A chain of three takes its sum whatever the workers; four independent tasks of 1 take 2
    # on 2 workers; a fork 0 -> (1, 2) -> 3 with costs 1, 2, 3, 1 takes 1 + 3 + 1 on two.
    assert model.simulate([1, 2, 3], [[], [0], [1]], 4)[0] == 6
    assert model.simulate([1, 1, 1, 1], [[], [], [], []], 2)[0] == 2
    assert model.simulate([1, 2, 3, 1], [[], [0], [0], [1, 2]], 2) == (5, 7)
    assert model.critical_path([1, 2, 3, 1], [[], [0], [0], [1, 2]]) == 5
    # Pinned to pools of one worker each: the two tasks of pool 0 run one after another.
    assert model.simulate([1, 1, 1], [[], [], []], 0, [0, 0, 1], [1, 1])[0] == 2


def test_table_graph_has_the_programs_tasks():
    # 4096 / 512 = 8 tiles a side: the 36 tiles on and below the diagonal, the diagonal's half.
    cost, deps = model.table_graph(4096, 512, 1.0, 0.0)
    assert len(cost) == 36
    assert sum(cost) == 4096 * 4096 / 2
    assert all(p < i for i, d in enumerate(deps) for p in d)  # created after what they wait on
    # grundy::default_tile (test_engine.cpp's DefaultTileByThreads)
    assert [model.default_tile(32768, p) for p in (2, 8, 16)] == [512, 512, 256]
    assert model.default_tile(4096, 2) == 512 and model.default_tile(65536, 16) == 512
    assert model.default_tile(16384, 16) == 256 and model.default_tile(4096, 16) == 64


def test_strip_bands_follow_the_program():
    # 2048 rows: 4 bands a thread up to 8 threads, 2 beyond (bands of 64 rows), one band at
    # 256 rows or less per band with one thread; the lag 4096, 2 chunks a thread beyond 8.
    assert [model.strip_bands(2048, p, model.bands_per_thread(2048, p, 0))
            for p in (1, 2, 8, 16)] == [8, 8, 32, 32]
    assert [model.strip_lag(p, 0) for p in (2, 8, 16, 32)] == [4096, 4096, 8192, 16384]
    bands = model.band_rows(2048, 32)
    assert bands[0][0] == 0 and bands[-1][1] == 2048 and len(bands) == 32
    assert sum(model.block_lengths(2048, 1 << 20)) == 1 << 20


def test_lag_loop_binds_on_16_threads_over_64_bands():
    # With 64 bands and a lag of 16 chunks, the lowest band's wait for the highest is a loop
    # through every band: at most 16 tiles in flight, so on 16 threads the block's time is its
    # critical path; a lag of 32 chunks leaves slack.
    cell = 1e-9
    tight = model.strip_block(2048, 65536, 16, 4096, 4, cell, 0.0)
    loose = model.strip_block(2048, 65536, 16, 8192, 4, cell, 0.0)
    assert tight[3] == 64
    assert tight[0] == pytest.approx(tight[2])
    assert loose[2] < 0.7 * loose[0]


@pytest.mark.parametrize("args", [["table", "--tile", "-1"], ["strip", "--threads", "x"],
                                  ["strip", "--lag", "1000"]])
def test_bad_input_exits_2(args):
    r = run_script("scaling_model.py", *args)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1


def test_prints_a_table_per_worker_count():
    r = run_script("scaling_model.py", "table", "--side", "4096", "--threads", "1 2")
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stdout.splitlines() if l.startswith("| 1 ") or l.startswith("| 2 ")]
    assert len(lines) == 2 and "1.00 ×" in lines[0]


def run_with_stats(exe, args, on):
    env = dict(os.environ)
    env.pop("GRUNDY_SCHEDULE_STATS", None)
    if on:
        env["GRUNDY_SCHEDULE_STATS"] = "1"
    return subprocess.run([exe, *args], capture_output=True, text=True, env=env, timeout=120)


def stats_line(stderr, name):
    lines = [l for l in stderr.splitlines() if l.startswith(f"schedule {name}:")]
    assert len(lines) == 1, stderr
    m = re.fullmatch(rf"schedule {name}: (\d+) tasks of ([\d.]+) us on average \(([\d.]+) us of "
                     r"CPU\); busy ([\d.]+) s of ([\d.]+) thread-seconds in (\d+) parallel "
                     r"regions \(([\d.]+)%\)", lines[0])
    assert m, lines[0]
    return [float(g) for g in m.groups()]


def test_schedule_stats_count_the_programs_tasks(grundy_exe, tmp_path):
    # 1024^2 in tiles of 256: 4 x 4 tiles, the 10 on and below the diagonal are tasks.
    table = ["compute", "--rows", "1024", "--cols", "1024", "--tile", "256", "--threads", "2",
             "--no-output"]
    r = run_with_stats(grundy_exe, table, True)
    assert r.returncode == 0, r.stderr
    tasks, mean_us, _, busy, held, regions, share = stats_line(r.stderr, "table")
    assert (tasks, regions) == (10, 1)
    assert busy == pytest.approx(tasks * mean_us * 1e-6, rel=0.01, abs=0.001)  # as printed
    assert 0 < busy <= held * 1.001 and share <= 100.1
    sweep = [l for l in r.stderr.splitlines() if l.startswith("schedule table sweep:")]
    assert len(sweep) == 1, r.stderr
    m = re.fullmatch(r"schedule table sweep: ([\d.]+) us of a task on average \(([\d.]+) us of "
                     r"CPU\)", sweep[0])
    assert m, sweep[0]
    assert 0 < float(m.group(1)) <= mean_us * 1.001
    # Off, nothing is printed.
    assert "schedule" not in run_with_stats(grundy_exe, table, False).stderr
    # The strip on one thread: 64 rows are one band, tiles of at most 256 columns; 1024 columns
    # swept in the search's blocks, every tile timed.
    strip = ["periods", "--rows", "64", "--max-cols", "1024", "--no-blocks", "--threads", "1",
             "-q", "--csv", str(tmp_path / "p.csv")]
    r = run_with_stats(grundy_exe, strip, True)
    assert r.returncode == 3, r.stderr  # not certified within --max-cols
    tasks, mean_us, cpu_us, busy, held, regions, share = stats_line(r.stderr, "strip")
    assert tasks >= 1024 / 256 and regions >= 1
    assert 0 < cpu_us and 0 < busy <= held * 1.001 and share <= 100.1


def test_bench_scaling_measures_beside_the_model(grundy_exe):
    r = run_script("bench_scaling.py", "--threads", "1 2", "--side", "1024", "--rows", "64",
                   "--cols", "4096", "--exe", grundy_exe)
    assert r.returncode == 0, r.stderr
    for title in ("Table 1024²", "Strip 64 rows × 4096 columns"):
        lines = r.stdout.split(title, 1)[1].splitlines()
        rows = [l for l in lines if l.startswith("| 1 |") or l.startswith("| 2 |")][:2]
        assert len(rows) == 2, r.stdout
        cells = [c.strip() for c in rows[0].strip("|").split("|")]
        assert cells[2] == "1.00 ×" and cells[3] == "1.00 ×"  # the first line is the baseline
        assert 0 < float(cells[4]) <= 100.1


def test_bench_scaling_bad_input_exits_2(grundy_exe):
    r = run_script("bench_scaling.py", "--threads", "0", "--exe", grundy_exe)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
