r"""Exact (Clopper–Pearson) confidence bounds on a binomial proportion.

For x successes in n trials, the one-sided bounds at level :math:`1 - a` are
the quantiles of beta laws (Clopper & Pearson 1934; Brown, Cai & DasGupta 2001,
Sec. 2.1):

.. math:: p_{\mathrm{low}} = B^{-1}(a;\, x, n - x + 1), \qquad
          p_{\mathrm{high}} = B^{-1}(1 - a;\, x + 1, n - x),

with :math:`p_{\mathrm{low}} = 0` at x = 0 and :math:`p_{\mathrm{high}} = 1`
at x = n. Each holds with probability at least :math:`1 - a` whatever p
(the binomial tail is monotone in p), so the interval
:math:`[p_{\mathrm{low}}, p_{\mathrm{high}}]` with :math:`a = (1-c)/2` covers p
with probability at least c. Computed with ``scipy.special.betaincinv``, the
regularised incomplete beta's inverse, imported where computed: not with
:mod:`sensampler.audit` (which the command line imports), nor ``scipy.stats``.

References
----------
.. [1] C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial
   limits illustrated in the case of the binomial", Biometrika 26(4), 1934.
.. [2] L. D. Brown, T. T. Cai and A. DasGupta, "Interval estimation for a
   binomial proportion", Statistical Science 16(2), 2001.
"""

from __future__ import annotations

import numpy as np

__all__ = ["lower_bound", "upper_bound", "interval"]


def lower_bound(successes, trials, level):
    """One-sided lower bound on p holding with probability >= ``level`` (arrays too)."""
    x = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    from scipy import special

    with np.errstate(divide="ignore", invalid="ignore"):
        low = special.betaincinv(x, n - x + 1.0, 1.0 - level)
    return np.where(x <= 0, 0.0, low)


def upper_bound(successes, trials, level):
    """One-sided upper bound on p holding with probability >= ``level`` (arrays too)."""
    x = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    from scipy import special

    with np.errstate(divide="ignore", invalid="ignore"):
        high = special.betaincinv(x + 1.0, n - x, level)
    return np.where(x >= n, 1.0, high)


def interval(successes: int, trials: int, confidence: float) -> tuple[float, float]:
    """Two-sided interval covering p with probability >= ``confidence``."""
    level = 1.0 - (1.0 - confidence) / 2.0
    return (
        float(lower_bound(successes, trials, level)),
        float(upper_bound(successes, trials, level)),
    )
