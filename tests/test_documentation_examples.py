"""Every Python block of the README and of the guide runs, and prints what it shows.

Blocks are doctests (``>>>``) where they print, plain code otherwise; they are
read by Sybil, in order, each page in its own namespace (a page's blocks build on
one another). A block that needs a cluster is marked ``<!-- skip: next -->``.
"""

import doctest
import glob
import os
import pathlib

import pytest

sybil = pytest.importorskip("sybil", reason="needs the test extra: sensampler[test]")
from sybil.parsers.markdown import PythonCodeBlockParser, SkipParser  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = ["README.md"] + sorted(
    os.path.relpath(path, ROOT)
    for path in glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True)
    if "_build" not in path and "generated" not in path
)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def test_pages_are_found():
    assert "docs/guide/mechanisms.md" in PAGES


#: Pages whose examples sample for long (seconds or more): run with the slow tests.
SLOW_PAGES = {"docs/auditing.md", "docs/guide/experiments.md", "docs/release.md"}


@pytest.mark.parametrize(
    "page",
    [
        pytest.param(page, marks=pytest.mark.slow) if page in SLOW_PAGES else page
        for page in PAGES
    ],
)
def test_page_examples(page, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    parser = sybil.Sybil(
        parsers=[PythonCodeBlockParser(doctest_optionflags=FLAGS), SkipParser()]
    )
    for example in parser.parse(pathlib.Path(ROOT, page)):
        example.evaluate()
