#!/usr/bin/env python3
"""scripts/scaling_model.py: the wavefront schedules of grundy replayed on P workers.

Builds the task graphs the program builds (the table: src/engine/tile_grid.hpp and
wavefront.cpp; the strip: src/strip/sweep/strip.cpp advance_block; grundy-mpi's ranks:
src/strip/ranks/) and runs them through a list scheduler: P workers, each idle worker takes the
ready task created first (libgomp hands out ready tasks of equal priority about in that order).
A task costs its cells times a per-cell cost, plus a fixed cost per task (`--task-us`: handing a
tile to another core, its windows moved through the caches). It prints, for each P, the
predicted seconds and speed-up over one worker, the critical path, and where the workers' time
goes (busy, idle waiting for a ready task, idle at a block's end).

    scripts/scaling_model.py table [--side 32768] [--tile 512] [--threads "1 2 4 8 16"]
    scripts/scaling_model.py strip [--rows 2048] [--cols 1048576] [--lag L] [--bands-per-thread B]
    scripts/scaling_model.py ranks [--rows 2048] [--cols 1048576] [--threads "2 4 8 16"]

Costs default to the 16-core figures of docs/benchmarks.md (one core: table 32768^2 15.9 s,
strip 2048 x 2^20 41.9 s); --cell-ns overrides. The model leaves out what no schedule changes:
a core's clock falling as more cores run, memory bandwidth, the rows that settle during a run.
"""
import argparse
import heapq
import math
import random
import sys

# Constants of the program (src/engine/config.hpp, src/strip/strip_config.hpp).
LEAD_SPAN, FRONT_SLACK = 16, 2
STRIP_CHUNK, STRIP_LAG, BLOCK_COLUMNS = 256, 4096, 65536
MIN_BAND_ROWS, WIDE_BAND_ROWS, CACHE_BAND_ROWS = 8, 32, 256
MESSAGE_COLUMNS, MESSAGES_IN_FLIGHT = 256, 8
SMALL_TEAM, TILE_ROWS, LAG_CHUNKS_PER_THREAD = 8, 64, 2


JITTER = [0.0]  # --jitter: spread of a task's duration (standard deviation over mean)


def die(message):
    """Bad input: one line, exit status 2."""
    print(f"scripts/scaling_model.py: {message}", file=sys.stderr)
    sys.exit(2)


def simulate(cost, deps, workers, pool=None, pools=None):
    """List scheduling of tasks 0..n-1 (creation order = priority) with costs `cost` (seconds)
    and predecessors `deps`. Without `pool`, `workers` identical workers take any task; with it,
    task i runs only on pool[i], which has pools[pool[i]] workers. Returns (makespan, busy)."""
    n = len(cost)
    succ = [[] for _ in range(n)]
    waiting = [0] * n
    for i, d in enumerate(deps):
        for p in set(d):
            succ[p].append(i)
            waiting[i] += 1
    if pool is None:
        pool, pools = [0] * n, [workers]
    free = list(pools)
    ready = [[] for _ in pools]
    for i in range(n):
        if waiting[i] == 0:
            ready[pool[i]].append(i)
    for r in ready:
        heapq.heapify(r)
    running, now, done = [], 0.0, 0
    rng = random.Random(1)  # the same draws on every run
    took = [c * rng.lognormvariate(-JITTER[0] ** 2 / 2, JITTER[0]) if JITTER[0] else c
            for c in cost]
    while done < n:
        for q, r in enumerate(ready):
            while free[q] and r:
                i = heapq.heappop(r)
                free[q] -= 1
                heapq.heappush(running, (now + took[i], i))
        if not running:
            raise RuntimeError("the task graph has a cycle")
        now, i = heapq.heappop(running)
        done += 1
        free[pool[i]] += 1
        for s in succ[i]:
            waiting[s] -= 1
            if waiting[s] == 0:
                heapq.heappush(ready[pool[s]], s)
    return now, sum(took)


def critical_path(cost, deps):
    finish = [0.0] * len(cost)
    for i, d in enumerate(deps):  # predecessors are created first
        finish[i] = cost[i] + max((finish[p] for p in d), default=0.0)
    return max(finish)


# ---- the table -------------------------------------------------------------------------------
def default_tile(side, threads):
    """grundy::default_tile for a square: the largest tile, from 512 down to 64, that leaves
    4 tiles a side per thread; beyond 8 threads, 8 down to 256."""
    tile = 512
    while tile > 64 and side < 4 * threads * tile:
        tile //= 2
    while threads > 8 and tile > 256 and side < 8 * threads * tile:
        tile //= 2
    return tile


def table_graph(side, tile, cell_s, task_s):
    """Tasks of a symmetric square (every tile above the diagonal mirrored): tile (i, j) with
    i >= j, an anti-diagonal after another; a tile on the diagonal sweeps its lower half."""
    n = math.ceil(side / tile)
    index, cost, deps = {}, [], []

    def task(i, j):
        return index[(i, j) if i >= j else (j, i)]

    for s in range(2 * n - 1):
        for i in range(max(0, s - (n - 1)), min(s, n - 1) + 1):
            j = s - i
            if i < j:
                continue
            w, h = min(side, (i + 1) * tile) - i * tile, min(side, (j + 1) * tile) - j * tile
            cells = w * h / 2 if i == j else w * h
            d = []
            if i:
                d.append(task(i - 1, j))
            if j:
                d.append(task(i, j - 1))
            k = min(LEAD_SPAN, n - 1 - j)  # row_lead_token
            if k and i >= k + FRONT_SLACK:
                d.append(task(i - k - FRONT_SLACK, j + k))
            k = min(LEAD_SPAN, n - 1 - i)  # column_lead_token
            if k and j >= k + FRONT_SLACK:
                d.append(task(i + k, j - k - FRONT_SLACK))
            index[(i, j)] = len(cost)
            cost.append(cells * cell_s + task_s)
            deps.append(d)
    return cost, deps


# ---- the strip -------------------------------------------------------------------------------
def bands_per_thread(rows, threads, override):
    """Strip::Strip: 4 bands per thread, down to 2 beyond 8 threads where 4 would cut bands
    under 64 rows."""
    if override:
        return override
    if threads <= SMALL_TEAM:
        return 4
    return min(4, max(2, rows // (TILE_ROWS * threads)))


def strip_lag(threads, override):
    """Strip::Strip: STRIP_LAG, and at least LAG_CHUNKS_PER_THREAD chunks per thread."""
    return override or max(STRIP_LAG, STRIP_CHUNK * LAG_CHUNKS_PER_THREAD * threads)


def strip_bands(rows, threads, per_thread):
    """Strip's band count for a strip without settled rows (Strip::Strip, own_rows)."""
    thread_bands = max(1 if threads == 1 else threads * per_thread, rows // CACHE_BAND_ROWS)
    if rows // MIN_BAND_ROWS <= 1:
        thread_bands = 1
    wanted = max(rows // WIDE_BAND_ROWS, min(threads, rows // MIN_BAND_ROWS))
    return max(1, min(thread_bands, wanted))


def band_rows(rows, count):
    """Rows of each of `count` bands of equal work (Strip::cut_bands, strip_row_cost)."""
    cost = [640 + y for y in range(rows)]
    total, run, starts = sum(cost), 0, [0]
    for y in range(rows):
        run += cost[y]
        k = len(starts)
        if k < count and run * count >= k * total and y + 1 - starts[-1] >= MIN_BAND_ROWS:
            starts.append(y + 1)
    starts.append(rows)
    return [(starts[k], starts[k + 1]) for k in range(len(starts) - 1)]


def block_lengths(rows, cols):
    """The certification's blocks up to `cols` (cycle_search.cpp block_end): blocks of
    BLOCK_COLUMNS, the first cut where Brent's search saves its first state (after column 2 Y);
    its later saves are made inside the blocks (StripBlock::save)."""
    cuts = {cols, 2 * rows + 1}
    out, x = [], 0
    while x < cols:
        end = min([c for c in cuts if c > x] + [x + BLOCK_COLUMNS])
        out.append(end - x)
        x = end
    return out


def strip_block(rows, columns, threads, lag, per_thread, cell_s, task_s):
    """One block of advance_block: tiles (band k, chunk j) after (k, j - 1), (k - 1, j), and
    band 0's after the top band's chunk j - lag / chunk. Returns (seconds, busy, critical)."""
    lag = strip_lag(threads, lag)
    bands = band_rows(rows, strip_bands(rows, threads, bands_per_thread(rows, threads, per_thread)))
    K = len(bands)
    chunk = min(lag, STRIP_CHUNK) if threads > 1 else STRIP_CHUNK
    chunks, behind = math.ceil(columns / chunk), lag // chunk
    cost, deps = [], []
    for j in range(chunks):
        n = min(chunk, columns - j * chunk)
        for k, (y0, y1) in enumerate(bands):
            d = []
            if j:
                d.append((j - 1) * K + k)
            if k:
                d.append(j * K + k - 1)
            if k == 0 and j >= behind and K > 1:
                d.append((j - behind) * K + K - 1)
            cells = sum(1 + y / 640 for y in range(y0, y1)) / (1 + (rows - 1) / 1280) * n
            # One thread runs the tiles in order, without tasks (advance_block).
            cost.append(cells * cell_s + (task_s if threads > 1 and K > 1 else 0.0))
            deps.append(d)
    team = min(threads, K)
    seconds, busy = simulate(cost, deps, team)
    return seconds, busy, critical_path(cost, deps), K


def strip_run(rows, cols, threads, lag, bands_per_thread, cell_s, task_s):
    seconds = busy = critical = 0.0
    memo = {}
    for length in block_lengths(rows, cols):
        if length not in memo:
            memo[length] = strip_block(rows, length, threads, lag, bands_per_thread, cell_s,
                                       task_s)
        s, b, c, K = memo[length]
        seconds, busy, critical = seconds + s, busy + b, critical + c
    return seconds, busy, critical, K


# ---- grundy-mpi's ranks ------------------------------------------------------------------------
def ranks_run(rows, cols, ranks, cell_s, task_s, reduce_s):
    """R ranks of one thread, rank r sweeping an equal share of the work: per message of
    MESSAGE_COLUMNS columns, after its own previous one and the rank below's same message; it
    may run MESSAGES_IN_FLIGHT messages ahead of the rank above; every block ends with the
    collective calls of all ranks (a barrier costing reduce_s)."""
    per_column = rows * cell_s / ranks
    seconds, busy, critical = 0.0, 0.0, 0.0
    for length in block_lengths(rows, cols):
        m = math.ceil(length / MESSAGE_COLUMNS)
        cost, deps, pool = [], [], []
        for j in range(m):
            n = min(MESSAGE_COLUMNS, length - j * MESSAGE_COLUMNS)
            for r in range(ranks):
                d = []
                if j:
                    d.append((j - 1) * ranks + r)
                if r:
                    d.append(j * ranks + r - 1)
                if r + 1 < ranks and j >= MESSAGES_IN_FLIGHT:
                    d.append((j - MESSAGES_IN_FLIGHT) * ranks + r + 1)
                cost.append(n * per_column + task_s)
                deps.append(d)
                pool.append(r)
        s, b = simulate(cost, deps, 0, pool, [1] * ranks)
        seconds += s + reduce_s
        busy += b
        critical += critical_path(cost, deps) + reduce_s
    return seconds, busy, critical


def numbers(text):
    try:
        v = [int(t) for t in text.split()]
    except ValueError:
        v = []
    if not v or min(v) < 1:
        die(f"expected positive whole numbers, got '{text}'")
    return v


def report(rows_out, base):
    print("| workers | seconds | speed-up | busy % | critical path s |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for p, seconds, busy, critical, extra in rows_out:
        print(f"| {p}{extra} | {seconds:.3f} | {base / seconds:.2f} × | "
              f"{100 * busy / (p * seconds):.0f} | {critical:.3f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("schedule", choices=["table", "strip", "ranks"])
    ap.add_argument("--threads", default=None, help='worker counts, e.g. "1 2 4 8 16"')
    ap.add_argument("--side", type=int, default=32768)
    ap.add_argument("--tile", type=int, default=0, help="table: tile side (default: the program's)")
    ap.add_argument("--rows", type=int, default=2048)
    ap.add_argument("--cols", type=int, default=1 << 20)
    ap.add_argument("--lag", type=int, default=0, help="strip: columns (default: the program's)")
    ap.add_argument("--bands-per-thread", type=int, default=0,
                    help="strip: bands per thread (default: the program's)")
    ap.add_argument("--cell-ns", type=float, default=None,
                    help="CPU ns per computed cell on one core")
    ap.add_argument("--task-us", type=float, default=0.0,
                    help="fixed cost of a task (microseconds)")
    ap.add_argument("--jitter", type=float, default=0.0,
                    help="spread of each task's duration (standard deviation / mean, lognormal)")
    ap.add_argument("--reduce-us", type=float, default=100.0,
                    help="ranks: the collective calls at a block's end (microseconds)")
    a = ap.parse_args()
    for name in ("side", "tile", "rows", "cols", "lag", "bands_per_thread"):
        zero_ok = name in ("tile", "lag", "bands_per_thread")  # 0: the program's choice
        if getattr(a, name) < (0 if zero_ok else 1):
            die(f"--{name.replace('_', '-')} must be {'0 or more' if zero_ok else 'positive'}")
    if a.lag % STRIP_CHUNK:
        die(f"--lag must be a multiple of {STRIP_CHUNK}")
    threads = numbers(a.threads or ("2 4 8 16" if a.schedule == "ranks" else "1 2 4 8 16"))
    task_s = a.task_us * 1e-6
    JITTER[0] = max(0.0, a.jitter)
    out = []
    if a.schedule == "table":
        computed = a.side * a.side / 2
        cell_s = (a.cell_ns * 1e-9) if a.cell_ns else 15.9 / computed
        base = sum(table_graph(a.side, a.tile or default_tile(a.side, 1), cell_s, task_s)[0])
        for p in threads:
            tile = a.tile or default_tile(a.side, p)
            cost, deps = table_graph(a.side, tile, cell_s, task_s)
            s, b = simulate(cost, deps, p)
            out.append((p, s, b, critical_path(cost, deps), f" (tile {tile})"))
    else:
        cell_s = (a.cell_ns * 1e-9) if a.cell_ns else 41.9 / (a.rows * a.cols)
        base = strip_run(a.rows, a.cols, 1, a.lag, a.bands_per_thread, cell_s, task_s)[0]
        for p in threads:
            if a.schedule == "strip":
                s, b, c, K = strip_run(a.rows, a.cols, p, a.lag, a.bands_per_thread, cell_s,
                                       task_s)
                out.append((p, s, b, c, f" ({K} bands)"))
            else:
                s, b, c = ranks_run(a.rows, a.cols, p, cell_s, task_s, a.reduce_us * 1e-6)
                out.append((p, s, b, c, " ranks"))
    report(out, base)


if __name__ == "__main__":
    main()
