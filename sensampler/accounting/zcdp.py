"""Zero-concentrated DP accounting (Bun & Steinke 2016)."""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from .._lib import printing
from .._lib.domains import EPSILON_POINT, RHO
from ..privacy import pure_dp_rdp, zcdp_to_dp
from ._pure_cap import PureCappedAccountant

__all__ = ["ZCDPAccountant", "zcdp_to_delta"]


def _log_delta(rho, epsilon, log_am1):
    a = 1.0 + math.exp(log_am1)
    return (a - 1.0) * (a * rho - epsilon + math.log1p(-1.0 / a)) - math.log(a)


def zcdp_to_delta(rho: float, epsilon: float) -> float:
    r"""Smallest delta such that rho-zCDP implies (epsilon, delta)-DP.

    rho-zCDP is :math:`(\alpha, \alpha\rho)`-RDP for every alpha > 1 (Bun &
    Steinke 2016, Def. 1.1); the conversion of Canonne, Kamath & Steinke (2020),
    Prop. 12 (see :func:`~sensampler.accounting.renyi.rdp_to_delta`),
    minimised over alpha by a bounded scalar search, and capped at 1.

    Parameters
    ----------
    rho : float
        zCDP parameter, ``>= 0``.
    epsilon : float
        ``>= 0``.

    Returns
    -------
    float
        The delta, in ``[0, 1]``.

    Examples
    --------
    >>> from sensampler.privacy import zcdp_to_dp
    >>> bool(zcdp_to_delta(0.5, zcdp_to_dp(0.5, 1e-5)) <= 1.0001e-5)
    True
    """
    rho = RHO.check("rho", rho)
    epsilon = EPSILON_POINT.check("epsilon", epsilon)
    if rho == 0.0:
        return 0.0
    with np.errstate(over="ignore", invalid="ignore"):  # a huge rho: inf - inf
        res = optimize.minimize_scalar(
            lambda x: _log_delta(rho, epsilon, x),
            bounds=(-20.0, 20.0),
            method="bounded",
            options={"xatol": 1e-10},
        )
    log_delta = float(res.fun)
    if math.isnan(log_delta):  # no finite value found: the trivial bound
        return 1.0
    return min(1.0, math.exp(min(log_delta, 0.0)))


class ZCDPAccountant(PureCappedAccountant):
    """Adds up rho over mechanisms (Bun & Steinke 2016, Lemma 2.3).

    Mechanisms with a zCDP parameter are composed with it: the Gaussian variants
    (rho = Delta^2 / (2 sigma^2)), the exponential mechanism (rho =
    min(epsilon, epsilon^2 / 8), Cesar & Rogers 2021) and other pure
    epsilon-DP ones (rho = min(epsilon, epsilon^2 / 2), Prop. 1.4; epsilon-DP
    is also epsilon-zCDP), also when a pure statement states no rho. While
    every release is pure epsilon-DP, the result is capped by basic and
    optimal composition
    (:mod:`~sensampler.accounting._pure_cap`). Mechanisms without a zCDP
    parameter (the catastrophe mechanism) are refused.

    Examples
    --------
    >>> from sensampler.mechanisms import ZCDPGaussianMechanism
    >>> acc = ZCDPAccountant()
    >>> acc.compose(ZCDPGaussianMechanism(1.0, 0.01), count=10)
    >>> acc
    ZCDPAccountant(rho=0.1, count=10, gamma=0)
    """

    method = "zCDP (Bun & Steinke 2016; conversion of Canonne et al. 2020)"

    def __init__(self):
        super().__init__()
        self._rho = 0.0

    def _own_amount(self, statement):
        if statement.rho is None and statement.delta == 0.0:
            # epsilon-DP is min(epsilon, epsilon^2 / 2)-zCDP (Bun & Steinke
            # 2016, Prop. 3.3; D_alpha <= epsilon <= alpha epsilon): the pure
            # Rényi curve at alpha = 1 is that minimum
            return pure_dp_rdp(statement.epsilon)(1.0)
        if statement.rho is None:
            raise ValueError(
                f"{statement.mechanism} has no zCDP guarantee; account for "
                "it with a PrivacyFilter."
            )
        return statement.rho

    def _add_own(self, rho, count):
        self._rho += count * rho

    @property
    def rho(self) -> float:
        """Total zCDP parameter of everything composed."""
        return self._rho

    def _own_epsilon(self, delta, method):
        return zcdp_to_dp(self._rho, delta, method)

    def _own_delta(self, epsilon):
        return zcdp_to_delta(self._rho, epsilon)

    def _summary(self):
        return f"rho={printing.rho(self._rho)}, "
