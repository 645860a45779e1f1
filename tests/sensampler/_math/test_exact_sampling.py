"""Exact samplers: their laws against pmfs computed independently with mpmath."""

import math
import random
import re
from collections import Counter
from fractions import Fraction

import mpmath
import pytest

from sensampler._math.exact_sampling import (
    as_fraction,
    bernoulli,
    bernoulli_exp,
    discrete_gaussian,
    discrete_laplace,
)
from tests.conftest import assert_close_in_se

N_DRAWS = 30_000
mpmath.mp.dps = 40


def _mp(x):
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _gaussian_pmf(sigma2, support):
    # Normalise exp(-y^2 / (2 sigma^2)) over a support wide enough that the rest
    # is below 1e-40 of the mass.
    weights = {
        y: mpmath.exp(-(mpmath.mpf(y) ** 2) / (2 * _mp(sigma2))) for y in support
    }
    total = mpmath.fsum(weights.values())
    return {y: float(w / total) for y, w in weights.items()}


def _laplace_pmf(scale, support):
    weights = {y: mpmath.exp(-abs(mpmath.mpf(y)) / _mp(scale)) for y in support}
    total = mpmath.fsum(weights.values())
    return {y: float(w / total) for y, w in weights.items()}


def _check_cells(draws, pmf, n):
    """Every cell with expected count >= 5 and the rest lumped: within 6 SE."""
    counts = Counter(draws)
    assert set(counts) <= set(pmf), "a draw fell outside the tested support"
    big = [y for y, p in pmf.items() if p * n >= 5]
    cells = [([y], pmf[y]) for y in big]
    rest = [y for y in pmf if y not in big]
    cells.append((rest, sum(pmf[y] for y in rest)))
    for ys, p in cells:
        observed = sum(counts[y] for y in ys) / n
        se = math.sqrt(max(p * (1 - p), 1.0 / n) / n)
        assert_close_in_se(observed, p, se)


@pytest.mark.slow
@pytest.mark.parametrize(
    "gamma", [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(7, 3), 5.5, 12]
)
def test_bernoulli_exp_law(gamma):
    rng = random.Random(20261121)
    p = float(mpmath.exp(-_mp(gamma)))
    hits = sum(bernoulli_exp(gamma, rng) for _ in range(N_DRAWS))
    if gamma == 0:
        assert hits == N_DRAWS
        return
    se = math.sqrt(p * (1 - p) / N_DRAWS)
    assert_close_in_se(hits / N_DRAWS, p, se)


def test_bernoulli_is_exact_on_its_denominator():
    # Bernoulli(2/5) draws randrange(5) once: the outcome is < 2 exactly.
    class Scripted:
        def __init__(self, values):
            self.values = list(values)

        def randrange(self, n):
            assert n == 5
            return self.values.pop(0)

    source = Scripted([0, 1, 2, 3, 4])
    assert [bernoulli(Fraction(2, 5), source) for _ in range(5)] == [
        True,
        True,
        False,
        False,
        False,
    ]


@pytest.mark.slow
@pytest.mark.parametrize("scale", [Fraction(1), Fraction(3, 2), Fraction(7, 2), 0.25])
def test_discrete_laplace_law(scale):
    rng = random.Random(11)
    draws = [discrete_laplace(scale, rng) for _ in range(N_DRAWS)]
    width = int(60 * float(scale)) + 20
    _check_cells(
        draws, _laplace_pmf(Fraction(scale), range(-width, width + 1)), N_DRAWS
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "sigma2", [Fraction(1), Fraction(5, 2), Fraction(10, 3), Fraction(1, 7), 20, 0.3]
)
def test_discrete_gaussian_law(sigma2):
    rng = random.Random(12)
    draws = [discrete_gaussian(sigma2, rng) for _ in range(N_DRAWS)]
    width = int(15 * math.sqrt(float(sigma2))) + 10
    _check_cells(
        draws, _gaussian_pmf(Fraction(sigma2), range(-width, width + 1)), N_DRAWS
    )


@pytest.mark.slow
def test_discrete_gaussian_is_symmetric_with_the_right_variance():
    # Variance of N_Z(0, 4) is < 4 (CKS 2020, Cor. 9); computed by mpmath.
    rng = random.Random(3)
    draws = [discrete_gaussian(4, rng) for _ in range(N_DRAWS)]
    pmf = _gaussian_pmf(4, range(-80, 81))
    var = sum(p * y * y for y, p in pmf.items())
    fourth = sum(p * y**4 for y, p in pmf.items())
    se = math.sqrt((fourth - var**2) / N_DRAWS)
    assert_close_in_se(sum(y * y for y in draws) / N_DRAWS, var, se)
    assert var <= 4


def test_default_source_is_the_system_generator():
    assert isinstance(discrete_gaussian(Fraction(9, 4)), int)
    assert isinstance(discrete_laplace(2), int)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda: bernoulli_exp(-1),
            ValueError,
            "gamma must be >= 0, got gamma=Fraction(-1, 1).",
        ),
        (
            lambda: bernoulli_exp("1"),
            TypeError,
            "gamma must be a rational number, got '1'.",
        ),
        (
            lambda: discrete_laplace(0),
            ValueError,
            "scale must be > 0, got scale=Fraction(0, 1).",
        ),
        (
            lambda: discrete_laplace(math.inf),
            ValueError,
            "scale must be finite, got scale=inf.",
        ),
        (
            lambda: discrete_gaussian(-2),
            ValueError,
            "sigma2 must be > 0, got sigma2=Fraction(-2, 1).",
        ),
        (
            lambda: discrete_gaussian(True),
            TypeError,
            "sigma2 must be a rational number, got True.",
        ),
        (
            lambda: as_fraction("x", math.nan),
            ValueError,
            "x must be finite, got x=nan.",
        ),
    ],
)
def test_bad_parameters_refused_before_drawing(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


@pytest.mark.slow
def test_law_check_detects_a_slightly_wrong_law():
    # The same check fails when the pmf is that of sigma^2 = 2.2 instead of 2.5:
    # the tolerance is tight enough to see a 12% error in the variance.
    rng = random.Random(12)
    draws = [discrete_gaussian(Fraction(5, 2), rng) for _ in range(N_DRAWS)]
    with pytest.raises(AssertionError):
        _check_cells(draws, _gaussian_pmf(Fraction(11, 5), range(-40, 41)), N_DRAWS)
