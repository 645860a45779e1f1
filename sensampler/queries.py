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

import functools
from collections.abc import Callable
from numbers import Integral
from typing import Any, Union, overload

import numpy as np
from numpy.typing import ArrayLike

from ._lib.structure import first, stack_outputs
from ._lib.threads import one_thread
from ._lib.validation import check_array, check_choice, check_count, check_flag
from ._math.worst_cases import (
    worst_count,
    worst_histogram,
    worst_mean,
    worst_quantiles,
    worst_sum,
    worst_variance,
)
from ._sampling.trusted import trust

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
    "MAX_BINS",
    "estimator",
]


#: How an additive query combines its records: ``f(D) = sum_i g(d_i) + b`` or
#: ``f(D) = (1/n) sum_i g(d_i) + b``.
ADDITIVE_KINDS = ("sum", "mean")


def _check_name(name: Any, func: Any, default: str) -> str:
    """A query's name: ``name`` (a str), or the function's own, or raise naming it."""
    if name is None:
        return str(getattr(func, "__name__", default))
    if not isinstance(name, str):
        raise TypeError(f"name must be a str or None, got name={name!r}.")
    return name or str(getattr(func, "__name__", default))


def _as_array(name: str, value: Any) -> np.ndarray:
    """``value`` as an array, or raise naming it (ragged nested sequences)."""
    try:
        return np.asarray(value)
    except ValueError as exc:
        raise TypeError(
            f"{name} must be an array (equal-length records), got {value!r}."
        ) from exc


def _user_map(label: str, func: Callable, records: np.ndarray, axes: int):
    """``func(records)``, checked: real and finite, its first ``axes`` axes those of
    ``records``; or raise naming ``label``, the parameter that holds ``func``."""
    try:
        out = _as_array(label, func(records))
    except Exception as exc:
        raise ValueError(f"{label} raised {type(exc).__name__}: {exc}") from exc
    leading = records.shape[:axes]
    if out.dtype.kind not in "biuf" or out.shape[:axes] != leading:
        raise ValueError(
            f"{label} must return one output per record (real numbers, leading "
            f"shape {leading}), got {out.dtype} values of shape {out.shape}."
        )
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{label} returned NaN or inf.")
    return out


class Query:
    """Base class of queries: ``query(database)`` and ``query.evaluate(stack)``.

    ``releases_gil`` is True for the built-in batched queries, which run in numpy's
    C loops: the sampler then prefers threads to processes. ``additive`` is
    ``None``, or one of :data:`ADDITIVE_KINDS` for a sum over records (see the
    module's docstring): the sampler then evaluates the query on one-record
    databases only. ``worst_case`` is ``None``, or for the built-in queries on
    scalar records a callable ``worst_case(low, high, n, neighbours, norm)``
    giving the sensitivity of the query on records clipped to ``[low, high]``
    over *every* pair of neighbouring databases of ``n`` records (the larger
    has n under ``"add-remove"``) in the norm named ``norm``, or ``None`` where
    no bound is derived (see :mod:`sensampler.bounds`).
    """

    batched = False
    releases_gil = False
    additive: str | None = None
    #: True for a record-wise query, one output block per record in order
    #: (``identity``): replacing one record moves one block, whatever n, so its
    #: sensitivity in the l1, l2 or linf norm covers releases of any number of
    #: records (see :class:`sensampler.estimate.Coverage`).
    recordwise = False
    name = "query"
    # See the class docstring.
    worst_case: Callable[..., float | None] | None = None

    def __call__(self, data: ArrayLike) -> Any:
        raise NotImplementedError

    def evaluate(self, stack: np.ndarray) -> QueryOutput:
        """Outputs for a stack of databases, with a leading axis of length ``B``.

        Parameters
        ----------
        stack : ndarray of shape (B, n, *record_shape)
            The databases.

        Returns
        -------
        ndarray, tuple of ndarray or dict of ndarray
            The outputs, each with a leading axis of length ``B``.
        """
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
        releases_gil = check_flag("releases_gil", releases_gil)
        self.func = func
        self.name = _check_name(name, func, "query")
        self.releases_gil = releases_gil
        self.additive = additive

    def evaluate(self, stack: np.ndarray) -> QueryOutput:
        """``func(stack)``: the outputs of the whole stack in one call.

        Parameters
        ----------
        stack : ndarray of shape (B, n, *record_shape)
            The databases, given to ``func`` as they are.

        Returns
        -------
        ndarray, tuple of ndarray or dict of ndarray
            What ``func`` returns: one output per database along the first axis.
        """
        return self.func(stack)

    def __call__(self, data: ArrayLike) -> Any:
        return first(self.evaluate(_as_array("data", data)[None]))


class _RecordQuery(BatchedQuery):
    """A built-in batched query, which checks the databases it is given.

    ``query(data)`` and ``query.evaluate(stack)`` refuse, naming ``data`` or
    ``stack``, what is not an array of at least one record per database (ragged
    sequences, no records), and with ``real_records`` (all built-ins but those
    with a user's map) what holds anything but finite real numbers; an answer
    that overflows float64 is refused too, never returned as inf or NaN.
    """

    def __init__(
        self, func, name, *, additive=None, releases_gil=True, real_records=True
    ):
        super().__init__(func, name=name, releases_gil=releases_gil, additive=additive)
        self.real_records = real_records

    def evaluate(self, stack: np.ndarray) -> QueryOutput:
        return self._answer("stack", stack, 2)

    def __call__(self, data: ArrayLike) -> Any:
        return first(self._answer("data", data, 1))

    def _answer(self, name: str, value: Any, ndim: int) -> QueryOutput:
        arr = _as_array(name, value)
        rule = (
            "(B, n, *record_shape) with B, n >= 1"
            if ndim == 2
            else "(n, *record_shape) with n >= 1"
        )
        if arr.ndim < ndim or 0 in arr.shape[:ndim]:
            raise ValueError(f"{name} must have shape {rule}, got shape {arr.shape}.")
        if self.real_records:
            if arr.dtype.kind not in "biuf":
                raise TypeError(
                    f"{name} must hold real numbers, got {arr.dtype} records."
                )
            arr = arr.astype(float, copy=False)
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"{name} must hold finite records, got NaN or inf.")
        stack = arr if ndim == 2 else arr[None]
        with np.errstate(over="ignore", invalid="ignore"):
            out = self.func(stack)
        for leaf in out if isinstance(out, tuple) else (out,):
            if not np.all(np.isfinite(leaf)):
                raise ValueError(
                    f"query {self.name!r} gives NaN or inf on these records "
                    f"({name} of shape {arr.shape}): its answer overflows float64."
                )
        return out


class FunctionQuery(Query):
    """A plain callable ``func(database)``, evaluated database by database.

    Parameters
    ----------
    func : callable
        ``func(database)`` for a database ``(n, *record_shape)``.
    name : str, optional
        Name shown in estimates; default: ``func``'s name.
    """

    def __init__(self, func: Callable[[Any], Any], name: str | None = None):
        if not callable(func):
            raise TypeError(f"query must be callable, got {func!r}.")
        self.func = func
        self.name = _check_name(name, func, type(func).__name__)

    def __call__(self, data: ArrayLike) -> Any:
        return self.func(data)

    def evaluate(self, stack: np.ndarray) -> QueryOutput:
        """``func`` on each database of the stack in turn, its answers stacked.

        Parameters
        ----------
        stack : ndarray of shape (B, n, *record_shape)
            The databases, one call of ``func`` each.

        Returns
        -------
        ndarray, tuple of ndarray or dict of ndarray
            The B answers, stacked part by part along a new first axis.
        """
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

    Returns
    -------
    BatchedQuery or callable
        The query; with ``func`` omitted, a decorator returning it.

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
    check_flag("mean", mean)

    def func(stack):
        b, n = stack.shape[:2]
        records = stack.reshape((b * n,) + stack.shape[2:])
        per_record = _user_map("record_map", record_map, records, 1)
        per_db = per_record.reshape((b, n) + per_record.shape[1:])
        return per_db.mean(axis=1) if mean else per_db.sum(axis=1)

    return _RecordQuery(
        func,
        _check_name(name, record_map, "record_map"),
        additive="mean" if mean else "sum",
        releases_gil=False,
        real_records=False,
    )


def as_query(query: Query | Callable[..., Any]) -> Query:
    """Return ``query`` as a :class:`Query` (callables become :class:`FunctionQuery`).

    Parameters
    ----------
    query : Query or callable
        The query.

    Returns
    -------
    Query
        ``query`` itself, or a :class:`FunctionQuery` (a :class:`BatchedQuery`
        for a callable marked ``batched``).
    """
    if isinstance(query, Query):
        return query
    if callable(query):
        if getattr(query, "batched", False) is True:
            return BatchedQuery(query)
        return FunctionQuery(query)
    raise TypeError(f"query must be callable, got {query!r}.")


def _builtin(func, name, additive=None) -> BatchedQuery:
    return _RecordQuery(func, name, additive=additive)


identity = _builtin(lambda stack: stack, "identity")
identity.__doc__ = (
    "The whole database (the source documents' ``unprotected_query``): record-wise, "
    "so an estimate at n covers releases of up to n records, each at most once."
)
identity.recordwise = True
# The additive built-ins are trusted: the sampler does not probe their declaration.
mean = _builtin(lambda stack: stack.mean(axis=1), "mean", additive="mean")
sum = _builtin(lambda stack: stack.sum(axis=1), "sum", additive="sum")  # noqa: A001
median = _builtin(lambda stack: np.median(stack, axis=1), "median")
#: The level of a one-quantile query (releases use the exponential mechanism).
median.quantile_level = 0.5


mean.worst_case = worst_mean
sum.worst_case = worst_sum
# trusted once complete: a later change of an attribute withdraws the trust
trust(mean)
trust(sum)
median.worst_case = functools.partial(worst_quantiles, 1)


def quantile(q: float) -> BatchedQuery:
    """The q-quantile(s) of the records (numpy's default linear interpolation).

    Parameters
    ----------
    q : float or array-like of floats in [0, 1]

    Returns
    -------
    BatchedQuery
        The query, evaluated on a whole stack of databases at once; for one
        ``q``, its ``quantile_level`` attribute is ``q`` (a release then uses
        :class:`~sensampler.mechanisms.ExponentialQuantileMechanism`).
    """
    qs = check_array("q", q)
    if qs.ndim > 1 or qs.size == 0:
        raise ValueError(
            f"q must be a number or a non-empty 1-d sequence, got q={q!r}."
        )
    if np.any((qs < 0) | (qs > 1)):
        raise ValueError(f"q must be in [0, 1], got q={q!r}.")

    def func(stack):
        out = np.quantile(stack, qs, axis=1)
        return np.moveaxis(out, 0, 1) if qs.ndim else out

    query = _builtin(func, f"quantile({q!r})")
    if qs.ndim == 0:  # one quantile: releases use the exponential mechanism
        query.quantile_level = float(qs)
    query.worst_case = functools.partial(worst_quantiles, qs.size)
    return query


def variance(ddof: int = 0) -> BatchedQuery:
    """Variance of the records (``ddof`` as in numpy).

    Parameters
    ----------
    ddof : int, default 0
        Delta degrees of freedom, ``>= 0``.

    Returns
    -------
    BatchedQuery
        The query, evaluated on a whole stack of databases at once.
    """
    return _dispersion(ddof, root=False)


def std(ddof: int = 0) -> BatchedQuery:
    """Standard deviation of the records: the square root of :func:`variance`.

    Parameters
    ----------
    ddof : int, default 0
        As in :func:`variance` (numpy's): the divisor is ``n - ddof``.

    Returns
    -------
    BatchedQuery
        The query, batched; its worst case is the square root of the variance's.
    """
    return _dispersion(ddof, root=True)


def _dispersion(ddof: int, root: bool) -> BatchedQuery:
    """The variance (``root`` False) or standard deviation query, ``ddof`` checked."""
    ddof = check_count("ddof", ddof, minimum=0)

    def func(stack):
        if stack.shape[1] <= ddof:
            raise ValueError(
                f"ddof={ddof} needs databases of more than {ddof} records, got "
                f"{stack.shape[1]}."
            )
        return stack.std(axis=1, ddof=ddof) if root else stack.var(axis=1, ddof=ddof)

    query = _builtin(func, f"{'std' if root else 'variance'}(ddof={ddof})")
    query.worst_case = functools.partial(worst_variance, ddof, root)
    return query


def count(predicate: Callable[[np.ndarray], np.ndarray] | None = None) -> BatchedQuery:
    """Number of records for which ``predicate`` holds (default: non-zero records).

    Parameters
    ----------
    predicate : callable, optional
        Vectorised test: takes an array of records, returns booleans of the
        same leading shape (e.g. ``lambda x: x > 180``).

    Returns
    -------
    BatchedQuery
        The query, evaluated on a whole stack of databases at once.
    """
    if predicate is not None and not callable(predicate):
        raise TypeError(f"predicate must be callable, got {predicate!r}.")

    def func(stack):
        hits = (
            stack != 0
            if predicate is None
            else _user_map("predicate", predicate, stack, 2).astype(bool)
        )
        return hits.sum(axis=1).astype(float)

    query = _RecordQuery(
        func,
        "count",
        additive="sum",
        releases_gil=False,
        real_records=predicate is None,
    )
    query.worst_case = worst_count
    # A predicate sees the whole stack and may compare records: only the count
    # of non-zero records is additive by construction.
    return trust(query) if predicate is None else query


#: Most bins a histogram query counts (each database's answer holds one count
#: per bin, and the sampler holds thousands of answers at once).
MAX_BINS = 2**20


def histogram(
    bins: int | ArrayLike = 10,
    range: tuple[float, float] | None = None,  # noqa: A002 - numpy's own name
) -> BatchedQuery:
    """Counts of scalar records in each bin, as ``numpy.histogram`` counts them.

    Parameters
    ----------
    bins : int or array-like
        Number of equal bins over ``range`` (at most :data:`MAX_BINS`), or the
        increasing bin edges.
    range : (float, float), optional
        Lower and upper edge; required when ``bins`` is an int. Records outside
        are not counted; the last bin includes its right edge.

    Returns
    -------
    BatchedQuery
        The query, evaluated on a whole stack of databases at once.
    """
    try:
        scalar = np.ndim(bins) == 0
    except ValueError:  # ragged nested sequences
        raise TypeError(
            f"bins must be an int or a 1-d sequence of edges, got bins={bins!r}."
        ) from None
    if scalar:
        nbins = check_count("bins", bins)
        if nbins > MAX_BINS:
            raise ValueError(f"bins must be <= MAX_BINS={MAX_BINS}, got bins={nbins}.")
        if range is None:
            raise ValueError(
                "range must be given with an integer bins, e.g. range=(0, 1); "
                "the sampled databases must share their bin edges."
            )
        limits = check_array("range", range, ndim=1)
        if limits.size != 2 or not limits[1] > limits[0]:
            raise ValueError(
                f"range must be increasing (low, high), got range={range!r}."
            )
        with np.errstate(over="ignore", invalid="ignore"):
            edges = np.linspace(limits[0], limits[1], nbins + 1)
        if not np.all(np.isfinite(edges)) or np.any(np.diff(edges) <= 0):
            raise ValueError(
                f"range={range!r} cannot hold bins={nbins} distinct float64 edges "
                "(its width overflows, or is too narrow for that many bins)."
            )
    else:
        edges = check_array("bins", bins, ndim=1).copy()  # not the caller's array
        if edges.size < 2 or edges.size > MAX_BINS + 1 or np.any(np.diff(edges) <= 0):
            raise ValueError(
                "bins must be increasing edges, 2 to MAX_BINS + 1="
                f"{MAX_BINS + 1} of them, got bins={bins!r}."
            )
    nb = edges.size - 1

    def func(stack):
        b = stack.shape[0]
        flat = stack.reshape(b, -1)
        idx = np.searchsorted(edges, flat, side="right") - 1
        idx[flat == edges[-1]] = nb - 1
        inside = (idx >= 0) & (idx < nb)
        rows = np.broadcast_to(np.arange(b)[:, None] * nb, idx.shape)
        counts = np.bincount((rows + idx)[inside], minlength=b * nb)
        return counts.reshape(b, nb).astype(float)

    query = _builtin(func, f"histogram({nb} bins)", additive="sum")
    query.worst_case = functools.partial(worst_histogram, nb)
    return trust(query)


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
        if target is not None and (
            isinstance(target, (bool, np.bool_)) or not isinstance(target, Integral)
        ):
            raise TypeError(f"target must be an int or None, got target={target!r}.")
        self.estimator = estimator
        self.attribute = attribute
        self.target = None if target is None else int(target)
        self.name = f"{type(estimator).__name__}.{'/'.join(attrs)}"

    def __call__(self, data: ArrayLike) -> np.ndarray | tuple[np.ndarray, ...]:
        with one_thread():
            return self._fitted(data)

    def _fitted(self, data: ArrayLike) -> np.ndarray | tuple[np.ndarray, ...]:
        from sklearn.base import clone

        data = _as_array("data", data)
        if data.dtype.kind not in "biuf" or data.ndim not in (1, 2) or not data.size:
            raise ValueError(
                "data must be a non-empty array of real numbers of shape (n,) or "
                f"(n, columns), got {data.dtype} values of shape {data.shape}."
            )
        data = data.astype(float)
        if not np.all(np.isfinite(data)):
            raise ValueError("data must be finite, got NaN or inf.")
        if data.ndim == 1:
            data = data[:, None]
        model = clone(self.estimator)
        try:
            if self.target is None:
                model.fit(data)
            else:
                if not -data.shape[1] <= self.target < data.shape[1]:
                    raise ValueError(
                        f"target={self.target} is not a column of data's "
                        f"{data.shape[1]}."
                    )
                model.fit(np.delete(data, self.target, axis=1), data[:, self.target])
        except Exception as exc:
            raise ValueError(
                f"{type(self.estimator).__name__} cannot be fitted on data of shape "
                f"{data.shape} with target={self.target}: {exc}"
            ) from exc
        outputs = []
        for name in (
            (self.attribute,) if isinstance(self.attribute, str) else self.attribute
        ):
            if not hasattr(model, name):
                raise ValueError(
                    f"attribute {name!r} is not an attribute of the fitted "
                    f"{type(self.estimator).__name__}."
                )
            outputs.append(np.asarray(getattr(model, name), dtype=float))
        return outputs[0] if isinstance(self.attribute, str) else tuple(outputs)

    def evaluate(self, stack: np.ndarray) -> QueryOutput:
        """The fitted attribute(s) of a fresh clone on each database, stacked.

        Parameters
        ----------
        stack : ndarray of shape (B, n, columns) or (B, n)
            The databases; one clone of the estimator is fitted on each.

        Returns
        -------
        ndarray or tuple of ndarray
            The B fitted attributes (a tuple of them for several attributes),
            stacked along a new first axis.
        """
        with one_thread():
            return stack_outputs([self._fitted(db) for db in stack])


def estimator(
    model: Any, attribute: str | tuple[str, ...] = "coef_", target: int | None = -1
) -> EstimatorQuery:
    """Fitted parameters of a scikit-learn estimator (see :class:`EstimatorQuery`).

    Parameters
    ----------
    model : sklearn estimator
        An unfitted estimator, cloned and fitted on each database.
    attribute : str or tuple of str, default "coef_"
        The fitted attribute(s) released.
    target : int or None, default -1
        Column of the target in each record (``None``: unsupervised).

    Returns
    -------
    EstimatorQuery
        The query.
    """
    return EstimatorQuery(model, attribute=attribute, target=target)
