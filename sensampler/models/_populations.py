"""The population models :class:`~sensampler.models.PrivateEstimator` fits on the
public rows by name (``population=``): the rows resampled, a Gaussian mixture or
a kernel density, for a classifier one per class with the public class
frequencies. Nothing here reads private data."""

from __future__ import annotations

import numpy as np

from ..distributions import (
    Distribution,
    PublicSample,
    SklearnGaussianMixture,
    SklearnKernelDensity,
)
from ..distributions.univariate import draw_labels

__all__ = ["MIXTURE_COMPONENTS", "POPULATIONS", "public_population"]

#: Population models :class:`PrivateEstimator` fits on the public data by name.
POPULATIONS = ("bootstrap", "gaussian_mixture", "kde")
#: Components of the Gaussian mixture fitted by ``population="gaussian_mixture"``.
MIXTURE_COMPONENTS = 3


class _Standardised(Distribution):
    """Records of ``inner`` (standardised units) mapped back: ``x * scale + centre``."""

    releases_gil = True

    def __init__(self, inner: Distribution, centre: np.ndarray, scale: np.ndarray):
        self.inner = inner
        self.centre = centre
        self.scale = scale
        self.record_shape = inner.record_shape

    def _draw(self, shape, rng):
        return self.inner._draw(shape, rng) * self.scale + self.centre


class _Labelled(Distribution):
    """Rows ``(features..., label)``: a label drawn with the public class
    frequencies, then features from that class's own population."""

    def __init__(self, labels: np.ndarray, weights: np.ndarray, parts: list):
        self.labels = labels
        self.parts = parts
        self._cumulative = np.cumsum(weights)
        self.record_shape = (parts[0].record_shape[0] + 1,)

    def _draw(self, shape, rng):
        which = draw_labels(self._cumulative, shape, rng)
        out = np.empty(tuple(shape) + self.record_shape)
        for index, part in enumerate(self.parts):
            mask = which == index
            out[mask, :-1] = part._draw((int(mask.sum()),), rng)
            out[mask, -1] = self.labels[index]
        return out


def _smooth(kind: str, rows: np.ndarray, seed: int) -> Distribution:
    """A Gaussian mixture or a kernel density fitted on standardised ``rows``."""
    from sklearn.mixture import GaussianMixture
    from sklearn.neighbors import KernelDensity

    centre = rows.mean(axis=0)
    scale = rows.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    z = (rows - centre) / scale
    if kind == "kde":
        inner: Distribution = SklearnKernelDensity(
            KernelDensity(bandwidth="scott").fit(z)
        )
    else:
        components = min(MIXTURE_COMPONENTS, len(z))
        inner = SklearnGaussianMixture(
            GaussianMixture(
                components, covariance_type="full", reg_covar=1e-4, random_state=seed
            ).fit(z)
        )
    return _Standardised(inner, centre, scale)


def public_population(
    kind: str, X: np.ndarray, y: np.ndarray, classifier: bool, seed: int
) -> Distribution:
    """The population named ``kind`` (:data:`POPULATIONS`) fitted on public rows.

    Parameters
    ----------
    kind : {"bootstrap", "gaussian_mixture", "kde"}
        The model.
    X, y : ndarray
        The public features and targets.
    classifier : bool
        Whether to fit one model per class, with the public class frequencies.
    seed : int
        Seeds the Gaussian mixture's fit.

    Returns
    -------
    Distribution
        Of rows ``(features..., target)``.
    """
    rows = np.column_stack([X, y])
    if kind == "bootstrap":
        return PublicSample(rows)
    if not classifier:
        return _smooth(kind, rows, seed)
    labels, counts = np.unique(y, return_counts=True)
    parts = [_smooth(kind, X[y == label], seed) for label in labels]
    return _Labelled(labels.astype(float), counts / counts.sum(), parts)
