"""Adapters that turn scipy and scikit-learn models into population models."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ._base import Distribution
from .empirical import Empirical
from .univariate import draw_labels

if TYPE_CHECKING:  # scikit-learn is imported where used, not at load
    from sklearn.mixture import GaussianMixture as SkGaussianMixture
    from sklearn.neighbors import KernelDensity as SkKernelDensity

__all__ = [
    "ScipyDistribution",
    "SklearnGaussianMixture",
    "SklearnKernelDensity",
    "SampleAdapter",
    "as_distribution",
]


class ScipyDistribution(Distribution):
    """Records drawn from a frozen ``scipy.stats`` distribution.

    Works with univariate frozen distributions (``scipy.stats.norm(0, 1)``),
    frozen multivariate ones (``scipy.stats.multivariate_normal(mean, cov)``,
    ``dirichlet``, ...) and the new random-variable objects
    (``scipy.stats.Normal(mu=0, sigma=1)``).

    Parameters
    ----------
    frozen : scipy.stats frozen distribution
    """

    def __init__(self, frozen: Any):
        from scipy import stats  # imported here: scipy.stats is slow to import

        self.frozen = frozen
        if isinstance(frozen, stats._distn_infrastructure.rv_frozen):
            self._kind = "univariate"
        elif isinstance(frozen, stats._multivariate.multi_rv_frozen):
            self._kind = "multivariate"
        elif hasattr(frozen, "sample") and hasattr(frozen, "support"):
            self._kind = "random-variable"
        else:
            raise TypeError(
                f"frozen must be a frozen scipy.stats distribution, got {frozen!r}."
            )
        probe = self._call((1,), np.random.default_rng(0))
        self.record_shape = tuple(np.shape(probe)[1:])

    def _call(self, shape, rng):
        if self._kind == "random-variable":
            return np.asarray(self.frozen.sample(shape, rng=rng))
        out = np.asarray(self.frozen.rvs(size=shape, random_state=rng))
        if self._kind == "multivariate":
            out = out.reshape(tuple(shape) + (-1,))
        return out

    def _draw(self, shape, rng):
        if 0 in shape:
            return np.empty(tuple(shape) + self.record_shape)
        return self._call(shape, rng).reshape(tuple(shape) + self.record_shape)

    def _moment(self, names):
        for name in names:
            value = getattr(self.frozen, name, None)
            if value is not None:
                value = np.asarray(value() if callable(value) else value, dtype=float)
                return np.diag(value).copy() if value.ndim == 2 else value
        raise NotImplementedError(f"{self.frozen!r} does not give its {names[0]}.")

    @property
    def mean(self) -> float | np.ndarray:
        """Mean of one record (scalar, or array of ``record_shape``)."""
        value = self._moment(["mean"])
        return float(value) if value.ndim == 0 else value

    @property
    def var(self) -> float | np.ndarray:
        """Variance of one record (per coordinate for vector records)."""
        value = self._moment(["var", "variance", "cov"])
        return float(value) if value.ndim == 0 else value

    def __repr__(self):
        return f"ScipyDistribution({self.frozen!r})"


def _check_fitted(model, attribute, cls_name):
    if not hasattr(model, attribute):
        raise ValueError(f"model must be a fitted {cls_name}; call fit() first.")


class SklearnGaussianMixture(Distribution):
    """Records drawn from a fitted ``sklearn.mixture.GaussianMixture``.

    Draws every component label first, then every value (vectorised, and
    seeded by ``random_state`` unlike ``GaussianMixture.sample``). All four
    covariance types are supported.

    Parameters
    ----------
    model : sklearn.mixture.GaussianMixture
        A fitted mixture.
    """

    def __init__(self, model: SkGaussianMixture):
        from sklearn.mixture import GaussianMixture as _SkGMM

        if not isinstance(model, _SkGMM):
            raise TypeError(f"model must be a sklearn GaussianMixture, got {model!r}.")
        _check_fitted(model, "means_", "GaussianMixture")
        self.model = model
        means = np.asarray(model.means_, dtype=float)
        k, d = means.shape
        cov = np.asarray(model.covariances_, dtype=float)
        kind = model.covariance_type
        if kind == "full":
            full = cov
        elif kind == "tied":
            full = np.broadcast_to(cov, (k, d, d))
        elif kind == "diag":
            full = np.stack([np.diag(c) for c in cov])
        else:  # spherical
            full = cov[:, None, None] * np.eye(d)
        self._means = means
        self._cov = np.array(full)
        self._factors = np.linalg.cholesky(self._cov)
        self._weights = np.asarray(model.weights_, dtype=float)
        self._cumulative = np.cumsum(self._weights)
        self.record_shape = (d,)

    def _draw(self, shape, rng):
        d = self.record_shape[0]
        z = rng.standard_normal(size=shape + (d,))
        labels = draw_labels(self._cumulative, shape, rng)
        out = np.empty_like(z)
        for k in range(self._means.shape[0]):
            mask = labels == k
            out[mask] = z[mask] @ self._factors[k].T + self._means[k]
        return out

    @property
    def mean(self) -> np.ndarray:
        """Mean of one record (scalar, or array of ``record_shape``)."""
        return self._weights @ self._means

    @property
    def covariance(self) -> np.ndarray:
        """Covariance matrix of one record."""
        second = np.einsum(
            "k,kij->ij",
            self._weights,
            self._cov + np.einsum("ki,kj->kij", self._means, self._means),
        )
        mu = self.mean
        return second - np.outer(mu, mu)

    @property
    def var(self) -> np.ndarray:
        """Variance of one record (per coordinate for vector records)."""
        return np.diag(self.covariance).copy()

    def __repr__(self):
        return f"SklearnGaussianMixture({self.model!r})"


class SklearnKernelDensity(Distribution):
    """Records drawn from a fitted ``sklearn.neighbors.KernelDensity``.

    A record is a training point (chosen with its sample weight) plus kernel
    noise: ``N(0, h^2 I)`` for the Gaussian kernel, uniform in the ball of
    radius ``h`` for the tophat kernel, the two kernels scikit-learn samples.

    Parameters
    ----------
    model : sklearn.neighbors.KernelDensity
        A fitted density with the Gaussian or the tophat kernel.
    """

    def __init__(self, model: SkKernelDensity):
        from sklearn.neighbors import KernelDensity

        if not isinstance(model, KernelDensity):
            raise TypeError(f"model must be a sklearn KernelDensity, got {model!r}.")
        _check_fitted(model, "tree_", "KernelDensity")
        if model.kernel not in ("gaussian", "tophat"):
            raise ValueError(
                "model.kernel must be 'gaussian' or 'tophat' to sample, got "
                f"{model.kernel!r}."
            )
        self.model = model
        self._data = np.asarray(model.tree_.data, dtype=float)
        weights = model.tree_.sample_weight
        if weights is None:
            self._weights = None
            self._cumulative = None
        else:
            w = np.asarray(weights, dtype=float)
            self._weights = w / w.sum()
            self._cumulative = np.cumsum(self._weights)
        self.bandwidth = float(getattr(model, "bandwidth_", model.bandwidth))
        self.record_shape = (self._data.shape[1],)

    def _draw(self, shape, rng):
        n, d = self._data.shape
        if self._cumulative is None:
            idx = rng.integers(n, size=shape)
        else:
            idx = draw_labels(self._cumulative, shape, rng)
        z = rng.standard_normal(size=shape + (d,))
        if self.model.kernel == "tophat":
            radius = self.bandwidth * rng.random(size=shape) ** (1.0 / d)
            z *= (radius / np.linalg.norm(z, axis=-1))[..., None]
        else:
            z *= self.bandwidth
        z += self._data[idx]
        return z

    @property
    def mean(self) -> np.ndarray:
        """Mean of one record (scalar, or array of ``record_shape``)."""
        return np.average(self._data, axis=0, weights=self._weights)

    @property
    def var(self) -> np.ndarray:
        """Variance of one record (per coordinate for vector records)."""
        d = self._data.shape[1]
        spread = np.average(
            (self._data - self.mean) ** 2, axis=0, weights=self._weights
        )
        kernel = (
            self.bandwidth**2 / (d + 2)
            if self.model.kernel == "tophat"
            else self.bandwidth**2
        )
        return spread + kernel

    def __repr__(self):
        return f"SklearnKernelDensity({self.model!r})"


class SupportsSample(Protocol):
    """An object drawing records with ``sample(size, random_state=...)``."""

    def sample(self, size: int, /, random_state: Any = ...) -> Any: ...


class SampleAdapter(Distribution):
    """Any object with ``sample(size, random_state=None)`` returning ``(size, ...)``.

    The object's own ``sample`` must accept a numpy ``Generator`` as
    ``random_state``; a stack of databases is drawn as one flat sample, reshaped.

    Parameters
    ----------
    model : object
        Anything with ``sample(size, random_state=None)`` returning ``(size, ...)``.
    """

    def __init__(self, model: SupportsSample):
        if not callable(getattr(model, "sample", None)):
            raise TypeError(
                f"model must have a sample(size, random_state) method, got {model!r}."
            )
        try:
            accepts = "random_state" in inspect.signature(model.sample).parameters
        except (TypeError, ValueError):  # builtins without a signature
            accepts = True
        if not accepts:
            raise TypeError(
                f"{type(model).__name__}.sample must accept random_state= so that "
                "sampling is reproducible; wrap it, or use a distributions model."
            )
        self.model = model
        probe = np.asarray(model.sample(1, random_state=np.random.default_rng(0)))
        if probe.ndim == 0 or probe.shape[0] != 1:
            raise ValueError(
                "model.sample(1) must return an array with a leading axis of "
                f"length 1, got shape {probe.shape}."
            )
        self.record_shape = probe.shape[1:]

    def _draw(self, shape, rng):
        size = int(np.prod(shape))
        out = np.asarray(self.model.sample(size, random_state=rng))
        return out.reshape(tuple(shape) + self.record_shape)

    def __repr__(self):
        return f"SampleAdapter({self.model!r})"


def as_distribution(obj: Any) -> Distribution:
    """Return a population model for ``obj``.

    Accepts a :class:`Distribution` (returned as is), a frozen ``scipy.stats``
    distribution, a fitted scikit-learn ``GaussianMixture`` or
    ``KernelDensity``, an array / DataFrame of public records (bootstrap), or
    any object with ``sample(size, random_state)`` (see :class:`SampleAdapter`).

    Parameters
    ----------
    obj : object
        One of the above.

    Returns
    -------
    Distribution
        The population model.
    """
    if isinstance(obj, Distribution):
        return obj
    module = type(obj).__module__
    if module.startswith("scipy.stats"):
        return ScipyDistribution(obj)
    if module.startswith("sklearn.mixture"):
        return SklearnGaussianMixture(obj)
    if module.startswith("sklearn.neighbors"):
        return SklearnKernelDensity(obj)
    if (
        isinstance(obj, np.ndarray)
        or hasattr(obj, "__array__")
        or isinstance(obj, list)
    ):
        return Empirical(obj)
    if callable(getattr(obj, "sample", None)):
        return SampleAdapter(obj)
    raise TypeError(
        "population must be a distributions.Distribution, a frozen "
        "scipy.stats distribution, a fitted sklearn GaussianMixture or "
        f"KernelDensity, or an array of records; got {obj!r}."
    )
