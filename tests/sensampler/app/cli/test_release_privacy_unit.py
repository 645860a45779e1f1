"""``sensampler release``, ``plan`` and ``sweep`` with ``--privacy-unit COLUMN``:
a table of several rows per person, at the person level."""

import json
import os

import pytest

from .test_cli import in_process

ROOT = os.path.dirname(os.path.abspath(__file__)).split("/tests/")[0]
DATA = os.path.join(ROOT, "examples", "data", "private_purchases.csv")
PUBLIC = "bootstrap:" + os.path.join(ROOT, "examples", "data", "public_purchases.csv")
BASE = ["release", "--data", DATA, "--column", "amount", "--epsilon", "1",
        "--population", PUBLIC, "--seed", "0"]


@pytest.mark.slow
def test_a_person_level_release_from_files(tmp_path):
    """The flag reads the person of each row, the public file is grouped by the
    same column (whole persons bootstrapped), and the JSON, the text and the
    budget file carry the unit."""
    ledger = str(tmp_path / "l.json")
    result = in_process(*BASE, "--privacy-unit", "customer", "--query", "sum",
                        "--budget-file", ledger, "--budget-epsilon", "3", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    (release,) = out["releases"]
    assert release["privacy_unit"] == "person" and release["n"] == 300
    assert "public sample of 100 persons" in release["guarantee"]
    with open(ledger, encoding="utf-8") as fh:
        assert json.load(fh)["entries"][0]["privacy_unit"] == "person"
    text = in_process(*BASE, "--privacy-unit", "customer", "--query", "mean")
    assert text.returncode == 0, text.stderr
    assert "(one person's rows; n=300 persons" in text.stdout
    # the same budget file refuses a release about one record, before any work
    row = in_process(*BASE, "--query", "mean", "--budget-file", ledger)
    assert row.returncode == 2 and "about one record" in row.stderr


@pytest.mark.parametrize(
    "flags, words",
    [
        (["--privacy-unit", "shop"], ["has no column 'shop'"]),
        (["--privacy-unit", "amount"], ["--privacy-unit", "released column"]),
        (["--privacy-unit", "customer", "--query", "median"],
         ["person-level query", "'median'"]),
        (["--privacy-unit", "customer", "--bounds", "private:0.1"],
         ["private:EPS0", "person's rows"]),
    ],
)
def test_each_refusal_names_the_flag_or_column(flags, words):
    result = in_process(*BASE, *flags)
    assert result.returncode == 2, result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    for word in words:
        assert word in lines[0], lines[0]
    assert "c0001" not in lines[0]  # no record quoted


@pytest.mark.slow
def test_a_person_level_plan_from_a_public_table():
    """sensampler plan --privacy-unit: the plan of a person-level release from the
    public persons alone, in the release's words (one person's rows, n persons)."""
    result = in_process("plan", "--query", "sum", "--population", PUBLIC, "--column",
                        "amount", "--privacy-unit", "customer", "--n", "300",
                        "--epsilon", "1", "--seed", "0", "--runs", "20", "--json")
    assert result.returncode == 0, result.stderr
    plan = json.loads(result.stdout)
    assert plan["privacy_unit"] == "person" and plan["n"] == 300
    assert "(one person's rows; n=300 persons" in plan["guarantee"]
    assert "public sample of 100 persons" in plan["guarantee"]
    refused = in_process("plan", "--query", "median", "--population", PUBLIC,
                         "--column", "amount", "--privacy-unit", "customer", "--n",
                         "300", "--epsilon", "1")
    assert refused.returncode == 2 and "person-level query" in refused.stderr


@pytest.mark.slow
def test_a_person_level_sweep_from_a_public_table():
    """sensampler sweep --privacy-unit: databases of n persons bootstrapped from
    the public table grouped by the column, person-level releases; a model of
    one row and a quantile of totals are refused, naming the flag."""
    sweep = ["sweep", "--query", "sum", "--population", PUBLIC, "--column", "amount",
             "--privacy-unit", "customer", "--n", "300", "--repetitions", "10",
             "--epsilons", "0.5,2", "--seed", "0", "--json"]
    result = in_process(*sweep)
    assert result.returncode == 0, result.stderr
    rows = [r for r in json.loads(result.stdout) if r["statistic"] == "mean"]
    assert [r["epsilon"] for r in rows] == [0.5, 2.0]
    assert rows[0]["value"] > rows[1]["value"] > 0  # less noise at a larger epsilon
    for change, words in (
        (["--population", "normal:loc=0,scale=1"], "--privacy-unit needs a population"),
        (["--query", "median-of-totals"], "released on its own"),
    ):
        args = list(sweep)
        for i in range(0, len(change), 2):
            args[args.index(change[i]) + 1] = change[i + 1]
        refused = in_process(*args)
        assert refused.returncode == 2 and words in refused.stderr, refused.stderr


@pytest.mark.slow  # two person-level releases: ~10 s
def test_the_noise_figure_draws_the_mechanism_s_own_scale(tmp_path):
    """Found on this mean: the report's figure drew the noise of the sampled
    sensitivity alone ("90%: ±0.836") beside a text of the mechanism's noise
    (±1.79), which the worst-case cap had raised. The figure's band is the
    release's 90% half-width, whatever set the scale."""
    import re

    report = tmp_path / "mean.html"
    result = in_process(*BASE, "--privacy-unit", "customer", "--query", "sum",
                        "--query", "mean", "--epsilon", "0.5", "--report", str(report))
    assert result.returncode == 0, result.stderr
    page = report.read_text()
    bands = re.findall(r"noise is smaller than ([0-9.]+)", page)
    assert len(bands) == 2
    assert re.findall(r"90%: ±([0-9.]+)</text>", page) == bands, page
