"""Univariate population models with numpy's own generators behind them."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .._lib.domains import PROBABILITY_CLOSED
from .._lib.validation import check_array, check_real
from ._base import Distribution
from ._reach import FLOAT_MAX, REACH, check_reach

__all__ = [
    "Normal",
    "Uniform",
    "Laplace",
    "LogNormal",
    "Exponential",
    "Poisson",
    "Bernoulli",
    "Categorical",
]


_LOG_FLOAT_MAX = math.log(FLOAT_MAX)


def _exp(x: float) -> float:
    """``math.exp(x)``, or ``inf`` where it exceeds the largest float64.

    Moments are returned as ``inf`` when their true value is beyond float64 (a
    correct value for a moment), never raised as ``OverflowError``.
    """
    return math.exp(x) if x <= _LOG_FLOAT_MAX else math.inf


def weighted_moments(values, weights=None, stds=None, *, label="values"):
    """Mean and variance of the discrete law putting ``weights`` on the rows of
    ``values`` (uniform weights if None), each row blurred by ``stds`` if given (a
    mixture), computed without spurious overflow.

    Everything is divided by a power of two (exactly) near the largest magnitude
    first, so the mean of ``[1.7e308, 1.7e308]`` is 1.7e308, not inf; a variance
    beyond the largest float64 is ``inf``. Values that are not numbers (labels)
    have no moments: ``TypeError`` naming ``label``.
    """
    x = np.asarray(values)
    if x.dtype.kind not in "biuf":
        raise TypeError(
            f"{label} are not numbers ({x.dtype}): they have no mean or variance."
        )
    x = x.astype(float)
    if x.size == 0:  # records with no fields: empty moments
        return np.zeros(x.shape[1:]), np.zeros(x.shape[1:])
    top = np.abs(x).max(axis=0)
    if stds is not None:
        top = np.maximum(top, np.max(stds, axis=0))
    # top in [2**(e-1), 2**e): dividing by 2**(e-1) keeps entries within 2.
    scale = np.ldexp(1.0, np.frexp(np.where(top > 0, top, 1.0))[1] - 1)
    y = x / scale
    mean = np.average(y, axis=0, weights=weights)
    spread = (y - mean) ** 2
    if stds is not None:
        spread = spread + (np.asarray(stds, dtype=float) / scale) ** 2
    var = np.average(spread, axis=0, weights=weights)
    with np.errstate(over="ignore"):
        return mean * scale, var * scale * scale


class Normal(Distribution):
    """Normal records, ``N(loc, scale**2)``.

    Parameters
    ----------
    loc : float
        Mean.
    scale : float
        Standard deviation, ``> 0``.
    """

    releases_gil = True

    def __init__(self, loc: float = 0.0, scale: float = 1.0):
        self.loc = check_real("loc", loc)
        self.scale = check_real("scale", scale, low=0.0, low_strict=True)
        check_reach(
            "Normal",
            abs(self.loc) + REACH * self.scale,
            FLOAT_MAX,
            loc=self.loc,
            scale=self.scale,
        )

    def _draw(self, shape, rng):
        return rng.normal(self.loc, self.scale, size=shape)

    @property
    def mean(self) -> float:
        """Mean of one record, ``loc``."""
        return self.loc

    @property
    def var(self) -> float:
        """Variance of one record, ``scale**2`` (``inf`` beyond float64)."""
        return self.scale * self.scale  # inf beyond float64 (** would raise)

    def expected_abs_difference(self) -> float:
        r""":math:`E|X - X'| = 2\sigma/\sqrt{\pi}` for independent records X, X'.

        Returns
        -------
        float
            :math:`2\sigma/\sqrt{\pi}`.
        """
        return 2.0 * self.scale / math.sqrt(math.pi)

    def _params(self):
        return {"loc": self.loc, "scale": self.scale}


class Uniform(Distribution):
    """Uniform records on ``[low, high)``.

    Parameters
    ----------
    low : float, default 0.0
        Lower end, finite.
    high : float, default 1.0
        Upper end, ``> low``, finite.
    """

    releases_gil = True

    def __init__(self, low: float = 0.0, high: float = 1.0):
        self.low = check_real("low", low)
        self.high = check_real("high", high)
        if not self.high > self.low:
            raise ValueError(
                f"high must be > low, got low={self.low!r}, high={self.high!r}."
            )
        check_reach(
            "Uniform", self.high - self.low, FLOAT_MAX, low=self.low, high=self.high
        )

    def _draw(self, shape, rng):
        return rng.uniform(self.low, self.high, size=shape)

    @property
    def mean(self) -> float:
        """Mean of one record, ``(low + high) / 2``."""
        return 0.5 * self.low + 0.5 * self.high  # low + high may overflow

    @property
    def var(self) -> float:
        """Variance of one record, ``(high - low)**2 / 12`` (``inf`` beyond float64)."""
        width = self.high - self.low
        return width * width / 12.0

    def _params(self):
        return {"low": self.low, "high": self.high}


class Laplace(Distribution):
    """Laplace records with density ``exp(-|x - loc| / scale) / (2 scale)``.

    Parameters
    ----------
    loc : float, default 0.0
        Location (the mean and median).
    scale : float, default 1.0
        Scale, ``> 0``; the standard deviation is ``sqrt(2) * scale``.
    """

    releases_gil = True

    def __init__(self, loc: float = 0.0, scale: float = 1.0):
        self.loc = check_real("loc", loc)
        self.scale = check_real("scale", scale, low=0.0, low_strict=True)
        check_reach(
            "Laplace",
            abs(self.loc) + REACH * self.scale,
            FLOAT_MAX,
            loc=self.loc,
            scale=self.scale,
        )

    def _draw(self, shape, rng):
        return rng.laplace(self.loc, self.scale, size=shape)

    @property
    def mean(self) -> float:
        """Mean of one record, ``loc``."""
        return self.loc

    @property
    def var(self) -> float:
        """Variance of one record, ``2 * scale**2`` (``inf`` beyond float64)."""
        return 2.0 * self.scale * self.scale

    def _params(self):
        return {"loc": self.loc, "scale": self.scale}


class LogNormal(Distribution):
    """Records whose logarithm is ``N(mu, sigma**2)``.

    Parameters
    ----------
    mu : float, default 0.0
        Mean of the logarithm.
    sigma : float, default 1.0
        Standard deviation of the logarithm, ``> 0``.
    """

    releases_gil = True

    def __init__(self, mu: float = 0.0, sigma: float = 1.0):
        self.mu = check_real("mu", mu)
        self.sigma = check_real("sigma", sigma, low=0.0, low_strict=True)
        check_reach(
            "LogNormal",
            self.mu + REACH * self.sigma,
            _LOG_FLOAT_MAX,
            mu=self.mu,
            sigma=self.sigma,
        )

    def _draw(self, shape, rng):
        return rng.lognormal(self.mu, self.sigma, size=shape)

    @property
    def mean(self) -> float:
        """``exp(mu + sigma**2 / 2)``; ``inf`` beyond the largest float64."""
        return _exp(self.mu + self.sigma * self.sigma / 2.0)

    @property
    def var(self) -> float:
        """``(exp(sigma**2) - 1) exp(2 mu + sigma**2)``, in log space; ``inf`` beyond
        the largest float64."""
        s = self.sigma
        s2 = s * s
        if s > 1.0:  # log(expm1(s2)) = s2 + log1p(-exp(-s2)), finite for large s2
            log_expm1 = s2 + math.log1p(-math.exp(-s2))
        else:  # expm1(s2) = s2 * ratio, ratio in [1, e - 1]; s2 may underflow
            ratio = math.expm1(s2) / s2 if s2 > 0 else 1.0
            log_expm1 = 2.0 * math.log(s) + math.log(ratio)
        return _exp(log_expm1 + 2.0 * self.mu + s2)

    def _params(self):
        return {"mu": self.mu, "sigma": self.sigma}


class Exponential(Distribution):
    """Exponential records with mean ``scale`` (rate ``1 / scale``).

    Parameters
    ----------
    scale : float, default 1.0
        Mean, ``> 0``.
    """

    releases_gil = True

    def __init__(self, scale: float = 1.0):
        self.scale = check_real("scale", scale, low=0.0, low_strict=True)
        check_reach("Exponential", REACH * self.scale, FLOAT_MAX, scale=self.scale)

    def _draw(self, shape, rng):
        return rng.exponential(self.scale, size=shape)

    @property
    def mean(self) -> float:
        """Mean of one record, ``scale``."""
        return self.scale

    @property
    def var(self) -> float:
        """Variance of one record, ``scale**2`` (``inf`` beyond float64)."""
        return self.scale * self.scale  # inf beyond float64 (** would raise)

    def _params(self):
        return {"scale": self.scale}


#: The largest mean numpy's Poisson sampler takes (its ``POISSON_LAM_MAX``: the
#: int64 maximum less ten of its square roots, so that counts fit in int64).
POISSON_MAX_LAM = float(
    np.iinfo(np.int64).max - np.sqrt(float(np.iinfo(np.int64).max)) * 10
)


class Poisson(Distribution):
    """Poisson counts with mean ``lam`` (at most :data:`POISSON_MAX_LAM`, ~9.2e18).

    Parameters
    ----------
    lam : float, default 1.0
        Mean, ``0 <= lam <= POISSON_MAX_LAM``.
    """

    releases_gil = True

    def __init__(self, lam: float = 1.0):
        self.lam = check_real("lam", lam, low=0.0)
        if self.lam > POISSON_MAX_LAM:
            raise ValueError(
                f"lam must be <= POISSON_MAX_LAM={POISSON_MAX_LAM:.6g} (numpy's "
                f"Poisson sampler draws int64 counts), got lam={lam!r}."
            )

    def _draw(self, shape, rng):
        return rng.poisson(self.lam, size=shape)

    @property
    def mean(self) -> float:
        """Mean of one record, ``lam``."""
        return self.lam

    @property
    def var(self) -> float:
        """Variance of one record, ``lam`` (``inf`` beyond float64)."""
        return self.lam

    def _params(self):
        return {"lam": self.lam}


class Bernoulli(Distribution):
    """Records equal to 1 with probability ``p`` and 0 otherwise.

    Parameters
    ----------
    p : float, default 0.5
        Probability of a 1, ``0 <= p <= 1``.
    """

    releases_gil = True

    def __init__(self, p: float = 0.5):
        self.p = PROBABILITY_CLOSED.check("p", p)

    def _draw(self, shape, rng):
        return (rng.random(size=shape) < self.p).astype(np.int64)

    @property
    def mean(self) -> float:
        """Mean of one record, ``p``."""
        return self.p

    @property
    def var(self) -> float:
        """Variance of one record, ``p * (1 - p)`` (``inf`` beyond float64)."""
        return self.p * (1.0 - self.p)

    def _params(self):
        return {"p": self.p}


def check_weights(name, weights, length=None):
    """Return ``weights`` as a probability vector, or raise naming them."""
    w = check_array(name, weights, ndim=1, nonnegative=True)
    if w.size == 0:
        raise ValueError(f"{name} must not be empty.")
    if length is not None and w.size != length:
        raise ValueError(
            f"{name} must have {length} entries, got {w.size}: {name}={weights!r}."
        )
    if not math.isclose(w.sum(), 1.0, rel_tol=0.0, abs_tol=1e-8):
        raise ValueError(
            f"{name} must sum to 1, got sum {w.sum()!r}: {name}={weights!r}."
        )
    return w / w.sum()


def draw_labels(cumulative, shape, rng):
    """Draw category labels from the cumulative weights (inverse CDF, vectorised).

    A few categories are labelled by comparisons (one cheap pass each), many
    by binary search; either way the largest label is ``K - 1``.
    """
    u = rng.random(size=shape)
    if cumulative.size <= 16:
        labels = np.zeros(shape, dtype=np.uint8)
        for edge in cumulative[:-1]:
            labels += u >= edge
        return labels
    labels = np.searchsorted(cumulative, u, side="right")
    return np.minimum(labels, cumulative.size - 1, out=labels)


class Categorical(Distribution):
    """Records drawn from ``values`` (default ``0..K-1``) with probabilities ``probs``.

    Parameters
    ----------
    probs : array_like of shape (K,)
        Probabilities of the categories, non-negative, summing to 1.
    values : array_like of shape (K, ...), optional
        The records the categories stand for; default ``0 .. K-1``.
    """

    releases_gil = True

    def __init__(self, probs: ArrayLike, values: ArrayLike | None = None):
        self.probs = check_weights("probs", probs)
        if values is None:
            self.values = np.arange(self.probs.size)
        else:
            self.values = np.asarray(values)
            if self.values.ndim != 1 or self.values.size != self.probs.size:
                raise ValueError(
                    "values must be one-dimensional with one entry per "
                    f"probability ({self.probs.size}), got shape "
                    f"{self.values.shape}."
                )
            if self.values.dtype.kind == "c" or (
                self.values.dtype.kind == "f" and not np.all(np.isfinite(self.values))
            ):
                raise ValueError(
                    f"values must be finite real numbers or labels, got values={values!r}."
                )
        self._cumulative = np.cumsum(self.probs)

    def _draw(self, shape, rng):
        return np.take(self.values, draw_labels(self._cumulative, shape, rng))

    @property
    def mean(self) -> float:
        """Mean of one record, ``sum(probs * values)``."""
        return float(self._moments()[0])

    @property
    def var(self) -> float:
        """Variance of one record: the squared deviation of ``values``, weighted by ``probs``."""
        return float(self._moments()[1])

    def _moments(self):
        return weighted_moments(self.values, self.probs, label="Categorical values")

    def _params(self):
        return {"probs": self.probs, "values": self.values}
