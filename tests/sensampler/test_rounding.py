from fractions import Fraction

import numpy as np
import pytest

from sensampler._math.rounding import float_up, lower, upper


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
