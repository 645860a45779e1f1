from fractions import Fraction

import numpy as np
import pytest

from sensampler._math.rounding import float_down, float_up, lower, upper


def test_lower_and_upper_bracket_the_exact_value():
    values = np.random.default_rng(20261126).lognormal(0.0, 3.0, 2000)
    for value in [*values, *-values, 0.30000000000000004, 0.9501858, 1e-300]:
        for digits in (3, 4, 6):
            assert Fraction(float(lower(value, digits))) <= Fraction(value)
            assert Fraction(float(upper(value, digits))) >= Fraction(value)


@pytest.mark.parametrize(
    "value, digits, down, up",
    [
        (0.30000000000000004, 6, "0.3", "0.300001"),
        (0.9501858, 4, "0.9501", "0.9502"),
        (0.1, 6, "0.1", "0.1"),
        (0.0, 4, "0", "0"),
        (-0.25, 1, "-0.3", "-0.2"),
        (float("inf"), 4, "inf", "inf"),
    ],
)
def test_lower_and_upper_print_the_nearest_decimal_on_their_side(
    value, digits, down, up
):
    assert (lower(value, digits), upper(value, digits)) == (down, up)


@pytest.mark.parametrize(
    "value",
    [Fraction(1, 3), Fraction(2, 3), Fraction(1, 10), Fraction(-1, 3), Fraction(5, 4),
     Fraction(10**400), Fraction(1, 10**400)],
)
def test_float_up_is_the_double_at_or_just_above(value):
    out = float_up(value)
    assert Fraction(out) >= value if out != float("inf") else value > 2**1023
    if out != float("inf"):
        below = np.nextafter(out, -np.inf)
        assert Fraction(float(below)) < value


@pytest.mark.parametrize(
    "value",
    [Fraction(1, 3), Fraction(2, 3), Fraction(1, 10), Fraction(-1, 3), Fraction(5, 4),
     Fraction(10**400), -Fraction(10**400), Fraction(1, 10**400), Fraction(0)],
)
def test_float_down_is_the_double_at_or_just_below(value):
    """float_down is float_up's mirror: the two bracket every exact value, one
    ulp apart where it is not a double (its logic was written twice before, in
    quotient_down and in the quantile's plain scale)."""
    out = float_down(value)
    assert Fraction(out) <= value if out != float("-inf") else value < -(2**1024)
    if abs(out) < float("inf") and value <= 2**1024:
        above = np.nextafter(out, np.inf)
        assert Fraction(float(above)) > value
    up = float_up(value)
    if abs(value) < 2**1023:
        assert up == out or np.nextafter(out, np.inf) == up
    assert str(float_up(Fraction(0))) == "0.0"  # never -0.0


def test_the_rounded_down_quotients_are_float_down():
    from sensampler.mechanisms._base import quotient_down
    from sensampler.quantile_calibration import plain_scale

    assert quotient_down(1.0, 3.0) == float_down(Fraction(1, 3)) == 1 / 3
    assert quotient_down(1.0, 10.0) == float_down(Fraction(1, 10)) < 0.1
    assert plain_scale(1.0, 5.0) == float_down(Fraction(1, 10)) < 0.1
    assert quotient_down(1e308, 1e-308) == 1.7976931348623157e308  # beyond: the largest
