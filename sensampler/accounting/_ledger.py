"""Pieces every accountant shares: the spend triple, the budget error, gamma bookkeeping."""

from __future__ import annotations

import threading
from typing import NamedTuple

from .._validation import check_count

__all__ = [
    "PrivacySpend",
    "ExceededPrivacyBudgetError",
    "GammaLedger",
    "read_guarantee",
    "Accountant",
]


class PrivacySpend(NamedTuple):
    """(epsilon, delta, gamma): what was spent, or what remains."""

    epsilon: float
    delta: float
    gamma: float


class ExceededPrivacyBudgetError(ValueError):
    """A spend would exceed the budget; nothing was recorded and no noise drawn."""


class GammaLedger:
    """Random-DP failure probabilities: summed over sampling runs (a union bound),
    counted once per run however many releases reuse its estimate."""

    def __init__(self):
        self._runs: dict[str, float] = {}

    def added(self, guarantee) -> dict:
        """The runs dict after recording ``guarantee`` (not stored)."""
        runs = dict(self._runs)
        if guarantee.gamma:
            key = guarantee.run_id or f"anonymous-{id(guarantee)}"
            runs[key] = max(runs.get(key, 0.0), guarantee.gamma)
        return runs

    def commit(self, runs: dict):
        self._runs = runs

    @staticmethod
    def total(runs: dict) -> float:
        return min(1.0, sum(runs.values()))

    @property
    def gamma(self) -> float:
        return self.total(self._runs)


def read_guarantee(mechanism):
    """The PrivacyGuarantee of a mechanism (or a guarantee itself), refusing unguaranteed ones."""
    from ..mechanisms import PrivacyGuarantee

    guarantee = (
        mechanism
        if isinstance(mechanism, PrivacyGuarantee)
        else getattr(mechanism, "privacy", None)
    )
    if not isinstance(guarantee, PrivacyGuarantee):
        raise TypeError(
            f"expected a mechanism with a privacy statement, got {mechanism!r}."
        )
    if not guarantee.guaranteed:
        raise ValueError(
            f"{guarantee.mechanism} was calibrated with a typical (mean) "
            "sensitivity and carries no privacy guarantee; calibrate it with "
            "the estimate itself (its order statistic)."
        )
    return guarantee


class Accountant:
    """Base of the accountants that add up a per-mechanism quantity.

    Subclasses give :meth:`_amount` (the quantity a mechanism adds, or raise when
    it has none), :meth:`_add` and :meth:`epsilon`; composing is thread-safe and
    tracks gamma once per sampling run.
    """

    def __init__(self):
        self._gamma = GammaLedger()
        self._lock = threading.Lock()

    def _amount(self, guarantee):
        raise NotImplementedError

    def _add(self, amount, count):
        raise NotImplementedError

    def epsilon(self, delta: float) -> float:
        raise NotImplementedError

    def compose(self, mechanism, count: int = 1) -> None:
        """Add ``count`` runs of ``mechanism``, read from its privacy statement."""
        count = check_count("count", count)
        guarantee = read_guarantee(mechanism)
        amount = self._amount(guarantee)
        with self._lock:
            runs = self._gamma.added(guarantee)
            self._add(amount, count)
            self._gamma.commit(runs)

    @property
    def gamma(self) -> float:
        """Random-DP failure probability of everything composed (a union over runs)."""
        return self._gamma.gamma

    def report(self, delta: float) -> PrivacySpend:
        """(epsilon, delta, gamma) of everything composed."""
        return PrivacySpend(self.epsilon(delta), delta, self.gamma)
