"""Quantile queries release through the exponential mechanism over public bounds:
its scale sampled from the population model (random DP with gamma, and a worst
case of at most 4 epsilon for every pair), or plain epsilon-DP for every pair
(no population, or a worst-case cap at epsilon)."""

import csv
import json
import re

import numpy as np
import pytest

from sensampler import queries
from sensampler._lib import memory as _memory
from sensampler.accounting import PrivacyFilter
from sensampler.app.budget_file import BudgetFile
from sensampler.app.cli import main
from sensampler.app.release import (
    QuantileRelease,
    Release,
    prepare_releases,
    release_statistic,
    release_statistics,
)
from sensampler.audit import audit_mechanism
from sensampler.bounds import Bounds
from sensampler.distributions import GaussianMixture, Normal
from sensampler.mechanisms import ExponentialQuantileMechanism

POP = "normal:loc=170,scale=10"
HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])


def _csv(path, values, column="height"):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", column])
        writer.writerows(enumerate(values))
    return str(path)


def _heights(n=300, seed=20261126):
    return np.random.default_rng(seed).normal(170, 10, n)


def test_an_outlier_is_never_published_by_the_top_quantile():
    # before: the Laplace mechanism on a sampled sensitivity released 987647
    # for quantile:1 of heights holding one 987654.321
    data = np.append(_heights(), 987654.321)
    for _ in range(20):
        r = release_statistic(data, "quantile:1", POP, epsilon=0.5, random_state=0)
        # N(170, 10)'s 0.9995 quantile is 202.9; the output never leaves the bounds
        assert r.bounds.low <= r.value <= r.bounds.high < 203
    assert 0 < r.statement.gamma <= 0.05 and r.statement.source == "sampled"
    assert 0.5 <= r.statement.worst_case.epsilon <= 2.0
    plain = release_statistic(data, "quantile:1", POP, epsilon=0.5,
                              worst_case_epsilon=0.5)
    assert plain.statement.gamma == 0.0 and plain.statement.source == "global"
    assert plain.calibration is None and plain.value < 203


def test_median_uses_the_exponential_mechanism_with_model_bounds():
    data = HEIGHTS.sample(500, random_state=1)
    r = release_statistic(data, "median", HEIGHTS, epsilon=1.0, random_state=0)
    assert isinstance(r, QuantileRelease) and r.mechanism == "exponential"
    assert r.estimate is None and r.statement.run is r.calibration.run
    worst = r.statement.worst_case.epsilon
    assert worst == pytest.approx(2 * r.calibration.scale) and 1.0 < worst <= 4.0
    assert re.fullmatch(
        r"exponential quantile: epsilon=1-DP, except with probability gamma="
        r"0\.049\d* over the data drawn from the population model \(random DP, "
        r"replace-one neighbours\); worst case: epsilon=1\.\d+-DP for every pair "
        r"of neighbours",
        str(r.statement),
    ), str(r.statement)
    # bounds: the model's quantiles at coverage 0.999, from a large public sample
    draws = HEIGHTS.sample(1_000_000, random_state=5)
    low, high = np.quantile(draws, [0.0005, 0.9995])
    assert (r.bounds.low, r.bounds.high) == pytest.approx((low, high), abs=0.3)
    assert r.bounds.source == "population" and r.bounds.epsilon == 0.0
    assert r.guarantee.startswith(
        "epsilon=1-DP for replace-one neighbours (n=500 records), except with "
        "probability gamma="
    )
    # a worst-case cap at epsilon: the plain mechanism, for every pair
    plain = release_statistic(data, "median", HEIGHTS, epsilon=1.0,
                              worst_case_epsilon=1.0)
    assert str(plain.statement) == (
        "exponential quantile: epsilon=1-DP (replace-one neighbours)"
    )
    assert plain.guarantee == (
        "epsilon=1-DP for replace-one neighbours (n=500 records), for every pair "
        "of neighbouring databases (worst case: no gamma)"
    )


def test_median_error_is_that_of_the_exponential_mechanism():
    # n = 500 heights, epsilon = 1: the exponential mechanism's rank error is
    # about 2 records, ~0.15 cm mean absolute error; a Laplace release of the
    # median on a sampled sensitivity had ~0.17 (issue 27)
    rng = np.random.default_rng(2017)
    errors = []
    for _ in range(60):
        data = HEIGHTS.sample(500, random_state=rng)
        r = release_statistic(data, "median", HEIGHTS, epsilon=1.0, random_state=0)
        errors.append(abs(r.value - np.median(data)))
    assert np.median(errors) < 0.2 and np.mean(errors) < 0.3


def test_given_bounds_are_used_as_a_pair_or_an_object():
    data = _heights()
    for bounds in ((150, 190), "150:190", Bounds.given(150.0, 190.0)):
        r = release_statistic(data, "quantile:0.25", POP, epsilon=1.0, bounds=bounds)
        assert (r.bounds.low, r.bounds.high) == (150.0, 190.0)
        assert r.bounds.source == "given"
        assert 150.0 <= r.value <= 190.0


def test_a_degenerate_population_is_refused_before_anything_is_spent(tmp_path):
    # a population model with no width: its quantiles bound nothing
    public = _csv(tmp_path / "public.csv", [171.0] * 50)
    budget = PrivacyFilter(5.0)
    message = "the population model gives no width to clip to"
    with pytest.raises(ValueError, match=re.escape(message)):
        release_statistic(_heights(), "median", f"bootstrap:{public}", epsilon=0.5,
                          column="height", budget=budget)
    assert budget.count == 0
    r = release_statistic(_heights(), "median", f"bootstrap:{public}", epsilon=0.5,
                          column="height", budget=budget, bounds=(100, 250))
    assert 100 <= r.value <= 250 and budget.count == 1


@pytest.mark.parametrize(
    "bounds, error, message",
    [
        ((170.0, 170.0), ValueError, "bounds must have low < high"),
        ((np.nan, 1.0), ValueError, "low must be finite, got low=nan."),
        ("nonsense", ValueError,
         "bounds must be 'auto', 'none', 'LOW:HIGH' or 'private:EPS0'"),
    ],
)
def test_bad_bounds_are_refused_before_anything_is_spent(bounds, error, message):
    budget = PrivacyFilter(5.0)
    with pytest.raises(error, match=re.escape(message)):
        prepare_releases(_heights(), ["mean"], POP, epsilon=0.5, bounds=bounds,
                         budget=budget)
    assert budget.count == 0


def test_other_queries_keep_the_sampled_sensitivity():
    data = _heights()
    both = release_statistics(
        data, ["mean", queries.quantile([0.1, 0.9])], Normal(170, 10), epsilon=1.0,
        random_state=0,
    )
    assert all(type(r) is Release and r.statement.run is not None for r in both)


def test_budget_file_records_a_plain_dp_spend_under_a_cap_at_epsilon(tmp_path):
    budget = BudgetFile(tmp_path / "l.json", epsilon=1.0, gamma=0.05)
    rs = release_statistics(_heights(), ["median", "quantile:0.9"], POP,
                            epsilon=0.5, budget=budget, random_state=0,
                            worst_case_epsilon=0.5)
    spent = BudgetFile(tmp_path / "l.json").filter()
    assert spent.spent.epsilon == pytest.approx(1.0) and spent.gamma == 0.0
    assert [r.statement.gamma for r in rs] == [0.0, 0.0]
    assert "median (exponential)" in (tmp_path / "l.json").read_text()


def test_a_cap_below_epsilon_releases_the_plain_mechanism_at_the_cap():
    # before: the plain mechanism at epsilon stated a worst case above the cap
    r = release_statistic(_heights(), "median", POP, epsilon=1.0, worst_case_epsilon=0.4)
    assert r.statement.source == "global" and r.statement.epsilon == 0.4
    assert r.worst_case == (
        "the guarantee above holds for every pair (no sampled sensitivity)"
    )


def test_budget_file_records_a_calibrated_quantile_with_its_gamma(tmp_path):
    budget = BudgetFile(tmp_path / "l.json", epsilon=1.0, gamma=0.1)
    r = release_statistic(_heights(), "median", POP, epsilon=0.5, budget=budget)
    spent = BudgetFile(tmp_path / "l.json").filter()
    assert spent.spent.epsilon == pytest.approx(0.5)
    assert spent.gamma == pytest.approx(r.statement.gamma) and 0 < spent.gamma <= 0.05
    assert spent.worst_case().epsilon == r.statement.worst_case.epsilon
    # the gamma budget holds two such releases, not three: nothing is drawn then
    release_statistic(_heights(), "median", POP, epsilon=0.1, budget=budget)
    with pytest.raises(ValueError, match="exceed|budget"):
        release_statistic(_heights(), "median", POP, epsilon=0.1, budget=budget)
    assert BudgetFile(tmp_path / "l.json").filter().count == 2


def test_command_prints_the_plain_statement_and_the_bounds(tmp_path, capsys):
    private = _csv(tmp_path / "private.csv", np.append(_heights(), 987654.321))
    code = main(["release", "--data", private, "--column", "height", "--population",
                 POP, "--query", "median", "--epsilon", "0.5"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "except with probability gamma=" in out
    assert re.search(r"worst case epsilon=[0-9.]+-DP for every pair", out), out
    assert "exponential quantile, utility -|rank - 0.5n| of sensitivity 1" in out
    assert "times the plain scale" in out
    assert re.search(r"price      a worst-case guarantee at epsilon=0.5-DP with the "
                     r"same bounds would need the plain scale t = 0.25, [0-9.]+ times "
                     r"smaller \(--worst-case-epsilon 0.5\)", out), out
    assert "bounds     [" in out and "987654" not in out
    code = main(["release", "--data", private, "--column", "height", "--population",
                 POP, "--query", "median", "--epsilon", "0.5",
                 "--worst-case-epsilon", "0.5"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "for every pair of neighbouring databases (worst case: no gamma)" in out
    code = main(["release", "--data", private, "--column", "height", "--population",
                 POP, "--query", "quantile:1", "--epsilon", "0.5", "--json"])
    record = json.loads(capsys.readouterr()[0])["releases"][0]
    assert code == 0 and 0 < record["gamma"] <= 0.05 and record["answer"] < 203
    assert record["scale"] > 0.25 and record["m"] >= record["k"] > 0
    assert record["worst_case"]["epsilon"] == pytest.approx(2 * record["scale"])


def test_the_outlier_moves_the_top_quantile_within_its_statement():
    # audit from outside: the release's own mechanism on the data with the outlier
    # and with that record replaced (replace-one neighbours), at its stated epsilon
    base = _heights(40)
    with_outlier = np.append(base, 987654.321)
    without = np.append(base, 170.0)
    prepared = prepare_releases(with_outlier, ["quantile:1"], POP, epsilon=0.5)
    bounds = prepared.bounds  # the release's bounds, its mechanism over them
    mech = ExponentialQuantileMechanism(1.0, (bounds.low, bounds.high), 0.5)
    assert mech.privacy.epsilon == 0.5 and mech.privacy.gamma == 0.0
    result = audit_mechanism(mech, with_outlier, without, releases=4_000,
                             random_state=11)
    assert not result.violated and result.epsilon_lower <= 0.5
    # the release's own calibrated mechanism, audited at its worst case
    r = release_statistic(with_outlier, "quantile:1", POP, epsilon=0.5)
    calibrated = ExponentialQuantileMechanism(
        1.0, (bounds.low, bounds.high), 0.5, calibration=r.calibration
    )
    worst = calibrated.privacy.worst_case
    result = audit_mechanism(calibrated, with_outlier, without, releases=4_000,
                             random_state=11)
    assert result.epsilon_lower <= worst.epsilon


def test_a_quantile_over_private_bounds_is_the_plain_mechanism():
    # before: it was calibrated on the population over bounds drawn from the data
    # themselves, where the calibration's gamma needs bounds fixed before them
    budget = PrivacyFilter(2.0, 0.0)
    r = release_statistic(_heights(1000), "median", POP, epsilon=1.0,
                          bounds="private:0.5", budget=budget)
    assert r.calibration is None and r.statement.source == "global"
    assert r.statement.gamma == 0.0 and budget.spent.epsilon == pytest.approx(1.5)


def test_a_plain_quantile_needs_no_memory_for_a_sensitivity_it_does_not_sample(
    monkeypatch,
):
    # before: prepare_releases checked the memory of a sensitivity run for the
    # median, which the exponential mechanism never draws, and refused it
    monkeypatch.setattr(_memory, "available_memory", lambda: (2**25, "{} (test)"))
    data = np.random.default_rng(3).normal(170, 10, 3_000_000)
    with pytest.raises(ValueError, match="need about"):  # a variance samples
        prepare_releases(data, ["variance"], POP, epsilon=1.0, worst_case_epsilon=1.0)
    r = release_statistic(data, "median", POP, epsilon=1.0, worst_case_epsilon=1.0)
    assert r.calibration is None and abs(r.value - np.median(data)) < 1.0
