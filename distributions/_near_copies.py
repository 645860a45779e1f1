"""Near copies of the private data given as its population (rounded, shifted,
rescaled): :func:`near_copy`, used by
:func:`sensampler.distributions.empirical.check_not_private`."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["NEAR_ROWS", "NEAR_SHARE", "NEAR_SPREAD", "ROUNDED_DISTINCT", "near_copy", "row_keys"]

#: :func:`near_copy`: a continuous column matches the private one when, sorted
#: and fitted by a line, this share of its rows lies within
#: ``NEAR_SPREAD / sqrt(n)`` of its standard deviation...
NEAR_SHARE = 0.9
#: ... and this is that tolerance times sqrt(n), in standard deviations.
NEAR_SPREAD = 0.1
#: Distinct public rows a rounded copy needs to be told from chance.
ROUNDED_DISTINCT = 10
#: Rows a table needs for the line of :func:`near_copy` (two points lie on one).
NEAR_ROWS = 20


def row_keys(table: np.ndarray) -> list:
    rows = np.asarray(table, dtype=float).reshape(table.shape[0], -1)
    return [row.tobytes() for row in rows + 0.0]  # + 0.0: -0.0 and 0.0 alike


def _decimals(column: np.ndarray) -> int | None:
    """The fewest decimals (-6 to 9) every value of ``column`` is written
    with, as ``np.round`` rounds, or None (values off every grid)."""
    for decimals in range(-6, 10):
        scaled = np.abs(column * 10.0**decimals)
        if np.max(scaled, initial=0.0) > 1e12:
            return None  # past 1e12 a double no longer tells the grid apart
        slack = 1e-6 + 16 * np.finfo(float).eps * scaled  # the rounding's own error
        if np.all(np.abs(scaled - np.rint(scaled)) <= slack):
            return decimals
    return None


def _rounded_copy(pub: np.ndarray, priv: np.ndarray) -> str | None:
    """The public rows are the private ones rounded (to the decimals each
    public column is written with): the same rows once the private values
    are rounded so, where rounding changed at least one column."""
    keys_pub, keys_priv, rounded = [], [], False
    for j in range(pub.shape[1]):
        decimals = _decimals(pub[:, j])
        if decimals is None:
            keys_pub.append(pub[:, j])
            keys_priv.append(priv[:, j])
            continue
        scale = 10.0**decimals
        grid = np.rint(priv[:, j] * scale)
        rounded = rounded or not np.array_equal(grid, priv[:, j] * scale)
        keys_pub.append(np.rint(pub[:, j] * scale))
        keys_priv.append(grid)
    if not rounded:
        return None  # nothing rounded: shared_rows compares the values as they are
    pub_rows = Counter(row_keys(np.column_stack(keys_pub)))
    if len(pub_rows) < ROUNDED_DISTINCT:
        return None  # too few values: independent samples can match by chance
    if pub_rows == Counter(row_keys(np.column_stack(keys_priv))):
        return "are the private records rounded (the same rows once rounded)"
    return None


def _matched_column(p: np.ndarray, q: np.ndarray) -> bool:
    """Whether sorted ``p`` is a line of sorted ``q`` (or of it reversed) up to
    :data:`NEAR_SPREAD` ``/ sqrt(n)`` standard deviations, for
    :data:`NEAR_SHARE` of the rows."""
    p, q = np.sort(p), np.sort(q)
    spread = float(np.std(p))
    if not spread > 0 or not np.std(q) > 0:
        return False
    tolerance = NEAR_SPREAD * spread / math.sqrt(len(p))
    for line in (q, q[::-1]):
        centred = line - line.mean()
        slope = float(centred @ (p - p.mean()) / (centred @ centred))
        residual = p - p.mean() - slope * centred
        if np.mean(np.abs(residual) <= tolerance) >= NEAR_SHARE:
            return True
    return False


def near_copy(public: ArrayLike, private: ArrayLike) -> str | None:
    """How the public rows are a near copy of the private ones, in words, or None.

    :func:`shared_rows` finds the private rows themselves; this finds them
    moved a little, which no independent sample does:

    - **Rounded**: once each private value is rounded to the decimals its
      public column is written with (``np.round``), the rows are the public
      ones, all of them, and the public rows hold at least
      :data:`ROUNDED_DISTINCT` distinct values (two samples on a coarser grid
      can match by chance).
    - **Shifted or rescaled** (tables of one size, continuous columns: at
      least 90 % distinct values on both sides): every continuous column,
      sorted, is a line of the private column sorted (``a x + b``, ``a`` of
      either sign: an offset such as + 0.001 or + 1e-9, a change of units),
      within ``NEAR_SPREAD / sqrt(n)`` of its standard deviation for
      :data:`NEAR_SHARE` of the rows (at least :data:`NEAR_ROWS` rows). Two
      independent samples of n values from one law differ, sorted, by about
      ``1.8 sd / sqrt(n)`` at the median of a normal law (the quantile's
      standard error ``sqrt(p (1 - p) / n) / f``, twice over) and more in the
      tails: the tolerance is a twentieth of that at every n, so few of their
      rows fall within it (measured over 50 pairs each of normal, uniform,
      exponential, t(3) and continuous ages: at most 40 % of the rows at
      n = 20, 21 % from n = 100 to 50 000), while a copy's rows lie on the line
      up to rounding errors.

    Both take a sort or a count: O(n log n). A near copy of a subset of the
    private rows, or of rows mixed with others, is not detected.

    Parameters
    ----------
    public, private : array-like of shape (N, ...) and (n, ...)
        The population's rows and the private records.

    Returns
    -------
    str or None
        ``None`` when the tables look independent (or cannot be compared as
        numbers). The words quote no value.
    """
    try:
        pub = np.asarray(public, dtype=float)
        priv = np.asarray(private, dtype=float)
    except (TypeError, ValueError):
        return None
    pub = pub.reshape(len(pub), -1) if pub.ndim else pub.reshape(1, 1)
    priv = priv.reshape(len(priv), -1) if priv.ndim else priv.reshape(1, 1)
    if (
        pub.shape[1] != priv.shape[1]
        or not np.all(np.isfinite(pub))
        or not np.all(np.isfinite(priv))
    ):
        return None
    reason = _rounded_copy(pub, priv)
    if reason is not None or len(pub) != len(priv) or len(pub) < NEAR_ROWS:
        return reason
    columns = [
        j for j in range(pub.shape[1])
        if len(np.unique(pub[:, j])) >= 0.9 * len(pub)
        and len(np.unique(priv[:, j])) >= 0.9 * len(priv)
    ]
    if columns and all(_matched_column(pub[:, j], priv[:, j]) for j in columns):
        return (
            "are the private records shifted or rescaled (every continuous column, "
            "sorted, lies on a line of the private one)"
        )
    return None
