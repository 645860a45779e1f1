"""Worst-case parts and floors of the discrete mechanisms with per-coordinate
sensitivities, checked by brute force on the grid."""

import itertools
import math
import random
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from sensampler import queries, sample_sensitivity
from sensampler.bounds import Bounds
from sensampler.distributions import Normal
from sensampler.mechanisms import DiscreteGaussianMechanism, DiscreteLaplaceMechanism

GRID = Fraction(1, 2)


def _histogram_zero():
    """Per-coordinate histogram estimate, a sampled 0 in both bins (no record of
    Normal(160, 3) crosses 170), l1 worst case 2 (one bin -1, the other +1)."""
    est = sample_sensitivity(queries.histogram(2, range=(140, 200)), Normal(160.0, 3.0),
                             500, gamma=0.05, norm="coordinate",
                             bounds=Bounds.given(140.0, 200.0), random_state=0)
    assert np.all(est.sensitivity.value == 0.0) and est.worst_case == 2.0
    return est


def _position(v):
    # the grid position of v: v / g rounded half up, exactly
    return math.floor(Fraction(v) / GRID + Fraction(1, 2))


def _grid_changes(worst):
    """Every change of grid positions (k, k') of two real 2-vectors whose l1
    distance is at most ``worst``, over a fine lattice of values near the
    rounding boundaries (steps of g/16)."""
    fine = [Fraction(i, 32) for i in range(-8, 9)]  # v in [-1/4, 1/4]
    moves = [Fraction(i, 32) for i in range(-80, 81)]
    changes = set()
    for v in itertools.product(fine, repeat=2):
        for u0 in moves:
            rest = Fraction(worst) - abs(u0)
            if rest < 0:
                continue
            for u1 in (rest, -rest):
                k = tuple(_position(x) for x in v)
                k2 = (_position(v[0] + u0), _position(v[1] + u1))
                changes.add(tuple(a - b for a, b in zip(k, k2)))
    return changes


def _laplace_loss(shift, t):
    """max over outputs o of log P[k + Z = o] / P[k' + Z = o], Z a product of
    discrete Laplace of scale t (pmf prop. to e^{-|z|/t}), by enumeration of o."""
    window = range(-12, 13)
    best = -math.inf
    for o in itertools.product(window, repeat=2):
        loss = sum(Fraction(abs(o[j] - shift[j]) - abs(o[j]), 1) for j in range(2)) / t
        best = max(best, loss)
    return best


@pytest.mark.slow
def test_discrete_laplace_per_coordinate_zero_is_floored_and_states_its_worst_case():
    est = _histogram_zero()
    mech = DiscreteLaplaceMechanism(est, 0.5, granularity=0.5)  # was refused
    assert mech.epsilon == 0.5 and mech.privacy.epsilon == 0.5
    worst = mech.privacy.worst_case
    t = Fraction(mech.scale) / GRID
    # L_wc = ceil(2 / 0.5) + 2 - 1 = 5 steps; t >= 5 / 5 (the cap, 10 x 0.5)
    assert t >= 1 and worst.epsilon <= 5.0 * (1 + 1e-12)
    exact = max(_laplace_loss(s, t) for s in _grid_changes(2))
    assert exact == Fraction(5) / t  # the grid bound is attained by real changes
    assert float(exact) <= worst.epsilon <= float(exact) * (1 + 1e-12)
    out = mech.release(np.array([3.0, 0.0]), random_state=random.Random(1))
    assert out.shape == (2,)


def _renyi_discrete_gaussian(alpha, shift, sigma2):
    """D_alpha(k + Z || k' + Z) for independent N_Z(0, sigma2) coordinates, by
    summing the pmfs on the grid (mpmath, 30 digits)."""
    mpmath.mp.dps = 30
    total = mpmath.mpf(0)
    for s in shift:
        # per coordinate: log sum_o p(o - s)^a p(o)^(1 - a) / norm
        def pmf(z):
            return mpmath.exp(-mpmath.mpf(z) ** 2 / (2 * mpmath.mpf(sigma2)))

        span = range(-int(40 * math.sqrt(sigma2)) - abs(s), int(40 * math.sqrt(sigma2))
                     + abs(s) + 1)
        norm = mpmath.fsum(pmf(z) for z in span)
        mass = mpmath.fsum(pmf(o - s) ** alpha * pmf(o) ** (1 - alpha) for o in span)
        total += mpmath.log(mass / norm) / (alpha - 1)
    return total


@pytest.mark.slow
def test_discrete_gaussian_per_coordinate_zero_is_floored_and_states_its_worst_case():
    est = _histogram_zero()
    mech = DiscreteGaussianMechanism(est, rho=0.05, granularity=0.5)  # was refused
    assert mech.rho == 0.05 and mech.privacy.rho == 0.05
    worst = mech.privacy.worst_case
    sigma2 = Fraction(mech.sigma) ** 2 / GRID**2
    # S_wc = min(ceil((4 + sqrt 2)^2) - 1, (4 + 1)^2) = 25 grid steps squared,
    # sigma^2 >= 25 / (2 x 5), the cap being 100 rho
    assert worst.epsilon is None
    assert worst.rho == pytest.approx(float(25 / (2 * sigma2)), rel=1e-12)
    assert worst.rho <= 5.0 * (1 + 1e-12)
    changes = _grid_changes(2)
    largest = max(a * a + b * b for a, b in changes)  # (4, 1): 17 <= 25
    assert largest <= 25
    for alpha in (2.0, 5.0, 20.0):
        exact = max(_renyi_discrete_gaussian(alpha, s, float(sigma2))
                    for s in changes if s[0] ** 2 + s[1] ** 2 == largest)
        assert exact <= alpha * worst.rho


def test_a_per_coordinate_zero_without_bounds_is_still_refused():
    est = sample_sensitivity(queries.histogram(2, range=(140, 200)), Normal(160.0, 3.0),
                             500, gamma=0.05, norm="coordinate", random_state=0)
    for build in (lambda: DiscreteLaplaceMechanism(est, 0.5, granularity=0.5),
                  lambda: DiscreteGaussianMechanism(est, rho=0.5, granularity=0.5)):
        with pytest.raises(ValueError, match="the sampled sensitivity is 0"):
            build()
