r"""The advanced-composition filter of Whitehouse, Ramdas, Rogers & Wu (2023).

References
----------
.. [1] J. Whitehouse, A. Ramdas, R. Rogers and Z. S. Wu, "Fully-Adaptive
   Composition in Differential Privacy", ICML 2023, PMLR 202:36990-37007
   (arXiv:2203.05481).
"""

from __future__ import annotations

from fractions import Fraction

from .._lib.domains import documented
from ..privacy import PrivacyBound
from ._filter_base import BudgetFilter, Remaining, as_float
from ._filter_rules import whitehouse_statistic
from ._ledger import ExceededPrivacyBudgetError

__all__ = ["WhitehouseFilter"]

_METHOD = "advanced-composition filter (Whitehouse et al. 2023)"


@documented
class WhitehouseFilter(BudgetFilter):
    r"""A budget (epsilon, delta) for adaptively chosen epsilon-DP releases, at the
    rate of advanced composition.

    A release of (conditional) :math:`\epsilon_m`-DP, :math:`\epsilon_m` chosen
    from the earlier outputs, is admitted only while

    .. math:: W = \sqrt{2\log(1/\delta)\textstyle\sum_m \epsilon_m^2}
              + \tfrac12 \textstyle\sum_m \epsilon_m^2 \le \epsilon

    over the admitted releases and this one; the interaction is then
    (epsilon, delta)-DP. This is the stopping rule of Whitehouse et al.'s
    advanced-composition filter (the ``N`` of their filter theorem, with
    :math:`\delta'' = 0`): advanced composition, constants included, for
    adaptively chosen parameters; Rogers et al.'s Thm. 5.1 filter
    (:class:`PrivacyFilter`, ``rule="advanced"``) admits about 2.4 times fewer
    releases for the same budget.

    Only pure epsilon-DP releases (``delta = 0``) are admitted: the proof below
    covers them; the paper's extension to releases with :math:`\delta_m > 0`
    (a share :math:`\delta''` of the budget) is not offered. The proof, for
    fixed neighbours, is in
    :func:`~sensampler.accounting._filter_rules.whitehouse_filter_statistic`:
    the centred privacy losses, bounded by :math:`\pm\epsilon_m` with
    conditional mean at most :math:`\epsilon_m^2/2`, make
    :math:`\exp(\lambda\sum(L_m - \mu_m) - \lambda^2 V_n/2)` a supermartingale
    (Hoeffding's lemma), and Ville's inequality at the one :math:`\lambda`
    fixed by the budget bounds the chance that the total loss exceeds epsilon
    by delta.

    Parameters
    ----------
    epsilon : float
        Budget epsilon, ``> 0``.
    delta : float
        Budget delta, ``{DELTA_TARGET:delta}``.
    gamma : float, optional
        Budget for the random-DP failure probability.

    Notes
    -----
    :attr:`spent` is the budget (epsilon, delta) once anything was spent: W is a
    halting statistic, not a privacy parameter of the realised interaction.
    :math:`\sum_m \epsilon_m^2` is summed exactly (as fractions of the values
    given); W in floating point.

    Examples
    --------
    >>> f = WhitehouseFilter(1.0, 1e-6)
    >>> for _ in range(349):
    ...     f.spend(0.01)
    >>> round(f.statistic, 5)
    0.99945
    >>> f.spend(0.01)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sensampler...ExceededPrivacyBudgetError: spending epsilon=0.01 would exceed ...
    """

    def __init__(self, epsilon: float, delta: float, gamma: float | None = None):
        super().__init__(epsilon, delta, gamma, delta_positive=True)
        self._sum_sq = Fraction(0)

    def _amount(self, statement):
        if statement.epsilon is None or statement.delta != 0.0:
            raise ValueError(
                f"{statement.mechanism} is not a pure epsilon-DP release "
                f"(epsilon={statement.epsilon!r}, delta={statement.delta!r}); the "
                "Whitehouse et al. filter here admits pure releases only: use a "
                "RenyiFilter (Gaussian noise) or a PrivacyFilter."
            )
        return Fraction(statement.epsilon)

    def _number_amount(self, epsilon, delta):
        if delta:
            raise ValueError(
                "the Whitehouse et al. filter here admits pure releases only, got "
                f"delta={float(delta)!r}."
            )
        return epsilon

    def _statistic(self, sum_sq: Fraction) -> float:
        return whitehouse_statistic(as_float(sum_sq), self.delta_budget)

    def _add(self, epsilon, count):
        total = self._sum_sq + count * epsilon * epsilon
        w = self._statistic(total)
        if not w <= self.epsilon_budget:
            raise ExceededPrivacyBudgetError(
                f"spending epsilon={float(epsilon):.6g}"
                f"{f' {count} times' if count > 1 else ''} would exceed the "
                f"Whitehouse et al. filter's budget (epsilon="
                f"{self.epsilon_budget:.6g}, delta={self.delta_budget:.3g}): "
                f"W = {w:.6g} > {self.epsilon_budget:.6g}."
            )
        self._sum_sq = total

    @property
    def statistic(self) -> float:
        r"""The halting statistic W over what was spent:
        :math:`\sqrt{2\log(1/\delta)\sum\epsilon_m^2} + \frac12\sum\epsilon_m^2`."""
        with self._lock:
            return self._statistic(self._sum_sq)

    @property
    def spent(self) -> PrivacyBound:
        """The budget (epsilon, delta) once anything was spent (see the notes)."""
        with self._lock:
            if self._sum_sq == 0 and self.count == 0:
                return PrivacyBound(0.0, 0.0, self._gamma.total, _METHOD)
            return self._budget_bound(_METHOD)

    @property
    def remaining(self) -> PrivacyBound:
        """epsilon minus W, the budget's delta, and the gamma budget left."""
        statistic = self.statistic
        with self._lock:
            return Remaining(
                max(0.0, self.epsilon_budget - statistic),
                self.delta_budget,
                self._gamma_left(),
                "left before the Whitehouse et al. filter halts",
            )
