"""Where the programs look for their shared libraries.

A run path entry that is empty or relative is read by the dynamic loader as the current
directory (or relative to it): a program started from a directory that others can write, such
as a shared node's /tmp or a group's project directory, would load a library planted there
under the user's own account. CMake pads a build tree's run path with empty entries unless told
otherwise (CMakeLists.txt), so these tests read the run paths of every program built and run
`grundy` from a directory holding stand-ins for its libraries.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import import_grundy, mpi_exe


def readelf():
    """readelf from binutils, which the compiler that built the programs needs."""
    path = shutil.which("readelf")
    assert path, "readelf (binutils) is needed to read the programs' dynamic sections"
    return path


def dynamic_entries(binary, tag):
    """The values of the dynamic section's entries of one tag (NEEDED, RUNPATH, RPATH)."""
    out = subprocess.run([readelf(), "-d", str(binary)], capture_output=True, text=True,
                         check=True).stdout
    values = []
    for line in out.splitlines():
        if f"({tag})" in line:
            # "... (RUNPATH)   Library runpath: [/a:/b]" or "(NEEDED)  Shared library: [x.so]"
            values.append(line[line.index("[") + 1:line.rindex("]")])
    return values


def built_programs(grundy_exe):
    """Every ELF file the build made that a user runs or imports."""
    programs = [Path(grundy_exe)]
    mpi = mpi_exe()
    if os.access(mpi, os.X_OK):
        programs.append(Path(mpi))
    elif os.environ.get("GRUNDY_REQUIRE_MPI") == "1":
        pytest.fail(f"GRUNDY_REQUIRE_MPI=1 but there is no grundy-mpi at {mpi}")
    programs.append(Path(import_grundy().__file__))
    return programs


def test_run_paths_hold_absolute_directories_only(grundy_exe):
    for program in built_programs(grundy_exe):
        for tag in ("RUNPATH", "RPATH"):
            for value in dynamic_entries(program, tag):
                for entry in value.split(":"):
                    assert entry.startswith("/") or entry.startswith("$ORIGIN"), (
                        f"{program.name}: {tag} [{value}] has the entry {entry!r}, which the "
                        "dynamic loader takes relative to the current directory")


def test_libraries_planted_in_the_working_directory_are_not_loaded(grundy_exe, tmp_path):
    needed = dynamic_entries(grundy_exe, "NEEDED")
    assert "libc.so.6" in needed, needed  # the entries were read
    for name in needed:
        # Not an ELF file: the loader would stop with "file too short" had it opened one.
        (tmp_path / name).write_bytes(b"planted\n")
    run = subprocess.run([grundy_exe, "--version"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=30)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("grundy "), run.stdout
