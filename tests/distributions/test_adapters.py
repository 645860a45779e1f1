import re

import numpy as np
import pytest
from scipy import stats
from sklearn.mixture import GaussianMixture as SkGMM
from sklearn.neighbors import KernelDensity

from sensampler.distributions import (
    Empirical,
    Normal,
    ScipyDistribution,
    SklearnGaussianMixture,
    SklearnKernelDensity,
    as_distribution,
)
from tests.conftest import assert_close_in_se, assert_moments

PUBLIC = np.random.default_rng(7).normal(size=(400, 2)) @ np.array(
    [[1.0, 0.5], [0.0, 2.0]]
)


@pytest.mark.parametrize(
    "frozen",
    [
        stats.norm(1, 2),
        stats.gamma(3.0, scale=2.0),
        stats.poisson(4.0),
        stats.multivariate_normal([0, 1], [[1, 0.3], [0.3, 2]]),
        stats.dirichlet([1, 2, 3]),
    ]
    # The random-variable objects arrived in SciPy 1.15 (our floor is 1.11).
    + ([stats.Normal(mu=1, sigma=2)] if hasattr(stats, "Normal") else []),
    ids=lambda f: type(f).__name__,
)
def test_scipy_adapter_moments(frozen, seed):
    d = ScipyDistribution(frozen)
    assert d.sample_batch(3, 4, seed).shape == (3, 4) + d.record_shape
    assert d.sample(0, seed).shape == (0,) + d.record_shape
    assert_moments(d, seed)


@pytest.mark.slow
@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_sklearn_gmm_adapter_matches_fitted_model(covariance_type, seed):
    model = SkGMM(3, covariance_type=covariance_type, random_state=0).fit(PUBLIC)
    d = SklearnGaussianMixture(model)
    # The fitted model's own moments: mean = sum_k w_k mu_k.
    np.testing.assert_allclose(d.mean, model.weights_ @ model.means_)
    x = d.sample(200_000, seed)
    assert_moments(d, seed)
    # The draws have the fitted model's density: mean log-likelihood under the model
    # equals the model's own score on its own samples, within six standard errors.
    own = model.sample(200_000)[0]
    ll_ours, ll_own = model.score_samples(x), model.score_samples(own)
    se = np.hypot(ll_ours.std(), ll_own.std()) / np.sqrt(len(x))
    assert_close_in_se(ll_ours.mean(), ll_own.mean(), se)


@pytest.mark.parametrize("kernel", ["gaussian", "tophat"])
def test_sklearn_kde_adapter_moments(kernel, seed):
    model = KernelDensity(kernel=kernel, bandwidth=0.7).fit(PUBLIC)
    d = SklearnKernelDensity(model)
    np.testing.assert_allclose(d.mean, PUBLIC.mean(axis=0))
    assert_moments(d, seed)


def test_sklearn_kde_respects_sample_weight(seed):
    model = KernelDensity(bandwidth=0.1).fit(PUBLIC[:2], sample_weight=[0.0, 1.0])
    x = SklearnKernelDensity(model).sample(1000, seed)
    assert np.abs(x - PUBLIC[1]).max() < 1.0  # 10 bandwidths


def test_as_distribution_dispatch():
    n = Normal()
    assert as_distribution(n) is n
    assert isinstance(as_distribution(stats.norm()), ScipyDistribution)
    assert isinstance(as_distribution(PUBLIC), Empirical)
    assert isinstance(as_distribution(SkGMM(2).fit(PUBLIC)), SklearnGaussianMixture)
    assert isinstance(
        as_distribution(KernelDensity().fit(PUBLIC)), SklearnKernelDensity
    )
    with pytest.raises(TypeError, match="population must be"):
        as_distribution(object())


@pytest.mark.parametrize(
    "factory, exc, message",
    [
        (
            lambda: ScipyDistribution(3),
            TypeError,
            "frozen must be a frozen scipy.stats",
        ),
        (
            lambda: SklearnGaussianMixture(SkGMM(2)),
            ValueError,
            "must be a fitted GaussianMixture",
        ),
        (
            lambda: SklearnGaussianMixture(KernelDensity()),
            TypeError,
            "sklearn GaussianMixture",
        ),
        (
            lambda: SklearnKernelDensity(KernelDensity()),
            ValueError,
            "fitted KernelDensity",
        ),
        (
            lambda: SklearnKernelDensity(KernelDensity(kernel="cosine").fit(PUBLIC)),
            ValueError,
            "model.kernel must be 'gaussian' or 'tophat'",
        ),
    ],
)
def test_bad_models(factory, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        factory()


def test_any_object_with_a_seeded_sample_method():
    class Oracle:
        def sample(self, size, random_state=None):
            return np.random.default_rng(random_state).normal(size=(size, 2))

    d = as_distribution(Oracle())
    assert d.record_shape == (2,)
    assert d.sample_batch(3, 4, 0).shape == (3, 4, 2)
    np.testing.assert_array_equal(d.sample(5, 1), d.sample(5, 1))

    class Unseeded:
        def sample(self, size):
            return np.zeros(size)

    with pytest.raises(TypeError, match="Unseeded.sample must accept random_state="):
        as_distribution(Unseeded())
