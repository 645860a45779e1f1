"""The experiments of the source documents, through sensampler's own API."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from ..._lib.domains import (
    DELTA_STATED,
    DELTA_TARGET,
    EPSILON,
    EPSILON_POINT,
    FILTER_RULES,
    ORDER,
    POSITIVE,
)
from ..._lib.validation import check_array, check_random_state, check_real
from ...accounting import (
    ExceededPrivacyBudgetError,
    PrivacyFilter,
    RenyiAccountant,
    ZCDPAccountant,
    advanced_composition,
    basic_composition,
    optimal_composition,
    zcdp_to_dp,
)
from ...mechanisms import (
    LaplaceMechanism,
    ZCDPGaussianMechanism,
    analytic_gaussian_sigma,
    gaussian_epsilon,
)
from ...table import ResultTable

__all__ = [
    "CompositionExperiment",
    "composition_experiment",
    "runs_before_budget",
    "vectorized_vs_sequential",
    "epsilon_vs_iterations",
    "MAX_ITERATIONS",
    "MAX_RELEASES",
]


@dataclass(frozen=True)
class CompositionExperiment:
    """The adversary's two views and what composition theorems say of them.

    Parameters
    ----------
    view_0, view_1 : ndarray
        The adversary's views: the releases on ``secret`` (b = 0) and on
        ``secret + 1`` (b = 1), one per mechanism.
    secret : float
        The value of the database D.
    epsilon_basic, delta_basic : float
        The (epsilon, delta) of the mechanisms by basic composition.
    """

    view_0: np.ndarray
    view_1: np.ndarray
    secret: float
    epsilon_basic: float
    delta_basic: float

    @property
    def mean_gap(self) -> float:
        """Difference of the views' means: the adversary's evidence for b = 1."""
        return float(self.view_1.mean() - self.view_0.mean())


def composition_experiment(
    mechanisms, secret: float = 1.0, random_state=None
) -> CompositionExperiment:
    """The composition experiment with an adversary (Dwork & Roth 2014, Sec. 3.5.1).

    For each mechanism in turn, the adversary receives its release on the
    neighbouring databases ``secret`` (b = 0) and ``secret + 1`` (b = 1); the two
    views grow apart as mechanisms are composed, at the rate the composition
    theorems bound.

    Parameters
    ----------
    mechanisms : sequence of mechanisms
        Each with ``release(value, random_state)`` and a privacy statement.
    secret : float
    random_state : seed

    Returns
    -------
    CompositionExperiment
        The two views and the composed (epsilon, delta).
    """
    rng = check_random_state(random_state)
    secret = check_real("secret", secret)
    mechanisms = list(mechanisms)
    if not mechanisms:
        raise ValueError("mechanisms must not be empty.")
    for i, mechanism in enumerate(mechanisms):
        if not (callable(getattr(mechanism, "release", None)) and hasattr(
            mechanism, "privacy"
        )):
            raise TypeError(
                f"mechanisms[{i}] must be a mechanism (with release() and a privacy "
                f"statement, e.g. LaplaceMechanism(1.0, 0.5)), got {mechanism!r}."
            )
    view_0 = np.array([m.release(secret, random_state=rng) for m in mechanisms])
    view_1 = np.array([m.release(secret + 1.0, random_state=rng) for m in mechanisms])
    eps, delta = basic_composition(
        [m.privacy.epsilon for m in mechanisms], [m.privacy.delta for m in mechanisms]
    )
    return CompositionExperiment(view_0, view_1, secret, eps, delta)


#: Most releases :func:`runs_before_budget` may make, over all its epsilons and rules
#: (a release through a filter takes about 135 us: some 2 minutes at the limit).
MAX_RELEASES = 10**6
_RELEASE_SECONDS = 135e-6


def _most_releases(epsilon, rule, epsilon_budget, delta_budget) -> float:
    r"""An upper bound on the releases of one epsilon a filter admits.

    Basic composition admits at most :math:`B/\epsilon` of them. The advanced
    filter's statistic (Rogers et al. 2016, Thm. 5.1; see
    :func:`~sensampler.accounting.advanced_filter_bound`) is at least
    :math:`\sqrt{2 k \epsilon^2 \ln(2/\delta)}`, so it admits at most
    :math:`B^2 / (2\epsilon^2\ln(2/\delta))`; "auto" the larger of the two.
    """
    basic = epsilon_budget / epsilon + 1.0
    if rule == "basic" or delta_budget <= 0.0:
        return basic
    ratio = epsilon_budget / epsilon
    advanced = ratio * ratio / (2.0 * math.log(2.0 / delta_budget)) + 1.0
    return advanced if rule == "advanced" else max(basic, advanced)


def runs_before_budget(
    epsilons,
    epsilon_budget: float = 0.2,
    delta_budget: float = 2e-30,
    rules=("basic", "advanced", "auto"),
    secret: float = 1.0,
    random_state=None,
) -> ResultTable:
    r"""How many Laplace releases of each epsilon a privacy filter lets through.

    The experiment of the filters text: a fixed budget, repeated releases of a
    sensitivity-1 query through ``PrivacyFilter.release`` until
    :class:`ExceededPrivacyBudgetError`.

    Parameters
    ----------
    epsilons : array-like of float > 0
        Epsilon of each release, one experiment per value.
    epsilon_budget, delta_budget : float
        The filter's budget.
    rules : sequence of {"basic", "advanced", "auto"}
        The filter's rules, one experiment each.
    secret : float
        The released value.
    random_state : seed

    Raises
    ------
    ValueError
        Before any release, when the filters could admit more than
        :data:`MAX_RELEASES` releases in all (an upper bound: basic
        composition's :math:`B/\epsilon`, the advanced filter's
        :math:`B^2/(2\epsilon^2\ln(2/\delta))`).

    Returns
    -------
    ResultTable
        Columns ``epsilon``, ``rule``, ``runs``, ``epsilon_budget`` and
        ``delta_budget``.
    """
    eps = check_array("epsilons", epsilons, ndim=1, positive=True)
    epsilon_budget = EPSILON_POINT.check("epsilon_budget", epsilon_budget)
    delta_budget = DELTA_STATED.check("delta_budget", delta_budget)
    if isinstance(rules, str):
        rules = (rules,)
    rules = tuple(FILTER_RULES.check("rules", rule) for rule in rules)
    releases = sum(_most_releases(e, rule, epsilon_budget, delta_budget)
                   for e in eps for rule in rules)
    if releases > MAX_RELEASES:
        raise ValueError(
            f"the filters would admit up to {releases:.3g} releases, more than "
            f"MAX_RELEASES={MAX_RELEASES} (about {_RELEASE_SECONDS * 1e6:.0f} us "
            f"each): use larger epsilons, got epsilons={eps.tolist()!r} with "
            f"epsilon_budget={epsilon_budget!r}."
        )
    rng = check_random_state(random_state)
    rows = []
    for e in eps:
        for rule in rules:
            budget = PrivacyFilter(epsilon_budget, delta_budget, rule=rule)
            mech = LaplaceMechanism(1.0, float(e))
            runs = 0
            while True:
                try:
                    budget.release(mech, secret, random_state=rng)
                except ExceededPrivacyBudgetError:
                    break
                runs += 1
            rows.append(
                {
                    "epsilon": float(e),
                    "rule": rule,
                    "runs": runs,
                    "epsilon_budget": float(epsilon_budget),
                    "delta_budget": float(delta_budget),
                }
            )
    return ResultTable(rows)


def _advanced_step_sigma(epsilon, delta, k):
    """Noise of each of k sensitivity-1 Gaussian releases whose advanced
    composition (Dwork & Roth 2014, Thm. 3.20) is (epsilon, delta)-DP: each step
    (eps0, delta/(2k))-DP, slack delta' = delta/2, eps0 solved by brentq."""
    d0 = delta / (2 * k)

    def excess(eps0):
        return advanced_composition(eps0, d0, k, delta / 2)[0] - epsilon

    # The bracket's low end and the tolerance shrink with a tiny epsilon (1e-99);
    # a huge one (1e75) needs more than brentq's default 100 iterations.
    low = min(1e-12, epsilon * 1e-12)
    try:
        eps0 = optimize.brentq(
            excess, low, epsilon, xtol=low * 1e-3, rtol=1e-12, maxiter=1000
        )
    except (ValueError, RuntimeError) as exc:
        raise ValueError(
            f"advanced composition's step epsilon cannot be solved for at "
            f"epsilon={epsilon!r}, delta={delta!r}, k={k}: {exc}"
        ) from exc
    while excess(eps0) > 0:  # round down: the composition must fit the budget
        eps0 *= 1 - 1e-12
    return analytic_gaussian_sigma(eps0, d0)


def _check_counts(name: str, values) -> np.ndarray:
    """``values`` as a non-empty 1-d array of integers >= 1, or raise naming ``name``."""
    arr = check_array(name, values, ndim=1, positive=True)
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty, got {name}={values!r}.")
    if np.any(arr != np.round(arr)) or np.any(arr < 1) or np.any(arr > 2**53):
        raise ValueError(
            f"{name} must be integers between 1 and 2**53, got {name}={values!r}."
        )
    return arr.astype(np.int64)


def _finite(value: float, where: str) -> float:
    """``value``, if finite; else raise naming the parameters ``where`` gives."""
    if not math.isfinite(value):
        raise ValueError(
            f"the noise variance at {where} exceeds the largest float64: use a "
            "larger epsilon or delta, or a smaller k."
        )
    return value


def _square(value: float, where: str) -> float:
    """``value**2`` (Python's ``**`` raises OverflowError; ``*`` gives inf), finite."""
    return _finite(value * value, where)


def vectorized_vs_sequential(
    ks, epsilon: float = 0.1, delta: float = 1e-5
) -> ResultTable:
    r"""Noise variance per answer for k sensitivity-1 queries: k separate releases
    under composition vs one vector-valued release, at a total (epsilon, delta).

    Each query has sensitivity :math:`\Delta = 1`.

    Pure DP (delta = 0): k Laplace releases at epsilon/k each (basic composition,
    Dwork & Roth 2014, Thm. 3.16) have variance :math:`2(k/\epsilon)^2`; the vector
    release has L1 sensitivity k, the same variance.

    Approximate DP, every Gaussian calibrated exactly (Balle & Wang 2018, Thm. 8):

    * one vector release: L2 sensitivity :math:`\sqrt k`, so
      :math:`\sigma = \sqrt k\,\sigma_1(\epsilon, \delta)`;
    * k releases, **exact Gaussian composition** (the tightest valid one): a
      Gaussian release of sensitivity 1 and noise :math:`\sigma_i` is
      :math:`(1/\sigma_i)`-GDP, k of them compose to :math:`\sqrt k/\sigma_i`-GDP
      (Dong, Roth & Su 2022, Thm. 2.7 and Cor. 3.3), whose (epsilon, delta)
      curve is Balle & Wang's condition; so :math:`\sigma_i = \sqrt k\,
      \sigma_1(\epsilon, \delta)`: the same cost as the vector release, for every k;
    * k releases composed as black boxes, each only known to be
      :math:`(\epsilon_0, \delta_0)`-DP: the better of basic composition
      (:math:`\epsilon/k, \delta/k`; Thm. 3.16) and advanced composition
      (Thm. 3.20 with :math:`\delta_0 = \delta/(2k)`, :math:`\delta' = \delta/2`).
      At k = 1 it is the vector release; beyond, it pays for not using the
      noise's shape.

    The variants text uses the Cor. 3.21 shortcut
    :math:`16k\ln(2/\delta)\ln(2.5k/\delta)/\epsilon^2` (classic Gaussians,
    epsilon < 1), which costs about 100 times more already at k = 1.

    Parameters
    ----------
    ks : sequence of int
        Numbers of queries k, each ``>= 1``.
    epsilon : float, default 0.1
        Total epsilon, ``0 < epsilon < 1``.
    delta : float, default 1e-5
        Total delta, ``0 < delta < 1``.

    Returns
    -------
    ResultTable
        Columns ``k``, ``privacy``, ``release``, ``composition``,
        ``variance``, ``epsilon``, ``delta`` (NaN under pure DP) and
        ``sensitivity``.
    """
    ks = _check_counts("ks", ks)
    epsilon = EPSILON.check("epsilon", epsilon)
    delta = DELTA_TARGET.check("delta", delta)
    where = f"epsilon={epsilon!r}, delta={delta!r}"
    unit = _square(analytic_gaussian_sigma(epsilon, delta), where)
    rows = []
    for k in ks:
        k = int(k)
        at = f"k={k}, {where}"
        lap = _square(math.sqrt(2.0) * k / epsilon, at)
        basic = _square(analytic_gaussian_sigma(epsilon / k, delta / k), at)
        advanced = (
            _square(_advanced_step_sigma(epsilon, delta, k), at) if k > 1 else basic
        )
        settings = [
            ("pure", "vectorised", "none", lap),
            ("pure", "sequential", "basic", lap),
            ("approximate", "vectorised", "none", _finite(k * unit, at)),
            ("approximate", "sequential", "exact Gaussian", _finite(k * unit, at)),
            (
                "approximate",
                "sequential",
                "best of basic and advanced",
                min(basic, advanced),
            ),
        ]
        rows += [
            {
                "k": k,
                "privacy": privacy,
                "release": release,
                "composition": composition,
                "variance": float(variance),
                "epsilon": epsilon,
                "delta": delta if privacy == "approximate" else math.nan,
                "sensitivity": 1.0,
            }
            for privacy, release, composition, variance in settings
        ]
    return ResultTable(rows)


#: Most iterations :func:`epsilon_vs_iterations` takes (its optimal composition
#: costs time and memory linear in them: about 1.5 s and 80 MB at the limit).
MAX_ITERATIONS = 10**6


def _iteration_epsilons(k, sigma, delta, alpha, two_var) -> dict:
    """Each method's total epsilon of k Gaussian steps (see epsilon_vs_iterations)."""
    step = ZCDPGaussianMechanism(1.0, 1.0 / two_var)
    d0 = delta / (2 * k)
    eps0 = gaussian_epsilon(sigma, d0)
    rho = k / two_var
    renyi = RenyiAccountant(orders=np.append(RenyiAccountant().orders, alpha))
    renyi.compose(step, count=k)
    fixed = k * alpha / two_var + math.log(1 / delta) / (alpha - 1)
    zc = ZCDPAccountant()
    zc.compose(step, count=k)
    return {
        "advanced composition": advanced_composition(eps0, d0, k, delta / 2)[0],
        "optimal composition": optimal_composition(eps0, d0, k, delta / 2)[0],
        "zCDP (classic conversion)": zcdp_to_dp(rho, delta, "classic"),
        "zCDP (improved conversion)": zc.epsilon(delta),
        f"Rényi DP (alpha={alpha:g})": fixed,
        "Rényi DP (best order)": renyi.epsilon(delta),
    }


def epsilon_vs_iterations(
    iterations, sigma: float = 200.0, delta: float = 1e-5, alpha: float = 60.0
) -> ResultTable:
    r"""Total epsilon of k Gaussian steps (noise sigma, sensitivity 1) at a total delta.

    Methods: advanced composition (Dwork & Roth Thm 3.20 over steps that are
    :math:`(\epsilon_0, \delta_0)`-DP with :math:`\delta_0 = \delta/(2k)`, slack
    :math:`\delta' = \delta/2`, and :math:`\epsilon_0` the exact epsilon of one
    step at :math:`\delta_0`, Balle & Wang 2018, Thm. 8); optimal
    homogeneous composition of the same steps (Kairouz et al. 2017); zCDP with
    the classic (Bun & Steinke Prop 1.3) and improved conversions; Rényi DP at
    the fixed order ``alpha`` (Mironov Prop 3) and at the best order.

    Parameters
    ----------
    iterations : sequence of int
        Numbers of steps k, each ``>= 1``.
    sigma : float, default 200.0
        Noise standard deviation per step (sensitivity 1), ``> 0``.
    delta : float, default 1e-5
        Total delta, ``0 < delta < 1``.
    alpha : float, default 60.0
        Rényi order of the single-order method, ``> 1``.

    Returns
    -------
    ResultTable
        One row per point, as plotted by :mod:`sensampler.app.plotting`.
    """
    ks = _check_counts("iterations", iterations)
    if ks.max() > MAX_ITERATIONS:
        raise ValueError(
            f"iterations must be <= MAX_ITERATIONS={MAX_ITERATIONS} (the optimal "
            "composition's time and memory grow with them), got "
            f"iterations={iterations!r}."
        )
    sigma = POSITIVE.check("sigma", sigma)
    delta = DELTA_TARGET.check("delta", delta)
    alpha = ORDER.check("alpha", alpha)
    where = f"sigma={sigma!r}, delta={delta!r}, alpha={alpha!r}"
    two_var = 2.0 * sigma * sigma  # ** would raise OverflowError
    if not 0.0 < two_var < math.inf or not math.isfinite(
        float(ks.max()) * alpha / two_var
    ):
        raise ValueError(
            f"sigma={sigma!r} is out of range: 2 sigma**2 = {two_var!r} must be a "
            "positive float64, and iterations * alpha / (2 sigma**2) finite."
        )
    rows = []
    for k in ks:
        k = int(k)
        try:
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                values = _iteration_epsilons(k, sigma, delta, alpha, two_var)
        except (ValueError, ArithmeticError) as exc:  # arithmetic beyond float64
            raise ValueError(
                f"the epsilons of iterations={k} at {where} cannot be computed in "
                f"float64: {exc}"
            ) from exc
        bad = [m for m, v in values.items() if not math.isfinite(v)]
        if bad:
            raise ValueError(
                f"the epsilons of iterations={k} at {where} exceed the largest "
                f"float64 ({', '.join(bad)}): use a larger sigma or delta."
            )
        rows += [
            {
                "iterations": k,
                "method": m,
                "epsilon": v,
                "delta": delta,
                "sigma": sigma,
            }
            for m, v in values.items()
        ]
    return ResultTable(rows)
