"""The Python module's own progress line (progress=True where tqdm is not installed): redrawn in
place on a terminal; in a log (sys.stderr a pipe or a file) a line of its own with the time, the
first at once and the last at the end, as the CLI's."""

import os
import re
import subprocess

from conftest import PYTHON, import_grundy

import_grundy()  # the module itself runs in a child process

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


def test_a_certification_shows_the_programs_line():
    # certify_row_periods shows what grundy periods shows: the columns, the rows settled, the
    # certificate's expected column and the ETA; never a count "of 0" while its phase's length
    # is unknown.
    child = CHILD.replace("grundy.table(4000, 4000, threads=2, progress=True)",
                          "grundy.certify_row_periods(300, threads=2, progress=True)")
    r = subprocess.run([PYTHON, "-c", child], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    assert lines and " of 0 " not in r.stderr, r.stderr
    stamped = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ periods: phase 1/2: column [\d.]+( [kM])? "
                         r"\([\d.]+( [kM])? col/s\), rows 0\.\.(\d+) settled, certificate expected "
                         r"near column ([\d.]+( [kM])?|\?), ETA .+$")
    assert all(stamped.match(line) for line in lines), r.stderr
    # The last line is the run's end: most of the 300 rows settled by then.
    assert int(stamped.match(lines[-1]).group(3)) >= 200, r.stderr


def test_a_tqdm_bar_gets_the_outlook():
    # With tqdm, the bar counts the columns and the settled rows and ETA follow it.
    child = """
import sys, types
calls = []
class Bar:
    def __init__(self, **kw): self.total = kw.get("total")
    def update(self, n): pass
    def refresh(self): pass
    def close(self): pass
    def set_postfix_str(self, s, refresh=True): calls.append(s)
sys.modules["tqdm"] = types.SimpleNamespace(tqdm=Bar)
import grundy
grundy.certify_row_periods(300, threads=2, progress=True)
print(calls[-1])
"""
    r = subprocess.run([PYTHON, "-c", child], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert re.match(r"^rows 0\.\.\d+ settled, certificate expected near column .+, ETA .+$",
                    r.stdout.strip()), r.stdout
