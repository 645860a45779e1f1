import itertools
import math
import re

import mpmath
import pytest

from sensampler.accounting import (
    advanced_composition,
    basic_composition,
    heterogeneous_composition,
    optimal_composition,
    parallel_composition,
    tightest_composition,
)
from sensampler.accounting._kov import heterogeneous_epsilon
from sensampler.accounting.pld import pld_epsilon


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
def test_optimal_composition_is_exact_between_the_grid_points(eps, delta, k, dp):
    budget = k * delta + dp
    got = optimal_composition(eps, delta, k, dp)
    grid = _kov_by_enumeration(eps, delta, k, budget)
    assert got.epsilon <= grid[0] and got.delta == budget
    # the exact profile, enumerated with mpmath: met at epsilon', not just inside
    assert _profile(eps, delta, k, got.epsilon) <= budget * (1 + 1e-12)
    assert _profile(eps, delta, k, got.epsilon * (1 - 1e-9)) > budget


def _profile(eps, delta, k, eps_prime):
    """Second method: delta'(eps') of the k-fold KOV pair, summed exactly."""
    mpmath.mp.dps = 40
    e = mpmath.e**eps
    rr = mpmath.mpf(0)
    for l in range(k + 1):
        loss = (k - 2 * l) * mpmath.mpf(eps)
        if loss > eps_prime:
            pmf = mpmath.binomial(k, l) * e ** (k - l) / (1 + e) ** k
            rr += pmf * (1 - mpmath.e ** (mpmath.mpf(eps_prime) - loss))
    return float(1 - (1 - mpmath.mpf(delta)) ** k * (1 - rr))


def test_issue_figure_optimal_composition():
    # eps = 0.5, k = 100, delta' = 1e-5: 32.0 on the grid (k - 2i) eps, 31.17 exactly
    assert _kov_by_enumeration(0.5, 0.0, 100, 1e-5)[0] == 32.0
    assert optimal_composition(0.5, 0.0, 100, 1e-5).epsilon == pytest.approx(
        31.17, abs=0.005
    )


@pytest.mark.slow
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


# ------------------------------------------------------------- heterogeneous, PLD
def test_heterogeneous_composition_is_kov_theorem_3_5():
    eps = [0.1, 0.2, 0.05] * 20
    bound = heterogeneous_composition(eps, [1e-7] * 60, 1e-5)
    want = heterogeneous_epsilon(eps, [1e-7] * 60, 1e-5)
    assert (bound.epsilon, bound.delta) == want
    assert bound.method == "heterogeneous (Kairouz et al. 2017, Thm. 3.5)"
    assert bound.epsilon < basic_composition(eps)[0]
    # one delta for all
    assert heterogeneous_composition(eps, 0.0, 1e-5).delta == pytest.approx(1e-5)


def test_tightest_takes_the_minimum_of_every_bound_pld_included():
    for eps, delta, k in [(0.5, 0.0, 100), (0.1, 1e-7, 300), (1.0, 0.0, 3)]:
        best = tightest_composition(eps, delta, k, 1e-5)
        budget = k * delta + 1e-5
        others = [
            basic_composition(eps, delta, k),
            advanced_composition(eps, delta, k, 1e-5),
            optimal_composition(eps, delta, k, 1e-5),
            heterogeneous_composition([eps] * k, delta, 1e-5),
        ]
        step = ("epsilon_delta", eps, delta, k) if delta else ("pure", eps, k)
        pld = pld_epsilon([step], budget)
        assert best.epsilon == min([o.epsilon for o in others] + [pld])
        assert best.delta <= budget
    assert tightest_composition(0.5, 0.0, 100, 1e-5).epsilon == pytest.approx(
        31.17, abs=0.005
    )


# ----------------------------------------- overflow, silent inf and messages
def test_advanced_composition_overflow_is_inf():
    # k eps (e^eps - 1) with eps = 1000: e^1000 overflows; the bound is inf
    bound = advanced_composition(1000, 0, 2, 1e-5)
    assert bound.epsilon == math.inf and bound.delta == 1e-5


def test_advanced_composition_at_the_smallest_delta_prime_is_finite():
    # log(1/5e-324) = 744.4: 1 / 5e-324 overflows, -log(5e-324) does not
    bound = advanced_composition(1, 0, 10, 5e-324)
    want = math.sqrt(20 * 744.4400719213812) + 10 * math.expm1(1.0)
    assert bound.epsilon == pytest.approx(want)


@pytest.mark.parametrize(
    "call, exc, message",
    [
        (
            lambda: parallel_composition([]),
            ValueError,
            "epsilon must hold at least one value, got epsilon=[].",
        ),
        (
            lambda: basic_composition([1, 2], [0.1, 0.2, 0.3]),
            ValueError,
            "delta must be one value or one per epsilon (2), got 3 values: "
            "delta=[0.1, 0.2, 0.3].",
        ),
        (
            lambda: basic_composition("0.1"),
            TypeError,
            "epsilon must be a real number or a sequence of them, got '0.1'.",
        ),
        (
            lambda: basic_composition(["0.1"]),
            TypeError,
            "epsilon must be a real number, got '0.1'.",
        ),
        (
            lambda: heterogeneous_composition([0.1, 0.2], [0.0], 0.0),
            ValueError,
            "delta_prime must be > 0.0 and < 1.0, got delta_prime=0.0.",
        ),
    ],
)
def test_refusals_name_the_parameter(call, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        call()


def test_tightest_skips_a_pld_that_cannot_represent_the_steps():
    eps, delta = 1_943_240_929, 4.150126570071027e-247
    best = tightest_composition(eps, delta, 8, delta)
    assert best.method == "basic (Dwork & Roth 2014, Thm. 3.16)"
    assert best.epsilon == 8 * eps and best.delta <= 9 * delta * (1 + 1e-15)


@pytest.mark.parametrize("k", [2**63, 10**6 + 1, 2**70])
def test_tightest_with_more_steps_than_the_exact_law_holds(k):
    best = tightest_composition(0.001, 0.0, k, 1e-5)
    assert best.method == "advanced (Dwork & Roth 2014, Thm. 3.20)"
    assert best == advanced_composition(0.001, 0.0, k, 1e-5)
    with pytest.raises(ValueError, match=re.escape("k must be <= 1000000 for the")):
        optimal_composition(0.001, 0.0, k, 1e-5)


def test_heterogeneous_composition_of_a_huge_epsilon(recwarn):
    # one step is epsilon-DP
    bound = heterogeneous_composition([1.3407807929942597e154], [0.0], 1e-6)
    assert bound.epsilon == 1.3407807929942597e154
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    # a sum beyond the largest double is inf
    assert heterogeneous_composition([1e308, 1e308], 0.0, 1e-6).epsilon == math.inf
    assert basic_composition([1e308, 1e308]).epsilon == math.inf
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
