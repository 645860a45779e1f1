import re

import numpy as np
import pytest

from sensampler.distributions import (
    Bernoulli,
    LinearRegressionPopulation,
    MultivariateNormal,
    Normal,
    Product,
)
from tests.conftest import assert_close_in_se, assert_moments

COV = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])


def test_multivariate_normal_moments_and_covariance(seed):
    d = MultivariateNormal([1.0, -2.0, 0.5], COV)
    assert_moments(d, seed)
    x = d.sample(200_000, seed)
    # sample covariance entry (0, 1): se of a product moment ~ sqrt(s00 s11 + s01^2)/sqrt(n)
    se = np.sqrt(COV[0, 0] * COV[1, 1] + COV[0, 1] ** 2) / np.sqrt(x.shape[0])
    assert_close_in_se(np.cov(x.T)[0, 1], COV[0, 1], se)


def test_multivariate_normal_accepts_singular_psd(seed):
    d = MultivariateNormal([0.0, 0.0], [[1.0, 1.0], [1.0, 1.0]])
    x = d.sample(1000, seed)
    np.testing.assert_allclose(x[:, 0], x[:, 1], atol=1e-12)


def test_product_concatenates_columns(seed):
    d = Product(Normal(170, 10), Bernoulli(0.3), MultivariateNormal([0, 1], np.eye(2)))
    assert d.record_shape == (4,)
    assert d.sample_batch(3, 5, seed).shape == (3, 5, 4)
    np.testing.assert_allclose(d.mean, [170, 0.3, 0, 1])
    np.testing.assert_allclose(d.var, [100, 0.21, 1, 1])
    assert_moments(d, seed)


def test_linear_regression_population(seed):
    pop = LinearRegressionPopulation(
        MultivariateNormal([0, 0], np.eye(2)), [2.0, -1.0], intercept=3.0, noise=0.5
    )
    data = pop.sample(20_000, seed)
    assert data.shape == (20_000, 3)
    x, y = data[:, :2], data[:, 2]
    coef = np.linalg.lstsq(np.c_[x, np.ones(len(y))], y, rcond=None)[0]
    np.testing.assert_allclose(coef, [2.0, -1.0, 3.0], atol=0.03)  # se ~ 0.5/sqrt(2e4)


@pytest.mark.parametrize(
    "factory, exc, message",
    [
        (
            lambda: MultivariateNormal([0, 0], [[1, 2], [0, 1]]),
            ValueError,
            "cov must be symmetric",
        ),
        (
            lambda: MultivariateNormal([0, 0], [[1, 2], [2, 1]]),
            ValueError,
            "cov must be positive semi-definite",
        ),
        (
            lambda: MultivariateNormal([0, 0, 0], np.eye(2)),
            ValueError,
            "cov must have shape (3, 3)",
        ),
        (
            lambda: MultivariateNormal([0, np.inf], np.eye(2)),
            ValueError,
            "mean must be finite",
        ),
        (lambda: Product(), ValueError, "Product needs at least one column."),
        (
            lambda: Product(Normal(), "x"),
            TypeError,
            "columns[1] must be a Distribution",
        ),
        (
            lambda: LinearRegressionPopulation(Normal(), [1.0, 2.0]),
            ValueError,
            "coef must have one entry per feature (1), got 2.",
        ),
        (
            lambda: LinearRegressionPopulation(Normal(), [1.0], noise=-1),
            ValueError,
            "noise must be >= 0.0, got noise=-1.0.",
        ),
    ],
)
def test_bad_parameters(factory, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        factory()
