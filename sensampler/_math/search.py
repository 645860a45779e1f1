"""Searches over the integers for where a monotone predicate changes.

Every integer search of the package goes through here: :func:`smallest_int`
bisects a bracket, :func:`largest_int` first doubles its way up to one (for an
answer of unknown size below a large cap).

>>> smallest_int(lambda m: m * m >= 50, 0, 10)
8
>>> largest_int(lambda k: k * k <= 50, 0, 10**9)
7
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["smallest_int", "largest_int"]


def smallest_int(predicate: Callable[[int], bool], low: int, high: int) -> int:
    """The smallest integer in ``(low, high]`` at which ``predicate`` holds.

    Bisection over a monotone predicate: false up to some integer, true from
    the next one on. The caller vouches that it is false at ``low`` (or that
    ``low`` is below the range of interest) and true at ``high``; ``predicate``
    is evaluated only strictly between them, so those two are never asked.

    Parameters
    ----------
    predicate : callable
        ``predicate(i) -> bool``, monotone in ``i`` (once true, true for every
        larger ``i``).
    low : int
        An integer where the predicate is false, or a lower end not itself in
        the answer's range.
    high : int
        An integer ``> low`` where the predicate is true.

    Returns
    -------
    int
        The smallest ``i`` with ``low < i <= high`` and ``predicate(i)``.

    Notes
    -----
    Invariant: the predicate is false at ``low`` and true at ``high``. Each
    step halves ``high - low`` (``mid`` lies strictly between them while
    ``high - low > 1``) and keeps the invariant, so the loop ends after
    ``ceil(log2(high - low))`` evaluations with ``high = low + 1``: ``high``
    is then the first integer where the predicate holds.
    """
    while high - low > 1:
        mid = (low + high) // 2
        if predicate(mid):
            high = mid
        else:
            low = mid
    return high


def largest_int(predicate: Callable[[int], bool], low: int, high: int) -> int:
    """The largest integer in ``[low, high]`` at which ``predicate`` holds.

    Exponential search, then bisection, over a predicate that is true up to
    some integer and false from the next one on. The caller vouches that it
    holds at ``low``, which is never asked; neither is any integer above
    ``high`` (what lies there is not certified).

    Parameters
    ----------
    predicate : callable
        ``predicate(i) -> bool``, monotone in ``i`` (once false, false for
        every larger ``i``).
    low : int
        An integer ``>= 0`` where the predicate holds.
    high : int
        The largest integer the answer may be, ``>= low``.

    Returns
    -------
    int
        The largest ``i`` with ``low <= i <= high`` and ``predicate(i)``.

    Notes
    -----
    The predicate is asked at ``low + 1`` and then at doubled integers while
    they do not exceed ``high`` and it holds; the first failure (or
    ``high + 1``) closes a bracket ``(lo, hi)``, true at ``lo`` and false (or
    beyond the range) at ``hi``, in which :func:`smallest_int` finds the first
    failure ``f``: the answer is ``f - 1``. For an answer ``a``, about
    ``2 log2(a)`` evaluations, however large ``high`` is.
    """
    lo, hi = low, low + 1
    while hi <= high and predicate(hi):
        lo, hi = hi, 2 * hi
    return smallest_int(lambda i: not predicate(i), lo, min(hi, high + 1)) - 1
