"""The Laplace mechanism."""

from __future__ import annotations

import math

import numpy as np

from ..privacy import PrivacyStatement
from ._base import (
    Mechanism,
    check_epsilon,
    pure_dp_rdp,
    resolve_sensitivity,
)

__all__ = ["LaplaceMechanism", "laplace_rdp"]


def laplace_rdp(alpha: float, ratio: float) -> float:
    r"""Rényi divergence of order alpha between Laplace(0, b) and Laplace(Δ, b).

    ``ratio`` is :math:`\lambda = b/\Delta`. Mironov (2017), Prop. 6 and Table II:

    .. math:: \epsilon(\alpha) = \frac{1}{\alpha-1}\log\left(
              \frac{\alpha}{2\alpha-1} e^{(\alpha-1)/\lambda}
              + \frac{\alpha-1}{2\alpha-1} e^{-\alpha/\lambda}\right),

    computed in log space; it tends to :math:`1/\lambda` as alpha grows.
    """
    if ratio == math.inf:
        return 0.0
    if alpha == math.inf:
        return 1.0 / ratio
    a = math.log(alpha / (2 * alpha - 1)) + (alpha - 1) / ratio
    b = math.log((alpha - 1) / (2 * alpha - 1)) - alpha / ratio
    return float(np.logaddexp(a, b)) / (alpha - 1)


def laplace_scale(sensitivity, epsilon: float):
    r"""Laplace scale for a resolved sensitivity (scalar, or per coordinate).

    A scalar Δ gives Δ/ε; per-coordinate :math:`\Delta_j` give
    :math:`b_j = \Delta_j^{1/3} \sum_i \Delta_i^{2/3} / \epsilon`, whose privacy
    loss :math:`\sum_j \Delta_j / b_j` is ε (see :class:`LaplaceMechanism`).
    """
    delta = sensitivity.value
    if sensitivity.per_coordinate:
        weights = np.cbrt(delta)
        return weights * np.sum(weights**2) / epsilon
    return delta / epsilon


def add_laplace_noise(arr: np.ndarray, scale, rng: np.random.Generator):
    """``arr`` plus Laplace noise of ``scale``: a float for a scalar, else an array."""
    out = arr + rng.laplace(0.0, 1.0, size=arr.shape) * scale
    return float(out) if out.ndim == 0 else out


class LaplaceMechanism(Mechanism):
    r"""Adds Laplace noise of scale :math:`\Delta_1/\epsilon` (Dwork & Roth 2014, Thm. 3.6).

    Parameters
    ----------
    sensitivity : float, array or SensitivityEstimate
        L1 sensitivity (an estimate in the ``"l1"`` norm), or per-coordinate
        sensitivities (an array, or an estimate with ``norm="coordinate"``).
    epsilon : float
        Privacy parameter, ``> 0``.

    Notes
    -----
    A scalar sensitivity Δ gives every coordinate the scale Δ/ε. A vector of
    per-coordinate sensitivities :math:`\Delta_j` gives scales :math:`b_j`; the
    privacy loss is at most :math:`\sum_j \Delta_j / b_j`, and
    :math:`b_j = \Delta_j^{1/3} \sum_i \Delta_i^{2/3} / \epsilon` makes it ε while
    minimising the total variance :math:`2\sum_j b_j^2` (a Lagrange multiplier).

    With a sampled sensitivity the release is ε-DP with probability at least
    :math:`1-\gamma` (random DP, Rubinstein & Aldà 2017, Thm. 3).

    Examples
    --------
    >>> LaplaceMechanism(2.0, 0.5).scale   # 2 / 0.5
    4.0
    """

    name = "Laplace"
    accepted_norms = ("l1", "coordinate")

    def __init__(self, sensitivity, epsilon: float):
        self._sensitivity = resolve_sensitivity(
            sensitivity, self.accepted_norms, "LaplaceMechanism"
        )
        self.epsilon = check_epsilon(epsilon)
        self._scale = laplace_scale(self._sensitivity, self.epsilon)

    @property
    def sensitivity(self) -> float | np.ndarray:
        return self._sensitivity.value

    @property
    def scale(self) -> float | np.ndarray:
        """Noise scale b (per coordinate for per-coordinate sensitivities)."""
        return self._scale

    def renyi_epsilon(self, alpha: float) -> float:
        """Rényi DP of order alpha (exact for a scalar sensitivity, Mironov 2017)."""
        if self._sensitivity.per_coordinate:
            return pure_dp_rdp(self.epsilon)(alpha)
        return laplace_rdp(alpha, 1.0 / self.epsilon)  # b / Delta = 1 / epsilon

    @property
    def privacy(self) -> PrivacyStatement:
        return self._statement(
            self.epsilon, 0.0, rho=self.epsilon**2 / 2, rdp=self.renyi_epsilon
        )

    def release(self, value, *, random_state=None):
        """Return ``value`` plus Laplace noise (same shape); draws nothing on bad input."""
        arr, rng = self.check_release(value, random_state=random_state)
        return add_laplace_noise(arr, self._scale, rng)
