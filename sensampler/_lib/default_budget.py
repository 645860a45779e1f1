"""Where the process-wide default budget lives, and how a release reaches it.

A leaf module (it imports nothing of the package), so that the mechanisms can
consult the budget that :mod:`sensampler.accounting` sets without importing
accounting. :func:`sensampler.accounting.set_default_filter` stores the filter
here; every mechanism's ``release`` then goes through :func:`spend_then_release`:
with a default filter set, the release spends from it first (validated and
refused before anything is drawn, as ``filter.release`` does), unless the release
already runs inside a filter's own ``release`` or an audit (:func:`exempt`), so
that nothing is spent twice.

Two kinds of default, looked up in this order:

1. the innermost ``with default_filter(f):`` block of the current context
   (a :mod:`contextvars` variable: each thread, and each asyncio task, has its
   own, so a block that ends in one thread never changes the default of
   another);
2. for a context with no block of its own (a thread started inside a block
   begins with an empty context), the block open elsewhere in the process, when
   every open block's innermost filter is the same one; when blocks of several
   threads hold different filters, there is no way to tell which one such a
   release belongs to, and it is refused (``RuntimeError``) rather than spent
   from the wrong budget or from none;
3. otherwise the process-wide default of :func:`replace`
   (:func:`sensampler.accounting.set_default_filter`).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["current", "replace", "within", "exempt", "charged_to", "spend_then_release"]

_lock = threading.Lock()
_current: Any = None  # the process-wide default (set_default_filter)
_state = threading.local()  # .exempt: a release on this thread spends nothing more
# (filter, chain) of this context's innermost block; chain: one object per
# outermost block, shared by the blocks nested in it
_block: contextvars.ContextVar[tuple[Any, object] | None] = contextvars.ContextVar(
    "sensampler_default_filter", default=None
)
# chain -> its open blocks, (marker, filter), innermost last, every context
_open: dict[object, list[tuple[object, Any]]] = {}


def current() -> Any:
    """The default filter of the calling context, or ``None`` when none is set.

    Returns
    -------
    filter or None

    Raises
    ------
    RuntimeError
        In a context with no block of its own while blocks of other threads
        hold different filters (see the module's docstring).
    """
    own = _block.get()
    if own is not None:
        return own[0]
    with _lock:
        elsewhere = {id(blocks[-1][1]): blocks[-1][1] for blocks in _open.values()}
    if len(elsewhere) > 1:
        raise RuntimeError(
            "default_filter blocks of several threads hold different filters, and "
            "this thread has none of its own: enter `with default_filter(f):` in "
            "this thread, or release through a filter's own release()."
        )
    if elsewhere:
        return next(iter(elsewhere.values()))
    return _current


def replace(accountant: Any) -> Any:
    """Set the default filter (``None`` clears it); return the one it replaces.

    Parameters
    ----------
    accountant : filter or None
        Checked by the caller (:func:`sensampler.accounting.set_default_filter`).

    Returns
    -------
    filter or None
    """
    global _current
    with _lock:
        previous, _current = _current, accountant
    return previous


@contextlib.contextmanager
def within(accountant: Any) -> Iterator[Any]:
    """Make ``accountant`` the default of the calling context inside the block.

    Parameters
    ----------
    accountant : filter
        Checked by the caller (:func:`sensampler.accounting.default_filter`).

    Yields
    ------
    filter
        ``accountant``; on exit this context's previous default is restored,
        and no other context's default changes.
    """
    outer = _block.get()
    chain = object() if outer is None else outer[1]
    marker = object()  # this block, whichever order the blocks of a chain end in
    token = _block.set((accountant, chain))
    with _lock:
        _open.setdefault(chain, []).append((marker, accountant))
    try:
        yield accountant
    finally:
        _block.reset(token)
        with _lock:
            blocks = [b for b in _open[chain] if b[0] is not marker]
            if blocks:
                _open[chain] = blocks
            else:
                del _open[chain]


@contextlib.contextmanager
def exempt() -> Iterator[None]:
    """Inside the block, releases on this thread spend nothing from the default.

    Used by a filter's own ``release`` (which has spent already) and by audits
    (which release on the auditor's own inputs, not on private data).

    Yields
    ------
    None
    """
    before = getattr(_state, "exempt", False)
    _state.exempt = True
    try:
        yield
    finally:
        _state.exempt = before


@contextlib.contextmanager
def charged_to(accountant: Any, statement: Any = None) -> Iterator[None]:
    """Inside the block, releases spend nothing more when the default is ``accountant``.

    For callers that have composed their releases on an explicit accountant
    already (``release_statistic(..., budget=f)``, ``PrivateEstimator.fit(...,
    accountant=f)``): when ``f`` is also the default, the release is recorded
    once, not twice. A different default is still spent from: by the releases
    inside, or, with ``statement``, by ``statement`` on entry (refused there,
    before the block runs, over budget), the releases inside then spending
    nothing more. A caller whose statement says more than its mechanism's (the
    size it holds given, a release that draws no noise) records it so.

    Parameters
    ----------
    accountant : filter or None
        The accountant the caller has charged (``None``: none).
    statement : PrivacyStatement, optional
        What the block releases, charged to a default other than ``accountant``.

    Yields
    ------
    None
    """
    try:
        same = accountant is not None and current() is accountant
    except RuntimeError:  # no default can be chosen: the release will say so
        same = False
    if same:
        with exempt():
            yield
        return
    budget = None if statement is None or getattr(_state, "exempt", False) else current()
    if budget is None:
        yield
        return
    budget.compose(statement)
    with exempt():
        yield


def spend_then_release(release: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a mechanism's ``release`` so that it spends from the default filter.

    Parameters
    ----------
    release : callable
        ``release(self, value, *, random_state=None, **kwargs)``.

    Returns
    -------
    callable
        The same release; with a default filter set (and outside :func:`exempt`),
        ``filter.release(self, value, ...)``, which validates every argument,
        spends (or raises ``ExceededPrivacyBudgetError`` and draws nothing) and
        then releases.
    """

    @functools.wraps(release)
    def spending(self, value, *args, **kwargs):
        if getattr(_state, "exempt", False):
            return release(self, value, *args, **kwargs)
        budget = current()
        if budget is None:
            return release(self, value, *args, **kwargs)
        return budget.release(self, value, *args, **kwargs)

    spending.__wrapped_release__ = release  # type: ignore[attr-defined]
    return spending
