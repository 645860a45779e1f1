"""Every population model: built from any parameters, it refuses them by name or
draws finite records of the stated shape."""

import numpy as np
from hypothesis import given
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


def _check_draws(dist, n):
    x = refused_or_result(lambda: dist.sample(n, random_state=0), "n", "size")
    if x is not None:
        assert isinstance(x, np.ndarray) and len(x) == n
        assert_finite(x)


@given(st.sampled_from(sorted(ONE_PARAMETER, key=str)), anything)
def test_one_parameter_models(model, value):
    dist = refused_or_result(lambda: model(value), ONE_PARAMETER[model])
    if dist is not None:
        assert_finite(dist.mean)
        _check_draws(dist, 5)


@given(st.sampled_from(sorted(TWO_PARAMETERS, key=str)), anything, anything)
def test_two_parameter_models(model, a, b):
    names = TWO_PARAMETERS[model]
    dist = refused_or_result(lambda: model(a, b), *names)
    if dist is not None:
        _check_draws(dist, 5)


@given(anything, anything)
def test_categorical(probs, values):
    dist = refused_or_result(
        lambda: distributions.Categorical(probs, values), "probs", "values"
    )
    if dist is not None:
        _check_draws(dist, 5)


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


@given(st.one_of(anything, st.lists(anything, max_size=4)))
def test_empirical(data):
    dist = refused_or_result(lambda: distributions.Empirical(data), "data")
    if dist is not None:
        _check_draws(dist, 5)


# n is kept small: a model draws as many records as asked, memory permitting.
@given(st.one_of(junk, st.integers(-5, 50), st.floats(allow_nan=True)))
def test_sample_size(n):
    x = refused_or_result(
        lambda: distributions.Normal().sample(n, random_state=0), "n", "size"
    )
    if x is not None:
        assert isinstance(x, np.ndarray)
        assert_finite(x)
