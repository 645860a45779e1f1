r"""The cap of the Rényi and zCDP accountants: every valid bound, the smallest reported.

A Rényi or zCDP conversion is loose for few pure epsilon-DP releases (one
Laplace release at epsilon = 1 through zCDP reports 4.73 at delta = 1e-5,
where it is 1-DP). While every release composed is pure epsilon-DP, basic
composition (Dwork & Roth 2014, Thm. 3.16) and the optimal composition of
Kairouz, Oh & Viswanath (2017) hold too: exact (Thm. 3.3,
:func:`~sensampler.accounting._kov.homogeneous_epsilon`) when every epsilon is
the same, Thm. 3.5 (:func:`~sensampler.accounting._kov.heterogeneous_epsilon`)
otherwise. All are valid for adaptively chosen releases, so their minimum is.
"""

from __future__ import annotations

import abc
import math

import numpy as np

from .._lib.domains import DELTA_STATED, documented
from ..privacy import PrivacyBound
from ._kov import (
    MAX_EXACT_STEPS,
    heterogeneous_epsilon,
    homogeneous_delta,
    homogeneous_epsilon,
)
from ._ledger import PrivacyAccountant

__all__ = ["PureCappedAccountant"]

_BASIC = "basic (Dwork & Roth 2014, Thm. 3.16)"
_OPTIMAL = "optimal (Kairouz et al. 2017, Thm. 3.3)"
_HETEROGENEOUS = "heterogeneous (Kairouz et al. 2017, Thm. 3.5)"


@documented
class PureCappedAccountant(PrivacyAccountant):
    """An accountant whose own conversion is capped by the pure-DP bounds.

    Subclasses return ``(own_amount, statement)`` from ``_amount`` and add
    ``own_amount`` in ``_add_own``; they convert their own total with
    ``_own_epsilon(delta, method)`` and ``_own_delta(epsilon)``.
    """

    def __init__(self):
        super().__init__()
        # epsilon -> count of the pure releases, None once any is not pure
        self._pure: dict[float, int] | None = {}

    @abc.abstractmethod
    def _own_amount(self, statement):
        """What one release adds to the accountant's own total."""

    @abc.abstractmethod
    def _add_own(self, amount, count) -> None:
        """Add ``count`` times ``amount`` to the own total."""

    @abc.abstractmethod
    def _own_epsilon(self, delta: float, method: str) -> float:
        """The own conversion's epsilon at ``delta``."""

    @abc.abstractmethod
    def _own_delta(self, epsilon: float) -> float:
        """The own conversion's delta at ``epsilon``."""

    def _amount(self, statement):
        pure = statement.epsilon if statement.delta == 0.0 else None
        return self._own_amount(statement), pure

    def _add(self, amount, count):
        own, pure = amount
        self._add_own(own, count)
        if pure is None:
            self._pure = None
        elif self._pure is not None:
            self._pure[pure] = self._pure.get(pure, 0) + count

    def _pure_bounds(self, delta: float) -> list[tuple[float, str]]:
        """(epsilon, method) of every pure-DP bound at ``delta``."""
        if self._pure is None or not self._pure:
            return []
        epsilons = list(self._pure)
        counts = [self._pure[e] for e in epsilons]
        bounds = [(math.fsum(e * c for e, c in zip(epsilons, counts)), _BASIC)]
        if sum(counts) > MAX_EXACT_STEPS:  # too many steps for the exact laws
            return bounds
        if len(epsilons) == 1:
            bounds.append(
                (homogeneous_epsilon(epsilons[0], 0.0, counts[0], delta), _OPTIMAL)
            )
        elif delta > 0.0:
            steps = np.repeat(epsilons, counts)
            eps, _ = heterogeneous_epsilon(steps, np.zeros(steps.size), delta)
            bounds.append((eps, _HETEROGENEOUS))
        return bounds

    def _best(self, delta: float, method: str = "improved") -> tuple[float, str]:
        if self.count == 0:
            return 0.0, "nothing composed"
        if delta == 1.0:
            return 0.0, "delta = 1 holds for anything"
        own = (
            (self._own_epsilon(delta, method), self.method)
            if delta > 0.0
            else (math.inf, self.method)  # the conversions need delta > 0
        )
        return min([own, *self._pure_bounds(delta)], key=lambda b: b[0])

    def epsilon(self, delta: float, method: str = "improved") -> float:
        """Smallest epsilon such that the composition is (epsilon, delta)-DP.

        The conversion, capped for pure-DP ledgers by basic and optimal
        composition.

        Parameters
        ----------
        delta : float
            ``{DELTA_STATED:delta}``.
        method : {"improved", "classic"}, default "improved"
            The Rényi-to-DP conversion (see :func:`~sensampler.accounting.rdp_to_dp`).

        Returns
        -------
        float
            0 when nothing was composed; ``inf`` at ``delta = 0`` unless every
            release is pure.
        """
        # the base class's check, with the conversion's option passed on
        return self._epsilon(DELTA_STATED.check("delta", delta), method)

    def _epsilon(self, delta: float, method: str = "improved") -> float:
        return self._best(delta, method)[0]

    def _delta(self, epsilon: float) -> float:
        # The conversion, capped for pure-DP ledgers by basic composition (0
        # when the epsilons add up to at most epsilon) and, for one repeated
        # epsilon, the exact optimal composition.
        if self.count == 0:
            return 0.0
        deltas = [self._own_delta(epsilon)]
        if self._pure:
            epsilons = list(self._pure)
            total = math.fsum(e * self._pure[e] for e in epsilons)
            if total <= epsilon:
                deltas.append(0.0)
            if len(epsilons) == 1 and self._pure[epsilons[0]] <= MAX_EXACT_STEPS:
                deltas.append(
                    homogeneous_delta(
                        epsilons[0], 0.0, self._pure[epsilons[0]], epsilon
                    )
                )
        return min(deltas)

    def _report(self, delta: float) -> PrivacyBound:
        epsilon, method = self._best(delta)
        return PrivacyBound(epsilon, delta, self.gamma, method)
