"""Running a prepared release: the private bounds' pre-pass, each query's
mechanism (a sampled sensitivity, or the exponential mechanism of a quantile),
the spend and the draw."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ... import distributions
from ..._display.figures import noise_half_width
from ..._lib import printing
from ...bounds import Bounds, private_bounds, worst_case_sensitivity
from ...mechanisms import GaussianMechanism, LaplaceMechanism, analytic_gaussian_sigma
from ...mechanisms.accuracy import quantile_error_bound
from ...mechanisms.choice import build_mechanism, quantile_level_of, quantile_mechanism
from ...mechanisms.quantile import QuantileCalibration, utility_sensitivity
from ...parallel import child_seed
from ...privacy import PrivacyStatement, format_dp
from ...quantile_calibration import calibrate_quantile, candidate_scales, plain_scale
from ...sampler import sample_sensitivity
from ...settings import ReleaseSettings
from ._records import QuantileRelease, Release
from ._spending import budgets, spend_then
from ._units import cap_bias

__all__ = [
    "PRIVATE_BOUNDS",
    "Calibrated",
    "PreparedRelease",
    "calibrated_mechanism",
    "exact_answers",
    "needs_private_bounds",
    "samples_a_scale",
    "sampling_run",
]

#: The statement of a private-bounds pre-pass, by its epsilon (see
#: :func:`sensampler.bounds.private_bounds`).
PRIVATE_BOUNDS = "private bounds (exponential mechanism, 2 quantiles)"

#: Public databases drawn from the population model for a quantile's accuracy
#: figure (:func:`~sensampler.mechanisms.accuracy.quantile_error_bound`): at
#: most this many, and no more than :data:`QUANTILE_ERROR_RECORDS` records in
#: all (at least 2 databases): the error's law varies less from database to
#: database as n grows, and 20 databases of 10^5 records cost a release 0.25 s.
QUANTILE_ERROR_RUNS = 20
QUANTILE_ERROR_RECORDS = 200_000


def quantile_error_runs(n: int) -> int:
    """How many public databases of ``n`` records a quantile's accuracy figure
    reads (:data:`QUANTILE_ERROR_RUNS`, :data:`QUANTILE_ERROR_RECORDS`)."""
    return min(QUANTILE_ERROR_RUNS, max(2, QUANTILE_ERROR_RECORDS // max(n, 1)))


def sampling_run(prepared, query, n: int, norm: str, bounds, index: int):
    """Sampling run ``index`` of the sensitivity of ``query`` on ``n`` records.

    With ``prepared``'s ``population``, ``settings`` (gamma, the plan's
    inequality, the neighbours), seed (``child_seed(prepared.root, index)``) and
    ``n_jobs``:
    a release's runs (:class:`PreparedRelease`), and the plan's, which draw them
    as the release does (:class:`~sensampler.app.planning.PreparedPlan`).
    """
    return sample_sensitivity(
        query,
        prepared.population,
        n,
        gamma=prepared.settings.gamma,
        norm=norm,
        inequality=prepared.settings.inequality,
        neighbours=prepared.settings.neighbours,
        bounds=bounds,
        random_state=child_seed(prepared.root, index),
        n_jobs=prepared.n_jobs,
    )


def exact_answers(names, queries, data) -> tuple[np.ndarray, ...]:
    """Each query's exact answer on ``data``, finite, or raise naming the query."""
    answers = []
    for name, query in zip(names, queries):
        try:
            answer = np.asarray(query(data), dtype=float)
        except Exception:  # noqa: BLE001 - the message could quote the data
            raise ValueError(f"the query {name!r} failed on the data.") from None
        if not np.all(np.isfinite(answer)):
            raise ValueError(f"the query {name!r} has no finite answer on the data.")
        answers.append(answer)
    return tuple(answers)


def needs_private_bounds(queries, settings: ReleaseSettings) -> bool:
    """Whether a release spends a private-bounds pre-pass: over private bounds,
    for a query other than a one-quantile one. A quantile needs no bounds: it is
    released over the wide public grid at its whole epsilon
    (:func:`~sensampler.mechanisms.quantile.wide_grid`)."""
    return settings.bounds.kind == "private" and any(
        quantile_level_of(query) is None for query in queries
    )


def samples_a_scale(query, settings: ReleaseSettings, population) -> bool:
    """Whether a one-quantile query's release may sample its scale: with a
    population (none over private bounds: see
    :func:`~sensampler.app.release.prepare_releases`) and public bounds (not
    on the wide grid), where the worst-case cap allows a scale above the plain
    one (a cap at epsilon keeps the plain epsilon-DP mechanism, with no
    gamma)."""
    level = quantile_level_of(query)
    if level is None or population is None or settings.bounds.kind == "none":
        return False
    du = utility_sensitivity(level, settings.neighbours)
    epsilon = settings.require_epsilon()
    return candidate_scales(epsilon, du, settings.worst_case_epsilon).size > 0


def _basis(population, estimate, calibration) -> str:
    """What the release's gamma rests on beyond the population model: for a
    public sample, the sample and the confidence over it (of the sampled
    sensitivity, or of a quantile's calibration); nothing for a plain release."""
    if not isinstance(population, distributions.PublicSample):
        return ""
    if estimate is not None:
        return population.basis(estimate.plan)
    return "" if calibration is None else calibration.population


def _quantile_price(mech, epsilon) -> str | None:
    """A calibrated quantile's price of a worst-case guarantee at epsilon, in
    words: the plain mechanism's scale; None for the plain mechanism."""
    if mech.calibration is None:
        return None
    plain = plain_scale(epsilon, mech.utility_sensitivity)
    return (
        f"a worst-case guarantee at {format_dp(epsilon, 0.0)} with the same bounds "
        f"would need the plain scale t = {plain:.6g}, {mech.calibration.scale / plain:.3g} "
        f"times smaller (--worst-case-epsilon {float(epsilon)!r})"  # exact: no cap below
    )


def _price(name, estimate, epsilon, delta) -> str | None:
    """The noise a plain-DP release with the same bounds would need, in words."""
    worst = getattr(estimate, "worst_case", None)
    if worst is None:
        return None
    dp = format_dp(epsilon, delta)
    if name in ("laplace", "discrete-laplace"):
        noise = f"Laplace noise of scale {printing.sensitivity(worst / epsilon)}"
    else:
        sigma = worst * analytic_gaussian_sigma(epsilon, delta)
        noise = f"Gaussian noise of sigma {printing.sensitivity(sigma)}"
    return (
        f"a worst-case guarantee at {dp} with the same bounds would need {noise} "
        f"(worst-case sensitivity {printing.sensitivity(worst)})"
    )


def _noise_error(calibrated: Calibrated, size: int) -> float | None:
    """The 90% half-width of one number's continuous noise (Laplace or
    Gaussian), from the mechanism's scale (public: a sampled or worst-case
    sensitivity times the noise per unit); None for an answer of several
    coordinates or noise on a grid."""
    mech = calibrated.mechanism
    if size != 1:
        return None
    if isinstance(mech, GaussianMechanism):
        return noise_half_width(float(np.max(mech.sigma)), "gaussian", 0.9)
    if isinstance(mech, LaplaceMechanism):
        return noise_half_width(float(np.max(mech.scale)), "laplace", 0.9)
    return None


def _with_unit(statement: PrivacyStatement, privacy_unit: str) -> PrivacyStatement:
    """``statement`` and its worst-case part for neighbours that differ in one
    ``privacy_unit`` (a person-level query's: one person's rows)."""
    if privacy_unit == statement.privacy_unit:
        return statement
    worst = statement.worst_case
    worst = None if worst is None else replace(worst, privacy_unit=privacy_unit)
    return replace(statement, privacy_unit=privacy_unit, worst_case=worst)


@dataclass(frozen=True)
class Calibrated:
    """One query's mechanism at the settings' epsilon, built without the private
    data (:func:`calibrated_mechanism`): what it states, and what its record says."""

    mechanism: Any
    statement: PrivacyStatement
    noise: str
    kind: str  # the mechanism's name in the record
    bounds: Bounds | None  # what the records are clipped to (None: the wide grid)
    estimate: Any = None
    calibration: QuantileCalibration | None = None
    price: str | None = None

    def release(self, reads, random_state=None):
        """The release of ``reads`` (the exact answer, or the data for a
        quantile): noise from fresh entropy unless ``random_state`` seeds it (an
        experiment on synthetic data; a release never does), or from the OS's
        secure generator for the discrete mechanisms (never seeded)."""
        if isinstance(self.mechanism, (LaplaceMechanism, GaussianMechanism)):
            rng = np.random.default_rng(random_state)
            out = self.mechanism.release(reads, random_state=rng)
        elif self.kind == "exponential":
            out = self.mechanism.release(reads, random_state=random_state)
        else:
            out = self.mechanism.release(reads)  # the OS's secure generator
        return float(out) if np.ndim(out) == 0 else np.asarray(out, float)


def calibrated_mechanism(
    query, n: int, size: int, bounds, settings: ReleaseSettings, population, *,
    estimate=None, calibration: QuantileCalibration | None = None,
) -> Calibrated:
    """A query's mechanism at ``settings.epsilon``, from what does not depend on
    the private data: the exponential mechanism of a one-quantile query over
    ``bounds`` (its sampled scale ``calibration``, or plain), else the noise
    mechanism with the sampled sensitivity ``estimate`` (without a population:
    the worst case over ``bounds``, plain DP). A release builds it once; an
    experiment reuses it across repetitions.

    Parameters
    ----------
    query : Query
    n : int
        Records of the data.
    size : int
        Coordinates of the answer.
    bounds : Bounds or None
        The bounds the records are clipped to: for a quantile, public ones only
        (``None``: the wide grid, never private bounds).
    settings : ReleaseSettings
        With an epsilon.
    population : Distribution or None
        ``None``: plain DP (private bounds).
    estimate : SensitivityEstimate, optional
        The sampled sensitivity (a query that is not a quantile, with a population).
    calibration : QuantileCalibration, optional
        A one-quantile query's sampled scale.

    Returns
    -------
    Calibrated
    """
    s = settings
    epsilon = s.require_epsilon()
    # the plain mechanism under a cap below epsilon: at the cap, which it
    # then states (its worst case is its epsilon)
    plain = min(epsilon, s.worst_case_epsilon or math.inf)
    quantile = quantile_mechanism(
        query, bounds, epsilon if calibration else plain, s.neighbours, calibration
    )
    unit = getattr(query, "privacy_unit", "record")
    if quantile is not None:
        mech, statement, noise = quantile
        statement = _with_unit(statement, unit)
        return Calibrated(
            mech, statement, noise, "exponential", bounds, calibration=calibration,
            price=_quantile_price(mech, epsilon),
        )
    sensitivity = estimate
    if population is None:  # plain DP: the worst case is the sensitivity
        sensitivity = worst_case_sensitivity(query, bounds, n, s.neighbours, s.norm)
    mech, statement, noise = build_mechanism(
        s.mechanism, sensitivity, epsilon, s.delta, s.granularity, max(1, size),
        s.worst_case_epsilon,
    )
    if population is None:  # a global sensitivity of the relation's pairs
        statement = replace(statement, neighbours=s.neighbours)
    statement = _with_unit(statement, unit)
    return Calibrated(
        mech, statement, noise, s.mechanism, bounds, estimate=estimate,
        price=_price(s.mechanism, estimate, epsilon, s.delta),
    )


@dataclass(frozen=True)
class _Built:
    """One query's mechanism, ready to release, and what it reads (the exact
    answer, or the data for a quantile)."""

    calibrated: Calibrated
    reads: np.ndarray = field(repr=False)
    error_90: float | None = None  # from public numbers only

    def draw(self):
        """The release: noise from fresh entropy, never from a seed."""
        return self.calibrated.release(self.reads)

    def record(self, name, value, n, population, model: str, query, unit=None) -> Release:
        """The :class:`Release` (a :class:`QuantileRelease` for a quantile);
        ``model`` is the population model in words, for a release that sampled
        from it (a sensitivity, or a quantile's scale); a person-level query's
        release carries the bias of its cap, from the model (:func:`cap_bias`);
        ``unit`` the data's."""
        c = self.calibrated
        basis = _basis(population, c.estimate, c.calibration)
        sampled = c.estimate is not None or c.calibration is not None
        fields_ = (name, value, c.statement, c.estimate, c.kind, c.noise,
                   n, c.bounds, c.price, basis, model if sampled else "",
                   self.error_90, unit)
        if c.kind == "exponential":
            return QuantileRelease(*fields_, calibration=c.calibration)
        return Release(*fields_, cap_bias=cap_bias(query, population, c.bounds, n))


@dataclass(frozen=True)
class PreparedRelease:
    """Releases whose inputs are all checked, ready to sample and release.

    Built by :func:`~sensampler.app.release.prepare_releases`; :meth:`run`
    does the work. Nothing has been sampled, spent or drawn yet.

    Parameters
    ----------
    data : ndarray
        The private records, checked.
    queries : tuple of Query
        The queries, parsed.
    names : tuple of str
        Their names.
    answers : tuple of ndarray
        Their exact answers on ``data`` (clipped to ``bounds``, if any).
    population : Distribution or None
        The population model, loaded (``None``: plain DP, over private bounds).
    settings : ReleaseSettings
        What the releases are asked for, with an epsilon.
    budget : PrivacyFilter, BudgetFile or None
        Where the releases are spent.
    root : numpy.random.SeedSequence
        Seeds the sampling runs (query i uses child i).
    n_jobs : int or None
        Workers of the sampler.
    bounds : Bounds or None
        Clipping bounds known before the release (from the population or
        given); ``None`` without bounds or for private ones.
    planned : tuple of PrivacyStatement
        Upper bounds on what the run spends, in order: the private-bounds
        pre-pass first (if any), then each release. A pre-pass is spent only
        once every filter it is spent from can hold all of them.
    model : str
        The population model as it was given, in words (each sampled
        release's :attr:`Release.population`).
    """

    # the private records and their exact answers: never shown (repr, tracebacks)
    data: np.ndarray = field(repr=False)
    queries: tuple
    names: tuple[str, ...]
    answers: tuple[np.ndarray, ...] = field(repr=False)
    population: Any
    settings: ReleaseSettings
    budget: Any
    root: np.random.SeedSequence
    n_jobs: int | None
    bounds: Bounds | None = None
    planned: tuple = ()
    model: str = ""


    def run(self, step: Callable[[str], None] | None = None) -> tuple[Release, ...]:
        """Sample each query's sensitivity, spend, release.

        See :func:`~sensampler.app.release.release_statistics`. With private
        bounds, their pre-pass is spent and drawn first, once every check that
        does not depend on the bounds has passed: the inputs
        (:func:`~sensampler.app.release.prepare_releases`) and the budget,
        tried with the pre-pass and every release together (:attr:`planned`).
        What can still refuse afterwards depends on the private bounds (the
        sensitivity sampled on records clipped to them, a sampled 0 without a
        worst case, a discrete grid too fine for the clipped answer) or on a
        spend made meanwhile by another process; such a refusal leaves the
        pre-pass recorded, as it must: the refusal itself is computed from the
        private bounds.

        Parameters
        ----------
        step : callable, optional
            Told each step in words as it starts (the command line shows it on
            a terminal).

        Returns
        -------
        tuple of Release
            One per query, in order.
        """
        step = step or (lambda text: None)
        bounds, answers = self._bounds_and_answers()
        built = []
        for index, (name, query, answer) in enumerate(zip(self.names, self.queries, answers)):
            step(
                f"{name}: calibrating the exponential mechanism's scale on the population model"
                if quantile_level_of(query) is not None
                else f"{name}: sampling the sensitivity on the population model"
            )
            built.append(self._build(index, query, answer, bounds))
        step("spending and drawing the noise")
        for one in built:
            one.calibrated.mechanism.check_release(one.reads)  # refused before any spend
        labels = [f"{name} ({one.calibrated.kind})" for name, one in zip(self.names, built)]
        values = spend_then(
            budgets(self.budget),
            [one.calibrated.statement for one in built],
            labels,
            lambda: [one.draw() for one in built],
        )
        return tuple(
            one.record(
                name, value, self.data.shape[0], self.population, self.model, q,
                self.settings.unit,
            )
            for name, value, one, q in zip(self.names, values, built, self.queries)
        )

    def _bounds_and_answers(self):
        """The bounds the records are clipped to and the exact answers over them:
        those known, or the private bounds' (spent and drawn here, if a query
        needs them: :func:`needs_private_bounds`)."""
        if not needs_private_bounds(self.queries, self.settings):
            return self.bounds, self.answers
        bounds = self._private_bounds()
        return bounds, exact_answers(self.names, self.queries, bounds.clip(self.data))

    def _private_bounds(self) -> Bounds:
        """Spend the pre-pass's epsilon from the budget, then estimate the bounds.

        Every budget spent from (the budget, and a different default filter) is
        first tried with the whole run (:attr:`planned`: the pre-pass and every
        release), so that a budget too small for the releases refuses before
        the pre-pass is spent, not after.
        """
        epsilon0 = self.settings.bounds.private_epsilon
        statement = PrivacyStatement(
            PRIVATE_BOUNDS, epsilon0, 0.0, neighbours=self.settings.neighbours
        )
        return spend_then(
            budgets(self.budget),
            [statement],
            ["private bounds"],
            lambda: private_bounds(
                self.data, epsilon0, neighbours=self.settings.neighbours
            ),
            tried=self.planned or (statement,),  # built by hand: the pre-pass only
        )

    def _build(self, index: int, query, answer, bounds) -> _Built:
        """Query ``index``'s mechanism (:func:`calibrated_mechanism`): a
        one-quantile query's scale calibrated on the population, or a sampled
        sensitivity (none without a population), and what it reads."""
        calibration = self._calibration(index, query, bounds)
        estimate = None
        if quantile_level_of(query) is None and self.population is not None:
            estimate = sampling_run(
                self, query, self.data.shape[0], self.settings.norm, bounds, index
            )
        if quantile_level_of(query) is not None:  # public bounds, or the wide grid
            bounds = self.bounds
        calibrated = calibrated_mechanism(
            query, self.data.shape[0], answer.size, bounds, self.settings, self.population,
            estimate=estimate, calibration=calibration,
        )
        if calibrated.kind == "exponential":
            error = self._quantile_error(index, query, calibrated.mechanism)
            return _Built(calibrated, self.data, error)
        return _Built(calibrated, answer, _noise_error(calibrated, answer.size))

    def _quantile_error(self, index: int, query, mechanism) -> float | None:
        """A quantile's accuracy: the mechanism's own law on databases of n
        records drawn from the public population model (never the data), or
        None without one."""
        if self.population is None:
            return None
        seed = child_seed(self.root, len(self.queries) + index)  # not a run's
        databases = [
            np.asarray(
                self.population.sample(self.data.size, random_state=child_seed(seed, i)),
                dtype=float,
            )
            for i in range(quantile_error_runs(self.data.size))
        ]
        answers = [float(np.ravel(query(data))[0]) for data in databases]
        return quantile_error_bound(mechanism, databases, answers, 0.9)

    def _calibration(self, index: int, query, bounds) -> QuantileCalibration | None:
        """The sampled scale of a one-quantile query's mechanism
        (:func:`~sensampler.quantile_calibration.calibrate_quantile`), or None: no
        quantile, no bounds, no population or a cap that allows no sampled scale
        (:func:`samples_a_scale`; plain epsilon-DP), or no sampled scale above the
        plain one."""
        s = self.settings
        if bounds is None or not samples_a_scale(query, s, self.population):
            return None
        return calibrate_quantile(
            quantile_level_of(query), (bounds.low, bounds.high), s.require_epsilon(),
            self.population, self.data.shape[0], random_state=child_seed(self.root, index),
            gamma=s.gamma, inequality=s.inequality, neighbours=s.neighbours,
            worst_case_epsilon=s.worst_case_epsilon,
        )
