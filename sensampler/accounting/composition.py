r"""Composition theorems for (epsilon, delta)-DP.

Every function returns a valid bound for the k-fold adaptive composition as a
:class:`~sensampler.privacy.PrivacyBound`, which unpacks as the pair
``(epsilon, delta)`` and names its theorem in ``method``; the teaching texts'
simplified forms are not used (see the notes of :func:`advanced_composition`).
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
from numpy.typing import ArrayLike

from .._lib.domains import DELTA_RELEASE, DELTA_TARGET, EPSILON_POINT, documented
from .._lib.validation import check_count
from ..privacy import PrivacyBound
from ._kov import MAX_EXACT_STEPS, heterogeneous_epsilon, homogeneous_epsilon
from .pld import MAX_STEP_EPSILON, certified_epsilon

__all__ = [
    "basic_composition",
    "parallel_composition",
    "advanced_composition",
    "optimal_composition",
    "heterogeneous_composition",
    "tightest_composition",
]

#: Largest x with exp(x) finite in double precision.
_LOG_MAX = math.log(np.finfo(float).max)


def _exp_or_inf(log_value: float) -> float:
    """exp(log_value), or ``inf`` where it overflows a double."""
    return math.inf if log_value > _LOG_MAX else math.exp(log_value)


def _check_eps_delta(epsilon, delta, *, delta_name="delta"):
    epsilon = EPSILON_POINT.check("epsilon", epsilon)
    return epsilon, DELTA_RELEASE.check(delta_name, delta)


def _reals(name, values) -> np.ndarray:
    """A real or a non-empty 1-d sequence of reals, each checked, as a float array."""
    if isinstance(values, Real) or isinstance(values, np.ndarray) and values.ndim == 0:
        items = [values]
    elif isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(
            f"{name} must be a real number or a sequence of them, got {values!r}."
        )
    else:
        items = list(values)
    if not items:
        raise ValueError(f"{name} must hold at least one value, got {name}={values!r}.")
    domain = DELTA_RELEASE if name == "delta" else EPSILON_POINT
    return np.array([domain.check(name, v) for v in items])


def _as_lists(epsilon, delta):
    eps = _reals("epsilon", epsilon)
    dels = _reals("delta", delta)
    if dels.size == 1:
        dels = np.full(eps.shape, dels[0])
    elif dels.size != eps.size:
        raise ValueError(
            f"delta must be one value or one per epsilon ({eps.size}), got "
            f"{dels.size} values: delta={delta!r}."
        )
    return eps, dels


def basic_composition(
    epsilon: ArrayLike, delta: ArrayLike = 0.0, k: int = 1
) -> PrivacyBound:
    """Sequential composition: epsilons and deltas add up (Dwork & Roth 2014, Thm. 3.16).

    Parameters
    ----------
    epsilon, delta : float or sequence of float
        One mechanism's parameters repeated ``k`` times, or one entry per mechanism.
    k : int, default 1
        Repetitions of scalar parameters (must stay 1 for sequences).

    Returns
    -------
    PrivacyBound
        The sums of the epsilons and of the deltas (the latter capped at 1).

    Examples
    --------
    >>> tuple(basic_composition(0.5, 0.0, k=3))
    (1.5, 0.0)
    """
    k = check_count("k", k)
    eps, dels = _as_lists(epsilon, delta)
    if eps.size > 1 and k != 1:
        raise ValueError(f"give k only with scalar epsilon and delta, got k={k}.")
    with np.errstate(over="ignore"):  # a sum beyond the largest double is inf
        total = float(k * eps.sum())
    return PrivacyBound(
        total,
        float(min(1.0, k * dels.sum())),
        method="basic (Dwork & Roth 2014, Thm. 3.16)",
    )


def parallel_composition(epsilon: ArrayLike, delta: ArrayLike = 0.0) -> PrivacyBound:
    """Mechanisms on disjoint parts of the data: the largest epsilon and delta
    (McSherry 2009, Thm. 4).

    Parameters
    ----------
    epsilon : float or sequence of float
        Each mechanism's epsilon, ``>= 0``.
    delta : float or sequence of float, default 0.0
        Each mechanism's delta, in ``[0, 1]``.

    Returns
    -------
    PrivacyBound
        The largest epsilon and the largest delta.
    """
    eps, dels = _as_lists(epsilon, delta)
    return PrivacyBound(
        float(eps.max()), float(dels.max()), method="parallel (McSherry 2009, Thm. 4)"
    )


@documented
def advanced_composition(
    epsilon: float, delta: float, k: int, delta_prime: float
) -> PrivacyBound:
    r"""Advanced composition (Dwork & Roth 2014, Thm. 3.20).

    k mechanisms, each (epsilon, delta)-DP, compose to
    :math:`(\epsilon', k\delta + \delta')` with

    .. math:: \epsilon' = \epsilon\sqrt{2k\ln(1/\delta')} + k\epsilon(e^\epsilon - 1).

    Parameters
    ----------
    epsilon : float
        Each mechanism's epsilon, ``>= 0``.
    delta : float
        Each mechanism's delta, ``{DELTA_RELEASE:delta}``.
    k : int
        Number of mechanisms composed, ``>= 1``.
    delta_prime : float
        Extra delta spent by the bound, ``{DELTA_TARGET:delta_prime}``.

    Returns
    -------
    PrivacyBound
        :math:`(\epsilon', \min(1, k\delta + \delta'))`.

    Notes
    -----
    Two simplified forms circulate and under-report epsilon:
    :math:`2\epsilon\sqrt{2k\ln(1/\delta')}` holds only in the regime of
    Cor. 3.21 (a target :math:`\epsilon' < 1`); for epsilon = 1, k = 500 and
    :math:`\delta' = 10^{-5}` it gives 214.6 while the theorem gives 966.4 (and
    basic composition 500). :math:`\sqrt{2k\ln(1/\delta')} + k\epsilon(e^\epsilon-1)`
    drops the factor epsilon of the first term. Neither is returned here.

    Examples
    --------
    >>> eps, delta = advanced_composition(1.0, 0.0, 500, 1e-5)
    >>> round(eps, 1), delta
    (966.4, 1e-05)
    """
    epsilon, delta = _check_eps_delta(epsilon, delta)
    k = check_count("k", k)
    delta_prime = DELTA_TARGET.check("delta_prime", delta_prime)
    if epsilon == 0.0:
        eps = 0.0
    else:
        # k eps (e^eps - 1) in log space: finite or inf, never an OverflowError;
        # log(1/delta') as -log(delta'), finite for every delta' > 0
        drift = _exp_or_inf(
            math.log(k) + math.log(epsilon) + epsilon + math.log(-math.expm1(-epsilon))
        )
        eps = epsilon * math.sqrt(2 * k * -math.log(delta_prime)) + drift
    return PrivacyBound(
        eps,
        min(1.0, k * delta + delta_prime),
        method="advanced (Dwork & Roth 2014, Thm. 3.20)",
    )


@documented
def optimal_composition(
    epsilon: float, delta: float, k: int, delta_prime: float
) -> PrivacyBound:
    r"""Optimal homogeneous composition (Kairouz, Oh & Viswanath 2017, Thm. 3.3).

    k-fold adaptive composition of (epsilon, delta)-DP mechanisms is
    :math:`(\epsilon', \delta'(\epsilon'))`-DP with the exact privacy profile
    :math:`\delta'` of KOV's dominating pair, and no better bound holds for
    all such mechanisms. Returns the smallest :math:`\epsilon'` whose
    :math:`\delta'` does not exceed :math:`k\delta + \delta'` (the delta
    advanced composition would spend), solved exactly between the theorem's
    points :math:`(k - 2i)\epsilon` (:func:`~sensampler.accounting._kov.
    homogeneous_epsilon`), with that delta budget.

    Parameters
    ----------
    epsilon : float
        Each mechanism's epsilon, ``>= 0``.
    delta : float
        Each mechanism's delta, ``{DELTA_RELEASE:delta}``.
    k : int
        Number of mechanisms composed, ``>= 1``.
    delta_prime : float
        Extra delta spent by the bound, ``{DELTA_TARGET:delta_prime}``.

    Returns
    -------
    PrivacyBound
        The smallest epsilon', with delta :math:`\min(1, k\delta + \delta')`.

    Examples
    --------
    >>> round(optimal_composition(0.5, 0.0, 100, 1e-5).epsilon, 2)
    31.17
    """
    epsilon, delta = _check_eps_delta(epsilon, delta)
    k = check_count("k", k)
    delta_prime = DELTA_TARGET.check("delta_prime", delta_prime)
    budget = min(1.0, k * delta + delta_prime)
    return PrivacyBound(
        homogeneous_epsilon(epsilon, delta, k, budget),
        budget,
        method="optimal (Kairouz et al. 2017, Thm. 3.3)",
    )


@documented
def heterogeneous_composition(epsilons, deltas, delta_prime: float) -> PrivacyBound:
    r"""Composition of different (epsilon_l, delta_l)-DP mechanisms
    (Kairouz, Oh & Viswanath 2017, Thm. 3.5).

    The adaptive composition is :math:`(\tilde\epsilon, 1 - (1-\delta')
    \prod_l (1-\delta_l))`-DP, :math:`\tilde\epsilon` the minimum of
    :math:`\sum_l \epsilon_l` and the theorem's two concentration bounds
    (:func:`~sensampler.accounting._kov.heterogeneous_epsilon`).

    Parameters
    ----------
    epsilons, deltas : sequence of float
        One entry per mechanism (deltas may be a single value for all).
    delta_prime : float
        :math:`\delta'`, ``{DELTA_TARGET:delta_prime}``.

    Returns
    -------
    PrivacyBound
        :math:`(\tilde\epsilon, 1 - (1-\delta')\prod_l (1-\delta_l))`.

    Examples
    --------
    >>> bound = heterogeneous_composition([0.1] * 100, 0.0, 1e-5)
    >>> round(bound.epsilon, 3), bound.delta
    (5.298, 1e-05)
    """
    eps, dels = _as_lists(epsilons, deltas)
    delta_prime = DELTA_TARGET.check("delta_prime", delta_prime)
    epsilon, delta = heterogeneous_epsilon(eps, dels, delta_prime)
    return PrivacyBound(
        epsilon, delta, method="heterogeneous (Kairouz et al. 2017, Thm. 3.5)"
    )


#: Most steps tightest_composition lists one by one (heterogeneous composition)
#: or composes on a PLD grid: each takes up to a few seconds there.
_MAX_LISTED_STEPS = 10**5


@documented
def tightest_composition(
    epsilon: float, delta: float, k: int, delta_prime: float
) -> PrivacyBound:
    """The smallest epsilon of every valid bound, each spending at most
    ``k * delta + delta_prime``.

    Basic and advanced composition; optimal (exact) composition for
    ``k <= MAX_EXACT_STEPS`` (10^6); heterogeneous composition for k <= 10^5;
    and, where Google's ``dp_accounting`` is installed (``sensampler[pld]``),
    the privacy-loss-distribution bound of the k-fold composition
    (pessimistic, :func:`~sensampler.accounting.pld.pld_epsilon`) where it can
    represent the steps (``epsilon <= MAX_STEP_EPSILON``, about 709.78) on a
    grid of moderate size (k <= 10^5 and ``k * epsilon <= 1000``: the grid
    spans about ``k * epsilon / 1e-4`` points, a few seconds), and only where
    its certified FFT round-off is at most half the delta
    (:func:`~sensampler.accounting.pld.certified_epsilon`). Where a bound is left
    out the others remain; for these homogeneous steps the exact optimal bound
    (Kairouz et al. 2017, Thm. 3.3) is the true optimum, which no certified PLD
    bound beats. Every candidate is a certified upper bound; ``method`` names
    the one returned.

    Parameters
    ----------
    epsilon : float
        Each mechanism's epsilon, ``>= 0``.
    delta : float
        Each mechanism's delta, ``{DELTA_RELEASE:delta}``.
    k : int
        Number of mechanisms composed, ``>= 1``.
    delta_prime : float
        Extra delta spent by the bound, ``{DELTA_TARGET:delta_prime}``.

    Returns
    -------
    PrivacyBound
        The bound of smallest epsilon, ``method`` naming it.

    Examples
    --------
    >>> tightest_composition(1.0, 0.0, 500, 1e-5).method
    'optimal (Kairouz et al. 2017, Thm. 3.3)'
    """
    candidates = [
        basic_composition(epsilon, delta, k),
        advanced_composition(epsilon, delta, k, delta_prime),
    ]
    budget = candidates[1].delta  # k delta + delta_prime, capped at 1
    if k <= MAX_EXACT_STEPS:
        candidates.append(optimal_composition(epsilon, delta, k, delta_prime))
    if k <= _MAX_LISTED_STEPS:
        candidates.append(heterogeneous_composition([epsilon] * k, delta, delta_prime))
    step = ("epsilon_delta", epsilon, delta, k) if delta else ("pure", epsilon, k)
    if k <= _MAX_LISTED_STEPS and epsilon <= MAX_STEP_EPSILON and k * epsilon <= 1e3:
        try:
            pld, method = certified_epsilon([step], budget)
        except ImportError:  # the pld extra is not installed
            pass
        else:
            candidates.append(PrivacyBound(pld, budget, method=method))
    return min(candidates, key=lambda c: (c.epsilon, c.delta))
