"""A process-wide default budget, opt-in (as diffprivlib's ``BudgetAccountant.default()``).

Nothing spends from it until one is set: :func:`set_default_filter` (or the
:func:`default_filter` context manager) sets it, and from then on every
mechanism's ``release`` spends from it first, refusing (and drawing nothing)
when the budget would be exceeded, so a script or notebook cannot exceed its
budget by forgetting to pass a filter. A release made through a filter's own
``release`` spends from that filter only, and audits
(:mod:`sensampler.audit`) spend nothing. One filter for the whole process
(every thread sees it); the filter itself is thread-safe.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from .._default_budget import current, replace
from ._ledger import PrivacyAccountant

__all__ = ["set_default_filter", "get_default_filter", "default_filter"]

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
    return replace(_check(accountant))


def get_default_filter() -> PrivacyAccountant | None:
    """The process-wide default filter, or ``None`` when none is set.

    Returns
    -------
    PrivacyAccountant or None
    """
    return current()


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
