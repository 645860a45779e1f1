r"""The Rényi curves of the basic guarantees, each written once.

A Rényi curve maps an order :math:`\alpha > 1` to a bound on the Rényi
divergence of that order between the outputs on neighbouring inputs (Mironov
2017, Def. 4). Statements, mechanisms and accountants all build theirs from
these; each is a module-level function, so that ``functools.partial`` of one
pickles.

>>> gaussian_curve(2.0, 4.0), zcdp_curve(0.5, 4.0), pure_dp_curve(1.0, 4.0)
(0.5, 2.0, 1.0)
>>> implied_curve(1.0, 0.1, 4.0), implied_curve(None, 0.1, 4.0)
(0.4, 0.4)

References
----------
.. [1] I. Mironov, "Rényi Differential Privacy", IEEE CSF 2017.
.. [2] M. Bun and T. Steinke, "Concentrated Differential Privacy:
   Simplifications, Extensions, and Lower Bounds", TCC 2016.
"""

from __future__ import annotations

__all__ = ["gaussian_curve", "zcdp_curve", "pure_dp_curve", "implied_curve"]


def gaussian_curve(sigma: float, alpha: float) -> float:
    r""":math:`\alpha / (2\sigma^2)`: the Gaussian mechanism of noise ``sigma`` per
    unit of l2 sensitivity ([1]_, Prop. 7)."""
    return alpha / (2.0 * sigma * sigma)


def zcdp_curve(rho: float, alpha: float, xi: float = 0.0) -> float:
    r""":math:`\xi + \alpha\rho`: (xi, rho)-zCDP, by its definition ([2]_, Def. 1.1)."""
    return xi + alpha * rho


def pure_dp_curve(epsilon: float, alpha: float) -> float:
    r""":math:`\min(\epsilon, \alpha\epsilon^2/2)`: an epsilon-DP mechanism ([2]_,
    Prop. 3.3 gives :math:`\epsilon^2/2`-zCDP, and any epsilon-DP mechanism has
    Rényi divergences at most epsilon).

    Written :math:`\epsilon \min(1, \alpha\epsilon/2)`: no :math:`\epsilon^2`
    to overflow.
    """
    return epsilon * min(1.0, alpha * epsilon / 2.0)


def implied_curve(pure_epsilon: float | None, rho: float | None, alpha: float) -> float:
    """The smallest of the curves that epsilon-DP and rho-zCDP give at ``alpha``.

    ``pure_epsilon`` or ``rho`` may be None (not stated), not both; ``alpha *
    rho`` is ``inf`` beyond the largest double.
    """
    values = [] if rho is None else [zcdp_curve(rho, alpha)]
    if pure_epsilon is not None:
        values.append(pure_dp_curve(pure_epsilon, alpha))
    return min(values)
