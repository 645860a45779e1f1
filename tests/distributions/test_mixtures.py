import re

import numpy as np
import pytest
from scipy import integrate, stats

from sensampler.distributions import GaussianMixture
from tests.conftest import assert_close_in_se, assert_moments

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])


def test_heights_mixture_moments(seed):
    # mean 170, var (49 + 42.25)/2 + 16^2/4 = 109.625 (the source document's formula)
    assert HEIGHTS.mean == pytest.approx(170.0)
    assert HEIGHTS.var == pytest.approx(109.625)
    assert_moments(HEIGHTS, seed)


def test_keyword_form_equals_params_form():
    kw = GaussianMixture(means=[178, 162], stds=[7, 6.5], weights=[0.5, 0.5])
    assert_eq = np.testing.assert_array_equal
    assert_eq(kw.sample(1000, 3), HEIGHTS.sample(1000, 3))
    uniform = GaussianMixture(means=[178, 162], stds=[7, 6.5])
    np.testing.assert_allclose(uniform.weights, [0.5, 0.5])


def _abs_diff_by_quadrature(mix):
    """E|X - X'| = integral of |t| times the density of X - X' (a mixture of normals)."""

    def density(t):
        total = 0.0
        for wi, mi, si in zip(mix.weights, mix.means, mix.stds):
            for wj, mj, sj in zip(mix.weights, mix.means, mix.stds):
                total += wi * wj * stats.norm.pdf(t, mi - mj, np.hypot(si, sj))
        return abs(t) * total

    span = 20 * mix.stds.max() + np.ptp(mix.means)
    value, _ = integrate.quad(density, -span, span, points=[0.0], limit=200)
    return value


@pytest.mark.slow
@pytest.mark.parametrize(
    "mix",
    [
        HEIGHTS,
        GaussianMixture([[0, 1], [5, 0.5], [-3, 2]], [0.2, 0.5, 0.3]),
        GaussianMixture([[10, 3]], [1.0]),
    ],
)
def test_expected_abs_difference_matches_quadrature(mix):
    assert mix.expected_abs_difference() == pytest.approx(
        _abs_diff_by_quadrature(mix), rel=1e-8
    )


def test_expected_abs_difference_matches_simulation_and_document(seed):
    # The source document prints 11.99 cm for the heights mixture.
    assert round(HEIGHTS.expected_abs_difference(), 2) == 11.99
    x = HEIGHTS.sample(1_000_000, seed).reshape(2, -1)
    d = np.abs(x[0] - x[1])
    assert abs(d.mean() - HEIGHTS.expected_abs_difference()) < 6 * d.std() / np.sqrt(
        d.size
    )


def test_component_labels_follow_weights(seed):
    mix = GaussianMixture([[-100, 1], [0, 1], [100, 1]], [0.1, 0.6, 0.3])
    x = mix.sample(100_000, seed)
    frac = np.array([(x < -50).mean(), (np.abs(x) < 50).mean(), (x > 50).mean()])
    se = np.sqrt(mix.weights * (1 - mix.weights) / x.size)
    assert_close_in_se(frac, mix.weights, se)


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        (
            dict(params=[[0, -1], [1, 1]], weights=[0.5, 0.5]),
            ValueError,
            "every std must be > 0",
        ),
        (
            dict(params=[[0, 0], [1, 1]], weights=[0.5, 0.5]),
            ValueError,
            "every std must be > 0",
        ),
        (
            dict(params=[[0, 1], [1, 1]], weights=[0.7, 0.7]),
            ValueError,
            "weights must sum to 1",
        ),
        (
            dict(params=[[0, 1], [1, 1]], weights=[-0.5, 1.5]),
            ValueError,
            "weights must be >= 0",
        ),
        (
            dict(params=[[0, 1], [1, 1]], weights=[1.0]),
            ValueError,
            "weights must have 2 entries",
        ),
        (
            dict(params=[[0, 1, 2]], weights=[1.0]),
            ValueError,
            "params must have rows of (mean, std)",
        ),
        (
            dict(params=[[np.nan, 1]], weights=[1.0]),
            ValueError,
            "params must be finite",
        ),
        (dict(means=[0, 1], stds=[1]), ValueError, "means and stds must have the same"),
        (dict(means=[0, 1], stds=[1, 0]), ValueError, "stds must be > 0"),
        (dict(), TypeError, "GaussianMixture needs params"),
        (dict(params=[[0, 1]], means=[0], stds=[1]), TypeError, "give either params"),
    ],
)
def test_bad_parameters(kwargs, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        GaussianMixture(**kwargs)


def test_mixture_variance_is_the_law_of_total_variance_without_overflow():
    # sum_i w_i (s_i^2 + (m_i - mean)^2) = 0.5 (1e400 + 1e400) + 0.5 (1 + 1e400): inf.
    huge = GaussianMixture(means=[1e200, -1e200], stds=[1e200, 1.0])
    assert huge.mean == 0.0 and huge.var == np.inf
    # 0.5 (1e300 + 1e300) + 0.5 (1e300 + 1e300) = 2e300: finite, though the
    # means' squares (1e600) overflow.
    mix = GaussianMixture(
        means=[1e150 * np.sqrt(2.0), -1e150 * np.sqrt(2.0)],
        stds=[0.0 + 1e150 * np.sqrt(2.0)] * 2,
    )
    assert np.isclose(mix.var, 4e300, rtol=1e-14)


def test_mixtures_whose_draws_would_overflow_are_refused():
    # |mean| + 40 std = 4.5e309 > 1.8e308: a draw 40 stds out would be inf.
    with pytest.raises(
        ValueError, match=re.escape("GaussianMixture draws would overflow float64")
    ):
        GaussianMixture(means=[1.1e308], stds=[1.1e308])
