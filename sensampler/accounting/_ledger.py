"""Pieces every accountant shares: the spend triple, the budget error, gamma bookkeeping."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["PrivacySpend", "ExceededPrivacyBudgetError", "GammaLedger", "read_guarantee"]


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

    guarantee = mechanism if isinstance(mechanism, PrivacyGuarantee) else getattr(
        mechanism, "privacy", None)
    if not isinstance(guarantee, PrivacyGuarantee):
        raise TypeError(f"expected a mechanism with a privacy statement, got {mechanism!r}.")
    if not guarantee.guaranteed:
        raise ValueError(f"{guarantee.mechanism} was calibrated with a typical (mean) "
                         "sensitivity and carries no privacy guarantee; calibrate it with "
                         "the estimate itself (its order statistic).")
    return guarantee
