r"""Sampling plans: how many neighbouring pairs to draw, and which order statistic
of their sensitivities to release, for a random-DP confidence :math:`\gamma`.

Three distribution-free bounds are offered. They differ in what gamma means
(``SamplingPlan.meaning`` states it): "exact" and "dkw" are PAC statements about
the realised estimate, "exchangeable" is a statement averaged over the sampler.

``inequality="exact"`` (default)
    The exact law of an order statistic. Let :math:`G` be the sensitivity of a
    random neighbouring pair and :math:`q` its :math:`(1-\beta)`-quantile, so
    :math:`P[G > q] \le \beta`. The k-th smallest of m independent draws,
    :math:`G_{(k)}`, falls below :math:`q` only if at least k draws do, each with
    probability :math:`F(q^-) \le 1-\beta`; since the binomial tail grows with its
    success probability,

    .. math:: \rho := P[G_{(k)} < q] \le P[\mathrm{Bin}(m, 1-\beta) \ge k].

    Outside that event :math:`G_{(k)} \ge q`, so a fresh pair exceeds
    :math:`G_{(k)}` with probability at most :math:`\beta`. A union bound gives
    the failure probability :math:`\gamma = \beta + \rho` of random DP
    (Rubinstein & Aldà 2017 [1]_, Def. 2 and the proof of Thm. 3, with the DKW
    step replaced by the exact binomial tail; David & Nagaraja 2003 [2]_, Sec. 2.1). The
    split is optimised: for fixed (m, k),
    :math:`g(\beta) = \beta + P[\mathrm{Bin}(m, 1-\beta) \ge k]` has derivative
    :math:`1 - m\,\mathrm{pmf}_{\mathrm{Bin}(m-1, 1-\beta)}(k-1)`, whose second
    term is unimodal in :math:`\beta`, so g rises, falls, then rises: its interior
    minimum is where the derivative crosses zero upwards, found by ``brentq``.
    For :math:`k = m`, :math:`\beta^* = 1 - m^{-1/(m-1)}` in closed form.

``inequality="exchangeable"``
    The rank law of exchangeable draws. Random DP (Hall et al. 2012 [4]_; Rubinstein
    & Aldà 2017, Def. 2) is a probability over the neighbouring pair *and* the
    mechanism's randomness, which includes the sampler. Let
    :math:`G_1, \dots, G_m` be the sampled sensitivities and :math:`G_{m+1}`
    that of the fresh pair; the m + 1 pairs are i.i.d., so the values are
    exchangeable. Then, whatever the law of G (atoms included),

    .. math:: P[G_{m+1} > G_{(k)}] \le \frac{m - k + 1}{m + 1},

    with equality when G is continuous. *Proof.* Draw
    :math:`U_1, \dots, U_{m+1}` i.i.d. uniform on (0, 1), independent of the
    G's, and order the pairs :math:`(G_i, U_i)` lexicographically. The pairs
    :math:`(G_i, U_i)` are i.i.d., hence exchangeable, and almost surely
    distinct (the U's are), so the lexicographic rank R of
    :math:`(G_{m+1}, U_{m+1})` among the m + 1 is uniform on
    :math:`\{1, \dots, m+1\}`. If :math:`G_{m+1} > G_{(k)}`, at least k of
    the sampled values are strictly below :math:`G_{m+1}` (those of rank
    :math:`\le k`), and each of them precedes :math:`(G_{m+1}, U_{m+1})`
    lexicographically whatever the U's, so :math:`R \ge k + 1`. Hence
    :math:`P[G_{m+1} > G_{(k)}] \le P[R \ge k+1] = (m-k+1)/(m+1)`. When G is
    continuous there are almost surely no ties, the lexicographic order is that
    of the G's, and the two events coincide: equality. :math:`\square`
    (The argument is the rank law behind conformal prediction; Vovk, Gammerman
    & Shafer 2005 [5]_, Sec. 2.)

    This certifies :math:`\gamma = (m-k+1)/(m+1)`, so :math:`\gamma = 0.05`
    needs m = 19 (k = m). The statement is joint: averaged over the sampler, a
    fresh pair is covered with probability at least :math:`1 - \gamma`. It is
    *not* a PAC statement about one realised estimate (given the draws, the
    coverage :math:`F(G_{(k)})` is random and may be low); the plan records
    ``rho = 0`` (no separate sampler-failure term) and ``beta = gamma``.

``inequality="dkw"``
    The paper's plan (Rubinstein & Aldà 2017, Thm. 3 and Cor. 7; the authors'
    R package ``diffpriv``): with the one-sided DKW inequality (Massart 1990 [3]_),
    :math:`k = \lceil m(1 - \gamma + \rho + \sqrt{\log(1/\rho)/(2m)})\rceil`,
    and :math:`\rho` optimised through the lower branch of Lambert W.

References
----------
.. [1] B. I. P. Rubinstein and F. Aldà, "Pain-Free Random Differential Privacy
   with Sensitivity Sampling", Proc. 34th ICML, PMLR 70, 2017.
.. [2] H. A. David and H. N. Nagaraja, *Order Statistics*, 3rd ed., Wiley, 2003.
.. [3] P. Massart, "The tight constant in the Dvoretzky-Kiefer-Wolfowitz
   inequality", Ann. Probab. 18(3), 1990.
.. [4] R. Hall, A. Rinaldo and L. Wasserman, "Random Differential Privacy",
   J. Privacy and Confidentiality 4(2), 2012.
.. [5] V. Vovk, A. Gammerman and G. Shafer, *Algorithmic Learning in a Random
   World*, Springer, 2005.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from ._display.estimates import sampling_plan_html
from ._lib.domains import INEQUALITIES, PROBABILITY, documented
from ._lib.scipy_compat import special
from ._lib.validation import check_choice, check_count
from ._math.search import falling_root, smallest_int

__all__ = [
    "SamplingPlan",
    "sampling_plan",
    "certified_gamma",
    "check_plan_arguments",
    "INEQUALITIES",
    "MAX_PAIRS",
]

INEQUALITIES = INEQUALITIES.values

MAX_PAIRS = 10**9
"""The most pairs a plan may ask for (and a sampler may draw).

Beyond any practical run, and the limit up to which the exact plan's binomial
computations are checked (scipy's binomial log-pmf keeps about seven digits at
:math:`10^9` pairs and degrades beyond). A plan needing more is refused with a
``ValueError`` naming this limit and the smallest gamma it allows.
"""

_MEANINGS = {
    "exact": (
        "PAC statement about the realised estimate: with probability >= 1 - rho "
        "over the sampler, every future neighbouring pair is covered with "
        "probability >= 1 - beta (gamma = beta + rho)."
    ),
    "exchangeable": (
        "Joint statement over the sampler and the pair: averaged over the "
        "sampler's draws, a fresh neighbouring pair is covered with probability "
        ">= 1 - gamma; nothing is stated about one realised estimate "
        "(rho = 0 and beta = gamma by convention)."
    ),
    "dkw": (
        "PAC statement as in Rubinstein & Alda (2017, Thm. 3): with probability "
        ">= 1 - rho over the sampler (DKW inequality), every future neighbouring "
        "pair is covered with probability >= 1 - beta (gamma = beta + rho)."
    ),
}


@dataclass(frozen=True)
class SamplingPlan:
    """How to sample a sensitivity with random-DP confidence ``gamma``.

    Parameters
    ----------
    m : int
        Number of independent neighbouring pairs to draw.
    k : int
        Rank of the released order statistic, ``1 <= k <= m`` (``k = m``: the maximum).
    gamma : float
        Certified failure probability of random DP, ``beta + rho``; never above
        the ``gamma`` asked for.
    rho : float
        Probability that the sampler itself under-estimates the
        ``(1 - beta)``-quantile of the sensitivity; 0 for ``"exchangeable"``,
        whose gamma is one joint probability with no such split.
    beta : float
        Probability mass of the sensitivity above that quantile; ``gamma`` for
        ``"exchangeable"``.
    inequality : {"exact", "exchangeable", "dkw"}
        The inequality that certifies ``gamma``.
    """

    m: int
    k: int
    gamma: float
    rho: float
    beta: float
    inequality: str

    def to_dict(self) -> dict[str, Any]:
        """The plan as a dictionary of its fields.

        Returns
        -------
        dict
            ``m``, ``k``, ``gamma``, ``rho``, ``beta`` and ``inequality``.
        """
        return asdict(self)

    @property
    def meaning(self) -> str:
        """What ``gamma`` certifies under this plan's bound, in words."""
        return _MEANINGS[self.inequality]

    def _repr_html_(self) -> str:
        """Rich display in notebooks: the plan's numbers (rounded up) and meaning."""
        return sampling_plan_html(self)


# ----------------------------------------------------------------------------- exact
def _exact_split_top(m: int) -> tuple[float, float]:
    """(beta, rho) minimising beta + (1 - beta)^m: the k = m case in closed form."""
    if m == 1:
        return 1.0, 0.0  # one draw certifies nothing
    beta = -math.expm1(-math.log(m) / (m - 1))  # 1 - m^(-1/(m-1))
    rho = math.exp(m * math.log1p(-beta))
    return beta, rho


@lru_cache(maxsize=4096)
def _exact_split(m: int, k: int) -> tuple[float, float]:
    """(beta, rho) minimising beta + P[Bin(m, 1 - beta) >= k] (module docstring)."""
    if k == m:
        return _exact_split_top(m)
    if k == 1:
        return 1.0, 0.0

    # log of -d rho / d beta = log m + log pmf_{Bin(m-1, 1-beta)}(k-1); its maximum
    # is at 1 - beta = (k-1)/(m-1), the mode of that pmf as a function of p.
    def slope(beta):
        # log pmf of Bin(m - 1, p) at k - 1, written as scipy.stats.binom's _logpmf
        p = 1.0 - beta
        log_choose = (
            special.gammaln(m) - special.gammaln(k) - special.gammaln(m - k + 1)
        )
        log_pmf = log_choose + special.xlogy(k - 1, p) + special.xlog1py(m - k, -p)
        return math.log(m) + log_pmf

    beta_mode = 1.0 - (k - 1) / (m - 1)
    if slope(beta_mode) <= 0.0:  # g never decreases: the minimum is g(0) = 1
        return 1.0, 0.0
    # slope(1) = -inf (p = 0, k > 1): the root lies in [beta_mode, 1]
    beta = falling_root(slope, beta_mode, 1.0, xtol=1e-15, rtol=1e-13, limit=1.0)
    rho = float(special.bdtrc(k - 1, m, 1.0 - beta))  # P[Bin(m, 1-beta) > k - 1]
    return beta, rho


def _exact_gamma(m: int, k: int) -> float:
    beta, rho = _exact_split(m, k)
    return min(1.0, beta + rho)


@lru_cache(maxsize=1024)
def _exact_min_m(gamma: float) -> int:
    """Smallest m with gamma(m, m) <= gamma (gamma(m, m) decreases in m)."""
    hi = 2  # the caller checked gamma(MAX_PAIRS, MAX_PAIRS) <= gamma
    while _exact_gamma(hi, hi) > gamma:
        hi = min(2 * hi, MAX_PAIRS)
    # gamma(hi // 2, hi // 2) > gamma, or hi // 2 == 1
    return smallest_int(lambda m: _exact_gamma(m, m) <= gamma, hi // 2, hi)


def _smallest_k(m: int, gamma: float, gamma_of_k) -> int:
    """Smallest k in 1..m with gamma_of_k(k) <= gamma (gamma_of_k decreases in k)."""
    # gamma_of_k(m) <= gamma is checked by the caller
    return smallest_int(lambda k: gamma_of_k(k) <= gamma, 0, m)


# ------------------------------------------------------------------------------- dkw
def _dkw_rho_for_m(m: int) -> float:
    """rho minimising rho + sqrt(log(1/rho) / (2m)): exp(W_{-1}(-1/(4m)) / 2)."""
    return math.exp(special.lambertw(-1.0 / (4.0 * m), -1).real / 2.0)


def _dkw_floor(m: int) -> tuple[float, float]:
    """(rho, gamma_lo): the smallest gamma m pairs certify under DKW (k = m)."""
    rho = _dkw_rho_for_m(m)
    return rho, rho + math.sqrt(math.log(1.0 / rho) / (2.0 * m))


def _dkw_gamma(m: int, k: int) -> float:
    # k >= m (1 - gamma + gamma_lo)  <=>  gamma >= 1 - k/m + gamma_lo
    return min(1.0, 1.0 - k / m + _dkw_floor(m)[1])


def _dkw_m_for_gamma(gamma: float) -> int:
    """m = ceil(log(1/rho) / (2 (gamma - rho)^2)), rho = exp(W_{-1}(-gamma/(2 sqrt e)) + 1/2).

    The package's formula; should rounding leave its floor above gamma, the
    smallest larger m that certifies gamma (the caller checked MAX_PAIRS does).
    """
    rho = math.exp(special.lambertw(-gamma / (2.0 * math.exp(0.5)), -1).real + 0.5)
    m = min(MAX_PAIRS, math.ceil(math.log(1.0 / rho) / (2.0 * (gamma - rho) ** 2)))
    if _dkw_floor(m)[1] <= gamma:
        return m
    # floor(m) > gamma >= floor(MAX_PAIRS); the floor falls with m
    return smallest_int(lambda size: _dkw_floor(size)[1] <= gamma, m, MAX_PAIRS)


# ---------------------------------------------------------------------- exchangeable
def _exchangeable_gamma(m: int, k: int) -> float:
    # P[G_{m+1} > G_(k)] <= (m - k + 1)/(m + 1) (module docstring); correctly
    # rounded, so it is <= a float gamma whenever the exact ratio is.
    return (m - k + 1) / (m + 1)


def _exchangeable_min_m(gamma: float) -> int:
    """Smallest m with 1/(m + 1) <= gamma, in exact arithmetic on the float gamma."""
    return max(1, math.ceil(1 / Fraction(gamma)) - 1)


# ---------------------------------------------------------------------------- public
def certified_gamma(m: int, k: int, inequality: str = "exact") -> float:
    """The random-DP failure probability that releasing ``G_(k)`` of ``m`` pairs certifies.

    Parameters
    ----------
    m : int
        Number of pairs, ``>= 1``.
    k : int
        Rank of the released order statistic, ``1 <= k <= m``.
    inequality : {"exact", "exchangeable", "dkw"}

    Returns
    -------
    gamma : float
        In ``(0, 1]``; 1 means nothing is certified.

    Examples
    --------
    >>> round(certified_gamma(113, 113), 4)
    0.0498
    >>> certified_gamma(19, 19, inequality="exchangeable")
    0.05
    """
    m, _, k = check_plan_arguments(m, None, k, inequality)
    return _GAMMA_OF[inequality](m, k)


_GAMMA_OF = {
    "exact": _exact_gamma,
    "exchangeable": _exchangeable_gamma,
    "dkw": _dkw_gamma,
}


def _min_m(gamma: float, inequality: str) -> int:
    """Fewest pairs certifying gamma, or a ValueError naming MAX_PAIRS."""
    floor = _GAMMA_OF[inequality](MAX_PAIRS, MAX_PAIRS)
    if inequality == "exchangeable":
        m = _exchangeable_min_m(gamma)  # exact arithmetic, not the rounded floor
    elif gamma < floor:
        m = MAX_PAIRS + 1
    elif inequality == "exact":
        m = _exact_min_m(gamma)
    else:
        m = _dkw_m_for_gamma(gamma)
    if m > MAX_PAIRS:
        raise ValueError(
            f"gamma={gamma!r} needs more than MAX_PAIRS={MAX_PAIRS} pairs under the "
            f"{inequality} bound; the smallest gamma it allows is {floor:.6g}."
        )
    return m


def _make_plan(m, k, inequality):
    if inequality == "exact":
        beta, rho = _exact_split(m, k)
        return SamplingPlan(m, k, min(1.0, beta + rho), rho, beta, inequality)
    if inequality == "exchangeable":
        gamma = _exchangeable_gamma(m, k)
        return SamplingPlan(m, k, gamma, 0.0, gamma, inequality)
    rho, _ = _dkw_floor(m)
    gamma = _dkw_gamma(m, k)
    return SamplingPlan(m, k, gamma, rho, max(0.0, gamma - rho), inequality)


@documented
def check_plan_arguments(
    m: int | None, gamma: float | None, k: int | None, inequality: str
) -> tuple[int | None, float | None, int | None]:
    """Validate the arguments of a plan on their own; return ``(m, gamma, k)``.

    Parameters
    ----------
    m : int or None
        Number of pairs, ``1 <= m <= MAX_PAIRS``.
    gamma : float or None
        Random-DP failure probability, ``{PROBABILITY:gamma}``; ``m`` or ``gamma`` is needed.
    k : int or None
        Rank released, ``1 <= k <= m`` (needs ``m``).
    inequality : {"exact", "exchangeable", "dkw"}
        The plan's bound.

    Returns
    -------
    (m, gamma, k) : (int or None, float or None, int or None)
        The arguments, checked and converted.
    """
    check_choice("inequality", inequality, INEQUALITIES)
    if m is not None:
        m = check_count("m", m)
        if m > MAX_PAIRS:
            raise ValueError(f"m must be <= MAX_PAIRS={MAX_PAIRS}, got m={m}.")
    if gamma is not None:
        gamma = PROBABILITY.check("gamma", gamma)
    if k is not None:
        k = check_count("k", k)
        if m is None:
            raise ValueError(f"k needs m: give m as well as k={k}.")
        if k > m:
            raise ValueError(f"k must be between 1 and m={m}, got k={k}.")
    if m is None and gamma is None:
        raise ValueError("give gamma, m, or both (got neither).")
    return m, gamma, k


@documented
def sampling_plan(
    m: int | None = None,
    gamma: float | None = None,
    k: int | None = None,
    inequality: str = "exact",
) -> SamplingPlan:
    """Choose (m, k) for a random-DP confidence, or certify a given (m, k).

    Parameters
    ----------
    m : int, optional
        Number of neighbouring pairs, ``>= 1``.
    gamma : float, optional
        Target failure probability of random DP, ``{PROBABILITY:gamma}``.
    k : int, optional
        Rank of the released order statistic, ``1 <= k <= m``; needs ``m``.
    inequality : {"exact", "exchangeable", "dkw"}, default "exact"
        ``"exact"``: the binomial law of the order statistic, a PAC statement
        about the realised estimate.
        ``"exchangeable"``: the rank law of exchangeable draws, a statement
        averaged over the sampler (fewest samples; see ``SamplingPlan.meaning``).
        ``"dkw"``: Rubinstein & Aldà's plan, reproducing their numbers.

    Returns
    -------
    SamplingPlan
        ``gamma`` given: the fewest pairs ``m`` (and ``k``) certifying it.
        ``m`` given: the smallest certified ``gamma`` (with ``k = m``).
        ``m`` and ``gamma``: the smallest ``k`` certifying ``gamma``; a ``gamma``
        below what ``m`` can certify is refused, naming the minimum.
        ``m`` and ``k`` (and optionally ``gamma``, checked): the certified ``gamma``.

    Raises
    ------
    ValueError, TypeError
        On any invalid or inconsistent argument, naming it; on ``m`` above
        ``MAX_PAIRS``, or a ``gamma`` that needs more pairs than that.

    Notes
    -----
    The guarantee and both bounds are derived in the module docstring. The exact
    plan for ``gamma`` given always takes ``k = m`` (the maximum): for fixed m the
    binomial tail, hence the certified gamma, is smallest at ``k = m``.

    Examples
    --------
    >>> sampling_plan(gamma=0.05, inequality="dkw").m
    1305
    >>> sampling_plan(gamma=0.05).m
    113
    >>> sampling_plan(gamma=0.05, inequality="exchangeable").m
    19
    """
    m, gamma, k = check_plan_arguments(m, gamma, k, inequality)
    if k is not None:
        plan = _make_plan(m, k, inequality)
        if gamma is not None and plan.gamma > gamma:
            raise ValueError(
                f"m={m}, k={k} certify gamma={plan.gamma:.6g} under the "
                f"{inequality} bound, more than the gamma={gamma!r} asked for."
            )
        return plan
    if m is None:
        m = _min_m(gamma, inequality)
        if inequality == "exact":
            # Bin(m, p) dominates Bin(m - 1, p), so for k < m, gamma(m, k) >=
            # gamma(m - 1, m - 1) > gamma (m is the fewest pairs): k = m, found
            # without evaluating the binomial tail of any k < m.
            return _make_plan(m, m, inequality)

    def gamma_of_k(kk):
        return _GAMMA_OF[inequality](m, kk)

    floor = gamma_of_k(m)
    if gamma is None:
        if floor >= 1.0:
            raise ValueError(f"m={m} pairs certify no gamma below 1; draw more pairs.")
        return _make_plan(m, m, inequality)
    if floor > gamma:
        raise ValueError(
            f"gamma={gamma!r} is below what m={m} pairs can certify under "
            f"the {inequality} bound; the minimum is gamma={floor:.6g}."
        )
    return _make_plan(m, _smallest_k(m, gamma, gamma_of_k), inequality)


# ------------------------------------------------------------------ several parts
def joint_plan(
    m: int | None, gamma: float | None, k: int | None, inequality: str, parts: int
) -> tuple[SamplingPlan, float, float]:
    r"""Plan ``parts`` order statistics released jointly by one sampling run.

    Each part (an output of a tuple or dict query, or a coordinate under a
    per-coordinate norm) is planned at ``gamma / parts``; by a union bound over
    the parts' failure events, the run's releases hold jointly with
    :math:`\gamma_{\mathrm{joint}} = \mathrm{parts} \cdot \gamma_{\mathrm{part}}`
    and :math:`\rho_{\mathrm{joint}} = \min(1, \mathrm{parts} \cdot \rho)`.

    Parameters
    ----------
    m, gamma, k, bound
        As in :func:`sampling_plan`, with ``gamma`` the joint failure
        probability asked for.
    parts : int
        Order statistics released jointly, ``>= 1``.

    Returns
    -------
    (plan, gamma, rho) : (SamplingPlan, float, float)
        The plan of one part, and the joint ``gamma`` and ``rho``.

    Examples
    --------
    >>> plan, gamma, rho = joint_plan(None, 0.05, None, "exact", 2)
    >>> plan == sampling_plan(gamma=0.025), gamma == 2 * plan.gamma
    (True, True)
    """
    parts = check_count("parts", parts)
    if parts == 1:
        plan = sampling_plan(m=m, gamma=gamma, k=k, inequality=inequality)
        return plan, plan.gamma, plan.rho
    try:
        plan = sampling_plan(
            m=m, gamma=None if gamma is None else gamma / parts, k=k, inequality=inequality
        )
    except ValueError as exc:
        raise ValueError(
            f"{exc} The query releases {parts} order statistics jointly, so "
            f"each is planned at gamma/{parts}."
        ) from None
    total = parts * plan.gamma
    if total >= 1.0:
        raise ValueError(
            f"m={plan.m} pairs certify gamma={plan.gamma:.3g} for each of the "
            f"{parts} parts, so nothing jointly; draw more pairs."
        )
    return plan, total, min(1.0, parts * plan.rho)
