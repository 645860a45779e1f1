"""Audit findings on quantile releases and release reports.

Each test is expected to fail until the finding is fixed (strict xfail)."""

import csv
import os

import numpy as np
import pytest

from sensampler.accounting import (
    ExceededPrivacyBudgetError,
    PrivacyFilter,
    default_filter,
)
from sensampler.app.budget_file import BudgetFile, BudgetFileError
from sensampler.app.cli import main
from sensampler.app.release import (
    prepare_releases,
    release_statistic,
    release_statistics,
)
from sensampler.mechanisms import ExponentialQuantileMechanism

POP = "normal:loc=170,scale=10"
OUTLIER = 987654.321


def _csv(path, values, column="height"):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", column])
        writer.writerows((i, repr(float(v))) for i, v in enumerate(values))
    return str(path)


def test_the_private_file_as_population_publishes_no_record_of_it(tmp_path, capsys):
    heights = np.random.default_rng(20261126).normal(170, 10, 50)
    private = _csv(tmp_path / "private.csv", [*heights, OUTLIER])
    code = main(["release", "--data", private, "--column", "height", "--population",
                 f"bootstrap:{private}", "--query", "median", "--epsilon", "0.5",
                 "--json"])
    out, err = capsys.readouterr()
    # measured: exit 0, "bounds": [<the minimum record>, 987654.321]
    assert code == 2 and out == "", out
    assert str(OUTLIER) not in out + err


def test_a_report_cannot_overwrite_the_budget_it_spends_from(tmp_path):
    ledger = str(tmp_path / "ledger.json")
    data = np.random.default_rng(20261126).normal(170, 10, 200)
    release_statistic(data, "median", POP, epsilon=0.5,
                      budget=BudgetFile(ledger, epsilon=1.0))
    try:
        release_statistic(data, "median", POP, epsilon=0.5, budget=ledger,
                          report=ledger)
    except ValueError:
        pass  # refused before anything is spent: what a fix may do
    try:
        spent = BudgetFile(ledger).filter().spent.epsilon
    except BudgetFileError:  # measured: the ledger is now the HTML page
        spent = None
    assert spent is not None and spent >= 0.5


def test_a_secure_mechanism_choice_is_not_dropped_for_a_median():
    # Documented (docs/release.md): a quantile uses the exponential mechanism
    # whatever --mechanism says, and that mechanism is now floating-point safe
    # too: a public grid of outputs, sampled exactly from the secure generator.
    # The release must say so, and its value must be a point of that grid.
    data = np.random.default_rng(20261126).normal(170, 10, 200)
    r = release_statistic(data, "median", POP, epsilon=0.5,
                          mechanism="discrete-laplace")
    assert r.mechanism == "exponential"
    assert "sampled exactly on a grid of 16385 points" in r.noise
    assert "secure generator" in r.noise
    grid = ExponentialQuantileMechanism(0.5, r.bounds, 0.5).grid
    assert r.value in grid.tolist()


def test_several_releases_under_a_default_filter_are_all_or_nothing():
    data = np.random.default_rng(20261126).normal(170, 10, 200)
    budget = PrivacyFilter(0.6)
    with default_filter(budget), pytest.raises(ExceededPrivacyBudgetError):
        release_statistics(data, ["median", "quantile:0.9"], POP, epsilon=0.5)
    # measured: epsilon=0.5 spent, one ledger entry, no value returned
    assert len(budget.ledger) == 0


def test_a_different_default_filter_is_tried_before_the_budget_is_spent():
    data = np.random.default_rng(20261126).normal(170, 10, 200)
    budget, default = PrivacyFilter(10.0), PrivacyFilter(0.6)
    with default_filter(default), pytest.raises(ExceededPrivacyBudgetError):
        release_statistics(data, ["median", "quantile:0.9"], POP, epsilon=0.5,
                           budget=budget)
    # before: the budget spent both releases, the default the first one
    assert len(budget.ledger) == len(default.ledger) == 0


def test_a_prepared_release_displays_no_record_and_no_exact_answer():
    planted = 213.579246
    data = np.append(np.random.default_rng(20261126).normal(170, 10, 20), planted)
    prepared = prepare_releases(data, ["mean"], POP, epsilon=1.0)
    exact = f"{np.mean(data):.6g}"
    shown = repr(prepared) + str(prepared)
    html = getattr(prepared, "_repr_html_", None)
    if html is not None:
        shown += html()
    # measured: "data=array([... 213.579246])", "answers=(array(172.36...),)"
    assert "213.579" not in shown
    assert exact[:6] not in shown


def test_a_report_naming_an_input_file_is_refused_before_any_spend(tmp_path, capsys):
    heights = np.random.default_rng(20261126).normal(170, 10, 50)
    private = _csv(tmp_path / "private.csv", heights)
    public = _csv(tmp_path / "public.csv", heights + 1.0)
    ledger = str(tmp_path / "ledger.json")
    hard = str(tmp_path / "hard.csv")
    os.link(private, hard)  # the data under another name
    soft = str(tmp_path / "soft.json")
    os.symlink(ledger, soft)  # the budget file, not yet created
    # issue 37: a symbolic link is refused as such, whatever it leads to
    for report, what in ((hard, "--data"), (soft, "is a symbolic link"),
                         (public, "--population")):
        before = open(private).read(), open(public).read()
        code = main(["release", "--data", private, "--column", "height",
                     "--population", f"bootstrap:{public}", "--query", "mean",
                     "--epsilon", "0.5", "--budget-file", ledger,
                     "--budget-epsilon", "1", "--report", report])
        out, err = capsys.readouterr()
        assert code == 2 and what in err and "Traceback" not in err, err
        assert (open(private).read(), open(public).read()) == before
        assert not os.path.exists(ledger)  # nothing created, nothing spent
