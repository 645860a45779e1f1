r"""Privacy-loss-distribution accounting: tight (epsilon, delta) of a composition.

A mechanism's privacy loss :math:`L = \log(p(Y)/q(Y))`, :math:`Y \sim P`, for
the worst neighbouring pair (P, Q) determines every (epsilon, delta) it
satisfies: :math:`\delta(\epsilon) = E_P[(1 - e^{\epsilon - L})_+]` (the
hockey-stick divergence; Meiser & Mohammadi 2018, Sommer, Meiser & Mohammadi
2019), and the losses of independently composed mechanisms add, so their
distributions convolve (Koskela, Jälkö & Honkela 2020). The composition is
computed by Google's ``dp_accounting`` (Doroshenko, Ghazi, Kamath, Kumar &
Manurangsi 2022, "Connect the Dots"), whose pessimistic discretisation never
reports a delta (or epsilon) below the true one of the composition in exact
arithmetic. Its FFT composition is not exact: at small delta and many steps its
round-off puts its epsilon below the true one (10^4 Gaussian steps of sigma = 5:
0.9962 of the exact epsilon at delta = 1e-12, 0.970 at 1e-14) and its delta may
be negative. So every result here is certified: the round-off is bounded
(:func:`fft_error_bound`) and added, the PLD bound is used only where that bound
is at most half the target delta, and elsewhere the best other valid bound is
reported (:func:`certified_epsilon`), named in ``method``.

Steps are neutral descriptions, for unit sensitivity (the mechanisms' own
noise divided by their sensitivity, in sensampler's replace-one relation):

``("gaussian", sigma, count)``
    Gaussian noise of standard deviation ``sigma`` times the (L2) sensitivity:
    the pair N(0, sigma^2), N(1, sigma^2).
``("laplace", scale, count)``
    Laplace noise of scale ``scale`` times the (L1) sensitivity (one
    coordinate): the pair Laplace(0, b), Laplace(1, b).
``("pure", epsilon, count)``
    Any epsilon-DP mechanism: the randomized-response pair that dominates the
    class (Kairouz, Oh & Viswanath 2017, Thm. 2.1).
``("epsilon_delta", epsilon, delta, count)``
    Any (epsilon, delta)-DP mechanism: the four-point pair dominating the class.

Each step may be chosen adaptively from earlier outputs; the bound is that of
the fully adaptive composition, since the worst-case pairs are fixed in advance
(the PLDs of the steps do not depend on the earlier outputs).

References
----------
.. [1] V. Doroshenko, B. Ghazi, P. Kamath, R. Kumar and P. Manurangsi,
   "Connect the Dots: Tighter Discrete Approximations of Privacy Loss
   Distributions", PoPETs 2022(4).
.. [2] A. Koskela, J. Jälkö and A. Honkela, "Computing Tight Differential
   Privacy Guarantees Using FFT", AISTATS 2020.
.. [3] D. M. Sommer, S. Meiser and E. Mohammadi, "Privacy Loss Classes: The
   Central Limit Theorem in Differential Privacy", PoPETs 2019(2).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable
from numbers import Integral

import numpy as np

from .._lib import printing
from .._lib.domains import DELTA_STATED, EPSILON_POINT, Interval, documented
from .._lib.validation import check_count, check_real
from ..privacy import PrivacyBound, PrivacyStatement
from ._accountant import PrivacyAccountant
from ._step_bounds import delta_bounds, epsilon_bounds

__all__ = [
    "STEP_KINDS",
    "MAX_STEP_EPSILON",
    "MAX_GRID_POINTS",
    "compose_pld",
    "pld_epsilon",
    "pld_delta",
    "certified_epsilon",
    "certified_delta",
    "fft_error_bound",
    "PLDAccountant",
]

STEP_KINDS = ("gaussian", "laplace", "pure", "epsilon_delta")

MAX_STEP_EPSILON = math.log(sys.float_info.max)
"""Largest epsilon of a ``"pure"`` or ``"epsilon_delta"`` step (about 709.78):
dp_accounting builds the dominating pair from e^epsilon, which must be
a finite double."""
#: The epsilon of a ``"pure"`` or ``"epsilon_delta"`` step: ``[0, MAX_STEP_EPSILON]``.
_STEP_EPSILON = Interval(0.0, MAX_STEP_EPSILON, True, True)

DEFAULT_INTERVAL = 1e-4
"""Width of dp_accounting's privacy-loss grid: within 1% of the true epsilon for
Gaussian and Laplace compositions up to 10^4 steps (tests and benchmarks/pld.py)."""

MAX_GRID_POINTS = 2**24
"""Largest privacy-loss grid, in points, that :func:`compose_pld` builds (about
16.8 million: 134 MB for each of dp_accounting's arrays). Tiny noise for the
grid's interval, or very many steps, needs more; such compositions are refused
by name before any work instead of exhausting memory."""


def _grid_points(steps: list[tuple], interval: float) -> float:
    """About how many points the composed loss grid of checked ``steps`` holds.

    With e the step's unit loss (1/b, 1/sigma, epsilon), one step's loss has mean
    at most min(e, e^2/2) (e^2/2 for the Gaussian), standard deviation at most e,
    and spans 2e (about 40e for the Gaussian, whose tails dp_accounting cuts
    far out). The composed grid spans the smaller of the sum of the spans and the
    mean plus 20 standard deviations of the sum: within a factor of 2 of
    dp_accounting's grids (tests/sensampler/accounting/test_pld.py).
    """
    mean = variance = span = widest = 0.0
    for kind, params, count in steps:
        e = 1.0 / params[0] if kind in ("gaussian", "laplace") else params[0]
        # Python floats: an overflow is inf, never an error nor a warning
        one_span = 40.0 * e if kind == "gaussian" else 2.0 * e
        one_mean = e * e / 2.0 if kind == "gaussian" else e * min(1.0, e / 2.0)
        mean += count * one_mean
        variance += count * e * e
        span += count * one_span
        widest = max(widest, one_span)
    return min(span, mean + 20.0 * math.sqrt(variance) + widest) / interval


_REL_MARGIN = 1e-6
"""Relative margin added to the PLD's epsilon, for the rounding of its inversion
on the grid; the FFT round-off itself is covered by :func:`fft_error_bound`."""


def _dp_accounting():
    try:
        from dp_accounting.pld import common, privacy_loss_distribution
    except ImportError as exc:
        raise ImportError(
            "privacy-loss-distribution accounting needs Google's dp_accounting: "
            "install the extra with `pip install sensampler[pld]`."
        ) from exc
    return common, privacy_loss_distribution


def _check_steps(steps, *, representable: bool = True) -> list[tuple]:
    """Validate every step before any work; return (kind, params, count) tuples.

    With ``representable=False`` an epsilon above :data:`MAX_STEP_EPSILON` is
    allowed (the accountant keeps it, and bounds it without a PLD)."""
    step_epsilon = _STEP_EPSILON if representable else EPSILON_POINT
    checked = []
    for index, step in enumerate(steps):
        name = f"steps[{index}]"
        if not isinstance(step, tuple) or not step or step[0] not in STEP_KINDS:
            raise ValueError(
                f"{name} must be a tuple whose first item is one of "
                f"{', '.join(map(repr, STEP_KINDS))}, got {step!r}."
            )
        kind = step[0]
        size = 4 if kind == "epsilon_delta" else 3
        if len(step) != size:
            raise ValueError(
                f"{name} of kind {kind!r} must have {size} items, got {step!r}."
            )
        if not isinstance(step[-1], Integral):
            raise TypeError(f"{name}: count must be an integer, got {step[-1]!r}.")
        count = check_count(f"{name} count", step[-1])
        if kind in ("gaussian", "laplace"):
            params = (
                check_real(f"{name} {kind} noise", step[1], low=0.0, low_strict=True),
            )
        elif kind == "pure":
            params = (step_epsilon.check(f"{name} epsilon", step[1]),)
        else:
            params = (
                step_epsilon.check(f"{name} epsilon", step[1]),
                DELTA_STATED.check(f"{name} delta", step[2]),
            )
        checked.append((kind, params, count))
    if not checked:
        raise ValueError("steps must hold at least one step, got none.")
    return checked


def _check_grid(steps: list[tuple], interval: float) -> None:
    points = _grid_points(steps, interval)
    if not points <= MAX_GRID_POINTS:
        raise ValueError(
            f"steps: their composed privacy-loss grid would hold about {points:.3g} "
            f"points, more than MAX_GRID_POINTS={MAX_GRID_POINTS} (noise too small, "
            f"or too many steps, for value_discretization_interval={interval!r}); "
            "use a wider interval or another accountant."
        )


def compose_pld(
    steps: Iterable[tuple], *, value_discretization_interval: float = DEFAULT_INTERVAL
):
    """The pessimistic privacy-loss distribution of the composed steps.

    Parameters
    ----------
    steps : iterable of tuple
        Step descriptions (module docstring), e.g. ``("gaussian", 2.0, 100)``.
    value_discretization_interval : float, default 1e-4
        Grid width of the privacy loss; smaller is tighter and slower.

    Returns
    -------
    dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution
        Its ``get_epsilon_for_delta`` and ``get_delta_for_epsilon`` are never
        below the true values of the composition.

    Raises
    ------
    ImportError
        Without the ``pld`` extra (``dp_accounting``).
    """
    steps = _check_steps(list(steps))
    interval = check_real(
        "value_discretization_interval",
        value_discretization_interval,
        low=0.0,
        low_strict=True,
    )
    _check_grid(steps, interval)
    return _compose_checked(steps, interval)


def _compose_checked(steps: list[tuple], interval: float):
    """The PLD of checked steps (:func:`compose_pld` without its checks)."""
    common, pldlib = _dp_accounting()
    total = None
    for kind, params, count in steps:
        if kind == "gaussian":
            one = pldlib.from_gaussian_mechanism(
                params[0],
                pessimistic_estimate=True,
                value_discretization_interval=interval,
            )
        elif kind == "laplace":
            one = pldlib.from_laplace_mechanism(
                params[0],
                pessimistic_estimate=True,
                value_discretization_interval=interval,
            )
        else:
            epsilon, delta = params if kind == "epsilon_delta" else (params[0], 0.0)
            one = pldlib.from_privacy_parameters(
                common.DifferentialPrivacyParameters(epsilon, delta),
                value_discretization_interval=interval,
            )
        one = one.self_compose(count) if count > 1 else one
        total = one if total is None else total.compose(one)
    return total


def _pld_length(pld) -> int:
    """Length of the longest probability array of a dp_accounting PLD."""
    pmfs = (pld._pmf_remove, pld._pmf_add)  # no public accessor in dp_accounting
    return max(pmf.size for pmf in pmfs)


def fft_error_bound(steps: list[tuple], length: int) -> float:
    r"""Bound on the additive delta error of dp_accounting's FFT composition.

    Each self-composition of ``count`` copies computes
    :math:`\mathrm{IFFT}(\mathrm{FFT}(a)^{k})` and each composition of two
    PLDs an FFT convolution, over grids of at most N = ``length`` points.
    The computed FFT has L2 error at most :math:`\eta \|\mathrm{FFT}(a)\|_2
    = \eta\sqrt N \|a\|_2`, :math:`\eta = 5u\log_2 N` (Higham 2002, Thm.
    24.2, with accurately computed twiddle factors); every entry of
    :math:`\mathrm{FFT}(a)` has modulus at most :math:`\|a\|_1 \le 1`, so the
    k-th power multiplies that error by at most k and adds a rounding of
    about :math:`2ku` per entry; the inverse transform divides the L2 norm
    by :math:`\sqrt N` and adds :math:`\eta`. The L2 error of the output is
    then at most :math:`(k + 2)(\eta + 2u)`, its L1 error at most
    :math:`\sqrt N` times that, and the L1 errors of successive
    compositions add (convolving an error with a probability vector does
    not raise its L1 norm). The discretised steps' own probabilities carry
    about 4u each (4Nu in all), and the final sum of the hockey-stick
    divergence at most :math:`u\log_2 N` (pairwise summation). Since
    :math:`\delta(\epsilon) = \sum_i p_i (1 - e^{\epsilon - l_i})_+` with
    weights in [0, 1], its error is at most the L1 error of the
    probabilities: the bound returned, doubled as a safety factor.

    References
    ----------
    .. [1] N. J. Higham, *Accuracy and Stability of Numerical Algorithms*,
       2nd ed., SIAM 2002, Sec. 24.1.

    Parameters
    ----------
    steps : list of tuple
        Checked ``(kind, params, count)`` steps.
    length : int
        Length of the composed PLD's probability array.

    Returns
    -------
    float
        The certified additive error bound on any delta the PLD reports.
    """
    u = 2.0**-53
    n = max(2, int(length))
    log_n = math.log2(n)
    eta = 5.0 * u * log_n
    per_op = math.sqrt(n) * (eta + 2.0 * u)
    # each step: a self-composition of count copies, then (after the first)
    # one convolution with the total, of error at most 3 (eta + 2u) sqrt(N)
    ops = math.fsum(count + 2 + (3 if i else 0) for i, (_, _, count) in enumerate(steps))
    return 2.0 * (per_op * ops + 4.0 * n * u + u * log_n)


CERTIFIED_FRACTION = 0.5
"""The PLD bound is used at a target delta only when the FFT error bound is at
most this fraction of it (the rest of the target is the PLD's own delta)."""

PLD_METHOD = "privacy loss distribution (dp_accounting; certified FFT error bound)"


class _Certified:
    """A composed PLD with the bound on its round-off (None when not built)."""

    def __init__(self, steps: list[tuple], interval: float):
        self.pld = None
        self.error = math.inf
        # a step of delta = 1 guarantees nothing (no PLD: the other bounds say so)
        representable = all(
            kind in ("gaussian", "laplace")
            or (params[0] <= MAX_STEP_EPSILON and (kind == "pure" or params[1] < 1.0))
            for kind, params, _ in steps
        )
        if (
            representable
            and _needs_pld(steps)
            and _grid_points(steps, interval) <= MAX_GRID_POINTS
        ):
            try:
                self.pld = _compose_checked(steps, interval)
            except (OverflowError, ValueError, MemoryError):
                self.pld = None  # the other bounds remain
            else:
                self.error = fft_error_bound(steps, _pld_length(self.pld))

    def epsilon(self, delta: float) -> float:
        if self.pld is None or self.error > CERTIFIED_FRACTION * delta:
            return math.inf
        # delta_true(e) <= delta_pld(e) + error <= delta at the returned e
        return _epsilon_of(self.pld, delta - self.error)

    def delta(self, epsilon: float) -> float:
        if self.pld is None:
            return 1.0
        return min(1.0, max(0.0, _delta_of(self.pld, epsilon) + self.error))


def _needs_pld(steps: list[tuple]) -> bool:
    """Whether the PLD can beat the exact bounds: not for Gaussian steps alone
    (the exact Gaussian composition) nor for one repeated pure or
    (epsilon, delta) step (the exact optimal composition, which the PLD of
    the dominating pair equals at best)."""
    kinds = {kind for kind, _, _ in steps}
    if kinds == {"gaussian"}:
        return False
    return "laplace" in kinds or "gaussian" in kinds or len(steps) > 1


def _best(candidates):
    return min(candidates, key=lambda c: c[0])


def certified_epsilon(
    steps: Iterable[tuple],
    delta: float,
    *,
    value_discretization_interval: float = DEFAULT_INTERVAL,
    _certified: _Certified | None = None,
) -> tuple[float, str]:
    """(epsilon, method): the smallest valid epsilon of the composed steps at ``delta``.

    The minimum of the PLD bound, used only where its certified FFT error
    (:func:`fft_error_bound`) is at most half of ``delta`` (then evaluated at
    ``delta`` less that error), and of every other valid bound
    (:mod:`~sensampler.accounting._step_bounds`: exact Gaussian, basic, exact
    optimal and heterogeneous composition, Rényi DP). ``method`` names the
    bound returned.
    """
    steps = _check_steps(list(steps), representable=_certified is None)
    delta = DELTA_STATED.check("delta", delta)
    certified = _certified or _Certified(steps, value_discretization_interval)
    return _best([(certified.epsilon(delta), PLD_METHOD), *epsilon_bounds(steps, delta)])


def certified_delta(
    steps: Iterable[tuple],
    epsilon: float,
    *,
    value_discretization_interval: float = DEFAULT_INTERVAL,
    _certified: _Certified | None = None,
) -> tuple[float, str]:
    """(delta, method): the smallest valid delta of the composed steps at ``epsilon``,
    never negative (the PLD's delta plus its certified FFT error, and every other
    valid bound)."""
    steps = _check_steps(list(steps), representable=_certified is None)
    epsilon = EPSILON_POINT.check("epsilon", epsilon)
    certified = _certified or _Certified(steps, value_discretization_interval)
    return _best([(certified.delta(epsilon), PLD_METHOD), *delta_bounds(steps, epsilon)])


@documented
def pld_epsilon(
    steps: Iterable[tuple],
    delta: float,
    *,
    value_discretization_interval: float = DEFAULT_INTERVAL,
) -> float:
    """Smallest certified epsilon for which the composed steps are (epsilon, delta)-DP.

    The epsilon of :func:`certified_epsilon`: the PLD bound where its round-off
    is certified small, otherwise the best other valid bound.

    Parameters
    ----------
    steps : iterable of tuple
        Step descriptions (module docstring).
    delta : float
        ``{DELTA_STATED:delta}``.
    value_discretization_interval : float, default 1e-4

    Returns
    -------
    float
        Never below the true epsilon; ``inf`` if no finite epsilon is certified.

    Examples
    --------
    100 Laplace releases at epsilon = 0.1 each (scale 10 times the sensitivity):

    >>> round(pld_epsilon([("laplace", 10.0, 100)], 1e-5), 3)
    4.22
    """
    return certified_epsilon(
        steps, delta, value_discretization_interval=value_discretization_interval
    )[0]


def _epsilon_of(pld, delta: float) -> float:
    """The PLD's epsilon at ``delta``, with the rounding margin."""
    with np.errstate(over="ignore", invalid="ignore"):  # e^epsilon near 709
        epsilon = float(pld.get_epsilon_for_delta(delta)) * (1.0 + _REL_MARGIN)
    return math.inf if math.isnan(epsilon) else epsilon


def _delta_of(pld, epsilon: float) -> float:
    """The PLD's delta at ``epsilon``, with the rounding margin, capped at 1."""
    with np.errstate(over="ignore", invalid="ignore"):  # e^epsilon near 709
        delta = float(pld.get_delta_for_epsilon(epsilon)) * (1.0 + _REL_MARGIN)
    return 1.0 if math.isnan(delta) else min(1.0, delta)


def pld_delta(
    steps: Iterable[tuple],
    epsilon: float,
    *,
    value_discretization_interval: float = DEFAULT_INTERVAL,
) -> float:
    """Smallest certified delta for which the composed steps are (epsilon, delta)-DP.

    Parameters
    ----------
    steps, value_discretization_interval
        As in :func:`pld_epsilon`.
    epsilon : float
        ``>= 0``.

    Returns
    -------
    float
        In [0, 1], never below the true delta of the composition at ``epsilon``
        (the delta of :func:`certified_delta`).
    """
    return certified_delta(
        steps, epsilon, value_discretization_interval=value_discretization_interval
    )[0]


def statement_steps(statement: PrivacyStatement) -> list[tuple]:
    """The PLD steps of one release, read from its privacy statement.

    A view of the record (:class:`~sensampler.privacy.PrivacyStatement`) that
    keeps what the privacy loss distribution needs, and nothing that states more.

    Gaussian noise (:class:`~sensampler.privacy.Noise` of kind
    ``"gaussian"``): one Gaussian step of the unit sigma (per-coordinate
    Gaussian noise included: one pair after rescaling). Laplace noise: one
    Laplace step per coordinate, of scale ``b_j / Delta_j`` (coordinates that
    cannot move cost nothing). Otherwise the (epsilon, delta) statement: a pure
    step when delta is 0, else an epsilon_delta step (each dominates every
    mechanism of its class). A statement with none of these (a Rényi or zCDP
    statement without its noise) is refused.

    Raises
    ------
    ValueError
        Naming the mechanism, when it cannot be represented.
    """
    noise = statement.noise
    if noise is not None and noise.kind == "gaussian":
        return [("gaussian", noise.scales[0], 1)]
    if noise is not None and noise.kind == "laplace":
        return [("laplace", b, 1) for b in noise.scales if b != math.inf]
    if statement.epsilon is not None and statement.delta is not None:
        if statement.delta == 0.0:
            return [("pure", statement.epsilon, 1)]
        return [("epsilon_delta", statement.epsilon, statement.delta, 1)]
    raise ValueError(
        f"{statement.mechanism} states neither its noise nor an (epsilon, delta) "
        "guarantee, so it has no privacy loss distribution here; use "
        "RenyiAccountant or ZCDPAccountant."
    )


class PLDAccountant(PrivacyAccountant):
    """Composes releases through their privacy loss distributions, certified.

    Each release becomes PLD steps (:func:`statement_steps`): Gaussian and
    Laplace noise by their exact pairs, other epsilon-DP releases by the
    randomized-response pair and (epsilon, delta)-DP ones by the four-point
    pair that dominate their classes (Kairouz, Oh & Viswanath 2017, Thm. 2.1).
    Google's ``dp_accounting`` composes them with its pessimistic
    discretisation (Doroshenko et al. 2022), whose FFT round-off is bounded
    (:func:`fft_error_bound`) and added: the PLD bound is used only where that
    bound is at most half the target delta. The epsilon and delta reported are
    the smallest of it and every other valid bound (exact Gaussian, basic,
    exact optimal, heterogeneous and Rényi composition;
    :func:`certified_epsilon`), never below the true ones, never a negative
    delta; :meth:`report` names the bound used. Needs ``sensampler[pld]``.

    Parameters
    ----------
    value_discretization_interval : float, default 1e-4
        Grid width of the privacy loss; smaller is tighter and slower.

    Examples
    --------
    >>> from sensampler.mechanisms import LaplaceMechanism
    >>> acc = PLDAccountant()
    >>> acc.compose(LaplaceMechanism(1.0, 0.1), count=100)
    >>> round(acc.epsilon(1e-5), 3)
    4.22
    >>> acc.epsilon(0.0)   # pure composition: 100 x 0.1
    10.0
    """

    method = PLD_METHOD

    def __init__(self, value_discretization_interval: float = DEFAULT_INTERVAL):
        self.value_discretization_interval = check_real(
            "value_discretization_interval",
            value_discretization_interval,
            low=0.0,
            low_strict=True,
        )
        _dp_accounting()  # without the extra, fail now rather than at the report
        super().__init__()
        self._steps: dict[tuple, int] = {}
        self._certified = None

    def _amount(self, statement):
        return statement_steps(statement)

    def _add(self, steps, count):
        recorded = dict(self._steps)
        for step in steps:
            key = step[:-1]
            recorded[key] = recorded.get(key, 0) + count * step[-1]
        _check_steps(  # before recording
            [(*key, n) for key, n in recorded.items()], representable=False
        )
        self._steps = recorded
        self._certified = None

    def _composed(self):
        """(checked steps, their certified PLD), or (None, None) when empty."""
        with self._lock:
            if not self._steps:
                return None, None
            steps = [(*key, n) for key, n in self._steps.items()]
            if self._certified is None:
                self._certified = _Certified(
                    _check_steps(steps, representable=False),
                    self.value_discretization_interval,
                )
            return steps, self._certified

    @property
    def steps(self) -> list[tuple]:
        """The PLD steps recorded, with their counts (module docstring)."""
        return [(*key, n) for key, n in self._steps.items()]

    def _epsilon_method(self, delta: float) -> tuple[float, str]:
        steps, certified = self._composed()
        if steps is None:
            return 0.0, "nothing composed"
        return certified_epsilon(steps, delta, _certified=certified)

    def _epsilon(self, delta: float) -> float:
        # the smallest certified epsilon; inf when no bound is certified
        return self._epsilon_method(delta)[0]

    def _delta(self, epsilon: float) -> float:
        # the smallest certified delta; 0 when nothing was composed
        steps, certified = self._composed()
        if steps is None:
            return 0.0
        return certified_delta(steps, epsilon, _certified=certified)[0]

    def _report(self, delta: float) -> PrivacyBound:
        epsilon, method = self._epsilon_method(delta)
        return PrivacyBound(epsilon, delta, self.gamma, method)

    def _summary(self):
        return f"epsilon={printing.epsilon(self.epsilon(1e-5))} at delta=1e-05, "
