r"""Optimal composition of differentially private mechanisms: exact and heterogeneous.

Kairouz, Oh & Viswanath (2017) show that every :math:`(\epsilon, \delta)`-DP
mechanism is dominated by one pair of four-point distributions (Thm. 2.1 and the
proof of Thm. 3.3): with :math:`p = e^\epsilon / (1 + e^\epsilon)`,

.. math:: \tilde P = (\delta,\ (1-\delta)p,\ (1-\delta)(1-p),\ 0), \qquad
          \tilde Q = (0,\ (1-\delta)(1-p),\ (1-\delta)p,\ \delta),

and that the k-fold adaptive composition of such mechanisms is dominated by the
k-fold product :math:`(\tilde P^k, \tilde Q^k)`, which is itself the composition
of k of them, so no better bound holds for the whole class (Thm. 3.3). Hence the
smallest :math:`\delta'` for which the composition is :math:`(\epsilon',
\delta')`-DP is the hockey-stick divergence of that product,
:math:`\delta'(\epsilon') = E_{\tilde P^k}[(1 - e^{\epsilon' - L})_+]`, L the
privacy loss. With probability :math:`1 - (1-\delta)^k` some coordinate of
:math:`\tilde P^k` hits its first atom, where :math:`L = +\infty`; otherwise the
coordinates are randomized-response pairs, each contributing :math:`\pm\epsilon`
to L, with :math:`-\epsilon` w.p. :math:`1-p = 1/(1+e^\epsilon)` independently.
If l of the k coordinates contribute :math:`-\epsilon`,
:math:`L = (k - 2l)\epsilon`, so

.. math:: \delta'(\epsilon') = 1 - (1-\delta)^k\,\bigl(1 - \delta_{RR}(\epsilon')\bigr),
          \qquad \delta_{RR}(\epsilon') = \sum_{l=0}^{k}
          \binom{k}{l} \frac{e^{(k-l)\epsilon}}{(1+e^\epsilon)^k}
          \bigl(1 - e^{\epsilon' - (k-2l)\epsilon}\bigr)_+ .

At :math:`\epsilon' = (k-2i)\epsilon` this is the :math:`\delta_i` of KOV's
Thm. 3.3; between those points it is the exact profile, which the discrete
points over-state by up to :math:`2\epsilon` in :math:`\epsilon'`. On the piece
where the terms :math:`l \le J` are active it reads :math:`A_J - e^{\epsilon'}
B_J` (:math:`A_J = \sum_{l \le J}` pmf, :math:`B_J = \sum_{l \le J}` pmf
:math:`\cdot e^{-(k-2l)\epsilon}`), so :math:`\delta' = ` target is solved in
closed form on its piece.

For different :math:`(\epsilon_l, \delta_l)` the exact value is #P-hard
(Murtagh & Vadhan 2016); KOV's Thm. 3.5 gives a closed-form upper bound
(:func:`heterogeneous_epsilon`).

References
----------
.. [1] P. Kairouz, S. Oh and P. Viswanath, "The Composition Theorem for
   Differential Privacy", IEEE Trans. Inf. Theory 63(6), 2017.
.. [2] J. Murtagh and S. Vadhan, "The Complexity of Computing the Optimal
   Composition of Differential Privacy", TCC 2016.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import special

from .._lib.domains import (
    DELTA_RELEASE,
    DELTA_STATED,
    DELTA_TARGET,
    EPSILON_POINT,
    documented,
)
from .._lib.validation import check_count
from .._math.search import largest_int, smallest_int, step_up

__all__ = [
    "MAX_EXACT_STEPS",
    "homogeneous_delta",
    "homogeneous_epsilon",
    "homogeneous_count",
    "heterogeneous_epsilon",
]


#: Most steps of the exact homogeneous composition: its law has k + 1 points
#: (about 2 seconds at 10^6; beyond, basic, advanced and the accountants' own
#: bounds remain).
MAX_EXACT_STEPS = 10**6


def _check_steps(k) -> int:
    k = check_count("k", k)
    if k > MAX_EXACT_STEPS:
        raise ValueError(
            f"k must be <= {MAX_EXACT_STEPS} for the exact optimal composition "
            f"(its law has k + 1 points), got k={k!r}; use advanced or "
            "heterogeneous composition."
        )
    return k


def _check_step(epsilon, delta):
    return EPSILON_POINT.check("epsilon", epsilon), DELTA_RELEASE.check("delta", delta)


def _rr_law(epsilon: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Log-pmf of l ~ Bin(k, 1/(1+e^eps)) and the privacy loss (k - 2l) eps.

    A loss beyond the largest float is +-inf, the direction it rounds to.
    """
    from scipy import stats

    l = np.arange(k + 1)
    with np.errstate(over="ignore"):
        loss = (k - 2 * l) * epsilon
    return stats.binom.logpmf(l, k, special.expit(-epsilon)), loss


def _pmf_error(k: int) -> float:
    """Relative error bound of the binomial pmf in floating point, k steps.

    scipy's log-pmf differs from a 40-digit mpmath value by up to about
    ``2.6e-15 k`` in absolute value (measured for k up to 10^6 and epsilon from
    0.001 to 3); four times that, plus 1e-12, bounds the relative error of
    every pmf term and hence of their sum.
    """
    return 1e-12 + 1e-14 * k


def _rr_delta(log_pmf, loss, epsilon_prime: float) -> float:
    """delta_RR(epsilon') as a sum of non-negative terms, raised by the bound
    on the pmf's round-off (:func:`_pmf_error`): never below the exact value."""
    active = loss > epsilon_prime
    terms = np.exp(log_pmf[active]) * -np.expm1(epsilon_prime - loss[active])
    return math.fsum(terms) * (1.0 + _pmf_error(loss.size - 1))


@documented
def homogeneous_delta(
    epsilon: float, delta: float, k: int, epsilon_prime: float
) -> float:
    r"""Smallest delta' for which k-fold composition of (epsilon, delta)-DP
    mechanisms is (epsilon', delta')-DP (Kairouz, Oh & Viswanath 2017, Thm. 3.3).

    Parameters
    ----------
    epsilon : float
        Per-step epsilon, ``>= 0``.
    delta : float
        Per-step delta, ``{DELTA_RELEASE:delta}``.
    k : int
        Number of (adaptively chosen) steps, ``>= 1``.
    epsilon_prime : float
        Total epsilon, ``>= 0``.

    Returns
    -------
    float
        :math:`1 - (1-\delta)^k (1 - \delta_{RR}(\epsilon'))` (module
        docstring), attained by the dominating pair; :math:`\delta_{RR}` is
        raised by the bound on its round-off, a relative :math:`10^{-12} +
        10^{-14} k`, so never below the exact value.

    Examples
    --------
    >>> round(homogeneous_delta(0.5, 0.0, 100, 31.17), 7)
    1e-05
    """
    epsilon, delta = _check_step(epsilon, delta)
    k = _check_steps(k)
    epsilon_prime = EPSILON_POINT.check("epsilon_prime", epsilon_prime)
    base = -math.expm1(k * math.log1p(-delta))  # 1 - (1 - delta)^k
    if epsilon_prime >= k * epsilon:
        return base
    rr = _rr_delta(*_rr_law(epsilon, k), epsilon_prime)
    return base + (1.0 - base) * rr


def _solve_rr(log_pmf, loss, target: float) -> float:
    """Smallest epsilon' >= 0 with delta_RR(epsilon') <= target (0 <= target)."""
    if _rr_delta(log_pmf, loss, 0.0) <= target:
        return 0.0
    # loss[j] = (k - 2j) eps falls with j and delta_RR(loss[j]) rises with j:
    # find the largest j with loss[j] >= 0 and delta_RR(loss[j]) <= target.
    # j = 0 qualifies: delta_RR(k eps) = 0.
    last = int(np.searchsorted(-loss, 0.0, side="right")) - 1  # loss[last] >= 0

    def above(i):
        return _rr_delta(log_pmf, loss, loss[i]) > target

    j = smallest_int(above, 0, last + 1) - 1
    # the solution lies in (max(0, loss[j + 1]), loss[j]]
    a = math.fsum(np.exp(log_pmf[: j + 1]))
    log_b = special.logsumexp(log_pmf[: j + 1] - loss[: j + 1])
    low = max(0.0, loss[j + 1]) if j + 1 < loss.size else 0.0
    inner = target / (1.0 + _pmf_error(loss.size - 1))  # what _rr_delta allows
    eps = min(loss[j], max(low, math.log(a - inner) - log_b))
    # rounding may leave delta_RR a hair above the target: step up (pessimistic),
    # at most to loss[j], where it holds
    return float(
        step_up(
            lambda e: _rr_delta(log_pmf, loss, e) <= target,
            eps,
            max(1e-15, abs(eps) * 1e-13),
            limit=loss[j],
        )
    )


def homogeneous_epsilon(
    epsilon: float, delta: float, k: int, target_delta: float
) -> float:
    r"""Exact optimal epsilon' of k-fold composition at a total delta'
    (Kairouz, Oh & Viswanath 2017, Thm. 3.3, solved between its points).

    Parameters
    ----------
    epsilon, delta, k
        As in :func:`homogeneous_delta`.
    target_delta : float
        Total delta' of the composition, ``0 <= target_delta <= 1``.

    Returns
    -------
    float
        The smallest :math:`\epsilon' \ge 0` with
        ``homogeneous_delta(epsilon, delta, k, epsilon') <= target_delta``
        (rounded up, never below the exact value); ``inf`` when
        :math:`1 - (1-\delta)^k` already exceeds ``target_delta``.

    Notes
    -----
    :math:`\delta'(\epsilon')` decreases continuously from
    :math:`\delta'(0)` to :math:`1 - (1-\delta)^k` at :math:`k\epsilon`; the
    target :math:`\delta_{RR} = (\delta' - b)/(1 - b)`, :math:`b = 1 -
    (1-\delta)^k`, is located between two breakpoints :math:`(k - 2l)\epsilon`
    by bisection and solved there in closed form (module docstring).

    Examples
    --------
    >>> round(homogeneous_epsilon(0.5, 0.0, 100, 1e-5), 2)
    31.17
    """
    epsilon, delta = _check_step(epsilon, delta)
    k = _check_steps(k)
    target_delta = DELTA_STATED.check("target_delta", target_delta)
    base = -math.expm1(k * math.log1p(-delta))
    if base > target_delta:
        return math.inf
    if epsilon == 0.0 or target_delta == 1.0:
        return 0.0
    target_rr = (target_delta - base) / (1.0 - base)
    return _solve_rr(*_rr_law(epsilon, k), target_rr)


def homogeneous_count(
    epsilon: float, delta: float, epsilon_budget: float, delta_budget: float
) -> int:
    """Most (epsilon, delta)-DP steps whose optimal composition fits the budget.

    The largest k with ``homogeneous_epsilon(epsilon, delta, k, delta_budget) <=
    epsilon_budget`` (the optimal epsilon' grows with k: the k-fold composition
    is a post-processing of the (k+1)-fold one). Non-adaptive in the sense that
    k is fixed in advance; the steps themselves may be chosen adaptively.

    At most :data:`MAX_EXACT_STEPS` (a count that fits, though more may).

    Examples
    --------
    >>> homogeneous_count(0.01, 0.0, 1.0, 1e-6)
    562
    """
    epsilon, delta = _check_step(epsilon, delta)
    epsilon_budget = EPSILON_POINT.check("epsilon_budget", epsilon_budget)
    delta_budget = DELTA_STATED.check("delta_budget", delta_budget)
    if epsilon == 0.0 and delta == 0.0:
        raise ValueError("epsilon and delta are both 0: every count fits the budget.")

    def fits(k):
        return homogeneous_epsilon(epsilon, delta, k, delta_budget) <= epsilon_budget

    if not fits(1):
        return 0
    return largest_int(fits, 1, MAX_EXACT_STEPS)  # counts beyond are not certified


def _sum_or_inf(values) -> float:
    """The exact sum of non-negative floats (``math.fsum``), ``inf`` if it overflows."""
    try:
        return math.fsum(values)
    except OverflowError:  # fsum's intermediate overflow: the sum exceeds a double
        return math.inf


@documented
def heterogeneous_epsilon(
    epsilons: Sequence[float], deltas: Sequence[float], delta_slack: float
) -> tuple[float, float]:
    r"""KOV's heterogeneous composition bound (Kairouz, Oh & Viswanath 2017, Thm. 3.5).

    The adaptive composition of :math:`(\epsilon_l, \delta_l)`-DP mechanisms,
    :math:`l = 1..k`, is :math:`(\tilde\epsilon, 1 - (1-\tilde\delta)
    \prod_l (1-\delta_l))`-DP for every :math:`\tilde\delta \in (0, 1)`, with

    .. math:: \tilde\epsilon = \min\Bigl\{\sum_l \epsilon_l,\;
              \mu + \sqrt{2 \textstyle\sum_l \epsilon_l^2
              \log\bigl(e + \sqrt{\sum_l \epsilon_l^2} / \tilde\delta\bigr)},\;
              \mu + \sqrt{2 \textstyle\sum_l \epsilon_l^2 \log(1/\tilde\delta)}
              \Bigr\}, \qquad
              \mu = \sum_l \frac{(e^{\epsilon_l} - 1)\,\epsilon_l}{e^{\epsilon_l} + 1}.

    Parameters
    ----------
    epsilons, deltas : sequence of float
        The steps' parameters, of equal length ``>= 1``.
    delta_slack : float
        :math:`\tilde\delta`, ``{DELTA_TARGET:delta_slack}``.

    Returns
    -------
    (epsilon, delta) : tuple of float
        :math:`\tilde\epsilon` and the total delta.

    Notes
    -----
    :math:`\mu` is the mean of the privacy loss of the randomized-response pairs
    dominating the steps (:math:`\epsilon_l \tanh(\epsilon_l/2)`); the two square
    roots are concentration bounds on its sum of bounded, independent terms (an
    Azuma-Hoeffding bound and a refinement for small :math:`\sum \epsilon_l^2`),
    whose tails at :math:`\tilde\epsilon` bound the hockey-stick divergence of the
    dominating product (KOV, proof of Thm. 3.5).

    Examples
    --------
    >>> eps, delta = heterogeneous_epsilon([0.1] * 100, [0.0] * 100, 1e-5)
    >>> round(eps, 3), delta
    (5.298, 1e-05)
    """
    eps = np.asarray([EPSILON_POINT.check("epsilons", e) for e in epsilons])
    dls = np.asarray([DELTA_RELEASE.check("deltas", d) for d in deltas])
    if eps.size == 0 or eps.size != dls.size:
        raise ValueError(
            "epsilons and deltas must be non-empty and of equal length, got "
            f"{eps.size} and {dls.size}."
        )
    delta_slack = DELTA_TARGET.check("delta_slack", delta_slack)
    # A sum of squares beyond the largest double is inf, and so are the two
    # concentration bounds: they exceed sum(eps) there (mu >= sum(eps) - k), and
    # the minimum is sum(eps) itself (inf only if that overflows too).
    with np.errstate(over="ignore"):
        squares = eps**2
    sum_sq = _sum_or_inf(squares)
    mu = _sum_or_inf(eps * np.tanh(eps / 2.0))  # (e^e - 1) e / (e^e + 1)
    epsilon = min(
        _sum_or_inf(eps),
        mu
        + math.sqrt(2.0 * sum_sq * math.log(math.e + math.sqrt(sum_sq) / delta_slack)),
        mu + math.sqrt(2.0 * sum_sq * math.log(1.0 / delta_slack)),
    )
    # 1 - (1 - slack) prod (1 - delta_l), in log space
    log_keep = math.log1p(-delta_slack) + math.fsum(np.log1p(-dls))
    return epsilon, -math.expm1(log_keep)
