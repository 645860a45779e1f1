"""Worst-case parts stated in zCDP only, composed by every accountant and filter."""

import re

import mpmath
import pytest
from sensampler.distributions import GaussianMixture

from sensampler import queries, sample_sensitivity
from sensampler.accounting import (
    PLDAccountant,
    RenyiAccountant,
    RenyiFilter,
    ZCDPAccountant,
)
from sensampler.bounds import Bounds
from sensampler.mechanisms import (
    LaplaceMechanism,
    RenyiGaussianMechanism,
    ZCDPGaussianMechanism,
)
from sensampler.privacy import PrivacyStatement

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
mpmath.mp.dps = 50


def _estimate():
    return sample_sensitivity(queries.mean, HEIGHTS, 500, gamma=0.05,
                              bounds=Bounds.given(140.0, 200.0), random_state=0)


def _exact_gaussian_delta(rho, epsilon):
    """delta(epsilon) of the Gaussian pair N(0, 1), N(mu, 1), mu^2 = 2 rho: the
    exact privacy profile (Balle & Wang 2018, Thm. 8), in mpmath."""
    mu = mpmath.sqrt(2 * mpmath.mpf(rho))
    eps = mpmath.mpf(epsilon)
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(
        -eps / mu - mu / 2
    )


def _cks_epsilon(rho, delta):
    """Canonne, Kamath & Steinke (2020), Prop. 12, for the curve alpha rho,
    minimised over alpha by mpmath (an independent implementation)."""
    rho, delta = mpmath.mpf(rho), mpmath.mpf(delta)

    def eps(a):
        return a * rho + mpmath.log1p(-1 / a) - (mpmath.log(delta) + mpmath.log(a)) / (
            a - 1
        )

    # the stationary point, from near the optimum 1 + sqrt(ln(1/delta) / rho)
    start = 1 + mpmath.sqrt(mpmath.log(1 / delta) / rho)
    alpha = mpmath.findroot(lambda a: mpmath.diff(eps, a), start)
    return float(eps(alpha))


@pytest.mark.parametrize("make", [
    lambda est: ZCDPGaussianMechanism(est, 0.1),
    lambda est: RenyiGaussianMechanism(est, 8.0, 0.5),
])
def test_a_zcdp_worst_case_is_composed_not_dropped(make):
    mech = make(_estimate())
    rho = mech.privacy.worst_case.rho
    assert mech.privacy.worst_case.epsilon is None and rho > 0
    for acc in (ZCDPAccountant(), RenyiAccountant(), PLDAccountant()):
        acc.compose(mech, count=3)
        total = acc.worst_case(delta=1e-6)  # was None: the part was dropped
        assert total is not None and total.gamma == 0.0 and total.delta == 1e-6
        # never below the exact epsilon of three Gaussian releases (3 rho)
        assert _exact_gaussian_delta(3 * rho, total.epsilon) <= 1e-6
        # and the CKS conversion of 3 rho, computed independently
        assert total.epsilon == pytest.approx(_cks_epsilon(3 * rho, 1e-6), rel=1e-4)
        assert acc.ledger[0].worst_case_rho == rho


def test_a_zcdp_worst_case_needs_a_delta_and_a_filter_has_one():
    mech = ZCDPGaussianMechanism(_estimate(), 0.1)
    acc = ZCDPAccountant()
    acc.compose(mech)
    with pytest.raises(ValueError, match=re.escape("got delta=None.")):
        acc.worst_case()
    with pytest.raises(ValueError, match="delta"):
        acc.worst_case(delta=0.0)
    budget = RenyiFilter(100.0, 1e-5)
    budget.compose(mech)
    total = budget.worst_case()  # at the filter's delta
    assert total.delta == 1e-5
    assert total.epsilon == pytest.approx(
        _cks_epsilon(mech.privacy.worst_case.rho, 1e-5), rel=1e-4
    )


def test_pure_parts_join_the_renyi_sum():
    est = _estimate()
    gauss, laplace = ZCDPGaussianMechanism(est, 0.1), LaplaceMechanism(est, 1.0)
    acc = RenyiAccountant()
    acc.compose(gauss, count=2)
    acc.compose(laplace)
    total = acc.worst_case(delta=1e-6)
    rho, eps = gauss.privacy.worst_case.rho, laplace.privacy.worst_case.epsilon
    # the Rényi sum lies between the curve alpha 2 rho and alpha 2 rho + eps:
    # converted, between the conversion of 2 rho and that plus eps (up to the
    # grid of orders, 1e-4 relative)
    assert _cks_epsilon(2 * rho, 1e-6) < total.epsilon
    assert total.epsilon <= (_cks_epsilon(2 * rho, 1e-6) + eps) * (1 + 1e-4)
    assert _exact_gaussian_delta(2 * rho, total.epsilon - eps) <= 1e-6


def test_beside_an_approximate_part_each_zcdp_release_gets_a_share_of_delta():
    mech = ZCDPGaussianMechanism(_estimate(), 0.1)
    acc = PLDAccountant()
    acc.compose(PrivacyStatement("given", 0.5, 1e-7))
    acc.compose(mech, count=2)
    total = acc.worst_case(delta=1e-6)
    rho = mech.privacy.worst_case.rho
    share = _cks_epsilon(rho, 0.5e-6)
    assert total.epsilon == pytest.approx(0.5 + 2 * share, rel=1e-4)
    assert total.delta == pytest.approx(1e-7 + 1e-6, rel=1e-12)
    assert total.delta >= 1e-7 + 1e-6
    assert _exact_gaussian_delta(rho, (total.epsilon - 0.5) / 2) <= 0.5e-6


def test_an_entry_keeps_the_zcdp_worst_case_through_its_statement():
    mech = ZCDPGaussianMechanism(_estimate(), 0.1)
    acc = ZCDPAccountant()
    acc.compose(mech)
    statement = acc.ledger[0].to_statement()
    assert statement.worst_case.rho == mech.privacy.worst_case.rho
    assert statement.worst_case.epsilon is None


def test_epsilon_delta_parts_still_compose_by_basic_composition():
    est = _estimate()
    acc = RenyiAccountant()
    acc.compose(LaplaceMechanism(est, 1.0), count=2)
    total = acc.worst_case()  # no delta needed
    assert total.epsilon >= 2 * LaplaceMechanism(est, 1.0).privacy.worst_case.epsilon
    assert total.delta == 0.0 and "basic composition" in total.method
