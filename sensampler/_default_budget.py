"""Where the process-wide default budget lives, and how a release reaches it.

A leaf module (it imports nothing of the package), so that the mechanisms can
consult the budget that :mod:`sensampler.accounting` sets without importing
accounting. :func:`sensampler.accounting.set_default_filter` stores the filter
here; every mechanism's ``release`` then goes through :func:`spend_then_release`:
with a default filter set, the release spends from it first (validated and
refused before anything is drawn, as ``filter.release`` does), unless the release
already runs inside a filter's own ``release`` or an audit (:func:`exempt`), so
that nothing is spent twice.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["current", "replace", "exempt", "spend_then_release"]

_lock = threading.Lock()
_current: Any = None
_state = threading.local()  # .exempt: a release on this thread spends nothing more


def current() -> Any:
    """The default filter, or ``None`` when none is set.

    Returns
    -------
    filter or None
    """
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
        budget = _current
        if budget is None or getattr(_state, "exempt", False):
            return release(self, value, *args, **kwargs)
        return budget.release(self, value, *args, **kwargs)

    spending.__wrapped_release__ = release  # type: ignore[attr-defined]
    return spending
