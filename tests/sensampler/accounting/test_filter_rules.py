import math
import re

import numpy as np
import pytest

from sensampler.accounting import advanced_filter_bound
from sensampler.accounting._filter_rules import (
    renyi_filter_allows,
    renyi_filter_budget,
    renyi_filter_count,
    whitehouse_filter_count,
    whitehouse_filter_statistic,
)
from sensampler.accounting._kov import homogeneous_count
from sensampler.mechanisms.gaussian import analytic_gaussian_delta
from sensampler.mechanisms.laplace import laplace_rdp
from tests.conftest import assert_below_in_se


# ------------------------------------------------------------------------- Rényi
@pytest.mark.parametrize("alpha", [1.5, 2.0, 10.0, 30.0, 200.0])
def test_renyi_budget_inverts_the_conversions(alpha):
    eps, delta = 1.0, 1e-6
    classic = renyi_filter_budget(eps, delta, alpha)
    assert classic == pytest.approx(eps - math.log(1 / delta) / (alpha - 1), rel=1e-13)
    improved = renyi_filter_budget(eps, delta, alpha, conversion="improved")
    c = math.log1p(-1 / alpha) - (math.log(delta) + math.log(alpha)) / (alpha - 1)
    assert improved == pytest.approx(eps - max(c, 0.0), rel=1e-13, abs=1e-15)
    assert improved >= classic


def test_renyi_count_and_intersection_rule():
    assert renyi_filter_count(0.1, 1.0) == 10  # 10 x 0.1 <= 1 despite rounding
    assert renyi_filter_count(0.3, 0.9) == 3
    assert renyi_filter_count(0.1, -0.5) == 0
    assert renyi_filter_allows(0.9, 0.1, 1.0)
    assert not renyi_filter_allows(0.95, 0.1, 1.0)
    # several orders fixed in advance: admitted only if every order admits
    assert renyi_filter_allows([0.2, 0.5], [0.1, 0.3], [0.4, 0.9])
    assert not renyi_filter_allows([0.2, 0.5], [0.1, 0.5], [0.4, 0.9])


def test_renyi_filter_on_gaussian_steps_certifies_the_budget():
    # k Gaussian steps of sigma admitted at order alpha: k alpha / (2 sigma^2) <= B.
    # Their composition is one Gaussian of sigma / sqrt(k), whose exact delta at the
    # budget epsilon must not exceed the budget delta (Balle & Wang), at every order.
    eps, delta, sigma = 1.0, 1e-6, 20.0
    for alpha in (20.0, 30.0, 40.0, 60.0):
        for conversion in ("classic", "improved"):
            budget = renyi_filter_budget(eps, delta, alpha, conversion)
            k = renyi_filter_count(alpha / (2 * sigma**2), budget)
            assert k > 0
            assert analytic_gaussian_delta(sigma / math.sqrt(k), eps) <= delta


def _adaptive_gaussian_run(budget, alpha, rounds, trials, rng):
    """Hockey-stick divergence at epsilon = 1 of an analyst choosing sigma from the
    last output (N(0, s^2) vs N(1, s^2) per step), Monte Carlo under P; with
    ``budget=None`` no filter is applied."""
    loss = np.zeros(trials)
    spent = np.zeros(trials)
    last = np.zeros(trials)
    for _ in range(rounds):
        sigma = np.where(last > 0, 4.0, 8.0)
        cost = alpha / (2 * sigma**2)
        ok = np.ones(trials, bool) if budget is None else spent + cost <= budget
        y = rng.normal(0.0, sigma)
        loss += np.where(ok, (1 - 2 * y) / (2 * sigma**2), 0.0)
        spent += np.where(ok, cost, 0.0)
        last = np.where(ok, y, last)
    return np.maximum(0.0, -np.expm1(1.0 - loss))


@pytest.mark.slow
def test_renyi_filter_with_adaptive_noise_by_simulation(seed):
    # Budget (1, 0.01) at order 8. With the filter, the whole adaptive interaction
    # stays within delta; without it, the same analyst breaks it (so the check can
    # fail).
    rng = np.random.default_rng(seed)
    delta, alpha, trials = 0.01, 8.0, 40_000
    budget = renyi_filter_budget(1.0, delta, alpha)
    values = _adaptive_gaussian_run(budget, alpha, 200, trials, rng)
    se = values.std() / math.sqrt(trials)
    assert_below_in_se(values.mean(), delta, se)
    unfiltered = _adaptive_gaussian_run(None, alpha, 200, trials, rng)
    assert unfiltered.mean() > delta + 6 * unfiltered.std() / math.sqrt(trials)


def test_renyi_filter_laplace_counts():
    # Laplace steps of epsilon 0.01 at their exact Renyi curve (Mironov 2017,
    # Prop. 6), order fixed in advance (30.25 is the best of the grid for this
    # step), budget (1, 1e-6): 355 steps with the classic conversion.
    budget = renyi_filter_budget(1.0, 1e-6, 30.25)
    assert renyi_filter_count(laplace_rdp(30.25, 100.0), budget) == 355


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: renyi_filter_budget(1.0, 1e-6, 1.0),
            "alpha must be > 1.0, got alpha=1.0.",
        ),
        (
            lambda: renyi_filter_budget(1.0, 0.0, 2.0),
            "delta must be > 0.0 and < 1.0, got delta=0.0.",
        ),
        (
            lambda: renyi_filter_budget(1.0, 1e-6, 2.0, conversion="tight"),
            "conversion must be one of 'improved', 'classic', got conversion='tight'.",
        ),
        (
            lambda: renyi_filter_allows(0.1, -0.1, 1.0),
            "spent and cost must be >= 0",
        ),
        (
            lambda: whitehouse_filter_statistic([-0.1], 1e-6),
            "epsilons must be >= 0.0, got epsilons=-0.1.",
        ),
    ],
)
def test_refusals(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call()


# -------------------------------------------------------------------- Whitehouse
def test_whitehouse_issue_counts():
    # budget (1, 1e-6), pure steps: about 349 and 34 937 releases
    assert whitehouse_filter_count(0.01, 1.0, 1e-6) == 349
    assert whitehouse_filter_count(0.001, 1.0, 1e-6) == 34_937


@pytest.mark.parametrize("eps0", [0.05, 0.01, 0.001])
def test_whitehouse_count_is_the_sequential_rule(eps0):
    n = whitehouse_filter_count(eps0, 1.0, 1e-6)
    assert whitehouse_filter_statistic([eps0] * n, 1e-6) <= 1.0
    assert whitehouse_filter_statistic([eps0] * (n + 1), 1e-6) > 1.0


def test_whitehouse_matches_advanced_composition_with_constants():
    # The paper's claim: the filter matches advanced composition, constants included:
    # epsilon_0 sqrt(2 k log(1/delta)) + k epsilon_0^2 / 2 (Kairouz et al.'s form with
    # epsilon tanh(epsilon/2) <= epsilon^2/2), and it beats Rogers et al.'s filter.
    for eps0 in (0.01, 0.001):
        n = whitehouse_filter_count(eps0, 1.0, 1e-6)
        k = n
        assert eps0 * math.sqrt(2 * k * math.log(1e6)) + k * eps0**2 / 2 <= 1.0
        k = n + 1
        assert eps0 * math.sqrt(2 * k * math.log(1e6)) + k * eps0**2 / 2 > 1.0
        rogers = advanced_filter_bound([eps0] * n, 1.0, 1e-6)
        assert rogers > 1.0  # Rogers et al. would have halted earlier


@pytest.mark.parametrize("eps0", [0.1, 0.01])
def test_whitehouse_never_admits_more_than_the_optimal_composition(eps0):
    # A valid filter facing a fixed schedule is a composition theorem for it, so it
    # cannot beat the exact optimum (Kairouz et al. 2017).
    assert whitehouse_filter_count(eps0, 1.0, 1e-6) <= homogeneous_count(
        eps0, 0.0, 1.0, 1e-6
    )


def _adaptive_rr_run(filtered, delta, rounds, trials, rng):
    """P[total loss >= 1] for randomized-response steps whose epsilon the analyst
    picks from the last output (0.1 after a +, 0.04 after a -), with or without the
    filter of budget (1, delta) (the statistic, vectorised over trials)."""
    loss = np.zeros(trials)
    sum_sq = np.zeros(trials)
    last = np.ones(trials)
    for _ in range(rounds):
        e = np.where(last > 0, 0.1, 0.04)
        if not filtered:
            ok = np.ones(trials, bool)
        else:
            v = sum_sq + e * e
            ok = np.sqrt(2 * math.log(1 / delta) * v) + v / 2 <= 1.0
        up = rng.random(trials) < np.exp(e) / (1 + np.exp(e))
        step = np.where(up, e, -e)
        loss += np.where(ok, step, 0.0)
        sum_sq += np.where(ok, e * e, 0.0)
        last = np.where(ok, step, last)
    return np.mean(loss >= 1.0)


@pytest.mark.slow
def test_whitehouse_filter_bounds_the_loss_by_simulation(seed):
    # The proof's event: the total privacy loss of the adaptive interaction reaches
    # epsilon = 1 with probability <= delta' = 0.05; unfiltered, it does not.
    rng = np.random.default_rng(seed)
    delta, trials = 0.05, 40_000
    rate = _adaptive_rr_run(True, delta, 300, trials, rng)
    assert_below_in_se(rate, delta, math.sqrt(delta * (1 - delta) / trials))
    unfiltered = _adaptive_rr_run(False, delta, 300, trials, rng)
    assert unfiltered > delta + 6 * math.sqrt(delta * (1 - delta) / trials)


def test_whitehouse_statistic_formula():
    eps = [0.3, 0.1, 0.2]
    v = 0.09 + 0.01 + 0.04
    assert whitehouse_filter_statistic(eps, 1e-5) == pytest.approx(
        math.sqrt(2 * math.log(1e5) * v) + v / 2, rel=1e-14
    )
