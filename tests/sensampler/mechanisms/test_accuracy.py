"""sensampler.mechanisms.accuracy: the law of a mechanism's noise, against
independent numbers (closed forms, scipy's laws, the grid law summed by hand)."""

import math
import random
import re
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from sensampler import queries
from sensampler.bounds import Bounds
from sensampler.distributions import GaussianMixture
from sensampler.mechanisms import ExponentialQuantileMechanism, GaussianMechanism
from sensampler.mechanisms.accuracy import (
    NOISE_MODELS,
    NoiseModel,
    QuantileErrorModel,
    check_measure,
    gaussian_unit_scale,
    laplace_unit_scale,
    quantile_error_bound,
)

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])


def _auto_bounds():
    """The bounds a release reads from the population model."""
    bounds = Bounds.from_population(HEIGHTS)
    return bounds.low, bounds.high


def test_the_release_s_mechanisms_have_noise_models():
    assert set(NOISE_MODELS) == {"laplace", "gaussian"}
    assert [NOISE_MODELS[name].needs_delta for name in NOISE_MODELS] == [False, True]


def test_the_unit_scales_are_the_release_s_calibrations():
    # Laplace: b = Delta / epsilon (Dwork & Roth 2014, Thm. 3.6)
    assert laplace_unit_scale(0.25) == 4.0
    # the analytic Gaussian (Balle & Wang 2018), as the mechanism calibrates it
    assert gaussian_unit_scale(0.5, 1e-5) == GaussianMechanism(1.0, 0.5, 1e-5).sigma
    assert gaussian_unit_scale(0.5, 1e-5) == pytest.approx(7.0318, abs=1e-4)


@pytest.mark.parametrize("sensitivities", [[1.0], [0.5, 2.0, 3.5]])
def test_laplace_error_is_an_exponential_mixture(sensitivities):
    laplace, eps = NOISE_MODELS["laplace"], 0.8
    scales = np.asarray(sensitivities) / eps
    assert laplace.mean_error(eps, 0.0, sensitivities) == pytest.approx(scales.mean())
    t = 1.7
    assert laplace.error_sf(t, eps, 0.0, sensitivities) == pytest.approx(
        np.mean(stats.expon.sf(t, scale=scales))
    )
    q90 = laplace.error_quantile(0.9, eps, 0.0, sensitivities)
    assert np.mean(stats.expon.sf(q90, scale=scales)) == pytest.approx(0.1, abs=1e-12)
    if len(sensitivities) == 1:  # one run: b log 10, in closed form
        assert q90 == pytest.approx(scales[0] * math.log(10.0), rel=1e-12)
    assert laplace.error("mean", eps, 0.0, sensitivities) == laplace.mean_error(
        eps, 0.0, sensitivities
    )
    assert laplace.error(0.9, eps, 0.0, sensitivities) == q90


def test_gaussian_error_is_a_half_normal_mixture():
    gaussian, eps, delta = NOISE_MODELS["gaussian"], 1.0, 1e-6
    sensitivities = [1.0, 2.0]
    sigma = GaussianMechanism(1.0, eps, delta).sigma
    scales = sigma * np.asarray(sensitivities)
    assert gaussian.mean_error(eps, delta, sensitivities) == pytest.approx(
        np.mean(stats.halfnorm.mean(scale=scales)), rel=1e-12
    )
    assert gaussian.error_sf(3.0, eps, delta, sensitivities) == pytest.approx(
        np.mean(stats.halfnorm.sf(3.0, scale=scales)), rel=1e-12
    )


def test_no_noise_has_no_error():
    laplace = NOISE_MODELS["laplace"]
    assert laplace.error_quantile(0.9, 1.0, 0.0, [0.0, 0.0]) == 0.0
    assert laplace.error_sf(0.1, 1.0, 0.0, [0.0]) == 0.0


def test_a_noise_model_checks_its_delta():
    assert NOISE_MODELS["gaussian"].check_delta(1e-6) == 1e-6
    with pytest.raises(ValueError, match=re.escape(
        "mechanism='gaussian' needs delta > 0, got delta=0.0."
    )):
        NOISE_MODELS["gaussian"].check_delta(0.0)
    with pytest.raises(ValueError, match=re.escape(
        "mechanism='laplace' is pure epsilon-DP and takes no delta, got delta=1e-06."
    )):
        NOISE_MODELS["laplace"].check_delta(1e-6)


def test_a_noise_model_of_one_s_own():
    # uniform noise on [-scale, scale]: E|Z| = 1/2, P[|Z| > t] = 1 - t on [0, 1]
    uniform = NoiseModel(
        "uniform", lambda eps, delta: 1.0 / eps, 0.5,
        lambda t: np.clip(1.0 - np.asarray(t), 0.0, 1.0), False,
    )
    assert uniform.mean_error(2.0, 0.0, [4.0]) == 1.0
    assert uniform.error_quantile(0.9, 2.0, 0.0, [4.0]) == pytest.approx(1.8)


@pytest.mark.parametrize("measure", ["median", 0.0, 1.0, math.nan])
def test_a_measure_is_the_mean_or_a_probability(measure):
    assert check_measure("mean") == "mean" and check_measure(0.9) == 0.9
    with pytest.raises(ValueError, match="measure"):
        check_measure(measure)


@pytest.mark.slow
def test_the_quantile_error_law_matches_the_grid_law_by_definition():
    # n = 3, q = 0.5, bounds (0, 10): the output is the grid point
    # t_j = 10 j / G with probability proportional to exp(epsilon u(t_j) / 2),
    # u(t) = -|#{records < t} - 1.5|, by its definition (Smith 2011 on a public
    # grid), summed here point by point in exact fractions, not through the
    # mechanism's output_law.
    data, low, high, eps = [2.0, 3.0, 7.5], 0.0, 10.0, 1.3
    x = float(np.median(data))
    size = ExponentialQuantileMechanism.grid_size
    points = [Fraction(10 * j, size) for j in range(size + 1)]
    weights = [math.exp(eps * -abs(sum(r < t for r in data) - 1.5) / 2.0)
               for t in points]
    norm = math.fsum(weights)
    mean = math.fsum(w * float(abs(t - Fraction(x))) for w, t in zip(weights, points))
    outside = math.fsum(w for w, t in zip(weights, points) if abs(t - Fraction(x)) > 1)
    # the largest error at most 1: where P[error > t] falls to outside
    largest = max(float(abs(t - Fraction(x))) for t in points if abs(t - Fraction(x)) <= 1)
    model = QuantileErrorModel(0.5, (low, high), (np.array(data),), (x,))
    assert model.mean_error(eps) == pytest.approx(mean / norm, rel=1e-9)
    level = 1.0 - outside / norm - 1e-9  # just below the plateau
    assert model.error_quantile(level, eps) == pytest.approx(largest, abs=1e-9)


def test_the_grouped_quantile_error_law_equals_the_point_by_point_law():
    # The plan groups grid points by count (the law depends on nothing else) and
    # computes every epsilon's error from the groups; the same numbers, point by
    # point, from the mechanism's output law on each database.
    model = QuantileErrorModel.draw(
        queries.median, 0.5, _auto_bounds(), HEIGHTS, 200, 7,
        np.random.SeedSequence(4),
    )
    for eps in (0.05, 0.7, 3.0):
        laws = list(zip(model.laws(eps), model.answers))
        mean = np.mean([np.dot(p, np.abs(grid - x)) for (grid, p), x in laws])
        assert model.mean_error(eps) == pytest.approx(mean, rel=1e-12)
        for level in (0.5, 0.9):
            t = model.error_quantile(level, eps)
            # t is the jump of P[error > t] across 1 - level (found to 1e-14):
            # at or below 1 - level just above t, above it just below t
            above = np.mean(
                [p[np.abs(grid - x) > t * (1 + 1e-9)].sum() for (grid, p), x in laws]
            )
            below = np.mean(
                [p[np.abs(grid - x) > t * (1 - 1e-9)].sum() for (grid, p), x in laws]
            )
            assert above <= 1 - level + 1e-12 < below + 2e-12


@pytest.mark.slow
def test_quantile_error_bound_covers_90_percent_of_the_mechanisms_draws():
    """The median's accuracy figure is the 90% interval of the mechanism's own
    law: drawn many times on one fixed public sample, the released median falls
    within ±h of the exact one about 90% of the time (at least 90% with ties at
    h, less than 90% strictly inside), within 6 standard errors."""
    data = np.random.default_rng(5).normal(170.0, 8.0, size=60)
    mech = ExponentialQuantileMechanism(0.5, (120.0, 220.0), epsilon=1.0)
    exact = float(np.median(data))
    h = quantile_error_bound(mech, [data], [exact], level=0.9)
    source = random.Random(11)
    draws = 4000
    released = np.array([mech.release(data, random_state=source) for _ in range(draws)])
    errors = np.abs(released - exact)
    se = math.sqrt(0.9 * 0.1 / draws)
    assert np.mean(errors <= h) >= 0.9 - 6 * se
    assert np.mean(errors < h) <= 0.9 + 6 * se
    assert 0.5 < h < 20.0  # in the data's units (cm), a few cm at n = 60


def test_quantile_error_bound_refuses_no_database():
    """An accuracy figure needs a public database: none is refused by name."""
    mech = ExponentialQuantileMechanism(0.5, (0.0, 1.0), epsilon=1.0)
    with pytest.raises(ValueError, match="databases"):
        quantile_error_bound(mech, [], [])
