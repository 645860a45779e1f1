import itertools
import math
import re

import mpmath
import pytest

from sensampler.accounting import (
    advanced_composition,
    basic_composition,
    optimal_composition,
    parallel_composition,
    tightest_composition,
)


def test_basic_and_parallel():
    assert tuple(basic_composition(0.5, 0.0, k=3)) == (1.5, 0.0)
    assert tuple(basic_composition([0.5, 1.0, 0.5], [0.0, 0.0, 0.01])) == (2.0, 0.01)
    assert tuple(parallel_composition([0.5, 1.0], [1e-6, 1e-7])) == (1.0, 1e-6)


def test_source_document_basic_example_delta_is_capped():
    # 003 composes [Lap(0.5), Lap(1), Gauss(0.5, 0.01)] * 1000 and prints epsilon 2000
    # and delta 9.99...: a delta above 1 is no probability; the bound is delta = 1.
    eps, delta = basic_composition([0.5, 1.0, 0.5] * 1000, [0.0, 0.0, 0.01] * 1000)
    assert eps == pytest.approx(2000.0) and delta == 1.0


def test_advanced_composition_is_the_theorem_not_the_textbook_shortcut():
    # 000: "2 sqrt(1000 log(100000)) ~ 214.59" for eps = 1, k = 500, delta' = 1e-5.
    shortcut = 2 * 1.0 * math.sqrt(2 * 500 * math.log(1e5))
    assert shortcut == pytest.approx(214.59, abs=0.01)
    eps, delta = advanced_composition(1.0, 0.0, 500, 1e-5)
    # Dwork & Roth Thm 3.20: sqrt(2k ln(1/d')) eps + k eps (e^eps - 1)
    assert eps == pytest.approx(math.sqrt(1000 * math.log(1e5)) + 500 * (math.e - 1))
    assert eps == pytest.approx(966.44, abs=0.01) and delta == 1e-5
    assert eps > shortcut  # the shortcut under-reports epsilon here
    assert tightest_composition(1.0, 0.0, 500, 1e-5).epsilon < 500  # basic: 500


def test_advanced_composition_numbers_of_the_filters_text():
    # 003 prints 4.690 (k=3) and 153.67 (k=350) for eps=0.5, delta'=0.1: its formula
    # drops the factor eps of the first term. The theorem gives:
    eps3, _ = advanced_composition(0.5, 0.0, 3, 0.1)
    eps350, _ = advanced_composition(0.5, 0.0, 350, 0.1)
    assert eps3 == pytest.approx(
        0.5 * math.sqrt(6 * math.log(10)) + 1.5 * math.expm1(0.5)
    )
    assert eps3 == pytest.approx(2.8315, abs=1e-4)
    assert eps350 == pytest.approx(133.5999, abs=1e-4)
    wrong3 = math.sqrt(6 * math.log(10)) + 1.5 * math.expm1(0.5)
    assert wrong3 == pytest.approx(4.690004094900031)


def _kov_by_enumeration(eps, delta, k, target):
    """Second method: the privacy profile of k-fold randomized response, enumerated
    exactly with mpmath, gives the optimal delta at each (k - 2i) eps."""
    mpmath.mp.dps = 40
    e = mpmath.e**eps
    best = None
    for i in range(k // 2 + 1):
        di = mpmath.mpf(0)
        for l in range(i):
            di += (
                mpmath.binomial(k, l)
                * (e ** (k - l) - e ** (k - 2 * i + l))
                / (1 + e) ** k
            )
        total = 1 - (1 - delta) ** k * (1 - di)
        if total <= target:
            best = ((k - 2 * i) * eps, float(total))
    return best


@pytest.mark.parametrize(
    "eps, delta, k, dp",
    [
        (0.5, 0.0, 10, 1e-3),
        (0.1, 1e-4, 40, 1e-3),
        (1.0, 0.0, 25, 1e-5),
        (0.3, 1e-6, 60, 1e-6),
    ],
)
def test_optimal_composition_matches_exact_enumeration(eps, delta, k, dp):
    got = optimal_composition(eps, delta, k, dp)
    want = _kov_by_enumeration(eps, delta, k, k * delta + dp)
    assert got[0] == pytest.approx(want[0]) and got[1] == pytest.approx(
        want[1], rel=1e-9
    )


def test_optimal_is_never_worse_than_the_others():
    for eps, k, dp in itertools.product(
        [0.01, 0.1, 0.5, 1.0], [1, 10, 100, 1000], [1e-6]
    ):
        best = tightest_composition(eps, 1e-8, k, dp)
        assert best.epsilon <= basic_composition(eps, 1e-8, k)[0] + 1e-12
        assert best.epsilon <= advanced_composition(eps, 1e-8, k, dp)[0] + 1e-12
        assert best.delta <= k * 1e-8 + dp


@pytest.mark.parametrize(
    "call, exc, message",
    [
        (
            lambda: basic_composition(-1.0),
            ValueError,
            "epsilon must be >= 0.0, got epsilon=-1.0.",
        ),
        (
            lambda: basic_composition(1.0, 1.0),
            ValueError,
            "delta must be >= 0.0 and < 1.0",
        ),
        (
            lambda: basic_composition(1.0, 0.0, k=0),
            ValueError,
            "k must be an integer >= 1",
        ),
        (
            lambda: basic_composition([1.0, 2.0], 0.0, k=2),
            ValueError,
            "give k only with scalar",
        ),
        (
            lambda: advanced_composition(1.0, 0.0, 0, 1e-5),
            ValueError,
            "k must be an integer >= 1",
        ),
        (
            lambda: advanced_composition(1.0, 0.0, 10, 0.0),
            ValueError,
            "delta_prime must be > 0.0 and < 1.0, got delta_prime=0.0.",
        ),
        (
            lambda: advanced_composition(1.0, 0.0, 10, 1.0),
            ValueError,
            "delta_prime must be",
        ),
        (
            lambda: advanced_composition(1.0, -0.1, 10, 1e-5),
            ValueError,
            "delta must be >= 0.0",
        ),
        (
            lambda: optimal_composition(-1.0, 0.0, 10, 1e-5),
            ValueError,
            "epsilon must be >= 0.0",
        ),
    ],
)
def test_bad_inputs(call, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        call()
