r"""The exact privacy loss of the exponential quantile mechanism on pairs of
neighbouring databases, at many weight scales at once.

Used by :mod:`sensampler.quantile_calibration` (whose module docstring gives
the loss and why sampling it keeps gamma); here, how it is computed, and why the
floating-point result is within that module's ``margin``.

**The classes.** Grid point :math:`t_j` (j = 0..G) has the count :math:`c_i`
of database i's clipped records below it, :math:`i = 1, 2`. The two databases
are one union of N records less one record each (:math:`x_1`, :math:`x_2`;
none for the larger database of an add/remove pair), so
:math:`b = c_1 - c_2 \in \{-1, 0, 1\}`. The law of database i depends on the
grid only through how many grid points have each pair :math:`(b, c_2)`: the
histogram ``grid_points[p, (b, c_2)]``, (P, 3C), C = n_2 + 1. It is built
without sorting any database: with :math:`r(x)` the number of grid points
:math:`\le x` (clipped), :math:`c = \#\{x : r(x) \le j\}`, so with the
union's r sorted, :math:`r_{(1)} \le \dots \le r_{(N)}`, the grid points of
union count k are :math:`[r_{(k)}, r_{(k+1)})` (:math:`r_{(0)} = 0`,
:math:`r_{(N+1)} = G + 1`); database 2's are the same with one occurrence of
:math:`r(x_2)` deleted (an exact integer computation: r takes at most
G + 2 values, so the sort is a radix sort of 16-bit integers). The counts
differ only on :math:`[\min(r(x_1), r(x_2)), \max(r(x_1), r(x_2)))`, the
*between* part: there :math:`c_2 = k` and b = -1 when
:math:`r(x_1) < r(x_2)`, :math:`c_2 = k - 1` and b = +1 otherwise, k the
union count; elsewhere b = 0 and the grid points are database 2's less these.
Equal records bound no grid point, so ties are harmless.

**The loss.** Column :math:`(b, c_2)` has the distances
:math:`D_1 = |c_2 + b - q n_1|` and :math:`D_2 = |c_2 - q n_2|`, the same for
every pair, and :math:`s = D_2 - D_1`. At scale t,
:math:`\log P_1 - \log P_2 = ts - (\log Z_1 - \log Z_2)` on every grid point,
so the loss :math:`\max_j |t s_j - \rho|`, :math:`\rho = \log Z_1 - \log Z_2`,
is reached at the pair's largest or least s over the grid points held
(``high``, ``low``: they do not depend on t). With the weights
:math:`w_i = e^{-t(D_i - \nu)}` (:math:`\nu` the least distance of all
columns),

.. math:: Z_i = \sum_{\text{cols}} H\,w_i, \qquad
          \rho = \mathrm{log1p}\!\left(\frac{\sum H\,w_2\,\mathrm{expm1}(ts)}
                                            {Z_2}\right)
          \ \text{where}\ t\max|s| \le 1, \quad
          \rho = \log(Z_1 / Z_2)\ \text{elsewhere},

one matrix product of the histogram with the three tables of the columns, for
a whole block of scales (:math:`w_2\,\mathrm{expm1}(ts) = w_1 - w_2`).

**Floating-point error** (u = :math:`2^{-53}`, :math:`\gamma =
3Cu/(1 - 3Cu)`; the caller adds :math:`t(n + 2)2^{-44}` and ``MARGIN``
epsilon to every loss). The histogram is exact (integers below
:math:`2^{53}`). A distance :math:`|c - qn|` is within :math:`2un` of the
real one (q n rounded, then the difference), so :math:`a = ts` is within
:math:`4utn` plus its own rounding, and every weight within a relative
:math:`4utn + 2u`. A sum of the matrix product, in any order (BLAS), is
within :math:`\gamma` of the sum of the absolute values of its terms
(Higham, *Accuracy and Stability of Numerical Algorithms*, 2002, Sec. 3.1).
*Where* :math:`t\max|s| \le 1` (so :math:`|a| \le \min(1, t)`, as
:math:`|s| \le 1`): a term :math:`w_2\,\mathrm{expm1}(a)` is at most
:math:`1.72\min(1, t)\,w_2` and within :math:`1.72\min(1, t)(4utn + 3u)
w_2 + e\cdot 4utn\,w_2`; the numerator is so within
:math:`Z_2 [1.72 \min(1, t)(\gamma + 3u) + 18utn]`, the quotient x by
:math:`Z_2` (:math:`|x| \le 1.72`, :math:`Z_2` within
:math:`\gamma + 4utn + 2u`) within :math:`t(3.5\gamma + 9u + 25un)` (each
term has a factor t, or :math:`\min(1, t) \le t`), and log1p (of
:math:`x \ge e^{-1} - 1`, a slope at most e) gives :math:`\rho` within
:math:`t(28Cu + 30u + 68un)`: relative to t, whatever epsilon. *Elsewhere*
(t > 1): :math:`Z_1, Z_2` are sums of positive terms, each within
:math:`\gamma + 4utn + 2u`, so :math:`\rho` is within
:math:`2(3.1Cu + 4utn + 3u) < t(7Cu + 8un + 6u)`. With C <= n + 1 and the
loss's own subtraction and product, every loss is within
:math:`t(100n + 160)u < t(n + 2)2^{-46}` of the exact one, a quarter of the
caller's term (an exponent off by :math:`\delta` moves a log-sum by at most
:math:`\delta`, so this holds also where :math:`4utn` is not small).

A weight that underflows could only make a sum 0: a pair whose nearest held
column lies more than :data:`_SHARED` / t beyond :math:`\nu` takes its own
:math:`\nu_1, \nu_2` (its nearest held distances), so every sum has a term 1;
a sum that overflows (never: every weight is at most 1) or a NaN would make
the loss infinite, which never passes.

**Window.** At a scale t the sums run over the columns within
:math:`R/t`, :math:`R` = :data:`_SHARED` + :data:`_TAIL` + log(G + 1), of
:math:`\nu` (in :math:`\min(D_1, D_2)`; at n = 500 and t > 1/2, every
column). A pair scaled by :math:`\nu` has a grid point of weight at least
:math:`e^{-tm}`, :math:`tm \le` :data:`_SHARED` (m its nearest distance
less :math:`\nu`), so the columns left out, of weights below
:math:`e^{-R} \le e^{-tm} e^{-60}/(G + 1)`, hold at most :math:`e^{-60}` of
each sum. In exact arithmetic the windowed :math:`\rho` is the log-ratio of
the windowed :math:`Z_1, Z_2` in both forms, so it moves by at most
:math:`2e^{-60}/(1 - e^{-60})`, below :data:`_TAIL_SLACK`, which is added to
the losses of every scale whose window leaves a column out; ``high`` and
``low`` are taken over every column held. The window depends on t alone, and
the scales of one window share one product: a scale's losses are the same
whichever others are asked with it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._lib.threads import one_thread

__all__ = ["PairClasses", "pair_classes"]

#: A pair whose nearest held column lies further than this, over t, from the
#: least distance of all columns has its weights scaled by its own nearest
#: distances (the shared scaling could underflow all its weights to 0).
_SHARED = 600.0

#: Columns whose distances both exceed the least of all by
#: :math:`(\text{_SHARED} + \text{_TAIL} + \log(G + 1))/t` hold at most
#: :math:`e^{-60}` of the law of a pair scaled with the others (module
#: docstring): the normalisers are summed without them.
_TAIL = 60.0

#: Added to every loss computed without some columns: bounds what they move the
#: log-ratio (at most :math:`2e^{-60}/(1 - e^{-60}) < 1.8 \cdot 10^{-26}`).
_TAIL_SLACK = 1e-25


@dataclass(frozen=True)
class PairClasses:
    """One chunk of pairs: the grid's histogram by (b, c2), and what the loss
    needs of each pair besides it (module docstring)."""

    grid_points: np.ndarray  # (P, 3C): grid points per column (b, c2), b = -1, 0, 1
    first: np.ndarray  # (3C,): |c2 + b - q n1|
    second: np.ndarray  # (3C,): |c2 - q n2|
    high: np.ndarray  # (P,): max of second - first over the columns held
    low: np.ndarray  # (P,): min
    nearest: np.ndarray  # (P, 2): min of first and of second over them

    def losses(self, scales: np.ndarray) -> np.ndarray:
        """(P, J): each pair's loss at each scale (module docstring); a NaN is
        infinite: it never passes. A scale's losses never depend on the
        others asked with it beyond :data:`_TAIL_SLACK`."""
        t = np.asarray(scales, dtype=float)
        ratio, slack = self._log_ratio(t)
        with np.errstate(over="ignore", invalid="ignore"):
            loss = np.maximum(np.abs(self.high[:, None] * t - ratio),
                              np.abs(self.low[:, None] * t - ratio))
        loss[np.isnan(loss)] = np.inf
        return loss + slack

    def _log_ratio(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r""":math:`\log Z_1 - \log Z_2`, (P, J), scaled by the shared
        :math:`\nu`, each scale on its window of columns, those within
        (:data:`_SHARED` + :data:`_TAIL` + log(G + 1)) / t of it (the scales of
        one window in one product), and with a pair's own scaling, on every
        column, where the shared one could underflow; and the slack that adds
        to each scale's losses (J,)."""
        nu = float(min(self.first.min(), self.second.min()))
        distance = np.minimum(self.first, self.second) - nu
        with np.errstate(over="ignore", divide="ignore"):
            reach = (_SHARED + _TAIL + np.log(self.grid_points[0].sum())) / t
            own = (np.max(self.nearest, axis=1)[:, None] - nu) * t > _SHARED
        sizes = np.searchsorted(np.sort(distance), reach, side="right")
        out = np.empty((self.high.size, t.size))
        slack = np.where(sizes < distance.size, _TAIL_SLACK, 0.0)
        for size in np.unique(sizes):
            at = np.flatnonzero(sizes == size)
            window = (slice(None) if size == distance.size
                      else np.flatnonzero(distance <= reach[at[0]]))
            out[:, at] = self._ratio(self.grid_points[:, window], t[at], np.full(2, nu),
                                     window, self.high, self.low)
        for p in np.flatnonzero(np.any(own, axis=1)):  # rare: heavy ties or clipping
            rows = slice(p, p + 1)
            out[p] = self._ratio(self.grid_points[rows], t, self.nearest[p],
                                 slice(None), self.high[rows], self.low[rows])[0]
        return out, slack

    def _ratio(self, points, t, nu, columns, high, low) -> np.ndarray:
        """The log-ratio of the pairs ``points`` (their ``columns``) at the
        scales t, their weights scaled by nu = (nu1, nu2) (a column nearer
        holds no grid point)."""
        first, second = self.first[columns], self.second[columns]
        with np.errstate(over="ignore", under="ignore", invalid="ignore",
                         divide="ignore"):
            w1 = np.exp(-np.maximum(first - nu[0], 0.0)[:, None] * t)
            w2 = np.exp(-np.maximum(second - nu[1], 0.0)[:, None] * t)
            shift = (second - first)[:, None] * t
            moved = w2 * np.expm1(np.clip(shift, -1.0, 1.0))
            with one_thread():  # faster, and the same sums for any thread count
                sums = points @ np.concatenate([w1, w2, moved], axis=1)
            z1, z2, mean = np.split(sums, 3, axis=1)
            small = np.maximum(np.abs(high), np.abs(low))[:, None] * t <= 1.0
            return np.where(small, np.log1p(mean / z2),
                            np.log(z1 / z2) - t * (nu[0] - nu[1]))


def _left_out(union: np.ndarray, member, name: str) -> tuple[np.ndarray, int]:
    """Each pair's record missing from one database (+inf: none), and the
    database's size."""
    missing = ~np.asarray(member, dtype=bool)
    count = missing.sum(axis=1)
    if np.any(count > 1):
        raise ValueError(
            f"{name} must leave out at most one record of each pair's union "
            "(neighbouring databases)."
        )
    size = union.shape[1] - count
    if np.any(size != size[0]):
        raise ValueError(f"{name} must give databases of one size in every pair.")
    rows = np.arange(union.shape[0])
    value = np.where(count == 1, union[rows, np.argmax(missing, axis=1)], np.inf)
    return value, int(size[0])


def _ranks(values: np.ndarray, mech) -> np.ndarray:
    """r(x): the grid points at or below each clipped value, as the smallest
    unsigned integers that hold G + 1 (a radix sort sorts them).

    On an evenly spaced grid, guessed from the value's position and checked
    against the grid itself (``grid[r - 1] <= x < grid[r]``): a guess that
    fails the check is searched for, so r is exact either way."""
    kind = np.uint16 if mech.grid_size + 1 <= np.iinfo(np.uint16).max else np.uint32
    grid = mech.grid
    clipped = np.clip(values, mech.low, mech.high)
    if mech.wide:
        return np.searchsorted(grid, clipped, side="right").astype(kind)
    padded = np.concatenate([[-np.inf], grid, [np.inf, np.inf]])  # padded[r] = grid[r - 1]
    guess = clipped - mech.low
    guess *= mech.grid_size / (mech.high - mech.low)
    ranks = guess.astype(np.intp)  # 0 .. about G
    ranks += 1
    right = padded.take(ranks) <= clipped
    right &= clipped < padded[1:].take(ranks)
    if not right.all():
        wrong = ~right
        ranks[wrong] = np.searchsorted(grid, clipped[wrong], side="right")
    return ranks.astype(kind)


def pair_classes(union, in_first, in_second, mech) -> PairClasses:
    """The :class:`PairClasses` of pairs (union, in_first, in_second), on
    ``mech``'s grid, bounds and q (module docstring).

    Parameters
    ----------
    union : ndarray of shape (P, N)
        Each pair's records, both databases' together.
    in_first, in_second : ndarray of bool, shape (P, N)
        Which of them each database holds (each leaves out at most one, every
        record is in one, one size per database in every pair).
    mech : ExponentialQuantileMechanism
        Gives q, the bounds and the grid.

    Returns
    -------
    PairClasses
    """
    union = np.asarray(union, dtype=float)
    if not (np.asarray(in_first, bool) | np.asarray(in_second, bool)).all():
        raise ValueError("every record of a pair's union must be in a database.")
    out1, n1 = _left_out(union, in_first, "in_first")
    out2, n2 = _left_out(union, in_second, "in_second")
    pairs, size = union.shape
    edges = np.empty((pairs, size + 2), np.int64)  # r_(0) = 0 .. r_(N+1) = G + 1
    edges[:, 0], edges[:, -1] = 0, mech.grid_size + 1
    edges[:, 1:-1] = np.sort(_ranks(union, mech), axis=1, kind="stable")
    count = _Counts(edges, mech.grid_size)
    first_db = count.database(_ranks(out1, mech), np.isfinite(out1))
    second_db = count.database(_ranks(out2, mech), np.isfinite(out2))
    width = n2 + 1
    points = np.zeros((pairs, 3, width))
    points[:, 1] = np.diff(second_db.edges(width + 1), axis=1)  # database 2's classes
    r1, r2 = first_db.rank, second_db.rank
    lo, hi = np.minimum(r1, r2)[:, None], np.maximum(r1, r2)[:, None]
    between = np.diff(np.clip(edges, lo, hi), axis=1)  # (P, N + 1) by union count
    down = r1 < r2  # b = -1, c2 = k
    np.multiply(between[:, :width], down[:, None], out=points[:, 0])
    up = r2 < r1  # b = +1, c2 = k - 1
    np.multiply(between[:, 1:width + 1], up[:, None], out=points[:, 2])
    points[:, 1] -= points[:, 0] + points[:, 2]
    counts = np.arange(width)
    first = np.abs((counts[None, :] + np.arange(-1, 2)[:, None]) - mech.q * n1)
    second = np.tile(np.abs(counts - mech.q * n2), (3, 1))
    return PairClasses(
        points.reshape(pairs, 3 * width), first.ravel(), second.ravel(),
        *_extremes(second - first, first_db, second_db, mech.grid_size),
        np.stack([db.nearest(mech.q, n) for db, n in ((first_db, n1), (second_db, n2))],
                 axis=1),
    )


class _Counts:
    """The union's ranks, sorted (``edges``, (P, N + 2), with 0 and G + 1 at
    the ends), and their counts at or below grid points, row by row: each row
    offset by (G + 2) times its index, one sorted array, one search."""

    def __init__(self, edges: np.ndarray, grid_size: int):  # noqa: D107
        pairs, self.width = edges.shape
        self.edges = edges
        self._offset = np.arange(pairs) * (grid_size + 2)
        self._start = np.arange(pairs) * self.width
        self._flat = (edges + self._offset[:, None]).ravel()

    def union(self, j: np.ndarray) -> np.ndarray:
        """c(j), the union's count at grid point j of each row (0 <= j <= G)."""
        at = np.searchsorted(self._flat, self._offset + j, side="right")
        return at - self._start - 1

    def database(self, rank: np.ndarray, present: np.ndarray) -> _Database:
        """The database less the record of rank ``rank`` where ``present``."""
        rank = rank.astype(np.int64)
        at = np.searchsorted(self._flat, self._offset + rank, side="left") - self._start
        return _Database(self, rank, np.where(present, at, self.width))


@dataclass(frozen=True)
class _Database:
    """One database of each pair: the union less the inner entry ``at`` of
    the sorted ranks (its first of rank ``rank``; ``at`` = N + 2: none)."""

    count: _Counts
    rank: np.ndarray  # (P,): r of the record left out (G + 1: none, or above all)
    at: np.ndarray  # (P,)

    def edges(self, keep: int) -> np.ndarray:
        """Its first ``keep`` sorted ranks, with 0 first."""
        edges = self.count.edges
        if np.all(self.at == self.count.width):
            return edges[:, :keep]
        kept = np.ones(edges.shape, bool)
        kept[np.arange(edges.shape[0]), self.at] = False
        return edges[kept].reshape(edges.shape[0], -1)[:, :keep]

    def counts(self, j: np.ndarray) -> np.ndarray:
        """Its count at grid point j of each row."""
        return self.count.union(j) - (self.rank <= j)

    def nearest(self, q: float, n: int) -> np.ndarray:
        r"""(P,): its least distance :math:`|c - qn|` over the grid, as the
        columns compute it. c(j) does not decrease: the least is at the last
        grid point with :math:`c \le \lfloor qn \rfloor` or the first with
        :math:`c \ge \lceil qn \rceil`, the grid points before its
        (floor + 1)-th rank and at its ceil-th."""
        target = q * n
        table = np.abs(np.arange(n + 1) - target)
        rows = np.arange(self.at.size)
        grid_end = self.count.edges[0, -1]  # G + 1
        out = np.full(self.at.size, np.inf)
        for k, step in ((math.ceil(target), 0), (math.floor(target) + 1, -1)):
            if not 0 <= k <= n + 1:
                continue
            j = self.count.edges[rows, k + (k >= self.at)] + step
            valid = (j >= 0) & (j < grid_end)
            c = self.counts(np.clip(j, 0, grid_end - 1))
            out = np.where(valid, np.minimum(out, table[np.clip(c, 0, n)]), out)
        return out


def _extremes(shift: np.ndarray, first: _Database, second: _Database,
              grid_size: int) -> tuple[np.ndarray, np.ndarray]:
    """The largest and least ``shift`` (3, C) over each pair's columns held.

    In each group b, :math:`s = |c_2 - q n_2| - |c_2 + b - q n_1|` is a
    monotone function of :math:`c_2` (a difference of two absolute values of
    slopes of equal size), and :math:`c_2` does not decrease over the grid:
    it is reached at the group's first or last grid point. The computed s
    there is within the distances' rounding (a few ulps of n, module
    docstring) of the exact extreme. Group b = -1 or +1 holds
    :math:`[lo, hi)`, group 0 the rest of the grid."""
    lo = np.minimum(first.rank, second.rank)
    hi = np.maximum(first.rank, second.rank)
    inner = np.where(first.rank < second.rank, 0, 2)
    groups = (
        (lo < hi, inner, lo, hi - 1),
        ((lo > 0) | (hi <= grid_size), np.ones_like(lo),
         np.where(lo > 0, 0, hi), np.where(hi <= grid_size, grid_size, lo - 1)),
    )
    high = np.full(lo.size, -np.inf)
    low = np.full(lo.size, np.inf)
    for some, group, start, stop in groups:
        for j in (start, stop):
            s = shift[group, second.counts(np.clip(j, 0, grid_size))]
            high = np.where(some, np.maximum(high, s), high)
            low = np.where(some, np.minimum(low, s), low)
    return high, low
