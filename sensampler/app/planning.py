r"""Plan a release from a target error, before any private data are read.

:func:`plan_release` answers "what epsilon do I need for an error of 0.1 cm?"
(and the reverse, "what error will epsilon = 0.5 give?") from the population
model alone. It draws ``runs`` independent sampling runs of the query's
sensitivity on databases of ``n`` records from the population, exactly as
:func:`sensampler.app.release.release_statistic` would draw one, and computes the
error of the noise the mechanism would add with each of them.

**What "error" means here.** The error is the noise only: :math:`|M(D) - f(D)|`,
the distance between the private release and the exact answer on the same
data. It is not the distance to a population parameter (the sampling error of
``f(D)`` itself is the same with or without privacy). For a vector query it is
the error of each coordinate.

**It accounts for nothing.** The plan reads no private record and releases
nothing: it spends no epsilon, no delta and no gamma, and records nothing in any
budget. The sampling runs it draws are its own; the release draws a fresh one.
This holds only if the population is public: a bootstrap of the private file
itself (``bootstrap:private.csv``) would read private records without spending,
as it would in the release.

Mechanisms enter as a parameter: a :class:`NoiseModel` states the law of the
absolute noise of a mechanism calibrated with a sensitivity, and
:data:`NOISE_MODELS` holds the ones the release uses today (Laplace and the
analytic Gaussian).

**Quantiles follow the release.** A query the release answers by the
exponential mechanism over public bounds
(:func:`sensampler.mechanisms.choice.quantile_level_of` decides, for both) is planned
with that mechanism, whose error does not scale with a sensitivity:
:class:`QuantileErrorModel` draws ``runs`` databases of ``n`` records from the
population and computes, on each, the exact law of the mechanism's output
(:meth:`~sensampler.mechanisms.ExponentialQuantileMechanism.output_law`, the
law :meth:`~sensampler.mechanisms.ExponentialQuantileMechanism.release`
samples), with the weight scale the release calibrates on the population
(:class:`~sensampler.quantile_calibration.SampledLosses`: one set of pairs
drawn once, the scale chosen at each epsilon as the release chooses it). Such a
plan states the release's random DP (gamma, m and k of the scale's sampling
plan) and its worst case; no sensitivity is sampled. Where no scale beats the
plain one, the plan states plain epsilon-DP and m, k and gamma do not apply.

**Bounds and the worst-case floor follow the release.** A release clips the
records to its bounds (by default read from the population model) in the data
and in every sampled database, and raises its noise so that its worst-case
epsilon stays within ``worst_case_epsilon`` (10 times epsilon by default). The
plan does the same: its sampling runs draw clipped databases, and each run's
noise is raised to that floor, so that a floor which binds (a heavy tail, wide
bounds, a low cap) shows in the planned error.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from scipy import optimize, special

from .._display.releases import plan_html
from .._lib.domains import DELTA_RELEASE, EPSILON, NEIGHBOUR_RELATIONS
from .._lib.validation import (
    as_seed_sequence,
    check_count,
    check_n_jobs,
    check_probability,
    check_real,
)
from ..bounds import Bounds, worst_case_sensitivity
from ..distributions import as_distribution
from ..mechanisms import ExponentialQuantileMechanism, GaussianMechanism
from ..mechanisms._base import (
    check_noise_scale,
    check_worst_case_epsilon,
    drawable,
)
from ..mechanisms.choice import RELEASE_MECHANISMS, quantile_level_of
from ..mechanisms.quantile import QuantileCalibration, check_bounds
from ..parallel import child_seed
from ..plan import sampling_plan
from ..privacy import NEIGHBOURS, format_dp, format_upper
from ..quantile_calibration import SampledLosses, candidate_scales
from ..queries import as_query
from ..sampler import MAX_N, check_neighbours
from .experiments.specs import parse_query
from .release import (
    DEFAULT_BOUNDS,
    GUARANTEE,
    WORST_CASE_GUARANTEE,
    load_population,
    quantile_bounds,
    sampling_run,
    size_words,
)

__all__ = [
    "ACCOUNTS_FOR_NOTHING",
    "ERROR_MEANING",
    "NOISE_MODELS",
    "NoiseModel",
    "PreparedPlan",
    "QuantileErrorModel",
    "ReleasePlan",
    "plan_release",
    "prepare_plan",
]

#: The plan's promise, in words, printed with every plan.
ACCOUNTS_FOR_NOTHING = (
    "planned from the population model alone: no private record was read, "
    "nothing was spent or recorded in any budget"
)

#: What the error is, in words.
ERROR_MEANING = "error = |release - exact answer on the same data| (the noise only)"
#: What the error of a quantile release (the exponential mechanism) is, in words.
QUANTILE_ERROR_MEANING = (
    "error = |release - exact quantile of the same data| (the exponential "
    "mechanism's error, clipping to the bounds included)"
)
#: Why a quantile plan has no sampling plan, in words.
NO_SAMPLING_PLAN = (
    "none: the exponential mechanism samples no sensitivity "
    "(m, k and gamma do not apply)"
)


@dataclass(frozen=True)
class NoiseModel:
    r"""The absolute noise of a mechanism calibrated with a sensitivity.

    The mechanism adds :math:`\Delta \, s(\epsilon, \delta) \, Z` to the answer,
    where :math:`\Delta` is the sensitivity, ``unit_scale`` gives
    :math:`s(\epsilon, \delta)` and :math:`Z` is a fixed unit noise.

    Parameters
    ----------
    name : str
        The mechanism's name, as :func:`~sensampler.app.release.release_statistic`
        takes it.
    unit_scale : callable
        ``(epsilon, delta) -> s``, the noise scale for a sensitivity of 1.
    unit_mean : float
        :math:`E|Z|`.
    unit_sf : callable
        ``t -> P[|Z| > t]`` for an array ``t >= 0``.
    needs_delta : bool
        Whether the mechanism takes ``delta > 0`` (else ``delta = 0``).
    """

    name: str
    unit_scale: Callable[[float, float], float]
    unit_mean: float
    unit_sf: Callable[[np.ndarray], np.ndarray]
    needs_delta: bool

    def mean_error(self, epsilon: float, delta: float, sensitivities) -> float:
        r"""Expected absolute error over the sampling runs' sensitivities.

        :math:`E|M(D) - f(D)| = s(\epsilon, \delta) \, E|Z| \, \overline{\Delta}`,
        the mean over runs of each run's expected absolute noise.

        Parameters
        ----------
        epsilon, delta : float
            The release's privacy parameters.
        sensitivities : array-like of float
            One sampled sensitivity per run, equally likely.

        Returns
        -------
        float
        """
        scale = self.unit_scale(epsilon, delta)
        return float(np.mean(sensitivities)) * scale * self.unit_mean

    def error_sf(self, t: float, epsilon: float, delta: float, sensitivities) -> float:
        """``P[|error| > t]``, the runs' sensitivities equally likely.

        Parameters
        ----------
        t : float
            The error, ``>= 0``.
        epsilon, delta : float
            The release's privacy parameters.
        sensitivities : array-like of float
            One sampled sensitivity per run, equally likely.

        Returns
        -------
        float
        """
        scales = np.asarray(sensitivities, dtype=float) * self.unit_scale(
            epsilon, delta
        )
        safe = np.where(scales > 0.0, scales, 1.0)
        return float(np.mean(np.where(scales > 0.0, self.unit_sf(t / safe), 0.0)))


def _laplace_scale(epsilon: float, delta: float) -> float:
    return 1.0 / epsilon  # b = Delta / epsilon (Dwork & Roth 2014, Thm. 3.6)


def _gaussian_scale(epsilon: float, delta: float) -> float:
    # Balle & Wang (2018), Thm. 8, as the release calibrates it.
    return GaussianMechanism(1.0, epsilon, delta).sigma


#: The noise models of the mechanisms a release uses today, by name.
NOISE_MODELS = {
    # |Laplace(0, 1)| is Exponential(1): E|Z| = 1, P[|Z| > t] = exp(-t).
    "laplace": NoiseModel(
        "laplace", _laplace_scale, 1.0, lambda t: np.exp(-np.asarray(t)), False
    ),
    # |N(0, 1)|: E|Z| = sqrt(2 / pi), P[|Z| > t] = 2 P[Z > t] = erfc(t / sqrt 2).
    "gaussian": NoiseModel(
        "gaussian",
        _gaussian_scale,
        math.sqrt(2.0 / math.pi),
        lambda t: special.erfc(np.asarray(t) / math.sqrt(2.0)),
        True,
    ),
}


@dataclass(frozen=True)
class _ErrorClasses:
    """The databases' grids grouped by count, flat, in order: class k belongs to
    database ``database[k]``, holds ``sizes[k]`` grid points from index
    ``starts[k]`` on, at distance ``distances[k]`` = |c - qn|, and their errors
    |t_j - x| sum to ``error_sums[k]``. ``first[i]`` is database i's first
    class (``first[-1]`` the number of classes); ``answers`` the databases'
    exact quantiles x; ``points`` = G + 1."""

    sizes: np.ndarray
    distances: np.ndarray
    starts: np.ndarray
    database: np.ndarray
    error_sums: np.ndarray
    first: np.ndarray
    answers: np.ndarray
    points: int

    @functools.cached_property
    def _ends(self) -> np.ndarray:
        # each class's end as database * (G + 1) + index: increasing over all
        return self.database * self.points + self.starts + self.sizes

    def _below(self, point_chances, cumulative, index) -> np.ndarray:
        """Each database's chance of the grid points before ``index`` (one per
        database): whole classes from the cumulative sums, plus part of one."""
        rank = np.arange(self.answers.size)
        k = np.searchsorted(self._ends, rank * self.points + index, side="right")
        last = np.minimum(k, self.sizes.size - 1)
        partial = np.where(
            (k < self.sizes.size) & (self.database[last] == rank),
            (index - self.starts[last]) * point_chances[last],
            0.0,
        )
        return cumulative[k] - cumulative[self.first[:-1]] + partial

    def share_above(self, point_chances, cumulative, grid, t: float) -> float:
        """P[error > t], averaged over the databases: the points with |t_j - x| > t
        are a prefix (t_j < x - t) and a suffix (t_j > x + t) of the grid.
        ``cumulative`` is the running sum of the class chances (0 first)."""
        a = np.searchsorted(grid, self.answers - t, side="left")
        b = np.searchsorted(grid, self.answers + t, side="right")
        total = cumulative[self.first[1:]] - cumulative[self.first[:-1]]
        above = self._below(point_chances, cumulative, a) + total - self._below(
            point_chances, cumulative, b
        )
        return float(np.mean(above))


@dataclass(frozen=True)
class QuantileErrorModel:
    r"""The error of the exponential quantile mechanism, from the population alone.

    Built by :meth:`draw`: ``runs`` databases of ``n`` records drawn from the
    public population model, and the exact quantile of each.

    Parameters
    ----------
    level : float
        The quantile, in [0, 1].
    bounds : (float, float)
        The mechanism's public bounds, as the release takes them.
    databases : tuple of ndarray
        The drawn databases, each sorted (the mechanism's law does not depend
        on the records' order).
    answers : tuple of float
        The query's exact answer on each database.
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The release's relation: the utility's sensitivity is 1 under
        replace-one and max(q, 1 - q) under add/remove.
    losses : SampledLosses or None, default None
        Pairs drawn from the population that give the release's sampled scale
        at each epsilon (:meth:`calibration`); ``None``: the plain mechanism.
    worst_case_epsilon : float or None, default None
        The release's cap on its worst-case epsilon: the sampled scale keeps
        within it; at or below epsilon the release is the plain mechanism at
        ``min(epsilon, worst_case_epsilon)``, as the release answers it.

    Notes
    -----
    On a database D the mechanism outputs the grid point :math:`t_j` with
    probability :math:`p_j(\epsilon)` (see
    ``ExponentialQuantileMechanism.output_law``; Smith 2011, on a public
    grid). With :math:`x = f(D)` the exact quantile, the error's law on D is
    then exact, with no simulation of the mechanism:

    .. math::

        E\lvert M(D) - x\rvert = \sum_j p_j(\epsilon)\,\lvert t_j - x\rvert,
        \qquad
        P[\lvert M(D) - x\rvert > t] = \sum_j p_j(\epsilon)\,
        [\lvert t_j - x\rvert > t].

    Both are averaged over the databases, equally likely. The law depends on
    a database only through its grid grouped by count
    (``ExponentialQuantileMechanism.count_classes``: at most n + 1 runs of
    equally likely points), computed once per database; each epsilon then
    costs one weight per class, and :math:`P[\lvert M(D) - x\rvert > t]` is a
    prefix and a suffix of the grid read from cumulative sums. The only
    randomness left is the databases': the error is a smooth function of
    epsilon, inverted by a root finder on log epsilon (the common-random-numbers
    simulation the exact law replaces would be a step function).
    """

    level: float
    bounds: tuple[float, float]
    databases: tuple[np.ndarray, ...] = field(repr=False)
    answers: tuple[float, ...] = field(repr=False)
    neighbours: str = NEIGHBOURS
    losses: SampledLosses | None = field(default=None, repr=False, compare=False)
    worst_case_epsilon: float | None = None

    def calibration(self, epsilon: float) -> QuantileCalibration | None:
        """The release's sampled scale at ``epsilon`` (:attr:`losses`).

        Parameters
        ----------
        epsilon : float
            ``> 0``.

        Returns
        -------
        QuantileCalibration or None
            ``None``: the plain epsilon-DP mechanism.
        """
        cap = self.worst_case_epsilon
        if self.losses is None or (cap is not None and cap <= epsilon):
            return None
        return self.losses.calibration(epsilon, cap)

    @functools.cached_property
    def _plain(self) -> ExponentialQuantileMechanism:
        """The plain mechanism at epsilon 1: its grid and count classes, which no
        epsilon or scale changes."""
        return ExponentialQuantileMechanism(
            self.level, self.bounds, 1.0, neighbours=self.neighbours
        )

    def mechanism(self, epsilon: float) -> ExponentialQuantileMechanism:
        """The release's mechanism at ``epsilon``, for :attr:`neighbours`.

        Parameters
        ----------
        epsilon : float
            ``> 0``.

        Returns
        -------
        ExponentialQuantileMechanism
            Calibrated with :meth:`calibration` where it gives a scale; the
            plain mechanism at the cap where :attr:`worst_case_epsilon` is
            below ``epsilon``.
        """
        return ExponentialQuantileMechanism(
            self.level, self.bounds, min(epsilon, self.worst_case_epsilon or math.inf),
            neighbours=self.neighbours, calibration=self.calibration(epsilon),
        )

    def largest_worst_case(self, epsilon: float) -> float:
        """The most the release at ``epsilon`` may state for every pair of neighbours.

        The plain mechanism's worst case is its epsilon (at the cap, where it is
        below epsilon). A sampled scale is chosen by the release on pairs of its
        own, so it may be any candidate (:func:`~sensampler.quantile_calibration.
        candidate_scales`, within the cap), not only the one the plan's pairs
        give: the worst case of the largest candidate.

        Parameters
        ----------
        epsilon : float
            ``> 0``.

        Returns
        -------
        float
        """
        mech = self.mechanism(epsilon)
        if mech.calibration is None:
            return mech.worst_case_epsilon
        top = candidate_scales(
            mech.epsilon, mech.utility_sensitivity, self.worst_case_epsilon
        )[-1]
        return ExponentialQuantileMechanism(
            self.level, self.bounds, epsilon, neighbours=self.neighbours,
            calibration=replace(mech.calibration, scale=float(top)),
        ).worst_case_epsilon

    @classmethod
    def draw(
        cls, query, level, bounds, population, n, runs, root, neighbours=NEIGHBOURS,
        losses=None, worst_case_epsilon=None,
    ):
        """Draw ``runs`` databases of ``n`` records (database i from child i of
        ``root``) and their exact answers.

        Parameters
        ----------
        query : Query
            The one-quantile query (its exact answer is the reference).
        level : float
            Its level.
        bounds : (float, float)
            The release's bounds.
        population : Distribution
            The public population model.
        n, runs : int
            Records per database, and databases.
        root : numpy.random.SeedSequence
            Seeds the databases.
        neighbours : {"replace-one", "add-remove"}, default "replace-one"
            The release's relation: the utility's sensitivity is 1 under
            replace-one and max(q, 1 - q) under add/remove.
        losses : SampledLosses, optional
            Pairs that calibrate the scale at each epsilon, as the release
            does with a population model; ``None``: the plain mechanism.
        worst_case_epsilon : float, optional
            The release's cap (see the class).

        Returns
        -------
        QuantileErrorModel
        """
        databases, answers = [], []
        for i in range(runs):
            data = np.asarray(
                population.sample(n, random_state=child_seed(root, i)), dtype=float
            )
            answers.append(float(query(data)))
            databases.append(np.sort(data))
        return cls(
            level, tuple(bounds), tuple(databases), tuple(answers), neighbours, losses,
            worst_case_epsilon,
        )

    def laws(self, epsilon: float) -> list[tuple[np.ndarray, np.ndarray]]:
        """The mechanism's output law at ``epsilon`` on each database.

        Parameters
        ----------
        epsilon : float
            ``> 0``.

        Returns
        -------
        list of (grid, probabilities)
        """
        mech = self.mechanism(epsilon)
        return [mech.output_law(data) for data in self.databases]

    @functools.cached_property
    def _classes(self) -> _ErrorClasses:
        """The databases' grid classes and errors (epsilon does not change them)."""
        mech = self._plain
        grid = mech.grid
        parts = []
        for i, (data, x) in enumerate(zip(self.databases, self.answers)):
            sizes, distances = mech.count_classes(data)
            starts = np.cumsum(sizes) - sizes
            sums = np.add.reduceat(np.abs(grid - x), starts)
            parts.append((sizes, distances, starts, np.full(sizes.size, i), sums))
        sizes, distances, starts, database, sums = (
            np.concatenate(column) for column in zip(*parts)
        )
        first = np.cumsum([0] + [part[0].size for part in parts])
        return _ErrorClasses(
            sizes, distances, starts, database, sums, first,
            np.asarray(self.answers, dtype=float), grid.size,
        )

    def _point_chances(self, epsilon: float) -> np.ndarray:
        """Each class's chance per grid point at ``epsilon`` (the mechanism's law,
        database by database)."""
        mech = self.mechanism(epsilon)
        c = self._classes
        chances = np.concatenate([
            mech.class_probabilities(c.sizes[lo:hi], c.distances[lo:hi])
            for lo, hi in zip(c.first[:-1], c.first[1:])
        ])
        return chances / c.sizes

    def mean_error(self, epsilon: float) -> float:
        """Expected absolute error at ``epsilon``, over the databases.

        Parameters
        ----------
        epsilon : float
            ``> 0``.

        Returns
        -------
        float
        """
        c = self._classes
        return float(np.dot(self._point_chances(epsilon), c.error_sums)) / len(
            self.answers
        )

    def error_quantile(self, q: float, epsilon: float) -> float:
        """The ``q``-quantile of the absolute error at ``epsilon``.

        Parameters
        ----------
        q : float
            In (0, 1).
        epsilon : float
            ``> 0``.

        Returns
        -------
        float
        """
        classes = self._classes
        chances = self._point_chances(epsilon)
        cumulative = np.concatenate([[0.0], np.cumsum(chances * classes.sizes)])
        grid = self._plain.grid

        def sf(t):
            return classes.share_above(chances, cumulative, grid, t)

        # the output lies in the bounds: no error exceeds this start
        low, high = self.bounds
        start = max(max(abs(x - low), abs(x - high)) for x in self.answers)
        return _quantile_of_error(sf, q, start)


@dataclass(frozen=True)
class ReleasePlan:
    """A release planned from the population model: its epsilon and its error.

    Built by :func:`plan_release`; it accounts for nothing (see the module).

    Parameters
    ----------
    query : str
        The query's name.
    population : str
        The population model, in words.
    n : int
        Records of the data to be released.
    mechanism : str
        The mechanism's name (``"exponential"`` for a quantile query, as the
        release answers it).
    epsilon, delta : float
        The epsilon (and delta) of the release.
    gamma : float or None
        The sampling plan's certified gamma; ``None`` for the exponential
        mechanism's plain scale (plain DP, no gamma).
    m, k : int or None
        The sampling plan: pairs sampled and the rank of the released
        sensitivity (of the privacy loss, for the exponential mechanism's
        sampled scale); ``None`` for its plain scale.
    bound : str or None
        The sampling plan's bound; ``None`` for the plain scale.
    sensitivity : float or None
        Mean over the runs of the sampled sensitivity G_(k); ``None`` for the
        exponential mechanism.
    sensitivities : tuple of float
        Each run's sampled sensitivity (empty for the exponential mechanism).
    expected_error : float
        Expected absolute error (the noise only).
    error_90 : float
        90th percentile of the absolute error.
    target_error : float or None
        The target, when the plan was solved for one.
    measure : str or float
        What the target fixes: ``"mean"`` (the expected error) or a quantile of
        the absolute error.
    runs : int
        Sampling runs (for the exponential mechanism: databases) drawn from the
        population model.
    bounds : (float, float) or None
        The release's public bounds: the records are clipped to them (and
        they are the exponential mechanism's range); ``None``: no bounds.
    bounds_source : str or None
        Where the bounds come from, in words.
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The neighbouring relation of the planned release.
    worst_case_epsilon : float or None
        The most the release states for every pair of neighbours: for the
        exponential mechanism's plain scale, its epsilon (at the cap, where the
        cap is below epsilon: then also the guarantee's); for its sampled scale,
        the worst case of the largest scale the release may sample on its own
        pairs (at most 4 epsilon, and within the cap); for a sampled
        sensitivity over bounds, the cap its worst-case part stays within (the
        noise is raised to meet it). ``None`` without bounds or for a query
        with no worst case.
    """

    query: str
    population: str
    n: int
    mechanism: str
    epsilon: float
    delta: float
    gamma: float | None
    m: int | None
    k: int | None
    bound: str | None
    sensitivity: float | None
    sensitivities: tuple[float, ...] = field(repr=False)
    expected_error: float
    error_90: float
    target_error: float | None
    measure: str | float
    runs: int
    bounds: tuple[float, float] | None = None
    bounds_source: str | None = None
    neighbours: str = NEIGHBOURS
    worst_case_epsilon: float | None = None

    def __post_init__(self):
        # One discriminator: the exponential mechanism samples no sensitivity
        # and has bounds; its scale is sampled (gamma, m, k and bound given) or
        # plain (all None). Every other mechanism samples a sensitivity. A plan
        # built by hand cannot state random DP without a gamma, nor a
        # sensitivity for the exponential mechanism.
        NEIGHBOUR_RELATIONS.check("neighbours", self.neighbours)
        sampled = (self.gamma, self.m, self.k, self.bound, self.sensitivity)
        if not self.exponential and any(value is None for value in sampled):
            raise ValueError(
                f"a plan of the {self.mechanism} mechanism samples a sensitivity: "
                f"gamma, m, k, bound and sensitivity must be given, got {sampled!r}."
            )
        scale = sampled[:4]
        if self.exponential and (
            self.bounds is None
            or self.sensitivity is not None
            or len({value is None for value in scale}) != 1
        ):
            raise ValueError(
                "a plan of the exponential mechanism has bounds, samples no "
                "sensitivity, and its scale is sampled (gamma, m, k and bound "
                f"given) or plain (all None): got bounds={self.bounds!r}, "
                f"{sampled!r}."
            )
        self._check_numbers()

    def _check_numbers(self) -> None:
        """The numbers a plan prints and exports (strict JSON) are finite, its
        delta is one its mechanism takes, and it states a worst case only over
        bounds, as its mechanism can hold it."""
        EPSILON.check("epsilon", self.epsilon)
        if self.exponential and self.delta != 0.0:
            raise ValueError(
                "the exponential mechanism is pure epsilon-DP and takes no delta, "
                f"got delta={self.delta!r}."
            )
        if self.mechanism in NOISE_MODELS:
            _check_mechanism(self.mechanism, self.delta)
        for name in ("expected_error", "error_90"):
            check_real(name, getattr(self, name), low=0.0)
        if self.bounds is not None:
            check_bounds(self.bounds)
        worst = self.worst_case_epsilon
        if worst is None:
            return
        EPSILON.check("worst_case_epsilon", worst)
        if self.bounds is None:
            raise ValueError(
                "a plan without bounds has no worst case: worst_case_epsilon must "
                f"be None, got worst_case_epsilon={worst!r}."
            )
        if self.exponential and (worst > self.epsilon) != (self.gamma is not None):
            raise ValueError(
                "the exponential mechanism's worst case is its epsilon (or less, "
                "at a cap) for the plain scale, and above it for a sampled one: "
                f"got worst_case_epsilon={worst!r}, epsilon={self.epsilon!r}, "
                f"gamma={self.gamma!r}."
            )

    @property
    def exponential(self) -> bool:
        """Whether the release is the exponential quantile mechanism."""
        return self.mechanism == "exponential"

    @property
    def note(self) -> str:
        """What the plan did and did not touch, in words."""
        return ACCOUNTS_FOR_NOTHING

    @property
    def stated_epsilon(self) -> float:
        """The epsilon the release states and spends: :attr:`epsilon`, or the cap
        where the exponential mechanism's plain scale is held below it."""
        if self.gamma is None and self.worst_case_epsilon is not None:
            return min(self.epsilon, self.worst_case_epsilon)
        return self.epsilon

    @property
    def guarantee(self) -> str:
        """What the planned release will state, in words (as the release says it)."""
        dp = (
            f"{format_dp(self.stated_epsilon, self.delta)} for {self.neighbours} neighbours "
            f"({size_words(self.neighbours, self.n)})"
        )
        if self.gamma is None:
            return WORST_CASE_GUARANTEE.format(dp=dp)
        return GUARANTEE.format(dp=dp, gamma=format_upper(self.gamma, 4))

    @property
    def sampling_plan(self) -> str:
        """The sampling plan in words, or why there is none."""
        if self.gamma is None:
            return NO_SAMPLING_PLAN
        gamma = format_upper(self.gamma, 4)  # rounded up: never a smaller gamma
        what = ", of the exponential mechanism's scale" if self.exponential else ""
        return f"m={self.m}, k={self.k}, gamma={gamma} ({self.bound}){what}"

    @property
    def cap_words(self) -> str:
        """Where the release states less than :attr:`epsilon` (a quantile's cap
        below it), in words; else empty."""
        if self.stated_epsilon == self.epsilon:
            return ""
        return (
            f" (the plain mechanism at the cap: states and spends "
            f"{format_dp(self.stated_epsilon, 0.0)})"
        )

    @property
    def bounds_words(self) -> str | None:
        """The bounds and their source, in words (``None`` without bounds)."""
        if self.bounds is None:
            return None
        low, high = self.bounds
        return self.bounds_source or f"[{low:.6g}, {high:.6g}]"

    @property
    def worst_case(self) -> str | None:
        """What the release will state for every pair of neighbours, in words
        (``None`` where it states nothing)."""
        if self.worst_case_epsilon is None:
            return None
        if self.exponential and self.gamma is None:
            return f"{format_dp(self.worst_case_epsilon, 0.0)} for every pair of neighbours"
        if self.exponential:
            return (
                f"at most {format_dp(self.worst_case_epsilon, 0.0)} for every pair "
                "of neighbours (the largest scale the release may sample on its own "
                "pairs)"
            )
        return (
            f"at most {format_dp(self.worst_case_epsilon, self.delta)} for every pair "
            "of neighbours (the cap: the noise is raised to meet it)"
        )

    @property
    def error_meaning(self) -> str:
        """What the error is, in words."""
        return QUANTILE_ERROR_MEANING if self.exponential else ERROR_MEANING

    def to_dict(self) -> dict[str, Any]:
        """The plan in plain numbers and strings (JSON-friendly).

        Returns
        -------
        dict
            Every field but the per-run sensitivities (``None``, JSON null,
            where it does not apply), the guarantee, the worst case, the
            error's meaning, the sampling plan in words and :attr:`note`.
        """
        out = {
            name: getattr(self, name)
            for name in self.__dataclass_fields__
            if name != "sensitivities"
        }
        if self.bounds is not None:
            out["bounds"] = list(self.bounds)
        out["stated_epsilon"] = self.stated_epsilon
        out["guarantee"] = self.guarantee
        out["worst_case"] = self.worst_case
        out["sampling_plan"] = self.sampling_plan
        out["error"] = self.error_meaning
        out["note"] = self.note
        return out

    def text(self) -> str:
        """The plan for people, several lines.

        Returns
        -------
        str
        """
        dp = f"epsilon={format_upper(self.epsilon, 6)}" + (
            f", delta={format_upper(self.delta, 3)}" if self.delta else ""
        ) + self.cap_words
        target = (
            ""
            if self.target_error is None
            else f" (target {_measure_words(self.measure)} {self.target_error:.6g})"
        )
        floor = []
        if self.bounds is not None:
            floor.append(f"  bounds          {self.bounds_words}")
        if self.worst_case_epsilon is not None:
            floor.append(
                f"  worst case      {self.worst_case}"
            )
        if self.exponential:
            how = [
                *floor,
                f"  sampling plan   {self.sampling_plan}",
                f"  error law       exact on each of {self.runs} databases drawn "
                "from the population model",
            ]
        else:
            how = [
                f"  sampling plan   {self.sampling_plan}",
                f"  sensitivity     {self.sensitivity:.6g} (mean over {self.runs} "
                "sampling runs)",
                *floor,
            ]
        return "\n".join(
            [
                f"{self.query} of n={self.n} records, population {self.population}",
                f"  mechanism       {self.mechanism}, {dp}{target}",
                f"  guarantee       {self.guarantee}",
                f"  expected error  {self.expected_error:.6g}",
                f"  90% of errors   <= {self.error_90:.6g}",
                *how,
                f"  {self.error_meaning}",
                f"  {self.note}",
            ]
        )

    def __str__(self):
        return self.text()

    def _repr_html_(self) -> str:
        return plan_html(self)


def _measure_words(measure) -> str:
    return "expected error" if measure == "mean" else f"{100 * measure:g}% error"


def _quantile_of_error(sf, q, start) -> float:
    """The ``q``-quantile of an error of survival function ``sf``: the root of
    ``sf(t) = 1 - q``, bracketed by doubling ``start``; ``inf`` where it lies
    beyond the largest double (a noise scale near it)."""
    hi = start or 1.0
    while sf(hi) > 1.0 - q:
        if hi > sys.float_info.max / 2.0:
            return math.inf
        hi *= 2.0
    return optimize.brentq(
        lambda t: sf(t) - (1.0 - q), 0.0, hi, xtol=1e-14, rtol=1e-12
    )


def _error_quantile(model, q, epsilon, delta, sensitivities) -> float:
    """The ``q``-quantile of the absolute noise of ``model``."""
    if not np.any(np.asarray(sensitivities) > 0.0):
        return 0.0
    return _quantile_of_error(
        lambda t: model.error_sf(t, epsilon, delta, sensitivities),
        q,
        model.mean_error(epsilon, delta, np.max(sensitivities)),
    )


def _error(model, measure, epsilon, delta, sensitivities) -> float:
    if measure == "mean":
        return model.mean_error(epsilon, delta, sensitivities)
    return _error_quantile(model, measure, epsilon, delta, sensitivities)


def _floored(model, epsilon, delta, sensitivities, worst, cap) -> np.ndarray:
    r"""Each run's sensitivity, raised so that the noise meets the release's floor.

    A release with a worst-case sensitivity :math:`\Delta_{wc}` (records
    clipped to bounds) raises its noise scale to
    :math:`\Delta_{wc}\,s(\epsilon_{cap}, \delta)`, the scale at which its
    worst case is :math:`\epsilon_{cap}`-DP (``cap``, by default 10 epsilon as
    :func:`~sensampler.mechanisms._base.check_worst_case_epsilon` reads it;
    :func:`~sensampler.mechanisms.laplace.floored_laplace_scale`, and
    :class:`~sensampler.mechanisms.GaussianMechanism` with the analytic sigma).
    In units of :math:`s(\epsilon, \delta)`, a run's scale is then that of the
    sensitivity :math:`\max(\Delta_r, \Delta_{wc}\,s(\epsilon_{cap},
    \delta) / s(\epsilon, \delta))`. Without a worst case, unchanged.
    """
    values = np.asarray(sensitivities, dtype=float)
    if worst is None:
        return values
    cap = check_worst_case_epsilon(cap, epsilon)
    floor = worst * model.unit_scale(cap, delta) / model.unit_scale(epsilon, delta)
    return np.maximum(values, floor)


def _scales(model, epsilon, delta, sensitivities) -> np.ndarray:
    """Every run's noise scale (``inf`` where it overflows)."""
    with np.errstate(over="ignore"):
        return np.asarray(sensitivities) * model.unit_scale(epsilon, delta)


def _quantile_error(model: QuantileErrorModel, measure, epsilon) -> float:
    if measure == "mean":
        return model.mean_error(epsilon)
    return model.error_quantile(measure, epsilon)


def _epsilon_for(error, target, cap=None) -> float:
    """The epsilon whose error (``error(epsilon)``) is ``target``: the error
    decreases in epsilon, so a root finder on log epsilon brackets it.

    Where the error steps down past the target (a quantile's sampled scale
    takes one of fixed values), the root is the step, and the epsilon returned
    is just past it: its error is at most the target. ``error`` is ``inf``
    where the noise overflows (the release refuses it). ``cap``: a fixed
    worst-case cap that puts a floor under the error, named where a target
    lies below it."""
    low, high = math.log(EPSILON_RANGE[0]), math.log(EPSILON_RANGE[1])

    def gap(log_eps):
        value = error(math.exp(log_eps))
        # an overflowing noise misses any target: a finite gap keeps brentq exact
        return math.log(value) - math.log(target) if value < math.inf else 1e3

    if gap(high) > 0.0 and cap is not None:
        raise ValueError(
            f"target_error={target!r} is below the error the cap "
            f"worst_case_epsilon={cap!r} allows at any epsilon (the noise is held "
            f"at or above the cap's floor: {error(EPSILON_RANGE[1]):.3g} at "
            f"epsilon={EPSILON_RANGE[1]:g}); raise worst_case_epsilon or choose "
            "another target."
        )
    if gap(high) > 0.0 or gap(low) < 0.0:
        # a quantile's error has a floor (the records' spacing) and a ceiling
        # (the bounds): say where the reachable targets lie
        raise ValueError(
            f"target_error={target!r} needs an epsilon outside "
            f"[{EPSILON_RANGE[0]:g}, {EPSILON_RANGE[1]:g}] for this query and "
            f"population (the error there goes from {error(EPSILON_RANGE[0]):.3g} "
            f"to {error(EPSILON_RANGE[1]):.3g}); choose another target."
        )
    root = optimize.brentq(gap, low, high, xtol=1e-13, rtol=1e-13)
    for step in (0.0, 1e-12, 1e-11, 1e-10, 1e-9):  # past a step, if the root is one
        if gap(root + step) <= 0.0:
            return math.exp(root + step)
    return math.exp(root + 1e-9)


#: The epsilons a plan may return.
EPSILON_RANGE = (1e-6, 1e6)


def _check_measure(measure):
    if measure == "mean":
        return measure
    if isinstance(measure, str):
        raise ValueError(
            f"measure must be 'mean' or a probability in (0, 1), got measure={measure!r}."
        )
    return check_probability("measure", measure)


def _check_mechanism(mechanism, delta):
    if isinstance(mechanism, NoiseModel):
        model = mechanism
    elif isinstance(mechanism, str) and mechanism in NOISE_MODELS:
        model = NOISE_MODELS[mechanism]
    else:
        names = ", ".join(repr(name) for name in NOISE_MODELS)
        raise ValueError(
            f"mechanism must be one of {names} or a NoiseModel, got "
            f"mechanism={mechanism!r}."
        )
    delta = DELTA_RELEASE.check("delta", delta)
    if model.needs_delta and delta == 0.0:
        raise ValueError(f"mechanism={model.name!r} needs delta > 0, got delta=0.0.")
    if not model.needs_delta and delta != 0.0:
        raise ValueError(
            f"mechanism={model.name!r} is pure epsilon-DP and takes no delta, got "
            f"delta={delta!r}."
        )
    return model, delta


def _public_bounds(bounds):
    """``bounds`` as :func:`~sensampler.app.release.quantile_bounds` takes them,
    checked: ``"auto"``, or a (low, high) pair (from ``"LOW:HIGH"``); private
    bounds and anything else are refused, naming ``bounds``."""
    if not isinstance(bounds, str):
        return check_bounds(bounds)
    text = bounds.strip()
    if text == DEFAULT_BOUNDS:
        return text
    if text.startswith("private:"):
        raise ValueError(
            f"bounds={bounds!r} are estimated from the private data, which a plan "
            "never reads: give public bounds ('auto' or 'LOW:HIGH')."
        )
    try:
        low, high = (float(part) for part in text.split(":"))
    except ValueError:
        raise ValueError(
            "bounds must be 'auto', 'LOW:HIGH', a (low, high) pair or None (a plan "
            f"reads no private data), got bounds={bounds!r}."
        ) from None
    try:
        return check_bounds((low, high))
    except ValueError as exc:
        raise ValueError(f"{str(exc).rstrip('.')} (bounds={bounds!r}).") from None


def _bounds_from(population, bounds) -> tuple[float, float, str]:
    """:func:`~sensampler.app.release.quantile_bounds` of checked public ``bounds``;
    a population model that gives ``"auto"`` no width is refused without
    offering private bounds, which a plan refuses."""
    try:
        return quantile_bounds(population, bounds)
    except ValueError as exc:
        if bounds != DEFAULT_BOUNDS:
            raise
        detail = str(exc).split("; give")[0]
        raise ValueError(
            f"bounds='auto': {detail}; give public bounds ('LOW:HIGH') or None "
            "(a plan reads no private data)."
        ) from None


def _check_floor(query, bounds, n, neighbours, model, delta, epsilon, cap) -> None:
    r"""Refuse, before drawing, a worst-case floor whose noise scale overflows, as
    the release refuses it (:func:`~sensampler.mechanisms._base.check_noise_scale`):
    the floor :math:`\Delta_{wc}\,s(\epsilon_{cap}, \delta)` of a given cap (or of
    the default one at a given epsilon) does not depend on the sampling runs."""
    worst = worst_case_sensitivity(
        query, Bounds.given(*bounds), n, neighbours,
        RELEASE_MECHANISMS.get(model.name, "l1"),
    )
    if worst is None or (cap is None and epsilon is None):
        return
    name, value = (
        ("worst_case_epsilon", cap) if cap is not None else ("epsilon", epsilon)
    )
    cap = check_worst_case_epsilon(cap, epsilon)
    check_noise_scale(
        worst * model.unit_scale(cap, delta), f"worst_case={worst!r}, {name}={value!r}"
    )


def _population(population, column):
    name = population if isinstance(population, str) else repr(population)
    if isinstance(population, str):
        population = load_population(population, column=column)
    return as_distribution(population), name


def plan_release(
    query,
    population,
    n: int,
    *,
    target_error: float | None = None,
    epsilon: float | None = None,
    delta: float = 0.0,
    gamma: float = 0.05,
    mechanism: str | NoiseModel = "laplace",
    measure: str | float = "mean",
    bound: str = "exact",
    column: str | None = None,
    runs: int = 200,
    random_state=None,
    n_jobs: int | None = None,
    bounds=DEFAULT_BOUNDS,
    neighbours: str = NEIGHBOURS,
    worst_case_epsilon: float | None = None,
) -> ReleasePlan:
    r"""The epsilon a target error needs, or the error an epsilon gives.

    From the population model alone: ``runs`` sampling runs of the query's
    sensitivity on ``n`` records drawn from ``population`` (as
    :func:`~sensampler.app.release.release_statistic` draws one), and the law of
    the mechanism's noise with each. It reads no private data and accounts for
    nothing: nothing is spent, released or recorded.

    Parameters
    ----------
    query : str, Query or callable
        The query, as :func:`~sensampler.app.release.release_statistic` takes it.
    population : Distribution or str
        The population model (or its spec, see
        :func:`~sensampler.app.release.load_population`).
    n : int
        Records of the data to be released, ``1 <= n <= MAX_N``.
    target_error : float, optional
        The error wanted, ``> 0``; the plan returns the epsilon that gives it.
    epsilon : float, optional
        The epsilon of the release, ``> 0``; the plan returns its error. Give
        exactly one of ``target_error`` and ``epsilon``.
    delta : float, default 0
        The release's delta (``> 0`` for ``"gaussian"`` only).
    gamma : float, default 0.05
        Random-DP failure probability of the sampling plan.
    mechanism : {"laplace", "gaussian"} or NoiseModel, default "laplace"
        The mechanism the release will use for a query that samples a
        sensitivity. A quantile query (``median``, ``quantile:Q``) is planned
        with the exponential mechanism, as the release answers it
        (:func:`~sensampler.mechanisms.choice.quantile_level_of`), whatever this says.
    measure : "mean" or float, default "mean"
        What ``target_error`` fixes: the expected absolute error, or the
        ``measure``-quantile of the absolute error (``0.9``: 90% of releases
        are closer).
    bound : {"exact", "exchangeable", "dkw"}, default "exact"
        The sampling plan's bound.
    column : str, optional
        The column of a ``bootstrap:FILE`` population.
    runs : int, default 200
        Sampling runs drawn from the population model (for a quantile query:
        databases of ``n`` records, on which the error's law is exact).
    random_state : None, int, SeedSequence or Generator
        Seeds the sampling runs (run i uses child i).
    n_jobs : int, optional
        Workers of the sampler.
    bounds : "auto", "LOW:HIGH", (low, high), Bounds or None, default "auto"
        The release's public bounds, as
        :func:`~sensampler.app.release.release_statistic` takes them
        (:func:`~sensampler.app.release.quantile_bounds`; private bounds are
        refused: a plan reads no private data): the sampling runs clip their
        records to them, and the noise has the release's worst-case floor; a
        quantile query is planned with the exponential mechanism over them.
        ``None``: no bounds (random DP only; a quantile is then planned like
        any statistic, as the release answers it).
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The neighbouring relation of the release, as
        :func:`~sensampler.app.release.release_statistic` takes it: the sampling
        runs draw add/remove pairs (D of n - 1 records and D with one record
        added; ``n >= 2``), and a quantile query's utility moves by
        max(q, 1 - q) instead of 1 (:class:`QuantileErrorModel`).
    worst_case_epsilon : float, optional
        The release's cap on its worst-case epsilon, as
        :func:`~sensampler.app.release.release_statistic` takes it (default 10
        times epsilon; a quantile's scale keeps within 4 times): with bounds,
        each run's noise is raised to the floor that meets it, as the
        release's is. A fixed cap puts a floor under the error, which a target
        below it cannot reach.

    Returns
    -------
    ReleasePlan
        ``.epsilon``, ``.expected_error``, ``.error_90``, the sampling plan
        (``.m``, ``.k``, ``.gamma``), the bounds, the worst case and the
        mechanism.

    Notes
    -----
    The error is the noise only, :math:`|M(D) - f(D)|`. A mechanism adding
    :math:`\Delta\,s(\epsilon,\delta)\,Z` has, over the runs' sensitivities
    :math:`\Delta_1, \dots, \Delta_R` (each raised to the worst-case floor,
    :func:`_floored`), the expected error
    :math:`s(\epsilon,\delta)\,E|Z|\,\frac1R\sum_r \Delta_r` and the tail
    :math:`P[|\mathrm{error}| > t] = \frac1R \sum_r P[|Z| > t / (\Delta_r
    s(\epsilon, \delta))]`. For Laplace, :math:`s = 1/\epsilon` and
    :math:`|Z| \sim \mathrm{Exp}(1)` (Dwork & Roth 2014, Thm. 3.6), so the
    epsilon of a target expected error :math:`e` is :math:`\bar\Delta / e`.
    The sampled sensitivity :math:`G_{(k)}` varies from run to run, which is why
    the plan averages over runs rather than reading one.

    Examples
    --------
    >>> from sensampler.distributions import GaussianMixture
    >>> heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
    >>> plan = plan_release("mean", heights, 500, target_error=0.1, random_state=0)
    >>> round(plan.expected_error, 6)
    0.1
    >>> plan.m, plan.k
    (113, 113)
    """
    return prepare_plan(
        query,
        population,
        n,
        target_error=target_error,
        epsilon=epsilon,
        delta=delta,
        gamma=gamma,
        mechanism=mechanism,
        measure=measure,
        bound=bound,
        column=column,
        runs=runs,
        random_state=random_state,
        n_jobs=n_jobs,
        bounds=bounds,
        neighbours=neighbours,
        worst_case_epsilon=worst_case_epsilon,
    ).run()


@dataclass(frozen=True)
class PreparedPlan:
    """A release plan whose inputs are all checked; :meth:`run` draws and solves.

    Built by :func:`prepare_plan`; nothing has been drawn yet.

    Parameters
    ----------
    query : Query or callable
        The query, parsed.
    name : str
        Its name.
    population : Distribution
        The population model, loaded.
    population_name : str
        The population model, in words.
    n : int
        Records of the data to be released.
    model : NoiseModel
        The mechanism's noise.
    target_error, epsilon : float or None
        One of them is given (see :func:`plan_release`).
    delta, gamma : float
        The release's delta and the sampling plan's gamma.
    measure : str or float
        What ``target_error`` fixes.
    bound : str
        The sampling plan's bound.
    runs : int
        Sampling runs to draw.
    root : numpy.random.SeedSequence
        Seeds the sampling runs (run i uses child i).
    n_jobs : int or None
        Workers of the sampler.
    level : float or None
        The quantile level of a query the release answers by the exponential
        mechanism (:func:`~sensampler.mechanisms.choice.quantile_level_of`, over bounds),
        else None.
    bounds : (float, float) or None
        The release's public bounds (the records are clipped to them; the
        exponential mechanism's range), or None.
    bounds_source : str or None
        Where they come from, in words.
    neighbours : {"replace-one", "add-remove"}
        The release's neighbouring relation.
    worst_case_epsilon : float or None
        The release's cap on its worst-case epsilon, as given.
    """

    query: Any
    name: str
    population: Any
    population_name: str
    n: int
    model: NoiseModel
    target_error: float | None
    epsilon: float | None
    delta: float
    gamma: float
    measure: str | float
    bound: str
    runs: int
    root: np.random.SeedSequence
    n_jobs: int | None
    level: float | None = None
    bounds: tuple[float, float] | None = None
    bounds_source: str | None = None
    neighbours: str = NEIGHBOURS
    worst_case_epsilon: float | None = None

    def run(self) -> ReleasePlan:
        """Draw the sampling runs (or databases) and solve for epsilon (or the error).

        Returns
        -------
        ReleasePlan
        """
        if self.level is not None:
            return self._run_quantile()
        model = self.model
        norm = RELEASE_MECHANISMS.get(model.name, "l1")
        bounds = None if self.bounds is None else Bounds.given(*self.bounds)
        estimates = [
            sampling_run(self, self.query, self.n, norm, bounds, i)
            for i in range(self.runs)
        ]
        sensitivities = tuple(
            float(np.max(estimate.sensitivity.value)) for estimate in estimates
        )
        # the same for every run: the query, the bounds and n fix it
        worst = estimates[0].worst_case
        if not any(s > 0.0 for s in sensitivities) and not worst:
            raise ValueError(
                f"every sampled sensitivity of {self.name} on the population is 0: "
                "its noise would be 0 at any epsilon, so no error can be planned."
            )
        epsilon, delta = self.epsilon, self.delta
        cap = self.worst_case_epsilon

        def floored(eps):
            return _floored(model, eps, delta, sensitivities, worst, cap)

        def error(eps):
            values = floored(eps)
            if not drawable(_scales(model, eps, delta, values)):
                return math.inf  # the release refuses it: no target is met there
            return _error(model, self.measure, eps, delta, values)

        if self.target_error is not None:
            epsilon = _epsilon_for(
                error, self.target_error, None if worst is None else cap
            )
        values = floored(epsilon)
        check_noise_scale(  # refused, as the release refuses it
            _scales(model, epsilon, delta, values),
            f"the sampled sensitivities (up to {max(sensitivities)!r}), "
            f"epsilon={epsilon!r}",
        )
        errors = (
            model.mean_error(epsilon, delta, values),
            _error_quantile(model, 0.9, epsilon, delta, values),
        )
        if not all(math.isfinite(value) for value in errors):
            raise ValueError(
                f"the error at epsilon={epsilon!r} overflows a double (a noise scale "
                f"of {float(np.max(values)) * model.unit_scale(epsilon, delta):.3g}): "
                "narrow the bounds or raise epsilon."
            )
        plan = sampling_plan(gamma=self.gamma, bound=self.bound)
        return ReleasePlan(
            query=self.name,
            population=self.population_name,
            n=self.n,
            mechanism=model.name,
            epsilon=float(epsilon),
            delta=delta,
            gamma=plan.gamma,
            m=plan.m,
            k=plan.k,
            bound=plan.bound,
            sensitivity=float(np.mean(sensitivities)),
            sensitivities=sensitivities,
            expected_error=errors[0],
            error_90=errors[1],
            target_error=self.target_error,
            measure=self.measure,
            runs=self.runs,
            bounds=self.bounds,
            bounds_source=self.bounds_source,
            neighbours=self.neighbours,
            worst_case_epsilon=None if worst is None else check_worst_case_epsilon(
                cap, epsilon
            ),
        )

    def _run_quantile(self) -> ReleasePlan:
        """The plan of a quantile query: the exponential mechanism's exact error
        law on databases drawn from the population (:class:`QuantileErrorModel`)."""
        losses = SampledLosses(
            self.level, self.bounds, self.population, self.n, gamma=self.gamma,
            bound=self.bound, neighbours=self.neighbours,
            random_state=child_seed(self.root, self.runs),  # apart from the databases
        )
        model = QuantileErrorModel.draw(
            self.query, self.level, self.bounds, self.population, self.n,
            self.runs, self.root, self.neighbours, losses, self.worst_case_epsilon,
        )
        epsilon = self.epsilon
        if self.target_error is not None:
            epsilon = _epsilon_for(
                lambda eps: _quantile_error(model, self.measure, eps),
                self.target_error,
                self.worst_case_epsilon,
            )
        mech = model.mechanism(epsilon)
        run = None if mech.calibration is None else mech.calibration.run
        return ReleasePlan(
            query=self.name,
            population=self.population_name,
            n=self.n,
            mechanism="exponential",
            epsilon=float(epsilon),
            delta=0.0,
            gamma=None if run is None else run.gamma,
            m=None if run is None else run.m,
            k=None if run is None else run.k,
            bound=None if run is None else run.bound,
            sensitivity=None,
            worst_case_epsilon=model.largest_worst_case(epsilon),
            sensitivities=(),
            expected_error=model.mean_error(epsilon),
            error_90=model.error_quantile(0.9, epsilon),
            target_error=self.target_error,
            measure=self.measure,
            runs=self.runs,
            bounds=self.bounds,
            bounds_source=self.bounds_source,
            neighbours=self.neighbours,
        )


def prepare_plan(
    query,
    population,
    n: int,
    *,
    target_error: float | None = None,
    epsilon: float | None = None,
    delta: float = 0.0,
    gamma: float = 0.05,
    mechanism: str | NoiseModel = "laplace",
    measure: str | float = "mean",
    bound: str = "exact",
    column: str | None = None,
    runs: int = 200,
    random_state=None,
    n_jobs: int | None = None,
    bounds=DEFAULT_BOUNDS,
    neighbours: str = NEIGHBOURS,
    worst_case_epsilon: float | None = None,
) -> PreparedPlan:
    """Check every input of :func:`plan_release` and load the population; draw nothing.

    Parameters
    ----------
    query, population, n, target_error, epsilon, delta, gamma, mechanism, measure, \
bound, column, runs, random_state, n_jobs, bounds, neighbours, worst_case_epsilon
        As in :func:`plan_release`.

    Returns
    -------
    PreparedPlan
        ``.run()`` gives the :class:`ReleasePlan`.
    """
    model, delta = _check_mechanism(mechanism, delta)
    if (target_error is None) == (epsilon is None):
        raise ValueError(
            "give exactly one of target_error and epsilon, got "
            f"target_error={target_error!r}, epsilon={epsilon!r}."
        )
    if target_error is not None:
        target_error = check_real(
            "target_error", target_error, low=0.0, low_strict=True
        )
    else:
        epsilon = EPSILON.check("epsilon", epsilon)
        model.unit_scale(epsilon, delta)  # the calibration itself, checked
    measure = _check_measure(measure)
    n = check_count("n", n)
    if n > MAX_N:
        raise ValueError(f"n must be <= MAX_N={MAX_N}, got n={n}.")
    neighbours = check_neighbours(neighbours, n)
    runs = check_count("runs", runs)
    check_n_jobs(n_jobs)
    sampling_plan(gamma=gamma, bound=bound)
    name = (
        query.strip()
        if isinstance(query, str)
        else getattr(query, "name", getattr(query, "__name__", "query"))
    )
    query = as_query(parse_query(query) if isinstance(query, str) else query)
    if worst_case_epsilon is not None:
        worst_case_epsilon = EPSILON.check("worst_case_epsilon", worst_case_epsilon)
    if bounds is not None:
        bounds = _public_bounds(bounds)
    population, population_name = _population(population, column)
    source = None
    if bounds is not None:
        *bounds, source = _bounds_from(population, bounds)
    # the release's rule: a quantile over bounds is the exponential mechanism
    level = None if bounds is None else quantile_level_of(query)
    if level is None and bounds is not None:
        _check_floor(query, bounds, n, neighbours, model, delta, epsilon,
                     worst_case_epsilon)
    return PreparedPlan(
        query=query,
        name=str(name),
        population=population,
        population_name=population_name,
        n=n,
        model=model,
        target_error=target_error,
        epsilon=epsilon,
        delta=delta,
        gamma=gamma,
        measure=measure,
        bound=bound,
        runs=runs,
        root=as_seed_sequence(random_state),
        n_jobs=n_jobs,
        level=level,
        bounds=None if bounds is None else tuple(bounds),
        bounds_source=source,
        neighbours=neighbours,
        worst_case_epsilon=worst_case_epsilon,
    )
