"""Printed statements never state more privacy than they hold: epsilon, delta,
gamma and rho are rounded up, checked against exact decimals."""

import re
from decimal import Decimal

import numpy as np
import pytest

from sensampler.accounting import PrivacyFilter
from sensampler.privacy import PrivacyStatement, SamplingRun, format_upper


def _printed(text: str) -> dict[str, float]:
    return {k: float(v) for k, v in re.findall(r"(epsilon|delta|gamma|rho)=([0-9.e+-]+)", text)}


def test_three_spends_print_at_least_what_they_add_up_to():
    # Rounding to nearest printed (epsilon=0.37037, delta=3.7e-05): both below
    # the spent 0.3703701 and 3.7047e-05.
    f = PrivacyFilter(10.0, 1e-3)
    for _ in range(3):
        f.spend(0.1234567, 1.2349e-5)
    text = str(f.spent)
    assert "(epsilon=0.370371, delta=3.71e-05)-DP" in text
    printed = _printed(text)
    assert printed["epsilon"] >= f.spent.epsilon
    assert printed["delta"] >= f.spent.delta


def test_gamma_and_rho_are_rounded_up():
    statement = PrivacyStatement("x", None, None, rho=0.12345671)
    assert "rho=0.123457-zCDP" in str(statement)
    assert format_upper(0.04981423, 4) == "0.04982"  # to nearest: 0.04981


def test_negative_zero_prints_as_zero():
    assert str(PrivacyStatement("x", -0.0, 0.0)) == "x: epsilon=0-DP (replace-one neighbours)"


@pytest.mark.parametrize(
    "value, digits, text",
    [(0.1, 6, "0.1"), (1.0, 6, "1"), (1e-5, 3, "1e-05"), (0.05, 4, "0.05"),
     (9.9999, 3, "10"), (1 / 3, 6, "0.333334"), (2 / 3, 6, "0.666667"),
     (0.0, 3, "0"), (-0.0, 3, "0"), (float("inf"), 6, "inf")],
)
def test_format_upper_examples(value, digits, text):
    assert format_upper(value, digits) == text


def test_format_upper_is_the_smallest_decimal_reading_back_at_least_the_value():
    # Exact check on random doubles over many magnitudes: the printed decimal
    # reads back as >= the value, and the decimal one unit in its last digit
    # below reads back as < the value (it is the smallest such).
    rng = np.random.default_rng(0)
    values = rng.random(2000) * 10.0 ** rng.integers(-12, 4, size=2000)
    for value in values.tolist():
        for digits in (3, 4, 6):
            text = format_upper(value, digits)
            assert float(text) >= value, (value, digits, text)
            printed = Decimal(text)
            assert len(printed.as_tuple().digits) <= digits + 1
            unit = Decimal(1).scaleb(Decimal(value).adjusted() - digits + 1)
            assert float(printed - unit) < value, (value, digits, text)


@pytest.mark.parametrize(
    "statement, core",
    [
        (PrivacyStatement("x", 0.5, 1e-6), "(epsilon=0.5, delta=1e-06)-DP"),
        (PrivacyStatement("x", 0.5, 0.0), "epsilon=0.5-DP"),
        (PrivacyStatement("x", None, None, rho=0.12345671), "rho=0.123457-zCDP"),
        (PrivacyStatement("x", None, None, rdp=lambda a: a), "Rényi DP"),
        (PrivacyStatement("x", 0.5, 0.0, source="typical"), "no privacy guarantee"),
    ],
)
def test_the_core_text_is_what_the_text_and_the_display_print(statement, core):
    # One place builds the guarantee's words: str() and the notebook card read it.
    assert statement.core_text == core
    assert core in str(statement)
    if statement.guaranteed:
        assert f"the release is {core}, so" in statement._repr_html_()


def test_a_worst_case_prints_its_own_core_text():
    worst = PrivacyStatement("x", None, None, rho=0.25)
    run = SamplingRun("r", 0.05)
    sampled = PrivacyStatement("x", 0.5, 0.0, run=run, source="sampled", worst_case=worst)
    assert "; worst case: rho=0.25-zCDP for every pair of neighbours" in str(sampled)
