"""The Laplace mechanism."""

from __future__ import annotations

import functools
import math

import numpy as np

from .._lib.domains import NOISE_RATIO, ORDER_OR_INF
from ..privacy import Noise, PrivacyStatement
from ._base import (
    Mechanism,
    check_epsilon,
    check_noise_scale,
    check_worst_case_epsilon,
    exposed,
    floor_scale,
    pure_dp_zcdp,
    quotient_up,
    read_only,
    resolve_sensitivity,
    worst_case_statement,
)

__all__ = [
    "LaplaceMechanism",
    "floored_laplace_scale",
    "laplace_rdp",
    "laplace_product_rdp",
]


def laplace_rdp(alpha: float, ratio: float) -> float:
    r"""Rényi divergence of order alpha between Laplace(0, b) and Laplace(Δ, b).

    ``ratio`` is :math:`\lambda = b/\Delta`. Mironov (2017), Prop. 6 and Table II:

    .. math:: \epsilon(\alpha) = \frac{1}{\alpha-1}\log\left(
              \frac{\alpha}{2\alpha-1} e^{(\alpha-1)/\lambda}
              + \frac{\alpha-1}{2\alpha-1} e^{-\alpha/\lambda}\right),

    computed in log space and clipped at 0 (a divergence is non-negative); it
    tends to :math:`1/\lambda` as alpha grows, and never exceeds it
    (:math:`D_\alpha \le D_\infty = 1/\lambda`; Rényi divergence grows with its
    order, van Erven & Harremoës 2014, Thm. 3), which caps the result where the
    formula's exponents overflow.

    Parameters
    ----------
    alpha : float
        Order, ``> 1`` (``inf`` allowed).
    ratio : float
        :math:`\lambda = b/\Delta > 0` (``inf``: a coordinate that cannot move).

    Returns
    -------
    float
        Finite, except ``inf`` where :math:`1/\lambda` itself exceeds the
        largest double.

    Raises
    ------
    TypeError, ValueError
        Naming ``alpha`` or ``ratio``.
    """
    alpha = ORDER_OR_INF.check("alpha", alpha)
    ratio = NOISE_RATIO.check("ratio", ratio)
    if ratio == math.inf:
        return 0.0
    cap = 1.0 / ratio  # inf only where 1/ratio exceeds the largest double
    if alpha == math.inf:
        return cap
    # log(alpha / (2 alpha - 1)) and log((alpha - 1) / (2 alpha - 1)), for any alpha
    log_half = -math.log(2.0 - 1.0 / alpha)
    a = log_half + (alpha - 1) / ratio
    if a == math.inf:  # the first exponent overflows: the cap is the bound
        return cap
    # log(e^a + e^b) = a + log1p(e^(b - a)), b - a = log((alpha - 1)/alpha)
    # - (2 alpha - 1)/ratio < 0 (-inf where it overflows)
    b_minus_a = math.log1p(-1.0 / alpha) - (2 * alpha - 1) / ratio
    # A divergence is >= 0: the clip at 0 only removes rounding below it.
    return max(0.0, min(cap, (a + math.log1p(math.exp(b_minus_a))) / (alpha - 1)))


def laplace_product_rdp(alpha: float, ratios) -> float:
    r"""Rényi divergence of order alpha of a product of Laplace pairs.

    :math:`\sum_j \epsilon_{\lambda_j}(\alpha)` with :func:`laplace_rdp`:
    Rényi divergence is additive over independent coordinates (Mironov 2017,
    Prop. 1), and each coordinate's divergence grows with its shift, so the
    worst neighbours move every coordinate j by its full sensitivity. Ratios
    :math:`\lambda_j = b_j/\Delta_j`; ``inf`` for a coordinate that cannot move.
    """
    return math.fsum(laplace_rdp(alpha, ratio) for ratio in ratios)


def _capped_laplace_curve(epsilon, ratios, alpha):
    return min(epsilon, laplace_product_rdp(alpha, ratios))


def laplace_scale(sensitivity, epsilon: float):
    r"""Laplace scale for a resolved sensitivity (scalar, or per coordinate).

    A scalar Δ gives Δ/ε; per-coordinate :math:`\Delta_j` give
    :math:`b_j = \Delta_j^{1/3} \sum_i \Delta_i^{2/3} / \epsilon`, whose privacy
    loss :math:`\sum_j \Delta_j / b_j` is ε (see :class:`LaplaceMechanism`).
    Refuses a scale that overflows (naming the sensitivity and epsilon).
    """
    delta = sensitivity.value
    with np.errstate(over="ignore"):
        if sensitivity.per_coordinate:
            weights = np.cbrt(delta)
            scale = weights * np.sum(weights**2) / epsilon
        else:
            scale = delta / epsilon
    check_noise_scale(scale, f"sensitivity={delta!r}, epsilon={epsilon!r}")
    return scale


def floored_laplace_scale(sensitivity, epsilon: float, worst_case_epsilon: float):
    r"""The Laplace scale of :func:`laplace_scale`, raised to the worst-case floor.

    For a sensitivity that carries a worst-case part :math:`\Delta_{wc}`,
    :math:`b = \max(\Delta/\epsilon, \Delta_{wc}/\epsilon_{cap})`, the
    floor the smallest double with :math:`\Delta_{wc}/b \le \epsilon_{cap}`
    exactly (:func:`~sensampler.mechanisms._base.floor_scale`); per
    coordinate, each :math:`b_j` is raised to that floor (:math:`\Delta_{wc}`
    is then the l1 norm of the change over all coordinates); unchanged
    without a worst case.
    """
    scale = laplace_scale(sensitivity, epsilon)
    worst = sensitivity.worst_case
    if worst is not None:  # the floor: worst / scale <= the cap
        scale = np.maximum(scale, floor_scale(worst, worst_case_epsilon))
        scale = float(scale) if scale.ndim == 0 else scale
        check_noise_scale(
            scale, f"worst_case={worst!r}, worst_case_epsilon={worst_case_epsilon!r}"
        )
    return scale


def laplace_ratios(sensitivity, epsilon: float) -> tuple[float, ...]:
    r"""Scale over sensitivity, :math:`b_j/\Delta_j`, of each coordinate.

    1/ε for a scalar sensitivity; per coordinate
    :math:`\sum_i \Delta_i^{2/3} / (\epsilon \Delta_j^{2/3})` (``inf`` where
    :math:`\Delta_j = 0`), so that :math:`\sum_j \Delta_j / b_j = \epsilon`.
    """
    if not sensitivity.per_coordinate:
        return (1.0 / epsilon,)
    weights = np.cbrt(sensitivity.value) ** 2
    total = float(np.sum(weights))
    return tuple(math.inf if w == 0 else total / (epsilon * float(w)) for w in weights)


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
    worst_case_epsilon : float, optional
        Cap on the worst-case epsilon, for an estimate that carries a
        worst-case sensitivity :math:`\Delta_{wc}` (sampled with bounds):
        the scale is raised to at least :math:`\Delta_{wc}` /
        ``worst_case_epsilon``. Default: 10 times ``epsilon``
        (:data:`~sensampler.mechanisms._base.WORST_CASE_FACTOR`).

    Notes
    -----
    A scalar sensitivity Δ gives every coordinate the scale Δ/ε. A vector of
    per-coordinate sensitivities :math:`\Delta_j` gives scales :math:`b_j`; the
    privacy loss is at most :math:`\sum_j \Delta_j / b_j`, and
    :math:`b_j = \Delta_j^{1/3} \sum_i \Delta_i^{2/3} / \epsilon` makes it ε while
    minimising the total variance :math:`2\sum_j b_j^2` (a Lagrange multiplier).

    With a sampled sensitivity the release is ε-DP with probability at least
    :math:`1-\gamma` (random DP, Rubinstein & Aldà 2017, Thm. 3).

    **Worst case.** When the estimate carries the sensitivity
    :math:`\Delta_{wc}` of the clipped query over every pair of neighbours,
    the scale is :math:`b = \max(\Delta/\epsilon, \Delta_{wc}/\epsilon_{cap})`
    and the statement's ``worst_case`` is :math:`\Delta_{wc}/b`-DP for every
    pair (Dwork & Roth 2014, Thm. 3.6, with :math:`\Delta_{wc}`), at most
    the cap. The random-DP statement keeps ε: more noise only helps, and a
    sampled Δ = 0 gives no exact release. Per coordinate, :math:`\Delta_{wc}`
    is the l1 norm of the change over all coordinates, every :math:`b_j` is
    floored alike, and the worst case is :math:`\Delta_{wc}/\min_j b_j`.

    Examples
    --------
    >>> LaplaceMechanism(2.0, 0.5).scale   # 2 / 0.5
    4.0
    """

    name = "Laplace"
    accepted_norms = ("l1", "coordinate")

    def __init__(
        self, sensitivity, epsilon: float, worst_case_epsilon: float | None = None
    ):
        self._sensitivity = resolve_sensitivity(
            sensitivity, self.accepted_norms, "LaplaceMechanism", floor=True,
            per_coordinate_floor=True,
        )
        self.epsilon = check_epsilon(epsilon)
        self.worst_case_epsilon = check_worst_case_epsilon(
            worst_case_epsilon, self.epsilon
        )
        self._scale = read_only(
            floored_laplace_scale(
                self._sensitivity, self.epsilon, self.worst_case_epsilon
            )
        )
        self._ratios = laplace_ratios(self._sensitivity, self.epsilon)

    @property
    def sensitivity(self) -> float | np.ndarray:
        """The L1 sensitivity the noise is calibrated to (a float or an array)."""
        return exposed(self._sensitivity.value)

    @property
    def scale(self) -> float | np.ndarray:
        """Noise scale b (per coordinate for per-coordinate sensitivities)."""
        return exposed(self._scale)

    def renyi_epsilon(self, alpha: float) -> float:
        """Rényi DP of order alpha, exact (Mironov 2017, Prop. 6).

        The sum of the coordinates' Laplace curves (:func:`laplace_product_rdp`),
        one coordinate for a scalar sensitivity; at most epsilon, as the
        mechanism is epsilon-DP (:math:`D_\\alpha \\le D_\\infty`), which caps
        its rounding.

        Parameters
        ----------
        alpha : float
            Rényi order, ``> 1``.

        Returns
        -------
        float
            The Rényi divergence bound at ``alpha``, in ``[0, epsilon]``.
        """
        return _capped_laplace_curve(self.epsilon, self._ratios, alpha)

    def _privacy_statement(self) -> PrivacyStatement:
        return self._statement(
            self.epsilon,
            0.0,
            rho=pure_dp_zcdp(self.epsilon),
            rdp=functools.partial(_capped_laplace_curve, self.epsilon, self._ratios),
            noise=Noise("laplace", self._ratios),
            worst_case=self._worst_case_statement(),
        )

    def _worst_case_statement(self) -> PrivacyStatement | None:
        r"""``Delta_wc / min_j b_j``-DP for every pair, or None without a worst case.

        Per coordinate, a change v with :math:`\lVert v\rVert_1 \le
        \Delta_{wc}` costs :math:`\sum_j |v_j|/b_j \le \Delta_{wc}/\min_j b_j`,
        attained by putting all of it on the coordinate of least noise; so is
        the Rényi curve (each coordinate's is convex in its shift, so the sum
        is largest at that vertex)."""
        worst = self._sensitivity.worst_case
        if worst is None:
            return None
        least = float(np.min(self._scale))
        if worst == 0:
            epsilon, ratio = 0.0, math.inf
        else:
            epsilon = quotient_up(worst, least)
            ratio = least / worst
        return worst_case_statement(
            self.name,
            self._sensitivity,
            epsilon,
            0.0,
            rho=pure_dp_zcdp(epsilon),
            rdp=functools.partial(_capped_laplace_curve, epsilon, (ratio,)),
            noise=Noise("laplace", (ratio,)),
        )

    def release(self, value, *, random_state=None):
        """Return ``value`` plus Laplace noise (same shape); draws nothing on bad input.

        Parameters
        ----------
        value : float or array_like
            The exact answer, of the shape the sensitivity covers.
        random_state : None, int, numpy.random.Generator or numpy.random.SeedSequence, optional
            Source of the noise; ``None`` (default) draws fresh entropy.

        Returns
        -------
        float or ndarray
            ``value`` plus Laplace(0, :attr:`scale`) noise per coordinate.
        """
        arr, rng = self.check_release(value, random_state=random_state)
        return add_laplace_noise(arr, self._scale, rng)
