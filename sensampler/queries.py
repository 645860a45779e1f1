r"""Queries whose sensitivity is sampled.

A query maps one database, an array of shape ``(n, *record_shape)``, to an
array (or a tuple or dict of arrays). Built-in queries are *batched*: they
also evaluate a whole stack of databases of shape ``(B, n, *record_shape)`` in
one vectorised call, which is where the sampler's speed comes from. Any plain
Python callable works too (evaluated database by database), and
:func:`batched` declares a user function that accepts a stack.

*Additive* queries are sums over records: with a per-record map g (any constant
factor is part of g) and a constant b,

.. math:: f(D) = a_n \sum_{i=1}^{n} g(d_i) + b, \qquad
   a_n = 1 \ (\text{additive="sum"}) \ \text{or}\ 1/n \ (\text{additive="mean"}).

For them :math:`f(D \cup \{x\}) - f(D \cup \{x'\}) = a_n (g(x) - g(x'))`
depends on the two differing records only, and the sampler draws no database:
sampling costs O(m) instead of O(m n). The built-ins ``mean`` ("mean"),
``sum``, ``count`` and ``histogram`` ("sum") are declared so; a user declares a
batched function with ``batched(func, additive="sum")`` or builds one from g
with :func:`additive`. A false declaration is refused by a randomized check
(see :func:`sensampler.sample_sensitivity`).

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
from ._validation import check_array, check_choice, check_count

#: What a query returns for a stack of databases: one array, or a tuple or dict of
#: arrays (one sensitivity estimate each), with a leading axis of length ``B``.
QueryOutput = Union[np.ndarray, tuple[np.ndarray, ...], dict[str, np.ndarray]]

__all__ = [
    "Query",
    "BatchedQuery",
    "FunctionQuery",
    "EstimatorQuery",
    "batched",
    "additive",
    "ADDITIVE_KINDS",
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


#: How an additive query combines its records: ``f(D) = sum_i g(d_i) + b`` or
#: ``f(D) = (1/n) sum_i g(d_i) + b``.
ADDITIVE_KINDS = ("sum", "mean")


class Query:
    """Base class of queries: ``query(database)`` and ``query.evaluate(stack)``.

    ``releases_gil`` is True for the built-in batched queries, which run in numpy's
    C loops: the sampler then prefers threads to processes. ``additive`` is
    ``None``, or one of :data:`ADDITIVE_KINDS` for a sum over records (see the
    module's docstring): the sampler then evaluates the query on one-record
    databases only.
    """

    batched = False
    releases_gil = False
    additive: str | None = None
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
    releases_gil : bool, default False
        True if ``func`` runs in numpy's C loops (the sampler may use threads).
    additive : {"sum", "mean"}, optional
        Declares ``func(D) = sum_i g(d_i) + b`` ("sum") or
        ``(1/n) sum_i g(d_i) + b`` ("mean") for some per-record map g and
        constant b (see the module's docstring).
    """

    batched = True

    def __init__(
        self,
        func: Callable[[np.ndarray], QueryOutput],
        name: str | None = None,
        releases_gil: bool = False,
        additive: str | None = None,
    ):
        if not callable(func):
            raise TypeError(f"query must be callable, got {func!r}.")
        if additive is not None:
            check_choice("additive", additive, ADDITIVE_KINDS)
        self.func = func
        self.name = name or getattr(func, "__name__", "query")
        self.releases_gil = releases_gil
        self.additive = additive

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
    func: Callable[[np.ndarray], QueryOutput],
    *,
    name: str | None = None,
    additive: str | None = None,
) -> BatchedQuery: ...


@overload
def batched(
    func: None = None, *, name: str | None = None, additive: str | None = None
) -> Callable[[Callable[[np.ndarray], QueryOutput]], BatchedQuery]: ...


def batched(
    func: Callable[[np.ndarray], QueryOutput] | None = None,
    *,
    name: str | None = None,
    additive: str | None = None,
) -> BatchedQuery | Callable[[Callable[[np.ndarray], QueryOutput]], BatchedQuery]:
    """Declare that ``func`` takes a stack of databases ``(B, n, *record_shape)``.

    Usable as ``@batched`` or ``@batched(name="...", additive="sum")``.

    Parameters
    ----------
    func : callable
    name : str, optional
    additive : {"sum", "mean"}, optional
        Declares that ``func`` is a sum (or a mean) over records plus a
        constant: the sampler then skips drawing databases. Checked on a probe
        database before sampling (see :func:`sensampler.sample_sensitivity`).

    Examples
    --------
    >>> import numpy as np
    >>> @batched
    ... def spread(stack):
    ...     return stack.max(axis=1) - stack.min(axis=1)
    >>> spread.evaluate(np.array([[1.0, 4.0], [2.0, 2.5]]))
    array([3. , 0.5])
    >>> @batched(additive="mean")
    ... def share_tall(stack):
    ...     return (stack > 180).mean(axis=1)
    >>> share_tall.additive
    'mean'
    """
    if func is None:
        return lambda f: BatchedQuery(f, name=name, additive=additive)
    return BatchedQuery(func, name=name, additive=additive)


def additive(record_map, *, mean=False, name=None) -> BatchedQuery:
    r"""The sum (or mean) over records of a per-record map g.

    ``f(D) = sum_i g(d_i)``, or ``(1/n) sum_i g(d_i)`` with ``mean=True``: an
    additive query, whose sensitivity the sampler draws in O(m) time whatever n.

    Parameters
    ----------
    record_map : callable
        Vectorised g: takes an array of records ``(N, *record_shape)`` and
        returns one output per record, shape ``(N, *output_shape)``. Output i
        must depend on record i alone (``lambda x: x - x.mean()`` does not: it
        would mix records of different databases).
    mean : bool, default False
        Divide the sum by the number of records n.
    name : str, optional

    Returns
    -------
    BatchedQuery
        Declared ``additive="mean"`` or ``"sum"``.

    Examples
    --------
    >>> import numpy as np
    >>> second_moment = additive(np.square, mean=True, name="second moment")
    >>> second_moment.evaluate(np.array([[1.0, 3.0], [2.0, 2.0]]))
    array([5., 4.])
    >>> second_moment.additive
    'mean'
    """
    if not callable(record_map):
        raise TypeError(f"record_map must be callable, got {record_map!r}.")
    if not isinstance(mean, (bool, np.bool_)):
        raise TypeError(f"mean must be True or False, got {mean!r}.")

    def func(stack):
        stack = np.asarray(stack)
        b, n = stack.shape[:2]
        per_record = np.asarray(record_map(stack.reshape((b * n,) + stack.shape[2:])))
        if per_record.ndim == 0 or per_record.shape[0] != b * n:
            raise ValueError(
                f"record_map must return one output per record (leading axis "
                f"{b * n}), got shape {per_record.shape}."
            )
        per_db = per_record.reshape((b, n) + per_record.shape[1:])
        return per_db.mean(axis=1) if mean else per_db.sum(axis=1)

    label = name or getattr(record_map, "__name__", "record_map")
    return BatchedQuery(func, name=label, additive="mean" if mean else "sum")


def as_query(query: Query | Callable[..., Any]) -> Query:
    """Return ``query`` as a :class:`Query` (callables become :class:`FunctionQuery`)."""
    if isinstance(query, Query):
        return query
    if callable(query):
        if getattr(query, "batched", False) is True:
            return BatchedQuery(query)
        return FunctionQuery(query)
    raise TypeError(f"query must be callable, got {query!r}.")


def _builtin(func, name, additive=None) -> BatchedQuery:
    return BatchedQuery(func, name=name, releases_gil=True, additive=additive)


identity = _builtin(lambda stack: stack, "identity")
identity.__doc__ = "The whole database (the source documents' ``unprotected_query``)."
mean = _builtin(lambda stack: stack.mean(axis=1), "mean", additive="mean")
sum = _builtin(lambda stack: stack.sum(axis=1), "sum", additive="sum")  # noqa: A001
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

    return BatchedQuery(func, name="count", additive="sum")


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

    return _builtin(func, f"histogram({nb} bins)", additive="sum")


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
