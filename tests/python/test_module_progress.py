"""The Python module's own progress line (progress=True where tqdm is not installed): redrawn in
place on a terminal; in a log (sys.stderr a pipe or a file) a line of its own with the time, the
first at once and the last at the end, as the CLI's."""

import os
import re
import subprocess

import pytest

from conftest import PYTHON

if os.environ.get("GRUNDY_REQUIRE_MODULE") == "1":
    import grundy  # noqa: F401  (fails the run if the module does not import)
else:
    pytest.importorskip("grundy")

CHILD = """
import sys
sys.modules["tqdm"] = None  # as where tqdm is not installed: the module's own line
import grundy
grundy.table(4000, 4000, threads=2, progress=True)
"""
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ grundy: \[ *[\d.]+%\] \d+ of 16000000 cells$")


def test_a_stamped_line_in_a_log():
    r = subprocess.run([PYTHON, "-c", CHILD], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "\r" not in r.stderr
    lines = r.stderr.splitlines()
    assert lines and all(STAMP.match(line) for line in lines), r.stderr
    assert lines[-1].endswith("[100.0%] 16000000 of 16000000 cells"), r.stderr
    # A run of a second or two: the line at once and the last, nothing a minute apart between.
    assert len(lines) <= 2, r.stderr


def test_redrawn_on_a_terminal():
    leader, follower = os.openpty()
    try:
        child = subprocess.Popen([PYTHON, "-c", CHILD], stderr=follower)
        os.close(follower)
        out = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
        assert child.wait(timeout=120) == 0
    finally:
        os.close(leader)
    text = out.decode()
    assert "\rgrundy: [" in text and "[100.0%] 16000000 of 16000000 cells" in text, text
    assert not re.search(r"\d{4}-\d\d-\d\dT", text), text


def test_a_phase_of_unknown_length_shows_its_count():
    # certify_row_periods learns its phase's length only when the certificate is found: until
    # then a count of columns, never "of 0".
    child = CHILD.replace("grundy.table(4000, 4000, threads=2, progress=True)",
                          "grundy.certify_row_periods(200, progress=True)")
    r = subprocess.run([PYTHON, "-c", child], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    assert lines and " of 0 " not in r.stderr, r.stderr
    stamped = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ periods: cycle search: "
                         r"(\d+ columns|\[ *[\d.]+%\] \d+ of \d+ columns)$")
    assert all(stamped.match(line) for line in lines), r.stderr
