"""Bootstrap population: records resampled from a public table."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._base import Distribution
from .univariate import check_weights, weighted_moments

__all__ = ["Empirical"]


class Empirical(Distribution):
    """Records drawn with replacement from the rows of ``data``.

    Parameters
    ----------
    data : array-like of shape (N, ...) or pandas.DataFrame
        Public records; a 1-d array is a column of scalar records.
    weights : array-like of shape (N,), optional
        Probability of each row (uniform if omitted).
    """

    releases_gil = True

    def __init__(self, data: ArrayLike, weights: ArrayLike | None = None):
        try:
            table = np.asarray(data)
        except Exception as exc:  # noqa: BLE001 - re-raised with the parameter named
            raise TypeError(
                f"data must be array-like, got {type(data).__name__}."
            ) from exc
        if table.ndim == 0 or table.shape[0] == 0:
            raise ValueError(
                f"data must hold at least one record, got shape {table.shape}."
            )
        if table.dtype.kind in "fc" and not np.all(np.isfinite(table)):
            raise ValueError("data must be finite; it holds NaN or infinite values.")
        self.data = table
        self.releases_gil = table.dtype != object
        self.record_shape = table.shape[1:]
        self.weights = (
            None
            if weights is None
            else check_weights("weights", weights, length=table.shape[0])
        )
        self._cumulative = None if weights is None else np.cumsum(self.weights)

    def _draw(self, shape, rng):
        n = self.data.shape[0]
        if self._cumulative is None:
            idx = rng.integers(n, size=shape)
        else:
            idx = np.minimum(
                np.searchsorted(self._cumulative, rng.random(size=shape), side="right"),
                n - 1,
            )
        return self.data[idx]

    @property
    def mean(self) -> float | np.ndarray:
        """Mean of one record (scalar, or array of ``record_shape``)."""
        return self._moments()[0]

    @property
    def var(self) -> float | np.ndarray:
        """Variance of one record (per coordinate for vector records)."""
        return self._moments()[1]

    def _moments(self):
        return weighted_moments(self.data, self.weights, label="Empirical data")

    def _params(self):
        return {"n_records": self.data.shape[0], "record_shape": self.record_shape}
