r"""Rules of fully adaptive privacy filters, as pure functions.

A privacy filter watches an interaction in which each step's mechanism *and*
its privacy parameters may depend on every earlier output, and refuses a step
whose admission could break a budget fixed in advance (Rogers, Roth, Ullman &
Vadhan 2016). Refusing a step and going on is the same as the analyst choosing
a null mechanism (cost 0) for it, a choice that may depend on the past, so each
rule below may keep admitting later, smaller steps after a refusal.

Two rules sharper than Rogers et al.'s Thm. 5.1 (``advanced_filter_bound``):

* :func:`renyi_filter_budget` / :func:`renyi_filter_allows` — the Rényi filter
  of Feldman & Zrnic (2021);
* :func:`whitehouse_filter_statistic` — the advanced-composition filter of
  Whitehouse, Ramdas, Rogers & Wu (2023), for pure epsilon-DP steps.

References
----------
.. [1] V. Feldman and T. Zrnic, "Individual Privacy Accounting via a Rényi
   Filter", NeurIPS 2021 (arXiv:2008.11193).
.. [2] J. Whitehouse, A. Ramdas, R. Rogers and Z. S. Wu, "Fully-Adaptive
   Composition in Differential Privacy", ICML 2023 (arXiv:2203.05481).
.. [3] I. Mironov, "Rényi Differential Privacy", CSF 2017.
.. [4] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
   Differential Privacy", NeurIPS 2020, Prop. 12.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from .._lib.domains import (
    DELTA_TARGET,
    DP_CONVERSIONS,
    EPSILON,
    EPSILON_POINT,
    ORDER,
    documented,
)
from .._lib.validation import check_real
from .renyi import rdp_to_dp

__all__ = [
    "renyi_filter_budget",
    "renyi_filter_allows",
    "renyi_filter_count",
    "whitehouse_statistic",
    "whitehouse_filter_statistic",
    "whitehouse_filter_count",
]


def _check_budget(epsilon, delta):
    return EPSILON.check("epsilon", epsilon), DELTA_TARGET.check("delta", delta)


# ------------------------------------------------------------------------- Rényi
@documented
def renyi_filter_budget(
    epsilon: float, delta: float, alpha: float, conversion: str = "classic"
) -> float:
    r"""Rényi budget :math:`B(\alpha)` of a filter certifying (epsilon, delta)-DP.

    Feldman & Zrnic (2021), Thm. 3.1: let each step t be a mechanism chosen
    from the earlier outputs whose Rényi divergence of order :math:`\alpha`
    between neighbours is at most :math:`\rho_t`, itself a function of the
    earlier outputs. If :math:`\sum_t \rho_t \le B` holds with probability one,
    the whole interaction is :math:`(\alpha, B)`-RDP: the Rényi divergence of
    order :math:`\alpha` between its output laws on any two neighbours is at
    most B. The filter that admits a step only if the running sum stays within B
    enforces the condition (their Alg. 1, with one budget for all). The result
    is an ordinary Rényi bound between two distributions, so any conversion of
    such a bound to (epsilon, delta) applies:

    ``"classic"`` (Mironov 2017, Prop. 3; the one the paper uses)
        :math:`\epsilon = B + \log(1/\delta)/(\alpha - 1)`, so
        :math:`B = \epsilon - \log(1/\delta)/(\alpha - 1)`.
    ``"improved"`` (Canonne, Kamath & Steinke 2020, Prop. 12)
        :math:`\epsilon = B + \log(1 - 1/\alpha) - (\log\delta + \log\alpha)
        /(\alpha - 1)`, inverted likewise.

    The order :math:`\alpha` is fixed before the interaction: the theorem is for
    one order. Several filters may run side by side and a step be admitted only
    if every one admits it (:func:`renyi_filter_allows` with several orders):
    each order's sum then stays within its budget, so each certifies
    (epsilon, delta) — but the intersection never admits more than its best
    member. Admitting a step when *some* order admits it is not covered by the
    theorem and is not offered.

    Parameters
    ----------
    epsilon : float
        Budget epsilon, ``> 0``.
    delta : float
        Budget delta, ``{DELTA_TARGET:delta}``.
    alpha : float
        Rényi order, ``> 1``.
    conversion : {"classic", "improved"}, default "classic"

    Returns
    -------
    float
        B; zero or negative means the filter admits nothing at this order.

    Examples
    --------
    >>> round(renyi_filter_budget(1.0, 1e-6, 30.0), 4)  # 1 - log(1e6)/29
    0.5236
    """
    epsilon, delta = _check_budget(epsilon, delta)
    alpha = ORDER.check("alpha", alpha)
    DP_CONVERSIONS.check("conversion", conversion)
    # both conversions read epsilon = B + c(alpha, delta): c is the conversion of
    # B = 0 (rdp_to_dp clips it at 0, which only lowers B)
    c, _ = rdp_to_dp([0.0], delta, orders=[alpha], method=conversion)
    return epsilon - c


def renyi_filter_allows(
    spent: Sequence[float] | float,
    cost: Sequence[float] | float,
    budgets: Sequence[float] | float,
) -> bool:
    r"""Whether a Rényi filter admits a step (Feldman & Zrnic 2021, Alg. 1).

    Parameters
    ----------
    spent, cost, budgets : float or sequence of float
        At one order (or elementwise at several orders fixed in advance): the
        Rényi divergences of the steps admitted so far, summed; that of the next
        step; the budgets :math:`B(\alpha)` (:func:`renyi_filter_budget`).

    Returns
    -------
    bool
        ``spent + cost <= budget`` at every order (the intersection rule; see
        :func:`renyi_filter_budget` for why it is the only one offered).
    """
    spent, cost, budgets = (
        np.atleast_1d(np.asarray(v, dtype=float)) for v in (spent, cost, budgets)
    )
    if np.any(cost < 0) or np.any(spent < 0):
        raise ValueError(
            f"spent and cost must be >= 0, got spent={spent!r}, cost={cost!r}."
        )
    return bool(np.all(spent + cost <= budgets))


def renyi_filter_count(step_rdp: float, budget: float) -> int:
    """How many identical steps of Rényi cost ``step_rdp`` a filter with ``budget`` admits.

    The largest n with ``n * step_rdp <= budget`` (0 when the budget is not
    positive).

    Examples
    --------
    >>> renyi_filter_count(0.01, 0.5236)
    52
    """
    step_rdp = check_real("step_rdp", step_rdp, low=0.0, low_strict=True)
    budget = check_real("budget", budget)
    if budget <= 0:
        return 0
    quotient = budget / step_rdp
    if not quotient < 2**52:  # n + 1 == n in float there: the exact rational floor
        return Fraction(budget) // Fraction(step_rdp)
    n = math.floor(quotient)
    while n * step_rdp > budget:  # rounding of the division
        n -= 1
    while (n + 1) * step_rdp <= budget:
        n += 1
    return n


# -------------------------------------------------------------------- Whitehouse
def whitehouse_statistic(sum_sq: float, delta: float) -> float:
    r""":math:`\sqrt{2\log(1/\delta) V} + V/2` for :math:`V = \sum_m \epsilon_m^2`
    (see :func:`whitehouse_filter_statistic`); ``-log(delta)``, finite for every
    delta > 0."""
    return math.sqrt(2.0 * -math.log(delta) * sum_sq) + sum_sq / 2.0


@documented
def whitehouse_filter_statistic(epsilons: Sequence[float], delta: float) -> float:
    r"""The quantity the Whitehouse et al. (2023) filter compares with its epsilon.

    .. math:: W = \sqrt{2 \log(1/\delta') \textstyle\sum_m \epsilon_m^2}
              + \tfrac12 \textstyle\sum_m \epsilon_m^2 .

    The stopping rule of the advanced-composition filter of Whitehouse,
    Ramdas, Rogers & Wu (2023): a step of (conditional) :math:`\epsilon_m`-DP
    is admitted only if W over the admitted steps and this one stays
    :math:`\le \epsilon`; the interaction is then
    :math:`(\epsilon, \delta')`-DP. It is the advanced composition bound,
    constants included, for adaptively chosen parameters. (The paper also
    admits steps with :math:`\delta_m > 0` against a second share
    :math:`\delta''` of the budget; that extension is not used here.)

    *Proof for pure steps.* Fix neighbours
    and let :math:`L_m` be the privacy loss of step m,
    :math:`\mathcal F_{m-1}` the earlier outputs, :math:`\epsilon_m` a function
    of them. Given :math:`\mathcal F_{m-1}`, step m is :math:`\epsilon_m`-DP, so
    :math:`|L_m| \le \epsilon_m` and :math:`\mu_m := E[L_m | \mathcal F_{m-1}]
    = \mathrm{KL} \le \epsilon_m^2/2` (Bun & Steinke 2016, Prop. 3.3); by
    Hoeffding's lemma (range :math:`2\epsilon_m`),
    :math:`E[e^{\lambda(L_m - \mu_m)} | \mathcal F_{m-1}] \le
    e^{\lambda^2 \epsilon_m^2 / 2}`. Hence, with :math:`V_n = \sum_{m \le n}
    \epsilon_m^2`, :math:`Z_n = \exp(\lambda \sum_{m \le n}(L_m - \mu_m) -
    \lambda^2 V_n / 2)` is a non-negative supermartingale with :math:`Z_0 = 1`
    for every fixed :math:`\lambda > 0`. The filter keeps :math:`V_N \le V^*`,
    the root of :math:`\sqrt{2 \log(1/\delta') V} + V/2 = \epsilon`. Take
    :math:`\lambda = \sqrt{2 \log(1/\delta') / V^*}`. On
    :math:`\{\sum_{m \le N} L_m \ge \epsilon\}`, since
    :math:`\sum \mu_m \le V_N / 2`,

    .. math:: \log Z_N \ge \lambda(\epsilon - V_N/2) - \lambda^2 V_N / 2
              \ge \lambda(\epsilon - V^*/2) - \lambda^2 V^*/2
              = 2\log(1/\delta') - \log(1/\delta') = \log(1/\delta'),

    the middle step because the expression falls with :math:`V_N \le V^*`. By
    Ville's inequality :math:`P[\sup_n Z_n \ge 1/\delta'] \le \delta'`, so the
    total loss exceeds :math:`\epsilon` with probability at most :math:`\delta'`,
    which gives :math:`(\epsilon, \delta')`-DP (:math:`P(E) - e^\epsilon Q(E)
    \le P[L > \epsilon]`). :math:`\square`

    Parameters
    ----------
    epsilons : sequence of float
        The steps' epsilons, each ``>= 0``.
    delta : float
        :math:`\delta'`, ``{DELTA_TARGET:delta}``.

    Returns
    -------
    float
        W.

    Examples
    --------
    >>> round(whitehouse_filter_statistic([0.01] * 349, 1e-6), 5)
    0.99945
    """
    delta = DELTA_TARGET.check("delta", delta)
    sum_sq = math.fsum(EPSILON_POINT.check("epsilons", e) ** 2 for e in epsilons)
    return whitehouse_statistic(sum_sq, delta)


def whitehouse_filter_count(
    epsilon: float, epsilon_budget: float, delta_budget: float
) -> int:
    r"""How many :math:`\epsilon`-DP steps the Whitehouse et al. filter admits.

    The largest n with :math:`\sqrt{2 \log(1/\delta) n \epsilon^2} +
    n\epsilon^2/2 \le \epsilon_{\mathrm{budget}}` (pure steps, all of the
    budget's delta to :math:`\delta'`).

    Examples
    --------
    >>> whitehouse_filter_count(0.01, 1.0, 1e-6)
    349
    """
    epsilon = EPSILON.check("epsilon", epsilon)
    epsilon_budget, delta_budget = _check_budget(epsilon_budget, delta_budget)
    log_inv = -math.log(delta_budget)

    def fits(n):
        return (
            whitehouse_statistic(n * epsilon * epsilon, delta_budget) <= epsilon_budget
        )

    # V* solves sqrt(2 log(1/delta) V) + V/2 = budget: sqrt(V) = -a + sqrt(a^2 + 2 b)
    a = math.sqrt(2.0 * log_inv)
    root = -a + math.sqrt(a * a + 2.0 * epsilon_budget)
    n = math.floor(root * root / (epsilon * epsilon))
    while n > 0 and not fits(n):
        n -= 1
    while fits(n + 1):
        n += 1
    return n
