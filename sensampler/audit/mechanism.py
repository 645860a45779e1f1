r"""An empirical lower bound on the epsilon a mechanism realises between two inputs.

The test of DP-Sniper (Bichsel, Steffen, Bogunovic & Vechev, IEEE S&P 2021)
and Google's DP-Auditorium: release the mechanism many times on two
neighbouring inputs a and b, choose a set S of outputs on one half of the
releases, and bound on the other half

.. math:: \epsilon \ge \log\frac{\underline{p}_a - \delta}{\overline{p}_b},

where :math:`\underline{p}_a` is an exact lower confidence bound on
:math:`P[M(a) \in S]` and :math:`\overline{p}_b` an exact upper one on
:math:`P[M(b) \in S]` (Clopper–Pearson, each at level
:math:`1 - (1-c)/2`, so both hold together with probability at least c).
If M is (epsilon, delta)-DP, :math:`P[M(a) \in S] \le e^\epsilon P[M(b) \in S]
+ \delta` for every S fixed before the second half is drawn (Dwork & Roth
2014, Def. 2.4), so with probability at least c the bound does not exceed the
true epsilon: a mechanism that keeps its statement is flagged with probability
at most 1 - c, whichever set was chosen.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .._display.audits import mechanism_audit_html
from .._lib.default_budget import current, exempt
from .._lib.domains import DELTA_RELEASE, PROBABILITY
from .._lib.validation import as_seed_sequence, check_count
from ..mechanisms import (
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    RenyiGaussianMechanism,
    ZCDPGaussianMechanism,
)
from ..parallel import child_seed, chunk_sizes
from ..privacy import PrivacyLeakWarning, PrivacyStatement
from ._binomial import lower_bound, upper_bound

__all__ = ["RejectionSet", "MechanismAudit", "audit_mechanism", "MAX_RELEASES"]

#: Most releases drawn on each input (two float64 arrays of this length).
MAX_RELEASES = 10**8
#: Releases per vectorised call of a mechanism whose noise is i.i.d. per coordinate.
_CHUNK = 1 << 16
#: Candidate thresholds tried on the first half (distinct values, or quantiles).
_CANDIDATES = 512
#: Mechanisms whose vector release of ``np.full(size, a)`` is ``size`` independent
#: releases of ``a`` when the sensitivity is a plain number (exact types only:
#: a subclass may release otherwise).
_VECTORISED = (
    LaplaceMechanism,
    GaussianMechanism,
    RenyiGaussianMechanism,
    ZCDPGaussianMechanism,
)
#: Mechanisms that draw from a ``random.Random`` (a secure source in production).
_SECURE = (DiscreteLaplaceMechanism, DiscreteGaussianMechanism)


@dataclass(frozen=True)
class RejectionSet:
    """The set of outputs S the audit measured: ``{statistic side threshold}``.

    Parameters
    ----------
    statistic : str
        What the threshold applies to: ``"output"`` (a scalar release),
        ``"projection on b - a"`` (a vector release), ``"log-ratio of the
        category"`` (integer releases: each category's log frequency ratio on
        the first half) or ``"statistic"`` (the caller's).
    side : {"<=", ">="}
    threshold : float
    numerator : {"a", "b"}
        The input whose release lands in S more often: the bound is on
        :math:`P[M(\\mathrm{numerator}) \\in S] / P[M(\\mathrm{other}) \\in S]`.
    """

    statistic: str
    side: Literal["<=", ">="]
    threshold: float
    numerator: Literal["a", "b"]

    def __str__(self):
        return f"{{{self.statistic} {self.side} {self.threshold:.6g}}}"


@dataclass(frozen=True)
class MechanismAudit:
    """The result of :func:`audit_mechanism`.

    Parameters
    ----------
    mechanism : str
        The name in the mechanism's statement.
    epsilon_lower : float
        Lower confidence bound on the epsilon the mechanism realises between a
        and b at ``delta`` (0 when nothing is shown).
    stated : float
        The epsilon the mechanism states at ``delta``.
    delta : float
        The delta of the audit.
    confidence : float
        Probability with which ``epsilon_lower`` is at most the true epsilon.
    violated : bool
        ``epsilon_lower > stated``: the statement is refuted at ``confidence``.
    releases : int
        Releases drawn on each input; the first ``releases // 2`` chose the set.
    rejection_set : RejectionSet
        The set S chosen on the first half.
    tested : int
        Releases of each input on which S was measured (the second half).
    count_numerator, count_denominator : int
        Releases of the numerator input, and of the other one, that fell in S.
    p_numerator_lower, p_denominator_upper : float
        The Clopper–Pearson bounds on their probabilities.
    """

    mechanism: str
    epsilon_lower: float
    stated: float
    delta: float
    confidence: float
    violated: bool
    releases: int
    rejection_set: RejectionSet
    tested: int
    count_numerator: int
    count_denominator: int
    p_numerator_lower: float
    p_denominator_upper: float

    def _repr_html_(self) -> str:
        """Notebook display: the epsilon shown against the epsilon stated."""
        return mechanism_audit_html(self)

    def __str__(self):
        verdict = "VIOLATED" if self.violated else "not refuted"
        return (
            f"{self.mechanism}: epsilon >= {self.epsilon_lower:.4g} at delta="
            f"{self.delta:.3g} with confidence {self.confidence:g} (stated "
            f"{self.stated:.4g}: {verdict}); S = {self.rejection_set}, "
            f"{self.count_numerator} vs {self.count_denominator} of "
            f"{self.tested} releases"
        )


def _epsilon_bound(x_num, x_den, trials, level, delta):
    """``log((p_num_low - delta) / p_den_high)``, -inf where ``p_num_low <= delta``."""
    low = lower_bound(x_num, trials, level)
    high = upper_bound(x_den, trials, level)
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.log(low - delta) - np.log(high)
    return np.where(low > delta, bound, -np.inf), low, high


def _stated_epsilon(statement: PrivacyStatement, delta: float | None):
    """``(stated epsilon, delta)`` of the audit, or raise naming ``delta``."""
    if delta is None:
        if statement.epsilon is None or statement.delta is None:
            raise ValueError(
                f"{statement.mechanism} states no (epsilon, delta) pair: give the "
                "delta to audit at, got delta=None."
            )
        return statement.epsilon, statement.delta
    delta = DELTA_RELEASE.check("delta", delta)
    if delta == 0.0:
        if statement.epsilon is None or statement.delta != 0.0:
            raise ValueError(
                f"{statement.mechanism} states no pure-DP epsilon; give a delta > 0, "
                "got delta=0.0."
            )
        return statement.epsilon, 0.0
    return statement.epsilon_for(delta), delta


def _check_input(mechanism, name: str, value) -> None:
    """Validate one input through the mechanism's own ``check_release``."""
    check = getattr(mechanism, "check_release", None)
    if check is None:
        return
    try:
        check(value, random_state=None)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name} is not a valid input of the mechanism: {exc}") from exc


def _warn_under_a_budget() -> None:
    """Warn (at the caller of ``audit_mechanism``) when a default filter is set."""
    try:
        budgeted = current() is not None
    except RuntimeError:  # blocks of several threads: a budget is set somewhere
        budgeted = True
    if budgeted:
        warnings.warn(
            "audit_mechanism spends nothing from the default filter: its inputs "
            "a and b must be values you chose, not computed from private data, "
            "since the result locates them (the threshold and the counts).",
            PrivacyLeakWarning,
            stacklevel=3,
        )


def _vectorised(mechanism, value) -> bool:
    if np.ndim(value) != 0:
        return False
    if type(mechanism) is RandomizedResponse:
        return True
    return (
        type(mechanism) in _VECTORISED
        and mechanism.privacy.source == "global"
        and np.ndim(mechanism.sensitivity) == 0
    )


def _draw(mechanism, value, count: int, seed: np.random.SeedSequence) -> np.ndarray:
    """``count`` independent releases of ``value``, stacked on a first axis.

    The releases are of the auditor's own inputs, not of private data: they
    spend nothing from a default budget.
    """
    with exempt():
        return _draw_exempt(mechanism, value, count, seed)


def _draw_exempt(mechanism, value, count: int, seed) -> np.ndarray:
    if _vectorised(mechanism, value):
        parts = []
        for i, size in enumerate(chunk_sizes(count, _CHUNK)):
            rng = np.random.default_rng(child_seed(seed, i))
            out = mechanism.release(np.full(size, value), random_state=rng)
            parts.append(np.asarray(out))
        return np.concatenate(parts)
    if isinstance(mechanism, _SECURE):
        # Reproducible and not secure, as the audit must be: the law is the same.
        rng: Any = random.Random(int(seed.generate_state(2, np.uint64)[0]))
    else:
        rng = np.random.default_rng(seed)
    outs = [mechanism.release(value, random_state=rng) for _ in range(count)]
    return np.asarray(outs)


def _statistic(outputs: np.ndarray, a, b, statistic) -> tuple[np.ndarray, str]:
    """One number per release, and what it is."""
    count = outputs.shape[0]
    if statistic is not None:
        values = np.asarray(statistic(outputs), dtype=float)
        if values.shape != (count,) or not np.all(np.isfinite(values)):
            raise ValueError(
                f"statistic must return one finite number per release, shape "
                f"({count},), got shape {values.shape}."
            )
        return values, "statistic"
    if outputs.dtype.kind not in "biuf":
        raise TypeError(
            f"the mechanism's releases are not numbers (dtype {outputs.dtype}); "
            "give statistic=, a function of the releases returning one number each."
        )
    if not np.all(np.isfinite(outputs)):
        raise ValueError("the mechanism released NaN or inf; nothing can be audited.")
    if outputs.ndim == 1:
        return outputs, "output"
    a_arr, b_arr = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if outputs.shape[1:] != a_arr.shape:
        raise ValueError(
            f"releases of shape {outputs.shape[1:]} differ from the inputs' "
            f"{a_arr.shape}; give statistic=, a function of the releases "
            "returning one number each."
        )
    direction = (b_arr - a_arr).reshape(-1)
    flat = outputs.reshape(count, -1).astype(float)
    return (flat - a_arr.reshape(-1)) @ direction, "projection on b - a"


def _category_scores(train_a, train_b):
    """Each category's log frequency ratio (a over b) on the first half, smoothed."""
    pooled = np.concatenate([train_a, train_b])
    categories, inverse = np.unique(pooled, return_inverse=True)
    counts_a = np.bincount(inverse[: train_a.size], minlength=categories.size)
    counts_b = np.bincount(inverse[train_a.size :], minlength=categories.size)
    return categories, np.log((counts_a + 0.5) / (counts_b + 0.5))


def _scored(values, categories, scores):
    """The log-ratio score of each release's category (0 for one never seen)."""
    at = np.clip(np.searchsorted(categories, values), 0, categories.size - 1)
    return np.where(categories[at] == values, scores[at], 0.0)


def _candidates(pooled: np.ndarray) -> np.ndarray:
    distinct = np.unique(pooled)
    if distinct.size <= _CANDIDATES:
        return distinct
    return np.unique(
        np.quantile(pooled, np.linspace(0, 1, _CANDIDATES), method="inverted_cdf")
    )


def _counts(sorted_values: np.ndarray, thresholds: np.ndarray):
    """Counts of ``<= t`` and ``>= t`` for every threshold t."""
    size = sorted_values.size
    le = np.searchsorted(sorted_values, thresholds, side="right")
    ge = size - np.searchsorted(sorted_values, thresholds, side="left")
    return le, ge


def _choose(train_a, train_b, level, delta):
    """The (side, threshold, numerator) whose bound on the first half is largest."""
    thresholds = _candidates(np.concatenate([train_a, train_b]))
    le_a, ge_a = _counts(np.sort(train_a), thresholds)
    le_b, ge_b = _counts(np.sort(train_b), thresholds)
    trials = train_a.size
    options = [
        ("<=", "a", le_a, le_b),
        ("<=", "b", le_b, le_a),
        (">=", "a", ge_a, ge_b),
        (">=", "b", ge_b, ge_a),
    ]
    best, best_value = None, -np.inf
    for side, numerator, x_num, x_den in options:
        bound = _epsilon_bound(x_num, x_den, trials, level, delta)[0]
        i = int(np.argmax(bound))
        if best is None or bound[i] > best_value:
            best, best_value = (side, float(thresholds[i]), numerator), bound[i]
    return best


def audit_mechanism(
    mechanism,
    a,
    b,
    *,
    releases: int,
    confidence: float = 0.99,
    delta: float | None = None,
    statistic: Callable[[np.ndarray], np.ndarray] | None = None,
    random_state=None,
) -> MechanismAudit:
    r"""Lower confidence bound on the epsilon a mechanism realises between a and b.

    **Audits are for inputs the auditor chose** (round numbers, values of a
    public or synthetic database), never for values computed from private data:
    the releases spend nothing, from any budget, and the result (the threshold
    of S, the counts) locates ``a`` and ``b`` as precisely as ``releases``
    noisy copies of them allow (``audit_mechanism(m, secret, secret + 1,
    releases=400_000)`` puts the threshold within a few hundredths of
    ``secret`` or ``secret + 1`` for a Laplace mechanism of epsilon 1). Inside a
    default filter (:func:`sensampler.accounting.default_filter`), which says
    that the session spends on private data, an audit therefore warns
    :class:`~sensampler.privacy.PrivacyLeakWarning`; nothing else can tell a
    chosen number from a private one.

    Draws ``releases`` releases of each input. The first half chooses a set of
    outputs S, a threshold on one number per release (see ``statistic``) and
    the input that lands in it more often, maximising the bound computed on
    that half; the second half, independent of the choice, gives the bound

    .. math:: \epsilon_{\mathrm{lower}} = \max\left(0,
              \log\frac{\underline{p}_{\mathrm{num}} - \delta}
              {\overline{p}_{\mathrm{den}}}\right)

    with exact one-sided Clopper–Pearson bounds at level
    :math:`1 - (1 - c)/2` each (a union bound: both hold with probability
    at least c). The method is DP-Sniper's (Bichsel et al., IEEE S&P 2021)
    and DP-Auditorium's, with threshold sets.

    Parameters
    ----------
    mechanism : Mechanism
        Anything with ``release(value, *, random_state)`` and a ``privacy``
        statement (:class:`~sensampler.privacy.PrivacyStatement`) that carries a
        guarantee.
    a, b : number or array
        Two different inputs of ``release`` (query values on neighbouring
        databases): their difference must be within the mechanism's
        sensitivity, or the statement does not cover them and a flag means
        nothing.
    releases : int
        Releases drawn on each input, ``2 <= releases <= MAX_RELEASES``.
    confidence : float, default 0.99
        ``0 < confidence < 1``: a mechanism that keeps its statement is
        flagged with probability at most ``1 - confidence``.
    delta : float, optional
        The delta of the audit, ``0 <= delta < 1``. Default: the statement's
        own (required when it states no (epsilon, delta) pair, as the Rényi,
        zCDP and discrete Gaussian mechanisms). ``stated`` is the statement's
        epsilon at this delta (:meth:`PrivacyStatement.epsilon_for`).
    statistic : callable, optional
        Maps the stacked releases, shape ``(count, *output_shape)``, to one
        number per release. Default: the release itself for scalar releases,
        the projection :math:`\langle y - a, b - a\rangle` for releases of the
        inputs' shape, and for integer releases (categories) each category's
        log frequency ratio on the first half (so that the threshold sets are
        likelihood-ratio sets).
    random_state : None, int, SeedSequence or Generator
        Same value, same result.

    Returns
    -------
    MechanismAudit
        ``epsilon_lower``, ``stated``, ``violated``, the set chosen and the counts.

    Raises
    ------
    TypeError, ValueError
        Naming the bad argument, before anything is drawn.

    Warns
    -----
    PrivacyLeakWarning
        Under a default filter: the audit spends nothing, so its inputs must
        not come from private data.

    Notes
    -----
    Validity does not depend on how S is chosen, only on S being fixed before
    the second half is drawn: for an (epsilon, delta)-DP mechanism,
    :math:`P[M(a) \in S] - \delta \le e^\epsilon P[M(b) \in S]`, and on the
    event (of probability at least c) where both Clopper–Pearson bounds hold,
    :math:`(\underline{p}_a - \delta)/\overline{p}_b \le e^\epsilon`. Power
    does depend on S: threshold sets are optimal for the Laplace and Gaussian
    mechanisms on scalar outputs (their likelihood ratio is monotone), and the
    categorical scores give likelihood-ratio sets for discrete outputs. With
    delta > 0 the bound can only show an epsilon whose sets have a probability
    well above delta; a tiny delta is out of reach of any number of releases.

    Mechanisms with a plain-number sensitivity whose noise is independent per
    coordinate (Laplace, the Gaussian ones, randomized response) release
    ``np.full(size, a)`` in chunks of 65536; any other is released one value at
    a time. The discrete mechanisms draw from a seeded ``random.Random``
    (reproducible, not secure: the law is the same).

    References
    ----------
    .. [1] B. Bichsel, S. Steffen, I. Bogunovic and M. Vechev, "DP-Sniper:
       Black-Box Discovery of Differential Privacy Violations using
       Classifiers", IEEE S&P 2021.
    .. [2] Google, DP-Auditorium, https://github.com/google/differential-privacy
       (python/dp_auditorium), 2024.
    .. [3] C. Dwork and A. Roth, *The Algorithmic Foundations of Differential
       Privacy*, 2014, Def. 2.4.

    Examples
    --------
    >>> from sensampler.mechanisms import LaplaceMechanism
    >>> result = audit_mechanism(LaplaceMechanism(1.0, 1.0), 0.0, 1.0,
    ...                          releases=20_000, random_state=0)
    >>> result.violated, 0.8 < result.epsilon_lower <= 1.0
    (False, True)
    """
    statement = getattr(mechanism, "privacy", None)
    if not isinstance(statement, PrivacyStatement) or not callable(
        getattr(mechanism, "release", None)
    ):
        raise TypeError(
            "mechanism must have release(value, *, random_state) and a privacy "
            f"statement, got {mechanism!r}."
        )
    if not statement.guaranteed:
        raise ValueError(
            f"{statement.mechanism} was calibrated with a {statement.source} "
            "sensitivity and states no guarantee: there is nothing to audit."
        )
    releases = check_count("releases", releases, minimum=2)
    if releases > MAX_RELEASES:
        raise ValueError(
            f"releases must be <= MAX_RELEASES={MAX_RELEASES}, got releases={releases}."
        )
    confidence = PROBABILITY.check("confidence", confidence)
    stated, delta = _stated_epsilon(statement, delta)
    if statistic is not None and not callable(statistic):
        raise TypeError(f"statistic must be callable or None, got {statistic!r}.")
    _check_input(mechanism, "a", a)
    _check_input(mechanism, "b", b)
    if np.shape(a) == np.shape(b) and np.array_equal(a, b):
        raise ValueError(f"a and b must differ, got a={a!r} and b={b!r}.")
    root = as_seed_sequence(random_state)
    _warn_under_a_budget()

    first = releases // 2
    outputs = {
        name: _draw(mechanism, value, releases, child_seed(root, index))
        for index, (name, value) in enumerate((("a", a), ("b", b)))
    }
    values, what = {}, ""
    for name, out in outputs.items():
        values[name], what = _statistic(out, a, b, statistic)
    categorical = all(o.dtype.kind in "biu" and o.ndim == 1 for o in outputs.values())
    if statistic is None and categorical:
        categories, scores = _category_scores(values["a"][:first], values["b"][:first])
        values = {k: _scored(v, categories, scores) for k, v in values.items()}
        what = "log-ratio of the category"
    level = 1.0 - (1.0 - confidence) / 2.0
    train_a, train_b = values["a"][:first], values["b"][:first]
    side, threshold, numerator = _choose(train_a, train_b, level, delta)

    def count(name):
        test = values[name][first:]
        return int(np.sum(test <= threshold if side == "<=" else test >= threshold))

    denominator = "b" if numerator == "a" else "a"
    x_num, x_den = count(numerator), count(denominator)
    tested = releases - first
    bound, low, high = _epsilon_bound(x_num, x_den, tested, level, delta)
    epsilon_lower = max(0.0, float(bound))
    return MechanismAudit(
        mechanism=statement.mechanism,
        epsilon_lower=epsilon_lower,
        stated=float(stated),
        delta=float(delta),
        confidence=confidence,
        violated=bool(epsilon_lower > stated),
        releases=releases,
        rejection_set=RejectionSet(what, side, threshold, numerator),
        tested=tested,
        count_numerator=x_num,
        count_denominator=x_den,
        p_numerator_lower=float(low),
        p_denominator_upper=float(high),
    )
