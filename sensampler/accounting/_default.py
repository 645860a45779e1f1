"""A process-wide default budget, opt-in (as diffprivlib's ``BudgetAccountant.default()``).

Nothing spends from it unless code asks for it: :func:`get_default_filter`
returns the filter set with :func:`set_default_filter` (or ``None``), and
:func:`default_filter` sets one for a ``with`` block. One filter for the whole
process (every thread sees it); the filter itself is thread-safe.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from ._ledger import PrivacyAccountant

__all__ = ["set_default_filter", "get_default_filter", "default_filter"]

_lock = threading.Lock()
_current: PrivacyAccountant | None = None


def _check(accountant) -> PrivacyAccountant | None:
    if accountant is not None and not isinstance(accountant, PrivacyAccountant):
        raise TypeError(
            "the default filter must be an accountant or filter of "
            f"sensampler.accounting, or None, got {accountant!r}."
        )
    return accountant


def set_default_filter(accountant: PrivacyAccountant | None) -> PrivacyAccountant | None:
    """Set the process-wide default filter (``None`` to clear it).

    Parameters
    ----------
    accountant : PrivacyAccountant or None
        Usually a :class:`~sensampler.accounting.PrivacyFilter`.

    Returns
    -------
    PrivacyAccountant or None
        The default filter it replaces.

    Examples
    --------
    >>> from sensampler.accounting import PrivacyFilter
    >>> previous = set_default_filter(PrivacyFilter(1.0))
    >>> get_default_filter().epsilon_budget
    1.0
    >>> _ = set_default_filter(previous)
    """
    global _current
    accountant = _check(accountant)
    with _lock:
        previous, _current = _current, accountant
    return previous


def get_default_filter() -> PrivacyAccountant | None:
    """The process-wide default filter, or ``None`` when none is set.

    Returns
    -------
    PrivacyAccountant or None
    """
    return _current


@contextlib.contextmanager
def default_filter(accountant: PrivacyAccountant) -> Iterator[PrivacyAccountant]:
    """Make ``accountant`` the default filter inside a ``with`` block.

    Parameters
    ----------
    accountant : PrivacyAccountant
        The filter to use; the previous default is restored on exit, also when
        the block raises.

    Yields
    ------
    PrivacyAccountant
        ``accountant``.
    """
    if accountant is None:
        raise TypeError("default_filter needs a filter, got None.")
    previous = set_default_filter(accountant)
    try:
        yield accountant
    finally:
        set_default_filter(previous)
