"""Public API of the population models, plans, norms, queries and the private
estimator, as users type it.

Type-checked by tests/test_typing.py (pyright), never run: every ``assert_type``
states the type a user's checker must see.
"""

from typing import assert_type

import numpy as np
from sklearn.linear_model import Ridge

from sensampler import SamplingPlan, certified_gamma, queries, sampling_plan
from sensampler.distributions import (
    Categorical,
    Distribution,
    Empirical,
    GaussianMixture,
    LinearRegressionPopulation,
    MultivariateNormal,
    Normal,
    Product,
    as_distribution,
)
from sensampler.models import PrivateEstimator
from sensampler.norms import L1SensitivityNorm, SensitivityNorm, get_norm
from sensampler.queries import BatchedQuery, EstimatorQuery, Query
from sensampler.settings import ReleaseSettings

heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
assert_type(heights.sample(10, random_state=0), np.ndarray)
assert_type(heights.sample_batch(4, 10, np.random.default_rng(1)), np.ndarray)
assert_type(heights.mean, float)
assert_type(heights.var, float)
assert_type(heights.expected_abs_difference(), float)
assert_type(heights.record_shape, tuple[int, ...])
assert_type(Normal(170, 10).mean, float)
assert_type(Categorical([0.2, 0.8], values=[1.0, 2.0]).var, float)
assert_type(MultivariateNormal([0.0, 1.0], np.eye(2)).mean, np.ndarray)
assert_type(Empirical(np.arange(5.0)).mean, "float | np.ndarray")
features = Product(Normal(), Normal(1, 2))
regression = LinearRegressionPopulation(features, coef=[1.0, -1.0], noise=0.5)
assert_type(regression.sample(3, np.random.SeedSequence(0)), np.ndarray)
population: Distribution = as_distribution(np.arange(10.0))

plan = sampling_plan(gamma=0.05)
assert_type(plan, SamplingPlan)
assert_type(plan.m, int)
assert_type(plan.gamma, float)
assert_type(certified_gamma(113, 113), float)

norm = get_norm("l2")
assert_type(norm, SensitivityNorm)
assert_type(get_norm(L1SensitivityNorm), SensitivityNorm)
assert_type(get_norm(lambda diff: float(np.abs(diff).max())), SensitivityNorm)
assert_type(L1SensitivityNorm()(np.ones((3, 2))), np.ndarray)

assert_type(queries.mean, BatchedQuery)
assert_type(queries.quantile(0.9), BatchedQuery)
assert_type(queries.histogram(10, range=(140.0, 200.0)), BatchedQuery)
assert_type(queries.count(lambda stack: stack > 170), BatchedQuery)
assert_type(queries.as_query(np.median), Query)
assert_type(queries.estimator(object(), attribute=("coef_",)), EstimatorQuery)


@queries.batched
def spread(stack: np.ndarray) -> np.ndarray:
    return stack.max(axis=1) - stack.min(axis=1)


@queries.batched(name="range")
def spread_named(stack: np.ndarray) -> np.ndarray:
    return stack.max(axis=1) - stack.min(axis=1)


assert_type(spread, BatchedQuery)
assert_type(spread_named, BatchedQuery)

X_pub, y_pub = np.ones((10, 2)), np.ones(10)
private = PrivateEstimator(
    Ridge(), epsilon=1.0, delta=1e-5, gamma=0.05, public=(X_pub, y_pub),
    inequality="exchangeable", data_norm="public", random_state=0,
)
assert_type(private, PrivateEstimator)
assert_type(private.fit(X_pub, y_pub), PrivateEstimator)
from_settings = PrivateEstimator(
    Ridge(), settings=ReleaseSettings(epsilon=1.0, delta=1e-5, mechanism="gaussian"),
    public=(X_pub, y_pub), data_norm=2.0,
)
assert_type(from_settings, PrivateEstimator)
