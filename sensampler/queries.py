"""Queries whose sensitivity is sampled.

A query maps one database, an array of shape ``(n, *record_shape)``, to an
array (or a tuple or dict of arrays). Built-in queries are *batched*: they
also evaluate a whole stack of databases of shape ``(B, n, *record_shape)`` in
one vectorised call, which is where the sampler's speed comes from. Any plain
Python callable works too (evaluated database by database), and
:func:`batched` declares a user function that accepts a stack.

Examples
--------
>>> import numpy as np
>>> from sensampler import queries
>>> stack = np.arange(6.0).reshape(2, 3)   # two databases of three records
>>> queries.mean.evaluate(stack)
array([1., 4.])
>>> queries.mean(np.array([1.0, 2.0, 6.0]))
3.0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Union, overload

import numpy as np
from numpy.typing import ArrayLike

from ._structure import first, stack_outputs
from ._validation import check_array, check_count

#: What a query returns for a stack of databases: one array, or a tuple or dict of
#: arrays (one sensitivity estimate each), with a leading axis of length ``B``.
QueryOutput = Union[np.ndarray, tuple[np.ndarray, ...], dict[str, np.ndarray]]

__all__ = [
    "Query",
    "BatchedQuery",
    "FunctionQuery",
    "EstimatorQuery",
    "batched",
    "as_query",
    "identity",
    "mean",
    "sum",
    "median",
    "quantile",
    "variance",
    "std",
    "count",
    "histogram",
    "estimator",
]


class Query:
    """Base class of queries: ``query(database)`` and ``query.evaluate(stack)``.

    ``releases_gil`` is True for the built-in batched queries, which run in numpy's
    C loops: the sampler then prefers threads to processes.
    """

    batched = False
    releases_gil = False
    name = "query"

    def __call__(self, data: ArrayLike) -> Any:
        raise NotImplementedError

    def evaluate(self, stack: np.ndarray) -> QueryOutput:
        """Outputs for a stack of databases, with a leading axis of length ``B``."""
        raise NotImplementedError

    def __repr__(self):
        return f"<{type(self).__name__} {self.name}>"


class BatchedQuery(Query):
    """A query given by a function of a whole stack ``(B, n, *record_shape)``.

    Parameters
    ----------
    func : callable
        ``func(stack)`` returns an array (or tuple or dict of arrays) whose
        leading axis has length ``B``, one output per database.
    name : str, optional
    """

    batched = True

    def __init__(
        self,
        func: Callable[[np.ndarray], QueryOutput],
        name: str | None = None,
        releases_gil: bool = False,
    ):
        if not callable(func):
            raise TypeError(f"query must be callable, got {func!r}.")
        self.func = func
        self.name = name or getattr(func, "__name__", "query")
        self.releases_gil = releases_gil

    def evaluate(self, stack: np.ndarray) -> QueryOutput:
        return self.func(stack)

    def __call__(self, data: ArrayLike) -> Any:
        return first(self.func(np.asarray(data)[None]))


class FunctionQuery(Query):
    """A plain callable ``func(database)``, evaluated database by database."""

    def __init__(self, func: Callable[[Any], Any], name: str | None = None):
        if not callable(func):
            raise TypeError(f"query must be callable, got {func!r}.")
        self.func = func
        self.name = name or getattr(func, "__name__", type(func).__name__)

    def __call__(self, data: ArrayLike) -> Any:
        return self.func(data)

    def evaluate(self, stack: np.ndarray) -> QueryOutput:
        return stack_outputs([self.func(db) for db in stack])


@overload
def batched(
    func: Callable[[np.ndarray], QueryOutput], *, name: str | None = None
) -> BatchedQuery: ...


@overload
def batched(
    func: None = None, *, name: str | None = None
) -> Callable[[Callable[[np.ndarray], QueryOutput]], BatchedQuery]: ...


def batched(
    func: Callable[[np.ndarray], QueryOutput] | None = None, *, name: str | None = None
) -> BatchedQuery | Callable[[Callable[[np.ndarray], QueryOutput]], BatchedQuery]:
    """Declare that ``func`` takes a stack of databases ``(B, n, *record_shape)``.

    Usable as ``@batched`` or ``@batched(name="...")``.

    Examples
    --------
    >>> import numpy as np
    >>> @batched
    ... def spread(stack):
    ...     return stack.max(axis=1) - stack.min(axis=1)
    >>> spread.evaluate(np.array([[1.0, 4.0], [2.0, 2.5]]))
    array([3. , 0.5])
    """
    if func is None:
        return lambda f: BatchedQuery(f, name=name)
    return BatchedQuery(func, name=name)


def as_query(query: Query | Callable[..., Any]) -> Query:
    """Return ``query`` as a :class:`Query` (callables become :class:`FunctionQuery`)."""
    if isinstance(query, Query):
        return query
    if callable(query):
        if getattr(query, "batched", False) is True:
            return BatchedQuery(query)
        return FunctionQuery(query)
    raise TypeError(f"query must be callable, got {query!r}.")


def _builtin(func, name) -> BatchedQuery:
    return BatchedQuery(func, name=name, releases_gil=True)


identity = _builtin(lambda stack: stack, "identity")
identity.__doc__ = "The whole database (the source documents' ``unprotected_query``)."
mean = _builtin(lambda stack: stack.mean(axis=1), "mean")
sum = _builtin(lambda stack: stack.sum(axis=1), "sum")  # noqa: A001
median = _builtin(lambda stack: np.median(stack, axis=1), "median")


def quantile(q: float) -> BatchedQuery:
    """The q-quantile(s) of the records (numpy's default linear interpolation).

    Parameters
    ----------
    q : float or array-like of floats in [0, 1]
    """
    qs = check_array("q", q)
    if np.any((qs < 0) | (qs > 1)):
        raise ValueError(f"q must be in [0, 1], got q={q!r}.")

    def func(stack):
        out = np.quantile(stack, qs, axis=1)
        return np.moveaxis(out, 0, 1) if qs.ndim else out

    return _builtin(func, f"quantile({q!r})")


def variance(ddof: int = 0) -> BatchedQuery:
    """Variance of the records (``ddof`` as in numpy)."""
    ddof = check_count("ddof", ddof, minimum=0)
    return _builtin(
        lambda stack: stack.var(axis=1, ddof=ddof), f"variance(ddof={ddof})"
    )


def std(ddof: int = 0) -> BatchedQuery:
    """Standard deviation of the records (``ddof`` as in numpy)."""
    ddof = check_count("ddof", ddof, minimum=0)
    return _builtin(lambda stack: stack.std(axis=1, ddof=ddof), f"std(ddof={ddof})")


def count(predicate: Callable[[np.ndarray], np.ndarray] | None = None) -> BatchedQuery:
    """Number of records for which ``predicate`` holds (default: non-zero records).

    Parameters
    ----------
    predicate : callable, optional
        Vectorised test: takes an array of records, returns booleans of the
        same leading shape (e.g. ``lambda x: x > 180``).
    """
    if predicate is not None and not callable(predicate):
        raise TypeError(f"predicate must be callable, got {predicate!r}.")

    def func(stack):
        hits = (
            stack != 0
            if predicate is None
            else np.asarray(predicate(stack), dtype=bool)
        )
        return hits.sum(axis=1).astype(float)

    return BatchedQuery(func, name="count")


def histogram(
    bins: int | ArrayLike = 10,
    range: tuple[float, float] | None = None,  # noqa: A002 - numpy's own name
) -> BatchedQuery:
    """Counts of scalar records in each bin, as ``numpy.histogram`` counts them.

    Parameters
    ----------
    bins : int or array-like
        Number of equal bins over ``range``, or the increasing bin edges.
    range : (float, float), optional
        Lower and upper edge; required when ``bins`` is an int. Records outside
        are not counted; the last bin includes its right edge.
    """
    if np.ndim(bins) == 0:
        nbins = check_count("bins", bins)
        if range is None:
            raise ValueError(
                "range must be given with an integer bins, e.g. range=(0, 1); "
                "the sampled databases must share their bin edges."
            )
        lo, hi = check_array("range", range, ndim=1)
        if not hi > lo:
            raise ValueError(f"range must be increasing, got range={range!r}.")
        edges = np.linspace(lo, hi, nbins + 1)
    else:
        edges = check_array("bins", bins, ndim=1)
        if edges.size < 2 or np.any(np.diff(edges) <= 0):
            raise ValueError(f"bins must be increasing edges, got bins={bins!r}.")
    nb = edges.size - 1

    def func(stack):
        stack = np.asarray(stack, dtype=float)
        b = stack.shape[0]
        flat = stack.reshape(b, -1)
        idx = np.searchsorted(edges, flat, side="right") - 1
        idx[flat == edges[-1]] = nb - 1
        inside = (idx >= 0) & (idx < nb)
        rows = np.broadcast_to(np.arange(b)[:, None] * nb, idx.shape)
        counts = np.bincount((rows + idx)[inside], minlength=b * nb)
        return counts.reshape(b, nb).astype(float)

    return _builtin(func, f"histogram({nb} bins)")


class EstimatorQuery(Query):
    """Fitted parameters of a scikit-learn estimator trained on the database.

    Each database row is ``(features..., target)``; the estimator is cloned
    and fitted on every database, and its ``attribute`` returned.

    Parameters
    ----------
    estimator : sklearn estimator
        Unfitted template (cloned for every database).
    attribute : str or tuple of str, default "coef_"
        Fitted attribute(s) to return; a tuple gives a tuple of outputs, each with
        its own sensitivity estimate.
    target : int or None, default -1
        Column of the target; ``None`` for unsupervised estimators.
    """

    def __init__(
        self,
        estimator: Any,
        attribute: str | tuple[str, ...] = "coef_",
        target: int | None = -1,
    ):
        if not hasattr(estimator, "fit"):
            raise TypeError(f"estimator must have a fit method, got {estimator!r}.")
        attrs = (
            (attribute,)
            if isinstance(attribute, str)
            else tuple(attribute)
            if isinstance(attribute, (tuple, list))
            else ()
        )
        if not attrs or not all(isinstance(a, str) for a in attrs):
            raise TypeError(
                f"attribute must be a str or a tuple of str, got {attribute!r}."
            )
        self.estimator = estimator
        self.attribute = attribute
        self.target = target
        self.name = f"{type(estimator).__name__}.{'/'.join(attrs)}"

    def __call__(self, data: ArrayLike) -> np.ndarray | tuple[np.ndarray, ...]:
        from sklearn.base import clone

        data = np.asarray(data, dtype=float)
        if data.ndim == 1:
            data = data[:, None]
        model = clone(self.estimator)
        if self.target is None:
            model.fit(data)
        else:
            model.fit(np.delete(data, self.target, axis=1), data[:, self.target])
        if isinstance(self.attribute, str):
            return np.asarray(getattr(model, self.attribute), dtype=float)
        return tuple(np.asarray(getattr(model, a), dtype=float) for a in self.attribute)

    def evaluate(self, stack: np.ndarray) -> QueryOutput:
        return FunctionQuery(self).evaluate(stack)


def estimator(
    model: Any, attribute: str | tuple[str, ...] = "coef_", target: int | None = -1
) -> EstimatorQuery:
    """Fitted parameters of a scikit-learn estimator (see :class:`EstimatorQuery`)."""
    return EstimatorQuery(model, attribute=attribute, target=target)
