"""An outside audit of the calibrated quantile release (the exponential
mechanism with a scale sampled from the population model): budgets, relations,
private bounds, public samples, reports, reproducibility and the command line.
Each test is an attempt to make a release state, spend or print less than holds."""

import csv

import numpy as np
import pytest

from sensampler.accounting import ExceededPrivacyBudgetError, PrivacyFilter
from sensampler.app.budget_file import BudgetFile
from sensampler.app.cli import main
from sensampler.app.release import (
    prepare_releases,
    release_statistics,
)
from sensampler.distributions import Normal
from sensampler.plan import sampling_plan
from sensampler.quantile_calibration import check_calibration

POP = "normal:loc=170,scale=10"


def _heights(n=300, seed=20261126):
    return np.random.default_rng(seed).normal(170, 10, n)


def _csv(path, values, column="h"):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([column])
        writer.writerows([v] for v in values)
    return str(path)


def _calibration_gamma(n=300, gamma=0.05, neighbours="replace-one"):
    """The gamma a calibration's own plan certifies (its m, not the fewest pairs)."""
    return check_calibration(0.5, (0.0, 1.0), 1.0, Normal(170, 10), n, gamma=gamma,
                             neighbours=neighbours)[3].gamma


# ------------------------------------------------------------------ budgets


def test_the_planned_gamma_bounds_what_the_calibration_spends():
    # before: a calibrated quantile was planned at the gamma of the fewest pairs
    # (m=113: 0.049814), and its calibration (m=2000) spent 0.049874: a budget at
    # the planned amount passed prepare_releases and was refused by run()
    fewest = sampling_plan(gamma=0.05).gamma
    assert fewest < _calibration_gamma()
    budget = PrivacyFilter(10.0, 0.0, gamma=fewest)
    with pytest.raises(ExceededPrivacyBudgetError):
        prepare_releases(_heights(), ["median"], POP, epsilon=0.5, budget=budget)
    assert budget.count == 0
    # a budget exactly at the planned amount holds what run() spends
    prepared = prepare_releases(_heights(), ["median"], POP, epsilon=0.5,
                                random_state=0)
    planned = prepared.planned[0]
    budget = PrivacyFilter(planned.epsilon, 0.0, gamma=planned.gamma)
    prepared = prepare_releases(_heights(), ["median"], POP, epsilon=0.5,
                                random_state=0, budget=budget)
    (r,) = prepared.run()
    assert r.statement.gamma <= planned.gamma and budget.count == 1


def test_the_private_bounds_pre_pass_is_not_spent_for_a_refused_gamma():
    # before: the pre-pass's eps0 was spent, then the calibrated median refused
    budget = PrivacyFilter(10.0, 0.0, gamma=sampling_plan(gamma=0.05).gamma)
    with pytest.raises(ExceededPrivacyBudgetError):
        prepare_releases(_heights(), ["median"], POP, epsilon=0.5, budget=budget,
                         bounds="private:1")
    assert budget.count == 0 and budget.spent.epsilon == 0.0


def test_several_calibrated_quantiles_count_gamma_once_each_all_or_nothing(tmp_path):
    g = _calibration_gamma()
    path = tmp_path / "l.json"
    rs = release_statistics(_heights(), ["median", "quantile:0.9"], POP, epsilon=0.5,
                            budget=BudgetFile(path, epsilon=10.0, gamma=2 * g),
                            random_state=0)
    assert [r.statement.gamma for r in rs] == [g, g]
    assert rs[0].statement.run.run_id != rs[1].statement.run.run_id
    spent = BudgetFile(path).filter()
    assert spent.gamma == pytest.approx(2 * g) and spent.count == 2
    # a gamma budget for one and a half: neither is released, nothing written
    with pytest.raises(ExceededPrivacyBudgetError):
        release_statistics(_heights(), ["median", "quantile:0.9"], POP, epsilon=0.5,
                           budget=BudgetFile(tmp_path / "m.json", epsilon=10.0,
                                             gamma=1.5 * g), random_state=0)
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("cap, epsilon", [(None, 0.1), (0.5, 1.0)])
def test_a_filter_s_auto_rule_is_planned_on_the_quantile_s_own_spend(cap, epsilon):
    # before: a quantile was planned at (epsilon, delta) of the Gaussian release
    # (or at epsilon under a cap below it), and spent (epsilon, 0) (or the cap):
    # the filter's "auto" rule, chosen on the first spend, was basic in the plan
    # and advanced in the run, whose delta/2 then refused the means
    budget = PrivacyFilter(100.0, 1e-5, gamma=0.9)
    assert budget._choose_rule(cap or epsilon, 0.0) == "advanced"
    assert budget._choose_rule(epsilon, 1e-6 if cap is None else 0.0) == "basic"
    with pytest.raises(ExceededPrivacyBudgetError, match="delta/2"):
        prepare_releases(_heights(), ["median"] + ["mean"] * 7, POP, epsilon=epsilon,
                         delta=1e-6, mechanism="gaussian", gamma=0.1, budget=budget,
                         worst_case_epsilon=cap)
    assert budget.count == 0
    prepared = prepare_releases(_heights(), ["median", "mean"], POP, epsilon=epsilon,
                                delta=1e-6, mechanism="gaussian", gamma=0.1,
                                worst_case_epsilon=cap)
    assert (prepared.planned[0].epsilon, prepared.planned[0].delta) == (
        min(epsilon, cap or epsilon), 0.0)


# ---------------------------------------------------------------- the CLI


@pytest.mark.parametrize("value", ["nan", "-1", "0", "inf", "1e400"])
def test_bad_worst_case_epsilon_exits_2_in_one_line_spending_nothing(
    tmp_path, capsys, value
):
    private = _csv(tmp_path / "p.csv", _heights())
    ledger = tmp_path / "l.json"
    BudgetFile(ledger, epsilon=10.0, gamma=0.5)
    before = ledger.read_text() if ledger.exists() else None
    code = main(["release", "--data", private, "--column", "h", "--population", POP,
                 "--query", "median", "--epsilon", "0.5", "--budget-file", str(ledger),
                 "--worst-case-epsilon", value])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "worst_case_epsilon" in err
    assert (ledger.read_text() if ledger.exists() else None) == before
