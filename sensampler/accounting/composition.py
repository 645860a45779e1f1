r"""Composition theorems for (epsilon, delta)-DP.

Every function returns a valid bound for the k-fold adaptive composition as a
:class:`~sensampler.privacy.PrivacyBound`, which unpacks as the pair
``(epsilon, delta)`` and names its theorem in ``method``; the teaching texts'
simplified forms are not used (see the notes of :func:`advanced_composition`).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from .._validation import check_count, check_real
from ..privacy import PrivacyBound

__all__ = [
    "basic_composition",
    "parallel_composition",
    "advanced_composition",
    "optimal_composition",
    "tightest_composition",
]


def _check_eps_delta(epsilon, delta, *, delta_name="delta"):
    epsilon = check_real("epsilon", epsilon, low=0.0)
    delta = check_real(delta_name, delta, low=0.0, high=1.0, high_strict=True)
    return epsilon, delta


def _as_lists(epsilon, delta):
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
    dels = np.broadcast_to(np.atleast_1d(np.asarray(delta, dtype=float)), eps.shape)
    for e in eps:
        check_real("epsilon", e, low=0.0)
    for d in dels:
        check_real("delta", d, low=0.0, high=1.0, high_strict=True)
    return eps, dels


def basic_composition(
    epsilon: ArrayLike, delta: ArrayLike = 0.0, k: int = 1
) -> PrivacyBound:
    """Sequential composition: epsilons and deltas add up (Dwork & Roth 2014, Thm. 3.16).

    Parameters
    ----------
    epsilon, delta : float or sequence of float
        One mechanism's parameters repeated ``k`` times, or one entry per mechanism.
    k : int, default 1
        Repetitions of scalar parameters (must stay 1 for sequences).

    Examples
    --------
    >>> tuple(basic_composition(0.5, 0.0, k=3))
    (1.5, 0.0)
    """
    k = check_count("k", k)
    eps, dels = _as_lists(epsilon, delta)
    if eps.size > 1 and k != 1:
        raise ValueError(f"give k only with scalar epsilon and delta, got k={k}.")
    return PrivacyBound(
        float(k * eps.sum()),
        float(min(1.0, k * dels.sum())),
        method="basic (Dwork & Roth 2014, Thm. 3.16)",
    )


def parallel_composition(epsilon: ArrayLike, delta: ArrayLike = 0.0) -> PrivacyBound:
    """Mechanisms on disjoint parts of the data: the largest epsilon and delta
    (McSherry 2009, Thm. 4)."""
    eps, dels = _as_lists(epsilon, delta)
    return PrivacyBound(
        float(eps.max()), float(dels.max()), method="parallel (McSherry 2009, Thm. 4)"
    )


def advanced_composition(
    epsilon: float, delta: float, k: int, delta_prime: float
) -> PrivacyBound:
    r"""Advanced composition (Dwork & Roth 2014, Thm. 3.20).

    k mechanisms, each (epsilon, delta)-DP, compose to
    :math:`(\epsilon', k\delta + \delta')` with

    .. math:: \epsilon' = \epsilon\sqrt{2k\ln(1/\delta')} + k\epsilon(e^\epsilon - 1).

    Notes
    -----
    Two simplified forms circulate and under-report epsilon:
    :math:`2\epsilon\sqrt{2k\ln(1/\delta')}` holds only in the regime of
    Cor. 3.21 (a target :math:`\epsilon' < 1`); for epsilon = 1, k = 500 and
    :math:`\delta' = 10^{-5}` it gives 214.6 while the theorem gives 966.4 (and
    basic composition 500). :math:`\sqrt{2k\ln(1/\delta')} + k\epsilon(e^\epsilon-1)`
    drops the factor epsilon of the first term. Neither is returned here.

    Examples
    --------
    >>> eps, delta = advanced_composition(1.0, 0.0, 500, 1e-5)
    >>> round(eps, 1), delta
    (966.4, 1e-05)
    """
    epsilon, delta = _check_eps_delta(epsilon, delta)
    k = check_count("k", k)
    delta_prime = check_real(
        "delta_prime", delta_prime, low=0.0, high=1.0, low_strict=True, high_strict=True
    )
    eps = epsilon * math.sqrt(
        2 * k * math.log(1 / delta_prime)
    ) + k * epsilon * math.expm1(epsilon)
    return PrivacyBound(
        eps,
        min(1.0, k * delta + delta_prime),
        method="advanced (Dwork & Roth 2014, Thm. 3.20)",
    )


def _kov_delta_i(epsilon: float, k: int, i: int) -> float:
    r""":math:`\delta_i` of Kairouz, Oh & Viswanath (2017), Thm. 3.3, as a sum of
    non-negative terms: :math:`\sum_{l<i} \mathrm{Bin}(k, \frac{1}{1+e^\epsilon})(l)
    \,(1 - e^{-2(i-l)\epsilon})`."""
    from scipy import stats  # imported here: scipy.stats is slow to import

    if i == 0:
        return 0.0
    l = np.arange(i)
    log_pmf = stats.binom.logpmf(l, k, special.expit(-epsilon))
    return float(np.sum(np.exp(log_pmf) * -np.expm1(-2.0 * (i - l) * epsilon)))


def optimal_composition(
    epsilon: float, delta: float, k: int, delta_prime: float
) -> PrivacyBound:
    r"""Optimal homogeneous composition (Kairouz, Oh & Viswanath 2017, Thm. 3.3).

    k-fold adaptive composition of (epsilon, delta)-DP mechanisms is
    :math:`((k-2i)\epsilon,\ 1 - (1-\delta)^k (1-\delta_i))`-DP for every
    :math:`0 \le i \le \lfloor k/2 \rfloor`, and no better bound holds for all
    such mechanisms. Returns the smallest such epsilon whose delta does not exceed
    :math:`k\delta + \delta'` (the delta advanced composition would spend), with
    that delta.
    """
    epsilon, delta = _check_eps_delta(epsilon, delta)
    k = check_count("k", k)
    delta_prime = check_real(
        "delta_prime", delta_prime, low=0.0, high=1.0, low_strict=True, high_strict=True
    )
    budget = min(1.0, k * delta + delta_prime)
    base = -math.expm1(k * math.log1p(-delta))  # 1 - (1 - delta)^k
    method = "optimal (Kairouz et al. 2017)"
    if epsilon == 0.0:
        return PrivacyBound(0.0, base, method=method)

    def total(i):
        return base + (1.0 - base) * _kov_delta_i(epsilon, k, i)

    lo, hi = 0, k // 2  # total(i) grows with i: find the largest i within budget
    if total(lo) > budget:
        raise ValueError(
            f"no epsilon fits within delta={budget!r}."
        )  # pragma: no cover
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if total(mid) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return PrivacyBound((k - 2 * lo) * epsilon, total(lo), method=method)


def tightest_composition(
    epsilon: float, delta: float, k: int, delta_prime: float
) -> PrivacyBound:
    """The smallest epsilon of basic, advanced and optimal composition, each spending
    at most ``k * delta + delta_prime``.

    Examples
    --------
    >>> tightest_composition(1.0, 0.0, 500, 1e-5).method
    'optimal (Kairouz et al. 2017)'
    """
    candidates = [
        basic_composition(epsilon, delta, k),
        advanced_composition(epsilon, delta, k, delta_prime),
        optimal_composition(epsilon, delta, k, delta_prime),
    ]
    return min(candidates, key=lambda c: (c.epsilon, c.delta))
