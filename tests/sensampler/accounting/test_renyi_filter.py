import math
import re

import numpy as np
import pytest

from sensampler.accounting import ExceededPrivacyBudgetError, RenyiFilter
from sensampler.accounting._filter_rules import renyi_filter_budget, renyi_filter_count
from sensampler.accounting._kov import homogeneous_count
from sensampler.mechanisms import (
    CatastropheMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RenyiGaussianMechanism,
    ZCDPGaussianMechanism,
    laplace_rdp,
)
from sensampler.privacy import DEFAULT_ORDERS, PrivacyStatement, rdp_to_dp


def _admitted(f, step, cap=100_000):
    n = 0
    while n < cap:
        try:
            f.spend(step)
        except ExceededPrivacyBudgetError:
            return n
        n += 1
    return n


def test_gaussian_releases_at_their_renyi_cost():
    # Feldman & Zrnic, Thm. 3.1 at one order: steps of Rényi cost alpha / (2 s^2)
    # are admitted while their sum stays within B(alpha), and not one more.
    alpha, sigma = 20.0, 10.0
    f = RenyiFilter(1.0, 1e-6, alpha=alpha)
    mech = RenyiGaussianMechanism(1.0, 2.0, 2.0 / (2 * sigma**2))
    budget = renyi_filter_budget(1.0, 1e-6, alpha, "improved")
    n = renyi_filter_count(alpha / (2 * sigma**2), budget)
    assert _admitted(f, mech) == n == 4  # B(20) = 0.48, cost 0.1 each
    # the certified guarantee: an (alpha, B) Rényi bound converts to (1, 1e-6)
    assert rdp_to_dp([budget], 1e-6, orders=[alpha])[0] <= 1.0 + 1e-12
    assert f.spent.epsilon == 1.0 and f.spent.delta == 1e-6


def test_laplace_releases_at_their_exact_renyi_cost():
    alpha = 30.0
    f = RenyiFilter(1.0, 1e-6, alpha=alpha)
    budget = renyi_filter_budget(1.0, 1e-6, alpha, "improved")
    n = renyi_filter_count(laplace_rdp(alpha, 100.0), budget)
    assert _admitted(f, LaplaceMechanism(1.0, 0.01)) == n
    # pure numbers cost the generic curve min(eps, alpha eps^2 / 2): fewer fit
    assert renyi_filter_count(min(0.01, alpha * 0.01**2 / 2), budget) < n


@pytest.mark.slow
def test_auto_order_is_chosen_at_the_first_spend_and_kept():
    f = RenyiFilter(1.0, 1e-6)
    assert f.orders is None
    n = _admitted(f, 0.01)
    assert f.orders.shape == (1,) and f.orders[0] in DEFAULT_ORDERS
    best = max(
        renyi_filter_count(
            min(0.01, a * 0.01**2 / 2), renyi_filter_budget(1.0, 1e-6, a, "improved")
        )
        for a in DEFAULT_ORDERS
    )
    assert n == best == 487
    # no more than the exact non-adaptive optimum for the same budget (562)
    assert n <= homogeneous_count(0.01, 0.0, 1.0, 1e-6)


def test_several_orders_admit_a_step_only_if_every_order_does():
    orders = [30.0, 64.0]
    f = RenyiFilter(1.0, 1e-6, alpha=orders)
    budgets = [renyi_filter_budget(1.0, 1e-6, a, "improved") for a in orders]
    # a zCDP Gaussian step of rho = 0.001 costs alpha * rho at each order
    n = min(renyi_filter_count(a * 0.001, b) for a, b in zip(orders, budgets))
    for _ in range(n):
        f.compose(ZCDPGaussianMechanism(1.0, 0.001))
    with pytest.raises(ExceededPrivacyBudgetError, match="at order"):
        f.compose(ZCDPGaussianMechanism(1.0, 0.001))
    assert f.count == n


def test_orders_with_no_budget_are_dropped_and_none_left_is_refused():
    # B(4) < 0 for (1, 1e-6): order 4 admits nothing, so it is dropped
    f = RenyiFilter(1.0, 1e-6, alpha=[4.0, 64.0])
    assert f.orders.tolist() == [64.0]
    f.spend(0.001)
    assert f.count == 1
    with pytest.raises(ValueError, match="no Rényi order in alpha=.* has a positive"):
        RenyiFilter(1.0, 1e-6, alpha=[1.5, 2.0])


def test_issue_orders_8_16_32_admit_releases():
    # before: RenyiFilter(1, 1e-6, alpha=[8, 16, 32]) admitted nothing (B(8) < 0)
    f = RenyiFilter(1, 1e-6, alpha=[8, 16, 32])
    assert f.orders.tolist() == [16.0, 32.0]
    f.spend(0.001)
    assert f.count == 1


@pytest.mark.parametrize("alpha", [None, 1.05, [1.05, 30.0]])
def test_a_zero_cost_release_is_always_admitted(alpha):
    # before: RenyiFilter(1.0, 1e-6).spend(0.0) was refused (0 > -271.29 at 1.05)
    if alpha == 1.05:
        with pytest.raises(ValueError, match="positive budget"):
            RenyiFilter(1.0, 1e-6, alpha=alpha)
        return
    f = RenyiFilter(1.0, 1e-6, alpha=alpha)
    f.spend(0.0)
    # sensitivity 0 on both coordinates: a Rényi curve of 0
    f.release(LaplaceMechanism(np.zeros(2), 1.0), np.ones(2), random_state=0)
    assert f.count == 2 and f.statistic == 0.0
    f.spend(0.01)  # the order is then chosen from the first costly spend
    assert f.count == 3


def test_classic_conversion_admits_less():
    classic = _admitted(RenyiFilter(1.0, 1e-6, alpha=30.0, conversion="classic"), 0.01)
    improved = _admitted(RenyiFilter(1.0, 1e-6, alpha=30.0), 0.01)
    assert classic < improved


def test_release_checks_before_spending_and_refusals_record_nothing():
    f = RenyiFilter(1.0, 1e-6, alpha=30.0)
    mech = GaussianMechanism(1.0, 0.5, 1e-5)
    with pytest.raises(ValueError, match="value must be finite"):
        f.release(mech, float("nan"))
    assert f.count == 0
    assert np.isfinite(f.release(mech, 1.0, random_state=0))
    assert f.count == 1
    with pytest.raises(ValueError, match="satisfies no finite Rényi DP"):
        f.spend(CatastropheMechanism(1.0, 1.0, 1e-6))
    with pytest.raises(ValueError, match="pure epsilon-DP numbers only"):
        f.spend(0.1, 1e-7)
    assert f.count == 1


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: RenyiFilter(1.0, 0.0),
            "delta must be > 0.0 and < 1.0, got delta=0.0.",
        ),
        (lambda: RenyiFilter(1.0, 1e-6, alpha=1.0), "alpha must be > 1.0"),
        (
            lambda: RenyiFilter(1.0, 1e-6, alpha=[2.0, 0.5]),
            "alpha must hold orders > 1",
        ),
        (
            lambda: RenyiFilter(1.0, 1e-6, conversion="exact"),
            "conversion must be one of 'improved', 'classic'",
        ),
    ],
)
def test_bad_parameters(call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call()


def test_gamma_budget_and_reports():
    f = RenyiFilter(1.0, 1e-6, alpha=30.0, gamma=0.1)
    assert f.remaining.epsilon == math.inf or f.remaining.epsilon > 0
    f.spend(0.01)
    assert f.remaining.epsilon == pytest.approx(
        renyi_filter_budget(1.0, 1e-6, 30.0, "improved") - 30 * 0.01**2 / 2
    )
    assert f.statistic == pytest.approx(30 * 0.01**2 / 2)
    assert f.epsilon(1e-6) == 1.0 and f.epsilon(1e-7) == math.inf
    assert repr(f).startswith("RenyiFilter(budget=(epsilon=1, delta=1e-06), alpha=30")


# ------------------------------------- statements without a curve: the implied one
@pytest.mark.parametrize(
    "statement, cost",
    [
        # audit finding: refused as "no finite Rényi DP"; min(0.01, 30 * 5e-5)
        (PrivacyStatement("x", 0.01, 0.0, rho=5e-5), 0.0015),
        (PrivacyStatement("x", 0.01, 0.0), 0.0015),  # min(0.01, 30 * 1e-4 / 2)
        (PrivacyStatement("x", None, None, rho=1e-4), 0.003),  # 30 * 1e-4
        (PrivacyStatement("x", 0.5, 1e-7, rho=1e-4), 0.003),
    ],
)
def test_a_statement_without_a_curve_spends_the_curve_it_implies(statement, cost):
    f = RenyiFilter(1.0, 1e-6, alpha=30.0)
    budget = f.remaining.epsilon
    f.spend(statement)
    assert len(f.ledger) == 1
    assert f.remaining.epsilon == pytest.approx(budget - cost, rel=1e-12)


def test_the_audit_statement_with_the_default_orders():
    f = RenyiFilter(1.0, 1e-5)
    f.compose(PrivacyStatement("x", 0.01, 0.0, rho=0.00005))
    assert len(f.ledger) == 1


def test_an_approximate_statement_alone_is_still_refused_by_the_filter():
    f = RenyiFilter(1.0, 1e-6)
    with pytest.raises(ValueError, match="satisfies no finite Rényi DP"):
        f.spend(PrivacyStatement("x", 0.1, 1e-7))
    assert len(f.ledger) == 0


@pytest.mark.parametrize("alpha", [None, 30.0])
def test_a_curve_beyond_the_largest_double_exceeds_the_budget(alpha):
    # before: ValueError "step_rdp must be finite" while choosing the order
    f = RenyiFilter(1.0, 1e-6, alpha=alpha)
    with pytest.raises(ExceededPrivacyBudgetError):
        f.spend(PrivacyStatement("x", None, None, rho=1e308))
    assert len(f.ledger) == 0 and f.statistic == 0.0
    assert (f.orders is None) == (alpha is None)  # a refusal fixes no order
