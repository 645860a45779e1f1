r"""Rényi DP accounting (Mironov 2017) and its conversion to (epsilon, delta)-DP.

Named ``Renyi…``: this is Rényi differential privacy, unrelated to the *random*
DP (gamma) of sampled sensitivities, which every accountant also tracks.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_array, check_choice, check_real
from ._ledger import Accountant

__all__ = ["RenyiAccountant", "rdp_to_dp", "DEFAULT_ORDERS"]

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
    log_inv = math.log(1.0 / delta)
    if method == "classic":  # Mironov 2017, Prop. 3
        return rdp_values + log_inv / (orders - 1.0)
    # Canonne, Kamath & Steinke 2020, Prop. 12 (Balle et al. 2020, Thm. 21):
    # eps = rdp + log((a - 1)/a) - (log delta + log a)/(a - 1)
    return (
        rdp_values
        + np.log1p(-1.0 / orders)
        - (math.log(delta) + np.log(orders)) / (orders - 1.0)
    )


def rdp_to_dp(rdp, delta: float, orders=None, method: str = "improved"):
    """Convert a Rényi curve to (epsilon, delta)-DP, optimising over the order.

    Parameters
    ----------
    rdp : callable or array-like
        The curve ``alpha -> epsilon(alpha)``, or its values at ``orders``.
    delta : float
        ``0 < delta < 1``.
    orders : array-like, optional
        Orders ``> 1`` (default :data:`DEFAULT_ORDERS`).
    method : {"improved", "classic"}
        ``"improved"``: Canonne, Kamath & Steinke (2020), Prop. 12;
        ``"classic"``: Mironov (2017), Prop. 3.

    Returns
    -------
    (epsilon, order) : (float, float)
    """
    delta = check_real(
        "delta", delta, low=0.0, high=1.0, low_strict=True, high_strict=True
    )
    check_choice("method", method, ("improved", "classic"))
    orders = DEFAULT_ORDERS if orders is None else check_array("orders", orders, ndim=1)
    if np.any(orders <= 1):
        raise ValueError(f"orders must all be > 1, got orders={orders!r}.")
    values = (
        np.array([rdp(a) for a in orders], dtype=float)
        if callable(rdp)
        else np.asarray(rdp, dtype=float)
    )
    eps = np.maximum(_conversion(values, orders, delta, method), 0.0)
    best = int(np.argmin(eps))
    return float(eps[best]), float(orders[best])


class RenyiAccountant(Accountant):
    """Composes mechanisms through their Rényi curves (Mironov 2017, Prop. 1).

    Rényi DP of a fixed order composes by adding up; the accountant keeps the
    total at every order and converts at the best one.

    Parameters
    ----------
    orders : array-like of float > 1, optional
        Orders to track (default :data:`DEFAULT_ORDERS`).

    Examples
    --------
    >>> from sensampler.mechanisms import GaussianMechanism
    >>> acc = RenyiAccountant()
    >>> acc.compose(GaussianMechanism(1.0, 0.5, 1e-5), count=100)
    >>> round(acc.epsilon(1e-5), 2)
    4.9
    """

    def __init__(self, orders=None):
        orders = (
            DEFAULT_ORDERS if orders is None else check_array("orders", orders, ndim=1)
        )
        if orders.size == 0 or np.any(orders <= 1):
            raise ValueError(
                f"orders must be non-empty and all > 1, got orders={orders!r}."
            )
        super().__init__()
        self.orders = np.array(orders, dtype=float)
        self._rdp = np.zeros_like(self.orders)

    def _amount(self, guarantee):
        if guarantee.rdp is None:
            raise ValueError(
                f"{guarantee.mechanism} satisfies no finite Rényi DP (it may "
                "fail catastrophically); account for it with a PrivacyFilter."
            )
        return np.array([guarantee.rdp(a) for a in self.orders], dtype=float)

    def _add(self, curve, count):
        self._rdp = self._rdp + count * curve

    @property
    def rdp(self) -> np.ndarray:
        """Total Rényi divergence bound at each of :attr:`orders`."""
        return self._rdp.copy()

    def epsilon_order(
        self, delta: float, method: str = "improved"
    ) -> tuple[float, float]:
        """(epsilon, best order) at ``delta``."""
        return rdp_to_dp(self._rdp, delta, self.orders, method)

    def epsilon(self, delta: float, method: str = "improved") -> float:
        """Smallest epsilon such that the composition is (epsilon, delta)-DP."""
        return self.epsilon_order(delta, method)[0]
