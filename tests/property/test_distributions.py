"""Every population model: built from any parameters, it refuses them by name or
draws finite records of the stated shape."""

from functools import partial

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from sensampler import distributions
from tests.property._contract import (
    anything,
    assert_finite,
    junk,
    refused_or_result,
)

ONE_PARAMETER = {
    distributions.Exponential: "scale",
    distributions.Poisson: "lam",
    distributions.Bernoulli: "p",
}
TWO_PARAMETERS = {
    distributions.Normal: ("loc", "scale"),
    distributions.Uniform: ("low", "high"),
    distributions.Laplace: ("loc", "scale"),
    distributions.LogNormal: ("mu", "sigma"),
}


def _check_moments(dist):
    """Mean and variance: numbers, never NaN, never an exception; +inf only where
    the true moment is beyond float64 (a correct value for a moment)."""
    for name in ("mean", "var"):
        value = refused_or_result(partial(getattr, dist, name), "values", "data")
        if value is not None:
            arr = np.asarray(value, dtype=float)
            assert not np.any(np.isnan(arr)), (name, value)
            assert not np.any(arr == -np.inf), (name, value)
            if name == "var":
                assert np.all(arr >= 0), value


def _check_draws(dist, n):
    _check_moments(dist)
    x = refused_or_result(lambda: dist.sample(n, random_state=0), "n", "size")
    if x is not None:
        assert isinstance(x, np.ndarray) and len(x) == n
        assert_finite(x)


@pytest.mark.slow
@given(st.sampled_from(sorted(ONE_PARAMETER, key=str)), anything)
def test_one_parameter_models(model, value):
    dist = refused_or_result(lambda: model(value), ONE_PARAMETER[model])
    if dist is not None:
        assert_finite(dist.mean)
        _check_draws(dist, 5)


@pytest.mark.slow
@example(distributions.LogNormal, -3300.0, 100.0)  # mean exp(1700): OverflowError
@example(distributions.Normal, 0.0, 1e300)  # var 1e600: OverflowError
@example(distributions.Uniform, 0.9e308, 1.7e308)  # low + high overflows
@given(st.sampled_from(sorted(TWO_PARAMETERS, key=str)), anything, anything)
def test_two_parameter_models(model, a, b):
    names = TWO_PARAMETERS[model]
    dist = refused_or_result(lambda: model(a, b), *names)
    if dist is not None:
        _check_draws(dist, 5)


@pytest.mark.slow
@example([0.5, 0.5], [1.7e308, -1.7e308])
@example([0.5, 0.5], [float("nan"), 1.0])
@example([0.5, 0.5], ["a", "b"])
@given(anything, st.one_of(anything, st.lists(anything, min_size=2, max_size=2)))
def test_categorical(probs, values):
    dist = refused_or_result(
        lambda: distributions.Categorical(probs, values), "probs", "values"
    )
    if dist is not None:
        _check_draws(dist, 5)


@pytest.mark.slow
@example([1e200, -1e200], [1e200, 1.0])  # var: stds**2 + means**2 overflows
@example([1.0958719293326849e308], [1.0958719293326845e308])  # draws overflow
@given(st.lists(anything, max_size=3), st.lists(anything, max_size=3))
def test_gaussian_mixture(means, stds):
    dist = refused_or_result(
        lambda: distributions.GaussianMixture(means=means, stds=stds),
        "means",
        "stds",
        "weights",
        "params",
    )
    if dist is not None:
        _check_draws(dist, 5)


@pytest.mark.slow
@example([1.7e308, 1.7e308])  # the mean's sum overflows
@example([()])  # records of no field: np.average divides 0 by 0
@given(st.one_of(anything, st.lists(anything, max_size=4)))
def test_empirical(data):
    dist = refused_or_result(lambda: distributions.Empirical(data), "data")
    if dist is not None:
        _check_draws(dist, 5)


@pytest.mark.slow
@example([170.0])  # one public row
@example([1.7e308, -1.7e308, 0.5])  # a spread beyond float64: no kernel width
@example([[0.5, 1.0], [1.5, 0.0]])
@given(st.one_of(anything, st.lists(anything, max_size=4)))
def test_public_sample(data):
    dist = refused_or_result(lambda: distributions.PublicSample(data), "data")
    if dist is not None:
        _check_draws(dist, 5)
        widths = dist.bandwidths()
        if widths is not None:
            assert np.all(np.isfinite(widths)) and np.all(widths >= 0), widths
            for population in dist.posterior(2, random_state=0):
                _check_draws(population, 5)
        private = np.asarray(dist.data)
        assert dist.data.shape[0] == 0 or (
            distributions.empirical.shared_rows(dist.data, private) is not None
            or private.dtype.kind not in "biuf"
        )


# n is kept small: a model draws as many records as asked, memory permitting.
@pytest.mark.slow
@given(st.one_of(junk, st.integers(-5, 50), st.floats(allow_nan=True)))
def test_sample_size(n):
    x = refused_or_result(
        lambda: distributions.Normal().sample(n, random_state=0), "n", "size"
    )
    if x is not None:
        assert isinstance(x, np.ndarray)
        assert_finite(x)
