"""The structure of query outputs: an array, or a tuple or dict of arrays.

A query's output is split into *leaves* (one float array per part) and a
*spec* that rebuilds it. The sampler evaluates queries through
:func:`evaluate`, which checks every output against the structure and shape of
the first (naming the pair and the seed that reproduce a failure); batched and
per-database queries convert between one output per database and one stacked
output with :func:`first` and :func:`stack_outputs`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

__all__ = ["Spec", "split", "join", "first", "stack_outputs", "evaluate"]

#: ``("array", None)``, ``("tuple", length)`` or ``("dict", keys)``.
Spec = tuple[str, Any]


class _Query(Protocol):
    name: str
    batched: bool

    def __call__(self, data: np.ndarray) -> Any: ...

    def evaluate(self, stack: np.ndarray) -> Any: ...


def split(out: Any) -> tuple[Spec, list[Any]]:
    """``(spec, leaves)`` of one output.

    A tuple is a structured output (one estimate per entry); return an array,
    not a tuple, for a vector.
    """
    if isinstance(out, dict):
        return ("dict", tuple(out)), list(out.values())
    if isinstance(out, tuple):
        return ("tuple", len(out)), list(out)
    return ("array", None), [out]


def join(spec: Spec, leaves: Sequence[Any]) -> Any:
    """The output of structure ``spec`` made of ``leaves`` (inverse of :func:`split`)."""
    kind, keys = spec
    if kind == "dict":
        return dict(zip(keys, leaves))
    if kind == "tuple":
        return tuple(leaves)
    return leaves[0]


def first(out: Any) -> Any:
    """The first database's output within a batched output (scalars as Python floats)."""
    spec, leaves = split(out)
    firsts = [np.asarray(leaf)[0] for leaf in leaves]
    return join(spec, [v.item() if np.ndim(v) == 0 else v for v in firsts])


def stack_outputs(outs: Sequence[Any]) -> Any:
    """One batched output from the outputs of several databases, in order."""
    spec, _ = split(outs[0])
    columns = zip(*(split(out)[1] for out in outs))
    return join(spec, [np.stack([np.asarray(v) for v in column]) for column in columns])


def _where(start: int | None, index: int, which: str) -> str:
    if start is None:
        return f"a probe database ({which}) drawn before sampling"
    return f"pair {start + index} ({which})"


def _as_leaves(query, out, spec, shapes, where, reproduce, batch):
    """Float leaves of one output, checked against the expected structure."""
    got_spec, leaves = split(out)
    if not leaves:
        raise ValueError(
            f"query {query.name!r} returned an empty {got_spec[0]} on {where}; "
            "return an array, or a tuple or dict of at least one array."
        )
    if spec is not None and got_spec != spec:
        raise ValueError(
            f"query {query.name!r} changed its output structure on {where}: "
            f"{got_spec} instead of {spec}; {reproduce}."
        )
    arrays = []
    for j, leaf in enumerate(leaves):
        try:
            arr = np.asarray(leaf)
        except (TypeError, ValueError):  # ragged sequences
            arr = np.asarray(None)
        if arr.dtype.kind not in "biuf":  # strings, objects, complex numbers
            raise TypeError(
                f"query {query.name!r} returned a non-numeric output on "
                f"{where}: {leaf!r}; {reproduce}."
            )
        # Always a copy: a query may fill and return one buffer on every call,
        # and the sampler keeps each output past the next evaluation.
        arr = np.array(arr, dtype=float)
        shape = arr.shape[1:] if batch else arr.shape
        if 0 in shape:
            raise ValueError(
                f"query {query.name!r} returned an empty output of shape {shape} "
                f"on {where}: there is no sensitivity to sample; return at "
                "least one number."
            )
        if batch and (arr.ndim == 0 or arr.shape[0] != batch):
            raise ValueError(
                f"batched query {query.name!r} must return one output per "
                f"database (leading axis {batch}), got shape {arr.shape} on "
                f"{where}."
            )
        if shapes is not None and shape != shapes[j]:
            raise ValueError(
                f"query {query.name!r} changed its output shape on {where}: "
                f"{shape} instead of {shapes[j]}; {reproduce}."
            )
        arrays.append(arr)
    return got_spec, arrays


def _query_error(query, exc: Exception, where: str, reproduce: str) -> ValueError:
    """The error raised when ``query`` raised ``exc`` on ``where``.

    numpy refuses a write into a read-only array with a ``ValueError`` whose
    message says "read-only" (assignment, an in-place operator, ``sort``).
    """
    if isinstance(exc, ValueError) and "read-only" in str(exc):
        return ValueError(
            f"query {query.name!r} writes into its database on {where} ({exc}): "
            "databases are passed read-only, since the sampler overwrites "
            "records of the same array to build each neighbour; copy first "
            f"(np.array(db)) to modify it; {reproduce}."
        )
    text = str(exc)
    if text.startswith(f"query {query.name!r} "):  # the query's own words
        return ValueError(f"{text.rstrip('.')}, on {where}; {reproduce}.")
    return ValueError(
        f"query {query.name!r} raised {type(exc).__name__}: {text} on "
        f"{where}; {reproduce}."
    )


def evaluate(
    query: _Query,
    stack: np.ndarray,
    start: int | None,
    which: str,
    reproduce: str,
    spec: Spec | None = None,
    shapes: Sequence[tuple[int, ...]] | None = None,
) -> tuple[Spec, list[np.ndarray]]:
    """Outputs of ``query`` on every database of ``stack``: ``(spec, leaves)``.

    Each leaf is a new float array with a leading axis of length ``B``, copied
    from the query's output, so a query that returns its own buffer on every
    call cannot change an output already taken. ``start`` is the first pair's index
    (``None`` for the probe database), ``which`` names the database of the pair
    and ``reproduce`` how to reproduce a failure: all three go into the error
    messages. ``spec`` and ``shapes``, when given, are what every output must
    have. The query sees ``stack`` (or each of its databases) through a
    read-only view: a query that writes into its database is refused by name.
    """
    batch = stack.shape[0]
    # The sampler overwrites records of ``stack`` between evaluations: a query
    # that wrote into it would change the next database of the pair.
    stack = stack.view()
    stack.flags.writeable = False
    if query.batched:
        try:
            out = query.evaluate(stack)
        except Exception as exc:
            pairs = (
                _where(None, 0, which)
                if start is None
                else f"pairs {start}..{start + batch - 1} ({which})"
            )
            raise _query_error(query, exc, pairs, reproduce) from exc
        where = _where(start, 0, which)
        spec, leaves = _as_leaves(query, out, spec, shapes, where, reproduce, batch)
    else:
        per_db = []
        for b in range(batch):
            where = _where(start, b, which)
            try:
                out = query(stack[b])
            except Exception as exc:
                raise _query_error(query, exc, where, reproduce) from exc
            spec, arrays = _as_leaves(query, out, spec, shapes, where, reproduce, None)
            shapes = [a.shape for a in arrays]
            per_db.append(arrays)
        leaves = [np.stack(column) for column in zip(*per_db)]
    assert spec is not None  # set by the first output
    for leaf in leaves:
        bad = ~np.isfinite(leaf.reshape(batch, -1)).all(axis=1)
        if bad.any():
            where = _where(start, int(np.argmax(bad)), which)
            raise ValueError(
                f"query {query.name!r} returned NaN or inf on {where}; {reproduce}."
            )
    return spec, leaves
