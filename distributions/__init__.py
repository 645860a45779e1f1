"""Population models that sensampler draws neighbouring databases from.

Every model draws ``sample(size, random_state)`` records of shape
``(size, *record_shape)`` and ``sample_batch(batch, size, random_state)``
stacks of databases of shape ``(batch, size, *record_shape)``, each in one
vectorised call.
"""

from ._base import Distribution
from .adapters import (
    SampleAdapter,
    ScipyDistribution,
    SklearnGaussianMixture,
    SklearnKernelDensity,
    as_distribution,
)
from .empirical import Empirical, PublicSample
from .mixtures import GaussianMixture
from .multivariate import LinearRegressionPopulation, MultivariateNormal, Product
from .persons import Persons, PublicPersons, group_rows, person_totals, public_persons
from .univariate import (
    Bernoulli,
    Categorical,
    Exponential,
    Laplace,
    LogNormal,
    Normal,
    Poisson,
    Uniform,
)

__all__ = [
    "Distribution",
    "Normal",
    "Uniform",
    "Laplace",
    "LogNormal",
    "Exponential",
    "Poisson",
    "Bernoulli",
    "Categorical",
    "GaussianMixture",
    "MultivariateNormal",
    "Product",
    "LinearRegressionPopulation",
    "Empirical",
    "PublicSample",
    "Persons",
    "PublicPersons",
    "group_rows",
    "person_totals",
    "public_persons",
    "ScipyDistribution",
    "SklearnGaussianMixture",
    "SklearnKernelDensity",
    "SampleAdapter",
    "as_distribution",
]
