"""Accountants and filters never compose two neighbouring relations unconverted,
and :func:`~sensampler.privacy.to_replace_one` converts by group privacy, never
rounding a number down."""

import math
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import optimize, stats

from sensampler import queries, sample_sensitivity
from sensampler.accounting import (
    PLDAccountant,
    PrivacyFilter,
    RenyiAccountant,
    RenyiFilter,
    WhitehouseFilter,
    ZCDPAccountant,
)
from sensampler.distributions import Normal
from sensampler.mechanisms import GaussianMechanism, LaplaceMechanism
from sensampler.privacy import (
    PrivacyStatement,
    SamplingRun,
    pure_dp_rdp,
    to_replace_one,
)

ACCOUNTANTS = [
    lambda: PrivacyFilter(100.0, 1e-3, rule="basic"),
    lambda: RenyiFilter(100.0, 1e-3),
    lambda: WhitehouseFilter(100.0, 1e-3),
    RenyiAccountant,
    ZCDPAccountant,
]
IDS = ["filter", "renyi-filter", "whitehouse", "renyi", "zcdp"]


def _pure(relation, epsilon=0.1, run=None):
    """A hand-made pure statement under ``relation``."""
    return PrivacyStatement(
        f"pure {relation}",
        epsilon,
        0.0,
        rho=epsilon * epsilon / 2.0,
        rdp=pure_dp_rdp(epsilon),
        run=run,
        source="global" if run is None else "sampled",
        neighbours=relation,
    )


@pytest.fixture(scope="module")
def add_remove_sum():
    """An add/remove estimate of a sum over N(0, 1) records."""
    return sample_sensitivity(
        queries.sum, Normal(), 50, gamma=0.05, neighbours="add-remove", random_state=3
    )


# ------------------------------------------------------------- mixed relations
@pytest.mark.parametrize("make", ACCOUNTANTS, ids=IDS)
def test_an_accountant_refuses_a_statement_under_another_relation(make):
    # Fails on the code before add/remove: the relation was carried, never read.
    added = _pure("add-remove")
    acc = make()
    assert acc.neighbours is None
    acc.compose(_pure("replace-one"))
    assert acc.neighbours == "replace-one"
    before = (acc.ledger, acc.count, acc.epsilon(1e-3))
    with pytest.raises(ValueError, match=r"'add-remove'.*'replace-one'.*to_replace_one"):
        acc.compose(added)
    assert (acc.ledger, acc.count, acc.epsilon(1e-3)) == before
    assert acc.neighbours == "replace-one"


@pytest.mark.parametrize("make", ACCOUNTANTS, ids=IDS)
def test_the_first_statement_fixes_the_relation(make):
    acc = make()
    acc.compose(_pure("add-remove"), count=2)
    assert acc.neighbours == "add-remove"
    assert [e.neighbours for e in acc.ledger] == ["add-remove"]
    with pytest.raises(ValueError, match=r"'replace-one'.*'add-remove'"):
        acc.compose(_pure("replace-one"))
    assert acc.count == 2


@pytest.mark.parametrize("make", ACCOUNTANTS, ids=IDS)
def test_a_converted_statement_is_accepted(make):
    acc = make()
    acc.compose(_pure("replace-one"))
    acc.compose(to_replace_one(_pure("add-remove", 0.2)))
    assert acc.neighbours == "replace-one" and acc.count == 2
    assert [e.neighbours for e in acc.ledger] == ["replace-one", "replace-one"]
    assert acc.ledger[1].epsilon == pytest.approx(0.4)


def test_pld_accountant_refuses_mixed_relations(add_remove_sum):
    pytest.importorskip("dp_accounting")
    acc = PLDAccountant()
    acc.compose(LaplaceMechanism(1.0, 0.5))
    added = LaplaceMechanism(add_remove_sum, 0.5)
    with pytest.raises(ValueError, match="'add-remove'"):
        acc.compose(added)
    acc.compose(to_replace_one(added.privacy))
    assert acc.count == 2


def test_spends_as_numbers_and_runs_state_no_relation():
    budget = PrivacyFilter(10.0, 1e-3)
    budget.spend(0.1)
    budget.record_run(SamplingRun("r", 0.01))
    assert budget.neighbours is None
    assert [e.neighbours for e in budget.ledger] == [None, None]
    budget.compose(_pure("add-remove"))
    assert budget.neighbours == "add-remove"
    budget.spend(0.1)  # numbers are counted in the filter's relation
    assert budget.count == 3


def test_a_filter_release_under_another_relation_draws_nothing(add_remove_sum):
    budget = PrivacyFilter(10.0, 1e-3)
    budget.release(LaplaceMechanism(1.0, 0.5), 3.0, random_state=0)
    rng = np.random.default_rng(5)
    state = rng.bit_generator.state
    with pytest.raises(ValueError, match="to_replace_one"):
        budget.release(LaplaceMechanism(add_remove_sum, 0.5), 3.0, random_state=rng)
    assert rng.bit_generator.state == state and budget.count == 1


# ----------------------------------------------------------------- conversion
def test_a_replace_one_statement_converts_to_itself():
    statement = _pure("replace-one")
    assert to_replace_one(statement) is statement


def test_conversion_refuses_what_it_cannot_bound():
    with pytest.raises(TypeError, match="PrivacyStatement"):
        to_replace_one(0.5)
    curve_only = PrivacyStatement(
        "curve", None, None, rdp=lambda a: 0.1 * a, neighbours="add-remove"
    )
    with pytest.raises(ValueError, match="Rényi curve"):
        to_replace_one(curve_only)


def test_conversion_numbers():
    statement = PrivacyStatement(
        "m", 0.5, 1e-6, rho=0.1, run=SamplingRun("r", 0.02, neighbours="add-remove"),
        source="sampled", neighbours="add-remove",
    )
    converted = to_replace_one(statement)
    assert converted.neighbours == converted.run.neighbours == "replace-one"
    assert converted.epsilon == 1.0
    assert converted.delta == pytest.approx((1.0 + math.exp(0.5)) * 1e-6, rel=1e-15)
    assert converted.rho == pytest.approx(0.4, rel=1e-15)
    assert converted.rdp(3.0) == pytest.approx(1.2, rel=1e-15)
    # both add/remove steps must be covered: a union bound over two fresh pairs
    assert converted.gamma == pytest.approx(0.04) and converted.run.run_id == "r"
    assert "add-remove, converted to replace-one" in str(converted)
    huge = PrivacyStatement("h", 800.0, 1e-9, neighbours="add-remove")
    assert to_replace_one(huge).delta == 1.0  # (1 + e^800) delta, capped


def _hockey_stick(p, q, epsilon):
    """sup_S P(S) - e^eps Q(S) of two laws on a finite set (exact)."""
    return float(np.maximum(p - math.exp(epsilon) * q, 0.0).sum())


def _delta_of(p, q, epsilon):
    return max(_hockey_stick(p, q, epsilon), _hockey_stick(q, p, epsilon))


@pytest.mark.slow
def test_group_privacy_of_two_steps_against_exact_divergences():
    # Random output laws on D1, D, D2 (D1 - D - D2 two add/remove steps): the
    # replace-one pair (D1, D2) is (2 eps, (1 + e^eps) delta)-DP whenever both
    # steps are (eps, delta)-DP, computed exactly with hockey-stick divergences.
    rng = np.random.default_rng(0)
    epsilon = 0.5
    for _ in range(2000):
        p1, p0, p2 = rng.dirichlet(np.full(6, 0.7), size=3)
        delta = max(_delta_of(p1, p0, epsilon), _delta_of(p0, p2, epsilon))
        statement = PrivacyStatement("m", epsilon, delta, neighbours="add-remove")
        converted = to_replace_one(statement)
        assert _delta_of(p1, p2, converted.epsilon) <= converted.delta + 1e-12


def test_laplace_conversion_is_the_exact_replace_one_epsilon(add_remove_sum):
    mech = LaplaceMechanism(add_remove_sum, 0.5)
    converted = to_replace_one(mech.privacy)
    sensitivity = float(add_remove_sum.sensitivity.value)
    # Laplace(b) with replace-one sensitivity 2 Delta: epsilon = 2 Delta / b
    assert converted.epsilon == pytest.approx(2.0 * sensitivity / mech.scale, rel=1e-12)
    assert converted.noise.scales == pytest.approx((mech.scale / (2.0 * sensitivity),))
    assert converted.gamma == pytest.approx(2.0 * add_remove_sum.gamma)


def _gaussian_delta(sensitivity, sigma, epsilon):
    """Exact delta(epsilon) of N(0, s^2) noise (Balle & Wang 2018, Thm. 8)."""
    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    return stats.norm.cdf(a - b) - math.exp(epsilon) * stats.norm.cdf(-a - b)


def test_gaussian_conversion_against_the_exact_privacy_of_twice_the_sensitivity(
    add_remove_sum,
):
    mech = GaussianMechanism(add_remove_sum, 0.5, 1e-6)
    converted = to_replace_one(mech.privacy)
    twice = 2.0 * float(add_remove_sum.sensitivity.value)
    # rho of Gaussian noise at sensitivity 2 Delta, exactly
    assert converted.rho == pytest.approx(twice**2 / (2.0 * mech.sigma**2), rel=1e-9)
    # the stated (epsilon, delta) holds for the exact replace-one law ...
    assert _gaussian_delta(twice, mech.sigma, converted.epsilon) <= converted.delta
    # ... and the epsilon at delta = 1e-5 is never below the exact one
    exact = optimize.brentq(
        lambda e: _gaussian_delta(twice, mech.sigma, e) - 1e-5, 1e-9, 100.0
    )
    assert converted.epsilon_for(1e-5) >= exact * (1 - 1e-9)
    assert converted.epsilon_for(1e-5) <= 1.3 * exact  # the zCDP curve, not a blunt bound


def test_threads_racing_with_both_relations_leave_one_relation():
    acc = PrivacyFilter(1000.0, 1e-3)
    statements = [_pure("replace-one"), _pure("add-remove")] * 200

    def compose(statement):
        try:
            acc.compose(statement)
        except ValueError:
            return False
        return True

    with ThreadPoolExecutor(8) as pool:
        accepted = sum(pool.map(compose, statements))
    assert accepted == acc.count == 200
    assert {e.neighbours for e in acc.ledger} == {acc.neighbours}


# --------------------------------------- to_replace_one never rounds down
# Audit findings on the conversion of add/remove statements to replace-one (the
# group privacy every budget of the other relation is charged by): every
# number it gives must be at least what group privacy proves, checked against
# mpmath at 60 digits and exact fractions.


RNG = np.random.default_rng(20261126)
EPSILONS = RNG.uniform(0.01, 5.0, 300)
DELTAS = 10.0 ** RNG.uniform(-12.0, -3.0, 300)


def _group_delta(epsilon, delta):
    """(1 + e^epsilon) delta at 60 digits, capped at 1."""
    with mpmath.workdps(60):
        return min(mpmath.mpf(1), (1 + mpmath.exp(mpmath.mpf(epsilon))) * mpmath.mpf(delta))


def test_the_converted_delta_is_never_below_group_privacy():
    """Rounded to nearest, about half of these were an ulp or more below."""
    below = []
    for epsilon, delta in zip(EPSILONS, DELTAS):
        statement = PrivacyStatement("m", float(epsilon), float(delta),
                                     neighbours="add-remove")
        converted = to_replace_one(statement).delta
        exact = _group_delta(float(epsilon), float(delta))
        if mpmath.mpf(converted) < exact:
            below.append((epsilon, delta, converted))
        assert converted <= exact * (1 + 1e-14)  # and tight
    assert below == []


@pytest.mark.parametrize(
    ("epsilon", "delta"),
    [(800.0, 1e-320), (710.0, 1e-300), (746.5, 5e-324), (1e300, 1e-100)],
)
def test_a_huge_epsilon_does_not_cap_the_growth_of_delta(epsilon, delta):
    """E^epsilon was capped at e^709: (1600, 8.2e-13)-DP was stated for (800, 1e-320) at
    add/remove, where group privacy gives delta = 1."""
    converted = to_replace_one(
        PrivacyStatement("m", epsilon, delta, neighbours="add-remove")
    )
    assert mpmath.mpf(converted.delta) >= _group_delta(epsilon, delta)


def test_a_huge_epsilon_with_a_small_product_keeps_it():
    """E^709.5 * 1e-310 is below 1: not everything beyond e^709 is capped at 1."""
    converted = to_replace_one(
        PrivacyStatement("m", 709.5, 1e-310, neighbours="add-remove")
    )
    exact = _group_delta(709.5, 1e-310)
    assert exact < 1
    assert exact <= mpmath.mpf(converted.delta) <= exact * (1 + 1e-14)


def test_the_rho_of_a_pure_conversion_is_never_below_its_square():
    """Min(2 eps, (2 eps)^2 / 2) rounded to nearest was below the exact value."""
    below = []
    for epsilon in EPSILONS:
        rho = to_replace_one(
            PrivacyStatement("m", float(epsilon), 0.0, neighbours="add-remove")
        ).rho
        pure = Fraction(2 * float(epsilon))
        if Fraction(rho) < min(pure, pure * pure / 2):
            below.append(epsilon)
    assert below == []
