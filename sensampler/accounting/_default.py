"""A process-wide default budget, opt-in (as diffprivlib's ``BudgetAccountant.default()``).

Nothing spends from it until one is set: :func:`set_default_filter` (or the
:func:`default_filter` context manager) sets it, and from then on every
mechanism's ``release`` spends from it first, refusing (and drawing nothing)
when the budget would be exceeded, so a script or notebook cannot exceed its
budget by forgetting to pass a filter. A release made through a filter's own
``release`` spends from that filter only, and an audit of a mechanism
(:func:`sensampler.audit.audit_mechanism`) spends its releases unless its
inputs are declared synthetic.

:func:`set_default_filter` sets one filter for the whole process (every thread
sees it). A ``with default_filter(f):`` block is per context
(:mod:`contextvars`): it takes precedence over the process-wide default in the
thread (or asyncio task) that entered it, and its end restores that context's
previous default only, so blocks of two threads may overlap in any order. A
thread with no block of its own (one started inside a block) spends from the
block open in another thread when all open blocks hold the same filter, and is
refused (``RuntimeError``, nothing drawn) when they hold different ones. The
filters themselves are thread-safe.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from .._lib.default_budget import current, replace, within
from ._accountant import PrivacyAccountant

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
    """The default filter a release made here spends from, or ``None``.

    Returns
    -------
    PrivacyAccountant or None
        The innermost :func:`default_filter` block of the calling context, else
        the one open in other threads, else the process-wide default.

    Raises
    ------
    RuntimeError
        In a thread with no block of its own while blocks of other threads hold
        different filters.
    """
    return current()


@contextlib.contextmanager
def default_filter(accountant: PrivacyAccountant) -> Iterator[PrivacyAccountant]:
    """Make ``accountant`` the default filter of this context inside a ``with`` block.

    The block is per context (:mod:`contextvars`): another thread's block ending
    first does not change this one's default, and this one's end restores only
    this context's previous default (see the module's docstring).

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
    with within(_check(accountant)):
        yield accountant
