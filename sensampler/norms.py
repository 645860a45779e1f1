"""Norms that turn the change of a query's output into a sensitivity.

Every norm takes a stack of output differences of shape ``(B, d)`` (one row
per neighbouring pair, the output flattened) and returns one sensitivity per
pair, shape ``(B,)``, or, for :class:`CoordinateSensitivityNorm`, one per
coordinate, shape ``(B, d)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Union

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "SensitivityNorm",
    "L1SensitivityNorm",
    "L2SensitivityNorm",
    "LInfSensitivityNorm",
    "CoordinateSensitivityNorm",
    "CallableNorm",
    "get_norm",
]


class SensitivityNorm:
    """Base class: ``norm(diff)`` maps differences ``(B, d)`` to sensitivities."""

    name = "custom"
    per_coordinate = False

    def __call__(self, diff: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def compute(self, x: ArrayLike, y: ArrayLike) -> Any:
        """Sensitivity between two single outputs ``x`` and ``y`` (any shape)."""
        diff = np.asarray(x, dtype=float).reshape(1, -1) - np.asarray(
            y, dtype=float
        ).reshape(1, -1)
        return self(diff)[0]

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class L1SensitivityNorm(SensitivityNorm):
    """Sum of absolute differences (the Laplace mechanism's sensitivity)."""

    name = "l1"

    def __call__(self, diff: np.ndarray) -> np.ndarray:
        return np.abs(diff).sum(axis=1)


class L2SensitivityNorm(SensitivityNorm):
    """Euclidean length of the difference (the Gaussian mechanism's sensitivity)."""

    name = "l2"

    def __call__(self, diff: np.ndarray) -> np.ndarray:
        return np.sqrt(np.einsum("ij,ij->i", diff, diff))


class LInfSensitivityNorm(SensitivityNorm):
    """Largest absolute coordinate difference."""

    name = "linf"

    def __call__(self, diff: np.ndarray) -> np.ndarray:
        return np.abs(diff).max(axis=1)


class CoordinateSensitivityNorm(SensitivityNorm):
    """One sensitivity per output coordinate, ``|f_j(D u x) - f_j(D u x')|``.

    The released vector of order statistics is used jointly, so the sampler
    plans each coordinate at ``gamma / d`` (a union bound) and reports ``gamma``
    for the whole vector.
    """

    name = "coordinate"
    per_coordinate = True

    def __call__(self, diff: np.ndarray) -> np.ndarray:
        return np.abs(diff)


class CallableNorm(SensitivityNorm):
    """A user norm: ``func(difference_vector) -> float``, applied pair by pair.

    Parameters
    ----------
    func : callable
        Takes one flattened difference vector of shape ``(d,)``; set
        ``batched=True`` if it takes the whole ``(B, d)`` stack instead.
    batched : bool, default False
    """

    def __init__(self, func: Callable[[np.ndarray], Any], batched: bool = False):
        if not callable(func):
            raise TypeError(f"norm must be callable, got {func!r}.")
        self.func = func
        self.batched = bool(batched or getattr(func, "batched", False))
        self.name = getattr(func, "__name__", "custom")

    def __call__(self, diff: np.ndarray) -> np.ndarray:
        if self.batched:
            out = np.asarray(self.func(diff), dtype=float)
        else:
            out = np.array([float(self.func(row)) for row in diff])
        if out.shape != diff.shape[:1]:
            raise ValueError(
                f"norm {self.name!r} must return one value per pair, shape "
                f"{diff.shape[:1]}, got shape {out.shape}."
            )
        return out

    def __repr__(self) -> str:
        return f"CallableNorm({self.func!r})"


_BY_NAME = {
    "l1": L1SensitivityNorm,
    "l2": L2SensitivityNorm,
    "linf": LInfSensitivityNorm,
    "inf": LInfSensitivityNorm,
    "max": LInfSensitivityNorm,
    "coordinate": CoordinateSensitivityNorm,
    "per-coordinate": CoordinateSensitivityNorm,
    "per_coordinate": CoordinateSensitivityNorm,
}


#: What every ``norm`` parameter accepts (see :func:`get_norm`).
NormLike = Union[
    str, SensitivityNorm, type[SensitivityNorm], Callable[[np.ndarray], Any]
]


def get_norm(norm: NormLike) -> SensitivityNorm:
    """Resolve ``"l1"``, ``"l2"``, ``"linf"``, ``"coordinate"``, a norm object or a callable."""
    if isinstance(norm, SensitivityNorm):
        return norm
    if isinstance(norm, type) and issubclass(norm, SensitivityNorm):
        return norm()
    if isinstance(norm, str):
        key = norm.lower()
        if key not in _BY_NAME:
            raise ValueError(
                "norm must be 'l1', 'l2', 'linf', 'coordinate', a "
                f"SensitivityNorm or a callable, got norm={norm!r}."
            )
        return _BY_NAME[key]()
    if callable(norm):
        return CallableNorm(norm)
    raise TypeError(
        "norm must be 'l1', 'l2', 'linf', 'coordinate', a SensitivityNorm or "
        f"a callable, got {norm!r}."
    )
