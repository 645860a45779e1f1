"""The contract every population model honours."""

import re

import numpy as np
import pytest
from scipy import stats

import sensampler.distributions as D

MODELS = [
    D.Normal(),
    D.Uniform(),
    D.Laplace(),
    D.LogNormal(),
    D.Exponential(),
    D.Poisson(2.0),
    D.Bernoulli(0.4),
    D.Categorical([0.3, 0.7]),
    D.GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5]),
    D.MultivariateNormal([0, 0], np.eye(2)),
    D.Product(D.Normal(), D.Bernoulli()),
    D.LinearRegressionPopulation(D.Normal(), [1.0]),
    D.Empirical(np.arange(5.0)),
    D.ScipyDistribution(stats.t(5)),
]


@pytest.mark.parametrize("dist", MODELS, ids=lambda d: type(d).__name__)
def test_shapes(dist):
    assert dist.sample(7, 0).shape == (7,) + dist.record_shape
    assert dist.sample(0, 0).shape == (0,) + dist.record_shape
    assert dist.sample_batch(3, 4, 0).shape == (3, 4) + dist.record_shape


@pytest.mark.parametrize("dist", MODELS, ids=lambda d: type(d).__name__)
def test_same_random_state_same_draws(dist):
    for rs in (5, np.random.SeedSequence(5)):
        np.testing.assert_array_equal(dist.sample(50, rs), dist.sample(50, rs))
    a = dist.sample(50, np.random.default_rng(5))
    b = dist.sample(50, np.random.default_rng(5))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(dist.sample(500, 1), dist.sample(500, 2))


@pytest.mark.parametrize("dist", MODELS, ids=lambda d: type(d).__name__)
def test_repr_names_the_model(dist):
    assert repr(dist).startswith(type(dist).__name__ + "(")


def test_generator_is_advanced_in_place():
    rng = np.random.default_rng(0)
    first, second = D.Normal().sample(3, rng), D.Normal().sample(3, rng)
    assert not np.array_equal(first, second)


@pytest.mark.parametrize(
    "call, exc, message",
    [
        (
            lambda d: d.sample(-1),
            ValueError,
            "size must be an integer >= 0, got size=-1.",
        ),
        (
            lambda d: d.sample(2.0),
            TypeError,
            "size must be an integer, got the float 2.0.",
        ),
        (lambda d: d.sample("3"), TypeError, "size must be an integer, got '3'."),
        (lambda d: d.sample_batch(-2, 3), ValueError, "batch must be an integer >= 0"),
        (
            lambda d: d.sample(3, random_state="seed"),
            TypeError,
            "random_state must be None, an int >= 0, a numpy Generator or a SeedSequence",
        ),
        (
            lambda d: d.sample(3, random_state=-1),
            ValueError,
            "random_state must be >= 0",
        ),
        (
            lambda d: d.sample(3, random_state=np.random.RandomState(0)),
            TypeError,
            "random_state must be None",
        ),
    ],
)
def test_bad_sizes_and_random_states(call, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        call(D.Normal())


def test_unknown_moments_say_so():
    class Opaque(D.Distribution):
        def _draw(self, shape, rng):
            return rng.random(shape)

    with pytest.raises(NotImplementedError, match="Opaque does not know its mean"):
        _ = Opaque().mean
