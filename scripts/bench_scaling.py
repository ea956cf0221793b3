#!/usr/bin/env python3
"""scripts/bench_scaling.py: the table and the strip on 1..N threads, measured beside the scaling
model's prediction (scripts/scaling_model.py), for docs/benchmarks.md "Scaling beyond 2 cores".

    scripts/bench_scaling.py [--threads "1 2 4 8 16"] [--side 32768] [--rows 2048]
                             [--cols 1048576] [--task-us 35] [--exe build/grundy]

Runs `grundy compute --rows S --cols S --no-output` and `grundy periods --rows Y --max-cols C
--no-blocks` on each thread count with GRUNDY_SCHEDULE_STATS=1, and prints one Markdown table
per schedule: wall seconds, speed-up over the first thread count, the threads' busy share, a
task's mean wall and CPU time (what handing tiles between cores costs shows in the CPU time), and
the model's speed-up for the same shape, its per-cell cost taken from the first run. Build first
(scripts/setup.sh: grundy_release grundy); run on an otherwise idle machine.
"""
import argparse
import importlib.util
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("scaling_model", HERE / "scaling_model.py")
model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(model)

STATS = re.compile(r"schedule (\w+): (\d+) tasks of ([\d.]+) us on average \(([\d.]+) us of "
                   r"CPU\); busy ([\d.]+) s of ([\d.]+) thread-seconds in (\d+) parallel "
                   r"regions \(([\d.]+)%\)")


def die(message):
    print(f"scripts/bench_scaling.py: {message}", file=sys.stderr)
    sys.exit(2)


def run(exe, args, ok):
    """Seconds of wall time and the schedule's figures of one run."""
    env = dict(os.environ, GRUNDY_SCHEDULE_STATS="1")
    start = time.monotonic()
    r = subprocess.run([exe, *args], capture_output=True, text=True, env=env)
    seconds = time.monotonic() - start
    if r.returncode not in ok:
        die(f"{' '.join(args)} exited with {r.returncode}: {r.stderr.strip()[-300:]}")
    m = STATS.search(r.stderr)
    if not m:
        die(f"no schedule figures from {' '.join(args)}")
    return seconds, m


def speed_ups(rows):
    """The model's seconds (each row's last entry) as speed-ups over the first row's."""
    first = rows[0][-1]
    for row in rows:
        row[-1] = first / row[-1]


def table(title, rows):
    print(f"\n{title}\n")
    print("| threads | wall s | speed-up | model | busy % | task µs | task CPU µs |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    base = rows[0][1]
    for p, seconds, m, predicted in rows:
        print(f"| {p} | {seconds:.2f} | {base / seconds:.2f} × | {predicted:.2f} × | {m[8]} | "
              f"{float(m[3]):.0f} | {float(m[4]):.0f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", default="1 2 4 8 16")
    ap.add_argument("--side", type=int, default=32768)
    ap.add_argument("--rows", type=int, default=2048)
    ap.add_argument("--cols", type=int, default=1 << 20)
    ap.add_argument("--task-us", type=float, default=35.0)
    ap.add_argument("--exe", default=str(HERE.parent / "build" / "grundy"))
    a = ap.parse_args()
    try:
        threads = [int(t) for t in a.threads.split()]
    except ValueError:
        threads = []
    if not threads or min(threads) < 1:
        die(f"--threads needs positive whole numbers, got '{a.threads}'")
    if min(a.side, a.rows, a.cols) < 1 or a.task_us < 0:
        die("--side, --rows and --cols must be positive, --task-us not negative")
    if not os.access(a.exe, os.X_OK):
        die(f"no grundy executable at {a.exe} (build it: scripts/setup.sh, grundy_release grundy)")
    task_s = a.task_us * 1e-6

    out = []
    for p in threads:
        seconds, m = run(a.exe, ["compute", "--rows", str(a.side), "--cols", str(a.side),
                                 "--no-output", "--threads", str(p)], (0,))
        out.append([p, seconds, m])
    cell_s = out[0][1] * threads[0] / (a.side * a.side / 2)
    for row in out:
        cost, deps = model.table_graph(a.side, model.default_tile(a.side, row[0]), cell_s, 0.0)
        row.append(model.simulate(cost, deps, row[0])[0])
    speed_ups(out)
    table(f"Table {a.side}², --no-output", out)

    out = []
    for p in threads:
        seconds, m = run(a.exe, ["periods", "--rows", str(a.rows), "--max-cols", str(a.cols),
                                 "--no-blocks", "--threads", str(p), "-q", "--csv", os.devnull],
                         (0, 3))
        out.append([p, seconds, m])
    cell_s = out[0][1] * threads[0] / (a.rows * a.cols)
    for row in out:
        row.append(model.strip_run(a.rows, a.cols, row[0], 0, 0, cell_s, task_s)[0])
    speed_ups(out)
    table(f"Strip {a.rows} rows × {a.cols} columns, --no-blocks (model: --task-us {a.task_us:g})",
          out)


if __name__ == "__main__":
    main()
