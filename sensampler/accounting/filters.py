r"""Privacy filters: adaptive budgets that halt before they are exceeded.

Rogers, Roth, Ullman & Vadhan (2016), "Privacy Odometers and Filters:
Pay-as-you-Go Composition", NeurIPS.
"""

from __future__ import annotations

import math
from fractions import Fraction

from .._lib.domains import DELTA_ADVANCED, FILTER_RULES, documented
from .._math.search import largest_int
from ..privacy import PrivacyBound
from ._filter_base import BudgetFilter, Remaining, as_float, within
from ._ledger import ExceededPrivacyBudgetError

__all__ = ["PrivacyFilter", "advanced_filter_bound"]


def _drift(e: float) -> float:
    r""":math:`\epsilon(e^\epsilon - 1)/2`, ``inf`` where it overflows a double."""
    return math.inf if e > 700.0 else e * math.expm1(e) / 2.0


def _k_from_sums(sum_sq, sum_drift, epsilon_budget, delta_budget):
    """Rogers et al.'s K, with no overflow: sqrt((S + H) X) = sqrt(S + H) sqrt(X)
    and sqrt(S + H) = hypot(sqrt(S), sqrt(H)), sqrt(H) = epsilon_g / sqrt(28.04
    log(1/delta_g)); ``inf`` when the sums themselves are."""
    if math.isinf(sum_sq) or math.isinf(sum_drift):
        return math.inf
    log_inv = -math.log(delta_budget)
    root_h = epsilon_budget / math.sqrt(28.04 * log_inv)
    # S / H, never overflowing H; x * x is inf where x ** 2 would raise; a budget
    # so small that sqrt(H) underflows to 0 admits only spends of 0
    x = math.sqrt(sum_sq) / root_h if root_h > 0 else (math.inf if sum_sq else 0.0)
    ratio = x * x
    return sum_drift + math.hypot(math.sqrt(sum_sq), root_h) * math.sqrt(
        (2.0 + math.log1p(ratio)) * (math.log(2.0) + log_inv)
    )


@documented
def advanced_filter_bound(
    epsilons, epsilon_budget: float, delta_budget: float
) -> float:
    r"""The quantity K that the advanced filter compares with the budget.

    Rogers et al. (2016), Thm. 5.1, for :math:`\delta_g \in (0, 1/e)`:

    .. math:: K = \sum_j \epsilon_j \frac{e^{\epsilon_j} - 1}{2}
              + \sqrt{\Big(\sum_i \epsilon_i^2 + H\Big)
                \Big(2 + \ln\big(\tfrac{1}{H}\textstyle\sum_i \epsilon_i^2 + 1\big)\Big)
                \ln(2/\delta_g)},
       \qquad H = \frac{\epsilon_g^2}{28.04\,\ln(1/\delta_g)}.

    (One teaching text writes the first term of its homogeneous form as
    :math:`k\epsilon^2(e^\epsilon - 1)/2`; it is :math:`k\epsilon(e^\epsilon - 1)/2`.)

    Parameters
    ----------
    epsilons : sequence of float
        The epsilons spent so far, each ``>= 0``.
    epsilon_budget : float
        The filter's :math:`\epsilon_g`, ``> 0``.
    delta_budget : float
        The filter's :math:`\delta_g`, ``{DELTA_ADVANCED:delta_budget}``.

    Returns
    -------
    float
        K; the filter admits the spends while ``K <= epsilon_budget``.
    """
    eps = list(epsilons)
    return _k_from_sums(
        math.fsum(e * e for e in eps),
        math.fsum(_drift(e) for e in eps),
        epsilon_budget,
        delta_budget,
    )


class _Totals:
    """Running sums of a filter's spends.

    Epsilons and deltas are summed exactly (as fractions of the values given);
    the squares and drifts that the advanced rule needs, in floating point.
    """

    __slots__ = ("count", "eps", "sq", "drift", "delta")

    def __init__(self, count=0, eps=Fraction(0), sq=0.0, drift=0.0, delta=Fraction(0)):
        self.count, self.eps, self.sq, self.drift, self.delta = (
            count,
            eps,
            sq,
            drift,
            delta,
        )

    def plus(self, epsilon: Fraction, delta: Fraction, times: int = 1) -> _Totals:
        e = float(epsilon)
        return _Totals(
            self.count + times,
            self.eps + times * epsilon,
            self.sq + times * e * e,  # inf on overflow, never an error
            self.drift + times * _drift(e),
            self.delta + times * delta,
        )


@documented
class PrivacyFilter(BudgetFilter):
    r"""A budget (epsilon, delta) that adaptively chosen spends may not exceed.

    Parameters
    ----------
    epsilon : float
        Budget epsilon_g, ``> 0``.
    delta : float
        Budget delta_g, ``{DELTA_RELEASE:delta}``.
    rule : {"auto", "basic", "advanced"}, default "auto"
        ``"basic"``: halt when :math:`\sum\delta_i > \delta_g` or
        :math:`\sum\epsilon_i > \epsilon_g` (Rogers et al. 2016, Thm. 3.6).
        ``"advanced"``: halt when :math:`\sum\delta_i > \delta_g/2` or
        :math:`K > \epsilon_g` (Thm. 5.1; needs :math:`0 < \delta_g < 1/e`).
        ``"auto"``: at the first spend, take whichever of the two rules allows
        more repetitions of that spend, and keep it.
    gamma : float, optional
        Budget for the random-DP failure probability of sampled sensitivities
        (``None``: tracked, not limited).

    Notes
    -----
    *What is reported.* :attr:`statistic` is the quantity the rule compares
    with epsilon_g: :math:`\sum\epsilon_i` (basic) or Rogers et al.'s K
    (advanced). :attr:`spent` is the guarantee that holds: under the basic rule
    :math:`(\sum\epsilon_i, \sum\delta_i)`; under the advanced rule, once
    anything was spent, only the filter's own :math:`(\epsilon_g, \delta_g)`:
    Thm. 5.1 proves nothing of the form (K, ...) — K is a halting statistic,
    not a privacy parameter.

    *Budget arithmetic.* Sums of epsilons and deltas are kept exactly, as
    fractions of the values given (floats, numpy scalars, ``Fraction`` and
    ``Decimal`` alike), and a spend is accepted when the exact sum is at most
    the budget times :math:`1 + 2^{-51}`. Hence splitting a budget evenly
    works: ten spends of 0.1 fit 1.0, and three fit 0.3. No more is ever
    spent than rounding of the inputs explains: if the spends and the budget
    are floats each within a relative :math:`u = 2^{-53}` of reals
    :math:`x_i` and :math:`B` (the decimal values typed, say) with
    :math:`\sum x_i \le B`, then :math:`\sum \mathrm{fl}(x_i) \le
    (1+u)\sum x_i \le (1+u)B \le \frac{1+u}{1-u}\mathrm{fl}(B) <
    (1 + 2^{-51})\mathrm{fl}(B)`, so they are accepted; and whatever is
    accepted exceeds the budget by less than :math:`2^{-51} \approx 4.4\times
    10^{-16}` of it, a discrepancy that rounding each input to a double can
    produce. The advanced rule's K is evaluated in floating point (relative
    error far below this slack).

    *Why "auto" is valid.* A filter is valid when every adaptively chosen
    sequence of mechanisms it lets through is (epsilon_g, delta_g)-DP. The
    rule "auto" settles on one valid filter when the first spend is asked for,
    before any output of the composition exists; its choice is a function of
    the analyst's first request only, so it is the same as an analyst who had
    named that filter in advance, and each named filter is valid on its own.
    It never switches afterwards.

    Spends are recorded under a lock, so many threads may spend at once
    without ever exceeding the budget. A refused spend records nothing.

    Random DP: each spend's gamma is added once per sampling run (releases
    calibrated by one estimate fail together), and once per release when the
    run is anonymous; see :attr:`gamma`.

    Examples
    --------
    >>> f = PrivacyFilter(1.0, 0.0, rule="basic")
    >>> for _ in range(10):
    ...     f.spend(0.1)
    >>> f.spent
    PrivacyBound(epsilon=1.0, delta=0.0, gamma=0.0, method='basic composition')
    >>> f.spend(0.1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sensampler...ExceededPrivacyBudgetError: spending epsilon=0.1, ... epsilon 1.1 > 1.
    """

    def __init__(
        self,
        epsilon: float,
        delta: float = 0.0,
        rule: str = "auto",
        gamma: float | None = None,
    ):
        super().__init__(epsilon, delta, gamma)
        self.rule = FILTER_RULES.check("rule", rule)
        if rule == "advanced" and not DELTA_ADVANCED.contains(self.delta_budget):
            raise ValueError(
                f"the advanced filter needs {DELTA_ADVANCED.text('delta')} (Rogers "
                f"et al. 2016, Thm. 5.1), got delta={delta!r}."
            )
        self._active = None if rule == "auto" else rule
        self._totals = _Totals()

    # ------------------------------------------------------------------ rules
    def _allows(self, rule, totals):
        """(ok, reason) for a rule on the totals of a whole sequence of spends."""
        if rule == "basic":
            if not within(totals.delta, self.delta_budget):
                return (
                    False,
                    f"delta {as_float(totals.delta):.6g} > {self.delta_budget:.6g}",
                )
            if not within(totals.eps, self.epsilon_budget):
                return False, (
                    f"epsilon {as_float(totals.eps):.6g} > {self.epsilon_budget:.6g}"
                )
            return True, ""
        if not within(totals.delta, Fraction(self.delta_budget) / 2):
            return False, (
                f"delta {as_float(totals.delta):.6g} > delta/2 = "
                f"{self.delta_budget / 2:.6g}"
            )
        k = _k_from_sums(
            totals.sq, totals.drift, self.epsilon_budget, self.delta_budget
        )
        if k > self.epsilon_budget:
            return False, f"K = {k:.6g} > {self.epsilon_budget:.6g}"
        return True, ""

    def _repetitions(self, rule, epsilon, delta, cap=10**9):
        """How many spends of (epsilon, delta) a fresh filter with ``rule`` allows."""

        def ok(times):
            return self._allows(rule, _Totals().plus(epsilon, delta, times))[0]

        return largest_int(ok, 0, cap)  # no spend at all is always allowed

    def _choose_rule(self, epsilon, delta):
        if not DELTA_ADVANCED.contains(self.delta_budget):
            return "basic"
        basic = self._repetitions("basic", epsilon, delta)
        advanced = self._repetitions("advanced", epsilon, delta)
        return "advanced" if advanced > basic else "basic"

    # ------------------------------------------------------------------ spend
    def _amount(self, statement):
        if statement.epsilon is None:
            raise ValueError(
                f"{statement.mechanism} states Rényi/zCDP privacy, not "
                "(epsilon, delta); use RenyiAccountant or ZCDPAccountant."
            )
        return Fraction(statement.epsilon), Fraction(statement.delta)

    def _number_amount(self, epsilon, delta):
        return epsilon, delta

    def _add(self, amount, count):
        eps, dlt = amount
        rule = self._active or self._choose_rule(eps, dlt)
        totals = self._totals.plus(eps, dlt, count)
        ok, reason = self._allows(rule, totals)
        if not ok:
            what = f"epsilon={float(eps):.6g}, delta={float(dlt):.6g}"
            raise ExceededPrivacyBudgetError(
                f"spending {what}{f' {count} times' if count > 1 else ''} would "
                f"exceed the {rule} filter's budget (epsilon="
                f"{self.epsilon_budget:.6g}, delta={self.delta_budget:.6g}): {reason}."
            )
        self._active = rule
        self._totals = totals

    # --------------------------------------------------------------- reports
    @property
    def active_rule(self) -> str | None:
        """The rule in force (``None`` for "auto" before the first spend)."""
        return self._active

    @property
    def statistic(self) -> float:
        r"""The halting statistic the rule compares with epsilon_g:
        :math:`\sum\epsilon_i` (basic) or K (advanced, :func:`advanced_filter_bound`)."""
        with self._lock:
            t = self._totals
            if self._active == "advanced" and t.count:
                return _k_from_sums(
                    t.sq, t.drift, self.epsilon_budget, self.delta_budget
                )
            return as_float(t.eps)

    @property
    def spent(self) -> PrivacyBound:
        """The guarantee that holds for what was spent (see the notes).

        Basic rule: :math:`(\\sum\\epsilon_i, \\sum\\delta_i)`. Advanced rule,
        once anything was spent: the budget (epsilon_g, delta_g) itself
        (Rogers et al. 2016, Thm. 5.1).
        """
        with self._lock:
            t = self._totals
            if self._active == "advanced" and t.count:
                return self._budget_bound(
                    "advanced filter (Rogers et al. 2016, Thm. 5.1)"
                )
            return PrivacyBound(
                as_float(t.eps), float(t.delta), self._gamma.total, "basic composition"
            )

    @property
    def remaining(self) -> PrivacyBound:
        """What is left before the filter halts: epsilon_g minus :attr:`statistic`,
        the delta cap minus the deltas spent, and the gamma budget left
        (``inf`` without one)."""
        advanced = self._active == "advanced"
        delta_cap = self.delta_budget / 2 if advanced else self.delta_budget
        with self._lock:
            spent_delta = float(self._totals.delta)
            gamma_left = self._gamma_left()
        return Remaining(
            max(0.0, self.epsilon_budget - self.statistic),
            max(0.0, delta_cap - spent_delta),
            gamma_left,
            f"left before the {self._active or 'auto'} filter halts",
        )

    def _rule(self):
        return f"rule={self._active or self.rule!r}, "
