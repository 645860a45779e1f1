"""Quantile queries release through the exponential mechanism over public bounds:
its scale sampled from the population model (random DP with gamma, and a worst
case of at most 4 epsilon for every pair), or plain epsilon-DP for every pair
(no population, or a worst-case cap at epsilon)."""

import csv
import json
import math
import re

import numpy as np
import pytest

from sensampler import queries
from sensampler._lib import memory as _memory
from sensampler.accounting import ExceededPrivacyBudgetError, PrivacyFilter
from sensampler.app.budget_file import BudgetFile
from sensampler.app.cli import main
from sensampler.app.release import (
    PRIVATE_BOUNDS,
    QuantileRelease,
    Release,
    prepare_releases,
    release_statistic,
    release_statistics,
)
from sensampler.audit import audit_mechanism
from sensampler.bounds import Bounds
from sensampler.distributions import GaussianMixture, LogNormal, Normal
from sensampler.mechanisms import ExponentialQuantileMechanism
from sensampler.plan import sampling_plan
from sensampler.privacy import to_replace_one
from sensampler.quantile_calibration import check_calibration

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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_given_bounds_are_used_as_a_pair_or_an_object():
    data = _heights()
    for bounds in ((150, 190), "150:190", Bounds.given(150.0, 190.0)):
        r = release_statistic(data, "quantile:0.25", POP, epsilon=1.0, bounds=bounds)
        assert (r.bounds.low, r.bounds.high) == (150.0, 190.0)
        assert r.bounds.source == "given"
        assert 150.0 <= r.value <= 190.0


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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
    assert r.statement.gamma == 0.0 and budget.spent.epsilon == 1.0  # no pre-pass


#: Log-normal incomes (median 30 000), the case without public data.
INCOMES = LogNormal(math.log(30_000), 0.9)


def _direct_median(data, epsilon, rng):
    """The exponential mechanism over the wide grid, computed here from its
    definition (McSherry & Talwar 2007): candidate c with r records below it has
    weight exp(-epsilon |r - n/2| / 2) (replace-one, utility sensitivity 1)."""
    grid = np.concatenate([-10.0 ** (np.arange(12000, -6001, -1) / 1000), [0.0],
                           10.0 ** (np.arange(-6000, 12001) / 1000)])
    below = np.searchsorted(np.sort(data), grid, side="left")
    distance = np.abs(below - data.size / 2)
    weights = np.exp(-epsilon * (distance - distance.min()) / 2)
    return float(grid[rng.choice(grid.size, p=weights / weights.sum())])


@pytest.mark.slow
def test_a_median_without_public_bounds_spends_its_whole_epsilon_on_the_median():
    """Before: ``bounds="private:0.5"`` spent 0.5 on a bounds pre-pass, then the
    median over them (n = 500 incomes: median error 515 against 221 for the
    exponential mechanism over a wide public grid at the whole epsilon). A
    quantile needs no bounds: the whole epsilon goes to the median, with no
    pre-pass entry in the ledger, and its error matches the direct mechanism's
    over the same grid (same data sets, within 6 standard errors)."""
    rng = np.random.default_rng(2017)
    ours, direct = [], []
    for _ in range(60):
        data = INCOMES.sample(500, random_state=rng)
        budget = PrivacyFilter(1.0, 0.0)  # the median's epsilon, no room for eps0
        r = release_statistic(data, "median", None, epsilon=1.0,
                              bounds="private:0.5", budget=budget)
        assert [entry.mechanism for entry in budget.ledger] == ["exponential quantile"]
        assert r.statement.epsilon == 1.0 and r.statement.source == "global"
        assert r.bounds is None and "wide public grid" in r.noise
        truth = float(np.median(data))
        ours.append(abs(r.value - truth))
        direct.append(abs(_direct_median(data, 1.0, rng) - truth))
    ours, direct = np.array(ours), np.array(direct)
    se = math.sqrt(ours.var(ddof=1) / ours.size + direct.var(ddof=1) / direct.size)
    assert abs(ours.mean() - direct.mean()) <= 6 * se


def test_a_private_bounds_pre_pass_is_spent_for_the_queries_that_need_it():
    """A mean over private bounds still pays eps0 for them, once; the median beside
    it is released over the wide grid (its record holds no bounds), not over the
    private bounds."""
    budget = PrivacyFilter(5.0, 0.0)
    mean, median = release_statistics(INCOMES.sample(500, random_state=1),
                                      ["mean", "median"], None, epsilon=1.0,
                                      bounds="private:0.5", budget=budget)
    assert [entry.mechanism for entry in budget.ledger] == [
        PRIVATE_BOUNDS, "Laplace", "exponential quantile"]
    assert budget.spent.epsilon == 2.5
    assert mean.bounds.source == "private" and median.bounds is None


@pytest.mark.slow
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


# ---------------------------------------------------- the calibrated quantile release
# An outside audit of the calibrated quantile release (the exponential mechanism with
# a scale sampled from the population model): budgets, relations, private bounds,
# public samples, reports, reproducibility and the command line. Each test is an
# attempt to make a release state, spend or print less than holds.


def _column_csv(path, values, column="h"):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([column])
        writer.writerows([v] for v in values)
    return str(path)


def _calibration_gamma(n=300, gamma=0.05, neighbours="replace-one"):
    """The gamma a calibration's own plan certifies (its m, not the fewest pairs)."""
    return check_calibration(0.5, (0.0, 1.0), 1.0, Normal(170, 10), n, gamma=gamma,
                             neighbours=neighbours)[3].gamma


@pytest.mark.slow
def test_the_planned_gamma_bounds_what_the_calibration_spends():
    """Before: a calibrated quantile was planned at the gamma of the fewest pairs
    (m=113: 0.049814), and its calibration (m=2000) spent 0.049874: a budget at the
    planned amount passed prepare_releases and was refused by run()"""
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


@pytest.mark.slow
def test_the_private_bounds_pre_pass_is_not_spent_for_a_refused_gamma():
    """Before: the pre-pass's eps0 was spent, then the calibrated median refused; over
    private bounds nothing is sampled now (plain DP, no gamma), and a budget too
    small for eps0 and the releases refuses before eps0 is spent."""
    budget = PrivacyFilter(1.2, 0.0)
    with pytest.raises(ExceededPrivacyBudgetError):
        prepare_releases(_heights(), ["median", "mean"], POP, epsilon=0.5,
                         budget=budget, bounds="private:1")
    assert budget.count == 0 and budget.spent.epsilon == 0.0
    plain = PrivacyFilter(10.0, 0.0, gamma=1e-9)  # no room for any sampled gamma
    prepare_releases(_heights(), ["median", "mean"], POP, epsilon=0.5, budget=plain,
                     bounds="private:1").run()
    assert plain.spent.epsilon == pytest.approx(2.0) and plain.spent.gamma == 0.0


@pytest.mark.slow
def test_several_calibrated_quantiles_count_gamma_once_each_all_or_nothing(tmp_path):
    """Audit: several calibrated quantiles each spend their own gamma once, under
    distinct runs, and a gamma budget too small for all is all or nothing: nothing
    released, nothing written."""
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
    """Before: a quantile was planned at (epsilon, delta) of the Gaussian release (or at
    epsilon under a cap below it), and spent (epsilon, 0) (or the cap): the filter's
    "auto" rule, chosen on the first spend, was basic in the plan and advanced in the
    run, whose delta/2 then refused the means."""
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


@pytest.mark.parametrize("value", ["nan", "-1", "0", "inf", "1e400"])
def test_bad_worst_case_epsilon_exits_2_in_one_line_spending_nothing(
    tmp_path, capsys, value
):
    """Audit: a bad --worst-case-epsilon is a usage error (exit 2, one line naming the
    flag as typed) and spends nothing."""
    private = _column_csv(tmp_path / "p.csv", _heights())
    ledger = tmp_path / "l.json"
    BudgetFile(ledger, epsilon=10.0, gamma=0.5)
    before = ledger.read_text() if ledger.exists() else None
    code = main(["release", "--data", private, "--column", "h", "--population", POP,
                 "--query", "median", "--epsilon", "0.5", "--budget-file", str(ledger),
                 "--worst-case-epsilon", value])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    # the flag as typed (issue 37), not the parameter
    assert len(err.strip().splitlines()) == 1 and "--worst-case-epsilon" in err
    assert (ledger.read_text() if ledger.exists() else None) == before


@pytest.mark.slow
def test_a_quantile_without_bounds_is_the_plain_mechanism_over_the_wide_grid():
    """Before: without bounds a quantile sampled a sensitivity like any statistic,
    a leak at a record the model never draws (issue 37); then it was refused. Now
    it is the exponential mechanism over the wide public grid: plain epsilon-DP,
    nothing sampled, with or without a population, and no gamma planned."""
    for population in (POP, None):
        prepared = prepare_releases(_heights(), ["median"], population, epsilon=0.5,
                                    bounds=None, random_state=0)
        assert prepared.planned[0].source == "global"
        assert prepared.planned[0].gamma == 0.0
        (r,) = prepared.run()
        assert r.calibration is None and r.statement.epsilon == 0.5
        assert r.statement.source == "global" and r.bounds is None


@pytest.mark.slow
def test_an_add_remove_quantile_in_a_replace_one_budget_file(tmp_path):
    """Audit: an add-remove quantile in a replace-one budget file is recorded at its
    group privacy, twice epsilon, gamma and the worst case (Dwork & Roth 2014, Thm.
    2.2), never less."""
    path = tmp_path / "l.json"
    r = release_statistic(_heights(), "median", POP, epsilon=0.5, random_state=0,
                          neighbours="add-remove",
                          budget=BudgetFile(path, epsilon=10.0, gamma=0.5))
    s = r.statement
    assert s.neighbours == "add-remove" and s.source == "sampled"
    assert s.gamma == _calibration_gamma(neighbours="add-remove")
    # group privacy: twice epsilon, gamma and the worst case (Dwork & Roth, Thm. 2.2)
    spent = BudgetFile(path).filter()
    assert spent.spent.epsilon == 2 * 0.5 and spent.spent.delta == 0.0
    assert spent.gamma == pytest.approx(2 * s.gamma, rel=1e-15)
    assert spent.worst_case().epsilon == 2 * s.worst_case.epsilon
    # the worst case: 2 t du, du = 1/2 at the median under add/remove
    assert s.worst_case.epsilon == pytest.approx(r.calibration.scale, rel=1e-15)
    entry = json.loads(path.read_text())["entries"][0]
    assert entry["worst_case_epsilon"] >= 2 * s.worst_case.epsilon
    assert entry["gamma"] >= 2 * s.gamma


@pytest.mark.slow
def test_dp_events_of_a_calibrated_quantile_and_of_its_worst_case():
    """Audit: a calibrated quantile's dp_accounting events never drop gamma silently,
    and state epsilon^2 / 2-zCDP for its epsilon-DP (Bun & Steinke 2016) and eta^2 /
    8 for its worst case's bounded range (Cesar & Rogers 2021)."""
    pytest.importorskip("dp_accounting")
    for neighbours in ("replace-one", "add-remove"):
        r = release_statistic(_heights(), "median", POP, epsilon=0.5,
                              random_state=0, neighbours=neighbours)
        s, worst = r.statement, r.statement.worst_case
        with pytest.raises(ValueError, match="gamma"):
            s.to_dp_event(neighbours="replace-one")  # gamma is never dropped silently
        # pure epsilon-DP: epsilon^2 / 2-zCDP (Bun & Steinke 2016, Prop. 3.3);
        # the worst case eta-bounded range: eta^2 / 8 (Cesar & Rogers 2021)
        factor = 1 if neighbours == "replace-one" else 2  # group privacy
        event = s.to_dp_event(allow_gamma=True, neighbours="replace-one")
        assert event.rho == pytest.approx((factor * 0.5) ** 2 / 2, rel=1e-12)
        event = worst.to_dp_event(neighbours="replace-one")
        eta = factor * worst.epsilon
        assert eta ** 2 / 8 <= event.rho <= eta ** 2 / 8 * (1 + 1e-12)
        if neighbours == "add-remove":
            with pytest.raises(ValueError, match="add-remove"):
                worst.to_dp_event()


def test_a_public_sample_population_refuses_too_few_rows_before_any_spend(tmp_path):
    """Audit: a public sample too small for the calibration is refused whatever the
    bounds, before any spend, in Python and on the command line."""
    private = _column_csv(tmp_path / "p.csv", _heights())
    public = _column_csv(tmp_path / "pub.csv", _heights(20, seed=2))
    ledger = tmp_path / "l.json"
    for bounds in ("auto", "private:1", "130:210"):
        with pytest.raises(ValueError, match="public sample has 20 row"):
            release_statistic(_heights(), "median", f"bootstrap:{public}", column="h",
                              epsilon=0.5, bounds=bounds,
                              budget=BudgetFile(ledger, epsilon=10.0, gamma=0.5))
        assert not ledger.exists()
    code = main(["release", "--data", private, "--column", "h", "--population",
                 f"bootstrap:{public}", "--query", "median", "--epsilon", "0.5",
                 "--bounds", "private:1", "--budget-file", str(ledger),
                 "--budget-epsilon", "10", "--budget-gamma", "0.5"])
    assert code != 0 and not ledger.exists()


@pytest.mark.slow
def test_a_public_sample_states_its_basis_and_runs_on_posterior_populations(tmp_path):
    """Audit: a quantile on a public sample states what its gamma rests on (the sample's
    posterior populations) in its guarantee and record."""
    public = _heights(60, seed=2)
    r = release_statistic(_heights(), "median", public, epsilon=0.5, random_state=0)
    assert isinstance(r, QuantileRelease) and r.statement.source == "sampled"
    assert r.basis == r.calibration.population
    assert r.basis.startswith("gamma for this public sample of 60 rows at confidence")
    assert "posterior populations" in r.basis and r.basis in r.guarantee
    # the posterior runs keep the smallest scale: never above the model's own
    # calibration on the same seed's first run alone
    assert r.to_dict()["basis"] == r.basis and r.calibration.run.m >= r.calibration.run.k
    assert r.calibration.n == 300


@pytest.mark.slow
def test_the_report_card_and_json_leak_no_answer_and_round_up(tmp_path):
    """Audit: no printed form (text, card, report, JSON) shows the exact answer, and
    every epsilon and gamma printed with fewer digits is rounded up."""
    data = _heights(301)
    report = tmp_path / "r.html"
    r = release_statistic(data, "median", POP, epsilon=1 / 3, random_state=0,
                          report=report)
    exact = float(np.median(data))
    texts = {
        "text": r.text(), "html": r._repr_html_(), "report": report.read_text(),
        "json": json.dumps(r.to_dict()),
    }
    for name, text in texts.items():
        numbers = [float(x) for x in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", text)]
        assert not any(abs(x - exact) < 1e-3 for x in numbers), name
        # every epsilon and gamma printed with fewer digits is rounded up
        for stated in (1 / 3, r.statement.gamma, r.statement.worst_case.epsilon):
            assert not any(x < stated and math.isclose(x, stated, rel_tol=1e-3)
                           and x != round(stated, 17) for x in numbers
                           if "e" not in f"{x}"), (name, stated)
    assert "0.333334" in texts["text"] and "0.333333-DP" not in texts["text"]


@pytest.mark.slow
def test_the_suggested_flag_of_the_price_gives_the_plain_mechanism_at_epsilon(capsys):
    """Before: "--worst-case-epsilon 0.333333", a cap below epsilon=1/3."""
    r = release_statistic(_heights(), "median", POP, epsilon=1 / 3, random_state=0)
    flag = float(re.search(r"--worst-case-epsilon (\S+)\)", r.price).group(1))
    plain = release_statistic(_heights(), "median", POP, epsilon=1 / 3,
                              worst_case_epsilon=flag)
    assert plain.statement.epsilon == 1 / 3 and plain.statement.source == "global"


@pytest.mark.slow
def test_the_same_seed_gives_the_same_calibration_for_any_n_jobs(tmp_path, capsys):
    """Audit: the same seed gives the same calibration whatever n_jobs, for a model and
    a public sample, and the same record on the command line."""
    runs = [
        release_statistic(_heights(), "quantile:0.9", population, epsilon=0.3,
                          random_state=7, n_jobs=n_jobs).calibration
        for population in (POP, _heights(200, seed=2)) for n_jobs in (1, 2)
    ]
    for a, b in (runs[:2], runs[2:]):
        assert (a.scale, a.run.released, a.run.seed) == (b.scale, b.run.released,
                                                          b.run.seed)
    private = _column_csv(tmp_path / "p.csv", _heights())
    records = []
    for _ in range(2):
        assert main(["release", "--data", private, "--column", "h", "--population",
                     POP, "--query", "median", "--epsilon", "0.5", "--seed", "3",
                     "--json"]) == 0
        record = json.loads(capsys.readouterr()[0])["releases"][0]
        records.append((record["scale"], record["seed"], record["gamma"]))
    assert records[0] == records[1] and records[0][1][0] == 3


@pytest.mark.slow
@pytest.mark.parametrize("neighbours", ["replace-one", "add-remove"])
def test_a_budget_file_exactly_at_the_planned_amount_holds_the_run(tmp_path, neighbours):
    """Audit: a budget file holding exactly the planned amount (in its replace-one
    relation) holds the run: a plan never states less than the run spends."""
    queries = ["median", "quantile:0.9", "mean"]
    prepared = prepare_releases(_heights(), queries, POP, epsilon=0.5,
                                neighbours=neighbours)
    planned = [to_replace_one(s) for s in prepared.planned]  # the file's relation
    epsilon = math.fsum(s.epsilon for s in planned)
    gamma = math.fsum(s.gamma for s in planned)
    path = tmp_path / "l.json"
    rs = release_statistics(_heights(), queries, POP, epsilon=0.5, random_state=0,
                            neighbours=neighbours,
                            budget=BudgetFile(path, epsilon=epsilon, gamma=gamma))
    spent = BudgetFile(path).filter()
    assert spent.count == 3 and spent.gamma <= gamma
    assert [type(r) for r in rs][:2] == [QuantileRelease, QuantileRelease]


def test_a_large_quantile_release_reads_fewer_public_databases_for_its_accuracy():
    """The accuracy figure of a median of 10^5 records read 20 public databases
    of 10^5 records (0.25 s of a 0.7 s release): at most 2 * 10^5 records in all,
    never fewer than 2 databases, 20 for small n."""
    from sensampler.app.release._running import quantile_error_runs

    assert [quantile_error_runs(n) for n in (1, 500, 10_000, 20_000, 100_000, 10**7)] == [
        20, 20, 20, 10, 2, 2,
    ]
