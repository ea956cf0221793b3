"""The Python module `grundy` (src/python): tables against an independent direct mex, files read
back by h5py, the analyses on arrays and files, Ctrl-C, and every error as the right Python
exception. Certified periods are test_module_periods.py's, perfect play and games
test_module_play.py's.

scripts/test puts build/python on PYTHONPATH and sets GRUNDY_REQUIRE_MODULE=1, so a module that
does not build or import fails the run; elsewhere these tests are skipped without it.
"""

import os
import signal
import subprocess

import h5py
import numpy as np
import pytest

from conftest import PYTHON, import_grundy, p_positions, reference_table

grundy = import_grundy()


# ---- tables into numpy arrays -------------------------------------------------------------------

SHAPES = [(1, 50), (50, 1), (37, 53), (70, 45), (20, 300), (64, 64)]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("rows,cols", SHAPES)
def test_table_equals_direct_mex(rows, cols, threads):
    # Tiles of 8 and 16 do not divide most of these sides; 0 lets the engine choose.
    for tile in (8, 16, 0):
        t = grundy.table(rows, cols, threads=threads, tile=tile)
        assert t.shape == (rows, cols) and t.dtype == np.uint16
        np.testing.assert_array_equal(t, reference_table(rows, cols), err_msg=f"tile {tile}")


def test_table_is_uint32_beyond_16_bits_and_reports_its_figures():
    t, stats = grundy.table(3, 70000, threads=2, return_stats=True)
    assert t.dtype == np.uint32 and t.shape == (3, 70000)
    np.testing.assert_array_equal(t[0], np.arange(70000))
    assert t.max() > 65535
    # Rows 1 and 2 from their known periods: g(x, y) = x + block[(x - x0) % p] - 2y.
    for y, block in ((1, [3, 3, 0]), (2, [6, 3, 3])):
        x = np.arange(70000)
        np.testing.assert_array_equal(t[y], x + np.array(block)[x % 3] - 2 * y)
    assert stats["cells"] == 3 * 70000 and stats["threads"] == 2


def test_progress_callback_sees_every_cell():
    seen = []
    grundy.table(300, 700, tile=64, progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1] == (300 * 700, 300 * 700)
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))


# ---- big arrays in memory of their own ----------------------------------------------------------


def vm_flags(address):
    """The VmFlags of the mapping of this process that holds `address` (/proc/self/smaps)."""
    with open("/proc/self/smaps") as f:
        inside = False
        for line in f:
            first = line.split()[0]
            if "-" in first and not first.endswith(":"):
                low, high = (int(v, 16) for v in first.split("-"))
                inside = low <= address < high
            elif inside and line.startswith("VmFlags:"):
                return line.split()[1:]
    return []


def assert_own_mapping(a):
    """a is a writeable C-contiguous array over the module's own mapping, kept alive by a
    capsule, never copied (numpy's own memory, or a copy, lies a malloc header past a page
    boundary), and advised out of huge pages ("nh": MADV_NOHUGEPAGE) where the kernel has them."""
    assert a.flags.c_contiguous and a.flags.writeable and a.flags.aligned
    assert type(a.base).__name__ == "PyCapsule"
    assert a.ctypes.data % os.sysconf("SC_PAGE_SIZE") == 0
    if os.path.exists("/sys/kernel/mm/transparent_hugepage/enabled"):
        assert "nh" in vm_flags(a.ctypes.data)


def resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_big_table_is_filled_in_a_mapping_of_its_own_without_a_copy():
    t = grundy.table(2048, 2048, threads=2)  # 8 MiB: the smallest given a mapping of its own
    assert t.shape == (2048, 2048) and t.dtype == np.uint16
    assert_own_mapping(t)
    # The same values as small tables (in numpy's own memory) and the definition.
    np.testing.assert_array_equal(t[:1400, :1300], grundy.table(1400, 1300, threads=2))
    np.testing.assert_array_equal(t[:40, :70], reference_table(40, 70))
    np.testing.assert_array_equal(t, t.T)
    assert grundy.verify(t)
    # Writeable, and a view keeps the memory alive after the array is gone.
    row = t[1000]
    expected = row.copy()
    del t
    np.testing.assert_array_equal(row, expected)
    row[:] = 7
    assert (row == 7).all()

    u = grundy.table(3, 1 << 20, threads=2)  # uint32 (rows + cols > 65536), 12 MiB
    assert u.dtype == np.uint32
    assert_own_mapping(u)
    x = np.arange(1 << 20)
    np.testing.assert_array_equal(u[0], x)
    for y, block in ((1, [3, 3, 0]), (2, [6, 3, 3])):
        np.testing.assert_array_equal(u[y], x + np.array(block)[x % 3] - 2 * y)


def test_big_arrays_are_given_back():
    # 20 tables of 16 MiB: kept, they would add 320 MiB to the process.
    grundy.table(2048, 4096, threads=2)
    before = resident_bytes()
    for _ in range(20):
        t = grundy.table(2048, 4096, threads=2)
        assert_own_mapping(t)
        del t
    assert resident_bytes() - before < 64 << 20


# ---- files ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("compression", [None, "none", "deflate:4"])
def test_file_round_trip_read_by_h5py(tmp_path, compression):
    path = tmp_path / "t.h5"
    figures = grundy.compute(path, 70, 130, tile=16, threads=2, compression=compression)
    assert figures["cells"] == 70 * 130 and figures["file_bytes"] > 0
    assert figures["path"] == str(path)
    expected = grundy.table(70, 130)
    with h5py.File(path, "r") as f:
        np.testing.assert_array_equal(f["grundy"][...], expected)
        assert f.attrs["complete"] == 1 and f.attrs["rows"] == 70 and f.attrs["cols"] == 130
        assert f["grundy"].dtype == np.uint16


def test_stored_table_slices_and_bands(tmp_path):
    path = tmp_path / "t.h5"
    grundy.compute(str(path), 90, 75, tile=16)
    with h5py.File(path, "r") as f:
        ref = f["grundy"][...]
    with grundy.open(path) as t:
        assert t.shape == (90, 75) and len(t) == 90 and t.dtype == np.uint16
        assert t.chunks == (16, 16) and t.complete
        attrs = t.attrs
        assert attrs["game"] == "wythoff" and attrs["complete"] == 1 and attrs["tile"] == 16
        keys = [np.s_[3, 4], np.s_[-1, -2], np.s_[5], np.s_[:, 7], np.s_[10:30, 5:61],
                np.s_[1:80:7, 2:70:3], np.s_[...], np.s_[:], np.s_[89:100, 70:], np.s_[5:5, :],
                np.s_[-20:-3, ::9]]
        for key in keys:
            got = t[key]
            np.testing.assert_array_equal(got, ref[key], err_msg=str(key))
            assert np.shape(got) == ref[key].shape
        np.testing.assert_array_equal(np.asarray(t), ref)
        bands = list(t.bands(37))
        assert [y0 for y0, _ in bands] == [0, 37, 74]
        np.testing.assert_array_equal(np.vstack([b for _, b in bands]), ref)
        assert sum(b.shape[0] for _, b in t.bands()) == 90  # one chunk height each
        with pytest.raises(IndexError):
            t[90, 0]
        with pytest.raises(TypeError):
            t["a", 0]
    with pytest.raises(ValueError, match="closed"):
        t[0, 0]


def test_big_slices_of_a_stored_table_are_read_into_a_mapping_of_their_own(tmp_path):
    path = tmp_path / "big.h5"
    grundy.compute(path, 2048, 2560, threads=2)
    expected = grundy.table(2048, 2560, threads=2)
    with grundy.open(path) as t:
        a = t[:, :]
        assert_own_mapping(a)
        np.testing.assert_array_equal(a, expected)
        b = t[8:2048, 1:2560]  # not on chunk boundaries, still 10 MB
        assert_own_mapping(b)
        np.testing.assert_array_equal(b, expected[8:, 1:])
        np.testing.assert_array_equal(np.asarray(t), expected)
        # Small reads stay in numpy's own memory.
        assert t[5:9, :].flags.owndata
    with h5py.File(path, "r") as f:
        np.testing.assert_array_equal(f["grundy"][...], expected)


def test_blosc_file_is_read_without_the_plugin(tmp_path):
    path = tmp_path / "b.h5"
    grundy.compute(path, 40, 100, tile=16, compression="blosc")
    t = grundy.open(path)
    assert t.attrs["compression"].startswith("blosc")
    np.testing.assert_array_equal(t[:, :], grundy.table(40, 100))


def test_stopped_run_keeps_a_resumable_file_and_resume_finishes_it(tmp_path):
    path = tmp_path / "stopped.h5"

    class Stop(Exception):
        pass

    def stop(done, total):  # a callback that raises stops the run like Ctrl-C
        if done > 0:
            raise Stop()

    # Half a second or more on one thread: the callback's first call comes after 50 ms.
    rows, cols = 5000, 7000
    with pytest.raises(Stop):
        grundy.compute(path, rows, cols, tile=64, threads=1, progress=stop)
    with h5py.File(path, "r") as f:
        assert f.attrs["complete"] == 0 and f.attrs["resumable"] == 1
    with pytest.raises(OSError, match="incomplete"):
        grundy.open(path)
    assert not grundy.open(path, allow_incomplete=True).complete
    with pytest.raises(ValueError, match="it was computed with rows=5000, not 5001$"):
        grundy.compute(path, rows + 1, cols, resume=True)
    figures = grundy.compute(path, rows, cols, resume=True)
    assert figures["resumed"] and figures["cells_resumed"] > 0
    assert figures["cells"] + figures["cells_resumed"] == rows * cols
    with h5py.File(path, "r") as f:
        assert f.attrs["complete"] == 1
        np.testing.assert_array_equal(f["grundy"][...], grundy.table(rows, cols))


# ---- analyses ------------------------------------------------------------------------------------

SEED_001_BLOCKS = {1: (0, [3, 3, 0]), 2: (0, [6, 3, 3]), 3: (8, [8, 9, 4, 2, 9, 4])}


def check_periods(periods):
    assert [p.period for p in periods[:5]] == [1, 3, 3, 6, 12]  # OEIS A004482-A004485
    for y, (x0, block) in SEED_001_BLOCKS.items():
        assert periods[y].preperiod == x0 and periods[y].block.tolist() == block
        assert periods[y].block.dtype == np.uint32 and not periods[y].certified


def test_row_periods_of_an_array_a_table_and_a_path(tmp_path):
    a = grundy.table(5, 4096)
    check_periods(grundy.row_periods(a))
    check_periods(grundy.row_periods(a.astype(np.int64)))  # converted
    check_periods(grundy.row_periods(np.asarray(a, dtype=np.uint32)[:, :]))
    wide = np.zeros((5, 5000), dtype=np.uint16)
    wide[:, :4096] = a
    check_periods(grundy.row_periods(wide[:, :4096]))  # a view with a wider row stride
    path = tmp_path / "p.h5"
    grundy.compute(path, 5, 4096)
    check_periods(grundy.row_periods(path))
    check_periods(grundy.row_periods(grundy.open(path)))
    assert grundy.row_period(a[3], 3).block.tolist() == [8, 9, 4, 2, 9, 4]
    assert not grundy.row_period(np.array([5, 1, 7, 2, 9, 0, 4, 4]), 0).determined


def test_verify_p_positions_properties_find_one_wrong_cell():
    a = grundy.table(80, 120, tile=16)
    assert grundy.verify(a) and grundy.verify(a).cells_checked == 80 * 120
    report = grundy.p_positions(a)
    assert report.ok and report.zeros == report.expected == len(p_positions(80, 120))
    assert grundy.properties(a).ok
    bad = a.copy()
    bad[40, 70] = bad[40, 70] + 1
    v = grundy.verify(bad)
    assert not v and (v.wrong.x, v.wrong.y) == (70, 40)
    assert (v.wrong.found, v.wrong.expected) == (a[40, 70] + 1, a[40, 70])
    props = grundy.properties(bad)
    assert not props.ok and props.as_dict()["symmetry"] is not None
    zero = a.copy()
    y, x = 10, 60
    zero[y, x] = 0
    pp = grundy.p_positions(zero)
    assert not pp and pp.first_disagreement == f"({x}, {y}) holds 0 but is not a P-position"


# ---- Ctrl-C --------------------------------------------------------------------------------------

CHILD = r"""
import signal, sys
import grundy
signal.signal(signal.SIGINT, signal.default_int_handler)  # even if the parent ignores SIGINT
def started(done, total):
    started.done, started.total = done, total
    if not started.said and done > 0:  # tiles done: inside the computation
        started.said = True
        print("running", flush=True)
started.said = False
started.done = started.total = 0
try:
    grundy.table(30000, 30000, threads=2, progress=started)
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted %d %d" % (started.done, started.total), flush=True)
"""


def test_ctrl_c_raises_keyboard_interrupt_before_the_end():
    env = dict(os.environ)
    child = subprocess.Popen([PYTHON, "-c", CHILD], stdout=subprocess.PIPE, text=True, env=env)
    try:
        # Once tiles are done (several seconds of work remain on two cores).
        assert child.stdout.readline().strip() == "running"
        child.send_signal(signal.SIGINT)
        line = child.stdout.readline().split()
        assert child.wait(timeout=60) == 0
    finally:
        child.kill()
    # Stopped by the signal, not run to its end: the last progress reported counts fewer cells
    # than the table's (a sign of progress, not a wall-clock bound a loaded machine can miss).
    assert line and line[0] == "interrupted", line
    assert 0 < int(line[1]) < int(line[2]), line


# ---- errors --------------------------------------------------------------------------------------


def cli_error(grundy_exe, *args):
    r = subprocess.run([grundy_exe, *args], capture_output=True, text=True)
    assert r.returncode == 2
    return r.stderr.strip()


def test_errors_carry_the_cli_messages(grundy_exe, tmp_path):
    with pytest.raises(ValueError) as e:
        grundy.sum_winning_move("nim:3 wythoff:1")
    assert e.value.args[0] in cli_error(grundy_exe, "move", "--sum", "nim:3 wythoff:1")
    for x in (2**63, 10**20):
        with pytest.raises(ValueError) as e:
            grundy.winning_move(x, 5)
        assert e.value.args[0] in cli_error(grundy_exe, "move", str(x), "5")
    text = tmp_path / "text.h5"
    text.write_text("not a table\n")
    with pytest.raises(OSError) as e:
        grundy.open(text)
    assert e.value.args[0] in cli_error(grundy_exe, "analyze", str(text))


def test_errors_name_arguments_as_python_spells_them(tmp_path):
    """The library's messages name its arguments; the module spells them as a call writes them,
    where the program says --kernel or --checkpoint."""
    with pytest.raises(ValueError) as e:
        grundy.table(5, 5, kernel="fast")
    assert e.value.args[0] == "kernel must be auto, summary, avx512, avx2 or portable, got 'fast'"
    with pytest.raises(OSError) as e:
        grundy.certify_row_periods(4, checkpoint=tmp_path / "no" / "c")
    assert e.value.args[0].startswith(f"checkpoint={tmp_path / 'no' / 'c'}: directory ")
    assert "--" not in e.value.args[0]


def test_error_cases_raise_the_right_exceptions(tmp_path):
    cases = [
        (ValueError, lambda: grundy.table(0, 5)),
        (ValueError, lambda: grundy.table(5, 2**31 + 1)),
        (ValueError, lambda: grundy.table(5, 5, tile=3)),
        (ValueError, lambda: grundy.table(5, 5, threads=-1)),
        (ValueError, lambda: grundy.table(5, 5, kernel="fast")),
        (TypeError, lambda: grundy.table("5", 5)),
        (TypeError, lambda: grundy.table(5.0, 5)),
        (TypeError, lambda: grundy.table(5, 5, progress="yes")),
        (ValueError, lambda: grundy.winning_move(-1, 0)),
        (TypeError, lambda: grundy.winning_moves("1", 0)),
        (ValueError, lambda: grundy.sum_values("")),
        (ValueError, lambda: grundy.sum_values([("chess", 1)])),
        (TypeError, lambda: grundy.sum_values(5)),
        (FileNotFoundError, lambda: grundy.open(tmp_path / "missing.h5")),
        (OSError, lambda: grundy.compute(tmp_path / "no" / "dir.h5", 5, 5)),
        (ValueError, lambda: grundy.compute(tmp_path / "x.h5", 5, 5, compression="zip")),
        (TypeError, lambda: grundy.compute(5, 5, 5)),
        (FileNotFoundError, lambda: grundy.row_periods(tmp_path / "missing.h5")),
        (TypeError, lambda: grundy.row_periods(123)),
        (TypeError, lambda: grundy.verify(np.zeros((3, 3)))),
        (ValueError, lambda: grundy.verify(np.zeros(3, dtype=np.uint16))),
        (ValueError, lambda: grundy.properties(-np.ones((3, 3), dtype=np.int32))),
        (ValueError, lambda: grundy.certify_row_periods(0)),
        (OSError, lambda: grundy.certify_row_periods(4, checkpoint=tmp_path / "no" / "c")),
    ]
    for expected, call in cases:
        with pytest.raises(expected):
            call()
    existing = tmp_path / "e.h5"
    grundy.compute(existing, 4, 4)
    with pytest.raises(FileExistsError, match=r"exists \(use force=True to overwrite it\)$"):
        grundy.compute(existing, 4, 4)
    grundy.compute(existing, 4, 4, force=True)
    assert not (tmp_path / "x.h5").exists()  # a refused run leaves no file


def test_everything_public_has_a_docstring():
    assert "Wythoff" in grundy.__doc__
    for name in dir(grundy):
        if name.startswith("_"):
            continue
        obj = getattr(grundy, name)
        if callable(obj):
            assert obj.__doc__ and len(obj.__doc__.strip()) > 20, name
    for cls in (grundy.Table, grundy.Game):
        for name, member in vars(cls).items():
            if not name.startswith("_") and callable(member):
                assert member.__doc__, f"{cls.__name__}.{name}"


# ---- scripts -------------------------------------------------------------------------------------


def test_plot_table_compute_draws_what_the_file_draws(tmp_path, table):
    from conftest import COLS, ROWS, read_png, run_script

    args = ["--mod", "8", "--highlight", "40", "--rows", "3:50", "--cols", "0:90"]
    from_file = tmp_path / "file.png"
    computed = tmp_path / "computed.png"
    r = run_script("plot_table.py", table, "-o", from_file, *args)
    assert r.returncode == 0, r.stderr
    r = run_script("plot_table.py", "--compute", ROWS, COLS, "-o", computed, *args)
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(read_png(computed), read_png(from_file))


def test_plot_table_without_the_module_fails_cleanly(tmp_path, table):
    import shutil

    from conftest import SCRIPTS

    for name in ("plot_table.py", "grundy_data.py"):  # a copy with no build/ beside it
        shutil.copy(SCRIPTS / name, tmp_path / name)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = lambda *args: subprocess.run([PYTHON, str(tmp_path / "plot_table.py"), *map(str, args)],
                                       capture_output=True, text=True, env=env, timeout=60)
    r = run("--compute", "10", "10", "-o", tmp_path / "c.png")
    assert r.returncode == 2 and "needs the Python module grundy" in r.stderr
    assert "Traceback" not in r.stderr
    r = run(table, "-o", tmp_path / "f.png")  # files still work with h5py alone
    assert r.returncode == 0, r.stderr


def test_runs_that_do_not_fit_raise_memory_error_up_front(tmp_path):
    with pytest.raises(MemoryError, match="max_memory"):
        grundy.table(4096, 4096, max_memory=1 << 20)
    # 1024 rows with the default ring (768 MiB): 1.16 GiB with the settled rows' tables.
    with pytest.raises(MemoryError, match="settled rows' tables needs about 1.16 GiB"):
        grundy.certify_row_periods(1024, max_memory=1 << 30, csv=str(tmp_path / "p.csv"))
    assert not (tmp_path / "p.csv").exists()
