r"""Privacy filters: adaptive budgets that halt before they are exceeded.

Rogers, Roth, Ullman & Vadhan (2016), "Privacy Odometers and Filters:
Pay-as-you-Go Composition", NeurIPS.
"""

from __future__ import annotations

import math
import threading
from fractions import Fraction

from .._validation import check_choice, check_probability, check_real
from ._ledger import (
    ExceededPrivacyBudgetError,
    GammaLedger,
    PrivacySpend,
    read_guarantee,
)

__all__ = ["PrivacyFilter", "advanced_filter_bound"]


def _k_from_sums(sum_sq, sum_drift, epsilon_budget, delta_budget):
    h = epsilon_budget**2 / (28.04 * math.log(1.0 / delta_budget))
    return sum_drift + math.sqrt(
        (sum_sq + h) * (2.0 + math.log(sum_sq / h + 1.0)) * math.log(2.0 / delta_budget)
    )


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
    """
    eps = list(epsilons)
    return _k_from_sums(
        math.fsum(e * e for e in eps),
        math.fsum(e * math.expm1(e) / 2.0 for e in eps),
        epsilon_budget,
        delta_budget,
    )


class _Totals:
    """Running sums of a filter's spends.

    The epsilons and deltas are summed exactly (as fractions of the floats given),
    so the basic rule compares the true sum with the budget: 100 spends of 0.002
    fit a budget of 0.2, with no rounding either way.
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

    def plus(self, epsilon, delta, times=1):
        return _Totals(
            self.count + times,
            self.eps + times * Fraction(epsilon),
            self.sq + times * epsilon * epsilon,
            self.drift + times * epsilon * math.expm1(epsilon) / 2.0,
            self.delta + times * Fraction(delta),
        )


class PrivacyFilter:
    r"""A budget (epsilon, delta) that adaptively chosen spends may not exceed.

    Parameters
    ----------
    epsilon : float
        Budget epsilon_g, ``> 0``.
    delta : float
        Budget delta_g, ``0 <= delta < 1``.
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
    *Why "auto" is valid.* A filter is valid when every adaptively chosen
    sequence of mechanisms it lets through is (epsilon_g, delta_g)-DP. The
    rule "auto" settles on one valid filter when the first spend is asked for,
    before any output of the composition exists; its choice is a function of
    the analyst's first request only, so it is the same as an analyst who had
    named that filter in advance, and each named filter is valid on its own.
    It never switches afterwards: a rule that continued while *either* test
    passed would need a proof of its own (a union of the two tests' failure
    events), which this library does not claim.

    Spends are recorded under a lock, so many threads may spend at once
    without ever exceeding the budget. A refused spend records nothing.

    Random DP: each spend's gamma is added once per sampling run (releases
    calibrated by one estimate fail together); see :attr:`spent`.

    Examples
    --------
    >>> f = PrivacyFilter(1.0, 0.0, rule="basic")
    >>> f.spend(0.4); f.spend(0.4)
    >>> f.spend(0.4)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sensampler...ExceededPrivacyBudgetError: spending epsilon=0.4, ... epsilon 1.2 > 1.
    """

    def __init__(
        self,
        epsilon: float,
        delta: float = 0.0,
        rule: str = "auto",
        gamma: float | None = None,
    ):
        self.epsilon = check_real("epsilon", epsilon, low=0.0, low_strict=True)
        self.delta = check_real("delta", delta, low=0.0, high=1.0, high_strict=True)
        self.rule = check_choice("rule", rule, ("auto", "basic", "advanced"))
        if rule == "advanced" and not 0.0 < self.delta < 1.0 / math.e:
            raise ValueError(
                "the advanced filter needs 0 < delta < 1/e (Rogers et al. "
                f"2016, Thm. 5.1), got delta={delta!r}."
            )
        self.gamma_budget = None if gamma is None else check_probability("gamma", gamma)
        self._active = None if rule == "auto" else rule
        self._totals = _Totals()
        self._gamma = GammaLedger()
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ rules
    def _allows(self, rule, totals):
        """(ok, reason) for a rule on the totals of a whole sequence of spends."""
        if rule == "basic":
            if totals.delta > Fraction(self.delta):
                return False, f"delta {float(totals.delta):.6g} > {self.delta:.6g}"
            if totals.eps > Fraction(self.epsilon):
                return False, f"epsilon {float(totals.eps):.6g} > {self.epsilon:.6g}"
            return True, ""
        if totals.delta > Fraction(self.delta) / 2:
            return False, (
                f"delta {float(totals.delta):.6g} > delta/2 = {self.delta / 2:.6g}"
            )
        k = _k_from_sums(totals.sq, totals.drift, self.epsilon, self.delta)
        if k > self.epsilon:
            return False, f"K = {k:.6g} > {self.epsilon:.6g}"
        return True, ""

    def _repetitions(self, rule, epsilon, delta, cap=10**9):
        """How many spends of (epsilon, delta) a fresh filter with ``rule`` allows."""

        def ok(times):
            return self._allows(rule, _Totals().plus(epsilon, delta, times))[0]

        lo, hi = 0, 1
        while hi <= cap and ok(hi):
            lo, hi = hi, hi * 2
        hi = min(hi, cap + 1)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if ok(mid) else (lo, mid)
        return lo

    def _choose_rule(self, epsilon, delta):
        if not 0.0 < self.delta < 1.0 / math.e:
            return "basic"
        basic = self._repetitions("basic", epsilon, delta)
        advanced = self._repetitions("advanced", epsilon, delta)
        return "advanced" if advanced > basic else "basic"

    # ------------------------------------------------------------------ spend
    def spend(self, epsilon, delta: float = 0.0) -> None:
        """Record a spend, or raise :class:`ExceededPrivacyBudgetError` and record nothing.

        Parameters
        ----------
        epsilon : float or mechanism or PrivacyGuarantee
            The epsilon spent, or a mechanism whose privacy statement is read
            (its epsilon, delta and gamma).
        delta : float
            With a number ``epsilon`` only.
        """
        if isinstance(epsilon, (int, float)) and not isinstance(epsilon, bool):
            eps = check_real("epsilon", epsilon, low=0.0)
            dlt = check_real("delta", delta, low=0.0, high=1.0, high_strict=True)
            guarantee = None
        else:
            guarantee = read_guarantee(epsilon)
            if guarantee.epsilon is None:
                raise ValueError(
                    f"{guarantee.mechanism} states Rényi/zCDP privacy, not "
                    "(epsilon, delta); use RenyiAccountant or ZCDPAccountant."
                )
            eps, dlt = guarantee.epsilon, guarantee.delta
        with self._lock:
            rule = self._active or self._choose_rule(eps, dlt)
            totals = self._totals.plus(eps, dlt)
            ok, reason = self._allows(rule, totals)
            if not ok:
                raise ExceededPrivacyBudgetError(
                    f"spending epsilon={eps:.6g}, delta={dlt:.6g} would exceed the {rule} "
                    f"filter's budget (epsilon={self.epsilon:.6g}, delta={self.delta:.6g}): "
                    f"{reason}."
                )
            runs = self._gamma.added(guarantee) if guarantee is not None else None
            if (
                runs is not None
                and self.gamma_budget is not None
                and GammaLedger.total(runs) > self.gamma_budget
            ):
                raise ExceededPrivacyBudgetError(
                    f"spending would raise gamma to {GammaLedger.total(runs):.6g}, over the "
                    f"budget gamma={self.gamma_budget:.6g}."
                )
            self._active = rule
            self._totals = totals
            if runs is not None:
                self._gamma.commit(runs)

    def release(self, mechanism, value, random_state=None, **kwargs):
        """Spend ``mechanism``'s privacy, then release ``value`` through it.

        Raises before any noise is drawn if the budget would be exceeded.
        """
        self.spend(mechanism)
        return mechanism.release(value, random_state=random_state, **kwargs)

    # --------------------------------------------------------------- reports
    @property
    def active_rule(self) -> str | None:
        """The rule in force (``None`` for "auto" before the first spend)."""
        return self._active

    @property
    def spent(self) -> PrivacySpend:
        """(epsilon, delta, gamma) spent: the sum of epsilons under the basic rule,
        K under the advanced one."""
        with self._lock:
            t = self._totals
            if self._active == "advanced" and t.count:
                eps = _k_from_sums(t.sq, t.drift, self.epsilon, self.delta)
            else:
                eps = float(t.eps)
            return PrivacySpend(eps, float(t.delta), self._gamma.gamma)

    @property
    def remaining(self) -> PrivacySpend:
        """(epsilon, delta, gamma) left before the filter halts."""
        spent = self.spent
        delta_cap = self.delta / 2 if self._active == "advanced" else self.delta
        gamma_left = (
            math.inf
            if self.gamma_budget is None
            else max(0.0, self.gamma_budget - spent.gamma)
        )
        return PrivacySpend(
            max(0.0, self.epsilon - spent.epsilon),
            max(0.0, delta_cap - spent.delta),
            gamma_left,
        )

    @property
    def count(self) -> int:
        """Number of spends recorded."""
        return self._totals.count
