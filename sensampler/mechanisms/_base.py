"""What every mechanism shares: its privacy statement and how it reads a sensitivity."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._validation import check_array, check_real

__all__ = [
    "PrivacyGuarantee",
    "Mechanism",
    "Sensitivity",
    "resolve_sensitivity",
    "pure_dp_rdp",
]


@dataclass(frozen=True)
class PrivacyGuarantee:
    """A mechanism's privacy statement, as accountants read it.

    Attributes
    ----------
    mechanism : str
        Name of the mechanism.
    epsilon, delta : float or None
        The (epsilon, delta)-DP statement; ``None`` for mechanisms defined in
        Rényi or zCDP terms (convert with :meth:`epsilon_for`).
    gamma : float
        Failure probability of random DP (0 for a sensitivity given as a number,
        which the caller vouches for as a global bound).
    run_id : str or None
        The sampling run behind ``gamma``: releases calibrated by one run fail
        together, so accountants count its ``gamma`` once.
    rho : float or None
        zCDP parameter, where the mechanism has one.
    rdp : callable or None
        Rényi curve ``alpha -> epsilon(alpha)`` for ``alpha > 1``; ``None`` when no
        finite Rényi DP holds.
    guaranteed : bool
        False when calibrated with a typical (mean) sensitivity: then nothing is
        guaranteed and accountants refuse the release.
    """

    mechanism: str
    epsilon: float | None
    delta: float | None
    gamma: float = 0.0
    run_id: str | None = None
    rho: float | None = None
    rdp: Callable[[float], float] | None = None
    guaranteed: bool = True

    def epsilon_for(self, delta: float) -> float:
        """Smallest epsilon this statement supports at ``delta`` (0 < delta < 1).

        Uses the (epsilon, delta) statement when its delta fits, else the zCDP or
        Rényi curve (Bun & Steinke 2016, Prop. 1.3; Canonne, Kamath & Steinke 2020,
        Prop. 12, via :func:`sensampler.accounting.rdp_to_dp`).
        """
        from ..accounting.renyi import rdp_to_dp

        candidates = []
        if self.epsilon is not None and self.delta is not None and self.delta <= delta:
            candidates.append(self.epsilon)
        if self.rdp is not None:
            candidates.append(rdp_to_dp(self.rdp, delta)[0])
        if not candidates:
            raise ValueError(
                f"{self.mechanism} states no guarantee at delta={delta!r}."
            )
        return min(candidates)

    def __str__(self):
        if not self.guaranteed:
            return (
                f"{self.mechanism}: calibrated with a typical (mean) sensitivity; "
                "no privacy guarantee"
            )
        if self.epsilon is None:
            core = (
                f"rho={self.rho:.6g}-zCDP"
                if self.rho is not None
                else "Rényi DP (see rdp)"
            )
        elif self.delta:
            core = f"(epsilon={self.epsilon:.6g}, delta={self.delta:.3g})-DP"
        else:
            core = f"epsilon={self.epsilon:.6g}-DP"
        if self.gamma:
            return (
                f"{self.mechanism}: {core} with probability >= 1 - gamma, "
                f"gamma={self.gamma:.4g} (random DP, replace-one neighbours)"
            )
        return f"{self.mechanism}: {core}"


@dataclass(frozen=True)
class Sensitivity:
    """A sensitivity as mechanisms use it: value, norm, and where it came from."""

    value: float | np.ndarray
    norm: str | None
    gamma: float = 0.0
    run_id: str | None = None
    guaranteed: bool = True

    @property
    def per_coordinate(self) -> bool:
        return np.ndim(self.value) > 0


def resolve_sensitivity(sensitivity, norms: tuple, mechanism: str) -> Sensitivity:
    """Read a float, an array (per coordinate) or a SensitivityEstimate.

    ``norms`` lists the estimate norms the mechanism accepts; any other raises,
    naming it. A typical value (``SensitivityEstimate.mean``) is accepted but
    marked as carrying no guarantee.
    """
    from ..sampler import (
        SensitivityEstimate,
        TypicalSensitivity,
        TypicalSensitivityArray,
    )

    if isinstance(sensitivity, SensitivityEstimate):
        if sensitivity.norm not in norms:
            raise ValueError(
                f"{mechanism} needs a sensitivity in the "
                f"{' or '.join(norms)} norm, got an estimate with "
                f"norm={sensitivity.norm!r}."
            )
        value = sensitivity.sensitivity
        value = (
            check_array("sensitivity", value, nonnegative=True)
            if np.ndim(value)
            else check_real("sensitivity", value, low=0.0)
        )
        return Sensitivity(
            value, sensitivity.norm, sensitivity.gamma, sensitivity.run_id
        )
    if isinstance(sensitivity, (str, bytes)) or sensitivity is None:
        raise TypeError(
            f"sensitivity must be a number, an array or a "
            f"SensitivityEstimate, got {sensitivity!r}."
        )
    guaranteed = not isinstance(
        sensitivity, (TypicalSensitivity, TypicalSensitivityArray)
    )
    if np.ndim(sensitivity) == 0:
        value = check_real("sensitivity", sensitivity, low=0.0)
    else:
        value = check_array("sensitivity", sensitivity, ndim=1, nonnegative=True)
    return Sensitivity(value, None, guaranteed=guaranteed)


def _pure_dp_curve(epsilon, alpha):
    return min(epsilon, alpha * epsilon**2 / 2.0)


def pure_dp_rdp(epsilon: float) -> Callable[[float], float]:
    r"""Rényi curve of any epsilon-DP mechanism: :math:`\min(\epsilon, \alpha\epsilon^2/2)`.

    :math:`D_\alpha \le D_\infty \le \epsilon`, and epsilon-DP implies
    :math:`\epsilon^2/2`-zCDP (Bun & Steinke 2016, Prop. 3.3), i.e.
    :math:`(\alpha, \alpha\epsilon^2/2)`-RDP for every alpha. A picklable callable.
    """
    return functools.partial(_pure_dp_curve, epsilon)


class Mechanism:
    """Base class: ``release(value, random_state)`` and a ``privacy`` statement.

    Mechanisms use numpy's generators: good for reproducible research, not a
    hardened source of randomness (no protection against floating-point or
    timing attacks) for production releases.
    """

    name = "mechanism"

    @property
    def privacy(self) -> PrivacyGuarantee:
        raise NotImplementedError

    def _check_value(self, value, sensitivity: Sensitivity):
        arr = np.asarray(value, dtype=float)
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"value must be finite, got value={value!r}.")
        if sensitivity.per_coordinate and arr.shape != np.shape(sensitivity.value):
            raise ValueError(
                f"value must have the shape of the per-coordinate "
                f"sensitivity {np.shape(sensitivity.value)}, got {arr.shape}."
            )
        return arr

    def __repr__(self):
        return f"<{type(self).__name__}: {self.privacy}>"


def check_epsilon(epsilon):
    return check_real("epsilon", epsilon, low=0.0, low_strict=True)


def check_delta(delta):
    return check_real(
        "delta", delta, low=0.0, high=1.0, low_strict=True, high_strict=True
    )
