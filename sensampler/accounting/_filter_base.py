"""What every privacy filter shares: a budget, spends of numbers or mechanisms,
releases that spend before they draw, and reports of the guarantee that holds.

A filter (Rogers, Roth, Ullman & Vadhan 2016) admits adaptively chosen spends
while a rule fixed in advance says the budget holds, and refuses the first one
that would break it, recording nothing. The rules themselves live in
:mod:`~sensampler.accounting.filters` (basic and Rogers et al.'s advanced
rule), :mod:`~sensampler.accounting.renyi_filter` (Feldman & Zrnic 2021) and
:mod:`~sensampler.accounting.whitehouse_filter` (Whitehouse et al. 2023).
"""

from __future__ import annotations

import abc
import inspect
import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from numbers import Real

from .._lib import printing
from .._lib.default_budget import exempt
from .._lib.domains import (
    DELTA_RELEASE,
    DELTA_TARGET,
    EPSILON,
    EPSILON_POINT,
    PROBABILITY,
    Interval,
    documented,
)
from ..privacy import PrivacyBound, PrivacyStatement
from ._accountant import ExceededPrivacyBudgetError, PrivacyAccountant
from ._ledger_entry import LedgerEntry, read_statement

__all__ = ["BUDGET_SLACK", "BudgetFilter", "Remaining", "as_float", "exact_real", "within"]

#: Relative slack of every budget comparison: 2**-51, four units of roundoff.
#: See the notes of :class:`~sensampler.accounting.PrivacyFilter`.
BUDGET_SLACK = Fraction(1, 2**51)


def exact_real(domain: Interval, name, value) -> Fraction:
    """A finite real in ``domain`` (any :class:`numbers.Real` or ``Decimal``) as an
    exact fraction of the value given, or raise naming it."""
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ValueError(f"{name} must be finite, got {name}={value!r}.")
        exact = Fraction(value)
        domain.check(name, float(exact))
        return exact
    checked = domain.check(name, value)
    return value if isinstance(value, Fraction) else Fraction(checked)


def as_float(value: Fraction) -> float:
    """``float(value)``, or ``inf`` where an exact sum exceeds the largest double."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


@dataclass(frozen=True)
class Remaining(PrivacyBound):
    """What is left of a filter's budget: epsilon, delta and gamma left.

    Not a privacy guarantee; ``gamma`` is ``inf`` when no gamma budget was set,
    which the text says as "no γ budget".
    """

    def __str__(self):
        # rounded down: what is left is never printed larger than it is
        gamma = (
            "no γ budget"
            if self.gamma == math.inf
            else f"gamma={printing.down(self.gamma, 'gamma')} left"
        )
        return (
            f"epsilon={printing.down(self.epsilon, 'epsilon')}, "
            f"delta={printing.down(self.delta, 'delta')} left, {gamma} [{self.method}]"
        )


def within(total: Fraction, budget: float | Fraction) -> bool:
    """``total <= budget * (1 + BUDGET_SLACK)``, exactly."""
    return total <= Fraction(budget) * (1 + BUDGET_SLACK)


@documented
class BudgetFilter(PrivacyAccountant):
    """Base of the filters: a budget (epsilon, delta) and optionally gamma.

    Subclasses say what one release costs (``_amount`` for a privacy
    statement, ``_number_amount`` for a spend given as numbers), add it or
    refuse it (``_add``, under the lock) and state what holds (:attr:`spent`).

    Parameters
    ----------
    epsilon : float
        Budget epsilon_g, ``> 0``.
    delta : float
        Budget delta_g, ``{DELTA_RELEASE:delta}`` (``0 < delta`` when
        ``delta_positive``).
    gamma : float or None
        Budget for the random-DP failure probability (``None``: tracked, not
        limited).
    """

    def __init__(self, epsilon, delta, gamma, *, delta_positive=False):
        self.epsilon_budget = EPSILON.check("epsilon", epsilon)
        delta_domain = DELTA_TARGET if delta_positive else DELTA_RELEASE
        self.delta_budget = delta_domain.check("delta", delta)
        self.gamma_budget = None if gamma is None else PROBABILITY.check("gamma", gamma)
        super().__init__()

    @abc.abstractmethod
    def _number_amount(self, epsilon: Fraction, delta: Fraction):
        """What one spend of ``(epsilon, delta)`` given as numbers adds."""

    def _check_gamma(self, gamma):
        if self.gamma_budget is not None and not within(
            Fraction(gamma.total), self.gamma_budget
        ):
            raise ExceededPrivacyBudgetError(
                f"spending would raise gamma to {gamma.total:.6g}, over the "
                f"budget gamma={self.gamma_budget:.6g}."
            )

    def spend(self, epsilon, delta=0.0) -> None:
        """Record a spend, or raise :class:`ExceededPrivacyBudgetError` and record nothing.

        Parameters
        ----------
        epsilon : real or mechanism or PrivacyStatement
            The epsilon spent (any real: float, numpy scalar, ``Fraction``,
            ``Decimal``), or a mechanism whose privacy statement is read (its
            epsilon, delta, Rényi curve and gamma, as the filter needs).
        delta : real
            With a number ``epsilon`` only.
        """
        if isinstance(epsilon, (Real, Decimal)) and not isinstance(epsilon, bool):
            eps = exact_real(EPSILON_POINT, "epsilon", epsilon)
            dlt = exact_real(DELTA_RELEASE, "delta", delta)
            statement = PrivacyStatement("spend", float(eps), float(dlt))
            entry = LedgerEntry.of(statement, 1, states_relation=False)
            self._record(self._number_amount(eps, dlt), 1, None, entry)
        else:
            self.compose(epsilon)

    def release(self, mechanism, value, *, random_state=None, **kwargs):
        """Spend ``mechanism``'s privacy, then release ``value`` through it.

        ``value`` and ``random_state`` are validated by the mechanism
        (``mechanism.check_release``), and every other keyword against the
        signature of ``mechanism.release``, before anything is spent; nothing is
        drawn if the budget would be exceeded.

        Parameters
        ----------
        mechanism : Mechanism
            A mechanism with a guaranteed privacy statement.
        value : float or array_like
            The exact answer, passed to ``mechanism.release``.
        random_state : None, int, numpy.random.Generator or numpy.random.SeedSequence, optional
            Source of the noise; ``None`` (default) draws fresh entropy.
        **kwargs
            Further keyword arguments of ``mechanism.release``.

        Returns
        -------
        object
            What ``mechanism.release`` returns.
        """
        read_statement(mechanism)
        _, rng = mechanism.check_release(value, random_state=random_state)
        try:  # every argument, unknown keywords included, before spending
            inspect.signature(mechanism.release).bind(value, random_state=rng, **kwargs)
        except TypeError as exc:
            raise TypeError(
                f"{type(mechanism).__name__}.release does not take these "
                f"arguments ({exc}); nothing was spent."
            ) from None
        self.compose(mechanism)
        with exempt():  # spent here: not again from a default
            return mechanism.release(value, random_state=rng, **kwargs)

    # --------------------------------------------------------------- reports
    @property
    @abc.abstractmethod
    def spent(self) -> PrivacyBound:
        """The guarantee that holds for what was spent."""

    def _budget_bound(self, method: str) -> PrivacyBound:
        """The budget itself as the guarantee, with the gamma spent."""
        return PrivacyBound(
            self.epsilon_budget, self.delta_budget, self._gamma.total, method
        )

    def _gamma_left(self) -> float:
        if self.gamma_budget is None:
            return math.inf
        return max(0.0, self.gamma_budget - self._gamma.total)

    def _epsilon(self, delta: float) -> float:
        # the epsilon of spent at delta, inf below its delta
        spent = self.spent
        return spent.epsilon if delta >= spent.delta else math.inf

    def _delta(self, epsilon: float) -> float:
        # the delta of spent at epsilon, 1 below its epsilon
        spent = self.spent
        return spent.delta if epsilon >= spent.epsilon else 1.0

    def report(self, delta: float | None = None) -> PrivacyBound:
        """:attr:`spent` (``delta``, if given, must be at least its delta).

        Parameters
        ----------
        delta : float, optional
            Target delta, at least that of :attr:`spent`; default: its delta.

        Returns
        -------
        PrivacyBound
            The (epsilon, delta, gamma) spent.
        """
        if delta is None:
            return self.spent
        return super().report(delta)

    def _rule(self) -> str:
        """What the repr says of the rule (empty when the class names it)."""
        return ""

    def _worst_case_delta(self) -> float | None:
        """A filter converts zCDP worst-case parts at its delta budget (when > 0)."""
        return self.delta_budget or None

    def _summary(self):
        spent = self.spent
        return (
            f"budget=(epsilon={self.epsilon_budget:.6g}, delta={self.delta_budget:.3g}), "
            f"{self._rule()}spent=(epsilon={printing.epsilon(spent.epsilon)}, "
            f"delta={printing.delta(spent.delta)}), "
        )
