r"""Rényi DP accounting (Mironov 2017) and its conversion to (epsilon, delta)-DP.

Named ``Renyi…``: this is Rényi differential privacy, unrelated to the *random*
DP (gamma) of sampled sensitivities, which every accountant also tracks.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

from .._lib import printing
from .._lib.domains import EPSILON_POINT, documented
from .._lib.validation import check_array
from .._math.curves import implied_curve
from ..privacy import DEFAULT_ORDERS, PrivacyStatement, rdp_to_dp
from ._pure_cap import PureCappedAccountant

__all__ = ["RenyiAccountant", "rdp_to_delta", "renyi_costs", "statement_curve"]

#: Most negative Rényi value taken for round-off of a true value >= 0.
_ROUND_OFF = 1e-9


def renyi_costs(mechanism: str, values) -> np.ndarray:
    """A statement's Rényi values as costs: refused when NaN or clearly negative.

    Rényi divergences are >= 0; a value in ``[-1e-9, 0)`` is taken for the
    round-off of a tiny true value and counted as 0, which is more than the
    statement says, so never less privacy loss than it states.

    Parameters
    ----------
    mechanism : str
        Name used in the message.
    values : array-like of float
        The curve at the orders.

    Returns
    -------
    numpy.ndarray
        The values, those in ``[-1e-9, 0)`` raised to 0.
    """
    curve = np.asarray(values, dtype=float)
    if not np.all(curve >= -_ROUND_OFF):  # NaN too
        raise ValueError(
            f"{mechanism} states a Rényi curve with a negative or NaN value at "
            f"the orders, got {curve!r}."
        )
    return np.maximum(curve, 0.0)


def statement_curve(statement: PrivacyStatement) -> Callable[[float], float] | None:
    r"""A statement's Rényi curve, or the one its other guarantees imply.

    A statement without a curve still has one when it is pure epsilon-DP,
    :math:`\min(\epsilon, \alpha\epsilon^2/2)` (Bun & Steinke 2016,
    Prop. 3.3, and :math:`D_\alpha \le D_\infty`; :func:`~sensampler.privacy.pure_dp_rdp`),
    or rho-zCDP, :math:`\alpha\rho` (Bun & Steinke 2016, Def. 1.1); with both,
    the smaller at each order. An (epsilon, delta) statement with delta > 0 and
    neither implies no finite Rényi DP (the catastrophe mechanism is one).

    Parameters
    ----------
    statement : PrivacyStatement

    Returns
    -------
    callable or None
        ``alpha -> epsilon(alpha)``; ``None`` when no finite Rényi DP follows.
    """
    if statement.rdp is not None:
        return statement.rdp
    pure = statement.epsilon if statement.delta == 0.0 else None
    if pure is None and statement.rho is None:
        return None
    return functools.partial(implied_curve, pure, statement.rho)


def _check_orders(orders) -> np.ndarray:
    """Rényi orders as a float array (default :data:`DEFAULT_ORDERS`), all > 1."""
    orders = DEFAULT_ORDERS if orders is None else check_array("orders", orders, ndim=1)
    if orders.size == 0 or np.any(orders <= 1):
        raise ValueError(
            f"orders must be non-empty and all > 1, got orders={orders!r}."
        )
    return np.array(orders, dtype=float)


def rdp_to_delta(rdp, epsilon: float, orders=None) -> tuple[float, float]:
    r"""Smallest delta, over the orders, of (epsilon, delta)-DP implied by a Rényi curve.

    Canonne, Kamath & Steinke (2020), Prop. 12: :math:`(\alpha, \bar\epsilon)`-RDP
    implies :math:`(\epsilon, \delta)`-DP with

    .. math:: \delta = \frac{e^{(\alpha-1)(\bar\epsilon-\epsilon)}}{\alpha}
              \Big(1 - \frac{1}{\alpha}\Big)^{\alpha-1},

    the inverse in delta of the conversion :func:`~sensampler.privacy.rdp_to_dp`
    uses; evaluated in log space and capped at 1.

    Parameters
    ----------
    rdp : callable or array-like
        The curve ``alpha -> epsilon(alpha)``, or its values at ``orders``.
    epsilon : float
        ``>= 0``.
    orders : array-like, optional
        Orders ``> 1`` (default :data:`~sensampler.privacy.DEFAULT_ORDERS`).

    Returns
    -------
    (delta, order) : (float, float)

    Examples
    --------
    >>> from sensampler.privacy import rdp_to_dp
    >>> curve = lambda a: a / 2.0                      # Gaussian, sigma = 1
    >>> eps, _ = rdp_to_dp(curve, 1e-5)
    >>> delta, order = rdp_to_delta(curve, eps)       # the round trip
    >>> f"{delta:.6g}"
    '1e-05'
    """
    epsilon = EPSILON_POINT.check("epsilon", epsilon)
    orders = _check_orders(orders)
    values = (
        np.array([rdp(a) for a in orders], dtype=float)
        if callable(rdp)
        else np.asarray(rdp, dtype=float)
    )
    with np.errstate(over="ignore", invalid="ignore"):
        log_delta = (orders - 1.0) * (
            values - epsilon + np.log1p(-1.0 / orders)
        ) - np.log(orders)
    log_delta = np.where(np.isnan(log_delta), np.inf, log_delta)
    best = int(np.argmin(log_delta))
    return float(min(1.0, math.exp(min(log_delta[best], 0.0)))), float(orders[best])


@documented
class RenyiAccountant(PureCappedAccountant):
    """Composes mechanisms through their Rényi curves (Mironov 2017, Prop. 1).

    Rényi DP of a fixed order composes by adding up; the accountant keeps the
    total at every order and converts at the best one. While every release is
    pure epsilon-DP, the result is capped by basic and optimal composition
    (:mod:`~sensampler.accounting._pure_cap`): the smallest valid bound is
    reported, and :meth:`report` names it. A statement without a Rényi curve
    is composed with the one its epsilon-DP or zCDP implies
    (:func:`statement_curve`); mechanisms with no finite Rényi DP (the
    catastrophe mechanism, an (epsilon, delta > 0) statement alone) are refused.

    Parameters
    ----------
    orders : array-like of float > 1, optional
        Orders to track (default :data:`~sensampler.privacy.DEFAULT_ORDERS`).

    Examples
    --------
    >>> from sensampler.mechanisms import GaussianMechanism
    >>> acc = RenyiAccountant()
    >>> acc.compose(GaussianMechanism(1.0, 0.5, 1e-5, variant="classic"), count=100)
    >>> round(acc.epsilon(1e-5), 2)
    4.9
    >>> acc
    RenyiAccountant(epsilon=4.90299 at delta=1e-05, count=100, gamma=0)
    """

    method = "Rényi DP (Mironov 2017; conversion of Canonne et al. 2020)"

    def __init__(self, orders=None):
        self.orders = _check_orders(orders)
        super().__init__()
        self._rdp = np.zeros_like(self.orders)

    def _own_amount(self, statement):
        curve = statement_curve(statement)
        if curve is None:
            raise ValueError(
                f"{statement.mechanism} satisfies no finite Rényi DP (it may "
                "fail catastrophically); account for it with a PrivacyFilter."
            )
        with np.errstate(over="ignore"):  # a curve beyond a double is inf
            return renyi_costs(statement.mechanism, [curve(a) for a in self.orders])

    def _add_own(self, curve, count):
        self._rdp = self._rdp + count * curve

    @property
    def rdp(self) -> np.ndarray:
        """Total Rényi divergence bound at each of :attr:`orders`."""
        return self._rdp.copy()

    def epsilon_order(
        self, delta: float, method: str = "improved"
    ) -> tuple[float, float]:
        """(epsilon, best order) of the Rényi conversion alone at ``delta``.

        Parameters
        ----------
        delta : float
            ``{DELTA_TARGET:delta}``.
        method : {"improved", "classic"}, default "improved"
            The conversion (see :func:`~sensampler.accounting.rdp_to_dp`).

        Returns
        -------
        (epsilon, order) : (float, float)
            The epsilon and the Rényi order attaining it.
        """
        return rdp_to_dp(self._rdp, delta, self.orders, method)

    def _own_epsilon(self, delta, method):
        return self.epsilon_order(delta, method)[0]

    def _own_delta(self, epsilon):
        return rdp_to_delta(self._rdp, epsilon, self.orders)[0]

    def _summary(self):
        return f"epsilon={printing.epsilon(self.epsilon(1e-5))} at delta=1e-05, "
