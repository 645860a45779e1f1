"""A sensitivity with its provenance, and the arithmetic that keeps or drops it.

See :mod:`sensampler.estimate` for the rules.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from numbers import Real
from typing import Any, Literal

import numpy as np

from .._display.estimates import sensitivity_value_html
from .._lib import printing
from .._lib.domains import SOURCES
from .._lib.validation import check_choice
from ..privacy import PrivacyLeakWarning, SamplingRun
from ._coverage import Coverage

#: Where a sensitivity value can come from: every source of ``_domains.SOURCES``
#: but "global", which is what a plain number means.
VALUE_SOURCES = tuple(source for source in SOURCES if source != "global")

ValueSource = Literal["sampled", "typical", "derived"]

_LEAK = (
    "a {source} sensitivity ({label}) became a plain number, which mechanisms "
    "read as a global bound the caller vouches for; its sampling run and gamma "
    "are lost. Pass the value itself, or read .value on purpose."
)
_TEXT = (
    "a {source} sensitivity ({label}) was formatted as a number's text "
    "(format(x, spec), f'{{x}}'), which reads back (float) as a plain number "
    "that mechanisms read as a global bound; the text carries no sampling run "
    "and no gamma. Pass the value itself, or format .value on purpose."
)


_ORDERED = (
    "a {source} sensitivity ({label}) was ordered against a plain number: min, "
    "max and sorted then return whichever wins, and the plain number has no "
    "sampling run and no gamma, so a mechanism reads it as a global bound. "
    "Compare .value on purpose, or use arithmetic (x + a, x * c) to raise it."
)


def _wrap(label: str) -> str:
    """``label`` in parentheses when it is compound (for the labels of results)."""
    return f"({label})" if " " in label else label


def _operand(other: object) -> SensitivityValue | float | np.ndarray | None:
    """``other`` as an arithmetic operand, or None when it is not a number."""
    if isinstance(other, SensitivityValue):
        return other
    if isinstance(other, (bool, np.bool_)):
        return None
    if isinstance(other, Real):
        return float(other)
    if isinstance(other, np.ndarray) and other.dtype.kind in "iuf":
        return other.astype(float)
    return None


def _check_released(value, released, norm, coverage) -> None:
    """Refuse a ``"sampled"`` value below the order statistic of its run it covers.

    Per coordinate, coordinate c of a part is ``released[offset + c]``; in a
    scalar norm the part's one order statistic is ``released[offset]``. A value
    that records no coverage must be at least every order statistic released.
    """
    if coverage is None:
        floor = np.full(value.shape, max(released))
    else:
        at = np.asarray(coverage.coordinates) if norm == "coordinate" else np.zeros(1, int)
        at = at + coverage.offset
        if at.size and at.max() >= len(released):
            raise ValueError(
                f"coverage must lie within the {len(released)} order statistics "
                f"the run released, got {coverage.describe()} at offset "
                f"{coverage.offset}."
            )
        floor = np.asarray(released)[at].reshape(value.shape if at.size > 1 else ())
    if np.any(value < floor):
        raise ValueError(
            f"a sampled value must be at least the order statistic G_(k) its run "
            f"released ({floor.tolist()}), got value={value.tolist()}: the run's "
            "gamma holds for G_(k) or a larger value only."
        )


@dataclass(frozen=True, eq=False)
class SensitivityValue:
    """A sensitivity with its provenance: the number, where it came from, its run.

    Not a float or ndarray subclass: arithmetic follows the rules of
    :mod:`sensampler.estimate` (``x * c``, ``x + a`` with ``c >= 1``, ``a >= 0``
    keep a sampled value's guarantee, anything else is ``"derived"``), and
    ``float(x)`` / ``np.asarray(x)`` / ``format(x, spec)`` warn
    :class:`PrivacyLeakWarning`.

    Parameters
    ----------
    value : float or ndarray
        The number, or a read-only float array (one per output coordinate).
    source : {"sampled", "typical", "derived"}
        ``"sampled"``: the run's order statistic, or a value provably at least
        as large; random DP with the run's ``gamma``. ``"typical"`` (a mean or
        quantile of sampled sensitivities) and ``"derived"`` carry no guarantee.
    run : SamplingRun or None
        The sampling run the value came from (required for ``"sampled"``).
    norm : str or None
        The norm the sensitivity is measured in.
    label : str
        What the value is, e.g. ``"G_(k)"``, ``"mean"``, ``"2 * G_(k)"``.
    coverage : Coverage or None
        What the value bounds (``None``: not recorded, e.g. a hand-made value).
        A mechanism refuses to release a value of another shape than
        ``coverage.shape``.

    Examples
    --------
    >>> from sensampler.privacy import SamplingRun
    >>> x = SensitivityValue(2.0, "sampled", SamplingRun("r", 0.05), "l1", "G_(k)")
    >>> (3 * x).source, (x - 1).source
    ('sampled', 'derived')
    >>> f"{(x + 0.5).value:.2f}"  # formatting x itself warns: its text has no gamma
    '2.50'
    """

    value: float | np.ndarray
    source: ValueSource
    run: SamplingRun | None = None
    norm: str | None = None
    label: str = "sensitivity"
    coverage: Coverage | None = None

    # numpy scalars and arrays defer to the reflected operators below, and
    # numpy's functions (np.sqrt(x), np.maximum(x, 1)) raise TypeError.
    __array_ufunc__ = None

    def __post_init__(self):
        check_choice("source", self.source, VALUE_SOURCES)
        if self.source == "sampled" and self.run is None:
            raise ValueError("a sampled sensitivity needs its run, got run=None.")
        if self.run is not None and not isinstance(self.run, SamplingRun):
            raise TypeError(f"run must be a SamplingRun or None, got {self.run!r}.")
        try:
            value = np.array(self.value, dtype=float)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"value must be a real number or array, got {self.value!r}."
            ) from exc
        if self.coverage is None and value.ndim:
            # a per-coordinate value covers its own coordinates, in place
            object.__setattr__(self, "coverage", Coverage.whole(value.shape, value.shape))
        if self.coverage is not None:
            if not isinstance(self.coverage, Coverage):
                raise TypeError(
                    f"coverage must be a Coverage or None, got {self.coverage!r}."
                )
            fits = (
                self.coverage.shape == value.shape
                and len(self.coverage.coordinates) == value.size
            )
            if value.ndim and not fits:
                raise ValueError(
                    f"coverage must match the value of shape {value.shape}, got "
                    f"{self.coverage.describe()}."
                )
        if self.source == "sampled" and self.run.released:
            _check_released(value, self.run.released, self.norm, self.coverage)
        if value.ndim == 0:
            value = float(value)
        else:
            value.setflags(write=False)
        object.__setattr__(self, "value", value)

    def __reduce__(self):
        # Rebuilt through __init__, so that the array is read-only again.
        fields = (self.value, self.source, self.run, self.norm, self.label)
        return (type(self), fields + (self.coverage,))

    # ----------------------------------------------------------- shape
    @property
    def ndim(self) -> int:
        """Number of dimensions of :attr:`value` (0 for a scalar)."""
        return np.ndim(self.value)

    @property
    def shape(self) -> tuple[int, ...]:
        """Shape of :attr:`value` (``()`` for a scalar)."""
        return np.shape(self.value)

    @property
    def gamma(self) -> float | None:
        """The run's failure probability (``None`` without a run)."""
        return None if self.run is None else self.run.gamma

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("a single sensitivity has no len(); it is not a vector.")
        return len(np.asarray(self.value))

    def __getitem__(self, index) -> SensitivityValue:
        """A selection: ``"sampled"`` only if it keeps each coordinate in place.

        ``v[0]``, ``v[1:]``, ``v[[0, 2]]`` and boolean masks keep every
        selected coordinate once, in increasing order: each still bounds its
        own coordinate, and the result records which (:class:`Coverage`).
        Permutations, repetitions, reversed slices and new axes give
        ``"derived"``.
        """
        if self.ndim == 0:
            raise TypeError("a single sensitivity cannot be indexed.")
        values = np.asarray(self.value)
        value = values[index]
        coverage = None
        keeps = False
        if self.coverage is not None:
            positions = np.arange(values.size).reshape(values.shape)[index]
            own = np.asarray(self.coverage.coordinates)
            if len(own) == values.size:  # every coordinate of the value recorded
                selected = tuple(int(c) for c in own[positions.ravel()])
                coverage = Coverage(
                    self.coverage.output_shape, selected, value.shape,
                    offset=self.coverage.offset,
                )
                keeps = coverage.in_place and np.ndim(positions) <= values.ndim
        return self._result(value, keeps, f"{self.label}[{index}]", coverage=coverage)

    def __iter__(self) -> Iterator[SensitivityValue]:
        for i in range(len(self)):
            yield self[i]

    # ----------------------------------------------------- plain numbers
    def _leak(self, stacklevel: int = 3) -> None:
        # stacklevel 3: the caller of np.asarray(), not this helper (4 through
        # _number: the caller of float() or int()).
        message = _LEAK.format(source=self.source, label=self.label)
        warnings.warn(message, PrivacyLeakWarning, stacklevel=stacklevel)

    def _number(self, kind: type):
        """``kind(value)`` (float or int) of a single sensitivity, with the warning."""
        if self.ndim:
            raise TypeError(
                f"a per-coordinate sensitivity has no single {kind.__name__} value; "
                "index a coordinate."
            )
        self._leak(4)
        return kind(self.value)

    def __float__(self) -> float:
        return self._number(float)

    def __int__(self) -> int:
        return self._number(int)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        self._leak()
        return np.array(self.value, dtype=dtype)

    def __bool__(self) -> bool:
        return bool(self.value)

    def __format__(self, spec: str) -> str:
        # text read back with float() is a plain number: warned like float(x)
        warnings.warn(
            _TEXT.format(source=self.source, label=self.label),
            PrivacyLeakWarning,
            stacklevel=2,
        )
        if self.ndim == 0:
            return format(self.value, spec)
        values = np.asarray(self.value)
        if not spec:
            return np.array2string(values)
        return "[" + " ".join(format(v, spec) for v in values.ravel()) + "]"

    def __repr__(self) -> str:
        value = (
            np.array2string(np.asarray(self.value), precision=6, threshold=8)
            if self.ndim
            else repr(self.value)
        )
        gamma = "" if self.run is None else f", gamma={printing.gamma(self.run.gamma)}"
        return (
            f"SensitivityValue({value}, source={self.source!r}{gamma}, "
            f"label={self.label!r})"
        )

    def _repr_html_(self) -> str:
        """Rich display in notebooks: the value (rounded up) and what it guarantees."""
        return sensitivity_value_html(self)

    # ------------------------------------------------------- comparisons
    @staticmethod
    def _plain(other: object) -> Any:
        return other.value if isinstance(other, SensitivityValue) else other

    def _ordered(self, other: object) -> Any:
        """``other`` to order against; warns when it is a plain number.

        ``min``, ``max`` and ``sorted`` order their arguments with these
        comparisons and hand back whichever wins: against a plain number, that
        may be the number, with no run and no gamma.
        """
        if not isinstance(other, SensitivityValue):
            message = _ORDERED.format(source=self.source, label=self.label)
            warnings.warn(message, PrivacyLeakWarning, stacklevel=3)
        return self._plain(other)

    def __eq__(self, other: object):
        return self.value == self._plain(other)

    def __ne__(self, other: object):
        return self.value != self._plain(other)

    def __lt__(self, other: object):
        return self.value < self._ordered(other)

    def __le__(self, other: object):
        return self.value <= self._ordered(other)

    def __gt__(self, other: object):
        return self.value > self._ordered(other)

    def __ge__(self, other: object):
        return self.value >= self._ordered(other)

    __hash__ = None  # type: ignore[assignment]  # equal to numbers, so unhashable

    # -------------------------------------------------------- arithmetic
    _SAME = object()

    def _result(
        self, value, keeps: bool, label: str, other=None, coverage=_SAME
    ) -> SensitivityValue:
        """The value of an operation; ``keeps``: it provably does not lower a bound.

        The result keeps ``self``'s coverage while it keeps its shape (and, with
        another value, while both cover the same); ``coverage`` overrides it.
        """
        source = "sampled" if keeps and self.source == "sampled" else "derived"
        run, norm = self.run, self.norm
        if coverage is SensitivityValue._SAME:
            same = np.shape(value) == self.shape
            coverage = self.coverage if same else None
        if isinstance(other, SensitivityValue):
            run = run if run == other.run else None
            norm = norm if norm == other.norm else None
            coverage = coverage if coverage == other.coverage else None
        return SensitivityValue(value, source, run, norm, label, coverage)

    @staticmethod
    def _text(operand) -> str:
        if isinstance(operand, SensitivityValue):
            return _wrap(operand.label)
        if isinstance(operand, np.ndarray):
            return "array"
        return f"{operand:g}"

    def _binary(self, other, symbol: str, reflected: bool, keeps):
        operand = _operand(other)
        if operand is None:
            return NotImplemented
        plain = operand.value if isinstance(operand, SensitivityValue) else operand
        left, right = (plain, self.value) if reflected else (self.value, plain)
        value = {
            "+": np.add,
            "-": np.subtract,
            "*": np.multiply,
            "/": np.true_divide,
        }[symbol](left, right)
        mine, theirs = _wrap(self.label), self._text(operand)
        label = (
            f"{theirs} {symbol} {mine}" if reflected else f"{mine} {symbol} {theirs}"
        )
        scalar = isinstance(operand, float) and math.isfinite(operand)
        return self._result(value, scalar and keeps(operand), label, operand)

    def __add__(self, other) -> SensitivityValue:
        return self._binary(other, "+", False, lambda a: a >= 0.0)

    def __radd__(self, other) -> SensitivityValue:
        return self._binary(other, "+", True, lambda a: a >= 0.0)

    def __mul__(self, other) -> SensitivityValue:
        return self._binary(other, "*", False, lambda c: c >= 1.0)

    def __rmul__(self, other) -> SensitivityValue:
        return self._binary(other, "*", True, lambda c: c >= 1.0)

    def __sub__(self, other) -> SensitivityValue:
        return self._binary(other, "-", False, lambda _: False)

    def __rsub__(self, other) -> SensitivityValue:
        return self._binary(other, "-", True, lambda _: False)

    def __truediv__(self, other) -> SensitivityValue:
        return self._binary(other, "/", False, lambda _: False)

    def __rtruediv__(self, other) -> SensitivityValue:
        return self._binary(other, "/", True, lambda _: False)

    def __neg__(self) -> SensitivityValue:
        return self._result(-self.value, False, f"-{_wrap(self.label)}")

    def __pos__(self) -> SensitivityValue:
        return self

    def __abs__(self) -> SensitivityValue:
        # |v| >= v: a bound stays a bound (sampled values are >= 0 anyway).
        return self._result(np.abs(self.value), True, f"|{self.label}|")

    def __ceil__(self) -> SensitivityValue:
        # math.ceil returns this as is: ceil(v) >= v, a bound stays a bound.
        return self._result(np.ceil(self.value), True, f"ceil({self.label})")

    def __floor__(self) -> SensitivityValue:
        return self._result(np.floor(self.value), False, f"floor({self.label})")

    def __trunc__(self) -> SensitivityValue:
        return self._result(np.trunc(self.value), False, f"trunc({self.label})")

    def __round__(self, ndigits: int | None = None) -> SensitivityValue:
        value = np.round(self.value, 0 if ndigits is None else ndigits)
        return self._result(value, False, f"round({self.label})")
