"""The PLD accountant reports only certified bounds: never below the true epsilon,
never a negative delta, and the best other valid bound where the PLD's FFT
round-off is not covered (issue figures: 10^4 Gaussian steps of sigma = 5)."""

import math

import mpmath
import pytest

from sensampler.accounting import PLDAccountant, tightest_composition
from sensampler.accounting._exact_gaussian import gaussian_delta, gaussian_epsilon
from sensampler.accounting.pld import (
    PLD_METHOD,
    certified_delta,
    certified_epsilon,
    compose_pld,
    fft_error_bound,
    pld_delta,
    pld_epsilon,
)
from sensampler.mechanisms import (
    CatastropheMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    ZCDPGaussianMechanism,
)
from sensampler.privacy import PrivacyStatement

mpmath.mp.dps = 50


def _exact_delta(mu, epsilon):
    """Balle & Wang (2018), Thm. 8, at 50 digits: N(0, 1) vs N(mu, 1)."""
    mu, epsilon = mpmath.mpf(mu), mpmath.mpf(epsilon)
    return mpmath.ncdf(mu / 2 - epsilon / mu) - mpmath.exp(epsilon) * mpmath.ncdf(
        -mu / 2 - epsilon / mu
    )


def _exact_epsilon(mu, delta):
    """The exact epsilon at ``delta``, by 200 bisections at 50 digits (delta falls)."""
    lo, hi = mpmath.mpf(0), mpmath.mpf(4 * mu * mu + 50)
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _exact_delta(mu, mid) > delta else (lo, mid)
    return float(hi)


# 10^4 steps of sigma = 5 compose to one Gaussian of sigma 5 / 100: mu = 20
MU = 20.0


@pytest.mark.parametrize("delta", [1e-5, 1e-10, 1e-12, 1e-14])
def test_ten_thousand_gaussian_steps_never_below_the_exact_epsilon(delta):
    # before: ratio to the exact epsilon 0.99994 at 1e-10, 0.9962 at 1e-12,
    # 0.970 at 1e-14 (dp_accounting's FFT round-off)
    exact = _exact_epsilon(MU, delta)
    ours = pld_epsilon([("gaussian", 5.0, 10**4)], delta)
    assert exact <= ours <= exact * (1 + 1e-9)
    acc = PLDAccountant()
    acc.compose(GaussianMechanism(1.0, 1.0, 1e-5, variant="analytic"), count=1)
    assert acc.report(delta).method.startswith("exact Gaussian")


@pytest.mark.parametrize("delta", [1e-10, 1e-12, 1e-14])
def test_the_accountant_of_ten_thousand_zcdp_gaussian_releases_is_an_upper_bound(delta):
    # audit finding: PLDAccountant reported 338.557 at delta = 1e-12 for 10^4
    # releases of sigma = 5, where the exact delta is 1.58e-12 (55x at 1e-14)
    mechanism = ZCDPGaussianMechanism(1.0, 0.02)  # sigma = 5: mu = 100 / 5 = MU
    assert mechanism.sigma == pytest.approx(5.0, rel=1e-15)
    accountant = PLDAccountant()
    accountant.compose(mechanism, count=10_000)
    epsilon = accountant.epsilon(delta)
    assert _exact_delta(MU, epsilon) <= delta
    assert epsilon <= _exact_epsilon(MU, delta) * (1 + 1e-9)


def test_delta_at_352_is_never_negative_nor_below_the_exact_delta():
    # before: PLDAccountant.delta(352.17) = -3.49e-13
    ours = pld_delta([("gaussian", 5.0, 10**4)], 352.17)
    assert ours >= float(_exact_delta(MU, 352.17)) >= 0.0
    assert ours <= float(_exact_delta(MU, 352.17)) * (1 + 1e-9) + 1e-300


@pytest.mark.parametrize("epsilon", [0.0, 1.0, 100.0, 300.0, 400.0, 1000.0])
def test_the_certified_gaussian_delta_is_an_upper_bound_within_1e_9(epsilon):
    exact = float(_exact_delta(MU, epsilon))
    ours = gaussian_delta(MU, epsilon)
    assert exact <= ours <= exact * (1 + 1e-9) + 1e-300
    if ours > 1e-250:  # the round trip: no larger epsilon than needed
        assert gaussian_epsilon(MU, ours) <= epsilon + 1e-9


def _optimal_composition_delta(epsilon, k, epsilon_prime):
    """Kairouz, Oh & Viswanath (2017), Thm. 3.3, for k pure epsilon-DP steps, at
    50 digits: the sum over l < (k epsilon - epsilon') / (2 epsilon) of
    C(k, l) q^(k-l) p^l (1 - e^(epsilon' - (k - 2l) epsilon)), q = e^eps p; the
    terms fall geometrically below the mode, so the sum stops at relative 1e-30."""
    eps, target = mpmath.mpf(epsilon), mpmath.mpf(epsilon_prime)
    log_q, log_p = -mpmath.log1p(mpmath.exp(-eps)), -mpmath.log1p(mpmath.exp(eps))
    total = mpmath.mpf(0)
    for l in range(int(mpmath.ceil((k * eps - target) / (2 * eps))) - 1, -1, -1):
        log_c = mpmath.loggamma(k + 1) - mpmath.loggamma(l + 1) - mpmath.loggamma(k - l + 1)
        term = mpmath.exp(log_c + (k - l) * log_q + l * log_p) * -mpmath.expm1(
            target - (k - 2 * l) * eps
        )
        total += term
        if term < total * mpmath.mpf(10) ** -30:
            break
    return total


@pytest.mark.slow
def test_the_exact_optimal_composition_reproduces_the_audit_figures():
    assert float(_optimal_composition_delta(0.01, 100_000, 26.2538)) == pytest.approx(
        2.8071e-12, rel=1e-4
    )
    assert float(_optimal_composition_delta(0.01, 100_000, 26.7178)) == pytest.approx(
        1.000024e-12, rel=1e-6
    )


@pytest.mark.slow
def test_tightest_composition_is_certified():
    # before (audit finding): 26.2538 from the PLD; the exact optimal composition
    # (KOV; mpmath over the binomial sum: delta 2.807e-12 at 26.2538) is 26.7178
    bound = tightest_composition(0.01, 0.0, 100_000, 1e-12)
    assert _optimal_composition_delta(0.01, 100_000, bound.epsilon) <= 1e-12
    assert bound.epsilon >= 26.7178
    assert bound.epsilon == pytest.approx(26.7178, abs=1e-4)
    assert "privacy loss distribution" not in bound.method


@pytest.mark.slow
def test_the_fft_error_bound_covers_the_observed_round_off():
    # the observed error of the raw PLD at delta = 1e-12 (true delta 1.58e-12)
    steps = [("gaussian", 5.0, 10**4)]
    pld = compose_pld(steps)
    raw = pld.get_epsilon_for_delta(1e-12)
    observed = float(_exact_delta(MU, raw)) - 1e-12
    from sensampler.accounting.pld import _check_steps

    assert fft_error_bound(_check_steps(steps), pld._pmf_remove.size) > observed > 0


@pytest.mark.slow
def test_a_mixed_ledger_uses_the_pld_where_certified_and_falls_back_elsewhere():
    steps = [("laplace", 10.0, 100), ("gaussian", 5.0, 100)]
    eps, method = certified_epsilon(steps, 1e-5)
    assert method == PLD_METHOD
    # the Gaussian part alone is a lower bound (exact)
    assert eps >= _exact_epsilon(math.sqrt(100) / 5.0, 1e-5)
    eps_tiny, method_tiny = certified_epsilon(steps, 1e-13)
    assert method_tiny != PLD_METHOD and math.isfinite(eps_tiny)
    delta, _ = certified_delta(steps, eps)
    assert 0.0 <= delta <= 1e-5 * (1 + 1e-6)


# ------------------------------------------------------ issue 20: the minimum of valid bounds
def test_pure_laplace_ledger_at_delta_zero_is_its_pure_composition():
    # before: epsilon(0.0) = inf; 100 x 0.1 = 10
    acc = PLDAccountant()
    acc.compose(LaplaceMechanism(1.0, 0.1), count=100)
    assert acc.epsilon(0.0) == pytest.approx(10.0, rel=1e-12)
    assert acc.epsilon(0.0) >= 10.0
    assert acc.delta(10.0) == 0.0
    assert acc.epsilon(1e-5) == pytest.approx(4.22, abs=1e-3)


def test_laplace_plus_catastrophe_is_at_most_basic_composition():
    # before: epsilon(1e-5) = inf where basic composition gives 1.1
    acc = PLDAccountant()
    acc.compose(LaplaceMechanism(1.0, 1.0))
    acc.compose(CatastropheMechanism(1.0, 0.1, 1e-5))  # all of delta at once
    assert acc.epsilon(1e-5) == pytest.approx(1.1, rel=1e-15)  # before: 1.1000011
    assert acc.report(1e-5).method.startswith("basic")


@pytest.mark.parametrize(
    "statement",
    [
        LaplaceMechanism(1.0, 1e10),
        PrivacyStatement("huge", 709.0, 0.0),
        PrivacyStatement("huge", 700.0, 1e-9),
    ],
)
def test_a_huge_epsilon_gives_a_bound_not_an_error(statement):
    # a coarse grid: the PLD of a loss near 709 has 7 million points at 1e-4
    # (5 s to compose), and the overflow near e^709 does not depend on the grid
    acc = PLDAccountant(value_discretization_interval=1e-2)
    acc.compose(LaplaceMechanism(1.0, 1.0), count=10)
    acc.compose(statement)
    assert 10.0 <= acc.epsilon(1e-5) <= 10.0 + 1e10 + 1e-3
    assert 0.0 <= acc.delta(1.0) <= 1.0


def test_the_report_names_the_bound_used():
    acc = PLDAccountant()
    assert acc.report(1e-5).epsilon == 0.0
    acc.compose(PrivacyStatement("pure", 0.5, 0.0), count=4)
    assert acc.report(1e-5).method.startswith("optimal")
    acc.compose(LaplaceMechanism(1.0, 0.1))
    assert acc.report(1e-5).method == PLD_METHOD


@pytest.mark.parametrize(
    "statement, expected",
    [
        (PrivacyStatement("pure", 1e300, 0.0), 1e300),  # before: refused (> 709.78)
        (PrivacyStatement("approx", 1e300, 1e-7), 1e300),
    ],
)
def test_an_epsilon_beyond_the_pld_grid_is_bounded_by_basic_composition(
    statement, expected
):
    acc = PLDAccountant()
    acc.compose(LaplaceMechanism(1.0, 0.1), count=3)
    acc.compose(statement)
    bound = acc.report(0.5)
    assert bound.epsilon == pytest.approx(expected, rel=1e-12)
    assert bound.method.startswith("basic")


def test_a_gaussian_of_no_noise_is_no_bound_not_an_error():
    # before: ZeroDivisionError (sigma * sigma underflows to 0)
    from sensampler.privacy import Noise

    acc = PLDAccountant()
    acc.compose(PrivacyStatement("g", None, None, noise=Noise("gaussian", (1e-200,))))
    assert acc.epsilon(1e-5) == math.inf and acc.delta(1.0) == 1.0


@pytest.mark.parametrize("others", [0, 3])
def test_a_statement_of_delta_one_gives_trivial_bounds_not_an_error(others):
    # before: recorded, then every report raised "delta must be < 1.0" (the exact
    # optimal composition), or IndexError inside dp_accounting with a Laplace step
    acc = PLDAccountant()
    acc.compose(PrivacyStatement("x", 0.1, 1.0))
    if others:
        acc.compose(LaplaceMechanism(1.0, 0.5), count=others)
    assert acc.epsilon(1e-5) == math.inf and acc.report(0.5).epsilon == math.inf
    assert acc.delta(1.0) == 1.0 and acc.delta(1e6) == 1.0
    assert acc.epsilon(1.0) == pytest.approx(0.1 + 0.5 * others)  # basic: valid
    assert "inf" in repr(acc)


@pytest.mark.parametrize("epsilon", [1.0, 5.0])
def test_pure_steps_of_epsilon_one_or_more_still_use_the_pld(epsilon):
    acc = PLDAccountant()
    acc.compose(PrivacyStatement("x", epsilon, 0.0), count=3)
    acc.compose(LaplaceMechanism(1.0, 0.5), count=3)
    assert acc.report(1e-5).method == PLD_METHOD
