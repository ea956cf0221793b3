"""grundy view: the HTTP routes (bad requests, load, SIGTERM), the tiles' colours against the
colourings of docs/viewer.md computed here from the reference
table, the pyramid written by compute against the one view builds, and a real browser
(headless Chromium through Selenium): the colours on screen at two zooms, and hovering.

GRUNDY_VIEW_SCREENSHOT=PATH also writes the browser's picture of a larger table there (the
scripts/img/view.png, shown in docs/viewer.md, is made so)."""

import colorsys
import io
import math
import os
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from conftest import p_positions, reference_table
from view_server import Server

WIDE_ROWS, WIDE_COLS = 64, 4096  # wide enough for the pyramid's levels (4096 = 256 x 16)
REF_COLS = 320  # the reference by the definition is slow: the table's first columns only

# docs/viewer.md's colourings, written again from the text.
SCALED = [(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)]
DIFF = [(0, 0, 4), (81, 18, 124), (183, 55, 121), (252, 137, 97), (252, 253, 191)]
WHITE, RED = np.array([255, 255, 255]), np.array([200, 30, 30])


def ramp(anchors, t):
    t = min(max(t, 0.0), 1.0)
    i = min(3, int(t * 4))
    f = t * 4 - i
    a, b = np.array(anchors[i], float), np.array(anchors[i + 1], float)
    return np.rint(a + (b - a) * f)


def hue(residue, k):
    return np.rint(np.array(colorsys.hsv_to_rgb(residue / k, 0.6, 0.95)) * 255)


def cell_colour(colouring, k, x, y, g, diff_max):
    if colouring == "mod":
        return hue(g % k, k)
    if colouring == "scaled":
        return ramp(SCALED, 0 if y == 0 else (g - x + 2 * y) / (3 * y))
    if colouring == "diff":
        return ramp(DIFF, math.log1p(x + y - g) / math.log1p(diff_max))
    return RED if g == 0 else WHITE


def block_colour(colouring, k, ref, x0, y0, side, diff_max):
    """A zoomed-out pixel: the block's sample, mean or share, as README says."""
    block = ref[y0:y0 + side, x0:x0 + side].astype(float)
    ys, xs = np.mgrid[y0:y0 + block.shape[0], x0:x0 + block.shape[1]]
    if colouring == "mod":
        return hue(int(ref[y0, x0]) % k, k)
    if colouring == "scaled":
        t = np.where(ys > 0, (block - xs + 2 * ys) / np.maximum(3 * ys, 1), 0)
        return ramp(SCALED, t.mean())
    if colouring == "diff":
        return ramp(DIFF, math.log1p((xs + ys - block).mean()) / math.log1p(diff_max))
    a = min(1.0, (block == 0).mean() * side)
    return np.rint(WHITE + (RED - WHITE) * a)


def png_pixels(body):
    from matplotlib import image as mimage

    img = mimage.imread(io.BytesIO(body), format="png")
    return np.rint(img[..., :3] * 255).astype(int)


@pytest.fixture(scope="module")
def wide(grundy_exe, tmp_path_factory):
    path = tmp_path_factory.mktemp("view") / "wide.h5"
    subprocess.run([grundy_exe, "compute", "--rows", str(WIDE_ROWS), "--cols", str(WIDE_COLS),
                    "--tile", "64", "--output", str(path), "--quiet"], check=True)
    return path


@pytest.fixture(scope="module")
def wide_ref():
    return reference_table(WIDE_ROWS, REF_COLS)


def test_errors_one_line_and_status_2(grundy_exe, tmp_path, wide):
    import h5py

    missing = subprocess.run([grundy_exe, "view", str(tmp_path / "none.h5")],
                             capture_output=True, text=True, timeout=30)
    (tmp_path / "text.h5").write_text("not a table\n")
    garbage = subprocess.run([grundy_exe, "view", str(tmp_path / "text.h5")],
                             capture_output=True, text=True, timeout=30)
    incomplete = tmp_path / "incomplete.h5"
    shutil.copy(wide, incomplete)
    with h5py.File(incomplete, "r+") as f:
        f.attrs["complete"] = np.int32(0)
    refused = subprocess.run([grundy_exe, "view", str(incomplete)],
                             capture_output=True, text=True, timeout=30)
    for r in (missing, garbage, refused):
        assert r.returncode == 2, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert r.stdout == ""
    assert "incomplete" in refused.stderr
    with Server(grundy_exe, incomplete, "--allow-incomplete") as s:
        assert s.get("/info")[0] == 200
        assert s.stop()[0] == 0
    # Nothing is written beside an incomplete table.
    assert not Path(str(incomplete) + ".pyramid").exists()


BAD = [
    "/tile/mod/7/0/0.png",                      # deeper than the deepest zoom
    "/tile/mod/-5/0/0.png",                     # coarser than the whole table
    "/tile/mod/99999/0/0.png",                  # a huge zoom
    "/tile/mod/-99999999999999999999/0/0.png",  # beyond any integer
    "/tile/mod/0/16/0.png",                     # right of the table
    "/tile/mod/0/0/1.png",                      # above it
    "/tile/mod/0/-1/0.png",
    "/tile/mod/0/0/0.png?k=1",
    "/tile/mod/0/0/0.png?k=x",
    "/tile/mod/0/0/0.png?up=2",
    "/tile/nope/0/0/0.png",
    "/tile/mod/0/0/0.jpg",
    "/tile/mod/0/0/0.png/../../../etc/passwd",
    "/../../../../etc/passwd",
    "/leaflet/../../../../etc/passwd",
    "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/leaflet/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/leaflet/..%2f..%2f..%2fetc%2fpasswd",
    "/leaflet/images/../../../../../etc/passwd",
    "/view.js/../../../etc/passwd",
    "/value?x=-1&y=0",
    "/value?x=0&y=64",
    "/value?x=4096&y=0",
    "/value?x=1e3&y=0",
    "/value?x=0",
    "/etc/passwd",
    "/nothing",
]


def test_bad_requests_get_4xx_and_the_server_keeps_serving(grundy_exe, wide, wide_ref):
    with Server(grundy_exe, wide) as s:
        for path in BAD:
            status, body = s.get(path)
            assert 400 <= status < 500, (path, status)
            assert b"root:" not in body
        status, body = s.get("/value?x=5&y=3")
        assert status == 200 and f'"g":{wide_ref[3, 5]}'.encode() in body
        assert s.get("/leaflet/leaflet.js")[0] == 200
        assert s.stop()[0] == 0


def test_200_parallel_requests_from_8_threads(grundy_exe, wide, wide_ref):
    rng = np.random.default_rng(5)
    cells = [(int(rng.integers(REF_COLS)), int(rng.integers(WIDE_ROWS))) for _ in range(150)]
    tiles = []
    for i in range(50):
        z = -4 + i % 8
        span = 256 >> z if z >= 0 else 256 << -z
        tiles.append((z, (i * 7) % -(-WIDE_COLS // span)))
    with Server(grundy_exe, wide, "--cache-mib", "1") as s:

        def value(cell):
            x, y = cell
            status, body = s.get(f"/value?x={x}&y={y}")
            return status == 200 and body == f'{{"x":{x},"y":{y},"g":{wide_ref[y, x]}}}'.encode()

        def tile(zt):
            z, tx = zt
            status, body = s.get(f"/tile/scaled/{z}/{tx}/0.png")
            return status == 200 and png_pixels(body).shape == (256, 256, 3)

        with ThreadPoolExecutor(8) as pool:
            # Mixed: each thread asks for cells and tiles, through a cache of one chunk.
            jobs = [(value, c) for c in cells] + [(tile, t) for t in tiles]
            order = rng.permutation(len(jobs))
            results = list(pool.map(lambda i: jobs[i][0](jobs[i][1]), order))
        assert len(results) == 200 and all(results)
        assert s.stop()[0] == 0


def test_sigterm_exits_0(grundy_exe, wide):
    with Server(grundy_exe, wide) as s:
        assert s.get("/tile/mod/0/0/0.png")[0] == 200
        rc, seconds = s.stop()
        print(f"SIGTERM to exit: {seconds:.3f} s")
        assert rc == 0, seconds


def test_pyramid_cut_short_while_serving_fails_its_tiles_only(grundy_exe, wide, tmp_path):
    """The pyramid is read from its file as tiles ask for it: cut short after the viewer opened
    it, the zoomed-out tiles it no longer holds get a 500, and the server goes on."""
    copy = tmp_path / "wide.h5"
    shutil.copy(wide, copy)
    shutil.copy(f"{wide}.pyramid", f"{copy}.pyramid")
    with Server(grundy_exe, copy) as s:
        os.truncate(f"{copy}.pyramid", 2048)
        status, body = s.get("/tile/scaled/-4/0/0.png")
        assert status == 500 and b"cut short" in body, (status, body)
        assert s.get("/tile/scaled/0/0/0.png")[0] == 200
        assert s.stop()[0] == 0


@pytest.mark.parametrize("colouring", ["mod", "scaled", "diff", "ppos"])
def test_tiles_show_the_colourings(grundy_exe, wide, wide_ref, colouring):
    diff_max = 3 * (WIDE_ROWS - 1)
    k = 7
    with Server(grundy_exe, wide) as s:
        # Zoom 2: 4 pixels per cell, rows upwards (up=1: row 0 at the picture's bottom).
        status, body = s.get(f"/tile/{colouring}/2/0/0.png?k={k}&up=1")
        assert status == 200
        px = png_pixels(body)
        for x, y in [(0, 0), (5, 3), (17, 40), (63, 63), (30, 11)]:
            got = px[255 - (4 * y + 1), 4 * x + 1]
            want = cell_colour(colouring, k, x, y, wide_ref[y, x], diff_max)
            assert np.abs(got - want).max() <= 1, (x, y, got, want)
        # Zoomed out, from the cells (2 x 2 per pixel) and from the pyramid (16 x 16).
        for zoom in (-1, -4):
            side = 1 << -zoom
            status, body = s.get(f"/tile/{colouring}/{zoom}/0/0.png?k={k}")
            px = png_pixels(body)
            for bx, by in [(0, 0), (3, 1), (REF_COLS // side - 1, WIDE_ROWS // side - 1)]:
                want = block_colour(colouring, k, wide_ref, bx * side, by * side, side, diff_max)
                assert np.abs(px[by, bx] - want).max() <= 2, (zoom, bx, by, px[by, bx], want)
        assert s.stop()[0] == 0


def chromium(width=900, height=700):
    """Headless Chromium through Debian's chromedriver, one CSS pixel per screen pixel, sRGB."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        binary = None
    if not binary or not driver:
        why = "needs chromium, chromium-driver and python3-selenium"
        if os.environ.get("GRUNDY_REQUIRE_BROWSER"):  # scripts/test installs them
            pytest.fail(why)
        pytest.skip(why)
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--force-device-scale-factor=1", "--force-color-profile=srgb",
                f"--window-size={width},{height}", "--hide-scrollbars"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(driver), options=options)


def open_view(browser, url, timeout=30):
    """Opens the page at `url` and waits until its tiles have loaded."""
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get("about:blank")  # a new page, not a new hash of the same one
    browser.get(url)
    WebDriverWait(browser, timeout).until(
        lambda b: b.execute_script("return document.body.dataset.tiles") == "loaded")
    time.sleep(0.2)  # the last tile painted


def screen(browser):
    from matplotlib import image as mimage

    img = mimage.imread(io.BytesIO(browser.get_screenshot_as_png()), format="png")
    return np.rint(img[..., :3] * 255).astype(int)


def screen_point(browser, x, y, dx, dy):
    """Where on the screen the point (x + dx, y + dy) of the table is, in whole pixels."""
    p = browser.execute_script(
        "const v = window.grundyView;"
        "const q = v.map.latLngToContainerPoint(v.cellCorner(arguments[0], arguments[1]));"
        "const r = document.getElementById('map').getBoundingClientRect();"
        "return [q.x + r.left, q.y + r.top];", x + dx, y + dy)
    return int(math.floor(p[0])), int(math.floor(p[1]))


def test_browser_shows_the_colours_and_the_hovered_cell(grundy_exe, table, reference):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    rows, cols = reference.shape
    diff_max = 3 * (min(rows, cols) - 1)
    browser = chromium()
    try:
        with Server(grundy_exe, table) as s:
            cases = [(2, "mod", 5, "bl", 40), (3, "diff", 5, "tl", 32), (4, "scaled", 5, "bl", 16),
                     (4, "ppos", 5, "tl", 16)]
            for zoom, colouring, k, origin, centre in cases:
                open_view(browser, f"{s.url}#x={centre}&y=12&z={zoom}&c={colouring}&k={k}&o={origin}")
                px = screen(browser)
                panel = browser.find_element(By.ID, "panel").rect
                checked = 0
                for x, y in [(0, 0), (3, 5), (5, 3), (10, 2), (20, 20), (33, 7), (25, 40), (13, 8),
                             (21, 13), (1, 25)]:
                    # A quarter into the cell: clear of the value written in its middle.
                    sx, sy = screen_point(browser, x, y, 0.25, 0.25)
                    if not (0 <= sx < panel["x"] - 2 and 0 <= sy < px.shape[0]):
                        continue  # off the screen, or under the panel
                    want = cell_colour(colouring, k, x, y, reference[y, x], diff_max)
                    got = px[sy, sx]
                    assert np.abs(got - want).max() <= 2, (zoom, colouring, x, y, got, want)
                    checked += 1
                assert checked >= 5, (zoom, colouring)
            # Hovering over a cell shows it.
            open_view(browser, f"{s.url}#x=30&y=20&z=3&c=mod&k=5&o=bl")
            the_map = browser.find_element(By.ID, "map")
            size = the_map.size
            for x, y in [(12, 7), (25, 30)]:
                sx, sy = screen_point(browser, x, y, 0.5, 0.5)
                ActionChains(browser).move_to_element_with_offset(
                    the_map, sx - size["width"] // 2, sy - size["height"] // 2).perform()
                want = f"x = {x}, y = {y}, g = {reference[y, x]}"
                WebDriverWait(browser, 10).until(
                    lambda b: want in b.find_element(By.ID, "hover").text)
            # Once a page had the token, its cookie serves the bare URL (tiles, JSON, hovering);
            # without a view in the URL the page opens on (g - x + 2y) / 3y.
            open_view(browser, f"http://127.0.0.1:{s.port}/")
            assert browser.find_element(By.ID, "colouring").get_attribute("value") == "scaled"
            tiles = browser.execute_script(
                "return [...document.querySelectorAll('img.leaflet-tile')].map(t => t.src)")
            assert tiles and all("/tile/scaled/" in t for t in tiles), tiles
            assert s.stop()[0] == 0
    finally:
        browser.quit()


def test_row_periods_from_the_file(grundy_exe, wide, tmp_path):
    analysed = tmp_path / "analysed.h5"
    shutil.copy(wide, analysed)
    subprocess.run([grundy_exe, "analyze", str(analysed)], check=True, capture_output=True,
                   timeout=120)
    with Server(grundy_exe, analysed) as s:
        status, body = s.get("/info")
        assert status == 200 and b'"periods":true' in body
        # Rows 1..4: periods 3, 3, 6, 12 (OEIS A004482-A004485; DESIGN.md).
        for y, period in [(1, 3), (2, 3), (3, 6), (4, 12)]:
            status, body = s.get(f"/value?x=100&y={y}")
            assert status == 200 and f'"period":{period}}}'.encode() in body, body
        status, body = s.get("/periods")
        assert status == 200 and body.startswith(b"[[0,")
        assert s.stop()[0] == 0


@pytest.mark.skipif(not os.environ.get("GRUNDY_VIEW_SCREENSHOT"),
                    reason="GRUNDY_VIEW_SCREENSHOT=PATH writes the README's picture")
def test_screenshot(grundy_exe, tmp_path):
    path = tmp_path / "screenshot.h5"
    subprocess.run([grundy_exe, "compute", "--rows", "1024", "--cols", "4096", "--output",
                    str(path), "--quiet"], check=True)
    subprocess.run([grundy_exe, "analyze", str(path)], check=True, capture_output=True)
    browser = chromium(1200, 800)
    try:
        with Server(grundy_exe, path) as s:
            from selenium.webdriver.common.action_chains import ActionChains
            from selenium.webdriver.common.by import By

            open_view(browser, f"{s.url}#x=700&y=330&z=-1&c=scaled&k=5&o=bl&pp=1")
            the_map = browser.find_element(By.ID, "map")
            sx, sy = screen_point(browser, 600, 300, 0.5, 0.5)
            ActionChains(browser).move_to_element_with_offset(
                the_map, sx - the_map.size["width"] // 2, sy - the_map.size["height"] // 2).perform()
            time.sleep(1)
            browser.save_screenshot(os.environ["GRUNDY_VIEW_SCREENSHOT"])
            s.stop()
    finally:
        browser.quit()


@pytest.mark.parametrize("tile", [64, 24])  # 24: tiles that share the pyramid's blocks
def test_compute_writes_the_pyramid_that_view_builds(grundy_exe, tmp_path, wide, tile):
    import h5py

    written = tmp_path / "written.h5"
    subprocess.run([grundy_exe, "compute", "--rows", "100", "--cols", "4100", "--tile", str(tile),
                    "--output", str(written), "--quiet"], check=True)
    assert Path(str(written) + ".pyramid").exists()
    built = tmp_path / "built.h5"
    shutil.copy(written, built)
    with Server(grundy_exe, built) as s:
        assert s.stop()[0] == 0
    with h5py.File(str(written) + ".pyramid") as a, h5py.File(str(built) + ".pyramid") as b:
        assert a.attrs["rows"] == 100 and a.attrs["cols"] == 4100
        assert sorted(a) == sorted(b) == ["level_4", "level_5"]
        for level in a:
            for name in ("sample", "scaled", "diff", "p_share"):
                np.testing.assert_allclose(a[level][name][()], b[level][name][()], rtol=1e-5)
        # The base level against the definition, on the reference's columns.
        ref = reference_table(100, 256)
        base = a["level_4"]
        ys, xs = np.mgrid[0:100, 0:256]
        for by in range(0, 7):
            for bx in range(0, 16):
                blk = (slice(16 * by, 16 * by + 16), slice(16 * bx, 16 * bx + 16))
                g, x, y = ref[blk].astype(float), xs[blk], ys[blk]
                assert base["sample"][by, bx] == ref[16 * by, 16 * bx]
                t = np.where(y > 0, (g - x + 2 * y) / np.maximum(3 * y, 1), 0).mean()
                assert abs(base["scaled"][by, bx] - t) < 1e-5
                assert abs(base["diff"][by, bx] - (x + y - g).mean()) < 1e-3
                assert abs(base["p_share"][by, bx] - (g == 0).mean()) < 1e-7
    # --no-pyramid writes none, and removes a stale one.
    subprocess.run([grundy_exe, "compute", "--rows", "100", "--cols", "4100", "--force",
                    "--no-pyramid", "--output", str(written), "--quiet"], check=True)
    assert not Path(str(written) + ".pyramid").exists()
