"""Every ```console block of the documentation runs as written.

Each ``$ sensampler ...`` command of a page's console blocks is run from the root
of a temporary copy of the repository's examples (the shipped data files), in the
page's order (a budget file the first command creates is the one the next reads),
and what it prints is compared with the block: ``...`` stands for any text (as in
doctest), and the values that change from run to run (the released values, whose
noise comes from the operating system, and the sampling runs' ids) are masked on
both sides. A command whose block shows an ``error:`` line must exit 2, any other 0.

Before: no console block was run, and the release page's first block said both
"400 rows" and "2000 public rows" of one public file.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import re
import shlex
import shutil

import pytest

from sensampler.app.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = [
    "README.md",
    *sorted(
        os.path.relpath(os.path.join(folder, name), ROOT)
        for folder, _, names in os.walk(os.path.join(ROOT, "docs"))
        for name in names
        if name.endswith(".md")
    ),
]
_BLOCK = re.compile(r"^```console\n(.*?)^```", re.M | re.S)
#: A released value ("mean: 169.466", or with its unit and its public 90% band,
#: "mean: 169.47 cm (90%: ±0.203 cm)", the band kept) and a sampling run's id:
#: noise and uuids.
_NOISY = [
    (
        re.compile(r"^([a-z][\w:.\-]*): -?[0-9][0-9.e+\-]*((?: [^\s(]+)? \(90%: ±[^)]*\))?$", re.M),
        r"\1: <released>\2",
    ),
    (re.compile(r"\b[0-9a-f]{32}\b"), "<run id>"),
]


def commands(text: str) -> list[tuple[str, str]]:
    """The ``$ `` commands of a page's console blocks, each with its output."""
    found = []
    for block in _BLOCK.findall(text):
        lines = block.splitlines()
        i = 0
        while i < len(lines):
            if not lines[i].startswith("$ "):
                i += 1
                continue
            command = lines[i][2:]
            while command.endswith("\\"):
                i += 1
                command = command[:-1] + " " + lines[i].strip()
            i += 1
            output = []
            while i < len(lines) and not lines[i].startswith("$ "):
                output.append(lines[i])
                i += 1
            found.append((command, "\n".join(output)))
    return found


def _masked(text: str) -> str:
    for pattern, mask in _NOISY:
        text = pattern.sub(mask, text)
    return text.rstrip("\n") + "\n"


def _run(command: str) -> tuple[int, str]:
    words = shlex.split(command, comments=True)
    assert words[0] == "sensampler", command
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(words[1:])
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue() + err.getvalue()


def check_page(page: str, folder) -> None:
    """Run the page's console commands in ``folder`` and compare their outputs."""
    with open(os.path.join(ROOT, page), encoding="utf-8") as fh:
        found = commands(fh.read())
    shutil.copytree(os.path.join(ROOT, "examples"), os.path.join(folder, "examples"))
    checker = doctest.OutputChecker()
    with contextlib.chdir(folder):
        for command, want in found:
            code, got = _run(command)
            expected = 2 if re.search(r"^sensampler [a-z-]+: error:", want, re.M) else 0
            assert code == expected, f"{page}: $ {command}\nexit {code}\n{got}"
            assert checker.check_output(
                _masked(want), _masked(got), doctest.ELLIPSIS
            ), f"{page}: $ {command}\nshown:\n{want}\nprinted:\n{got}"


PAGES_WITH_COMMANDS = [page for page in PAGES if commands(open(
    os.path.join(ROOT, page), encoding="utf-8").read())]


def test_the_pages_show_console_blocks():
    # the guide's first release and the release page at least
    assert {"docs/guide/first-release.md", "docs/release.md"} <= set(PAGES_WITH_COMMANDS)


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES_WITH_COMMANDS)
def test_every_console_command_prints_what_its_page_shows(page, tmp_path):
    check_page(page, tmp_path)


@pytest.mark.slow
def test_the_first_release_page_goes_from_a_plan_to_the_budget_left(tmp_path):
    """The guide's first release takes the reader through a plan from a target
    error, a release spending from a budget file with a report, and the budget
    left (before: it stopped after one release, without the files to run it on)."""
    with open(os.path.join(ROOT, "docs/guide/first-release.md"), encoding="utf-8") as fh:
        found = [command for command, _ in commands(fh.read())]
    assert any(c.startswith("sensampler plan") and "--target-error" in c for c in found)
    assert any("--budget-file" in c and "--report release.html" in c for c in found)
    check_page("docs/guide/first-release.md", tmp_path)
    assert os.path.getsize(tmp_path / "release.html") > 1000
    ledger = (tmp_path / "ledger.json").read_text(encoding="utf-8")
    assert ledger.count('"mechanism"') == 2  # the refused release spent nothing


def test_the_example_data_are_what_their_script_writes(tmp_path):
    """examples/data/*.csv are the script's output, byte for byte."""
    script = os.path.join(ROOT, "examples", "data", "make_heights.py")
    shutil.copy(script, tmp_path)
    namespace = {"__file__": str(tmp_path / "make_heights.py"), "__name__": "x"}
    with open(script, encoding="utf-8") as fh:
        exec(compile(fh.read(), script, "exec"), namespace)  # noqa: S102
    namespace["main"]()
    for name in ("private_heights.csv", "public_heights.csv"):
        with open(os.path.join(ROOT, "examples", "data", name), "rb") as fh:
            assert (tmp_path / name).read_bytes() == fh.read(), name
