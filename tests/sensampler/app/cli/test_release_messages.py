"""Every refusal of ``sensampler release`` names the flag as typed, in one line,
exit 2 (before: Python words such as ``random_state=-1``, ``bounds='auto'``
without naming ``--population``, ``epsilon=-1.0`` for ``--budget-epsilon``), and
its output counts in the right number ("1 release", not "1 releases")."""

import os

import pytest

from sensampler._lib.words import counted

from .test_cli import in_process

ROOT = os.path.dirname(os.path.abspath(__file__)).split("/tests/")[0]
DATA = os.path.join(ROOT, "examples", "data", "private_heights.csv")
PUBLIC = "bootstrap:" + os.path.join(ROOT, "examples", "data", "public_heights.csv")
BASE = ["release", "--data", DATA, "--column", "height", "--epsilon", "0.5"]


@pytest.mark.parametrize(
    "flags, words",
    [
        ([], ["--population is missing", "--bounds auto", "--bounds LOW:HIGH"]),
        (["--population", PUBLIC, "--seed", "-1"], ["--seed must be >= 0, got --seed -1"]),
        (["--population", PUBLIC, "--n-jobs", "0"], ["--n-jobs", "got --n-jobs 0"]),
        (["--population", PUBLIC, "--report", "/no/such/r.html"],
         ["--report /no/such/r.html"]),
        (["--population", PUBLIC, "--budget-epsilon", "1"],
         ["--budget-epsilon needs --budget-file"]),
        (["--population", PUBLIC, "--budget-file", "{tmp}/l.json",
          "--budget-epsilon", "-1"],
         ["--budget-epsilon must be > 0.0, got --budget-epsilon -1.0"]),
        (["--population", PUBLIC, "--epsilon", "0"], ["--epsilon must be > 0"]),
        (["--population", PUBLIC, "--mechanism", "gaussian"], ["--mechanism gaussian",
                                                               "--delta 0.0"]),
    ],
)
def test_each_refusal_names_the_flag_as_typed(flags, words, tmp_path):
    flags = [f.replace("{tmp}", str(tmp_path)) for f in flags]
    result = in_process(*BASE, *flags)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    for word in words:
        assert word in lines[0], lines[0]
    for python in ("random_state", "n_jobs", "report=", "bounds='", "epsilon=-1"):
        assert python not in lines[0], lines[0]
    assert not os.listdir(tmp_path)  # nothing written


def test_plan_names_column_for_a_bootstrap():
    result = in_process("plan", "--query", "mean", "--population", PUBLIC, "--n",
                        "100", "--epsilon", "1")
    assert result.returncode == 2
    assert "needs --column" in result.stderr and "population=" not in result.stderr


def test_one_release_is_one_release_in_the_budget_line(tmp_path):
    ledger = str(tmp_path / "l.json")
    result = in_process(*BASE, "--population", PUBLIC, "--seed", "0",
                        "--budget-file", ledger, "--budget-epsilon", "1")
    assert result.returncode == 0, result.stderr
    assert "(basic composition; 1 release)" in result.stdout


def test_counted_words():
    assert counted(1, "file") == "1 file"
    assert counted(0, "file") == "0 files"
    assert counted(2, "sensitivity", "sensitivities") == "2 sensitivities"
