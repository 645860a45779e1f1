r"""Worst-case sensitivities of the built-in queries on clipped records.

Each function gives the sensitivity, over every pair of neighbours, of the
query on records clipped to [low, high] (width w = high - low), in a norm
named by a string; None where no bound is derived. Scalar outputs have
equal l1, l2 and linf norms.

Each rule is a built-in query's ``worst_case`` attribute (see
:func:`sensampler.bounds.worst_case_sensitivity`), called as
``rule(low, high, n, neighbours, norm)`` (after any leading parameters of the
query, bound with :func:`functools.partial`).
"""

from __future__ import annotations

import functools
import math

__all__ = [
    "SCALAR_NORMS",
    "coordinate_as_l1",
    "vector_norm",
    "worst_count",
    "worst_histogram",
    "worst_mean",
    "worst_quantiles",
    "worst_sum",
    "worst_variance",
]

#: The norms of a scalar output's change: all three are its absolute value.
SCALAR_NORMS = ("l1", "l2", "linf")


def coordinate_as_l1(rule):
    r"""A worst-case rule that also answers ``norm="coordinate"``, with the l1 bound.

    A per-coordinate estimate's worst case is the l1 norm of the change over all
    coordinates: it bounds each coordinate's change and their sum, which is all
    that per-coordinate noise needs (Laplace: a loss of at most
    :math:`\sum_j |v_j|/b_j \le \lVert v\rVert_1/\min_j b_j`; Gaussian:
    :math:`\lVert v/\sigma\rVert_2 \le \lVert v\rVert_1/\min_j \sigma_j`).
    """

    @functools.wraps(rule)
    def answer(*args):
        *rest, norm = args
        return rule(*rest, "l1" if norm == "coordinate" else norm)

    return answer


def vector_norm(norm: str, size: int, each: float) -> float | None:
    """Norm of a vector of ``size`` coordinates, each moving by at most ``each``."""
    if norm == "l1":
        return size * each
    if norm == "l2":
        return math.sqrt(size) * each
    return each if norm == "linf" else None


@coordinate_as_l1
def worst_mean(low, high, n, neighbours, norm):
    # replace-one: (x - x')/n; add/remove: (x - mean(D))/n, both within [-w, w]/n.
    return (high - low) / n if norm in SCALAR_NORMS else None


@coordinate_as_l1
def worst_sum(low, high, n, neighbours, norm):
    # replace-one: x - x' in [-w, w]; add/remove: the record x itself.
    if norm not in SCALAR_NORMS:
        return None
    return high - low if neighbours == "replace-one" else max(abs(low), abs(high))


@coordinate_as_l1
def worst_quantiles(size, low, high, n, neighbours, norm):
    # Every quantile of records in [low, high] lies in [low, high]: it moves by
    # at most w, whatever the relation (numpy's interpolation stays inside).
    return vector_norm(norm, size, high - low)


@coordinate_as_l1
def worst_variance(ddof, root, low, high, n, neighbours, norm):
    r"""Variance: :math:`w^2/(n - \mathrm{ddof})`; std: its square root.

    Replace-one: :math:`V(D) = \min_c \sum_i (d_i - c)^2/(n - \mathrm{ddof})`,
    so with c the mean of D', :math:`V(D) \le V(D') + w^2/(n - \mathrm{ddof})`,
    and symmetrically. Add/remove (ddof = 0): :math:`n V_n(D \cup x) = (n-1)
    V_{n-1}(D) + \frac{n-1}{n}(x - \bar D)^2` (Welford), so the change is
    :math:`\frac{n-1}{n^2}(x - \bar D)^2 - V_{n-1}(D)/n`, within
    :math:`[-w^2/(4n), w^2/n]` (Popoviciu: :math:`V \le w^2/4`). The standard
    deviation moves by at most the square root: :math:`|\sqrt u - \sqrt v|
    \le \sqrt{|u - v|}`.
    """
    if norm not in SCALAR_NORMS or n <= ddof:
        return None
    if neighbours == "add-remove" and ddof:
        return None
    bound = (high - low) ** 2 / (n - ddof)
    if not math.isfinite(bound):
        return None
    return math.sqrt(bound) if root else bound


@coordinate_as_l1
def worst_count(low, high, n, neighbours, norm):
    # One record enters or leaves the count.
    return 1.0 if norm in SCALAR_NORMS else None


@coordinate_as_l1
def worst_histogram(bins, low, high, n, neighbours, norm):
    # replace-one: one bin -1 and another +1; add/remove: one bin +1.
    if neighbours == "add-remove":
        return 1.0 if norm in SCALAR_NORMS else None
    if bins == 1:
        return 1.0 if norm in SCALAR_NORMS else None
    return {"l1": 2.0, "l2": math.sqrt(2.0), "linf": 1.0}.get(norm)
