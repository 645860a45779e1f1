"""Searches for where a monotone function or predicate changes.

Every search of the package goes through here. Over the integers,
:func:`smallest_int` bisects a bracket, :func:`largest_int` first doubles its
way up to one (for an answer of unknown size below a large cap). Over the
reals, :func:`falling_root` finds where a non-increasing function falls to 0,
its bracket widened by doubling from a first guess, and :func:`step_up` moves
a computed root to the safe side of the condition it stands for.

>>> smallest_int(lambda m: m * m >= 50, 0, 10)
8
>>> largest_int(lambda k: k * k <= 50, 0, 10**9)
7
>>> x = falling_root(lambda x: 2.0 - x * x, 0.0, 1.0, xtol=1e-12, rtol=1e-12,
...                  holds=lambda x: x * x >= 2.0)
>>> x * x >= 2.0 and abs(x - 2 ** 0.5) < 1e-11
True
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .._lib.scipy_compat import optimize

__all__ = ["smallest_int", "largest_int", "falling_root", "step_up"]


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


def falling_root(
    f: Callable[[float], float],
    low: float,
    high: float,
    *,
    xtol: float,
    rtol: float,
    floor: float = -math.inf,
    limit: float = math.inf,
    holds: Callable[[float], bool] | None = None,
) -> float:
    """Where a non-increasing ``f`` falls to 0, its bracket found by expansion.

    The bracket starts as ``[low, high]``. While ``f(low) <= 0`` the low end
    moves down, and while ``f(high) > 0`` the high end moves up, each time by
    the bracket's width (which so doubles), never past ``floor`` and
    ``limit``; ``brentq`` then solves inside it.

    Parameters
    ----------
    f : callable
        ``f(x) -> float``, non-increasing: positive below the root, ``<= 0``
        above it.
    low, high : float
        The first guess of a bracket, ``floor <= low < high <= limit``.
    xtol, rtol : float
        ``brentq``'s tolerances: the root found lies within ``xtol + rtol *
        |root|`` of the crossing.
    floor : float, default -inf
        The smallest ``x`` asked; returned when ``f(floor) <= 0``.
    limit : float, default inf
        The largest ``x`` asked; ``inf`` is returned when ``f(limit) > 0``
        (no root below it).
    holds : callable, optional
        ``holds(x) -> bool``, the condition the result must meet (false below
        the crossing, true from some point above it, e.g. a certified delta at
        most its target). Given, the root is moved up by :func:`step_up` until
        it holds; without, it is returned as ``brentq`` found it, on either
        side of the crossing.

    Returns
    -------
    float
        The root (``floor``, or ``inf``, as above).

    Notes
    -----
    The ends move outward only while ``f`` has the wrong sign there, so the
    bracket holds a sign change when ``brentq`` starts (``f(low) > 0 >=
    f(high)``); an end that reached ``floor`` or ``limit`` with the wrong sign
    means the crossing lies beyond it. Doubling reaches a root at distance
    ``r`` from the first guess in about ``log2(r)`` evaluations.
    """
    while f(low) <= 0:
        if low <= floor:
            return floor
        low = max(floor, low - (high - low))
    while f(high) > 0:
        if high >= limit:
            return math.inf
        high = min(limit, high + (high - low))
    root = optimize.brentq(f, low, high, xtol=xtol, rtol=rtol)
    if holds is None:
        return root
    return step_up(holds, root, xtol + rtol * abs(root), limit=limit)


def step_up(
    holds: Callable[[float], bool], x: float, step: float, *, limit: float = math.inf
) -> float:
    """A point where ``holds``, at most ``step`` above the first one, from ``x`` up.

    A computed root moved to the safe side of the condition it stands for: an
    epsilon or a noise raised until its certified delta is at most the target.
    The points ``x + step``, ``x + 3 step``, ``x + 7 step``, ... are tried
    (doubling steps, none beyond ``limit``) until one holds; the last step is
    then bisected down to ``step``.

    Parameters
    ----------
    holds : callable
        ``holds(x) -> bool``, monotone: once true, true for every larger ``x``.
    x : float
        Where to start.
    step : float
        The first step and the final resolution, ``> 0``.
    limit : float, default inf
        The largest point tried.

    Returns
    -------
    float
        ``x`` if it holds there; else a point ``y`` where it holds with
        ``holds`` false at some point in ``[y - step, y)`` (or ``y`` a double
        next to one where it fails); ``inf`` if it fails at ``limit``.

    Examples
    --------
    >>> y = step_up(lambda t: t >= 0.3, 0.0, 0.01)
    >>> 0.3 <= y <= 0.31
    True
    """
    if holds(x):
        return x
    fails, width = x, step
    while True:
        if x >= limit:
            return math.inf
        x = min(limit, x + width)
        if holds(x):
            break
        fails, width = x, 2.0 * width
    while width > step:  # holds at x, not at fails, about width below
        width /= 2.0
        mid = fails + width
        if not fails < mid < x:  # adjacent doubles
            break
        if holds(mid):
            x = mid
        else:
            fails = mid
    return x
