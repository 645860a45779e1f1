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

from ._lib.validation import check_array, check_flag

__all__ = [
    "SensitivityNorm",
    "L1SensitivityNorm",
    "L2SensitivityNorm",
    "LInfSensitivityNorm",
    "CoordinateSensitivityNorm",
    "CallableNorm",
    "get_norm",
    "NORM_NAMES",
]


def _check_diff(diff: ArrayLike) -> np.ndarray:
    """``diff`` as a finite float array of shape ``(B, d)``, or raise naming it."""
    try:
        arr = np.asarray(diff)
    except ValueError as exc:  # ragged nested sequences
        raise TypeError(
            f"diff must be an array of numbers of shape (B, d), got {diff!r}."
        ) from exc
    if arr.dtype.kind not in "biuf":  # strings, objects, complex numbers
        raise TypeError(
            f"diff must be an array of real numbers of shape (B, d), got {diff!r}."
        )
    if arr.ndim != 2:
        raise ValueError(
            "diff must have 2 dimensions (one row of output differences per "
            f"pair), got shape {arr.shape}."
        )
    arr = arr.astype(float, copy=False)
    finite = np.isfinite(arr).all(axis=1)
    if not finite.all():
        row = int(np.argmin(finite))
        raise ValueError(
            f"diff must be finite, got NaN or inf in row {row}: {arr[row]!r}."
        )
    return arr


class SensitivityNorm:
    """Base class: ``norm(diff)`` maps differences ``(B, d)`` to sensitivities.

    A subclass implements :meth:`_evaluate` on a checked, finite float stack;
    ``norm(diff)`` refuses a ``diff`` that is not a finite real array of two
    dimensions (``TypeError``/``ValueError`` naming it), and a norm that does not
    fit in a float64 (``ValueError``), never returning NaN or inf.
    """

    name = "custom"
    per_coordinate = False

    def __call__(self, diff: ArrayLike) -> np.ndarray:
        arr = _check_diff(diff)
        with np.errstate(over="ignore"):
            out = np.asarray(self._evaluate(arr), dtype=float)
        bad = ~np.isfinite(out)
        if bad.any():
            row = int(np.argwhere(bad)[0][0])
            raise ValueError(
                f"the {self.name} norm of diff row {row} exceeds the largest "
                f"float64 ({np.finfo(float).max:.6g}): {arr[row]!r}."
            )
        return out

    def _evaluate(self, diff: np.ndarray) -> np.ndarray:
        """Sensitivities of a finite float stack ``(B, d)``."""
        raise NotImplementedError(f"{type(self).__name__} does not define a norm.")

    def compute(self, x: ArrayLike, y: ArrayLike) -> Any:
        """Sensitivity between two single outputs ``x`` and ``y`` (same size, any shape).

        Parameters
        ----------
        x, y : array_like
            The two outputs, finite, of the same size.

        Returns
        -------
        float or ndarray
            The norm of ``x - y`` (one value per coordinate for ``"coordinate"``).
        """
        a = check_array("x", x).reshape(1, -1)
        b = check_array("y", y).reshape(1, -1)
        if a.size != b.size:
            raise ValueError(
                f"x and y must have the same size, got {a.size} and {b.size}."
            )
        with np.errstate(over="ignore"):
            diff = a - b
        if not np.all(np.isfinite(diff)):
            raise ValueError(f"x - y overflows float64, got x={x!r} and y={y!r}.")
        return self(diff)[0]

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class L1SensitivityNorm(SensitivityNorm):
    """Sum of absolute differences (the Laplace mechanism's sensitivity)."""

    name = "l1"

    def _evaluate(self, diff: np.ndarray) -> np.ndarray:
        # Non-negative terms: the sum overflows only when the norm itself does.
        return np.abs(diff).sum(axis=1)


class L2SensitivityNorm(SensitivityNorm):
    """Euclidean length of the difference (the Gaussian mechanism's sensitivity).

    Each row is divided by a power of two near its largest entry (exactly) before
    squaring, so that squares neither overflow (``[1e200, 1e200]`` has norm
    ``1.414e200``) nor underflow (``[1e-200, 1e-200]`` has norm ``1.414e-200``,
    not 0).
    """

    name = "l2"

    def _evaluate(self, diff: np.ndarray) -> np.ndarray:
        top = np.abs(diff).max(axis=1, initial=0.0)
        # top in [2**(e-1), 2**e): dividing by 2**(e-1) is exact, keeps the
        # largest entry in [1, 2) and the scale finite.
        scale = np.ldexp(1.0, np.frexp(np.where(top > 0, top, 1.0))[1] - 1)
        scaled = diff / scale[:, None]
        return np.sqrt(np.einsum("ij,ij->i", scaled, scaled)) * scale


class LInfSensitivityNorm(SensitivityNorm):
    """Largest absolute coordinate difference (0 for an empty output)."""

    name = "linf"

    def _evaluate(self, diff: np.ndarray) -> np.ndarray:
        return np.abs(diff).max(axis=1, initial=0.0)


class CoordinateSensitivityNorm(SensitivityNorm):
    """One sensitivity per output coordinate, ``|f_j(D u x) - f_j(D u x')|``.

    The released vector of order statistics is used jointly, so the sampler
    plans each coordinate at ``gamma / d`` (a union bound) and reports ``gamma``
    for the whole vector.
    """

    name = "coordinate"
    per_coordinate = True

    def _evaluate(self, diff: np.ndarray) -> np.ndarray:
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
        check_flag("batched", batched)
        self.func = func
        self.batched = bool(batched or getattr(func, "batched", False))
        self.name = getattr(func, "__name__", "custom")

    def _evaluate(self, diff: np.ndarray) -> np.ndarray:
        try:
            if self.batched:
                raw = [self.func(diff)]
            else:
                raw = [self.func(row) for row in diff]
        except Exception as exc:
            raise ValueError(
                f"norm {self.name!r} raised {type(exc).__name__}: {exc}"
            ) from exc
        try:
            out = np.asarray(raw[0] if self.batched else raw)
        except ValueError:  # ragged
            out = np.asarray(None)
        if out.dtype.kind not in "biuf" or out.shape != diff.shape[:1]:
            raise ValueError(
                f"norm {self.name!r} must return one value per pair (a real number), shape "
                f"{diff.shape[:1]}, got {out.dtype} values of shape {out.shape}."
            )
        out = out.astype(float)
        bad = ~np.isfinite(out) | (out < 0)
        if bad.any():
            row = int(np.argmax(bad))
            raise ValueError(
                f"norm {self.name!r} returned {float(out[row])!r} on diff row {row}: a "
                "norm must be finite and >= 0."
            )
        return out

    def __repr__(self) -> str:
        return f"CallableNorm({self.func!r})"


_NAMED = (
    L1SensitivityNorm,
    L2SensitivityNorm,
    LInfSensitivityNorm,
    CoordinateSensitivityNorm,
)

#: The names of the built-in norms, as ``norm`` parameters accept them
#: (:func:`get_norm` also takes a few aliases: ``"inf"``, ``"max"``,
#: ``"per-coordinate"``).
NORM_NAMES: tuple[str, ...] = tuple(kind.name for kind in _NAMED)

_BY_NAME = {
    **{kind.name: kind for kind in _NAMED},
    "inf": LInfSensitivityNorm,
    "max": LInfSensitivityNorm,
    "per-coordinate": CoordinateSensitivityNorm,
    "per_coordinate": CoordinateSensitivityNorm,
}

_NAMES_TEXT = ", ".join(map(repr, NORM_NAMES))

#: What every ``norm`` parameter accepts (see :func:`get_norm`).
NormLike = Union[
    str, SensitivityNorm, type[SensitivityNorm], Callable[[np.ndarray], Any]
]


def get_norm(norm: NormLike) -> SensitivityNorm:
    """Resolve a name of :data:`NORM_NAMES`, a norm object or a callable.

    Parameters
    ----------
    norm : str, SensitivityNorm, SensitivityNorm subclass or callable
        A name (case-insensitive), a norm object or class, or a callable
        mapping an array of differences to one non-negative number each.

    Returns
    -------
    SensitivityNorm
        The norm object.
    """
    if isinstance(norm, type) and issubclass(norm, SensitivityNorm):
        norm = norm()
    if isinstance(norm, SensitivityNorm):
        kind = type(norm)
        if (
            kind._evaluate is SensitivityNorm._evaluate
            and kind.__call__ is SensitivityNorm.__call__
        ):
            raise TypeError(
                f"norm {kind.__name__} defines no norm (neither _evaluate nor "
                f"__call__): use {_NAMES_TEXT} or a subclass that does."
            )
        return norm
    if isinstance(norm, str):
        key = norm.lower()
        if key not in _BY_NAME:
            raise ValueError(
                f"norm must be {_NAMES_TEXT}, a SensitivityNorm or a callable, "
                f"got norm={norm!r}."
            )
        return _BY_NAME[key]()
    if callable(norm):
        return CallableNorm(norm)
    raise TypeError(
        f"norm must be {_NAMES_TEXT}, a SensitivityNorm or a callable, got {norm!r}."
    )
