"""Releases with bounds: no exact answers, both statements, the price printed.

Each case of issue 27's list: every one released exactly (or recorded
epsilon = 0) before bounds existed.
"""

import json

import numpy as np
import pytest

from sensampler.accounting import (
    ExceededPrivacyBudgetError,
    PrivacyFilter,
    default_filter,
)
from sensampler.app.budget_file import BudgetFile
from sensampler.app.cli import main
from sensampler.app.release import prepare_releases, release_statistic
from sensampler.distributions import Bernoulli, Empirical, Normal
from sensampler.privacy import PrivacyStatement

HEIGHTS = "normal:loc=170,scale=10"


def _heights(n, seed=1):
    return np.random.default_rng(seed).normal(170.0, 10.0, n)


def _csv(path, name, values):
    path.write_text(name + "\n" + "\n".join(f"{v!r}" for v in values) + "\n")
    return str(path)


# ----------------------------------------------------------- the cases of the issue
def test_a_one_row_public_table_is_refused_before_any_spend(tmp_path):
    # Before: sampled sensitivity 0, the mean printed exactly ("scale 0").
    data = _heights(500)
    public = _csv(tmp_path / "one.csv", "height", [171.0])
    budget = PrivacyFilter(5.0, 0.0)
    # (refused as a public sample too small for any statement, issue 28)
    with pytest.raises(ValueError, match="add public rows, or use a population model"):
        release_statistic(
            data, "mean", f"bootstrap:{public}", column="height", epsilon=0.5,
            budget=budget, random_state=0,
        )
    assert budget.count == 0


def test_a_one_row_public_table_is_refused_even_with_given_bounds(tmp_path):
    # A one-row public sample supports no random-DP statement (issue 28), bounds or
    # not: refused before anything is spent, naming the fix.
    data = _heights(500)
    public = _csv(tmp_path / "one.csv", "height", [171.0])
    budget = PrivacyFilter(1.0)
    with pytest.raises(ValueError, match="the public sample has 1 row"):
        release_statistic(
            data, "mean", f"bootstrap:{public}", column="height", epsilon=0.5,
            bounds=(100.0, 250.0), random_state=0, budget=budget,
        )
    assert budget.count == 0


def test_a_sampled_zero_with_given_bounds_adds_the_floor_noise():
    # floor: Delta_wc = 150 / 500 = 0.3, cap 5: scale 0.06
    data = _heights(500)
    constant = Normal(171.0, 1e-300)  # every sampled pair differs by 0 after clipping
    r = release_statistic(
        data, "mean", constant, epsilon=0.5, bounds=(100.0, 250.0), random_state=0,
    )
    assert r.estimate.sensitivity.value == 0.0 and r.value != data.mean()
    assert r.noise == "Laplace noise of scale 0.06"
    assert r.statement.worst_case.epsilon == pytest.approx(5.0)


def test_discrete_laplace_never_records_epsilon_zero(tmp_path):
    # Before: "epsilon=0" stated, and 0 recorded after five releases on a 0.5 budget.
    data = _heights(500)
    with pytest.raises(ValueError, match="give bounds"):
        release_statistic(
            data, "mean", Empirical([171.0]), epsilon=0.5, mechanism="discrete-laplace"
        )
    path = tmp_path / "ledger.json"
    budget = BudgetFile(path, epsilon=10.0)
    for seed in range(5):
        r = release_statistic(
            data, "mean", Empirical([171.0]), epsilon=0.5, mechanism="discrete-laplace",
            bounds="100:250", budget=budget, random_state=seed,
        )
        assert r.statement.epsilon == 0.5 and r.statement.worst_case.epsilon <= 5.0
    spent = BudgetFile(path).filter()
    assert spent.spent.epsilon == 2.5
    assert spent.worst_case().epsilon == pytest.approx(
        5 * r.statement.worst_case.epsilon
    )
    entries = json.loads(path.read_text())["entries"]
    assert all(e["worst_case_epsilon"] > 0 for e in entries)


def test_a_histogram_bin_the_model_never_reaches_is_not_released_exactly():
    # Before: the exact counts [1. 0.] of 200 heights, one of them 235.
    data = _heights(199)
    data = np.append(data, 235.0)
    r = release_statistic(data, "histogram:2:230:250", HEIGHTS, epsilon=0.5,
                          random_state=0)
    assert not np.array_equal(r.value, [1.0, 0.0])
    assert r.statement.worst_case.epsilon <= 5.0
    assert r.estimate.worst_case == 2.0  # replace-one, l1


@pytest.mark.slow
def test_a_rare_bernoulli_count_is_never_exact():
    # Before: 10 of 20 seeds sampled sensitivity 0 and published the exact count.
    column = (np.random.default_rng(0).random(1000) < 0.002).astype(float)
    releases = [
        release_statistic(column, "count", Bernoulli(0.002), epsilon=0.5,
                          random_state=seed)
        for seed in range(20)
    ]
    assert sum(r.value == column.sum() for r in releases) == 0
    assert all(r.statement.worst_case.epsilon <= 5.0 for r in releases)


@pytest.mark.slow
def test_an_outlier_is_not_released_by_the_maximum():
    # Before: quantile:1 released 987647 for a column holding 987654.321.
    data = _heights(500)
    data[3] = 987654.321
    r = release_statistic(data, "quantile:1", HEIGHTS, epsilon=0.5, random_state=0)
    assert abs(r.value - 987654.321) > 9e5
    # a quantile: the exponential mechanism over the bounds, its scale sampled;
    # for every pair at most 4 epsilon
    assert r.bounds.high < 250 and r.statement.source == "sampled"
    assert r.statement.epsilon <= 0.5 and r.statement.worst_case.epsilon <= 2.0


# ---------------------------------------------------------------- private bounds
def test_private_bounds_need_no_population_and_spend_their_epsilon():
    data = np.random.default_rng(0).lognormal(10.0, 1.0, 1000)
    budget = PrivacyFilter(1.0, 0.0)
    r = release_statistic(data, "mean", None, epsilon=0.7, bounds="private:0.3",
                          budget=budget)
    assert r.estimate is None and r.statement.source == "global"
    assert r.statement.gamma == 0.0 and r.bounds.source == "private"
    assert budget.spent.epsilon == pytest.approx(1.0) and budget.count == 2
    assert budget.worst_case().epsilon == pytest.approx(1.0)
    assert abs(r.value - data.mean()) < 0.2 * data.mean()


def test_a_private_release_over_budget_spends_nothing():
    budget = PrivacyFilter(0.9, 0.0)
    with pytest.raises(ValueError, match="exceed|budget"):
        release_statistic(_heights(1000), "mean", None, epsilon=0.7,
                          bounds="private:0.3", budget=budget)
    assert budget.count == 0


@pytest.mark.parametrize(
    "bounds, message",
    [
        ("5:1", "low < high"),
        ("private:0", "private:EPS0"),
        ("private:x", "private:EPS0"),
        ("wide", "bounds must be"),
        (3.0, "bounds must be"),
    ],
)
def test_bad_bounds_are_refused_before_any_spend(bounds, message):
    budget = PrivacyFilter(5.0, 0.0)
    with pytest.raises((TypeError, ValueError), match=message):
        release_statistic(_heights(100), "mean", HEIGHTS, epsilon=0.5, bounds=bounds,
                          budget=budget)
    assert budget.count == 0


def test_without_a_population_the_bounds_must_be_private():
    with pytest.raises(ValueError, match="private:EPS0"):
        release_statistic(_heights(100), "mean", None, epsilon=0.5)
    with pytest.raises(ValueError, match="no worst-case sensitivity"):
        release_statistic(_heights(100), lambda d: d.max(), None, epsilon=0.5,
                          bounds="private:0.5")


def test_the_release_states_both_and_the_price():
    r = release_statistic(_heights(500), "mean", HEIGHTS, epsilon=1.0, random_state=0)
    text = r.text()
    assert "worst case epsilon=" in text and "for every pair" in text
    assert "price      a worst-case guarantee at epsilon=1-DP" in text
    out = r.to_dict()
    assert out["worst_case"]["epsilon"] == r.statement.worst_case.epsilon
    assert out["bounds"]["source"] == "population"


# ------------------------------------------------------------------ command line
def test_cli_private_bounds_without_a_population(tmp_path, capsys):
    data = _csv(tmp_path / "incomes.csv", "income",
                np.random.default_rng(0).lognormal(10.0, 1.0, 1000).tolist())
    code = main(["release", "--data", data, "--column", "income", "--epsilon", "0.7",
                 "--bounds", "private:0.3"])
    out = capsys.readouterr().out
    assert code == 0
    assert "private bounds: epsilon=0.3-DP" in out
    assert "worst case, together: epsilon=1-DP for every pair" in out


def test_cli_prints_both_statements_and_the_price(tmp_path, capsys):
    data = _csv(tmp_path / "h.csv", "height", _heights(500).tolist())
    code = main(["release", "--data", data, "--column", "height", "--epsilon", "1",
                 "--population", HEIGHTS, "--seed", "0", "--worst-case-epsilon", "2"])
    out = capsys.readouterr().out
    assert code == 0
    assert "except with probability gamma=" in out
    assert "  worst case epsilon=" in out and "  price      " in out


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--bounds", "5:1"], "low < high"),
        (["--bounds", "private:-1"], "private:EPS0"),
        (["--worst-case-epsilon", "0"], "--worst-case-epsilon must be > 0"),
        (["--population"], "give --population"),
    ],
)
def test_cli_bad_bounds_exit_2_in_one_line(tmp_path, capsys, flags, message):
    data = _csv(tmp_path / "h.csv", "height", _heights(50).tolist())
    args = ["release", "--data", data, "--column", "height", "--epsilon", "1"]
    if flags != ["--population"]:  # else: no population at all
        args += ["--population", HEIGHTS, *flags]
    code = main(args)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and message in err[0]


def test_cli_one_row_public_table_exits_2_naming_the_fix(tmp_path, capsys):
    data = _csv(tmp_path / "h.csv", "height", _heights(50).tolist())
    public = _csv(tmp_path / "one.csv", "height", [171.0])
    code = main(["release", "--data", data, "--column", "height", "--epsilon", "0.5",
                 "--population", f"bootstrap:{public}"])
    err = capsys.readouterr().err
    assert code == 2 and "add public rows, or use a population model" in err


def test_cli_budget_file_reports_the_worst_case_total(tmp_path, capsys):
    data = _csv(tmp_path / "h.csv", "height", _heights(200).tolist())
    ledger = str(tmp_path / "ledger.json")
    args = ["release", "--data", data, "--column", "height", "--epsilon", "0.5",
            "--population", HEIGHTS, "--budget-file", ledger]
    assert main([*args, "--budget-epsilon", "2", "--seed", "1"]) == 0
    assert "worst case: epsilon=" in capsys.readouterr().out
    assert main([*args, "--seed", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    worst = [r["worst_case"]["epsilon"] for r in out["releases"]]
    assert out["budget"]["worst_case"]["epsilon"] >= worst[0]
    assert main([*args, "--seed", "3", "--bounds", "none", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["budget"]["worst_case"] is None


# ------------------------------------------- the pre-pass is spent last among checks
def test_a_default_filter_too_small_for_the_release_refuses_before_the_pre_pass():
    # Before: the pre-pass was tried alone, spent (0.3 of 0.9), and the release
    # (0.7) refused afterwards, leaving 0.3 spent for nothing.
    data = np.random.default_rng(0).lognormal(10.0, 1.0, 1000)
    default = PrivacyFilter(0.9, 0.0)
    with default_filter(default):
        with pytest.raises(ExceededPrivacyBudgetError, match="exceed"):
            release_statistic(data, "mean", None, epsilon=0.7, bounds="private:0.3")
    assert default.count == 0


def test_a_budget_and_a_smaller_default_refuse_before_the_pre_pass():
    data = np.random.default_rng(0).lognormal(10.0, 1.0, 1000)
    budget, default = PrivacyFilter(5.0, 0.0), PrivacyFilter(0.9, 0.0)
    with default_filter(default):
        with pytest.raises(ExceededPrivacyBudgetError, match="exceed"):
            release_statistic(data, "mean", None, epsilon=0.7, bounds="private:0.3",
                              budget=budget)
    assert budget.count == 0 and default.count == 0


def test_a_spend_between_prepare_and_run_refuses_before_the_pre_pass(tmp_path):
    # Another process spends from the budget file after the release was
    # prepared: the run tries the pre-pass and the release together, under the
    # file's lock, before spending the pre-pass.
    path = tmp_path / "ledger.json"
    prepared = prepare_releases(_heights(1000), ["mean"], None, epsilon=0.6,
                                bounds="private:0.3", budget=BudgetFile(path, epsilon=1.0))
    with BudgetFile(path, epsilon=1.0).session() as session:
        session.spend(PrivacyStatement("elsewhere", 0.2, 0.0), "elsewhere")
    with pytest.raises(ExceededPrivacyBudgetError, match="exceed"):
        prepared.run()
    assert BudgetFile(path).filter().count == 1  # the other spend only


def test_cli_a_sampled_zero_without_bounds_spends_and_writes_nothing(tmp_path, capsys):
    # Bernoulli(0.002), n = 1000, seed 1: every sampled pair agrees, the sampled
    # sensitivity is 0; without bounds the release is refused after sampling
    # (exit 1: found during the work), naming the fix, and the budget file is
    # neither created nor changed.
    column = (np.random.default_rng(0).random(1000) < 0.002).astype(int)
    data = _csv(tmp_path / "b.csv", "x", column.tolist())
    ledger = tmp_path / "ledger.json"
    args = ["release", "--data", data, "--column", "x", "--query", "sum",
            "--population", "bernoulli:p=0.002", "--bounds", "none",
            "--epsilon", "0.5", "--budget-file", str(ledger), "--seed", "1"]
    assert main([*args, "--budget-epsilon", "2"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "the sampled sensitivity is 0" in err[0]
    assert "--bounds" in err[0] and "nothing was released or spent" in err[0]
    assert not ledger.exists()
    with BudgetFile(ledger, epsilon=2.0).session() as session:
        session.spend(PrivacyStatement("earlier", 0.1, 0.0), "earlier")
    before = ledger.read_bytes()
    assert main(args) == 1
    assert ledger.read_bytes() == before


def test_private_bounds_with_a_population_release_plain_dp():
    # before: the mean's sensitivity was sampled from the population on records
    # clipped to bounds drawn from the data themselves, a random-DP statement
    # whose gamma holds for bounds fixed before the data only
    data = np.random.default_rng(0).lognormal(10.0, 1.0, 1000)
    budget = PrivacyFilter(1.0, 0.0)
    r = release_statistic(data, "mean", "lognormal:mu=10,sigma=1", epsilon=0.7,
                          bounds="private:0.3", budget=budget, random_state=0)
    assert r.estimate is None and r.statement.source == "global"
    assert r.statement.gamma == 0.0 and budget.spent.gamma == 0.0
    assert budget.worst_case().epsilon == pytest.approx(1.0)
