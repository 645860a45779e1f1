"""The secure mechanisms never lose their noise: a float release holds the noisy
grid position exactly, larger values are refused before drawing, and
``exact=True`` returns exact Fractions for any value."""

import copy
import math
import random
import re
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from sensampler._math.exact_sampling import discrete_gaussian, discrete_laplace
from sensampler.accounting import PrivacyFilter
from sensampler.mechanisms import (
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    secure,
)
from sensampler.mechanisms.secure import FLOAT_POSITIONS

GRIDS = [0.1, 0.3, 2.5, 1e-3, 7.0, Fraction(1, 3)]


def _laplace(exact=False, g=0.1):
    return DiscreteLaplaceMechanism(1.0, 0.5, granularity=g, exact=exact)


def _gaussian(exact=False, g=0.1):
    return DiscreteGaussianMechanism(1.0, rho=0.5, granularity=g, exact=exact)


class NoDraws(random.Random):
    def randrange(self, *args, **kwargs):
        raise AssertionError("drew before checking the inputs")


@pytest.mark.parametrize("factory", [_laplace, _gaussian])
def test_issue_reproduction_large_value_is_refused_before_drawing(factory):
    # On 7c9407d, release(1e20) returned exactly 1e20 in 30 of 30 draws.
    mech = factory()
    message = "value is too large for a float release on the grid of granularity=0.1"
    with pytest.raises(ValueError, match=re.escape(message)):
        mech.release(1e20, random_state=NoDraws())
    f = PrivacyFilter(10.0)
    if mech.privacy.epsilon is not None:
        with pytest.raises(ValueError, match="too large for a float release"):
            f.release(mech, 1e20)
        assert f.count == 0  # nothing spent


@pytest.mark.parametrize("factory", [_laplace, _gaussian])
def test_exact_releases_keep_the_noise_of_a_large_value(factory):
    mech = factory(exact=True)
    rng = random.Random(20)
    position = math.floor(Fraction(1e20) / Fraction(0.1) + Fraction(1, 2))
    releases = [mech.release(1e20, random_state=rng) for _ in range(30)]
    assert all(type(r) is Fraction for r in releases)
    noise = [r / Fraction(0.1) - position for r in releases]
    assert all(z.denominator == 1 for z in noise)  # on the grid, exactly
    # P[Z = 0] is 0.025 (Laplace, t = 20) and 0.04 (Gaussian, sigma = 10)
    assert sum(z == 0 for z in noise) <= 5 and len(set(noise)) >= 15


def test_exact_vector_release_is_an_array_of_fractions():
    mech = DiscreteLaplaceMechanism(
        [1.0, 2.0], 1.0, granularity=Fraction(1, 10), exact=True
    )
    out = mech.release([1e300, -3.0], random_state=random.Random(1))
    assert out.shape == (2,) and out.dtype == object
    assert all(type(x) is Fraction and (x * 10).denominator == 1 for x in out)


@pytest.mark.parametrize("g", GRIDS)
def test_floats_below_2_52_steps_hold_every_grid_position(g):
    # The lemma behind the limit: j -> float(g j) is injective for |j| < 2**52,
    # and round(x / g) gives j back.
    g = Fraction(g)
    for sign in (1, -1):
        js = [sign * j for j in range(FLOAT_POSITIONS - 3000, FLOAT_POSITIONS)]
        floats = [float(g * j) for j in js]
        assert len(set(floats)) == len(js)
        assert all(round(Fraction(x) / g) == j for x, j in zip(floats, js))


def test_beyond_2_52_steps_a_float_can_lose_noise():
    # Why the limit is needed: on the grid of 0.1 near 2**53 steps, neighbouring
    # positions round to the same double.
    g = Fraction(0.1)
    floats = [float(g * j) for j in range(2**53, 2**53 + 100)]
    assert len(set(floats)) < 100


@pytest.mark.parametrize("factory", [_laplace, _gaussian])
@pytest.mark.parametrize("g", GRIDS)
def test_the_float_limit_is_sharp_and_checked_before_drawing(factory, g):
    mech = factory(g=g)
    top = mech.max_position
    assert top == FLOAT_POSITIONS - 1 - mech._margin > 0
    for sign in (1, -1):
        inside = float(Fraction(g) * sign * top)  # rounds to position +-top
        mech.check_release(inside, random_state=NoDraws())
        outside = float(Fraction(g) * sign * (top + 1))
        if math.floor(Fraction(outside) / Fraction(g) + Fraction(1, 2)) != sign * top:
            with pytest.raises(ValueError, match="too large for a float release"):
                mech.check_release(outside, random_state=NoDraws())


@pytest.mark.parametrize("g", [0.1, 0.3, Fraction(1, 3)])
def test_noise_is_never_lost_at_the_boundary(g):
    # At the largest position a float release takes, each release is the double
    # of g (k + Z) for the Z drawn, and gives k + Z back.
    for mech, draw in [
        (_laplace(g=g), lambda m, r: discrete_laplace(m._t, r)),
        (_gaussian(g=g), lambda m, r: discrete_gaussian(m._sigma2, r)),
    ]:
        top, grid = mech.max_position, Fraction(g)
        value = float(grid * top)
        rng = random.Random(3)
        twin = copy.deepcopy(rng)  # replays the same draws
        for _ in range(40):
            j = top + draw(mech, twin)
            x = mech.release(value, random_state=rng)
            assert x == float(grid * j) and round(Fraction(x) / grid) == j


def test_a_noisy_position_beyond_the_limit_raises(monkeypatch):
    # The event the margin makes rarer than 2**-64: never a rounded float.
    monkeypatch.setattr(secure, "discrete_laplace", lambda t, rng: FLOAT_POSITIONS)
    mech = _laplace()
    with pytest.raises(ValueError, match="noisy grid position fell beyond 2\\*\\*52"):
        mech.release(0.0, random_state=random.Random(0))
    exact = _laplace(exact=True).release(0.0, random_state=random.Random(0))
    assert exact == Fraction(0.1) * FLOAT_POSITIONS


@pytest.mark.parametrize("epsilon", [0.5, 1e-3, 10.0])
def test_the_laplace_margin_is_exceeded_with_probability_below_2_64(epsilon):
    mech = DiscreteLaplaceMechanism(1.0, epsilon, granularity=0.1)
    mpmath.mp.dps = 50
    t, margin = mpmath.mpf(mech._t.numerator) / mech._t.denominator, mech._margin
    q = mpmath.exp(-1 / t)
    # P[|Z| >= M] = 2 q^M / (1 + q), exactly, for P[Z = z] = (1-q)/(1+q) q^|z|
    assert 2 * q**margin / (1 + q) <= mpmath.mpf(2) ** -64
    assert 2 * q ** (margin // 2) / (1 + q) > mpmath.mpf(2) ** -64  # not too wide


@pytest.mark.parametrize("rho", [0.5, 5.0, 0.01])
def test_the_gaussian_margin_is_exceeded_with_probability_below_2_64(rho):
    mech = DiscreteGaussianMechanism(1.0, rho=rho, granularity=0.5)
    mpmath.mp.dps = 50
    s2, margin = mpmath.mpf(mech._sigma2.numerator) / mech._sigma2.denominator, mech._margin
    width = int(60 * mpmath.sqrt(s2)) + 10

    def weight(z):
        return mpmath.exp(-mpmath.mpf(z) ** 2 / (2 * s2))

    norm = mpmath.fsum(weight(z) for z in range(-width, width + 1))
    tail = 2 * mpmath.fsum(weight(z) for z in range(margin, width + 1))
    assert tail / norm <= mpmath.mpf(2) ** -64


def test_exact_must_be_a_boolean():
    with pytest.raises(TypeError, match=re.escape("exact must be True or False, got exact=1.")):
        DiscreteLaplaceMechanism(1.0, 0.5, granularity=0.1, exact=1)


def test_no_noise_mechanism_takes_values_up_to_the_limit():
    mech = DiscreteLaplaceMechanism(0.0, 0.5, granularity=1.0)
    assert mech.max_position == FLOAT_POSITIONS - 1
    assert mech.release(float(FLOAT_POSITIONS - 1)) == float(FLOAT_POSITIONS - 1)
    assert np.isfinite(mech.release(-1e15))


@pytest.mark.parametrize("factory", [_laplace, _gaussian])
def test_a_grid_too_fine_for_the_noise_is_refused_before_drawing(factory):
    # Before: release(0.0) on the grid 1e-300 drew noise of ~1e300 steps, then
    # raised that this "happens with probability below 2**-64": false, since the
    # margin itself (~2**1002 steps) left no room below 2**52.
    mech = factory(g=1e-300)
    message = (
        r"granularity=1e-300 is too fine for a float release of this noise: it "
        r"spans over 2\*\*\d+ grid steps \(exceeded with probability below "
        r"2\*\*-64\), beyond the 2\*\*52 - 1 a float holds exactly"
    )
    with pytest.raises(ValueError, match=message):
        mech.release(0.0, random_state=NoDraws())
    f = PrivacyFilter(10.0, 0.5)
    with pytest.raises(ValueError, match="too fine for a float release"):
        f.release(mech, 0.0)
    assert f.count == 0  # nothing spent
    # the margin is what decides: the finest grid that still leaves room releases
    assert factory(g=1e-12).release(0.0) == pytest.approx(0.0, abs=100)
    assert isinstance(factory(g=1e-300, exact=True).release(0.0), Fraction)
