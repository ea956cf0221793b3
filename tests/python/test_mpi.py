"""grundy-mpi: `grundy periods` across MPI ranks (issue 16), run with mpirun --oversubscribe on
however few cores the machine has. Every rank count and thread count must give the single
process's CSV byte for byte and its certificate; a job stopped by SIGTERM (as Slurm sends it to
every task) or killed outright resumes to the same result; a checkpoint of another number of
ranks is refused; a rank that dies ends the job.

The program is $GRUNDY_MPI_EXE, else build/grundy-mpi; without it (or without mpirun) the tests
are skipped, unless $GRUNDY_REQUIRE_MPI is set (scripts/test sets it), when they fail.
"""

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import REPO, certified_prefix, mpi_exe

MPI_EXE = mpi_exe()
# OpenMPI refuses to run as root (CI's containers) without these.
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")


@pytest.fixture(scope="module", autouse=True)
def need_mpi():
    missing = []
    if not os.access(MPI_EXE, os.X_OK):
        missing.append(MPI_EXE)
    if shutil.which("mpirun") is None:
        missing.append("mpirun")
    if missing:
        if os.environ.get("GRUNDY_REQUIRE_MPI"):
            pytest.fail(f"grundy-mpi tests need {', '.join(missing)}")
        pytest.skip(f"no {', '.join(missing)}")


def mpirun(ranks, *args, threads=1):
    return ["mpirun", "--oversubscribe", "-np", str(ranks), "-x", f"OMP_NUM_THREADS={threads}",
            MPI_EXE, "periods", "--threads", str(threads), *map(str, args)]


def certificate(stderr):
    m = re.search(r"state after column (\d+) repeats after P = (\d+) columns", stderr)
    assert m, stderr
    return int(m.group(1)), int(m.group(2))


@pytest.fixture(scope="module")
def single(grundy_exe, tmp_path_factory):
    """The single process's CSV bytes and certificate for a strip of `rows` rows."""
    cache = {}
    folder = tmp_path_factory.mktemp("single")

    def get(rows):
        if rows not in cache:
            csv = folder / f"{rows}.csv"
            r = subprocess.run([grundy_exe, "periods", "--rows", str(rows), "--threads", "2",
                                "--csv", str(csv)], capture_output=True, text=True, timeout=300)
            assert r.returncode == 0, r.stderr
            cache[rows] = (csv.read_bytes(), certificate(r.stderr))
        return cache[rows]
    return get


@pytest.mark.parametrize("rows,ranks,threads", [
    (17, 1, 1), (17, 2, 1), (17, 3, 1), (17, 4, 2),
    (100, 2, 2), (100, 3, 1), (100, 4, 1),
    (200, 2, 1), (200, 4, 2),
])
def test_ranks_give_the_single_process_result(single, tmp_path, rows, ranks, threads):
    csv = tmp_path / "m.csv"
    # Rank 0's extra work pinned to none: whether the rows are cut again then depends on the
    # settled rows alone. Measured, it may balance rank 0's settled rows on a loaded machine (the
    # cut is then already fair and rightly left alone), and this test asserts the cuts happen.
    # The other tests run with the measured estimate.
    env = dict(ENV, GRUNDY_TEST_RANK0_EXTRA="0")
    r = subprocess.run(mpirun(ranks, "--rows", rows, "--csv", csv, threads=threads), env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    expected_csv, expected_certificate = single(rows)
    assert csv.read_bytes() == expected_csv
    assert certificate(r.stderr) == expected_certificate
    m = re.search(rf"{ranks} MPI ranks of \d+ threads? each: ([0-9.e+-]+) MB sent between them; "
                  r"rows cut again (\d+) times as they settled \((\d+) rows moved\)", r.stderr)
    assert m, r.stderr
    assert (float(m.group(1)) > 0) == (ranks > 1)
    if ranks > 1 and rows >= 100:
        # The same results although rows changed hands (with their state and ring) many times.
        assert int(m.group(2)) > 0 and int(m.group(3)) > 0, r.stderr


def test_stopped_at_max_cols_says_how_the_ranks_fared(tmp_path):
    # Not certified within --max-cols (exit status 3): the columns swept and the time, and the
    # ranks' line as after a certificate (their waiting times are what tells ranks from threads).
    r = subprocess.run(mpirun(2, "--rows", 64, "--max-cols", 4096, "--csv", tmp_path / "m.csv"),
                       env=ENV, capture_output=True, text=True, timeout=300)
    assert r.returncode == 3, r.stderr
    assert re.search(r"not certified within 4096 columns \(4096 columns swept in [0-9.]+ s\)",
                     r.stderr), r.stderr
    m = re.search(r"2 MPI ranks of 1 thread each: .* rank waited for .*: ([0-9.]+), ([0-9.]+)\n",
                  r.stderr)
    assert m, r.stderr
    # Every row listed, none settled yet after so few columns.
    assert certified_prefix(tmp_path / "m.csv", 64) == 0


def test_stopped_ranks_keep_the_settled_rows(tmp_path):
    # Rows settle on rank 0 (rows are cut again as they do): a job stopped at --max-cols writes
    # them, certified, equal to the committed rows, in the CSV and the HDF5 output.
    h5py = pytest.importorskip("h5py")
    csv, h5 = tmp_path / "m.csv", tmp_path / "m.h5"
    r = subprocess.run(mpirun(2, "--rows", 160, "--max-cols", 250000, "--csv", csv, "-o", h5,
                              "--no-blocks", "-q"),
                       env=ENV, capture_output=True, text=True, timeout=300)
    assert r.returncode == 3, r.stderr
    k = certified_prefix(csv, 160)
    assert 30 <= k < 160
    with h5py.File(h5, "r") as f:
        assert f.attrs["complete"] == 0 and f.attrs["resumable"] == 1
        g = f["analysis/row_periods"]
        assert g.attrs["certified_rows"] == k and g.attrs["column"] == 250000
        assert g["certified"][()].tolist() == [1] * k + [0] * (160 - k)


def test_hdf5_output_is_the_single_process_one(grundy_exe, tmp_path):
    h5py = pytest.importorskip("h5py")
    one, many = tmp_path / "one.h5", tmp_path / "many.h5"
    subprocess.run([grundy_exe, "periods", "--rows", "40", "-o", str(one), "-q"], check=True,
                   timeout=300)
    r = subprocess.run(mpirun(3, "--rows", 40, "-o", many, "-q"), env=ENV, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    with h5py.File(one, "r") as a, h5py.File(many, "r") as b:
        ga, gb = a["analysis/row_periods"], b["analysis/row_periods"]
        assert sorted(ga.keys()) == sorted(gb.keys())
        for k in ga.keys():
            assert (ga[k][()] == gb[k][()]).all(), k
        for k in ("x0", "P"):
            assert ga.attrs[k] == gb.attrs[k]


def wait_for(predicate, seconds, what, job=None):
    """Polls `predicate` for up to `seconds`; with `job` (a Popen), fails at once, with the job's
    stderr, if the job ends first: what it waits for can no longer come."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if job is not None and job.poll() is not None:
            _, err = job.communicate()
            pytest.fail(f"the job ended (status {job.returncode}) before {what}:\n{err}")
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def rank_pids(folder):
    """The live ranks of the job whose files are in `folder`: the grundy-mpi processes with an
    argument under it (each test's tmp_path is its own), from /proc, which needs no procps.
    Found by what they run, not by their parent, so that ranks that outlive a killed mpirun
    (reparented) are found too; a zombie's empty cmdline does not count."""
    pids = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue  # ended meanwhile
        if (os.path.basename(argv[0]) == os.path.basename(MPI_EXE).encode()
                and any(a.startswith(str(folder).encode()) for a in argv[1:])):
            pids.append(int(cmdline.parent.name))
    return sorted(pids)


def signal_ranks(folder, sig):
    """Sends `sig` to every live rank of the job in `folder` by its pid (the ranks live in
    process groups of their own, which mpirun's does not reach); a rank that has just ended is
    passed over."""
    for pid in rank_pids(folder):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def no_rank_outlives(folder):
    """After mpirun has ended: every rank ends too (a rank left running would go on writing
    the checkpoint under the next run); waits on that, a loaded machine reaping them slowly."""
    wait_for(lambda: not rank_pids(folder), 60, f"the ranks {rank_pids(folder)} to end")


# The rows of the slowed-down jobs. Their production blocks end at columns 201 (2Y + 1), 65737
# (71 rows settled), 131273 (90) and 196809 (in phase 1's tail: the state has repeated), each
# followed by a checkpoint and a sleep of 500 ms, then the last at 202521 (x0 + ring + 1), where
# the job ends. Three ranks start from the cut 0 35 68 and cut the rows again as they settle
# (0 57 79 after the second block with rank 0's extra work pinned to none; measured, the cut
# also weighs the ranks' speeds, and a slow rank 0 may keep 0 35 37 to the end). The
# sleeps keep a job killed after its second checkpoint running for seconds more: its ranks, in
# process groups of their own, outlive a killed mpirun by about a second (OpenMPI's), and must
# not finish the job meanwhile.
SLOW_ROWS = 100


def start_slow_job(tmp_path, ranks, rows=SLOW_ROWS, env=ENV):
    ck = tmp_path / "ck"
    job = subprocess.Popen(mpirun(ranks, "--rows", rows, "--csv", tmp_path / "m.csv",
                                  "--checkpoint", ck, "--checkpoint-every", "0",
                                  "--test-delay-us", "500000"),
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
    # Progress made and saved: a manifest naming a column, with every rank's part beside it, and
    # the CSV that rank 0 writes after it (a kill between the two would leave no CSV yet).
    wait_for(lambda: ck.exists() and "column" in ck.read_text() and (tmp_path / "m.csv").exists(),
             60, "a checkpoint and its CSV", job)
    return job, ck


def manifest_column(ck):
    return int(re.search(r"column (\d+)", ck.read_text()).group(1))


def manifest_starts(ck):
    """Each rank's first row as the manifest names them, then the rows."""
    m = re.search(r"starts ([\d ]+)\n", ck.read_text())
    return [int(v) for v in m.group(1).split()] if m else []


def resume(tmp_path, ranks, rows=SLOW_ROWS):
    return subprocess.run(mpirun(ranks, "--rows", rows, "--csv", tmp_path / "m.csv",
                                 "--checkpoint", tmp_path / "ck", "--resume"),
                          env=ENV, capture_output=True, text=True, timeout=300)


def test_sigterm_to_every_rank_checkpoints_and_resumes(single, tmp_path):
    # Rank 0's extra work pinned to none, so that the rows are cut again as they settle: measured
    # on a loaded machine (under AddressSanitizer, say), a slow rank 0 may keep one unsettled row
    # (rank 1 from row 35 on) for the whole job, a fair cut for those timings.
    job, ck = start_slow_job(tmp_path, 3, env=dict(ENV, GRUNDY_TEST_RANK0_EXTRA="0"))
    wait_for(lambda: len(rank_pids(tmp_path)) == 3, 60, "three ranks", job)
    # Stopped once rows have moved far from the first cut (rank 1 from row 35), which the
    # checkpoint of the second block shows: the parts saved at the end of the next block (the
    # signal cuts the sleep short) then hold other rows than a fresh run would give each rank.
    wait_for(lambda: manifest_starts(ck)[1:2] >= [50], 60, "rows cut again", job)
    signal_ranks(tmp_path, signal.SIGTERM)
    _, err = job.communicate(timeout=120)
    assert job.returncode == 75, err
    no_rank_outlives(tmp_path)
    assert "checkpoint saved" in err
    column = manifest_column(ck)
    parts = sorted(p.name for p in tmp_path.glob("ck.rank*"))
    assert parts == [f"ck.rank{r}.{column}" for r in range(3)], parts
    r = resume(tmp_path, 3)
    assert r.returncode == 0, r.stderr
    assert "(this part, resumed)" in r.stderr
    assert (tmp_path / "m.csv").read_bytes() == single(SLOW_ROWS)[0]


def test_sigkill_of_the_whole_job_resumes(single, tmp_path):
    job, ck = start_slow_job(tmp_path, 2)
    first = manifest_column(ck)
    wait_for(lambda: manifest_column(ck) > first, 60, "a second checkpoint", job)
    os.killpg(job.pid, signal.SIGKILL)  # mpirun and every rank at once
    job.communicate(timeout=120)
    no_rank_outlives(tmp_path)
    # The CSV of an earlier checkpoint: the rows certified by then, not all of them.
    assert certified_prefix(tmp_path / "m.csv", SLOW_ROWS) < SLOW_ROWS, "the job ended first"
    r = resume(tmp_path, 2)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "m.csv").read_bytes() == single(SLOW_ROWS)[0]


# mpirun (OpenMPI 4.1) on SIGTERM sends its ranks SIGCONT, waits odls_base_sigkill_timeout
# seconds (default 1), sends SIGTERM, waits as long again and sends SIGKILL: that second wait is
# all the ranks have to save. README ("Signals and failures") sets it; so do these tests, with
# room for a save under AddressSanitizer on a slow core (6 s was too little on a Zen 3 host:
# SIGKILL before the save, and not a word on stderr; 12 s too little once on a 2-core host whose
# cores the tests shared with a long run and the Release and sanitizer suites in parallel).
GRACE = 18


def committed_rows(rows):
    """(row, preperiod, period, certified) of rows 0..rows-1 from the committed 512-row run: a
    row's periods are the table's, whatever the strip's height."""
    lines = (REPO / "jobs" / "results" / "row-periods-512.csv").read_text().splitlines()
    return [tuple(line.split(",")[:4]) for line in lines[1:rows + 1]]


def csv_rows(csv):
    lines = csv.read_text().splitlines()
    assert lines[0].startswith("row,preperiod,period,"), lines[0]
    header = lines[0].split(",")
    at = [header.index(k) for k in ("row", "preperiod", "period", "certified")]
    return [tuple(line.split(",")[i] for i in at) for line in lines[1:]]


def checkpoint_files(tmp_path):
    return sorted(p.name for p in tmp_path.glob("ck*"))


def stops_on_sigterm(pid):
    """Whether rank `pid` has grundy's handlers in place (src/app/signals.cpp: SIGTERM caught,
    SIGXFSZ ignored), from /proc: until then a SIGTERM ends it without a word (a slow start under
    the sanitizers on a busy machine)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    masks = dict(line.split(":\t", 1) for line in status.splitlines() if line.startswith("Sig"))
    return bool(int(masks.get("SigCgt", "0"), 16) >> (signal.SIGTERM - 1) & 1 and
                int(masks.get("SigIgn", "0"), 16) >> (signal.SIGXFSZ - 1) & 1)


def test_sigterm_to_mpirun_keeps_a_consistent_checkpoint(tmp_path):
    """SIGTERM to mpirun, the way a user stops a job started by hand: with mpirun's grace set,
    the ranks save one consistent checkpoint (a ring of 100 MB, every save held 2 s more, twice
    mpirun's default grace) and --resume finishes with the committed rows."""
    rows, ck = 256, tmp_path / "ck"
    # Each block followed by 0.8 s: the run (44 production blocks before its last, 35 s) outlasts
    # mpirun's grace however quiet the machine, so the signal lands mid-run.
    job = subprocess.Popen(mpirun(2, "--rows", rows, "--csv", tmp_path / "m.csv", "--checkpoint",
                                  ck, "--test-save-delay-us", 2000000, "--test-delay-us", 800000),
                           env=dict(ENV, OMPI_MCA_odls_base_sigkill_timeout=str(GRACE)),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
    wait_for(lambda: len(rank_pids(tmp_path)) == 2 and all(map(stops_on_sigterm,
                                                                 rank_pids(tmp_path))),
             60, "two ranks running", job)
    time.sleep(1)  # mpirun passes the signal on GRACE seconds later: mid-run
    job.send_signal(signal.SIGTERM)
    _, err = job.communicate(timeout=60 + 2 * GRACE)
    assert "checkpoint saved to" in err, err
    # The stopped job's CSV: the rows certified by then, not all of them.
    assert certified_prefix(tmp_path / "m.csv", rows) < rows, "the job ended before the signal"
    column = manifest_column(ck)
    assert column > 0
    assert checkpoint_files(tmp_path) == ["ck", f"ck.rank0.{column}", f"ck.rank1.{column}"]
    r = resume(tmp_path, 2, rows)
    assert r.returncode == 0, r.stderr
    assert "(this part, resumed)" in r.stderr
    assert csv_rows(tmp_path / "m.csv") == committed_rows(rows)


def test_save_killed_midway_leaves_the_older_checkpoint(tmp_path):
    """Every rank killed while the parts of a save are still PATH.tmp files: the older manifest
    and its parts are intact, --resume continues from them and finishes with the committed rows,
    and removes what the interrupted save left."""
    rows, ck = 200, tmp_path / "ck"
    job = subprocess.Popen(mpirun(2, "--rows", rows, "--csv", tmp_path / "m.csv", "--checkpoint",
                                  ck, "--checkpoint-every", "0.2", "--test-save-delay-us",
                                  1000000),
                           env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
    wait_for(lambda: ck.exists(), 60, "a first checkpoint")
    first = manifest_column(ck)
    wait_for(lambda: sum(n.startswith(f"ck.rank{r}.") and n.endswith(".tmp")
                         for n in checkpoint_files(tmp_path) for r in (0, 1)) == 2,
             60, "the next save's parts, both half written")
    # Every rank and mpirun, in the middle of the save. The ranks are killed by their own pids:
    # in process groups of their own, they outlive a killed mpirun by about a second, long
    # enough to finish the save (its parts in place, the manifest, the older parts removed)
    # while --resume below already runs from the older one.
    signal_ranks(tmp_path, signal.SIGKILL)
    os.killpg(job.pid, signal.SIGKILL)
    job.communicate(timeout=60)
    no_rank_outlives(tmp_path)
    assert manifest_column(ck) == first, "the manifest of the interrupted save was written"
    left = checkpoint_files(tmp_path)
    assert f"ck.rank0.{first}" in left and f"ck.rank1.{first}" in left, left
    assert any(n.endswith(".tmp") and n != "ck.tmp" for n in left), left
    r = resume(tmp_path, 2, rows)
    assert r.returncode == 0, r.stderr
    assert "(this part, resumed)" in r.stderr
    assert csv_rows(tmp_path / "m.csv") == committed_rows(rows)
    assert checkpoint_files(tmp_path) == ["ck", f"ck.rank0.{first}", f"ck.rank1.{first}"]


def test_resume_with_other_ranks_is_refused(tmp_path):
    job, ck = start_slow_job(tmp_path, 3)
    os.killpg(job.pid, signal.SIGKILL)
    job.communicate(timeout=120)
    no_rank_outlives(tmp_path)
    r = resume(tmp_path, 2)
    assert r.returncode == 2, r.stderr
    assert f"checkpoint {ck} was written by 3 ranks, not 2: resume it with mpirun -np 3" in r.stderr
    assert r.stderr.count("error:") == 1, r.stderr  # rank 0 speaks for all


def test_manifest_of_a_fixed_cut_is_refused(tmp_path):
    # Format 1 (before rows changed hands) named no rows per rank.
    ck = tmp_path / "ck"
    ck.write_text("grundy periods checkpoint manifest 1\n"
                  f"rows {SLOW_ROWS}\nranks 2\ncolumn 160\n")
    r = resume(tmp_path, 2)
    assert r.returncode == 2, r.stderr
    assert "was written by an earlier grundy-mpi" in r.stderr
    assert r.stderr.count("error:") == 1, r.stderr


def test_single_process_refuses_the_manifest(grundy_exe, tmp_path):
    job, ck = start_slow_job(tmp_path, 2)
    os.killpg(job.pid, signal.SIGKILL)
    job.communicate(timeout=120)
    no_rank_outlives(tmp_path)
    r = subprocess.run([grundy_exe, "periods", "--rows", str(SLOW_ROWS), "--checkpoint",
                        str(ck), "--resume"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "manifest of a run of 2 MPI ranks" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_a_rank_that_dies_ends_the_job(tmp_path):
    job, _ = start_slow_job(tmp_path, 3)
    wait_for(lambda: len(rank_pids(tmp_path)) == 3, 60, "three ranks", job)
    os.kill(rank_pids(tmp_path)[1], signal.SIGKILL)
    # The job ends (a hang would time out here, widened for a loaded machine), as a failure,
    # before its result, and the two ranks left do not outlive it.
    job.communicate(timeout=120)
    assert job.returncode != 0
    # No result: at most the CSV of a checkpoint, the rows certified by then.
    assert certified_prefix(tmp_path / "m.csv", SLOW_ROWS) < SLOW_ROWS
    no_rank_outlives(tmp_path)


def test_only_periods_runs_across_ranks():
    r = subprocess.run(["mpirun", "-np", "1", MPI_EXE, "compute", "--rows", "4", "--cols", "4"],
                       env=ENV, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "unknown command 'compute'" in r.stderr


def test_a_rank_whose_node_has_too_little_memory_stops_every_rank(tmp_path):
    """Ranks on nodes with different budgets (here: --max-memory given to rank 1 only): the
    refusal of one rank is every rank's, so none waits for it for ever; one line from rank 0
    names the rank, and the job ends with status 2 before anything is written."""
    csv = tmp_path / "p.csv"
    common = ["periods", "--rows", "64", "-q", "--csv", str(csv)]
    r = subprocess.run(["mpirun", "--oversubscribe", "-np", "1", MPI_EXE, *common, ":", "-np",
                        "1", MPI_EXE, *common, "--max-memory", "50MB"],
                       capture_output=True, text=True, timeout=120, env=ENV)
    assert r.returncode == 2, (r.returncode, r.stderr)
    errors = [line for line in r.stderr.splitlines() if line.startswith("grundy periods:")]
    assert len(errors) == 1, r.stderr
    assert errors[0].startswith("grundy periods: error: rank 1: a strip of 64 rows"), errors
    assert "the memory budget is 47.68 MiB (--max-memory)" in errors[0], errors
    assert not csv.exists()
