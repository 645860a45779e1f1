"""Exact discrete mechanisms: grid sensitivities, statements, laws and audits."""

import math
import pickle
import random
import re
from collections import Counter
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from sensampler import queries, sample_sensitivity
from sensampler.accounting import PrivacyFilter
from sensampler.distributions import GaussianMixture, MultivariateNormal
from sensampler.mechanisms import (
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    GaussianMechanism,
    LaplaceMechanism,
)
from sensampler.mechanisms.secure import discrete_gaussian_delta
from tests.conftest import assert_close_in_se

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
mpmath.mp.dps = 50


class NoDraws(random.Random):
    """A source that fails the test if anything is drawn from it."""

    def randrange(self, *args, **kwargs):
        raise AssertionError("drew before checking the inputs")


def _round(v, g):
    # The mechanisms' rounding, k = floor(v / g + 1/2), recomputed here.
    return math.floor(Fraction(v) / Fraction(g) + Fraction(1, 2))


# ------------------------------------------------------------ grid sensitivity
@pytest.mark.slow
@pytest.mark.parametrize("delta, g", [(1.0, 0.25), (1.0, 0.3), (0.05, 0.1), (2.5, 1.0)])
def test_rounding_lemma_holds_and_is_attained(delta, g):
    # |f(D) - f(D')| <= Delta  =>  |k(D) - k(D')| <= ceil(Delta / g), and some
    # pair attains it: the lemma of the module docstring, by brute force.
    bound = math.ceil(Fraction(delta) / Fraction(g))
    rng = np.random.default_rng(1)
    a = rng.uniform(-10, 10, 20_000)
    b = a + rng.uniform(-delta, delta, a.size)
    gaps = [
        abs(_round(x, g) - _round(y, g)) for x, y in zip(a, b) if abs(x - y) <= delta
    ]
    assert max(gaps) <= bound
    # Attained, in exact rationals: x = (bound - 1/2) g - Delta rounds to 0 and
    # x + Delta = (bound - 1/2) g rounds to bound.
    x = (bound - Fraction(1, 2)) * Fraction(g) - Fraction(delta)
    assert (_round(x, g), _round(x + Fraction(delta), g)) == (0, bound)


@pytest.mark.slow
@pytest.mark.parametrize("d", [2, 3, 5])
def test_vector_grid_bounds_hold(d):
    # L1: sum |k_j - k'_j| <= ceil(Delta_1/g) + d - 1; L2: squared <= the stated S.
    g, delta = 0.3, 1.0
    lap = DiscreteLaplaceMechanism(delta, 1.0, granularity=g, dimension=d)
    gau = DiscreteGaussianMechanism(delta, rho=1.0, granularity=g, dimension=d)
    assert lap.grid_sensitivity == math.ceil(delta / g) + d - 1
    rng = np.random.default_rng(d)
    worst_l1 = worst_l2 = 0
    for _ in range(5_000):
        a = rng.uniform(-5, 5, d)
        direction = rng.standard_normal(d)
        for norm, radius in (
            ("l1", np.abs(direction).sum()),
            ("l2", np.linalg.norm(direction)),
        ):
            b = a + direction / radius * delta * rng.uniform(0.9, 1.0)
            k = np.array([_round(x, g) - _round(y, g) for x, y in zip(a, b)])
            if norm == "l1":
                worst_l1 = max(worst_l1, int(np.abs(k).sum()))
            else:
                worst_l2 = max(worst_l2, int((k**2).sum()))
    assert worst_l1 <= lap.grid_sensitivity
    assert worst_l2 <= gau.grid_sensitivity2


def test_statements_with_exact_grid_numbers():
    # Delta = 1, g = 0.25: L = 4 steps, t = 4 / 0.5 = 8 steps = 2.0 in value units.
    lap = DiscreteLaplaceMechanism(1.0, 0.5, granularity=0.25)
    assert (lap.grid_sensitivity, lap.scale, lap.epsilon) == (4, 2.0, 0.5)
    assert (
        str(lap.privacy) == "discrete Laplace: epsilon=0.5-DP (replace-one neighbours)"
    )
    # Delta = 1, g = 0.3: ceil(3.33) = 4 steps, not 3.
    assert DiscreteLaplaceMechanism(1.0, 1.0, granularity=0.3).grid_sensitivity == 4
    # Gaussian: S = 2^2, sigma^2 = 4 / (2 * 0.5) = 4 steps^2, sigma = 2 * 0.5 = 1.0.
    gau = DiscreteGaussianMechanism(1.0, rho=0.5, granularity=0.5)
    assert (gau.grid_sensitivity2, gau.sigma, gau.rho) == (4, 1.0, 0.5)
    assert (
        str(gau.privacy) == "discrete Gaussian: rho=0.5-zCDP (replace-one neighbours)"
    )
    assert gau.privacy.rdp(3.0) == 1.5


@pytest.mark.parametrize("epsilon", [0.1, 0.7, 1 / 3, 2.0])
def test_parameters_are_rounded_toward_more_privacy(epsilon):
    lap = DiscreteLaplaceMechanism(1.0, epsilon, granularity=0.3)
    assert lap.epsilon <= epsilon and lap.epsilon == pytest.approx(epsilon, rel=1e-8)
    # The stated epsilon is L / t rounded up, never down.
    assert Fraction(lap.epsilon) >= lap.grid_sensitivity / lap._t
    gau = DiscreteGaussianMechanism(0.7, rho=epsilon, granularity=0.3)
    assert gau.rho <= epsilon and gau.rho == pytest.approx(epsilon, rel=1e-8)
    assert Fraction(gau.rho) >= gau.grid_sensitivity2 / (2 * gau._sigma2)


def test_per_coordinate_sensitivities():
    lap = DiscreteLaplaceMechanism([1.0, 0.5], 1.0, granularity=0.25)
    assert (lap.dimension, lap.grid_sensitivity) == (2, 6)  # 4 + 2 steps
    gau = DiscreteGaussianMechanism(np.array([1.0, 0.5]), rho=1.0, granularity=0.25)
    assert gau.grid_sensitivity2 == 20  # 16 + 4
    out = gau.release([0.0, 1.0], random_state=random.Random(0))
    assert out.shape == (2,)


def test_zero_sensitivity_releases_the_rounded_value():
    lap = DiscreteLaplaceMechanism(0.0, 1.0, granularity=0.5)
    assert lap.release(1.3) == 1.5 and lap.privacy.epsilon == 0.0
    assert DiscreteGaussianMechanism(0.0, rho=1.0, granularity=0.5).release(1.2) == 1.0


# ------------------------------------------------------------- exact delta
def _delta_brute_force(epsilon, sigma2, sensitivity, width):
    # Hockey-stick divergence between N_Z(Delta, s2) and N_Z(0, s2), directly:
    # sum_y max(0, p(y - Delta) - e^eps p(y)), over a support holding all but
    # e^-800 of the mass.
    s2 = mpmath.mpf(sigma2.numerator) / sigma2.denominator

    def w(y):
        return mpmath.exp(-(mpmath.mpf(y) ** 2) / (2 * s2))

    z = mpmath.fsum(w(y) for y in range(-width, width + 1))
    total = mpmath.fsum(
        max(mpmath.mpf(0), w(y - sensitivity) - mpmath.exp(epsilon) * w(y))
        for y in range(-width, width + sensitivity + 1)
    )
    return float(total / z)


@pytest.mark.parametrize(
    "epsilon, sigma2, sensitivity",
    [
        (0.5, Fraction(4), 1),
        (1.0, Fraction(5, 2), 1),
        (0.2, Fraction(100), 3),
        (2.0, Fraction(10, 3), 2),
        (0.0, Fraction(9), 1),
        (3.0, Fraction(400), 5),
    ],
)
def test_exact_delta_matches_a_brute_force_sum(epsilon, sigma2, sensitivity):
    width = int(40 * math.sqrt(sigma2)) + 10
    expected = _delta_brute_force(epsilon, sigma2, sensitivity, width)
    got = discrete_gaussian_delta(epsilon, sigma2, sensitivity)
    assert got >= expected  # never below the truth
    assert got == pytest.approx(expected, rel=1e-8, abs=1e-300)


def test_exact_delta_is_below_the_zcdp_conversion():
    gau = DiscreteGaussianMechanism(1.0, rho=0.125, granularity=0.5)  # sigma^2 = 16
    eps = gau.privacy.epsilon_for(1e-5)
    assert gau.delta(eps) <= 1e-5
    assert gau.delta(0.0) > 0.1 and gau.delta(50.0) == 0.0


# ------------------------------------------------------------- laws and audits
def _pmf(weight, support):
    w = {y: weight(mpmath.mpf(y)) for y in support}
    z = mpmath.fsum(w.values())
    return {y: float(v / z) for y, v in w.items()}


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["laplace", "gaussian"])
def test_releases_follow_the_shifted_discrete_law(kind):
    # value 0.6 on the grid 0.25 rounds to k = 2 (0.5); noise in steps of 0.25.
    n, g = 20_000, 0.25
    if kind == "laplace":
        mech = DiscreteLaplaceMechanism(0.5, 1.0, granularity=g)  # L = 2, t = 2
        weight = lambda y: mpmath.exp(-abs(y) / 2)  # noqa: E731
    else:
        mech = DiscreteGaussianMechanism(0.5, rho=0.5, granularity=g)  # sigma^2 = 4
        weight = lambda y: mpmath.exp(-(y**2) / 8)  # noqa: E731
    rng = random.Random(5)
    steps = Counter(
        round(mech.release(0.6, random_state=rng) / g) - 2 for _ in range(n)
    )
    pmf = _pmf(weight, range(-200, 201))
    assert set(steps) <= set(pmf)
    for y in range(-6, 7):
        p = pmf[y]
        assert_close_in_se(steps[y] / n, p, math.sqrt(p * (1 - p) / n))


@pytest.mark.parametrize("kind", ["laplace", "gaussian"])
@pytest.mark.slow
def test_empirical_privacy_audit(kind):
    # Neighbours at the worst rounding: 0.24 -> k = 1 and 0.24 + 1 = 1.24 -> k = 5
    # on the grid 0.25 (ceil(1 / 0.25) = 4 steps). P[M(x) in S] <= e^eps P[M(x') in
    # S] + delta for half-lines S, with 6-SE binomial slack on both sides.
    n, g = 20_000, 0.25
    if kind == "laplace":
        mech = DiscreteLaplaceMechanism(1.0, 1.0, granularity=g)
        eps, delta = 1.0, 0.0
    else:
        mech = DiscreteGaussianMechanism(1.0, rho=0.5, granularity=g)
        eps = 2.0
        delta = mech.delta(eps)
    rng = random.Random(8)
    a = np.array([mech.release(0.24, random_state=rng) for _ in range(n)])
    b = np.array([mech.release(1.24, random_state=rng) for _ in range(n)])
    for t in np.arange(-1.0, 2.5, 0.25):
        for pa, pb in (
            (np.mean(a > t), np.mean(b > t)),
            (np.mean(b <= t), np.mean(a <= t)),
        ):
            slack = 6 * math.sqrt(pb / n) + 6 * math.exp(eps) * math.sqrt(pa / n)
            assert pb <= math.exp(eps) * pa + delta + slack


def test_release_depends_only_on_the_grid_point():
    # The Mironov attack reads the input from a float release's low bits; here
    # inputs rounding to one grid point give bit-identical releases.
    mech = DiscreteLaplaceMechanism(1.0, 1.0, granularity=0.125)
    out = {
        mech.release(x, random_state=random.Random(3))
        for x in (0.1, 0.12, 0.1875 - 1e-12)
    }
    assert len(out) == 1
    assert float(out.pop() / 0.125).is_integer()


# --------------------------------------------------------- estimates and input
def test_estimate_goes_straight_in_and_carries_gamma():
    est = sample_sensitivity(queries.mean, HEIGHTS, 500, gamma=0.05, random_state=0)
    for mech in (
        DiscreteLaplaceMechanism(est, 0.5, granularity=0.01),
        DiscreteGaussianMechanism(est, rho=0.1, granularity=0.01),
    ):
        assert mech.privacy.gamma == est.gamma and mech.privacy.run == est.run
        assert "random DP" in str(mech.privacy)
    assert not DiscreteLaplaceMechanism(
        est.mean, 0.5, granularity=0.01
    ).privacy.guaranteed


def test_per_coordinate_estimate_and_wrong_norm():
    pop = MultivariateNormal([0, 0], np.diag([1.0, 4.0]))
    est = sample_sensitivity(
        queries.mean, pop, 50, gamma=0.05, norm="coordinate", random_state=0
    )
    mech = DiscreteLaplaceMechanism(est, 1.0, granularity=0.01)
    assert mech.dimension == 2
    assert mech.release(np.zeros(2), random_state=random.Random(0)).shape == (2,)
    l2 = sample_sensitivity(queries.mean, HEIGHTS, 50, m=50, norm="l2", random_state=0)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "DiscreteLaplaceMechanism needs a sensitivity in the l1 or coordinate "
            "norm, got an estimate with norm='l2'."
        ),
    ):
        DiscreteLaplaceMechanism(l2, 1.0, granularity=0.1)


def test_reproducible_with_a_seeded_source_and_pickles():
    mech = DiscreteGaussianMechanism(1.0, rho=0.5, granularity=0.1, dimension=3)
    a = mech.release([1.0, 2.0, 3.0], random_state=random.Random(4))
    b = mech.release([1.0, 2.0, 3.0], random_state=random.Random(4))
    np.testing.assert_array_equal(a, b)
    clone = pickle.loads(pickle.dumps(mech))
    assert str(clone.privacy) == str(mech.privacy)
    assert clone.privacy.rdp(2.0) == mech.privacy.rdp(2.0)


@pytest.mark.parametrize(
    "make, exc, message",
    [
        (
            lambda: DiscreteLaplaceMechanism(1.0, 0.0, granularity=0.1),
            ValueError,
            "epsilon must be > 0.0, got epsilon=0.0.",
        ),
        (
            lambda: DiscreteLaplaceMechanism(1.0, 1.0, granularity=0),
            ValueError,
            "granularity must be > 0, got granularity=0.",
        ),
        (
            lambda: DiscreteLaplaceMechanism(1.0, 1.0, granularity=-0.5),
            ValueError,
            "granularity must be > 0, got granularity=-0.5.",
        ),
        (
            lambda: DiscreteLaplaceMechanism(1.0, 1.0, granularity=math.nan),
            ValueError,
            "granularity must be finite, got granularity=nan.",
        ),
        (
            lambda: DiscreteLaplaceMechanism(1.0, 1.0, granularity="0.1"),
            TypeError,
            "granularity must be a rational number, got '0.1'.",
        ),
        (
            lambda: DiscreteLaplaceMechanism(-1.0, 1.0, granularity=0.1),
            ValueError,
            "sensitivity must be >= 0.0, got sensitivity=-1.0.",
        ),
        (
            lambda: DiscreteLaplaceMechanism(1.0, 1.0, granularity=0.1, dimension=0),
            ValueError,
            "dimension must be an integer >= 1, got dimension=0.",
        ),
        (
            lambda: DiscreteLaplaceMechanism(
                [1.0, 2.0], 1.0, granularity=0.1, dimension=3
            ),
            ValueError,
            "dimension must match the per-coordinate sensitivity (2), got dimension=3.",
        ),
        (
            lambda: DiscreteLaplaceMechanism(1.0, 1e-300, granularity=1e-10),
            ValueError,
            "epsilon is too small for this sensitivity: the noise scale would exceed 1e300",
        ),
        (
            lambda: DiscreteGaussianMechanism(1.0, rho=-1, granularity=0.1),
            ValueError,
            "rho must be > 0.0, got rho=-1.0.",
        ),
        (
            lambda: DiscreteGaussianMechanism(1e300, rho=1e-300, granularity=1e290),
            ValueError,
            "rho is too small for this sensitivity",
        ),
        (
            lambda: discrete_gaussian_delta(1.0, 10**14, 1),
            ValueError,
            "sigma2 must be <= 1000000**2 grid steps for the exact sum",
        ),
        (
            lambda: DiscreteGaussianMechanism(
                1.0, rho=0.1, granularity=0.5, dimension=2
            ).delta(1.0),
            ValueError,
            "delta(epsilon) is the exact curve of one coordinate",
        ),
    ],
)
def test_bad_parameters(make, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        make()


@pytest.mark.parametrize("cls", [DiscreteLaplaceMechanism, DiscreteGaussianMechanism])
@pytest.mark.parametrize(
    "value, random_state, exc, message",
    [
        (math.nan, None, ValueError, "value must be finite, got value=nan."),
        (
            [1.0, 2.0],
            None,
            ValueError,
            "value must have dimension=1 coordinates, got shape (2,)",
        ),
        (
            1.0,
            7,
            TypeError,
            "random_state must be None (the secure generator) or a random.Random",
        ),
        (
            1.0,
            np.random.default_rng(0),
            TypeError,
            "secure noise is never seeded from an int or a numpy generator",
        ),
    ],
)
def test_bad_release_draws_nothing(cls, value, random_state, exc, message):
    kwargs = {"epsilon": 1.0} if cls is DiscreteLaplaceMechanism else {"rho": 1.0}
    mech = cls(1.0, granularity=0.1, **kwargs)
    with pytest.raises(exc, match=re.escape(message)):
        mech.release(value, random_state=random_state)
    with pytest.raises(ValueError, match="value must be finite"):
        mech.release(math.inf, random_state=NoDraws())


def test_a_filter_checks_before_spending_and_releases_on_the_grid():
    budget = PrivacyFilter(1.0)
    mech = DiscreteLaplaceMechanism(1.0, 0.5, granularity=0.25)
    with pytest.raises(ValueError, match="value must be finite"):
        budget.release(mech, math.nan, random_state=NoDraws())
    with pytest.raises(TypeError, match="secure noise is never seeded"):
        budget.release(mech, 1.0, random_state=3)
    assert budget.spent == PrivacyFilter(1.0).spent  # nothing spent
    out = budget.release(mech, 1.1, random_state=random.Random(1))
    assert float(out / 0.25).is_integer()
    assert budget.spent != PrivacyFilter(1.0).spent


def test_secure_mechanisms_accept_the_norms_of_their_float_twins():
    # one declaration each: the secure variants read the float mechanisms' lists
    assert DiscreteLaplaceMechanism.accepted_norms is LaplaceMechanism.accepted_norms
    assert DiscreteGaussianMechanism.accepted_norms is GaussianMechanism.accepted_norms
