r"""Sampled sensitivities that keep the sampling run they came from.

A sampling run (:func:`sensampler.sample_sensitivity`) releases the order
statistic :math:`G_{(k)}` of m sampled sensitivities; with probability at least
:math:`1-\gamma` over the run and a fresh pair of neighbouring databases from the
population, the pair's sensitivity does not exceed it (Rubinstein & Aldà 2017,
Thm. 3). That statement belongs to the run, so the value carries it:
:class:`SensitivityValue` holds the number together with its ``source`` and its
:class:`~sensampler.privacy.SamplingRun`.

Arithmetic keeps the guarantee only where it provably survives. For
:math:`c \ge 1` and :math:`a \ge 0`, :math:`c\,G_{(k)} \ge G_{(k)}` and
:math:`G_{(k)} + a \ge G_{(k)}`, so a pair whose sensitivity is at most
:math:`G_{(k)}` is also below the new value, and the run's :math:`\gamma` still
holds: ``x * c``, ``c * x`` (real ``c >= 1``) and ``x + a``, ``a + x`` (real
``a >= 0``) of a sampled value stay ``"sampled"``. Every other operation
(subtraction, division, a factor below 1, negation, two values together,
anything on a typical value) gives ``"derived"``: no guarantee.

Turning a value into a plain number (``float(x)``, ``int(x)``,
``np.asarray(x)``) returns the number and warns
:class:`~sensampler.privacy.PrivacyLeakWarning`, since mechanisms read a plain
number as a global bound; ``x.value`` reads it without a warning.

**Coverage.** A value records what it covers (:class:`Coverage`): the query's
output shape, which output coordinates it bounds (flat indices, in order) and
the shape of a release it covers; ``norm`` says in which norm. A scalar in
the l1, l2 or linf norm covers the whole output; a per-coordinate value
(``norm="coordinate"``) covers each coordinate at its place. Indexing keeps
``"sampled"`` only for a selection that keeps every selected coordinate at its
own place, once, in increasing order (``v[0]``, ``v[1:]``, ``v[[0, 2]]``,
boolean masks) and records the coordinates selected; a permutation, a
repetition, a reversed slice or a new axis gives ``"derived"``. A mechanism
refuses to release a value whose shape is not the coverage's: ``v[0]`` covers
a scalar, not the vector it came from; an l1 estimate of a 2-vector query
covers 2-vectors only. (Which coordinates are released is the caller's: a
mechanism sees shapes only.)

**Builtins and numpy.** Every path that can turn a value into a plain number
warns or keeps the provenance:

.. list-table::
   :header-rows: 1
   :widths: 45 55

   * - Path
     - Result
   * - ``x * c``, ``x + a`` (real ``c >= 1``, ``a >= 0``), ``+x``
     - ``"sampled"`` kept, coverage kept
   * - ``abs(x)``, ``math.ceil(x)``
     - ``"sampled"`` kept: :math:`|v| \ge v`, :math:`\lceil v\rceil
       \ge v`
   * - ``x - a``, ``x / c``, ``-x``, ``x * c`` (``c < 1``), ``x + y``
     - ``"derived"`` (may lower the bound)
   * - ``round(x)``, ``math.floor(x)``, ``math.trunc(x)``
     - a ``"derived"`` value
   * - ``x[i]`` and any indexing
     - ``"sampled"`` for a selection in place, else ``"derived"`` (see
       Coverage)
   * - ``sum([x, ...])``
     - ``0 + x`` keeps ``x``; two values added give ``"derived"``
   * - ``x < a``, ``x <= a``, ``x > a``, ``x >= a``, ``a`` a plain
       number
     - a bool, with ``PrivacyLeakWarning``: ``min``, ``max`` and
       ``sorted`` order with these and may hand back the plain number
   * - ``min(x, a)``, ``max(x, a)``, ``sorted([x, a])``
     - warn (the comparison above); return ``x`` unchanged or the
       plain ``a``
   * - ``min``, ``max``, ``sorted`` of values only
     - no warning: each result is one of the values, with its own
       provenance
   * - ``x == a``, ``x != a``, ``bool(x)``
     - a plain comparison, no warning (no number is handed back)
   * - ``float(x)``, ``int(x)``, ``np.asarray(x)``, ``np.array(x)``,
       ``math.sqrt(x)`` and the other ``math`` functions
     - the plain number, with ``PrivacyLeakWarning``
   * - ``format(x, spec)``, ``f"{x}"``, ``f"{x:.17g}"``, ``"{}".format(x)``
     - the number's text, with ``PrivacyLeakWarning``: ``float`` of it
       is a plain number (``repr(x)``, ``str(x)`` keep ``gamma`` and
       do not read back as a number)
   * - numpy ufuncs: ``np.sqrt(x)``, ``np.maximum(x, a)``
     - ``TypeError`` (``__array_ufunc__ = None``): use the arithmetic
       above, or ``x.value``
   * - ``copy.copy``, ``copy.deepcopy``, ``pickle``
     - an equal value: source, run, norm, label and coverage kept, the
       array read-only again
   * - ``x.value``, ``est.to_dict()``, ``est.to_records()``,
       ``est.to_pandas()``
     - plain numbers on purpose, no warning; the rows carry ``gamma``,
       ``run_id`` and ``ordinal`` (``to_dict`` also the output shape);
       a number read back from them is a plain number, which a
       mechanism reads as a global bound the caller vouches for

References
----------
.. [1] B. I. P. Rubinstein and F. Aldà, "Pain-Free Random Differential Privacy
   with Sensitivity Sampling", Proc. 34th ICML, PMLR 70, 2017.
"""

from __future__ import annotations

import functools
import math
import textwrap
import warnings
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from numbers import Real
from typing import Any, Literal, NoReturn

import numpy as np

from ._domains import PROBABILITY_CLOSED, SOURCES
from ._extras import require
from ._html import estimate_html, sensitivity_value_html
from ._text import text_table
from ._validation import check_choice, check_count, check_real
from .plan import SamplingPlan
from .privacy import PrivacyLeakWarning, SamplingRun, format_upper

__all__ = [
    "Coverage",
    "SamplingProblem",
    "SensitivityValue",
    "SensitivityEstimate",
    "SensitivityEstimates",
]

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


@dataclass(frozen=True)
class Coverage:
    """What a sensitivity bounds: coordinates of a query's output, as released.

    Parameters
    ----------
    output_shape : tuple of int
        Shape of the query's output (of one part, for a tuple or dict output).
    coordinates : tuple of int
        Flat (C-order) indices into the output of the coordinates the value
        bounds, in the order of the value's own coordinates: every coordinate
        for an estimate; those selected by indexing a per-coordinate value.
    shape : tuple of int
        Shape of the release the value covers: the output's for a scalar in
        the l1, l2 or linf norm (it bounds the norm of the whole output's
        change), the value's own for a per-coordinate value.
    records : bool, default False
        The output is record-wise (one block per record, as
        ``queries.identity``) and the value a scalar in the l1, l2 or linf
        norm: replacing one record moves one block, so the value also covers
        releases of any number of records, shape ``(r, *shape[1:])``, each
        record at most once. That last condition is the caller's: a release
        holding a record twice moves two blocks when the record is replaced
        (twice the privacy loss), and a shape cannot show it, as it cannot
        show which coordinates a value holds.
    n : int or None, default None
        The database size of the run (the sampled pairs' size, often 1 for
        a record-wise query), for a record-wise value (required when
        ``records``); ``None`` otherwise.
    offset : int, default 0
        Position in the run's ``released`` order statistics of this part's
        first (its output's coordinate c is at ``offset + c`` per coordinate,
        the whole part at ``offset`` in a scalar norm).
    """

    output_shape: tuple[int, ...]
    coordinates: tuple[int, ...]
    shape: tuple[int, ...]
    records: bool = False
    n: int | None = None
    offset: int = 0

    def __post_init__(self):
        size = math.prod(self.output_shape)
        if any(not 0 <= c < size for c in self.coordinates):
            raise ValueError(
                f"coordinates must be flat indices into an output of shape "
                f"{self.output_shape}, got coordinates={self.coordinates!r}."
            )
        if self.records != (self.n is not None):
            raise ValueError(
                "n must be the run's database size for a record-wise coverage "
                f"and None otherwise, got n={self.n!r} with "
                f"records={self.records!r}."
            )
        if self.n is not None:
            object.__setattr__(self, "n", check_count("n", self.n))
        object.__setattr__(self, "offset", check_count("offset", self.offset, minimum=0))

    @classmethod
    def whole(
        cls,
        output_shape: tuple[int, ...],
        shape: tuple[int, ...],
        records: bool = False,
        n: int | None = None,
        offset: int = 0,
    ) -> Coverage:
        """Every coordinate of an output of ``output_shape``, released as ``shape``.

        Parameters
        ----------
        output_shape, shape : tuple of int
            The query's output shape and the shape of the release covered.
        records : bool, default False
            Record-wise (see :class:`Coverage`).
        n : int or None, default None
            The run's database size, for a record-wise coverage.
        offset : int, default 0
            Position of the part in the run's released order statistics.

        Returns
        -------
        Coverage
            The coverage of every coordinate.
        """
        output_shape = tuple(int(d) for d in output_shape)
        coordinates = tuple(range(math.prod(output_shape)))
        shape = tuple(int(d) for d in shape)
        return cls(output_shape, coordinates, shape, records, n, offset)

    def covers(self, shape: tuple[int, ...]) -> bool:
        """Whether a release of ``shape`` is what the value bounds.

        Parameters
        ----------
        shape : tuple of int
            Shape of the release.

        Returns
        -------
        bool
            True when the value bounds a release of that shape.
        """
        if shape == self.shape:
            return True
        return (
            self.records
            and len(shape) == len(self.shape) > 0
            and shape[1:] == self.shape[1:]
        )

    @property
    def in_place(self) -> bool:
        """Every coordinate once, in increasing order (a selection in place)."""
        c = self.coordinates
        return all(a < b for a, b in zip(c, c[1:]))

    def describe(self) -> str:
        """E.g. ``"coordinates (0,) of an output of shape (2,), released as ()"``.

        Returns
        -------
        str
            A sentence naming the coordinates covered and the release's shape.
        """
        which = (
            "every coordinate"
            if self.coordinates == tuple(range(math.prod(self.output_shape)))
            else f"coordinates {self.coordinates}"
        )
        records = (
            f" or of any number of records, shape (r, *{self.shape[1:]}), each "
            f"record at most once (sampled at n = {self.n})"
            if self.records
            else ""
        )
        return (
            f"{which} of an output of shape {self.output_shape}, released with "
            f"shape {self.shape}{records}"
        )


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
    def _leak(self) -> None:
        # stacklevel 3: the caller of float()/np.asarray(), not this helper.
        message = _LEAK.format(source=self.source, label=self.label)
        warnings.warn(message, PrivacyLeakWarning, stacklevel=3)

    def __float__(self) -> float:
        if self.ndim:
            raise TypeError(
                "a per-coordinate sensitivity has no single float value; "
                "index a coordinate."
            )
        self._leak()
        return float(self.value)

    def __int__(self) -> int:
        if self.ndim:
            raise TypeError(
                "a per-coordinate sensitivity has no single int value; "
                "index a coordinate."
            )
        self._leak()
        return int(self.value)

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
        gamma = "" if self.run is None else f", gamma={format_upper(self.run.gamma, 4)}"
        return (
            f"SensitivityValue({value}, source={self.source!r}{gamma}, "
            f"label={self.label!r})"
        )

    def _repr_html_(self) -> str:
        """Rich display in notebooks: the value (rounded up) and what it guarantees."""
        return sensitivity_value_html(self, format_upper)

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


@dataclass(frozen=True, eq=False)
class SamplingProblem:
    """What a sampling run sampled: enough to draw fresh pairs with the same engine.

    :func:`sensampler.audit.audit_estimate` draws fresh neighbouring pairs of
    the same query, size and norm, from the same population or another one,
    through :func:`sensampler.sample_sensitivity`, under the run's neighbouring
    relation (``run.neighbours``, which the audit repeats).

    Parameters
    ----------
    query : sensampler.queries.Query
        The query as the sampler evaluated it (its batching and additive
        declarations included).
    population : sensampler.distributions.Distribution
        The population the pairs were drawn from.
    n : int
        Database size.
    norm : sensampler.norms.SensitivityNorm
        The norm the sensitivities were measured in.
    options : tuple of (str, object)
        Further keyword arguments of :func:`~sensampler.sample_sensitivity`
        that a fresh run must repeat (``order_dependent`` when the run opted in).
    """

    query: Callable[..., Any]
    population: Any
    n: int
    norm: Any
    options: tuple[tuple[str, Any], ...] = ()


class _ReadsTheRun:
    """Properties read from the sampling run ``self.run``."""

    run: SamplingRun

    @property
    def m(self) -> int:
        """Number of neighbouring pairs drawn."""
        return self.run.m

    @property
    def k(self) -> int:
        """Rank of the released order statistic, ``1 <= k <= m``."""
        return self.run.k

    @property
    def gamma(self) -> float:
        """Random-DP failure probability the run certifies, ``beta + rho``."""
        return self.run.gamma

    @property
    def rho(self) -> float:
        """The sampler's own share of :attr:`gamma` (see :mod:`sensampler.plan`)."""
        return self.run.rho

    @property
    def bound(self) -> str:
        """The sampling plan's bound (``"exact"``, ``"exchangeable"`` or ``"dkw"``)."""
        return self.run.bound

    @property
    def run_id(self) -> str | None:
        """Identity of the sampling run (``None``: anonymous)."""
        return self.run.run_id

    @property
    def seed(self):
        """``(entropy, spawn_key)`` of the run's root ``SeedSequence``."""
        return self.run.seed

    @property
    def ordinal(self) -> int:
        """How many sampling runs this process had drawn, this one included."""
        return self.run.ordinal

    @property
    def neighbours(self) -> str:
        """The neighbouring relation the pairs were drawn under."""
        return self.run.neighbours


@dataclass(frozen=True, eq=False)
class SensitivityEstimate(_ReadsTheRun):
    """A sampled sensitivity, with the run and plan that back it.

    Only ``sensitivity`` carries the random-DP guarantee: with probability at
    least ``1 - gamma`` over the sampling run and a fresh pair of neighbouring
    databases from the population, the pair's sensitivity does not exceed it.
    ``mean`` is the typical value of the sensitivity, for comparison; a
    mechanism calibrated with it is *not* random-DP. Both are
    :class:`SensitivityValue` objects that keep the run; ``.value`` reads the
    plain number.

    Unpacks as the pair ``sensitivity, mean`` (both keeping their provenance).

    Parameters
    ----------
    samples : array-like of shape (m,) or (m, *output_shape)
        The sampled sensitivities :math:`G_i` (read-only once stored).
    run : SamplingRun
        The sampling run: its identity, joint ``gamma`` and ``rho``, ``m``,
        ``k``, bound, root seed and ordinal.
    plan : SamplingPlan
        The plan of one part (``gamma`` split evenly over ``parts``).
    norm : str
        Name of the norm.
    n : int
        Database size.
    parts : int, default 1
        Order statistics released jointly by the run (outputs x coordinates).
    query : str, default ""
        Name of the query.
    part : int or str or None, default None
        Position or key of this part in a tuple or dict output.
    output_shape : tuple of int, optional
        Shape of the query's output (this part's); recorded in the values'
        :class:`Coverage`. By default the samples' trailing shape for a
        per-coordinate norm, unknown (no coverage) for a scalar one.
    recordwise : bool, default False
        The query is record-wise (``Query.recordwise``): a scalar sensitivity
        then covers releases of up to ``n`` records (``Coverage.records``).
    offset : int, default 0
        Position of this part's order statistics in the run's ``released``
        (set by the sampler): when the run records them, the estimate's
        :math:`G_{(k)}` must be those numbers, or it is refused.
    problem : SamplingProblem or None, default None
        What the run sampled (query, population, n, norm), set by the
        sampler so that the estimate can be audited on fresh pairs
        (:func:`sensampler.audit.audit_estimate`). Not compared, and not
        pickled: it holds the caller's query and population, which need not
        pickle, so a pickled estimate comes back with ``problem=None``.
    bounds : sensampler.bounds.Bounds or None, default None
        The clipping bounds of the records of every sampled database (set by
        the sampler with ``bounds=``): the sensitivity is that of the query on
        clipped records, and a release must clip the private data the same
        way (``bounds.clip``).
    worst_case : float or None, default None
        The sensitivity of the clipped query over *every* pair of neighbours,
        in ``norm`` (analytic, for the built-in queries: see
        :func:`sensampler.bounds.worst_case_sensitivity`); ``None`` when no
        bound is known. A mechanism calibrated with the estimate states a
        plain DP guarantee from it (``privacy.worst_case``).

    Attributes
    ----------
    sensitivity : SensitivityValue
        The order statistic :math:`G_{(k)}` (per coordinate for
        ``norm="coordinate"``), source ``"sampled"``.
    mean : SensitivityValue
        Mean of the sampled sensitivities, source ``"typical"``.
    m, k, gamma, rho, bound, run_id, seed, ordinal, neighbours
        Read from ``run``: ``gamma`` is the failure probability of everything
        the run released, jointly (a union bound over ``parts``).
    """

    samples: np.ndarray = field(repr=False)
    run: SamplingRun
    plan: SamplingPlan
    norm: str
    n: int
    parts: int = 1
    query: str = ""
    part: int | str | None = None
    output_shape: tuple[int, ...] | None = None
    recordwise: bool = False
    offset: int = 0
    problem: SamplingProblem | None = field(default=None, compare=False, repr=False)
    bounds: Any = None
    worst_case: float | None = None
    sensitivity: SensitivityValue = field(init=False)
    mean: SensitivityValue = field(init=False)

    def __post_init__(self):
        samples = np.array(self.samples, dtype=float)
        if samples.ndim == 0 or samples.shape[0] != self.run.m:
            raise ValueError(
                f"samples must hold one sensitivity per pair (m={self.run.m}), "
                f"got shape {samples.shape}."
            )
        samples.setflags(write=False)
        offset = check_count("offset", self.offset, minimum=0)
        if self.worst_case is not None:
            if self.bounds is None:
                raise ValueError(
                    "a worst-case sensitivity holds for records clipped to bounds, "
                    f"got worst_case={self.worst_case!r} with bounds=None."
                )
            worst = check_real("worst_case", self.worst_case, low=0.0)
            # a realised pair's sensitivity cannot exceed the worst case
            if samples.size and samples.max() > worst * (1 + 1e-9):
                raise ValueError(
                    f"worst_case must bound every sampled sensitivity, got "
                    f"worst_case={worst!r} below a sampled {float(samples.max())!r}."
                )
            rule = getattr(getattr(self.problem, "query", None), "worst_case", None)
            if self.problem is not None and (
                rule is None
                or rule(
                    self.bounds.low, self.bounds.high, self.n, self.run.neighbours,
                    self.norm,
                )
                != worst
            ):
                raise ValueError(
                    "worst_case must be the analytic worst case of the sampled "
                    f"query on records clipped to the bounds, got worst_case={worst!r}."
                )
            object.__setattr__(self, "worst_case", worst)
        output_shape = self.output_shape
        if output_shape is None and samples.ndim > 1:
            output_shape = samples.shape[1:]
        coverage = None
        if output_shape is not None:
            output_shape = tuple(int(d) for d in output_shape)
            trailing = samples.shape[1:]
            if trailing and trailing != output_shape:
                raise ValueError(
                    f"output_shape must be the per-coordinate samples' trailing "
                    f"shape {trailing}, got output_shape={self.output_shape!r}."
                )
            records = bool(self.recordwise) and samples.ndim == 1
            n = self.n if records else None
            coverage = Coverage.whole(output_shape, output_shape, records, n, offset)
        k = self.run.k
        kth = np.partition(samples, k - 1, axis=0)[k - 1]
        released = self.run.released
        if released and not np.array_equal(
            kth.ravel(), released[offset : offset + kth.size]
        ):
            raise ValueError(
                f"samples give G_(k) = {kth.tolist()}, not the order statistic(s) "
                f"{list(released[offset : offset + kth.size])} that the run "
                f"released at offset {offset}: an estimate keeps its run's samples."
            )
        set_ = object.__setattr__
        set_(self, "samples", samples)
        set_(self, "output_shape", output_shape)
        value = functools.partial(
            SensitivityValue, run=self.run, norm=self.norm, coverage=coverage
        )
        set_(self, "sensitivity", value(kth, "sampled", label="G_(k)"))
        set_(self, "mean", value(samples.mean(axis=0), "typical", label="mean"))

    def __reduce__(self):
        # The problem is left out: the caller's query and population need not pickle.
        fields = (self.samples, self.run, self.plan, self.norm, self.n)
        return (
            type(self),
            fields
            + (self.parts, self.query, self.part, self.output_shape, self.recordwise)
            + (self.offset, None, self.bounds, self.worst_case),
        )

    def __iter__(self) -> Iterator[SensitivityValue]:
        yield self.sensitivity
        yield self.mean

    # -------------------------------------------------------- typical values
    def typical(self, sd: float = 0.0) -> SensitivityValue:
        """Mean plus ``sd`` standard deviations of the samples: no guarantee.

        The offsets the source documents try (``mean + 2 sd`` and so on), as a
        typical value that mechanisms and accountants refuse to certify. Here
        sd = standard deviation of the m sampled sensitivities (ddof=0), not of
        the data (per coordinate for ``norm="coordinate"``).

        Parameters
        ----------
        sd : float, default 0
            Standard deviations above the mean, ``>= 0``; 0 gives the mean.

        Returns
        -------
        SensitivityValue
            Source ``"typical"``, labelled ``"mean"`` or ``"mean + {sd} sd"``.
        """
        sd = check_real("sd", sd, low=0.0)
        value = self.mean.value + sd * self.samples.std(axis=0)
        label = f"mean + {sd:g} sd" if sd else "mean"
        return SensitivityValue(
            value, "typical", self.run, self.norm, label, self.mean.coverage
        )

    def quantile(self, q: float) -> SensitivityValue:
        """Empirical quantile of the sampled sensitivities: a typical value.

        Parameters
        ----------
        q : float
            The quantile, ``0 <= q <= 1``.

        Returns
        -------
        SensitivityValue
            Source ``"typical"`` (no guarantee), labelled ``"quantile {q}"``.
        """
        value = np.quantile(self.samples, PROBABILITY_CLOSED.check("q", q), axis=0)
        return SensitivityValue(
            value,
            "typical",
            self.run,
            self.norm,
            f"quantile {q:g}",
            self.mean.coverage,
        )

    # ----------------------------------------------------------------- export
    def to_dict(self, samples: bool = False) -> dict[str, Any]:
        """A JSON-friendly dictionary (the samples only if asked).

        Parameters
        ----------
        samples : bool, default False
            Include the sampled sensitivities.

        Returns
        -------
        dict
            Plain numbers, lists and strings only.
        """
        out: dict[str, Any] = {
            "sensitivity": np.asarray(self.sensitivity.value).tolist(),
            "mean": np.asarray(self.mean.value).tolist(),
            "m": self.m,
            "k": self.k,
            "gamma": self.gamma,
            "rho": self.rho,
            "bound": self.bound,
            "norm": self.norm,
            "n": self.n,
            "parts": self.parts,
            "part": self.part,
            "query": self.query,
            "neighbours": self.neighbours,
            "output_shape": (
                None if self.output_shape is None else list(self.output_shape)
            ),
            "recordwise": self.recordwise,
            "order_dependent": self.run.order_dependent,
            "run_id": self.run_id,
            "seed": _plain_seed(self.seed),
            "ordinal": self.ordinal,
            "plan": asdict(self.plan),
        }
        if self.bounds is not None:
            out["bounds"] = [self.bounds.low, self.bounds.high]
            out["worst_case"] = self.worst_case
        if samples:
            out["samples"] = self.samples.tolist()
        return out

    def to_records(self) -> list[dict[str, Any]]:
        """One row per coordinate (a single row for a single sensitivity).

        Columns: query, part, coordinate, sensitivity, mean, sd, m, k, gamma,
        rho, bound, norm, n, run_id, ordinal.

        Returns
        -------
        list of dict
            The rows, keyed by the columns above.
        """
        sens = np.asarray(self.sensitivity.value)
        mean = np.asarray(self.mean.value)
        sd = self.samples.std(axis=0)
        rows = []
        for index in np.ndindex(sens.shape):
            rows.append(
                {
                    "query": self.query,
                    "part": self.part,
                    "coordinate": (
                        None if not index else index[0] if len(index) == 1 else index
                    ),
                    "sensitivity": float(sens[index]),
                    "mean": float(mean[index]),
                    "sd": float(sd[index]),
                    "m": self.m,
                    "k": self.k,
                    "gamma": self.gamma,
                    "rho": self.rho,
                    "bound": self.bound,
                    "norm": self.norm,
                    "n": self.n,
                    "run_id": self.run_id,
                    "ordinal": self.ordinal,
                }
            )
        return rows

    def to_pandas(self):
        """:meth:`to_records` as a ``pandas.DataFrame`` (needs pandas).

        Returns
        -------
        pandas.DataFrame
            The rows of :meth:`to_records`.
        """
        return _data_frame(self.to_records())

    def summary(self) -> str:
        """A short readable table, stating what the plan guarantees.

        Returns
        -------
        str
            The table, one line per field.
        """

        def fmt(value):
            if np.ndim(value) == 0:
                return f"{value:.6g}"
            return np.array2string(np.asarray(value), precision=4, threshold=8)

        rows = [("query", self.query or "?")]
        if self.part is not None:
            rows.append(("part", repr(self.part)))
        rows += [
            ("neighbours", f"{self.neighbours}, n={self.n}{_pairs(self)}"),
            ("norm", self.norm),
            (
                "sensitivity",
                f"{fmt(self.sensitivity.value)}  "
                f"(order statistic k={self.k} of m={self.m})",
            ),
            (
                "mean",
                f"{fmt(self.mean.value)}  (typical value; no random-DP guarantee)",
            ),
            (
                "gamma",
                f"{format_upper(self.gamma, 6)}  ({self.bound} bound"
                f"{'' if self.bound == 'exchangeable' else f', rho={format_upper(self.rho, 3)}'}"
                f"{f', {self.parts} parts jointly' if self.parts > 1 else ''})",
            ),
            ("run", f"#{self.ordinal} of this process, seed {_seed_text(self.seed)}"),
        ]
        if self.run.order_dependent:
            rows.append(
                (
                    "order",
                    "the query depends on the order of the records (accepted): "
                    "a release may publish a record exactly",
                )
            )
        lines = text_table(rows, header=False)
        lines.append(textwrap.fill(f"{self.bound}: {self.plan.meaning}", 79))
        lines.append(_SHOPPING)
        return "\n".join(lines)

    __str__ = summary

    def _repr_html_(self) -> str:
        """Notebook display: the sampled sensitivities, G_(k) and the mean marked."""
        return estimate_html(self)

    def __repr__(self) -> str:
        return (
            f"SensitivityEstimate(sensitivity={self.sensitivity.value!r}, m={self.m}, "
            f"k={self.k}, gamma={format_upper(self.gamma, 6)}, norm={self.norm!r}, "
            f"bound={self.bound!r})"
        )


_SHOPPING = (
    "Choosing among several runs raises the probability of failure (record_run)."
)


def _plain_seed(seed):
    """The run's seed as JSON-friendly lists."""
    if seed is None:
        return None
    entropy, spawn_key = seed
    return [entropy if isinstance(entropy, int) else list(entropy), list(spawn_key)]


def _pairs(estimate) -> str:
    """Which add/remove pairs an estimate covers: (n - 1, n), never (n, n + 1)."""
    if estimate.neighbours != "add-remove":
        return ""
    n = estimate.n
    return f" (pairs of {n - 1} and {n} records; no addition to {n} was sampled)"


def _seed_text(seed) -> str:
    if seed is None:
        return "unknown"
    entropy, spawn_key = seed
    key = f", spawn_key={tuple(spawn_key)}" if spawn_key else ""
    return f"SeedSequence({entropy}{key})"


def _data_frame(records: list[dict[str, Any]]):
    pd = require("pandas", "pandas", "to_pandas")
    return pd.DataFrame.from_records(records)


@dataclass(frozen=True, eq=False)
class SensitivityEstimates(_ReadsTheRun):
    """The estimates of a query with several parts (a tuple or dict output).

    One sampling run releases every part, so the parts share ``run`` and its
    ``gamma`` (valid for all of them jointly). Index a part by position or
    key; the result cannot be iterated, so that ``sensitivity, mean = result``
    cannot take two parts for the pair of one.

    Parameters
    ----------
    estimates : tuple of SensitivityEstimate
        One per part, in output order.
    keys : tuple of str, optional
        The dict output's keys; ``None`` for a tuple output.

    Attributes
    ----------
    run : SamplingRun
        The run shared by every part; ``gamma``, ``rho``, ``run_id``, ``seed``
        and the others are read from it.

    Examples
    --------
    >>> from sensampler import sample_sensitivity
    >>> from sensampler.distributions import Normal
    >>> result = sample_sensitivity(
    ...     lambda db: {"mean": db.mean(), "max": db.max()}, Normal(), 20, m=50,
    ...     random_state=0)
    >>> result["mean"].gamma == result.gamma, len(result)
    (True, 2)
    """

    estimates: tuple[SensitivityEstimate, ...]
    keys: tuple[str, ...] | None = None
    run: SamplingRun = field(init=False, repr=False)

    def __post_init__(self):
        estimates = tuple(self.estimates)
        if not estimates or not all(
            isinstance(e, SensitivityEstimate) for e in estimates
        ):
            raise TypeError(
                f"estimates must be SensitivityEstimate objects, got {estimates!r}."
            )
        if any(e.run != estimates[0].run for e in estimates):
            raise ValueError("the parts of one result must share their sampling run.")
        if self.keys is not None and len(self.keys) != len(estimates):
            raise ValueError(
                f"keys must name each of the {len(estimates)} parts, got {self.keys!r}."
            )
        object.__setattr__(self, "estimates", estimates)
        object.__setattr__(self, "run", estimates[0].run)

    @property
    def parts(self) -> tuple[SensitivityEstimate, ...]:
        """The estimates, in output order."""
        return self.estimates

    @property
    def query(self) -> str:
        """Name of the query the parts are outputs of."""
        return self.estimates[0].query

    def __len__(self) -> int:
        return len(self.estimates)

    def __getitem__(self, part: int | str) -> SensitivityEstimate:
        if isinstance(part, (int, np.integer)) and not isinstance(part, bool):
            return self.estimates[part]
        if self.keys is not None and part in self.keys:
            return self.estimates[self.keys.index(part)]
        names = (
            "a position" if self.keys is None else f"a position or one of {self.keys}"
        )
        raise KeyError(f"part must be {names}, got {part!r}.")

    def __iter__(self) -> NoReturn:
        raise TypeError(
            f"the query {self.query!r} has {len(self)} parts, each with its own "
            "estimate; index a part (result[0] or result['key']) instead of "
            "unpacking or iterating the result."
        )

    def items(self) -> list[tuple[int | str, SensitivityEstimate]]:
        """``(key or position, estimate)`` for every part.

        Returns
        -------
        list of (int or str, SensitivityEstimate)
            The parts, in output order.
        """
        names = self.keys if self.keys is not None else range(len(self))
        return list(zip(names, self.estimates))

    def to_records(self) -> list[dict[str, Any]]:
        """Every part's :meth:`SensitivityEstimate.to_records`, in output order.

        Returns
        -------
        list of dict
            One row per coordinate of every part.
        """
        return [row for estimate in self.estimates for row in estimate.to_records()]

    def to_pandas(self):
        """:meth:`to_records` as a ``pandas.DataFrame`` (needs pandas).

        Returns
        -------
        pandas.DataFrame
            The rows of :meth:`to_records`.
        """
        return _data_frame(self.to_records())

    def to_dict(self, samples: bool = False) -> dict[str, Any]:
        """A JSON-friendly dictionary: the parts by key or position.

        Parameters
        ----------
        samples : bool, default False
            Include the sampled sensitivities.

        Returns
        -------
        dict
            ``parts``, ``gamma`` and ``run_id``, in plain numbers, lists and strings.
        """
        return {
            "parts": {str(k): e.to_dict(samples) for k, e in self.items()},
            "gamma": self.gamma,
            "run_id": self.run_id,
        }

    def summary(self) -> str:
        """Every part's summary, under its key or position.

        Returns
        -------
        str
            The parts' tables, separated by blank lines.
        """
        return "\n\n".join(e.summary() for e in self.estimates)

    __str__ = summary

    def _repr_html_(self) -> str:
        """Notebook display: one card per part."""
        return "".join(estimate_html(part) for part in self.parts)

    def __repr__(self) -> str:
        names = self.keys if self.keys is not None else len(self)
        return (
            f"SensitivityEstimates(query={self.query!r}, parts={names!r}, "
            f"gamma={format_upper(self.gamma, 6)})"
        )
