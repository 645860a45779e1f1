r"""Release a statistic of your own data, with a sensitivity sampled from a population.

:func:`release_statistic` (and :func:`release_statistics` for several queries) does
the whole job a practitioner needs: it samples the query's sensitivity on
databases of the data's size drawn from a population model (a bootstrap of a
public table, a named model, a TOML file), calibrates a mechanism with it,
spends the release from a budget (a :class:`~sensampler.accounting.PrivacyFilter`
or a persistent :class:`~sensampler.budget_file.BudgetFile`) and releases once.

What is guaranteed is **random DP** (Hall, Rinaldo & Wasserman 2012; Rubinstein &
Aldà 2017, Thm. 3): the release is (epsilon, delta)-DP for replace-one
neighbours, except with probability gamma over the data drawn from the
population model (and over the sampling run). gamma is not delta: delta is a
probability over the mechanism's noise for *every* database; gamma is the chance
that the database is one for which the sampled sensitivity is too small, and then
nothing is guaranteed. Data the population model does not describe are not
covered. The number of records n is released as is: replace-one neighbours keep
it fixed.

Quantile queries (``median``, ``quantile:Q`` with one Q) are the exception:
they sample nothing and release through the exponential mechanism over public
bounds (:class:`~sensampler.mechanisms.ExponentialQuantileMechanism`; by
default the population model's 0.001 and 0.999 quantiles), which is plain
epsilon-DP for every pair of neighbouring databases (:class:`QuantileRelease`).

``random_state`` seeds the sampling run only (it is stated, so the run can be
drawn again). The noise is never seeded: it comes from fresh operating-system
entropy (numpy for ``"laplace"`` and ``"gaussian"``, the OS's secure generator
for the discrete mechanisms), since noise that can be drawn again can be
subtracted.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from . import distributions
from ._default_budget import charged_to
from ._domains import DELTA_RELEASE, EPSILON
from ._html import release_html, statement_html
from ._validation import as_seed_sequence, check_choice, check_n_jobs, check_real
from .accounting import ExceededPrivacyBudgetError, PrivacyFilter
from .budget_file import BudgetFile, replay_filter
from .data_files import read_column
from .estimate import SensitivityEstimate
from .experiments.batch import tomllib
from .experiments.specs import build_population, parse_population, parse_query
from .mechanisms import (
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    ExponentialQuantileMechanism,
    GaussianMechanism,
    LaplaceMechanism,
)
from .mechanisms.quantile import check_bounds
from .parallel import child_seed
from .plan import sampling_plan
from .privacy import (
    PrivacyStatement,
    SamplingRun,
    format_dp,
    format_upper,
    zcdp_to_dp,
)
from .queries import Query, as_query
from .report import check_report_path, release_report, write_report
from .sampler import sample_sensitivity

__all__ = [
    "RELEASE_MECHANISMS",
    "PreparedRelease",
    "QuantileRelease",
    "Release",
    "load_population",
    "prepare_releases",
    "quantile_bounds",
    "quantile_level_of",
    "release_statistic",
    "release_statistics",
]

#: Mechanisms a release may use: name -> the norm its sensitivity is sampled in.
RELEASE_MECHANISMS = {
    "laplace": "l1",
    "gaussian": "l2",
    "discrete-laplace": "l1",
    "discrete-gaussian": "l2",
}

#: Quantile bounds from a population model: its quantiles at this coverage and
#: 1 - coverage, computed on :data:`BOUNDS_SAMPLE` draws from a fixed seed.
BOUNDS_COVERAGE = 0.001
#: Draws of the population model behind its quantile bounds.
BOUNDS_SAMPLE = 200_000
#: Seed of those draws: the bounds depend on the public model only.
BOUNDS_SEED = 0

#: The guarantee in words, so that gamma is not read as delta.
GUARANTEE = (
    "{dp}, except with probability gamma={gamma} over the data drawn from the "
    "population model"
)
#: The guarantee of a quantile release (the exponential mechanism), in words.
WORST_CASE_GUARANTEE = (
    "{dp}, for every pair of neighbouring databases (worst case: no gamma)"
)


def load_population(spec: str, *, column: str | None = None):
    """A population model from a flag's text.

    Parameters
    ----------
    spec : str
        ``bootstrap:FILE`` (the records of ``column`` in a public CSV or
        Parquet file, resampled: :class:`~sensampler.distributions.Empirical`),
        a TOML file (name ending ``.toml``) with a ``[population]`` table, or a
        model as the other commands take it (``heights``,
        ``normal:loc=170,scale=10``; see
        :func:`~sensampler.experiments.parse_population`).
    column : str, optional
        The column of a ``bootstrap:`` file.

    Returns
    -------
    sensampler.distributions.Distribution
    """
    if not isinstance(spec, str) or not spec.strip():
        raise TypeError(f"population must be a non-empty str, got {spec!r}.")
    if spec.startswith("bootstrap:"):
        path = spec[len("bootstrap:") :]
        if column is None:
            raise ValueError(f"population={spec!r} needs the column to bootstrap.")
        return distributions.Empirical(read_column(path, column))
    if spec.lower().endswith(".toml"):
        try:
            with open(spec, "rb") as handle:
                table = tomllib.load(handle)
        except OSError as exc:
            raise ValueError(f"cannot read {spec}: {exc.strerror or exc}") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"{spec}: not valid TOML ({exc}).") from None
        if not isinstance(table.get("population"), dict):
            raise ValueError(f"{spec}: needs a [population] table.")
        return build_population(table["population"])
    return parse_population(spec)


@dataclass(frozen=True)
class Release:
    """One released answer and what it states.

    Parameters
    ----------
    query : str
        The query's name.
    value : float or ndarray
        The private answer (noise included).
    statement : PrivacyStatement
        What one release states: (epsilon, delta)-DP with the sampling run and
        its gamma (random DP).
    estimate : SensitivityEstimate
        The sampled sensitivity that calibrated the noise.
    mechanism : str
        The mechanism's name in :data:`RELEASE_MECHANISMS`.
    noise : str
        The noise added, in words (its scale).
    n : int
        Number of records of the data (released as is).
    """

    query: str
    value: Any
    statement: PrivacyStatement
    estimate: SensitivityEstimate
    mechanism: str
    noise: str
    n: int

    @property
    def guarantee(self) -> str:
        """The guarantee in words: (epsilon, delta)-DP except with probability gamma."""
        s = self.statement
        dp = format_dp(s.epsilon, s.delta)
        dp += f" for {s.neighbours} neighbours (n={self.n} records)"
        return GUARANTEE.format(dp=dp, gamma=format_upper(s.gamma, 4))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dictionary (no NaN or infinity).

        Returns
        -------
        dict
            The answer, the mechanism and the statement, in plain numbers and strings.
        """
        est = self.estimate
        return {
            "query": self.query,
            "answer": np.asarray(self.value, dtype=float).tolist(),
            "mechanism": self.mechanism,
            "noise": self.noise,
            "epsilon": self.statement.epsilon,
            "delta": self.statement.delta,
            "gamma": self.statement.gamma,
            "guarantee": self.guarantee,
            "n": self.n,
            "neighbours": self.statement.neighbours,
            "sensitivity": np.asarray(est.sensitivity.value).tolist(),
            "norm": est.norm,
            "run_id": est.run_id,
            "seed": est.to_dict()["seed"],
            "m": est.m,
            "k": est.k,
            "bound": est.bound,
            "plan": est.plan.meaning,
        }

    def _repr_html_(self) -> str:
        """Notebook display: the released value and its statement in plain words."""
        return release_html(self, statement_html(self.statement, format_dp, format_upper))

    def text(self) -> str:
        """The answer and the full statement, for people.

        Returns
        -------
        str
            Several lines of text.
        """
        est = self.estimate
        value = self.value
        answer = (
            f"{float(value):.6g}"
            if np.ndim(value) == 0
            else np.array2string(np.asarray(value, dtype=float), precision=6)
        )
        seed = est.to_dict()["seed"]
        seed_text = "unknown" if seed is None else (
            f"entropy {seed[0]}, spawn key {tuple(seed[1])}"
        )
        sensitivity = np.asarray(est.sensitivity.value)
        sens_text = (
            f"{float(sensitivity):.6g}"
            if sensitivity.ndim == 0
            else np.array2string(sensitivity, precision=6)
        )
        return "\n".join(
            [
                f"{self.query}: {answer}",
                f"  guarantee  {self.guarantee}",
                "             (gamma is not delta: with probability gamma the "
                "sampled sensitivity is too small for the data, and nothing is "
                "guaranteed)",
                f"  mechanism  {self.statement.mechanism}, {self.noise}",
                f"  sensitivity {sens_text} ({est.norm}; "
                f"order statistic k={est.k} of m={est.m} sampled pairs)",
                f"  run        {est.run_id} (sampling seed: {seed_text})",
                f"  plan       {est.bound}: {est.plan.meaning}",
            ]
        )


@dataclass(frozen=True)
class QuantileRelease(Release):
    """A quantile released by the exponential mechanism over public bounds.

    Its statement is plain epsilon-DP for every pair of neighbouring databases
    (:class:`~sensampler.mechanisms.ExponentialQuantileMechanism`): nothing is
    sampled, so there is no gamma and ``estimate`` is ``None``.

    Parameters
    ----------
    query : str
        The query's name.
    value : float
        The private quantile, a point of ``bounds``.
    statement : PrivacyStatement
        Plain epsilon-DP (``delta = 0``, no sampling run, gamma 0).
    estimate : None
        No sensitivity is sampled.
    mechanism : str
        ``"exponential"``.
    noise : str
        The mechanism's utility, its sensitivity and the range, in words.
    n : int
        Number of records of the data (released as is).
    bounds : (float, float)
        The public range the records were clipped to and the output lies in.
    bounds_source : str
        Where the bounds came from, in words.
    """

    bounds: tuple[float, float]
    bounds_source: str

    @property
    def guarantee(self) -> str:
        """The guarantee in words: plain (epsilon, 0)-DP, for every database."""
        s = self.statement
        return WORST_CASE_GUARANTEE.format(
            dp=f"{format_dp(s.epsilon, s.delta)} for {s.neighbours} neighbours "
            f"(n={self.n} records)"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dictionary (no NaN or infinity).

        Returns
        -------
        dict
            The answer, the mechanism, the statement and the bounds.
        """
        return {
            "query": self.query,
            "answer": float(self.value),
            "mechanism": self.mechanism,
            "noise": self.noise,
            "epsilon": self.statement.epsilon,
            "delta": self.statement.delta,
            "gamma": self.statement.gamma,
            "guarantee": self.guarantee,
            "n": self.n,
            "neighbours": self.statement.neighbours,
            "bounds": list(self.bounds),
            "bounds_source": self.bounds_source,
        }

    def text(self) -> str:
        """The answer and the full statement, for people.

        Returns
        -------
        str
            Several lines of text.
        """
        low, high = self.bounds
        return "\n".join(
            [
                f"{self.query}: {float(self.value):.6g}",
                f"  guarantee  {self.guarantee}",
                f"  mechanism  {self.statement.mechanism}, {self.noise}",
                f"  bounds     [{low:.6g}, {high:.6g}], {self.bounds_source}; "
                "records outside are clipped",
            ]
        )


def _query_name(query, given) -> str:
    if isinstance(given, str):
        return given.strip()
    return str(getattr(query, "name", None) or getattr(given, "__name__", "query"))


def _check_data(data) -> np.ndarray:
    if isinstance(data, (str, bytes)):
        raise TypeError(
            "data must be an array of numbers (read a file with "
            "sensampler.data_files.read_column), got a str."
        )
    try:
        arr = np.asarray(data, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"data must be a 1-d array of numbers, got {type(data).__name__}."
        ) from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"data must be a non-empty 1-d array (one number per record), got "
            f"shape {arr.shape}."
        )
    if not np.all(np.isfinite(arr)):  # no value named: the data are private
        raise ValueError("data must be finite; it holds NaN or infinite values.")
    return arr


def _check_population(population, column):
    if isinstance(population, str):
        population = load_population(population, column=column)
    population = distributions.as_distribution(population)
    shape = tuple(getattr(population, "record_shape", ()))
    if shape != ():
        raise ValueError(
            f"population draws records of shape {shape}, but the data hold one "
            "number per record."
        )
    return population


def _check_budget(budget):
    if budget is None or isinstance(budget, BudgetFile):
        return budget
    if type(budget) is PrivacyFilter:
        return budget
    if isinstance(budget, (str, os.PathLike)):
        return BudgetFile(budget)
    raise TypeError(
        f"budget must be None, a PrivacyFilter, a BudgetFile or a path, got {budget!r}."
    )


def _rho_for(epsilon: float, delta: float) -> float:
    """The largest zCDP rho whose (epsilon, delta) conversion is at most epsilon.

    ``zcdp_to_dp`` (Canonne, Kamath & Steinke 2020, Prop. 12) increases with
    rho; a root finder inverts it, and the root is lowered until the conversion
    of the mechanism actually built is at most epsilon.
    """
    from scipy import optimize  # needed only here

    hi = 1.0
    while zcdp_to_dp(hi, delta) < epsilon:
        hi *= 2.0
    return optimize.brentq(
        lambda r: zcdp_to_dp(r, delta) - epsilon, 0.0, hi, xtol=1e-14, rtol=1e-12
    )


def _granularity(sensitivity: float) -> float:
    """Default grid step: the largest power of 10 at most 1/100 of the sensitivity
    (the grid then widens the sensitivity by at most 1%)."""
    if sensitivity <= 0.0:
        return 1.0
    return 10.0 ** math.floor(math.log10(sensitivity / 100.0))


def _population_bounds(population) -> tuple[float, float]:
    """The population model's :data:`BOUNDS_COVERAGE` and 1 - coverage quantiles,
    from :data:`BOUNDS_SAMPLE` draws with a fixed seed (public: no privacy cost)."""
    draws = np.asarray(
        population.sample(BOUNDS_SAMPLE, random_state=BOUNDS_SEED), dtype=float
    )
    low, high = np.quantile(draws, [BOUNDS_COVERAGE, 1.0 - BOUNDS_COVERAGE])
    if not low < high:
        raise ValueError(
            f"the population model's {BOUNDS_COVERAGE:g} and "
            f"{1 - BOUNDS_COVERAGE:g} quantiles coincide ({float(low):g}), so they "
            "bound no quantile release; give bounds=(low, high)."
        )
    return float(low), float(high)


def quantile_level_of(query) -> float | None:
    """The level q of a query a release answers by the exponential mechanism.

    The one rule deciding which mechanism a query gets, shared by the release
    and by :func:`sensampler.planning.plan_release`: a one-quantile query
    (``median``, ``quantile:Q`` with one Q: a ``quantile_level`` attribute)
    gets :class:`~sensampler.mechanisms.ExponentialQuantileMechanism` over
    public bounds; every other query gets the noise mechanism of the release,
    calibrated with a sampled sensitivity.

    Parameters
    ----------
    query : Query or callable
        The query, parsed (:func:`~sensampler.experiments.parse_query`).

    Returns
    -------
    float or None
        ``q`` in [0, 1], or ``None`` for a query that samples a sensitivity.

    Examples
    --------
    >>> from sensampler import queries
    >>> quantile_level_of(queries.median), quantile_level_of(queries.mean)
    (0.5, None)
    """
    return getattr(query, "quantile_level", None)


def quantile_bounds(population, bounds=None) -> tuple[float, float, str]:
    """The public bounds of a quantile release and where they came from.

    Parameters
    ----------
    population : Distribution
        The population model.
    bounds : (low, high) or object with ``.low`` and ``.high``, optional
        Given bounds; default: the population model's :data:`BOUNDS_COVERAGE`
        and 1 - coverage quantiles, from :data:`BOUNDS_SAMPLE` draws with the
        fixed seed :data:`BOUNDS_SEED` (public: no privacy cost).

    Returns
    -------
    (low, high, source) : (float, float, str)
        The bounds and their source in words.
    """
    if bounds is None:
        low, high = _population_bounds(population)
        return low, high, (
            f"the population model's {BOUNDS_COVERAGE:g} and "
            f"{1 - BOUNDS_COVERAGE:g} quantiles (public, no privacy cost)"
        )
    low, high = check_bounds(bounds)
    return low, high, "given"


def _quantile_mechanism(query, population, bounds, epsilon):
    """(mechanism, its statement, the noise in words, bounds, their source) of a
    one-quantile query (:func:`quantile_level_of`), or None for any other query.

    The exponential mechanism over public bounds (Smith 2011): plain epsilon-DP
    for every pair of neighbours, where a sampled sensitivity of a quantile
    would be random DP only, and often far larger than the quantile's spread.
    """
    level = quantile_level_of(query)
    if level is None:
        return None
    low, high, source = quantile_bounds(population, bounds)
    mech = ExponentialQuantileMechanism(level, (low, high), epsilon)
    noise = (
        f"utility -|rank - {level:g}n| of sensitivity "
        f"{mech.utility_sensitivity:g}, over [{low:.6g}, {high:.6g}]"
    )
    return mech, mech.privacy, noise, (low, high), source


def _mechanism(name, estimate, epsilon, delta, granularity, dimension):
    """(mechanism, its (epsilon, delta) statement, the noise in words)."""
    if name == "laplace":
        mech = LaplaceMechanism(estimate, epsilon)
        return mech, mech.privacy, f"Laplace noise of scale {np.max(mech.scale):.6g}"
    if name == "gaussian":
        mech = GaussianMechanism(estimate, epsilon, delta)
        return mech, mech.privacy, f"Gaussian noise of sigma {mech.sigma:.6g}"
    grid = granularity or _granularity(float(np.max(estimate.sensitivity.value)))
    if name == "discrete-laplace":
        mech = DiscreteLaplaceMechanism(
            estimate, epsilon, granularity=grid, dimension=dimension
        )
        return mech, mech.privacy, (
            f"discrete Laplace noise of scale {mech.scale:.6g} on the grid {grid:g}Z"
        )
    rho = _rho_for(epsilon, delta)
    while True:
        mech = DiscreteGaussianMechanism(
            estimate, rho=rho, granularity=grid, dimension=dimension
        )
        stated = mech.privacy.epsilon_for(delta)
        if stated <= epsilon:
            break
        rho *= 1.0 - 1e-9
    # rho-zCDP converted to (epsilon, delta)-DP (CKS 2020, Prop. 12): what is spent
    statement = replace(mech.privacy, epsilon=stated, delta=delta)
    return mech, statement, (
        f"discrete Gaussian noise of sigma {mech.sigma:.6g} on the grid {grid:g}Z "
        f"(rho={format_upper(mech.rho, 6)}-zCDP)"
    )


def _check_settings(mechanism, epsilon, delta, gamma, granularity, bound):
    check_choice("mechanism", mechanism, tuple(RELEASE_MECHANISMS))
    epsilon = EPSILON.check("epsilon", epsilon)
    delta = DELTA_RELEASE.check("delta", delta)
    needs_delta = mechanism in ("gaussian", "discrete-gaussian")
    if needs_delta and delta == 0.0:
        raise ValueError(f"mechanism={mechanism!r} needs delta > 0, got delta=0.0.")
    if not needs_delta and delta != 0.0:
        raise ValueError(
            f"mechanism={mechanism!r} is pure epsilon-DP and takes no delta, got "
            f"delta={delta!r}."
        )
    if granularity is not None:
        if not mechanism.startswith("discrete"):
            raise ValueError(
                f"granularity is for the discrete mechanisms, got "
                f"mechanism={mechanism!r}."
            )
        check_real("granularity", granularity, low=0.0, low_strict=True)
    plan = sampling_plan(gamma=gamma, bound=bound)
    if needs_delta:  # the calibration itself, on a unit sensitivity
        if mechanism == "gaussian":
            GaussianMechanism(1.0, epsilon, delta)
        else:
            _rho_for(epsilon, delta)
    return epsilon, delta, plan


@dataclass(frozen=True)
class PreparedRelease:
    """Releases whose inputs are all checked, ready to sample and release.

    Built by :func:`prepare_releases`; :meth:`run` does the work. Nothing has
    been sampled, spent or drawn yet.

    Parameters
    ----------
    data : ndarray
        The private records, checked.
    queries : tuple of Query
        The queries, parsed.
    names : tuple of str
        Their names.
    answers : tuple of ndarray
        Their exact answers on ``data``.
    population : Distribution
        The population model, loaded.
    mechanism : str
        The mechanism's name, one of :data:`RELEASE_MECHANISMS`.
    epsilon, delta, gamma : float
        Each release's epsilon and delta, and each sampling run's gamma.
    granularity : float or None
        Grid step of the discrete mechanisms (``None``: chosen from the sensitivity).
    bound : str
        The sampling plan's bound.
    budget : PrivacyFilter, BudgetFile or None
        Where the releases are spent.
    root : numpy.random.SeedSequence
        Seeds the sampling runs (query i uses child i).
    n_jobs : int or None
        Workers of the sampler.
    quantiles : tuple
        Per query, ``None``, or for a one-quantile query its exponential
        mechanism, statement, noise in words, bounds and their source (built
        and checked here; see :class:`QuantileRelease`).
    """

    data: np.ndarray
    queries: tuple
    names: tuple[str, ...]
    answers: tuple[np.ndarray, ...]
    population: Any
    mechanism: str
    epsilon: float
    delta: float
    gamma: float
    granularity: float | None
    bound: str
    budget: Any
    root: np.random.SeedSequence
    n_jobs: int | None
    quantiles: tuple

    def run(self) -> tuple[Release, ...]:
        """Sample each query's sensitivity, spend, release; see :func:`release_statistics`.

        Returns
        -------
        tuple of Release
            One per query, in order.
        """
        estimates = [
            None
            if quantile is not None
            else sample_sensitivity(
                query,
                self.population,
                self.data.size,
                gamma=self.gamma,
                norm=RELEASE_MECHANISMS[self.mechanism],
                bound=self.bound,
                random_state=child_seed(self.root, i),
                n_jobs=self.n_jobs,
            )
            for i, (query, quantile) in enumerate(zip(self.queries, self.quantiles))
        ]
        built = [
            quantile[:3]
            if quantile is not None
            else _mechanism(
                self.mechanism,
                est,
                self.epsilon,
                self.delta,
                self.granularity,
                max(1, answer.size),
            )
            for est, answer, quantile in zip(estimates, self.answers, self.quantiles)
        ]
        # what each mechanism reads: the exact answer, or the data (a quantile's)
        inputs = [
            answer if quantile is None else self.data
            for answer, quantile in zip(self.answers, self.quantiles)
        ]
        for (mech, _, _), value in zip(built, inputs):
            mech.check_release(value)  # refused before anything is spent
        statements = [statement for _, statement, _ in built]
        labels = [
            f"{name} ({self.mechanism if q is None else 'exponential'})"
            for name, q in zip(self.names, self.quantiles)
        ]
        budget = self.budget
        if isinstance(budget, BudgetFile):
            with budget.session() as session:  # locked from reading to writing
                _trial(session.filter, statements, name=budget.path)
                for statement, label in zip(statements, labels):
                    session.spend(statement, label)
                values = _draw(built, inputs)
        else:
            if budget is not None:
                _trial(budget, statements)
                for statement in statements:
                    budget.compose(statement)
            with charged_to(budget):  # spent once when it is the default too
                values = _draw(built, inputs)
        return tuple(
            Release(name, value, statement, est, self.mechanism, noise, self.data.size)
            if quantile is None
            else QuantileRelease(
                name, value, statement, None, "exponential", noise, self.data.size,
                *quantile[3:],
            )
            for name, value, (_, statement, noise), est, quantile in zip(
                self.names, values, built, estimates, self.quantiles
            )
        )


def prepare_releases(
    data,
    queries: Sequence[str | Query | Callable[[np.ndarray], Any]],
    population,
    *,
    epsilon: float,
    delta: float = 0.0,
    gamma: float = 0.05,
    mechanism: str = "laplace",
    granularity: float | None = None,
    column: str | None = None,
    bound: str = "exact",
    budget: PrivacyFilter | BudgetFile | str | os.PathLike | None = None,
    random_state=None,
    n_jobs: int | None = None,
    bounds=None,
) -> PreparedRelease:
    """Check every input of :func:`release_statistics` and the budget; sample nothing.

    Takes the parameters of :func:`release_statistics`.

    Parameters
    ----------
    data : array-like of shape (n,)
        The private records, one finite number each (see
        :func:`sensampler.data_files.read_column` for a file's column).
    queries : sequence of str, Query or callable
        Queries by name (``"mean"``, ``"quantile:0.9"``, ...; see
        :func:`~sensampler.experiments.parse_query`) or as objects.
    population : Distribution or str
        The population model the data are assumed drawn from, or its spec
        (see :func:`load_population`).
    epsilon : float
        Each release's epsilon, ``> 0``.
    delta : float, default 0
        Each release's delta: 0 for ``"laplace"`` and ``"discrete-laplace"``,
        ``0 < delta < 1`` for the Gaussian mechanisms.
    gamma : float, default 0.05
        Random-DP failure probability of each sampling run, ``0 < gamma < 1``.
    mechanism : {"laplace", "gaussian", "discrete-laplace", "discrete-gaussian"}
        ``"gaussian"`` is Balle & Wang's analytic calibration; the discrete
        ones add exact noise on a grid from the OS's secure generator (the
        discrete Gaussian's zCDP is converted to (epsilon, delta), CKS 2020).
    granularity : float, optional
        Grid step of the discrete mechanisms (default: the largest power of 10
        at most 1/100 of the sampled sensitivity).
    column : str, optional
        The column of a ``bootstrap:FILE`` population.
    bound : {"exact", "exchangeable", "dkw"}, default "exact"
        The sampling plan's bound (:func:`sensampler.sampling_plan`).
    budget : PrivacyFilter, BudgetFile, path or None
        Where the releases are spent; a path is a :class:`BudgetFile` that
        must exist. A filter that is also the default filter
        (:func:`sensampler.accounting.default_filter`) records each release
        once; a different default is spent from as well.
    random_state : None, int, SeedSequence or Generator
        Seeds the sampling runs (query i uses child i); never the noise.
    n_jobs : int, optional
        Workers of the sampler.
    bounds : (low, high) or object with ``.low`` and ``.high``, optional
        Public bounds of the quantile queries (``median``, ``quantile:Q``),
        which use the exponential mechanism (plain epsilon-DP, no sampling);
        default: the population model's 0.001 and 0.999 quantiles
        (:data:`BOUNDS_COVERAGE`), at no privacy cost.

    Returns
    -------
    PreparedRelease
        Its :meth:`~PreparedRelease.run` samples, spends and releases.

    Raises
    ------
    ExceededPrivacyBudgetError
        When the planned releases (each at ``epsilon``, ``delta`` and the
        plan's gamma, which bound what is spent) do not fit the budget.
    """
    arr = _check_data(data)
    if isinstance(queries, (str, bytes)) or not isinstance(queries, Sequence):
        raise TypeError(f"queries must be a sequence of queries, got {queries!r}.")
    if not queries:
        raise ValueError("queries must not be empty.")
    parsed = tuple(
        as_query(parse_query(q) if isinstance(q, str) else q) for q in queries
    )
    names = tuple(_query_name(q, given) for q, given in zip(parsed, queries))
    population = _check_population(population, column)
    epsilon, delta, plan = _check_settings(
        mechanism, epsilon, delta, gamma, granularity, bound
    )
    budget = _check_budget(budget)
    bounds = None if bounds is None else check_bounds(bounds)
    quantiles = tuple(
        _quantile_mechanism(query, population, bounds, epsilon) for query in parsed
    )
    root = as_seed_sequence(random_state)
    n_jobs = check_n_jobs(n_jobs)
    answers = []
    for name, query in zip(names, parsed):
        try:
            answer = np.asarray(query(arr), dtype=float)
        except Exception:  # noqa: BLE001 - the message could quote the data
            raise ValueError(f"the query {name!r} failed on the data.") from None
        if not np.all(np.isfinite(answer)):
            raise ValueError(f"the query {name!r} has no finite answer on the data.")
        answers.append(answer)
    if budget is not None:  # planned spends: upper bounds on the real ones
        _trial(
            budget,
            [
                PrivacyStatement(
                    "planned",
                    epsilon,
                    delta,
                    run=SamplingRun(f"planned-{i}", plan.gamma),
                    source="sampled",
                )
                if quantile is None
                else quantile[1]
                for i, quantile in enumerate(quantiles)
            ],
        )
    return PreparedRelease(
        arr,
        parsed,
        names,
        tuple(answers),
        population,
        mechanism,
        epsilon,
        delta,
        gamma,
        granularity,
        bound,
        budget,
        root,
        n_jobs,
        quantiles,
    )


def release_statistics(
    data,
    queries: Sequence[str | Query | Callable[[np.ndarray], Any]],
    population,
    *,
    epsilon: float,
    delta: float = 0.0,
    gamma: float = 0.05,
    mechanism: str = "laplace",
    granularity: float | None = None,
    column: str | None = None,
    bound: str = "exact",
    budget: PrivacyFilter | BudgetFile | str | os.PathLike | None = None,
    random_state=None,
    n_jobs: int | None = None,
    bounds=None,
    report: str | os.PathLike | None = None,
) -> tuple[Release, ...]:
    """Release several statistics of ``data``, each with its own sampled sensitivity.

    Each query spends ``(epsilon, delta)`` and its own sampling run's gamma;
    the budget is checked for all of them before anything is sampled, and
    again (authoritatively) before anything is released: either every query is
    released and spent, or none.

    Parameters
    ----------
    data : array-like of shape (n,)
        The private records, one finite number each (see
        :func:`sensampler.data_files.read_column` for a file's column).
    queries : sequence of str, Query or callable
        Queries by name (``"mean"``, ``"quantile:0.9"``, ...; see
        :func:`~sensampler.experiments.parse_query`) or as objects.
    population : Distribution or str
        The population model the data are assumed drawn from, or its spec
        (see :func:`load_population`).
    epsilon : float
        Each release's epsilon, ``> 0``.
    delta : float, default 0
        Each release's delta: 0 for ``"laplace"`` and ``"discrete-laplace"``,
        ``0 < delta < 1`` for the Gaussian mechanisms.
    gamma : float, default 0.05
        Random-DP failure probability of each sampling run, ``0 < gamma < 1``.
    mechanism : {"laplace", "gaussian", "discrete-laplace", "discrete-gaussian"}
        ``"gaussian"`` is Balle & Wang's analytic calibration; the discrete
        ones add exact noise on a grid from the OS's secure generator (the
        discrete Gaussian's zCDP is converted to (epsilon, delta), CKS 2020).
    granularity : float, optional
        Grid step of the discrete mechanisms (default: the largest power of 10
        at most 1/100 of the sampled sensitivity).
    column : str, optional
        The column of a ``bootstrap:FILE`` population.
    bound : {"exact", "exchangeable", "dkw"}, default "exact"
        The sampling plan's bound (:func:`sensampler.sampling_plan`).
    budget : PrivacyFilter, BudgetFile, path or None
        Where the releases are spent; a path is a :class:`BudgetFile` that
        must exist. A filter that is also the default filter
        (:func:`sensampler.accounting.default_filter`) records each release
        once; a different default is spent from as well.
    random_state : None, int, SeedSequence or Generator
        Seeds the sampling runs (query i uses child i); never the noise.
    n_jobs : int, optional
        Workers of the sampler.
    bounds : (low, high) or object with ``.low`` and ``.high``, optional
        Public bounds of the quantile queries (``median``, ``quantile:Q``),
        which use the exponential mechanism (plain epsilon-DP, no sampling);
        default: the population model's 0.001 and 0.999 quantiles
        (:data:`BOUNDS_COVERAGE`), at no privacy cost.
    report : str or os.PathLike, optional
        An HTML file to write the release report to
        (:func:`sensampler.report.release_report`: statements in words, figures
        inline, no private record); its folder is checked before anything is
        sampled or spent.

    Returns
    -------
    tuple of Release
        One per query, in order.

    Raises
    ------
    ExceededPrivacyBudgetError
        When the budget would be exceeded; nothing is released or written.
    """
    prepared = prepare_releases(
        data,
        queries,
        population,
        epsilon=epsilon,
        delta=delta,
        gamma=gamma,
        mechanism=mechanism,
        granularity=granularity,
        column=column,
        bound=bound,
        budget=budget,
        random_state=random_state,
        n_jobs=n_jobs,
        bounds=bounds,
    )
    if report is not None:
        check_report_path(report)
    releases = prepared.run()
    if report is not None:
        write_report(report, release_report(releases, budget=prepared.budget))
    return releases


def _trial(budget, statements, name: str | None = None) -> None:
    """Raise ExceededPrivacyBudgetError if ``statements`` do not all fit ``budget``
    (spent on a replica: the budget itself is not changed); ``name`` is the
    budget file's, for the message."""
    if isinstance(budget, BudgetFile):
        replica = budget.filter()
    else:
        replica = replay_filter(
            budget.epsilon_budget,
            budget.delta_budget,
            budget.active_rule or budget.rule,
            budget.gamma_budget,
            budget.ledger,
        )
    try:
        for statement in statements:
            replica.compose(statement)
    except ExceededPrivacyBudgetError as exc:
        if isinstance(budget, BudgetFile):
            name = budget.path
        if name is not None:
            raise ExceededPrivacyBudgetError(f"budget file {name}: {exc}") from None
        raise


def _draw(built, answers) -> list:
    """Release every answer, in its own shape: noise from fresh entropy, never
    from a seed."""
    values = []
    for (mech, _, _), answer in zip(built, answers):
        if isinstance(
            mech, (LaplaceMechanism, GaussianMechanism, ExponentialQuantileMechanism)
        ):
            out = mech.release(answer, random_state=np.random.default_rng())
        else:
            out = mech.release(answer)  # the OS's secure generator
        values.append(float(out) if np.ndim(out) == 0 else np.asarray(out, float))
    return values


def release_statistic(
    data,
    query: str | Query | Callable[[np.ndarray], Any],
    population,
    *,
    epsilon: float,
    delta: float = 0.0,
    gamma: float = 0.05,
    mechanism: str = "laplace",
    granularity: float | None = None,
    column: str | None = None,
    bound: str = "exact",
    budget: PrivacyFilter | BudgetFile | str | os.PathLike | None = None,
    random_state=None,
    n_jobs: int | None = None,
    bounds=None,
    report: str | os.PathLike | None = None,
) -> Release:
    """Release one statistic of ``data`` with a sensitivity sampled from ``population``.

    The parameters are those of :func:`release_statistics`, with one ``query``.

    Parameters
    ----------
    data : array-like of shape (n,)
        The private records, one finite number each (see
        :func:`sensampler.data_files.read_column` for a file's column).
    query : str, Query or callable
        The query by name (``"mean"``, ``"quantile:0.9"``, ...; see
        :func:`~sensampler.experiments.parse_query`) or as an object.
    population : Distribution or str
        The population model the data are assumed drawn from, or its spec
        (see :func:`load_population`).
    epsilon : float
        Each release's epsilon, ``> 0``.
    delta : float, default 0
        Each release's delta: 0 for ``"laplace"`` and ``"discrete-laplace"``,
        ``0 < delta < 1`` for the Gaussian mechanisms.
    gamma : float, default 0.05
        Random-DP failure probability of each sampling run, ``0 < gamma < 1``.
    mechanism : {"laplace", "gaussian", "discrete-laplace", "discrete-gaussian"}
        ``"gaussian"`` is Balle & Wang's analytic calibration; the discrete
        ones add exact noise on a grid from the OS's secure generator (the
        discrete Gaussian's zCDP is converted to (epsilon, delta), CKS 2020).
    granularity : float, optional
        Grid step of the discrete mechanisms (default: the largest power of 10
        at most 1/100 of the sampled sensitivity).
    column : str, optional
        The column of a ``bootstrap:FILE`` population.
    bound : {"exact", "exchangeable", "dkw"}, default "exact"
        The sampling plan's bound (:func:`sensampler.sampling_plan`).
    budget : PrivacyFilter, BudgetFile, path or None
        Where the releases are spent; a path is a :class:`BudgetFile` that
        must exist. A filter that is also the default filter
        (:func:`sensampler.accounting.default_filter`) records each release
        once; a different default is spent from as well.
    random_state : None, int, SeedSequence or Generator
        Seeds the sampling runs (query i uses child i); never the noise.
    n_jobs : int, optional
        Workers of the sampler.
    bounds : (low, high) or object with ``.low`` and ``.high``, optional
        Public bounds of the quantile queries (``median``, ``quantile:Q``),
        which use the exponential mechanism (plain epsilon-DP, no sampling);
        default: the population model's 0.001 and 0.999 quantiles
        (:data:`BOUNDS_COVERAGE`), at no privacy cost.
    report : str or os.PathLike, optional
        An HTML file to write the release report to (see
        :func:`release_statistics`).

    Returns
    -------
    Release
        The private answer (``.value``), its statement (``.statement``,
        ``.guarantee`` in words) and the sampled sensitivity (``.estimate``).

    Examples
    --------
    >>> import numpy as np
    >>> from sensampler.release import release_statistic
    >>> data = np.random.default_rng(0).normal(170, 10, size=500)
    >>> r = release_statistic(data, "mean", "normal:loc=170,scale=10",
    ...                       epsilon=1.0, random_state=0)
    >>> bool(abs(r.value - data.mean()) < 5)
    True
    >>> r.guarantee.startswith("epsilon=1-DP for replace-one neighbours (n=500")
    True
    """
    return release_statistics(
        data,
        [query],
        population,
        epsilon=epsilon,
        delta=delta,
        gamma=gamma,
        mechanism=mechanism,
        granularity=granularity,
        column=column,
        bound=bound,
        budget=budget,
        random_state=random_state,
        n_jobs=n_jobs,
        bounds=bounds,
        report=report,
    )[0]

