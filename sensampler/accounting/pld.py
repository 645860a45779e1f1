r"""Privacy-loss-distribution accounting: tight (epsilon, delta) of a composition.

A mechanism's privacy loss :math:`L = \log(p(Y)/q(Y))`, :math:`Y \sim P`, for
the worst neighbouring pair (P, Q) determines every (epsilon, delta) it
satisfies: :math:`\delta(\epsilon) = E_P[(1 - e^{\epsilon - L})_+]` (the
hockey-stick divergence; Meiser & Mohammadi 2018, Sommer, Meiser & Mohammadi
2019), and the losses of independently composed mechanisms add, so their
distributions convolve (Koskela, Jälkö & Honkela 2020). The composition is
computed by Google's ``dp_accounting`` (Doroshenko, Ghazi, Kamath, Kumar &
Manurangsi 2022, "Connect the Dots"), whose pessimistic discretisation never
reports a delta (or epsilon) below the true one of the composition.

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

from .._validation import check_count, check_real
from ..privacy import PrivacyStatement
from ._ledger import PrivacyAccountant

__all__ = [
    "STEP_KINDS",
    "MAX_STEP_EPSILON",
    "MAX_GRID_POINTS",
    "compose_pld",
    "pld_epsilon",
    "pld_delta",
    "PLDAccountant",
]

STEP_KINDS = ("gaussian", "laplace", "pure", "epsilon_delta")

MAX_STEP_EPSILON = math.log(sys.float_info.max)
"""Largest epsilon of a ``"pure"`` or ``"epsilon_delta"`` step (about 709.78):
dp_accounting builds the dominating pair from e^epsilon, which must be
a finite double."""

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
"""Relative margin added to every result. The discretisation is pessimistic, but
the FFT convolution carries floating-point error (about 1e-10 relative at
delta = 1e-6 after 562 pure steps, where the grid itself is exact); the margin
covers it, so no result falls below the true value by rounding."""


def _dp_accounting():
    try:
        from dp_accounting.pld import common, privacy_loss_distribution
    except ImportError as exc:
        raise ImportError(
            "privacy-loss-distribution accounting needs Google's dp_accounting: "
            "install the extra with `pip install sensampler[pld]`."
        ) from exc
    return common, privacy_loss_distribution


def _check_steps(steps) -> list[tuple]:
    """Validate every step before any work; return (kind, params, count) tuples."""
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
            params = (
                check_real(f"{name} epsilon", step[1], low=0.0, high=MAX_STEP_EPSILON),
            )
        else:
            params = (
                check_real(f"{name} epsilon", step[1], low=0.0, high=MAX_STEP_EPSILON),
                check_real(f"{name} delta", step[2], low=0.0, high=1.0),
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


def pld_epsilon(
    steps: Iterable[tuple],
    delta: float,
    *,
    value_discretization_interval: float = DEFAULT_INTERVAL,
) -> float:
    """Smallest epsilon (pessimistic) for which the composed steps are (epsilon, delta)-DP.

    Parameters
    ----------
    steps : iterable of tuple
        Step descriptions (module docstring).
    delta : float
        ``0 <= delta <= 1``.
    value_discretization_interval : float, default 1e-4

    Returns
    -------
    float
        Never below the true epsilon; ``inf`` if no finite epsilon reaches delta.

    Examples
    --------
    100 Laplace releases at epsilon = 0.1 each (scale 10 times the sensitivity):

    >>> round(pld_epsilon([("laplace", 10.0, 100)], 1e-5), 3)
    4.22
    """
    delta = check_real("delta", delta, low=0.0, high=1.0)
    pld = compose_pld(
        steps, value_discretization_interval=value_discretization_interval
    )
    return _epsilon_of(pld, delta)


def _epsilon_of(pld, delta: float) -> float:
    """The PLD's epsilon at ``delta``, with the rounding margin."""
    return float(pld.get_epsilon_for_delta(delta)) * (1.0 + _REL_MARGIN)


def _delta_of(pld, epsilon: float) -> float:
    """The PLD's delta at ``epsilon``, with the rounding margin, capped at 1."""
    return min(1.0, float(pld.get_delta_for_epsilon(epsilon)) * (1.0 + _REL_MARGIN))


def pld_delta(
    steps: Iterable[tuple],
    epsilon: float,
    *,
    value_discretization_interval: float = DEFAULT_INTERVAL,
) -> float:
    """Smallest delta (pessimistic) for which the composed steps are (epsilon, delta)-DP.

    Parameters
    ----------
    steps, value_discretization_interval
        As in :func:`pld_epsilon`.
    epsilon : float
        ``>= 0``.

    Returns
    -------
    float
        Never below the true delta of the composition at ``epsilon``.
    """
    epsilon = check_real("epsilon", epsilon, low=0.0)
    pld = compose_pld(
        steps, value_discretization_interval=value_discretization_interval
    )
    return _delta_of(pld, epsilon)


def statement_steps(statement: PrivacyStatement) -> list[tuple]:
    """The PLD steps of one release, read from its privacy statement.

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
    """Composes releases through their privacy loss distributions (tight).

    Each release becomes PLD steps (:func:`statement_steps`): Gaussian and
    Laplace noise by their exact pairs, other epsilon-DP releases by the
    randomized-response pair and (epsilon, delta)-DP ones by the four-point
    pair that dominate their classes (Kairouz, Oh & Viswanath 2017, Thm. 2.1).
    Google's ``dp_accounting`` composes them with its pessimistic
    discretisation (Doroshenko et al. 2022): the epsilon and delta reported
    are never below the true ones of the composition, and within 1% of the
    true epsilon for Gaussian and Laplace compositions up to 10^4 steps
    (``benchmarks/pld.py``). Needs ``sensampler[pld]``.

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
    """

    method = "privacy loss distribution (dp_accounting; Doroshenko et al. 2022)"

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
        self._pld = None

    def _amount(self, statement):
        return statement_steps(statement)

    def _add(self, steps, count):
        recorded = dict(self._steps)
        for step in steps:
            key = step[:-1]
            recorded[key] = recorded.get(key, 0) + count * step[-1]
        _check_grid(  # before anything is recorded
            _check_steps([(*key, n) for key, n in recorded.items()]),
            self.value_discretization_interval,
        )
        self._steps = recorded
        self._pld = None

    def _composed(self):
        with self._lock:
            if self._pld is None and self._steps:
                self._pld = compose_pld(
                    [(*key, n) for key, n in self._steps.items()],
                    value_discretization_interval=self.value_discretization_interval,
                )
            return self._pld

    @property
    def steps(self) -> list[tuple]:
        """The PLD steps recorded, with their counts (module docstring)."""
        return [(*key, n) for key, n in self._steps.items()]

    def epsilon(self, delta: float) -> float:
        """Smallest epsilon (pessimistic) with (epsilon, delta)-DP, ``0 <= delta <= 1``.

        Parameters
        ----------
        delta : float
            ``0 <= delta <= 1``.

        Returns
        -------
        float
            The epsilon, ``>= 0``.
        """
        delta = check_real("delta", delta, low=0.0, high=1.0)
        pld = self._composed()
        return 0.0 if pld is None else _epsilon_of(pld, delta)

    def delta(self, epsilon: float) -> float:
        """Smallest delta (pessimistic) with (epsilon, delta)-DP, ``epsilon >= 0``.

        Parameters
        ----------
        epsilon : float
            Privacy loss, ``>= 0``.

        Returns
        -------
        float
            The delta, in ``[0, 1]``.
        """
        epsilon = check_real("epsilon", epsilon, low=0.0)
        pld = self._composed()
        return 0.0 if pld is None else _delta_of(pld, epsilon)

    def _summary(self):
        return f"epsilon={self.epsilon(1e-5):.4g} at delta=1e-05, "
