"""The conversions of sensampler.privacy at the edges of float64."""

import math
import warnings

import pytest

from sensampler.accounting import RenyiAccountant, RenyiFilter
from sensampler.mechanisms import RandomizedResponse
from sensampler.privacy import pure_dp_rdp, zcdp_to_dp


@pytest.mark.parametrize("epsilon", [1e154, 1.4e154, 1e200, 1e308])
def test_the_pure_dp_renyi_curve_of_a_huge_epsilon_is_epsilon(epsilon):
    curve = pure_dp_rdp(epsilon)
    assert curve(2.0) == epsilon and curve(1.5) == epsilon
    assert pure_dp_rdp(0.1)(2.0) == pytest.approx(0.01)  # alpha eps^2 / 2 below eps


def test_accountants_compose_a_huge_pure_epsilon():
    accountant = RenyiAccountant()
    accountant.compose(RandomizedResponse(2, 1e200))
    assert accountant.epsilon(1e-5) == pytest.approx(1e200)


def test_a_renyi_filter_admits_a_huge_spend_in_bounded_time():
    budget = RenyiFilter(1e300, 1e-5)
    budget.spend(1e200)
    assert budget.count == 1


@pytest.mark.parametrize("rho", [1e300, 1e308])
def test_zcdp_to_dp_of_a_huge_rho_is_finite_without_warnings(rho):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        epsilon = zcdp_to_dp(rho, 1e-5)
        classic = zcdp_to_dp(rho, 1e-5, "classic")
    assert math.isfinite(classic) and rho <= epsilon <= classic
