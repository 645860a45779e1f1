r"""The accuracy of a mechanism's noise: the law of ``|M(D) - f(D)|``.

What a release's error will be, before it is drawn: the expected absolute
error, its quantiles and its survival function, for the mechanisms a release
uses. OpenDP keeps the same models in its core (``opendp.accuracy``:
``laplacian_scale_to_accuracy``, ``gaussian_scale_to_accuracy``); here they take
the sampled sensitivities of a sensitivity sampler, one per sampling run, as
:func:`sensampler.app.planning.plan_release` draws them, and the exponential
quantile mechanism's exact output law.

- :class:`NoiseModel`: a mechanism that adds :math:`\Delta\,s(\epsilon,
  \delta)\,Z` to the answer (Laplace, the analytic Gaussian: :data:`NOISE_MODELS`),
  over sampled sensitivities :math:`\Delta_1, \dots, \Delta_R` equally likely.
- :class:`QuantileErrorModel`: the exponential quantile mechanism over public
  bounds, whose error does not scale with a sensitivity; its law is exact on
  each of ``runs`` databases drawn from the population model.
- :func:`quantile_error_bound`: the half-width that holds a released quantile's
  error with a given probability, from a mechanism's own output law on public
  databases (a release's accuracy figure).

The error is the noise only: the distance between the private release and the
exact answer on the same data, not the distance to a population parameter.

Examples
--------
>>> from sensampler.mechanisms.accuracy import NOISE_MODELS
>>> laplace = NOISE_MODELS["laplace"]
>>> laplace.mean_error(0.5, 0.0, [1.0, 3.0])  # E|Lap(Delta / eps)| = Delta / eps
4.0
>>> round(laplace.error_quantile(0.9, 1.0, 0.0, [1.0]), 6)  # b log 10
2.302585
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from .._lib.domains import DELTA_RELEASE
from .._lib.validation import check_probability
from ..parallel import child_seed
from ..privacy import NEIGHBOURS
from ..quantile_calibration import SampledLosses, candidate_scales
from .gaussian import GaussianMechanism
from .quantile import ExponentialQuantileMechanism, QuantileCalibration

__all__ = [
    "NOISE_MODELS",
    "NoiseModel",
    "QuantileErrorModel",
    "check_measure",
    "gaussian_unit_scale",
    "laplace_unit_scale",
    "quantile_error_bound",
]


def laplace_unit_scale(epsilon: float, delta: float = 0.0) -> float:
    r"""The Laplace mechanism's scale for a sensitivity of 1: :math:`1/\epsilon`.

    Laplace noise of scale :math:`b = \Delta_1/\epsilon` is epsilon-DP for an
    L1 sensitivity :math:`\Delta_1` (Dwork & Roth 2014, Thm. 3.6).

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    delta : float, default 0
        Unused (pure epsilon-DP): the signature every noise model's scale has.

    Returns
    -------
    float
    """
    return 1.0 / epsilon


def gaussian_unit_scale(epsilon: float, delta: float) -> float:
    """The analytic Gaussian mechanism's sigma for a sensitivity of 1.

    The smallest sigma whose Gaussian noise is (epsilon, delta)-DP for an L2
    sensitivity of 1 (Balle & Wang 2018, Thm. 8), as the release calibrates it
    (:class:`~sensampler.mechanisms.GaussianMechanism`).

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    delta : float
        ``0 < delta < 1``.

    Returns
    -------
    float
    """
    return GaussianMechanism(1.0, epsilon, delta).sigma


def check_measure(measure) -> str | float:
    """What a target error fixes, checked: ``"mean"`` or a probability in (0, 1).

    Parameters
    ----------
    measure : "mean" or float
        The expected absolute error, or that quantile of the absolute error.

    Returns
    -------
    "mean" or float
    """
    if measure == "mean":
        return measure
    if isinstance(measure, str):
        raise ValueError(
            f"measure must be 'mean' or a probability in (0, 1), got measure={measure!r}."
        )
    return check_probability("measure", measure)


def _quantile_of_error(sf, q, start) -> float:
    """The ``q``-quantile of an error of survival function ``sf``: the root of
    ``sf(t) = 1 - q``, bracketed by doubling ``start``; ``inf`` where it lies
    beyond the largest double (a noise scale near it)."""
    hi = start or 1.0
    while sf(hi) > 1.0 - q:
        if hi > sys.float_info.max / 2.0:
            return math.inf
        hi *= 2.0
    from scipy import optimize  # here: the command line's parser imports NOISE_MODELS

    return optimize.brentq(
        lambda t: sf(t) - (1.0 - q), 0.0, hi, xtol=1e-14, rtol=1e-12
    )


@dataclass(frozen=True)
class NoiseModel:
    r"""The absolute noise of a mechanism calibrated with a sensitivity.

    The mechanism adds :math:`\Delta \, s(\epsilon, \delta) \, Z` to the answer,
    where :math:`\Delta` is the sensitivity, ``unit_scale`` gives
    :math:`s(\epsilon, \delta)` and :math:`Z` is a fixed unit noise. Over
    sampled sensitivities :math:`\Delta_1, \dots, \Delta_R`, equally likely
    (one per sampling run), the error :math:`|M(D) - f(D)|` is the mixture

    .. math::

        E|M(D) - f(D)| = s(\epsilon, \delta)\,E|Z|\,\frac1R \sum_r \Delta_r,
        \qquad
        P[|M(D) - f(D)| > t] = \frac1R \sum_r P[|Z| > t / (\Delta_r\,
        s(\epsilon, \delta))].

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

    Examples
    --------
    >>> gaussian = NOISE_MODELS["gaussian"]
    >>> round(gaussian.mean_error(1.0, 1e-6, [1.0]), 4)  # sigma sqrt(2 / pi)
    3.3708
    """

    name: str
    unit_scale: Callable[[float, float], float]
    unit_mean: float
    unit_sf: Callable[[np.ndarray], np.ndarray]
    needs_delta: bool

    def check_delta(self, delta: float) -> float:
        """``delta``, checked: ``> 0`` where the mechanism takes one, else 0.

        Parameters
        ----------
        delta : float
            The release's delta.

        Returns
        -------
        float
        """
        delta = DELTA_RELEASE.check("delta", delta)
        if self.needs_delta and delta == 0.0:
            raise ValueError(f"mechanism={self.name!r} needs delta > 0, got delta=0.0.")
        if not self.needs_delta and delta != 0.0:
            raise ValueError(
                f"mechanism={self.name!r} is pure epsilon-DP and takes no delta, got "
                f"delta={delta!r}."
            )
        return delta

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

    def error_quantile(self, q: float, epsilon: float, delta: float, sensitivities) -> float:
        """The ``q``-quantile of the absolute error: the root of ``error_sf = 1 - q``.

        Parameters
        ----------
        q : float
            In (0, 1).
        epsilon, delta : float
            The release's privacy parameters.
        sensitivities : array-like of float
            One sampled sensitivity per run, equally likely.

        Returns
        -------
        float
            0 where every sensitivity is 0; ``inf`` beyond the largest double.
        """
        if not np.any(np.asarray(sensitivities) > 0.0):
            return 0.0
        return _quantile_of_error(
            lambda t: self.error_sf(t, epsilon, delta, sensitivities),
            q,
            self.mean_error(epsilon, delta, np.max(sensitivities)),
        )

    def error(self, measure, epsilon: float, delta: float, sensitivities) -> float:
        """The error a target fixes: the mean, or the ``measure``-quantile.

        Parameters
        ----------
        measure : "mean" or float
            See :func:`check_measure`.
        epsilon, delta : float
            The release's privacy parameters.
        sensitivities : array-like of float
            One sampled sensitivity per run, equally likely.

        Returns
        -------
        float
        """
        if measure == "mean":
            return self.mean_error(epsilon, delta, sensitivities)
        return self.error_quantile(measure, epsilon, delta, sensitivities)


def _gaussian_tail(t):
    """P[|Z| > t] for Z ~ N(0, 1): 2 P[Z > t] = erfc(t / sqrt 2)."""
    from scipy import special  # here: the command line's parser imports NOISE_MODELS

    return special.erfc(np.asarray(t) / math.sqrt(2.0))


#: The noise models of the mechanisms a release uses today, by name.
NOISE_MODELS = {
    # |Laplace(0, 1)| is Exponential(1): E|Z| = 1, P[|Z| > t] = exp(-t).
    "laplace": NoiseModel(
        "laplace", laplace_unit_scale, 1.0, lambda t: np.exp(-np.asarray(t)), False
    ),
    # |N(0, 1)|: E|Z| = sqrt(2 / pi), P[|Z| > t] = 2 P[Z > t] = erfc(t / sqrt 2).
    "gaussian": NoiseModel(
        "gaussian",
        gaussian_unit_scale,
        math.sqrt(2.0 / math.pi),
        _gaussian_tail,
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

    def error(self, measure, epsilon: float) -> float:
        """The error a target fixes: the mean, or the ``measure``-quantile.

        Parameters
        ----------
        measure : "mean" or float
            See :func:`check_measure`.
        epsilon : float
            ``> 0``.

        Returns
        -------
        float
        """
        if measure == "mean":
            return self.mean_error(epsilon)
        return self.error_quantile(measure, epsilon)


def quantile_error_bound(
    mechanism: ExponentialQuantileMechanism,
    databases,
    answers,
    level: float = 0.9,
) -> float:
    r"""The smallest h with :math:`P[\lvert M(D) - x_D\rvert \le h] \ge` ``level``.

    The exponential mechanism for a quantile (McSherry & Talwar 2007; Smith
    2011, Sec. 3, on a public grid) outputs the grid point :math:`t_j` with the
    probability :math:`p_j` of its own law
    (:meth:`~sensampler.mechanisms.ExponentialQuantileMechanism.output_law`),
    so on a database D with exact quantile :math:`x_D` the absolute error
    :math:`\lvert t_j - x_D\rvert` has a discrete law known exactly. With the
    databases equally likely, the error's law is their mixture, and h is its
    ``level``-quantile: the released quantile lies in :math:`[x_D - h, x_D +
    h]` with probability at least ``level`` (over the mechanism and the
    databases), and below h with probability at most ``level``.

    The databases must be public (drawn from the population model, or a public
    sample): on the private data the figure would itself release them.

    Parameters
    ----------
    mechanism : ExponentialQuantileMechanism
        The mechanism as released (its bounds, grid, scale).
    databases : sequence of array_like
        Public databases, each a 1-d column of the release's n records.
    answers : sequence of float
        The query's exact answer :math:`x_D` on each database.
    level : float, default 0.9
        In (0, 1).

    Returns
    -------
    float
        In the data's units.

    Examples
    --------
    >>> from sensampler.mechanisms import ExponentialQuantileMechanism
    >>> mech = ExponentialQuantileMechanism(0.5, (0, 1), epsilon=1.0)
    >>> data = np.linspace(0.0, 1.0, 101)
    >>> 0.0 < quantile_error_bound(mech, [data], [0.5]) < 0.1
    True
    """
    level = check_probability("level", level)
    databases = list(databases)
    if not databases:
        raise ValueError("databases must hold at least one public database, got none.")
    errors, chances = [], []
    for data, answer in zip(databases, answers, strict=True):
        grid, probabilities = mechanism.output_law(data)
        errors.append(np.abs(grid - float(answer)))
        chances.append(probabilities / len(databases))
    errors, chances = np.concatenate(errors), np.concatenate(chances)
    order = np.argsort(errors, kind="stable")
    cumulative = np.cumsum(chances[order])
    at = min(int(np.searchsorted(cumulative, level * cumulative[-1])), order.size - 1)
    return float(errors[order[at]])

