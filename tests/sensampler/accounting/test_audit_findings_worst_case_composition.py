"""Audit findings on ``PrivacyAccountant.worst_case``: every composed epsilon is at
least the bound it claims, computed independently (mpmath at 50 digits, the exact
privacy profile of Gaussians, dp_accounting's pessimistic PLD)."""

import mpmath
import numpy as np
import pytest
from sensampler.distributions import Normal

from sensampler import queries, sample_sensitivity
from sensampler.accounting import PLDAccountant, RenyiAccountant
from sensampler.bounds import Bounds
from sensampler.mechanisms import ZCDPGaussianMechanism
from sensampler.privacy import DEFAULT_ORDERS, PrivacyStatement

mpmath.mp.dps = 50


def _cks_on_orders(rho_total, pure, delta):
    """min over DEFAULT_ORDERS of Canonne, Kamath & Steinke (2020), Prop. 12, for
    the curve alpha rho_total + sum of min(eps, alpha eps^2 / 2), in mpmath."""
    d = mpmath.mpf(delta)
    best = mpmath.inf
    for a in DEFAULT_ORDERS:
        a = mpmath.mpf(float(a))
        rdp = a * mpmath.mpf(rho_total) + sum(
            (c * min(mpmath.mpf(e), a * mpmath.mpf(e) ** 2 / 2) for e, c in pure),
            mpmath.mpf(0),
        )
        value = rdp + mpmath.log1p(-1 / a) - (mpmath.log(d) + mpmath.log(a)) / (a - 1)
        best = min(best, value)
    return best


def _renyi_total(rho, k, eps, m, delta):
    acc = RenyiAccountant()
    acc.compose(PrivacyStatement("zcdp", None, None, rho=rho), k)
    acc.compose(PrivacyStatement("pure", eps, 0.0), m)
    return acc.worst_case(delta)


def test_the_renyi_sum_converted_is_never_below_its_exact_value():
    # failed: 9.07375335946732 < 9.073753359467322 (the conversion in floating
    # point, not rounded up: an ulp below the bound it states, in about half of
    # random cases)
    rho, eps, delta = 0.0009189357400366181, 1.3756658904315002, 1.2359228558422154e-08
    total = _renyi_total(rho, 13, eps, 6, delta)
    assert total.epsilon >= _cks_on_orders(13 * mpmath.mpf(rho), [(eps, 6)], delta)


def test_random_renyi_sums_are_never_below_their_exact_value():
    rng = np.random.default_rng(1)
    for _ in range(60):
        k, m = int(rng.integers(1, 50)), int(rng.integers(1, 20))
        rho, eps = float(10 ** rng.uniform(-6, 1)), float(10 ** rng.uniform(-4, 1))
        delta = float(10 ** rng.uniform(-12, -2))
        total = _renyi_total(rho, k, eps, m, delta)
        exact = _cks_on_orders(k * mpmath.mpf(rho), [(eps, m)], delta)
        assert total.epsilon >= exact
        assert total.epsilon <= exact * (1 + 1e-9)  # the margin costs nothing visible


def test_a_composition_of_nothing_costs_nothing():
    acc = RenyiAccountant()
    acc.compose(PrivacyStatement("zcdp", None, None, rho=0.0), 3)
    assert acc.worst_case(1e-6).epsilon == 0.0


def _pld_delta(rho, k, eps, m, epsilon):
    """delta(epsilon) of k Gaussians N(0, 1) vs N(sqrt(2 rho), 1) and m Laplace
    epsilon-DP pairs, by dp_accounting's pessimistic PLD (an upper bound)."""
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    gauss = pldlib.from_gaussian_mechanism(
        1.0 / np.sqrt(2 * rho), value_discretization_interval=1e-4,
        pessimistic_estimate=True,
    ).self_compose(k)
    lap = pldlib.from_laplace_mechanism(
        1.0 / eps, value_discretization_interval=1e-4, pessimistic_estimate=True
    ).self_compose(m)
    return gauss.compose(lap).get_delta_for_epsilon(epsilon)


@pytest.mark.parametrize("rho, k, eps, m", [(0.01, 5, 0.3, 4), (0.2, 3, 1.0, 2)])
def test_the_renyi_sum_holds_against_the_pld_of_the_pairs(rho, k, eps, m):
    total = _renyi_total(rho, k, eps, m, 1e-6)
    assert _pld_delta(rho, k, eps, m, total.epsilon) <= 1e-6


def test_each_share_of_delta_is_converted_rounded_up():
    # zCDP parts beside approximate ones: each converted at delta / K, then
    # summed; every share's epsilon at least its exact conversion
    est = sample_sensitivity(queries.mean, Normal(170, 10), 500, gamma=0.05,
                             bounds=Bounds.given(140.0, 200.0), random_state=0)
    rng = np.random.default_rng(2)
    for _ in range(30):
        mech = ZCDPGaussianMechanism(est, float(10 ** rng.uniform(-4, 0)))
        rho, delta = mech.privacy.worst_case.rho, float(10 ** rng.uniform(-12, -2))
        k = int(rng.integers(1, 10))
        acc = PLDAccountant()
        acc.compose(PrivacyStatement("given", 0.5, 1e-9))
        acc.compose(mech, k)
        total = acc.worst_case(delta)
        assert total.delta >= 1e-9 + delta * (1 - 1e-15)
        share = mpmath.mpf(delta / k)
        r = mpmath.mpf(rho)

        def f(a, r=r, share=share):
            log_term = (mpmath.log(share) + mpmath.log(a)) / (a - 1)
            return a * r + mpmath.log1p(-1 / a) - log_term

        # the continuous optimum, from a fine scan refined by findroot
        start = min(
            (1 + mpmath.exp(mpmath.mpf(x) / 50) for x in range(-500, 500)), key=f
        )
        exact = f(mpmath.findroot(lambda a, f=f: mpmath.diff(f, a), start))
        assert total.epsilon >= 0.5 + k * exact


def test_a_tiny_pure_part_is_not_read_as_no_loss():
    # min(eps, alpha eps^2 / 2) underflows to 0 at eps = 1e-200: the part still
    # costs eps, and the composition more than nothing
    acc = RenyiAccountant()
    acc.compose(PrivacyStatement("zcdp", None, None, rho=0.0))
    acc.compose(PrivacyStatement("pure", 1e-200, 0.0), 3)
    assert acc.worst_case(1e-6).epsilon > 0.0
