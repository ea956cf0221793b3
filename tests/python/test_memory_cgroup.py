"""Runs under a memory cgroup made for the test, as a batch system's job limit (Slurm's --mem)
is: a run that would not fit is refused up front (exit status 2, one line), not killed by the
OOM killer, and a small run inside the same limit passes. Needs root and a writable memory
controller (cgroup v2 with memory delegated, or v1's memory hierarchy); elsewhere the tests skip
and say why."""
import os
import pathlib
import subprocess
import uuid

import pytest

LIMIT = 600 << 20


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


@pytest.fixture
def memory_cgroup():
    """A child cgroup of this process's own with memory limited to LIMIT; yields a function
    that wraps a command so that it runs inside it."""
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
        (folder / limit_file).write_text(str(LIMIT))
    except OSError as e:
        pytest.skip(f"cannot create a memory cgroup at {folder}: {e}")
    try:
        procs = folder / "cgroup.procs"
        yield lambda argv: ["sh", "-c", f'echo $$ > {procs} && exec "$@"', "sh", *argv]
    finally:
        try:
            folder.rmdir()
        except OSError:
            pass


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
