"""Vector-valued population models: correlated normals, products of columns,
and a linear-regression population of (features, target) records."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._lib.validation import check_array, check_real
from ._base import Distribution

__all__ = ["MultivariateNormal", "Product", "LinearRegressionPopulation"]


def psd_factor(name, cov):
    """Return ``L`` with ``L @ L.T == cov`` for a symmetric PSD ``cov``, or raise."""
    if cov.ndim != 2 or cov.shape[0] != cov.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {cov.shape}.")
    if not np.allclose(cov, cov.T, rtol=1e-10, atol=1e-12):
        raise ValueError(f"{name} must be symmetric, got {name}={cov!r}.")
    eigval, eigvec = np.linalg.eigh(cov)
    tol = 1e-10 * max(1.0, float(np.abs(eigval).max()))
    if eigval.min() < -tol:
        raise ValueError(
            f"{name} must be positive semi-definite, got smallest "
            f"eigenvalue {eigval.min()!r}."
        )
    return eigvec * np.sqrt(np.clip(eigval, 0.0, None))


class MultivariateNormal(Distribution):
    """Records drawn from ``N(mean, cov)`` in ``d`` dimensions.

    Parameters
    ----------
    mean : array-like of shape (d,)
    cov : array-like of shape (d, d)
        Symmetric positive semi-definite covariance.
    """

    releases_gil = True

    def __init__(self, mean: ArrayLike, cov: ArrayLike):
        self._mean = check_array("mean", mean, ndim=1)
        self.cov = check_array("cov", cov, ndim=2)
        if self.cov.shape != (self._mean.size, self._mean.size):
            raise ValueError(
                f"cov must have shape ({self._mean.size}, {self._mean.size}) "
                f"to match mean, got {self.cov.shape}."
            )
        self._factor = psd_factor("cov", self.cov)
        self.record_shape = (self._mean.size,)

    def _draw(self, shape, rng):
        z = rng.standard_normal(size=shape + self.record_shape)
        return z @ self._factor.T + self._mean

    @property
    def mean(self) -> np.ndarray:
        """Mean of one record (scalar, or array of ``record_shape``)."""
        return self._mean.copy()

    @property
    def var(self) -> np.ndarray:
        """Variance of one record (per coordinate for vector records)."""
        return np.diag(self.cov).copy()

    def _params(self):
        return {"mean": self._mean, "cov": self.cov}


class Product(Distribution):
    """Records made of independent columns, each from its own model.

    Parameters
    ----------
    *columns : Distribution
        Models with scalar or vector records; a record of the product is their
        concatenation (scalar columns count as one field).

    Examples
    --------
    >>> from sensampler.distributions import Normal, Bernoulli
    >>> people = Product(Normal(170, 10), Bernoulli(0.3))
    >>> people.sample(4, random_state=0).shape
    (4, 2)
    """

    releases_gil = True

    def __init__(self, *columns: Distribution):
        if not columns:
            raise ValueError("Product needs at least one column.")
        for i, col in enumerate(columns):
            if not isinstance(col, Distribution):
                raise TypeError(f"columns[{i}] must be a Distribution, got {col!r}.")
            if len(col.record_shape) > 1:
                raise ValueError(
                    f"columns[{i}] must have scalar or vector records, got "
                    f"record_shape {col.record_shape}."
                )
        self.columns = tuple(columns)
        self.releases_gil = all(c.releases_gil for c in columns)
        self._widths = [int(np.prod(c.record_shape)) for c in columns]
        self.record_shape = (sum(self._widths),)

    def _draw(self, shape, rng):
        parts = [
            col._draw(shape, rng).reshape(shape + (w,))
            for col, w in zip(self.columns, self._widths)
        ]
        return np.concatenate(parts, axis=-1).astype(float, copy=False)

    @property
    def mean(self) -> np.ndarray:
        """Mean of one record (scalar, or array of ``record_shape``)."""
        return np.concatenate([np.ravel(c.mean) for c in self.columns]).astype(float)

    @property
    def var(self) -> np.ndarray:
        """Variance of one record (per coordinate for vector records)."""
        return np.concatenate([np.ravel(c.var) for c in self.columns]).astype(float)

    def _params(self):
        return {"columns": list(self.columns)}

    def __repr__(self):
        return f"Product({', '.join(map(repr, self.columns))})"


class LinearRegressionPopulation(Distribution):
    """Records ``(x_1, ..., x_p, y)`` with ``y = x @ coef + intercept + noise``.

    Parameters
    ----------
    features : Distribution
        Model of the feature vector (vector or scalar records).
    coef : array-like of shape (p,)
        True coefficients.
    intercept : float
        True intercept.
    noise : float
        Standard deviation of the normal noise, ``>= 0``.
    """

    releases_gil = True

    def __init__(
        self,
        features: Distribution,
        coef: ArrayLike,
        intercept: float = 0.0,
        noise: float = 1.0,
    ):
        if not isinstance(features, Distribution):
            raise TypeError(f"features must be a Distribution, got {features!r}.")
        self.features = features
        self.releases_gil = features.releases_gil
        self.coef = check_array("coef", coef, ndim=1)
        width = int(np.prod(features.record_shape))
        if self.coef.size != width or len(features.record_shape) > 1:
            raise ValueError(
                f"coef must have one entry per feature ({width}), got {self.coef.size}."
            )
        self.intercept = check_real("intercept", intercept)
        self.noise = check_real("noise", noise, low=0.0)
        self.record_shape = (width + 1,)

    def _draw(self, shape, rng):
        width = self.coef.size
        x = self.features._draw(shape, rng).reshape(shape + (width,)).astype(float)
        y = (
            x @ self.coef
            + self.intercept
            + self.noise * rng.standard_normal(size=shape)
        )
        return np.concatenate([x, y[..., None]], axis=-1)

    def _params(self):
        return {
            "features": self.features,
            "coef": self.coef,
            "intercept": self.intercept,
            "noise": self.noise,
        }
