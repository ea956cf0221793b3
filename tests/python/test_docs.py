"""The documentation's examples run as written: every fenced block of README.md and docs/*.md,
in order, file by file, in a scratch folder that holds the repository's build, scripts and jobs
and an empty results/ (docs/testing.md, "The documentation's examples", states the conventions):

- ```sh blocks run in bash, ```python blocks in /usr/bin/python3 with PYTHONPATH=build/python;
- a block whose first line is `// file: PATH` or `# file: PATH` is saved at PATH;
- a block whose info string says `fragment` is not run, and its first line must be a
  `# fragment: ...` (or `// fragment: ...`) comment naming its placeholders or needs;
- `# prints: TEXT` comments name lines the block prints, in that order;
- ```text (and ```ini, ```cmake without a file line) blocks are never run; a block without an
  info string is refused, so that nothing escapes the test unseen.

--rows and --cols above $GRUNDY_DOC_MAX_SIDE (4096 here; 0: the documented sizes) are cut down
to it, and `scripts/run JOB` runs as `build/grundy run JOB` (scripts/test has just built it).
"""

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
RUN = {"sh": "sh", "bash": "sh", "python": "python"}
FENCE = re.compile(r"^(\s*)```(.*)$")
FILE_LINE = re.compile(r"^(?://|#) file: (\S+)\s*$")
FRAGMENT_LINE = re.compile(r"^(?://|#) fragment: \S")
PRINTS = re.compile(r"#\s*prints:\s*(.*?)\s*$")
SIZE = re.compile(r"(--rows|--cols)([ =])(2\^\d+|\d+)")
MAX_SIDE = int(os.environ.get("GRUNDY_DOC_MAX_SIDE", "4096"))
BLOCK_TIMEOUT = 300


@dataclass
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    info: str
    text: str

    @property
    def where(self):
        return f"{self.path.relative_to(REPO)}:{self.line}"

    @property
    def language(self):
        return self.info.split()[0] if self.info else ""

    @property
    def fragment(self):
        return "fragment" in self.info.split()[1:]


def blocks(path):
    """The fenced blocks of a Markdown file, in order."""
    out, lines, i = [], path.read_text(encoding="utf-8").split("\n"), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, info, start = m.group(1), m.group(2).strip(), i
        body = []
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            # Text after a closing fence makes it no fence: the block would run on to the next
            # block's opening fence and swallow the prose between them.
            if lines[i].strip().startswith("```"):
                raise AssertionError(f"{path.relative_to(REPO)}:{i + 1}: a fence inside the "
                                     f"block of line {start + 1}: text after a closing ```?")
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        if i == len(lines):
            raise AssertionError(f"{path.relative_to(REPO)}:{start + 1}: unclosed ``` block")
        out.append(Block(path, start + 1, info, "\n".join(body) + "\n"))
        i += 1
    return out


def shrink(text, max_side=MAX_SIDE):
    """--rows N and --cols N cut down to max_side (0: unchanged)."""
    if not max_side:
        return text

    def cut(m):
        v = m.group(3)
        n = 2 ** int(v[2:]) if v.startswith("2^") else int(v)
        return m.group(0) if n <= max_side else f"{m.group(1)}{m.group(2)}{max_side}"

    return SIZE.sub(cut, text)


def as_run(text):
    """The block as the test runs it: scripts/run is build/grundy run, sizes cut down."""
    return shrink(re.sub(r"(^|[\s;&|(])scripts/run(?=\s)", r"\1build/grundy run", text,
                         flags=re.M))


def expected_prints(text):
    return [m.group(1) for m in map(PRINTS.search, text.split("\n")) if m and m.group(1)]


def missing_prints(expected, output):
    """The first expected line not found, in order, among the output's lines (spaces compared
    loosely), or None when all are there."""
    norm = [" ".join(line.split()) for line in output.split("\n")]
    at = 0
    for want in expected:
        w = " ".join(want.split())
        while at < len(norm) and norm[at] != w:
            at += 1
        if at == len(norm):
            return want
        at += 1
    return None


def scratch_folder(tmp_path, build):
    """A folder that looks like the repository root to the examples: its top-level entries
    linked (build from `build`), and an empty results/ of its own."""
    root = tmp_path / "repo"
    root.mkdir()
    for entry in REPO.iterdir():
        if entry.name not in (".git", "results", "build") and not entry.name.startswith("build-"):
            (root / entry.name).symlink_to(entry)
    (root / "build").symlink_to(build)
    (root / "results").mkdir()
    return root


def run_block(block, root, env):
    text = as_run(block.text)
    if block.language == "sh":
        cmd = ["bash", "-e", "-o", "pipefail", "-c", text]
    else:
        script = root.parent / "block.py"
        script.write_text(text, encoding="utf-8")
        cmd = ["/usr/bin/python3", str(script)]
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True,
                          timeout=BLOCK_TIMEOUT)
    shown = f"{block.where}:\n{text}\n--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n" \
            f"{proc.stderr[-3000:]}"
    assert proc.returncode == 0, f"block failed with exit status {proc.returncode}: {shown}"
    missing = missing_prints(expected_prints(block.text), proc.stdout)
    assert missing is None, f"the block does not print {missing!r}: {shown}"


def check_block_form(block):
    first = block.text.split("\n", 1)[0]
    assert block.info, f"{block.where}: a block needs an info string (sh, python, text, ...)"
    if block.fragment:
        assert FRAGMENT_LINE.match(first), \
            f"{block.where}: a fragment's first line must be '# fragment: <what to supply>'"


@pytest.fixture(scope="module")
def build_dir():
    exe = Path(os.environ.get("GRUNDY_EXE") or REPO / "build" / "grundy")
    build = exe.parent
    needed = [exe, build / "python", build / "grundy-mpi"]
    absent = [str(p) for p in needed if not p.exists()]
    if absent:
        if os.environ.get("GRUNDY_REQUIRE_MODULE"):
            pytest.fail(f"the examples need the whole build; missing: {', '.join(absent)}")
        pytest.skip(f"the examples need the whole build (scripts/test); missing: {absent}")
    return build


@pytest.mark.parametrize("doc", DOCS, ids=[str(p.relative_to(REPO)) for p in DOCS])
def test_examples_run_as_written(doc, build_dir, tmp_path):
    root = scratch_folder(tmp_path, build_dir)
    env = dict(os.environ, PYTHONPATH="build/python", GRUNDY_DOC_MAX_SIDE=str(MAX_SIDE))
    env.pop("GRUNDY_EXE", None)  # the examples name build/grundy themselves
    ran = 0
    for block in blocks(doc):
        check_block_form(block)
        if block.fragment:
            continue
        file_line = FILE_LINE.match(block.text.split("\n", 1)[0])
        if file_line:
            target = root / file_line.group(1)
            assert target.resolve().is_relative_to(root / "results"), \
                f"{block.where}: example files go under results/"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text, encoding="utf-8")
        elif block.language in RUN:
            run_block(Block(block.path, block.line, RUN[block.language], block.text), root, env)
            ran += 1
    assert ran or doc.name == "benchmarks.md", f"{doc.name} has no example that runs"


def test_readme_is_short():
    lines = (REPO / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 350, f"README.md has {lines} lines; the guides under docs/ take the rest"


def test_every_block_has_its_form():
    for doc in DOCS:
        for block in blocks(doc):
            check_block_form(block)


# The checker itself, on examples that must fail.


def test_a_wrong_print_is_caught():
    assert missing_prints(["8 13"], "8  13\n") is None
    assert missing_prints(["8 13"], "8 14\n") == "8 13"
    assert missing_prints(["a", "b"], "b\na\n") == "b"  # order counts
    assert expected_prints("build/grundy move 25 30   # prints: 8 13\nls\n") == ["8 13"]


def test_a_failing_block_fails(tmp_path):
    block = Block(REPO / "README.md", 1, "sh", "false\n")
    with pytest.raises(AssertionError, match="exit status 1"):
        run_block(block, tmp_path, dict(os.environ))


def test_a_fragment_must_name_what_it_needs():
    with pytest.raises(AssertionError, match="fragment"):
        check_block_form(Block(REPO / "README.md", 1, "sh fragment", "grundy verify F.h5\n"))
    check_block_form(Block(REPO / "README.md", 1, "sh fragment",
                           "# fragment: F.h5 is your table\ngrundy verify F.h5\n"))


def test_sizes_are_cut_down_and_scripts_run_is_the_program():
    assert shrink("x --rows 16384 --cols 2^20 --rows 128", 4096) == \
        "x --rows 4096 --cols 4096 --rows 128"
    assert shrink("--rows 16384", 0) == "--rows 16384"
    assert as_run("scripts/run jobs/quickstart.ini\n") == "build/grundy run jobs/quickstart.ini\n"
