"""Search of the smallest integer that satisfies a monotone predicate.

>>> smallest_int(lambda m: m * m >= 50, 0, 10)
8
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["smallest_int"]


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
