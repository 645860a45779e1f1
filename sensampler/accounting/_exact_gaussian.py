r"""The exact privacy profile of composed Gaussian steps, certified against round-off.

k Gaussian steps of noise :math:`\sigma_j` (per unit of L2 sensitivity) compose
to one Gaussian pair N(0, 1), N(mu, 1) with :math:`\mu^2 = \sum_j k_j/\sigma_j^2`
(the privacy losses are Gaussian and add; Dong, Roth & Su 2022, Cor. 3.3), whose
exact profile is Balle & Wang (2018), Thm. 8:

.. math:: \delta(\epsilon) = \Phi(\mu/2 - \epsilon/\mu)
          - e^{\epsilon}\,\Phi(-\mu/2 - \epsilon/\mu).

It is the delta of one Gaussian mechanism of noise :math:`1/\mu`, evaluated with
its error bound by :func:`sensampler._math.balle_wang.delta_with_error` (the one the
mechanisms calibrate with); where that bound is not known (:math:`\mu/2 +
\epsilon/\mu` beyond :data:`~sensampler._math.balle_wang.MAX_M`), both terms are
evaluated in log space (``scipy.special.log_ndtr``) with a bound of their own. The
bound is added either way, so :func:`gaussian_delta` is never below the exact delta
and :func:`gaussian_epsilon` never below the exact epsilon.

References
----------
.. [1] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for
   Differential Privacy: Analytical Calibration and Optimal Denoising",
   ICML 2018.
.. [2] J. Dong, A. Roth and W. J. Su, "Gaussian Differential Privacy",
   JRSS B 84(1), 2022.
"""

from __future__ import annotations

import math

from scipy import special

from .._math.balle_wang import delta_with_error
from .._math.search import falling_root

__all__ = ["gaussian_mu", "gaussian_delta", "gaussian_epsilon"]

_U = 2.0**-53
_LOG_NDTR_RELATIVE = 1e-14
"""Relative accuracy assumed of ``log_ndtr`` (Cephes/Boost: a few ulps)."""


def gaussian_mu(sigmas_counts) -> float:
    r""":math:`\mu = \sqrt{\sum_j k_j / \sigma_j^2}` of ``(sigma, count)`` pairs."""
    # k / s / s: inf for a tiny sigma, never a ZeroDivisionError from s * s = 0
    return math.sqrt(math.fsum(k / s / s for s, k in sigmas_counts))


def gaussian_delta(mu: float, epsilon: float) -> float:
    """Certified upper bound on the exact delta of N(0, 1) vs N(mu, 1) at ``epsilon``.

    Parameters
    ----------
    mu : float
        Shift, ``> 0``.
    epsilon : float
        ``>= 0``.

    Returns
    -------
    float
        The computed delta plus its evaluation error bound, in [0, 1].
    """
    if mu == math.inf:  # no noise to speak of: nothing below delta = 1 holds
        return 1.0
    # sigma = 1/mu rounded down: delta falls as sigma grows, so this overstates it;
    # 1e-300 exceeds a tail that delta_with_error rounds to 0 (below e^-800)
    value, error = delta_with_error(math.nextafter(1.0 / mu, 0.0), epsilon)
    if error < math.inf:
        return min(1.0, value + error + 1e-300)
    la = float(special.log_ndtr(mu / 2.0 - epsilon / mu))
    lb = epsilon + float(special.log_ndtr(-mu / 2.0 - epsilon / mu))
    t1, t2 = math.exp(la), math.exp(lb)
    # exp of a log with absolute error r|log| has relative error about r|log|
    rel = 4.0 * (_LOG_NDTR_RELATIVE + _U) * (2.0 + abs(la) + abs(lb) + epsilon)
    return min(1.0, max(0.0, t1 - t2) + rel * (t1 + t2) + 1e-300)


def gaussian_epsilon(mu: float, delta: float) -> float:
    """Smallest epsilon whose certified :func:`gaussian_delta` is at most ``delta``.

    Parameters
    ----------
    mu : float
        Shift, ``> 0``.
    delta : float
        ``0 < delta <= 1``.

    Returns
    -------
    float
        Never below the exact epsilon; ``inf`` if no finite one is certified.
    """
    # brentq may stop a hair below the crossing: the root is raised until it holds
    return falling_root(
        lambda e: gaussian_delta(mu, e) - delta,
        0.0,
        1.0,
        xtol=1e-12,
        rtol=1e-13,
        floor=0.0,
        limit=1e300,
        holds=lambda e: gaussian_delta(mu, e) <= delta,
    )
