"""Zero-concentrated DP accounting (Bun & Steinke 2016)."""

from __future__ import annotations

import math

from scipy import optimize

from .._validation import check_choice, check_real
from ._ledger import Accountant

__all__ = ["ZCDPAccountant", "zcdp_to_dp"]


def zcdp_to_dp(rho: float, delta: float, method: str = "improved") -> float:
    r"""Epsilon such that rho-zCDP implies (epsilon, delta)-DP.

    ``"classic"``: :math:`\rho + 2\sqrt{\rho\ln(1/\delta)}` (Bun & Steinke 2016,
    Prop. 1.3). ``"improved"``: rho-zCDP is :math:`(\alpha, \alpha\rho)`-RDP for
    every alpha > 1; the conversion of Canonne, Kamath & Steinke (2020), Prop. 12,
    minimised over alpha (continuously, by a bounded scalar search), never above
    the classic value.
    """
    rho = check_real("rho", rho, low=0.0)
    delta = check_real(
        "delta", delta, low=0.0, high=1.0, low_strict=True, high_strict=True
    )
    check_choice("method", method, ("improved", "classic"))
    if rho == 0.0:
        return 0.0
    classic = rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))
    if method == "classic":
        return classic

    def eps(log_am1):
        a = 1.0 + math.exp(log_am1)
        return (
            a * rho + math.log1p(-1.0 / a) - (math.log(delta) + math.log(a)) / (a - 1.0)
        )

    res = optimize.minimize_scalar(
        eps, bounds=(-20.0, 20.0), method="bounded", options={"xatol": 1e-10}
    )
    return max(0.0, min(classic, float(res.fun)))


class ZCDPAccountant(Accountant):
    """Adds up rho over mechanisms (Bun & Steinke 2016, Lemma 2.3).

    Mechanisms with a zCDP parameter are composed with it: the Gaussian variants
    (rho = Delta^2 / (2 sigma^2)) and pure epsilon-DP ones (rho = epsilon^2 / 2,
    Prop. 1.4). Mechanisms without one are refused.
    """

    def __init__(self):
        super().__init__()
        self._rho = 0.0

    def _amount(self, guarantee):
        if guarantee.rho is None:
            raise ValueError(
                f"{guarantee.mechanism} has no zCDP guarantee; account for "
                "it with a PrivacyFilter."
            )
        return guarantee.rho

    def _add(self, rho, count):
        self._rho += count * rho

    @property
    def rho(self) -> float:
        return self._rho

    def epsilon(self, delta: float, method: str = "improved") -> float:
        """Smallest epsilon with (epsilon, delta)-DP (see :func:`zcdp_to_dp`)."""
        return zcdp_to_dp(self._rho, delta, method)
