"""Finite mixtures of normal components."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._lib.scipy_compat import special
from .._lib.validation import check_array
from ._base import Distribution
from ._reach import FLOAT_MAX, REACH, check_reach
from .univariate import (
    check_weights,
    draw_labels,
    weighted_moments,
)

__all__ = ["GaussianMixture"]


class GaussianMixture(Distribution):
    r"""Univariate mixture of normal components.

    Parameters
    ----------
    params : array-like of shape (K, 2), optional
        Rows of ``(mean, std)``, one per component (the source documents' form).
    weights : array-like of shape (K,), optional
        Component probabilities, ``>= 0`` and summing to 1; uniform if omitted.
    means, stds : array-like of shape (K,), keyword-only
        The keyword form: component means and standard deviations (``> 0``).

    Examples
    --------
    >>> heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
    >>> heights.mean
    170.0
    >>> round(heights.expected_abs_difference(), 2)
    11.99
    """

    releases_gil = True

    def __init__(
        self,
        params: ArrayLike | None = None,
        weights: ArrayLike | None = None,
        *,
        means: ArrayLike | None = None,
        stds: ArrayLike | None = None,
    ):
        if params is not None and (means is not None or stds is not None):
            raise TypeError("give either params or means and stds, not both.")
        if params is not None:
            table = check_array("params", params, ndim=2)
            if table.shape[1] != 2 or table.shape[0] == 0:
                raise ValueError(
                    "params must have rows of (mean, std), shape (K, 2), "
                    f"got shape {table.shape}."
                )
            means, stds = table[:, 0], table[:, 1]
            if np.any(stds <= 0):
                raise ValueError(f"params: every std must be > 0, got stds={stds!r}.")
        elif means is None or stds is None:
            raise TypeError("GaussianMixture needs params, or both means and stds.")
        else:
            means = check_array("means", means, ndim=1)
            stds = check_array("stds", stds, ndim=1, positive=True)
            if means.size != stds.size or means.size == 0:
                raise ValueError(
                    "means and stds must have the same non-zero length, got "
                    f"{means.size} and {stds.size}."
                )
        with np.errstate(over="ignore"):  # an overflowing reach is refused below
            reach = float(np.max(np.abs(means) + REACH * stds))
        check_reach(
            "GaussianMixture",
            reach,
            FLOAT_MAX,
            means=means.tolist(),
            stds=stds.tolist(),
        )
        self.means = means.copy()
        self.stds = stds.copy()
        k = self.means.size
        self.weights = (
            np.full(k, 1.0 / k)
            if weights is None
            else check_weights("weights", weights, length=k)
        )
        self._cumulative = np.cumsum(self.weights)

    @property
    def n_components(self) -> int:
        """Number of mixture components."""
        return self.means.size

    def _draw(self, shape, rng):
        out = rng.standard_normal(size=shape)
        if self.n_components == 1:
            return out * self.stds[0] + self.means[0]
        labels = draw_labels(self._cumulative, shape, rng)
        out *= np.take(self.stds, labels)
        out += np.take(self.means, labels)
        return out

    @property
    def mean(self) -> float:
        """Mean of one record, ``sum(weights * means)``."""
        return float(weighted_moments(self.means, self.weights, self.stds)[0])

    @property
    def var(self) -> float:
        """Law of total variance, ``sum_i w_i (sigma_i**2 + (mu_i - mean)**2)``:
        never negative from cancellation; ``inf`` beyond the largest float64."""
        return float(weighted_moments(self.means, self.weights, self.stds)[1])

    def expected_abs_difference(self) -> float:
        r"""Exact :math:`E|X - X'|` for two independent records.

        Returns
        -------
        float
            The exact :math:`E|X - X'|`.

        Notes
        -----
        Given components i and j, :math:`X - X' \sim N(\mu, s^2)` with
        :math:`\mu = \mu_i - \mu_j` and :math:`s^2 = \sigma_i^2 + \sigma_j^2`, and the
        folded-normal mean is

        .. math:: E|N(\mu, s^2)| = s\sqrt{2/\pi}\, e^{-\mu^2 / 2s^2}
                  + \mu\, \mathrm{erf}\!\left(\mu / (s\sqrt 2)\right).

        Averaging over the component pair with weights :math:`w_i w_j` gives the
        result. It is the expected replace-one sensitivity of the identity query on
        one record (the "expected sensitivity" of the heights example); for two
        equally weighted components it reduces to that example's closed form.
        """
        mu = self.means[:, None] - self.means[None, :]
        s = np.sqrt(self.stds[:, None] ** 2 + self.stds[None, :] ** 2)
        folded = s * np.sqrt(2.0 / np.pi) * np.exp(
            -0.5 * (mu / s) ** 2
        ) + mu * special.erf(mu / (s * np.sqrt(2.0)))
        return float(self.weights @ folded @ self.weights)

    def _params(self):
        return {"means": self.means, "stds": self.stds, "weights": self.weights}
