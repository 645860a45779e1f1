import math
import re

import numpy as np
import pytest

from sensampler.distributions import (
    Bernoulli,
    Categorical,
    Exponential,
    Laplace,
    LogNormal,
    Normal,
    Poisson,
    Uniform,
)
from tests.conftest import assert_moments

MODELS = [
    Normal(3.0, 2.0),
    Uniform(-1.0, 5.0),
    Laplace(1.0, 0.5),
    LogNormal(0.2, 0.4),
    Exponential(2.5),
    Poisson(3.5),
    Bernoulli(0.3),
    Categorical([0.2, 0.5, 0.3], [1, 4, 9]),
]


@pytest.mark.parametrize("dist", MODELS, ids=lambda d: type(d).__name__)
def test_moments_match_known_values(dist, seed):
    assert_moments(dist, seed)


def test_known_means_and_variances():
    # Closed forms, checked by hand: lognormal mean exp(mu + s^2/2), etc.
    assert LogNormal(0.2, 0.4).mean == pytest.approx(math.exp(0.2 + 0.08))
    assert LogNormal(0.2, 0.4).var == pytest.approx(math.expm1(0.16) * math.exp(0.56))
    assert Uniform(-1, 5).var == pytest.approx(3.0)  # 6^2 / 12
    assert Laplace(1, 0.5).var == pytest.approx(0.5)  # 2 b^2
    assert Categorical([0.2, 0.5, 0.3], [1, 4, 9]).mean == pytest.approx(4.9)


def test_normal_expected_abs_difference_matches_simulation(seed):
    d = Normal(0.0, 3.0)
    x = d.sample(400_000, seed).reshape(2, -1)
    diff = np.abs(x[0] - x[1])
    assert abs(diff.mean() - d.expected_abs_difference()) < 6 * diff.std() / np.sqrt(
        diff.size
    )


def test_categorical_labels_and_values():
    d = Categorical([0.0, 1.0, 0.0], ["a", "b", "c"])
    assert set(d.sample(100, 0)) == {"b"}
    many = Categorical(np.full(40, 1 / 40))  # searchsorted path (K > 16)
    x = many.sample(50_000, 1)
    assert x.min() == 0 and x.max() == 39


@pytest.mark.parametrize(
    "factory, message",
    [
        (lambda: Normal(0, 0), "scale must be > 0.0, got scale=0.0."),
        (lambda: Normal(0, -1), "scale must be > 0.0, got scale=-1.0."),
        (lambda: Normal(float("nan"), 1), "loc must be finite, got loc=nan."),
        (lambda: Uniform(2, 1), "high must be > low, got low=2.0, high=1.0."),
        (lambda: Laplace(0, float("inf")), "scale must be finite, got scale=inf."),
        (lambda: LogNormal(0, 0), "sigma must be > 0.0, got sigma=0.0."),
        (lambda: Exponential(-2), "scale must be > 0.0, got scale=-2.0."),
        (lambda: Poisson(-1), "lam must be >= 0.0, got lam=-1.0."),
        (lambda: Bernoulli(1.5), "p must be >= 0.0 and <= 1.0, got p=1.5."),
        (lambda: Categorical([0.5, 0.6]), "probs must sum to 1"),
        (lambda: Categorical([-0.5, 1.5]), "probs must be >= 0"),
        (lambda: Categorical([0.5, 0.5], [1, 2, 3]), "values must be one-dimensional"),
    ],
)
def test_bad_parameters_raise_naming_them(factory, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        factory()


def test_non_numbers_raise_type_error():
    with pytest.raises(TypeError, match="scale must be a real number, got 'x'"):
        Normal(0, "x")
    with pytest.raises(TypeError, match="loc must be a real number, got True"):
        Normal(True, 1)


def test_poisson_refuses_a_mean_numpy_cannot_sample():
    from sensampler.distributions.univariate import POISSON_MAX_LAM

    assert Poisson(POISSON_MAX_LAM).sample(2, random_state=0).dtype == np.int64
    with pytest.raises(
        ValueError, match=r"lam must be <= POISSON_MAX_LAM=9\.22337e\+18"
    ):
        Poisson(1e308)


@pytest.mark.parametrize(
    "make, name",
    [
        (lambda: Normal(0.0, 1e308), "loc=0.0, scale=1e+308"),
        (lambda: Laplace(0.0, 1e308), "loc=0.0, scale=1e+308"),
        (lambda: Uniform(-1e308, 1e308), "low=-1e+308, high=1e+308"),
        (lambda: LogNormal(0.0, 20.0), "mu=0.0, sigma=20.0"),
        (lambda: Exponential(1e307), "scale=1e+307"),
    ],
)
def test_models_refuse_parameters_whose_draws_overflow(make, name):
    # Failed before: Laplace(0, 1e308) drew -inf records.
    with pytest.raises(ValueError, match=re.escape(name)):
        make()


# ------------------------------------------------ moments beyond float64 are inf
def test_lognormal_moments_beyond_float64_are_inf_not_overflow_errors():
    # mu + 40 sigma = 700 passes the draws' reach check; the mean is
    # exp(mu + sigma**2 / 2) = exp(1700), beyond float64's exp(709.78).
    dist = LogNormal(-3300.0, 100.0)
    assert dist.mean == math.inf and dist.var == math.inf


@pytest.mark.parametrize(
    "mu, sigma", [(0.0, 1.0), (-5.0, 3.0), (2.0, 0.1), (0.0, 1e-8)]
)
def test_lognormal_moments_match_the_closed_form(mu, sigma):
    # mean = exp(mu + s^2/2), var = (exp(s^2) - 1) exp(2 mu + s^2).
    dist = LogNormal(mu, sigma)
    assert math.isclose(dist.mean, math.exp(mu + sigma**2 / 2), rel_tol=1e-14)
    expected = math.expm1(sigma**2) * math.exp(2 * mu + sigma**2)
    assert math.isclose(dist.var, expected, rel_tol=1e-12)


def test_lognormal_variance_of_a_tiny_sigma_with_a_huge_mu():
    # sigma**2 = 1e-400 underflows to 0; var ~ sigma**2 exp(2 mu) = 1e-400 e^1400.
    expected = math.exp(2 * math.log(1e-200) + 1400.0)
    assert math.isclose(LogNormal(700.0, 1e-200).var, expected, rel_tol=1e-12)


@pytest.mark.parametrize(
    "dist", [Normal(0.0, 1e300), Laplace(0.0, 1e300), Exponential(1e300)]
)
def test_variances_beyond_float64_are_inf(dist):
    assert dist.var == math.inf  # scale**2 = 1e600


def test_uniform_mean_near_the_largest_double():
    # low + high = 2.6e308 overflows; the mean 1.3e308 does not.
    assert Uniform(0.9e308, 1.7e308).mean == 1.3e308


def test_categorical_moments():
    dist = Categorical([0.5, 0.5], [1.7e308, -1.7e308])
    assert dist.mean == 0.0 and dist.var == math.inf  # var = 1.7e308**2
    assert Categorical([0.5, 0.5], [1.7e308, 1.7e308]).mean == 1.7e308
    with pytest.raises(TypeError, match="Categorical values are not numbers"):
        _ = Categorical([0.5, 0.5], ["a", "b"]).mean


@pytest.mark.parametrize("values", [[np.nan, 1.0], [np.inf, 1.0], [1j, 1.0]])
def test_categorical_refuses_values_that_are_not_finite_reals(values):
    with pytest.raises(ValueError, match="values must be finite real numbers"):
        Categorical([0.5, 0.5], values)
