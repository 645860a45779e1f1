r"""Person-level queries: neighbours differ in one person's rows.

A database of persons is an array of shape ``(n, L)``: one record per person,
its rows' values then NaN (:class:`~sensampler.distributions.Persons`,
:func:`~sensampler.distributions.group_rows`). Each person has between 1 and
L rows (a person without rows is not in a table), each value clipped to
``[a, b]``. The queries below read the padding, are vectorised over a stack
``(B, n, L)`` as the row-level built-ins are, and carry their worst-case
sensitivity over every pair of neighbouring databases of persons.

Worst cases (Wilson et al. 2020 [1]_, Sec. 3, and Amin et al. 2019 [2]_
bound a person's contribution by L rows of values in [a, b]; the bounds below
are derived for each query and relation, and are attained, so exact: the tests
brute-force them). Write ``w = b - a`` and the range of one person's total
:math:`T = \sum_{j \le k} x_j`, k in 1..L rows:
:math:`T_{lo} = \min(a, La)`, :math:`T_{hi} = \max(b, Lb)`.

* **rows** (count of rows, :math:`\sum_i k_i`): replace-one changes one
  :math:`k_i \in [1, L]` by at most ``L - 1``; add-remove adds ``k <= L``.
* **persons** (count of persons, n): replace-one keeps it (0); add-remove 1.
* **sum** (:math:`\sum_i T_i`): replace-one :math:`T_{hi} - T_{lo}`; add-remove
  :math:`\max(|T_{lo}|, |T_{hi}|)`, the person's total itself.
* **mean** of rows (:math:`\sum_i T_i / \sum_i k_i`): let the other persons
  hold C rows (C >= n - 1) of mean :math:`\mu \in [a, b]`, and the changing
  person k rows of mean :math:`\bar x`. Then :math:`f = \mu + k(\bar x -
  \mu)/(C + k)`, whose second term lies in :math:`[-k(\mu - a), k(b - \mu)]/(C +
  k)`, widest at k = L. Replace-one: two such terms differ by at most
  :math:`Lw/(C + L) \le Lw/(n - 1 + L)`; add-remove (D has n persons, D' the
  n - 1 others): the term itself, at most :math:`L\max(b - \mu, \mu - a)/(C + L)
  \le Lw/(n - 1 + L)`. Both are attained: the others one row each at a, the
  person(s) L rows at b (and at a).
* **mean of totals** (:math:`\frac1n\sum_i T_i`): replace-one :math:`(T_{hi} -
  T_{lo})/n`; add-remove :math:`(T - \bar T_{n-1})/n`, also within
  :math:`(T_{hi} - T_{lo})/n`.
* **histogram** (counts of rows per bin, B bins; a row outside the range is
  not counted): one person's rows are a count vector :math:`c \ge 0` with
  :math:`\|c\|_1 \le L`. Add-remove adds or removes one such vector: L in
  every norm (its L rows in one bin). Replace-one changes :math:`c` to
  :math:`c'`: :math:`\|c' - c\|_1 \le \|c'\|_1 + \|c\|_1 \le 2L`,
  :math:`\|c' - c\|_2 \le \sqrt{\|c\|_2^2 + \|c'\|_2^2} \le \sqrt2 L`
  (both non-negative: the cross term only lowers it), and
  :math:`\|c' - c\|_\infty \le L`; with B >= 2 all are attained (L rows in
  one bin replaced by L rows in another). With one bin the change is a
  difference of two counts in [0, L]: L, attained when a row can fall outside
  the range (else L - 1, which L bounds).

References
----------
.. [1] R. J. Wilson, C. Y. Zhang, W. Lam, D. Desfontaines, D. Simmons-Marengo,
   B. Gipson, "Differentially Private SQL with Bounded User Contribution",
   PoPETs 2020(2).
.. [2] K. Amin, A. Kulesza, A. Muñoz Medina, S. Vassilvitskii, "Bounding User
   Contributions: A Bias-Variance Trade-off in Differential Privacy", ICML 2019.

Examples
--------
>>> import numpy as np
>>> from sensampler import units
>>> people = np.array([[1.0, 2.0, np.nan], [4.0, np.nan, np.nan]])
>>> float(units.mean(3)(people)), float(units.mean_of_totals(3)(people))
(2.3333333333333335, 3.5)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ._lib.structure import first
from ._lib.validation import check_count
from ._math.worst_cases import SCALAR_NORMS, coordinate_as_l1
from ._sampling.trusted import trust
from .queries import BatchedQuery
from .queries import histogram as row_histogram

__all__ = [
    "PERSON_QUERIES",
    "PersonQuery",
    "histogram",
    "mean",
    "mean_of_totals",
    "persons",
    "rows",
    "sum",
]


def _total_range(low: float, high: float, cap: int) -> tuple[float, float]:
    """The range of one person's total: 1 to ``cap`` values in [low, high]."""
    return min(low, cap * low), max(high, cap * high)


@coordinate_as_l1
def worst_rows(cap, low, high, n, neighbours, norm):
    # replace-one: k in [1, L] changes by L - 1; add-remove: k <= L.
    if norm not in SCALAR_NORMS:
        return None
    return float(cap - 1 if neighbours == "replace-one" else cap)


@coordinate_as_l1
def worst_persons(cap, low, high, n, neighbours, norm):
    # replace-one keeps n; add-remove moves it by one.
    if norm not in SCALAR_NORMS:
        return None
    return 0.0 if neighbours == "replace-one" else 1.0


@coordinate_as_l1
def worst_sum(cap, low, high, n, neighbours, norm):
    # replace-one: T - T' within T_hi - T_lo; add-remove: the total T itself.
    if norm not in SCALAR_NORMS:
        return None
    lo, hi = _total_range(low, high, cap)
    return hi - lo if neighbours == "replace-one" else max(abs(lo), abs(hi))


@coordinate_as_l1
def worst_mean(cap, low, high, n, neighbours, norm):
    # both relations: L w / (n - 1 + L) (the module's docstring derives it).
    if norm not in SCALAR_NORMS:
        return None
    return cap * (high - low) / (n - 1 + cap)


@coordinate_as_l1
def worst_mean_of_totals(cap, low, high, n, neighbours, norm):
    # both relations: (T_hi - T_lo) / n.
    if norm not in SCALAR_NORMS:
        return None
    lo, hi = _total_range(low, high, cap)
    return (hi - lo) / n


@coordinate_as_l1
def worst_histogram(bins, cap, low, high, n, neighbours, norm):
    """The histogram's worst case over ``bins`` bins at the cap L (the module's
    docstring derives it): L, or 2L (l1) and sqrt(2) L (l2) for replace-one
    over two bins or more."""
    if norm not in SCALAR_NORMS:
        return None
    if neighbours == "add-remove" or bins == 1 or norm == "linf":
        return float(cap)
    return 2.0 * cap if norm == "l1" else float(np.sqrt(2.0) * cap)


class PersonQuery(BatchedQuery):
    """A person-level query: databases of NaN-padded persons ``(B, n, L)``.

    ``query(data)`` and ``query.evaluate(stack)`` refuse, naming ``data`` or
    ``stack``, what is not an array of real numbers of at most ``cap`` rows per
    person, an infinity, or a person without a row (all NaN); an answer that
    overflows float64 is refused too. ``privacy_unit`` is ``"person"``; ``cap`` is the
    most rows a person holds, which the worst case (``worst_case``, see the
    module's docstring) is derived for.
    """

    privacy_unit = "person"

    def __init__(self, func, name: str, cap: int, rule: Callable, additive=None):
        super().__init__(func, name=name, releases_gil=True, additive=additive)
        self.cap = cap
        self.worst_case = functools.partial(rule, cap)

    def evaluate(self, stack: np.ndarray) -> np.ndarray:
        """The answers of a stack of databases of persons.

        Parameters
        ----------
        stack : ndarray of shape (B, n, L)
            The databases, ``L <= cap``, NaN after each person's rows.

        Returns
        -------
        ndarray of shape (B,)
        """
        return self._answer("stack", stack, 3)

    def __call__(self, data: Any) -> Any:
        return first(self._answer("data", data, 2))

    def _answer(self, name: str, value: Any, ndim: int) -> np.ndarray:
        arr = np.asarray(value)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold real numbers, got {arr.dtype} values.")
        if arr.ndim != ndim or 0 in arr.shape or arr.shape[-1] > self.cap:
            lead = "(B, n, L)" if ndim == 3 else "(n, L)"
            raise ValueError(
                f"{name} must have shape {lead} with at least one person and "
                f"L <= cap={self.cap} rows per person, got shape {arr.shape}."
            )
        arr = arr.astype(float, copy=False)
        present = ~np.isnan(arr)
        if np.any(np.isinf(arr)) or not np.all(present.any(axis=-1)):
            raise ValueError(
                f"{name} must hold finite rows, at least one per person (NaN pads "
                "the unused slots), got an infinity or a person without a row."
            )
        stack = arr if ndim == 3 else arr[None]
        with np.errstate(over="ignore", invalid="ignore"):
            out = self.func(stack, present if ndim == 3 else present[None])
        if not np.all(np.isfinite(out)):
            raise ValueError(
                f"query {self.name!r} gives NaN or inf on these persons ({name} of "
                f"shape {arr.shape}): its answer overflows float64."
            )
        return out


def _built(func, name: str, cap: int, rule, additive=None) -> PersonQuery:
    """A person query at ``cap`` (checked), trusted when it is additive."""
    query = PersonQuery(func, name, check_count("cap", cap), rule, additive)
    return trust(query) if additive is not None else query


def _person_query(returns: str):
    """Append the common parameter and return sections to a person query's
    docstring (``returns``: what its :class:`PersonQuery` is)."""

    def document(func):
        func.__doc__ = (
            f"{func.__doc__.rstrip()}\n\n    Parameters\n    ----------\n    cap : int\n"
            "        Most rows per person, ``>= 1``.\n\n    Returns\n    -------\n"
            f"    PersonQuery\n        {returns}\n    "
        )
        return func

    return document


@_person_query(
    "Additive (a sum over persons); worst case L - 1 (replace-one), L (add-remove)."
)
def rows(cap: int) -> PersonQuery:
    """Count of rows of all persons."""
    return _built(
        lambda stack, present: present.sum(axis=(1, 2)).astype(float),
        "rows", cap, worst_rows, "sum",
    )


@_person_query("Additive; worst case 0 (replace-one), 1 (add-remove).")
def persons(cap: int) -> PersonQuery:
    """Count of persons."""
    return _built(
        lambda stack, present: np.full(stack.shape[0], float(stack.shape[1])),
        "persons", cap, worst_persons, "sum",
    )


@_person_query(
    r"Additive; worst case :math:`T_{hi} - T_{lo}` (replace-one), "
    r":math:`\max(|T_{lo}|, |T_{hi}|)` (add-remove)."
)
def sum(cap: int) -> PersonQuery:  # noqa: A001 - the query's name
    """Sum of the values of all rows."""
    return _built(
        lambda stack, present: np.where(present, stack, 0.0).sum(axis=(1, 2)),
        "sum", cap, worst_sum, "sum",
    )


def _mean_of_rows(stack, present):
    return np.where(present, stack, 0.0).sum(axis=(1, 2)) / present.sum(axis=(1, 2))


@_person_query("Worst case :math:`Lw/(n - 1 + L)` under both relations.")
def mean(cap: int) -> PersonQuery:
    """Mean of the values of all rows (not additive over persons: a ratio)."""
    return _built(_mean_of_rows, "mean", cap, worst_mean)


@_person_query('Additive ("mean"); worst case :math:`(T_{hi} - T_{lo})/n`.')
def mean_of_totals(cap: int) -> PersonQuery:
    """Mean over persons of each person's total."""
    return _built(
        lambda stack, present: np.where(present, stack, 0.0).sum(axis=2).mean(axis=1),
        "mean of totals", cap, worst_mean_of_totals, "mean",
    )


def histogram(
    cap: int,
    bins: int | Any = 10,
    range: tuple[float, float] | None = None,  # noqa: A002 - numpy's own name
) -> PersonQuery:
    r"""Counts of all persons' rows in each bin (rows outside ``range`` not counted).

    Parameters
    ----------
    cap : int
        Most rows per person, ``>= 1``.
    bins, range
        As :func:`sensampler.queries.histogram` takes them (and checks them).

    Returns
    -------
    PersonQuery
        Additive (a sum over persons); worst case L (add-remove, and one bin),
        2L in l1 and :math:`\sqrt2 L` in l2 for replace-one over two bins or
        more, L in linf.
    """
    rows_query = row_histogram(bins, range)  # the row counts, NaN not counted
    count = rows_query.func(np.full((1, 1), np.nan)).shape[1]
    return _built(
        lambda stack, present: rows_query.func(stack),
        f"histogram({count} bins)", cap,
        functools.partial(worst_histogram, count), "sum",
    )


#: The person-level queries a release names, each built at the cap L.
PERSON_QUERIES: dict[str, Callable[[int], PersonQuery]] = {
    "count": rows,
    "persons": persons,
    "sum": sum,
    "mean": mean,
    "mean-of-totals": mean_of_totals,
}
