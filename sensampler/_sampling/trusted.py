"""The library's own additive queries, which the sampler need not probe.

The sampler checks a user's additive declaration on probe databases
(:func:`sensampler._sampling.probes.probe_additive`), most of a small run's time. The
built-in ``queries.mean``, ``sum``, ``count()`` and ``histogram(...)`` are
additive by construction: :func:`trust` registers each one as it is built, and
:func:`is_trusted` recognises it by identity, not by anything a user can copy.
A query that wraps a built-in, copies its attributes, subclasses its class or
is a built-in whose attributes were reassigned since is not trusted, and is
probed like any other.

>>> from sensampler import queries
>>> is_trusted(queries.mean), is_trusted(queries.median)
(True, False)
>>> import copy
>>> is_trusted(copy.copy(queries.mean))
False
"""

from __future__ import annotations

import weakref
from typing import Any, TypeVar

__all__ = ["trust", "is_trusted"]

_Q = TypeVar("_Q")

#: id of a trusted query -> (a weak reference to it, its type, its attributes
#: when trusted). Keyed by id, so a user's ``__eq__`` or ``__hash__`` takes no
#: part in the lookup; an entry leaves when its query is collected.
_TRUSTED: dict[int, tuple[weakref.ref, type, dict[str, Any]]] = {}


def trust(query: _Q) -> _Q:
    """Register ``query``, a built-in additive query of the library; return it."""
    key = id(query)
    ref = weakref.ref(query, lambda _, key=key: _TRUSTED.pop(key, None))
    _TRUSTED[key] = (ref, type(query), dict(vars(query)))
    return query


def is_trusted(query: object) -> bool:
    """Whether ``query`` is a registered built-in, unchanged since it was registered.

    True only for the very object :func:`trust` was given, of the same type,
    with the same attributes bound to the same objects (its function, its
    declaration, its name): reassigning any of them, or adding one (an
    ``evaluate`` of its own), withdraws the trust.
    """
    entry = _TRUSTED.get(id(query))
    if entry is None:
        return False
    ref, kind, attributes = entry
    state = getattr(query, "__dict__", None)
    return (
        ref() is query
        and type(query) is kind
        and state is not None
        and state.keys() == attributes.keys()
        and all(state[name] is value for name, value in attributes.items())
    )
