"""The status line: on a terminal, which step of a command runs and for how long.

A median release took 1 min 28 s with no sign of progress (issue 38): on a
terminal (stderr a tty) every command now says which step runs, erased before
its result is printed; never with ``--json``, ``--no-progress`` or a pipe.
"""

import io
import sys
import time

import pytest

from sensampler.app.cli import main
from sensampler.app.cli._status import ERASE, Status

DATA = ["--data", "examples/data/private_heights.csv", "--column", "height"]
POPULATION = ["--population", "bootstrap:examples/data/public_heights.csv"]


class FakeTTY(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self):
        return True


def _run(monkeypatch, args, stderr):
    """``main(args)`` with ``stderr`` as sys.stderr: (exit code, stdout)."""
    out = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    monkeypatch.setattr(sys, "stdout", out)
    code = main(args)
    monkeypatch.undo()
    return code, out.getvalue()


@pytest.fixture
def repository(monkeypatch):
    """Run from the repository's root, where the example files are."""
    from pathlib import Path

    monkeypatch.chdir(Path(__file__).resolve().parents[4])


def test_a_release_on_a_terminal_says_each_step(monkeypatch, repository):
    """Each query's step is named on stderr, and erased before the result."""
    monkeypatch.setenv("COLUMNS", "200")
    tty = FakeTTY()
    args = ["release", *DATA, "--query", "mean", *POPULATION, "--epsilon", "0.5",
            "--seed", "0"]
    code, out = _run(monkeypatch, args, tty)
    assert code == 0
    said = tty.getvalue()
    for step in ("checking the inputs", "mean: sampling the sensitivity on the "
                 "population model", "spending and drawing the noise"):
        assert f"sensampler release: {step} (" in said, said
    assert said.endswith(ERASE)
    assert ERASE not in out and out.startswith("examples/data/private_heights.csv")


@pytest.mark.parametrize(
    ("extra", "stream"),
    [(["--json"], FakeTTY()), (["--no-progress"], FakeTTY()), ([], io.StringIO())],
)
def test_no_status_in_json_when_refused_or_piped(monkeypatch, extra, stream):
    code, out = _run(monkeypatch, ["sampling-plan", "--gamma", "0.05", *extra], stream)
    assert code == 0 and out
    assert stream.getvalue() == ""
    assert ERASE not in out


def test_the_plan_says_its_runs(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    tty = FakeTTY()
    args = ["plan", "--query", "mean", "--n", "100", "--population", "normal",
            "--epsilon", "1", "--runs", "5", "--seed", "0"]
    code, out = _run(monkeypatch, args, tty)
    assert code == 0, tty.getvalue()
    assert "sensampler plan: drawing 5 planning runs from the population model (" in (
        tty.getvalue()
    )
    assert ERASE not in out


def test_the_line_counts_seconds_is_cut_to_the_terminal_and_erased(monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    tty = FakeTTY()
    with Status("sensampler x", enabled=True, stream=tty, every=0.01) as status:
        status.step("a step whose words run well past forty columns")
        time.sleep(0.1)
    lines = [line for line in tty.getvalue().split(ERASE) if line]
    assert len(lines) >= 3  # redrawn while the step runs
    assert all(len(line) <= 39 for line in lines), lines
    assert lines[0] == "sensampler x: a step whose words… (0 s)"
    assert tty.getvalue().endswith(ERASE)


def test_a_disabled_status_writes_nothing():
    stream = FakeTTY()
    with Status("sensampler x", enabled=False, stream=stream) as status:
        status.step("anything")
        status.stop()
    assert stream.getvalue() == ""
