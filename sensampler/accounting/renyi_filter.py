r"""The Rényi filter of Feldman & Zrnic (2021): fully adaptive Rényi composition.

References
----------
.. [1] V. Feldman and T. Zrnic, "Individual Privacy Accounting via a Rényi
   Filter", NeurIPS 2021 (arXiv:2008.11193).
.. [2] C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for
   Differential Privacy", NeurIPS 2020, Prop. 12.
"""

from __future__ import annotations

import math

import numpy as np

from .._lib.domains import DP_CONVERSIONS, documented
from .._lib.validation import check_array, check_real
from ..privacy import DEFAULT_ORDERS, PrivacyBound, pure_dp_rdp
from ._filter_base import BUDGET_SLACK, BudgetFilter, Remaining
from ._filter_rules import renyi_filter_allows, renyi_filter_budget, renyi_filter_count
from ._ledger import ExceededPrivacyBudgetError
from .renyi import renyi_costs, statement_curve

__all__ = ["RenyiFilter"]

def _at(curve, orders) -> np.ndarray:
    """A Rényi curve at the orders; a value beyond the largest double is inf."""
    with np.errstate(over="ignore"):
        return np.array([curve(a) for a in orders], dtype=float)


_METHOD = "Rényi filter (Feldman & Zrnic 2021, Thm. 3.1)"


@documented
class RenyiFilter(BudgetFilter):
    r"""A budget (epsilon, delta) for adaptively chosen releases, spent at their Rényi cost.

    Feldman & Zrnic (2021), Thm. 3.1: fix an order :math:`\alpha > 1` and a
    Rényi budget B before the interaction. Let step t be any mechanism chosen
    from the earlier outputs whose Rényi divergence of order alpha between
    neighbours is at most :math:`\rho_t`, itself chosen from the earlier
    outputs. If :math:`\sum_t \rho_t \le B` with probability one, the Rényi
    divergence of order alpha between the whole interaction's output laws on
    any two neighbours is at most B. This filter admits a step only while the
    running sum stays within B (their Alg. 1), so the condition holds; a
    refused step is the analyst choosing a null mechanism (cost 0), which the
    theorem allows. An (alpha, B) Rényi bound between two laws gives
    (epsilon, delta)-DP by any conversion of Rényi divergence
    (:func:`~sensampler.accounting._filter_rules.renyi_filter_budget` chooses
    B for the budget: ``"improved"``, Canonne, Kamath & Steinke 2020,
    Prop. 12; ``"classic"``, Mironov 2017, Prop. 3).

    Costs are read from each statement's Rényi curve at alpha: exact for the
    Gaussian mechanisms (:math:`\alpha/(2\sigma^2)`) and for Laplace noise
    (Mironov 2017, Prop. 6, summed over coordinates),
    :math:`\min(\epsilon, \alpha\epsilon^2/8)` for the exponential mechanism,
    :math:`\min(\epsilon, \alpha\epsilon^2/2)` for other epsilon-DP releases
    and for spends given as numbers (which must have ``delta = 0``), and
    for a statement without a curve the one its epsilon-DP or zCDP implies
    (:func:`~sensampler.accounting.renyi.statement_curve`). Mechanisms with no
    finite Rényi DP are refused.

    What is valid, exactly. The orders are fixed before any output exists:

    * ``alpha`` a number: one filter at that order;
    * ``alpha`` a sequence: one filter per order, run side by side; a step is
      admitted only if *every* order admits it, so each order's sum stays
      within its budget and each certifies (epsilon, delta). (Admitting a step
      when *some* order admits it is not covered by the theorem: not offered.)
    * ``alpha=None`` (default): at the first spend, the one order of
      :data:`~sensampler.privacy.DEFAULT_ORDERS` that admits the most
      repetitions of that first spend is chosen and kept. The choice depends
      on the analyst's first request only, before any output, so it is the
      filter an analyst could have named in advance.

    Parameters
    ----------
    epsilon : float
        Budget epsilon, ``> 0``.
    delta : float
        Budget delta, ``{DELTA_TARGET:delta}``.
    alpha : float, sequence of float or None, default None
        Rényi order(s), each ``> 1``. Orders whose budget
        :math:`B(\alpha)` is not positive (they admit nothing) are dropped;
        none left is refused by name.
    conversion : {"improved", "classic"}, default "improved"
    gamma : float, optional
        Budget for the random-DP failure probability.

    Notes
    -----
    :attr:`spent` is the budget (epsilon, delta) once anything was spent: the
    theorem certifies the budget, not the running sum, which is a random
    variable of the interaction. Running sums are kept in floating point;
    a step is admitted when ``spent + cost <= B (1 + 2**-51)``.

    Examples
    --------
    >>> f = RenyiFilter(1.0, 1e-6, alpha=30.0)
    >>> f.spend(0.01)   # a pure step: min(0.01, 30 * 0.01**2 / 2) = 0.0015 at alpha 30
    >>> round(f.remaining.epsilon, 4)   # B(30) = 0.6748, less 0.0015
    0.6733
    """

    def __init__(
        self,
        epsilon: float,
        delta: float,
        alpha=None,
        conversion: str = "improved",
        gamma: float | None = None,
    ):
        super().__init__(epsilon, delta, gamma, delta_positive=True)
        self.conversion = DP_CONVERSIONS.check("conversion", conversion)
        if alpha is None:
            orders = None
        elif np.ndim(alpha) == 0:
            orders = np.array([check_real("alpha", alpha, low=1.0, low_strict=True)])
        else:
            orders = check_array("alpha", alpha, ndim=1)
            if orders.size == 0 or np.any(orders <= 1):
                raise ValueError(f"alpha must hold orders > 1, got alpha={alpha!r}.")
        # orders whose budget is not positive admit nothing: dropped
        candidates = DEFAULT_ORDERS if orders is None else orders
        budgets = self._budgets_at(candidates)
        if not np.any(budgets > 0):
            raise ValueError(
                f"no Rényi order in alpha={alpha!r} has a positive budget for "
                f"epsilon={self.epsilon_budget!r}, delta={self.delta_budget!r} "
                "(B(alpha) = epsilon - log(1/delta)/(alpha - 1) or less); use "
                "larger orders or a larger budget."
            )
        self._usable = candidates[budgets > 0]
        self._orders = None if orders is None else self._usable
        self._budgets = None if orders is None else budgets[budgets > 0]
        self._spent = None if orders is None else np.zeros_like(self._orders)

    def _budgets_at(self, orders):
        return np.array(
            [
                renyi_filter_budget(
                    self.epsilon_budget, self.delta_budget, a, self.conversion
                )
                for a in orders
            ]
        )

    # ------------------------------------------------------------------ spend
    def _amount(self, statement):
        curve = statement_curve(statement)
        if curve is None:
            raise ValueError(
                f"{statement.mechanism} satisfies no finite Rényi DP (it may "
                "fail catastrophically); spend it with a PrivacyFilter."
            )
        return curve

    def _number_amount(self, epsilon, delta):
        if delta:
            raise ValueError(
                "a Rényi filter spends pure epsilon-DP numbers only, got "
                f"delta={float(delta)!r}; spend the mechanism itself."
            )
        return pure_dp_rdp(float(epsilon))

    def _choose_order(self, curve):
        costs = _at(curve, self._usable)
        budgets = self._budgets_at(self._usable)
        counts = [
            math.inf if c == 0 else 0 if c == math.inf else renyi_filter_count(c, b)
            for c, b in zip(costs, budgets)
        ]
        best = max(range(len(counts)), key=counts.__getitem__)  # counts may be huge
        return self._usable[[best]]

    def _add(self, curve, count):
        if not np.any(renyi_costs("the release", _at(curve, self._usable))):
            # a release that costs nothing at every order is admitted and
            # leaves every sum as it was; its output does not depend on the
            # data, so an order chosen after it is still chosen in advance
            return
        orders = self._orders if self._orders is not None else self._choose_order(curve)
        budgets = (
            self._budgets if self._budgets is not None else self._budgets_at(orders)
        )
        spent = self._spent if self._spent is not None else np.zeros_like(orders)
        slack = 1.0 + float(BUDGET_SLACK)
        with np.errstate(over="ignore", invalid="ignore"):  # sums beyond a double: inf
            cost = count * renyi_costs("the release", _at(curve, orders))
            allowed = renyi_filter_allows(spent, cost, budgets * slack)
            total = spent + cost
            worst = int(np.argmax(total - budgets))
        if not allowed:
            raise ExceededPrivacyBudgetError(
                f"spending{f' {count} times' if count > 1 else ''} would exceed the "
                f"Rényi filter's budget (epsilon={self.epsilon_budget:.6g}, "
                f"delta={self.delta_budget:.3g}): Rényi divergence "
                f"{total[worst]:.6g} > {budgets[worst]:.6g} at "
                f"order {orders[worst]:g}."
            )
        self._orders, self._budgets, self._spent = orders, budgets, total

    # --------------------------------------------------------------- reports
    @property
    def orders(self) -> np.ndarray | None:
        """The order(s) in force (``None`` before the first spend with ``alpha=None``)."""
        return None if self._orders is None else self._orders.copy()

    @property
    def statistic(self) -> float:
        """Rényi divergence spent, at the order closest to its budget (0 before
        any spend)."""
        with self._lock:
            if self._spent is None:
                return 0.0
            return float(self._spent[np.argmax(self._spent - self._budgets)])

    @property
    def spent(self) -> PrivacyBound:
        """The budget (epsilon, delta) once anything was spent (see the notes)."""
        with self._lock:
            if self.count == 0:
                return PrivacyBound(0.0, 0.0, self._gamma.total, _METHOD)
            return self._budget_bound(_METHOD)

    @property
    def remaining(self) -> PrivacyBound:
        """Rényi budget left (the smallest over the orders; as ``epsilon``), the
        budget's delta, and the gamma budget left (``inf`` without one)."""
        with self._lock:
            left = (
                math.inf
                if self._spent is None
                else max(0.0, float(np.min(self._budgets - self._spent)))
            )
            return Remaining(
                left,
                self.delta_budget,
                self._gamma_left(),
                "Rényi divergence left before the Rényi filter halts",
            )

    def _rule(self):
        orders = (
            "auto"
            if self._orders is None
            else ", ".join(f"{a:g}" for a in self._orders)
        )
        return f"alpha={orders}, "
