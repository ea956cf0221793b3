"""Runs under a memory cgroup made for the test, as a batch system's job limit (Slurm's --mem)
is: a run that would not fit is refused up front (exit status 2, one line), not killed by the
OOM killer, and a small run inside the same limit passes. Needs root and a writable memory
controller (cgroup v2 with memory delegated, or v1's memory hierarchy); elsewhere the tests skip
and say why."""
import contextlib
import mmap
import os
import pathlib
import shutil
import subprocess
import uuid

import pytest

from conftest import PYTHON, mpi_exe

LIMIT = 600 << 20
SMALL_LIMIT = 44 << 20


def _mounts():
    v2 = v1 = None
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            dash = fields.index("-")
            kind, options = fields[dash + 1], fields[dash + 3] if len(fields) > dash + 3 else ""
            if kind == "cgroup2" and v2 is None:
                v2 = (fields[3], fields[4])
            elif kind == "cgroup" and "memory" in options.split(",") and v1 is None:
                v1 = (fields[3], fields[4])
    return v2, v1


def _own_paths():
    v2 = v1 = None
    with open("/proc/self/cgroup") as f:
        for line in f:
            ident, controllers, path = line.rstrip("\n").split(":", 2)
            if ident == "0" and controllers == "":
                v2 = path
            elif "memory" in controllers.split(","):
                v1 = path
    return v2, v1


def _under(mount, path):
    root, point = mount
    rel = path[len(root):] if root != "/" and path.startswith(root) else path
    return pathlib.Path(point + (rel if rel != "/" else ""))


@contextlib.contextmanager
def _cgroup(limit):
    """A child cgroup of this process's own with memory limited to `limit` bytes; yields a
    function that wraps a command so that it runs inside it."""
    if os.geteuid() != 0:
        pytest.skip("memory cgroup tests need root to create a cgroup (running as uid %d)" % os.geteuid())
    (m2, m1), (p2, p1) = _mounts(), _own_paths()
    made = None
    if m2 and p2 is not None:
        parent = _under(m2, p2)
        controllers = (parent / "cgroup.controllers")
        if controllers.exists() and "memory" in controllers.read_text().split():
            made = (parent / ("grundy-test-" + uuid.uuid4().hex[:8]), "memory.max")
    if made is None and m1 and p1 is not None:
        made = (_under(m1, p1) / ("grundy-test-" + uuid.uuid4().hex[:8]), "memory.limit_in_bytes")
    if made is None:
        pytest.skip("no memory cgroup controller can be used here (no cgroup2 with the memory "
                    "controller delegated, no cgroup v1 memory hierarchy)")
    folder, limit_file = made
    try:
        folder.mkdir()
        (folder / limit_file).write_text(str(limit))
    except OSError as e:
        pytest.skip(f"cannot create a memory cgroup at {folder}: {e}")
    try:
        procs = folder / "cgroup.procs"

        def wrap(argv):
            return ["sh", "-c", f'echo $$ > {procs} && exec "$@"', "sh", *argv]
        wrap.folder = folder
        yield wrap
    finally:
        try:
            folder.rmdir()
        except OSError:
            pass


@pytest.fixture
def memory_cgroup():
    with _cgroup(LIMIT) as wrap:
        yield wrap


@pytest.fixture
def small_memory_cgroup():
    """SMALL_LIMIT: room for the program and the analysis of a 1024^2 table, not of a 4096^2."""
    with _cgroup(SMALL_LIMIT) as wrap:
        yield wrap


def test_a_run_too_big_for_the_cgroup_is_refused_up_front(grundy_exe, memory_cgroup):
    r = subprocess.run(memory_cgroup([grundy_exe, "compute", "--rows", "65536", "--cols", "65536",
                                      "--no-output"]), capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "the cgroup's memory limit" in lines[0], lines[0]
    assert "the largest square that fits at these settings is" in lines[0], lines[0]
    assert r.stdout == ""


def test_a_small_run_inside_the_cgroup_passes(grundy_exe, memory_cgroup):
    r = subprocess.run(memory_cgroup([grundy_exe, "compute", "--rows", "4096", "--cols", "4096",
                                      "--no-output", "-q"]), capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, (r.returncode, r.stderr)


def test_periods_ring_too_big_for_the_cgroup_is_refused(grundy_exe, memory_cgroup):
    r = subprocess.run(memory_cgroup([grundy_exe, "periods", "--rows", "1024", "--ring-memory",
                                      "1GiB", "-q"]), capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "--ring-memory" in r.stderr and "the cgroup's memory limit" in r.stderr


def refused_by_the_cgroup(r):
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "the cgroup's memory limit" in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def tables(grundy_exe, tmp_path_factory):
    """Complete tables of 1024^2 and 4096^2 (the analysis of the second needs about 50-60 MiB)."""
    folder = tmp_path_factory.mktemp("cgroup-tables")
    for n in (1024, 4096):
        subprocess.run([grundy_exe, "compute", "--rows", str(n), "--cols", str(n), "-o",
                        str(folder / f"{n}.h5"), "--quiet", "--no-pyramid"], check=True)
    return folder


def test_analysis_too_big_for_the_cgroup_is_refused(grundy_exe, small_memory_cgroup, tables):
    big = str(tables / "4096.h5")
    for argv in ([grundy_exe, "analyze", big, "--no-store"], [grundy_exe, "verify", big]):
        line = refused_by_the_cgroup(subprocess.run(small_memory_cgroup(argv), capture_output=True,
                                                    text=True, timeout=120))
        assert "the analysis of a 4096 x 4096 table" in line, line
    # The analysis of a small table runs inside the same limit (no OOM kill: exit status 0).
    small = str(tables / "1024.h5")
    for argv in ([grundy_exe, "analyze", small, "--no-store"], [grundy_exe, "verify", small]):
        r = subprocess.run(small_memory_cgroup(argv), capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, (argv, r.returncode, r.stderr)


def test_the_module_raises_memory_error_in_the_cgroup(small_memory_cgroup, tables):
    code = ("import grundy, sys\n"
            "try:\n"
            "    grundy.verify(sys.argv[1])\n"
            "except MemoryError as e:\n"
            "    print(e)\n"
            "    sys.exit(3)\n")
    env = dict(os.environ)
    r = subprocess.run(small_memory_cgroup([PYTHON, "-c", code, str(tables / "4096.h5")]),
                       capture_output=True, text=True, timeout=120, env=env)
    if r.returncode == 1 and "No module named 'grundy'" in r.stderr:
        pytest.skip("the Python module is not on PYTHONPATH")
    assert r.returncode == 3, (r.returncode, r.stdout, r.stderr)
    assert "the cgroup's memory limit" in r.stdout, r.stdout


def test_view_cache_too_big_for_the_cgroup_is_refused(grundy_exe, memory_cgroup, tables):
    line = refused_by_the_cgroup(subprocess.run(
        memory_cgroup([grundy_exe, "view", str(tables / "1024.h5"), "--cache", "1GiB"]),
        capture_output=True, text=True, timeout=120))
    assert "with a cache of 1.00 GiB" in line, line


def test_mpi_ranks_too_big_for_the_cgroup_refuse_together(memory_cgroup):
    """Every rank inside the limit: all refuse, rank 0 says why, mpirun ends with status 2."""
    mpi = mpi_exe()
    if not os.access(mpi, os.X_OK) or shutil.which("mpirun") is None:
        if os.environ.get("GRUNDY_REQUIRE_MPI"):
            pytest.fail(f"needs {mpi} and mpirun")
        pytest.skip(f"no {mpi} or no mpirun")
    r = subprocess.run(memory_cgroup(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np",
                                      "2", mpi, "periods", "--rows", "1024",
                                      "--ring-memory", "1GiB", "-q"]),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "grundy periods: error: rank 0: a strip of 1024 rows" in r.stderr, r.stderr
    assert "the cgroup's memory limit" in r.stderr, r.stderr


def _page_cache_bytes(folder):
    """The page cache charged to the cgroup: memory.stat's `file` (v2) or `cache` (v1)."""
    for line in (folder / "memory.stat").read_text().splitlines():
        key, value = line.split()
        if key in ("file", "cache"):
            return int(value)
    raise AssertionError(f"no page cache figure in {folder / 'memory.stat'}")


def _direct_io_works(folder):
    probe = folder / "direct-io-probe"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_DIRECT, 0o644)
    except OSError:
        return False
    try:
        page = mmap.mmap(-1, 4096)  # page-aligned, as direct I/O wants
        page.write(b"x" * 4096)
        return os.pwrite(fd, page, 0) == 4096
    except OSError:
        return False
    finally:
        os.close(fd)
        probe.unlink()


def test_a_written_table_is_not_charged_to_the_cgroup(grundy_exe, tmp_path):
    """The table and its pyramid go past the page cache: a job's cgroup is not charged for the
    file it wrote (the file system here takes direct writes), where --buffered-writes leaves
    the file's pages charged to it, which shows that the measure sees them."""
    charged = {}
    for mode in ("direct", "buffered"):
        out = tmp_path / f"{mode}.h5"
        with _cgroup(LIMIT) as wrap:
            argv = [grundy_exe, "compute", "--rows", "8192", "--cols", "8192", "-o", str(out),
                    "-q"] + (["--buffered-writes"] if mode == "buffered" else [])
            r = subprocess.run(wrap(argv), capture_output=True, text=True, timeout=120)
            assert r.returncode == 0, (mode, r.returncode, r.stderr)
            charged[mode] = _page_cache_bytes(wrap.folder)
    size = (tmp_path / "buffered.h5").stat().st_size
    assert size > 60 << 20
    assert charged["buffered"] > size // 2, (charged, size)
    if _direct_io_works(tmp_path):
        # Left: each chunk's two partial pages, HDF5's metadata, the program's own pages.
        assert charged["direct"] < size // 8, (charged, size)


def test_a_checkpoint_is_not_charged_to_the_cgroup(grundy_exe, tmp_path):
    """A strip's checkpoint holds its whole ring (100 MB here, gigabytes for thousands of rows)
    and goes past the page cache too: the cgroup is charged for its last partial block only."""
    ck = tmp_path / "ck"
    with _cgroup(LIMIT) as wrap:
        r = subprocess.run(wrap([grundy_exe, "periods", "--rows", "256", "--max-cols", "70000",
                                 "--checkpoint", str(ck), "-q"]),
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 3, (r.returncode, r.stderr)  # stopped at --max-cols, saved
        charged = _page_cache_bytes(wrap.folder)
    size = ck.stat().st_size
    assert size > 60 << 20
    if _direct_io_works(tmp_path):
        assert charged < size // 8, (charged, size)
    else:
        assert charged > size // 2, (charged, size)  # then it is there, and measured
