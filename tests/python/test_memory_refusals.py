"""Every command that sizes memory by its arguments refuses up front, with one line and exit
status 2 (MemoryError in Python: test_module.py), what does not fit the budget set by --max-memory; and the
analysis passes' estimate is never below the peak RSS a run measures, nor far above it.
(The same refusals under a cgroup's memory limit: test_memory_cgroup.py.) The peak-RSS
comparisons are for the Release build: AddressSanitizer's shadow memory is no part of what a
run needs, and the sanitizer pass (scripts/test --sanitize) does not run this file."""
import os
import subprocess

import pytest

MiB = 1 << 20


def run(argv, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, **kwargs)


def peak_rss(argv, tmp_path):
    """Runs argv to its end under GNU time: its exit status and its peak RSS in bytes. (A child
    of this process would count this process's pages too, from before its exec.)"""
    out = tmp_path / "rss"
    r = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(out), *argv],
                       capture_output=True, timeout=300)
    return r.returncode, int(out.read_text().split()[-1]) * 1024


def refused(r, *words):
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def square(grundy_exe, tmp_path_factory):
    """A complete 4096 x 4096 table (20 MB)."""
    path = tmp_path_factory.mktemp("square") / "t.h5"
    subprocess.run([grundy_exe, "compute", "--rows", "4096", "--cols", "4096", "-o", str(path),
                    "--quiet", "--no-pyramid"], check=True)
    return path


def test_analyze_and_verify_refuse_what_does_not_fit(grundy_exe, square):
    before = square.read_bytes()
    line = refused(run([grundy_exe, "analyze", str(square), "--max-memory", "40MiB"]),
                   "the analysis of a 4096 x 4096 table (periodicity,verify,ppositions,properties)",
                   "the memory budget is 40.00 MiB (--max-memory)",
                   "verify alone, or the other passes alone, need less")
    assert square.read_bytes() == before, line  # nothing stored
    refused(run([grundy_exe, "analyze", str(square), "--passes", "properties", "--no-store",
                 "--max-memory", "40MiB"]), "table (properties) needs about")
    refused(run([grundy_exe, "verify", str(square), "--max-memory", "40MiB"]),
            "table (verify) needs about", "(--max-memory)")
    # A sample of cells needs no more than the program.
    r = run([grundy_exe, "verify", str(square), "--sample", "100", "--max-memory", "40MiB"])
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("command", [
    ["verify"],
    ["analyze", "--passes", "periodicity,ppositions", "--no-store"],
    ["analyze", "--passes", "properties", "--no-store"],
    ["analyze", "--no-store"],
])
def test_the_analysis_estimate_covers_the_peak(grundy_exe, tmp_path_factory, command):
    """Never below the peak RSS of the run, and at most 1.6 times it (measured 1.1 to 1.56,
    the program's share largest on small tables): refused with a budget just under the peak,
    run with one 1.6 times it."""
    path = tmp_path_factory.mktemp("wide") / "t.h5"
    subprocess.run([grundy_exe, "compute", "--rows", "2048", "--cols", "8192", "-o", str(path),
                    "--quiet", "--no-pyramid"], check=True)
    argv = [grundy_exe, command[0], str(path), *command[1:], "--threads", "2"]
    if not os.access("/usr/bin/time", os.X_OK):
        pytest.skip("no /usr/bin/time (Debian: time) to measure the peak RSS")
    status, rss = peak_rss(argv, path.parent)
    assert status == 0
    refused(run(argv + ["--max-memory", str(int(rss * 0.99))]), "needs about")
    r = run(argv + ["--max-memory", str(int(rss * 1.6))])
    assert r.returncode == 0, (rss, r.stderr)


def test_the_compute_estimate_covers_the_peak_with_output_and_pyramid(grundy_exe, tmp_path):
    """Never below the peak RSS of a run that writes its file and builds the pyramid: refused
    with a budget just under it. (Far above it here: the writer's queue is counted full.)"""
    if not os.access("/usr/bin/time", os.X_OK):
        pytest.skip("no /usr/bin/time (Debian: time) to measure the peak RSS")
    argv = [grundy_exe, "compute", "--rows", "8192", "--cols", "8192", "-o",
            str(tmp_path / "t.h5"), "--threads", "2", "--quiet", "--force"]
    status, rss = peak_rss(argv, tmp_path)
    assert status == 0 and (tmp_path / "t.h5.pyramid").exists()
    refused(run(argv + ["--max-memory", str(int(rss * 0.99))]), "needs about")


def test_periods_counts_the_settled_rows_tables(grundy_exe, tmp_path):
    # 1024 rows with a ring of 100 MB: 24 576 columns, 50.3 MB, and the settled rows' tables up
    # to 23.6 MB more; 120 MB would hold the ring, the windows and the program alone.
    args = [grundy_exe, "periods", "--rows", "1024", "--ring-memory", "100MB", "--quiet",
            "--csv", str(tmp_path / "p.csv")]
    refused(run(args + ["--max-memory", "120MB"]),
            "a strip of 1024 rows with a ring of 48.00 MiB and its settled rows' tables",
            "(--max-memory)", "a smaller --ring-memory")
    r = run(args + ["--max-memory", "140MB", "--max-cols", "2000"])
    assert r.returncode == 3 and "not certified within 2000 columns" in r.stderr, r.stderr


def test_view_counts_its_cache_and_pyramid(grundy_exe, square):
    refused(run([grundy_exe, "view", str(square), "--cache", "1GiB", "--max-memory", "500MiB"]),
            "viewing a 4096 x 4096 table with a cache of 1.00 GiB", "(--max-memory)")


def test_compute_estimate_prints_what_the_check_counts(grundy_exe, tmp_path):
    out = tmp_path / "t.h5"
    r = run([grundy_exe, "compute", "--rows", "131072", "--cols", "131072", "-o", str(out),
             "--threads", "2", "--estimate", "--max-memory", "5GiB"])
    assert r.returncode == 0, r.stderr
    assert not out.exists()
    text = r.stdout
    for line in ("a 131072 x 131072 table on 2 threads, tile 512:", "windows at their widest",
                 "tile buffers", "chunk buffers and queue", "pyramid being built",
                 "the program", "of a budget of 5.00 GiB (--max-memory): refused; the largest "
                 "square that fits at these settings is", "64.00 GiB of values before compression"):
        assert line in text, text
    # The check itself refuses the same run, with the same largest square.
    side = text.split("the largest square that fits at these settings is ")[1].split()[0]
    line = refused(run([grundy_exe, "compute", "--rows", "131072", "--cols", "131072", "-o",
                        str(out), "--threads", "2", "--max-memory", "5GiB"]))
    assert f"is {side} x {side}" in line, (line, text)
