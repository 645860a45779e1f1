"""sensampler._lib.printing: the one number-printing policy, by property.

A privacy parameter, a sensitivity and an error printed and read back are never
below the exact value; a confidence and what is left of a budget never above
it; a value is printed to the precision of its error.
"""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sensampler._lib import printing

POSITIVE = st.floats(min_value=1e-300, max_value=1e300, allow_nan=False)
PROBABILITY = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@given(POSITIVE, st.sampled_from(["epsilon", "delta", "gamma", "rho"]))
def test_a_privacy_parameter_read_back_is_never_below_the_exact_one(value, kind):
    text = getattr(printing, kind)(value)
    assert float(text) >= value
    digits = len(text.split("e")[0].replace(".", "").lstrip("0"))
    assert digits <= printing.PRIVACY_DIGITS[kind]


@given(PROBABILITY, st.sampled_from(["epsilon", "delta", "gamma", "rho"]))
def test_what_is_left_and_a_confidence_read_back_are_never_above_the_exact_ones(
    value, kind
):
    assert float(printing.down(value, kind)) <= value
    assert float(printing.confidence(value)) <= value


@given(POSITIVE)
def test_a_sensitivity_and_an_error_read_back_are_never_below_the_exact_ones(value):
    assert float(printing.sensitivity(value)) >= value
    assert float(printing.error(value)) >= value


@given(
    st.floats(min_value=-1e9, max_value=1e9, allow_nan=False),
    st.floats(min_value=1e-6, max_value=1e6),
)
@pytest.mark.slow
def test_a_value_is_printed_to_the_precision_of_its_error(x, err):
    text = printing.value(x, err)
    place = math.floor(math.log10(float(printing.error(err)))) - printing.ERROR_DIGITS + 1
    assert "e" not in text
    decimals = len(text.partition(".")[2])
    assert decimals == max(-place, 0)
    assert abs(float(text) - x) <= 0.5 * 10.0**place * (1 + 1e-9) + 1e-9 * abs(x)


def test_the_same_gamma_prints_the_same_everywhere():
    """The issue's gamma, 0.04981423103679866, printed three ways in one card
    (0.0498143, 0.04982 and its repr): one way, rounded up to 4 digits."""
    gamma = 0.04981423103679866
    assert printing.gamma(gamma) == "0.04982"
    assert printing.confidence(1 - gamma) == "0.9501"


def test_errors_and_values_read_in_the_data_units_without_exponents():
    assert printing.error(2897.31) == "2900"
    assert printing.value(169.48123, 0.2897) == "169.481"
    assert printing.value(12345.6, 2897.0) == "12350"
    assert printing.value(1234567.0) == "1234570"
    assert printing.with_unit("2900", "cm") == "2900 cm"
    assert printing.with_unit("2900", None) == "2900"


def test_arrays_print_each_number_by_the_policy():
    assert printing.sensitivities([0.07153761, 1.0]) == "[0.0715377 1]"
    assert printing.values([1.2345, 5.6789], 0.1) == "[1.234 5.679]"  # 0.100: 3 decimals
    assert printing.sensitivities(list(range(10))).endswith(" …]")


@pytest.mark.parametrize("kind", ["epsilon", "delta", "gamma", "rho"])
def test_zero_and_infinity_print_plainly(kind):
    assert getattr(printing, kind)(0.0) == "0"
    assert getattr(printing, kind)(math.inf) == "inf"
