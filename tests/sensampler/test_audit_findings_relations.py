"""Audit findings on the conversion of add/remove statements to replace-one
(:func:`sensampler.privacy.to_replace_one`, the group privacy every budget of
the other relation is charged by): every number it gives must be at least
what group privacy proves, checked against mpmath at 60 digits and exact
fractions."""

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from sensampler.privacy import PrivacyStatement, to_replace_one

RNG = np.random.default_rng(20261126)
EPSILONS = RNG.uniform(0.01, 5.0, 300)
DELTAS = 10.0 ** RNG.uniform(-12.0, -3.0, 300)


def _group_delta(epsilon, delta):
    """(1 + e^epsilon) delta at 60 digits, capped at 1."""
    with mpmath.workdps(60):
        return min(mpmath.mpf(1), (1 + mpmath.exp(mpmath.mpf(epsilon))) * mpmath.mpf(delta))


def test_the_converted_delta_is_never_below_group_privacy():
    # rounded to nearest, about half of these were an ulp or more below
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
    # e^epsilon was capped at e^709: (1600, 8.2e-13)-DP was stated for
    # (800, 1e-320) at add/remove, where group privacy gives delta = 1
    converted = to_replace_one(
        PrivacyStatement("m", epsilon, delta, neighbours="add-remove")
    )
    assert mpmath.mpf(converted.delta) >= _group_delta(epsilon, delta)


def test_a_huge_epsilon_with_a_small_product_keeps_it():
    # e^709.5 * 1e-310 is below 1: not everything beyond e^709 is capped at 1
    converted = to_replace_one(
        PrivacyStatement("m", 709.5, 1e-310, neighbours="add-remove")
    )
    exact = _group_delta(709.5, 1e-310)
    assert exact < 1
    assert exact <= mpmath.mpf(converted.delta) <= exact * (1 + 1e-14)


def test_the_rho_of_a_pure_conversion_is_never_below_its_square():
    # min(2 eps, (2 eps)^2 / 2) rounded to nearest was below the exact value
    below = []
    for epsilon in EPSILONS:
        rho = to_replace_one(
            PrivacyStatement("m", float(epsilon), 0.0, neighbours="add-remove")
        ).rho
        pure = Fraction(2 * float(epsilon))
        if Fraction(rho) < min(pure, pure * pure / 2):
            below.append(epsilon)
    assert below == []
