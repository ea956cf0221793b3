#!/usr/bin/env python3
"""scripts/bench_view.py [--size N | --table F.h5 [--cold]] [--rounds R] [--tiles T] [--dir D]
[--nice K]: the targets of `grundy view` (docs/viewer.md, "Speed") on an N x N table (default
32768), or on the stored table F.h5 and its pyramid (1 left out; nothing written or removed):

1. compute with the pyramid against --no-pyramid, whole runs alternated R times (A B A B ...),
   each ratio from two runs seconds apart; prints every round and the median, of the wall time
   and of the CPU time (user + system: on a busy machine the steadier of the two);
2. opening the table (process start to the first answer of /info), R times; with --cold, the
   table's and the pyramid's pages dropped from the page cache before each (POSIX_FADV_DONTNEED
   on those two files only: a disk read, as on a table not opened for a while);
3. tile latency at every zoom, from the whole table down to one cell: T tiles per zoom at random
   places, each asked once on a fresh server (a cold chunk cache), one request at a time;
   prints the median and the largest per zoom, of the wall time and of the server's CPU time
   (user + system, all its threads: on a busy machine the wall time is mostly waiting).

Uses build/grundy (or $GRUNDY_EXE). The table and its pyramid are written to D (default /tmp),
which is created if it does not exist, and removed at the end. Bad options, a folder that
cannot be made or a missing program: one line on stderr, exit status 2.
"""

import argparse
import http.client
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def timed(cmd):
    """The command's wall time and CPU time (user + system), in seconds."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0, cmd
    return time.monotonic() - start, usage.ru_utime + usage.ru_stime


NICE = []  # --nice N: the server's priority


def start_view(exe, path):
    start = time.monotonic()
    proc = subprocess.Popen([*NICE, exe, "view", str(path), "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    url = urllib.parse.urlsplit(proc.stdout.readline().strip())
    port = url.port
    TOKENS[port] = urllib.parse.parse_qs(url.query)["token"][0]
    status, _ = get(port, "/info")
    assert status == 200
    return proc, port, time.monotonic() - start


TOKENS = {}  # port: the token its server printed


def get(port, path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request("GET", path, headers={"Cookie": f"grundy-view-{port}={TOKENS[port]}"})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, body


def drop_from_page_cache(*paths):
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)


def cpu_seconds(pid):
    """The process's user + system CPU time so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=10)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=32768)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tiles", type=int, default=6)
    ap.add_argument("--compute-only", action="store_true", help="only the compute rounds")
    ap.add_argument("--table", help="a stored table to open instead of computing one")
    ap.add_argument("--cold", action="store_true",
                    help="with --table: its pages and its pyramid's out of the page cache first")
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--nice", type=int, help="run the server at this niceness (root: below 0 "
                    "puts it ahead of a shared machine's other work, as on an idle one)")
    a = ap.parse_args()
    for name in ("size", "rounds", "tiles"):
        if getattr(a, name) < 1:
            ap.exit(2, f"bench_view.py: --{name} must be at least 1, got {getattr(a, name)}\n")
    try:
        Path(a.dir).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        ap.exit(2, f"bench_view.py: cannot make the folder {a.dir}: {e.strerror}\n")
    if a.cold and not a.table:
        ap.exit(2, "bench_view.py: --cold needs --table\n")
    if a.table and not os.path.isfile(a.table):
        ap.exit(2, f"bench_view.py: no table {a.table}\n")
    if a.nice is not None:
        NICE[:] = ["nice", "-n", str(a.nice)]
    exe = os.environ.get("GRUNDY_EXE") or str(REPO / "build" / "grundy")
    if not os.access(exe, os.X_OK):
        ap.exit(2, f"bench_view.py: no grundy program at {exe} (build it: scripts/run "
                   "jobs/quickstart.ini, or set GRUNDY_EXE)\n")
    if a.table:
        return measure_view(exe, Path(a.table), a)
    n = a.size
    table = Path(a.dir) / f"bench-view-{n}.h5"
    base = [exe, "compute", "--rows", str(n), "--cols", str(n), "--output", str(table),
            "--force", "--quiet"]

    print(f"compute {n}^2, whole runs, alternated:")
    ratios, cpu_ratios = [], []
    for r in range(a.rounds):
        without, cpu_without = timed(base + ["--no-pyramid"])
        with_, cpu_with = timed(base)
        ratios.append(with_ / without)
        cpu_ratios.append(cpu_with / cpu_without)
        print(f"  round {r + 1}: without {without:.2f} s (CPU {cpu_without:.2f} s), with "
              f"{with_:.2f} s (CPU {cpu_with:.2f} s), ratio {ratios[-1]:.3f} (CPU "
              f"{cpu_ratios[-1]:.3f})", flush=True)
    print(f"  median ratio {statistics.median(ratios):.3f} "
          f"(range {min(ratios):.3f}-{max(ratios):.3f}); CPU time "
          f"{statistics.median(cpu_ratios):.3f} ({min(cpu_ratios):.3f}-{max(cpu_ratios):.3f})")

    if not a.compute_only:
        measure_view(exe, table, a)
    for p in (table, Path(str(table) + ".pyramid")):
        p.unlink(missing_ok=True)


def measure_view(exe, table, a):
    """Parts 2 and 3 on `table` (and its pyramid, which must be there)."""
    pyramid = Path(str(table) + ".pyramid")
    opens = []
    for _ in range(a.rounds):
        if a.cold:
            drop_from_page_cache(table, pyramid)
        proc, port, seconds = start_view(exe, table)
        opens.append(seconds)
        stop(proc)
    print(f"open: median {statistics.median(opens):.3f} s, largest {max(opens):.3f} s")

    proc, port, _ = start_view(exe, table)
    _, body = get(port, "/info")
    info = json.loads(body)
    print(f"pyramid: {pyramid.stat().st_size / 2**20:.1f} MiB, "
          f"table: {table.stat().st_size / 2**20:.1f} MiB")
    stop(proc)
    rng = random.Random(1)
    print("tile latency (cold cache, fresh server per zoom), ms:")
    worst = worst_cpu = 0.0
    for zoom in range(info["minZoom"], info["maxZoom"] + 1):
        span = 256 >> zoom if zoom >= 0 else 256 << -zoom
        across, up = -(-info["cols"] // span), -(-info["rows"] // span)
        proc, port, _ = start_view(exe, table)
        times, cpus = [], []
        for i in range(a.tiles):
            tx, ty = rng.randrange(across), rng.randrange(up)
            colouring = ["mod", "scaled", "diff", "ppos"][i % 4]
            cpu = cpu_seconds(proc.pid)
            start = time.monotonic()
            status, _ = get(port, f"/tile/{colouring}/{zoom}/{tx}/{ty}.png?up=1")
            times.append((time.monotonic() - start) * 1000)
            cpus.append((cpu_seconds(proc.pid) - cpu) * 1000)
            assert status == 200
        stop(proc)
        worst = max(worst, max(times))
        worst_cpu = max(worst_cpu, max(cpus))
        what = f"{1 << -zoom} cells/pixel" if zoom < 0 else f"{1 << zoom} pixels/cell"
        print(f"  zoom {zoom:3d} ({what:>14}): wall median {statistics.median(times):6.1f}, "
              f"largest {max(times):6.1f}; server CPU median {statistics.median(cpus):6.1f}, "
              f"largest {max(cpus):6.1f}", flush=True)
    print(f"largest tile latency {worst:.1f} ms (server CPU time {worst_cpu:.1f} ms)")


if __name__ == "__main__":
    sys.exit(main())
