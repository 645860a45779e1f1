"""The guide keeps up with the code: every subcommand of the parser in the command-line
page, every key of the batch schema in the batch page, every page in the site."""

import argparse
import os
import re

from sensampler.app import cli as cli
from sensampler.app import specs
from sensampler.app.experiments import batch_config

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as fh:
        return fh.read()


def _subcommands():
    parser = cli.build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return set(sub.choices)


def test_the_command_line_page_shows_every_subcommand():
    # Before: 5 of the 7 (no release, no audit).
    page = _read("docs", "guide", "cli.md")
    shown = set(re.findall(r"^sensampler ([a-z-]+)", page, re.M))
    assert shown == _subcommands()
    for command in _subcommands():
        assert f"`{command}`" in page, command


def test_the_batch_page_documents_every_key_of_the_schema():
    # Before: the format was only in batch.py's docstring.
    page = _read("docs", "guide", "batch.md")
    tables = set(batch_config._TABLES)
    keys = (
        set(batch_config._GRID_RULES)
        | set(batch_config._RUN_RULES)
        | set(batch_config._DATASET_RULES)
        | set(batch_config._ERRORS_RULES)
        | set(specs.PRIVATE_ESTIMATOR_KEYS)
        | {"dataset"}
        | {key for params in specs.DATASET_KINDS.values() for key in params}
    )
    for table in tables:
        assert f"[{table}" in page, table
    for key in keys:
        assert f"`{key}`" in page, key
    for name in list(specs.MECHANISMS) + list(specs.ESTIMATORS):
        assert f"`{name}`" in page, name


def test_every_guide_page_is_in_the_site():
    index = _read("docs", "index.rst")
    for name in os.listdir(os.path.join(ROOT, "docs", "guide")):
        if name.endswith(".md"):
            assert f"guide/{name[:-3]}\n" in index, name
    first = index.index("guide/first-release")
    assert first < index.index("guide/quickstart")


def test_the_documentation_names_only_real_subcommands():
    """One name per command: the docs' ``sensampler WORD`` are subcommands (the
    grid runs are ``sensampler run``; there is no ``sensampler batch``)."""
    pages = ["README.md"] + [
        os.path.join(folder, name)
        for folder, _, names in os.walk(os.path.join(ROOT, "docs"))
        for name in names
        if name.endswith(".md")
    ]
    named = set()
    for page in pages:
        command = r"(?:`|^\$ |^)sensampler ([a-z][a-z-]+)\b(?! [a-z])"  # not prose
        named |= set(re.findall(command, _read(page), re.M))
    assert named <= _subcommands(), named - _subcommands()
    assert "batch" not in named
