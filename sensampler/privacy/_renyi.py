"""Rényi curves: the checked curve of a statement, and conversions to (epsilon, delta)-DP."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Real

import numpy as np

from .._lib.domains import DELTA_TARGET, RHO, documented
from .._lib.domains import DP_CONVERSIONS as _DP_CONVERSIONS
from .._lib.validation import check_array
from .._math.curves import pure_dp_curve


@dataclass(frozen=True)
class RenyiCurve:
    r"""A Rényi curve whose every value is checked: ``alpha -> epsilon(alpha) >= 0``.

    :class:`PrivacyStatement` wraps the curve it is given in one, so accountants,
    which read ``statement.rdp``, never see a negative or NaN Rényi divergence
    (a Rényi divergence is :math:`\ge 0`; ``inf`` is allowed: no finite bound
    at that order). Picklable when ``function`` is.

    Parameters
    ----------
    mechanism : str
        Named in error messages.
    function : callable
        The curve ``alpha -> epsilon(alpha)`` for ``alpha > 1``.
    """

    mechanism: str
    function: Callable[[float], float]

    def __call__(self, alpha: float) -> float:
        """The curve's value at ``alpha``, or raise naming the mechanism and order.

        Parameters
        ----------
        alpha : float
            Rényi order.

        Returns
        -------
        float
            ``>= 0``, possibly ``inf``.

        Raises
        ------
        TypeError, ValueError
            When the curve returns something other than a real number
            ``>= 0`` (NaN included).
        """
        value = self.function(alpha)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
            raise TypeError(
                f"the Rényi curve of {self.mechanism} must return a real number, "
                f"got {value!r} at order alpha={float(alpha)!r}."
            )
        if not value >= 0:  # also NaN
            raise ValueError(
                f"the Rényi curve of {self.mechanism} must be >= 0 (a divergence), "
                f"got {value!r} at order alpha={float(alpha)!r}."
            )
        return float(value)


#: Rényi orders searched by default: fine near 1, coarser above (alpha > 1).
DEFAULT_ORDERS = np.concatenate(
    [
        1.0 + np.arange(1, 100) / 20.0,  # 1.05 .. 5.95
        np.arange(6.0, 20.0, 0.5),
        np.arange(20.0, 64.0),
        [64.0, 80.0, 96.0, 128.0, 192.0, 256.0, 384.0, 512.0, 1024.0],
    ]
)


def _conversion(rdp_values, orders, delta, method):
    """epsilon at each order for the given delta."""
    if method == "classic":  # Mironov 2017, Prop. 3
        return rdp_values + math.log(1.0 / delta) / (orders - 1.0)
    # Canonne, Kamath & Steinke 2020, Prop. 12 (Balle et al. 2020, Thm. 21):
    # eps = rdp + log((a - 1)/a) - (log delta + log a)/(a - 1)
    return (
        rdp_values
        + np.log1p(-1.0 / orders)
        - (math.log(delta) + np.log(orders)) / (orders - 1.0)
    )


@documented
def rdp_to_dp(
    rdp: Callable[[float], float] | np.ndarray | list[float],
    delta: float,
    orders=None,
    method: str = "improved",
) -> tuple[float, float]:
    """Convert a Rényi curve to (epsilon, delta)-DP, optimising over the order.

    Parameters
    ----------
    rdp : callable or array-like
        The curve ``alpha -> epsilon(alpha)``, or its values at ``orders``.
    delta : float
        ``{DELTA_TARGET:delta}``.
    orders : array-like, optional
        Orders ``> 1`` (default :data:`DEFAULT_ORDERS`).
    method : {"improved", "classic"}
        ``"improved"``: Canonne, Kamath & Steinke (2020), Prop. 12;
        ``"classic"``: Mironov (2017), Prop. 3.

    Returns
    -------
    (epsilon, order) : (float, float)

    Examples
    --------
    >>> eps, order = rdp_to_dp(lambda a: a / 2.0, 1e-5)   # Gaussian, sigma = 1
    >>> round(eps, 3)
    4.728
    """
    delta = DELTA_TARGET.check("delta", delta)
    _DP_CONVERSIONS.check("method", method)
    orders = DEFAULT_ORDERS if orders is None else check_array("orders", orders, ndim=1)
    if orders.size == 0 or np.any(orders <= 1):
        raise ValueError(
            f"orders must be non-empty and all > 1, got orders={orders!r}."
        )
    values = (
        np.array([rdp(a) for a in orders], dtype=float)
        if callable(rdp)
        else np.asarray(rdp, dtype=float)
    )
    if values.shape != orders.shape:
        raise ValueError(
            f"rdp must have one value per order ({orders.size}), got shape "
            f"{values.shape}."
        )
    with np.errstate(over="ignore", invalid="ignore"):
        eps = np.maximum(_conversion(values, orders, delta, method), 0.0)
    eps = np.where(np.isnan(eps), np.inf, eps)
    best = int(np.argmin(eps))
    return float(eps[best]), float(orders[best])


def _zcdp_improved(rho, delta, log_am1):
    a = 1.0 + math.exp(log_am1)
    return a * rho + math.log1p(-1.0 / a) - (math.log(delta) + math.log(a)) / (a - 1.0)


@documented
def zcdp_to_dp(rho: float, delta: float, method: str = "improved") -> float:
    r"""Epsilon such that rho-zCDP implies (epsilon, delta)-DP.

    ``"classic"``: :math:`\rho + 2\sqrt{\rho\ln(1/\delta)}` (Bun & Steinke 2016,
    Prop. 1.3). ``"improved"``: rho-zCDP is :math:`(\alpha, \alpha\rho)`-RDP for
    every alpha > 1; the conversion of Canonne, Kamath & Steinke (2020), Prop. 12,
    minimised over alpha (continuously, by a bounded scalar search), never above
    the classic value.

    Parameters
    ----------
    rho : float
        zCDP parameter, ``>= 0``.
    delta : float
        ``{DELTA_TARGET:delta}``.
    method : {"improved", "classic"}, default "improved"
        The conversion, as above.

    Returns
    -------
    float
        The epsilon, ``>= 0``.

    Examples
    --------
    >>> round(zcdp_to_dp(0.5, 1e-5, "classic"), 4)
    5.2985
    """
    from scipy import optimize  # scipy.optimize is needed only here

    rho = RHO.check("rho", rho)
    delta = DELTA_TARGET.check("delta", delta)
    _DP_CONVERSIONS.check("method", method)
    if rho == 0.0:
        return 0.0
    # square roots apart, so that a huge rho does not overflow the product
    classic = rho + 2.0 * math.sqrt(rho) * math.sqrt(math.log(1.0 / delta))
    if method == "classic":
        return classic
    with np.errstate(over="ignore", invalid="ignore"):  # a * rho may overflow
        res = optimize.minimize_scalar(
            functools.partial(_zcdp_improved, rho, delta),
            bounds=(-20.0, 20.0),
            method="bounded",
            options={"xatol": 1e-10},
        )
    improved = float(res.fun)
    return max(0.0, min(classic, improved)) if math.isfinite(improved) else classic


def pure_dp_rdp(epsilon: float) -> Callable[[float], float]:
    r"""Rényi curve of any epsilon-DP mechanism: :math:`\min(\epsilon, \alpha\epsilon^2/2)`.

    :math:`D_\alpha \le D_\infty \le \epsilon`, and epsilon-DP implies
    :math:`\epsilon^2/2`-zCDP (Bun & Steinke 2016, Prop. 3.3), i.e.
    :math:`(\alpha, \alpha\epsilon^2/2)`-RDP for every alpha. A picklable callable.

    Parameters
    ----------
    epsilon : float
        The mechanism's epsilon, ``>= 0``.

    Returns
    -------
    callable
        ``alpha -> min(epsilon, alpha * epsilon**2 / 2)`` for ``alpha > 1``.
    """
    return functools.partial(pure_dp_curve, epsilon)
