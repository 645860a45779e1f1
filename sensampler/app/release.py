r"""Release a statistic of your own data, with a sensitivity sampled from a population.

:func:`release_statistic` (and :func:`release_statistics` for several queries) does
the whole job a practitioner needs: it samples the query's sensitivity on
databases of the data's size drawn from a population model (a bootstrap of a
public table, a named model, a TOML file), calibrates a mechanism with it,
spends the release from a budget (a :class:`~sensampler.accounting.PrivacyFilter`
or a persistent :class:`~sensampler.app.budget_file.BudgetFile`) and releases once.

What is guaranteed is **random DP** (Hall, Rinaldo & Wasserman 2012; Rubinstein &
Aldà 2017, Thm. 3): the release is (epsilon, delta)-DP for replace-one
neighbours, except with probability gamma over the data drawn from the
population model (and over the sampling run). gamma is not delta: delta is a
probability over the mechanism's noise for *every* database; gamma is the chance
that the database is one for which the sampled sensitivity is too small, and then
nothing is guaranteed. Data the population model does not describe are not
covered. The number of records n is released as is: replace-one neighbours keep
it fixed.

``neighbours="add-remove"`` states everything for add/remove neighbours
instead (D and D with one record more): the sampled sensitivity, the
worst-case part, the quantile mechanism's utility sensitivity and a
private-bounds pre-pass all use that relation, and n >= 2 is required. The
mechanism is still calibrated for the data's n, which is published: the
statement covers pairs of n - 1 and n records, not the size itself. A budget
spends each statement under its own relation: a budget file's ledger, or a
filter holding replace-one statements, records an add/remove statement
converted by group privacy (:func:`~sensampler.privacy.to_replace_one`: twice
the epsilon, twice the gamma); a filter holding add/remove statements refuses
a replace-one release, which implies no add/remove guarantee.

Quantile queries (``median``, ``quantile:Q`` with one Q) are the exception:
they sample no sensitivity and release through the exponential mechanism over
public bounds (:class:`~sensampler.mechanisms.ExponentialQuantileMechanism`; by
default the population model's 0.0005 and 0.9995 quantiles), its weight scale
calibrated on pairs of neighbouring databases drawn from the population model
(:func:`~sensampler.quantile_calibration.calibrate_quantile`): epsilon-DP
except with probability gamma (random DP), and at most 4 epsilon-DP for every
pair (:class:`QuantileRelease`). Without a population, over private bounds
(a release over them is plain DP and samples nothing), or with a worst-case
cap at epsilon, it is the plain epsilon-DP mechanism, for every pair.

``random_state`` seeds the sampling run only (it is stated, so the run can be
drawn again). The noise is never seeded: it comes from fresh operating-system
entropy (numpy for ``"laplace"`` and ``"gaussian"``, the OS's secure generator
for the discrete mechanisms), since noise that can be drawn again can be
subtracted.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import numpy as np

from .. import distributions
from .._display.releases import release_html
from .._display.statements import statement_html
from .._lib.default_budget import exempt
from .._lib.domains import DELTA_RELEASE, EPSILON
from .._lib.validation import as_seed_sequence, check_choice, check_n_jobs, check_real
from ..accounting import (
    ExceededPrivacyBudgetError,
    PrivacyFilter,
    get_default_filter,
)
from ..bounds import (
    Bounds,
    check_private_bounds_epsilon,
    private_bounds,
    worst_case_sensitivity,
)
from ..distributions.empirical import check_not_private
from ..estimate import SensitivityEstimate
from ..mechanisms import (
    GaussianMechanism,
    LaplaceMechanism,
    analytic_gaussian_sigma,
)
from ..mechanisms.choice import (
    RELEASE_MECHANISMS,
    build_mechanism,
    quantile_level_of,
    quantile_mechanism,
    rho_for,
)
from ..mechanisms.quantile import QuantileCalibration, utility_sensitivity
from ..mechanisms.secure import FLOAT_POSITIONS
from ..parallel import child_seed
from ..plan import sampling_plan
from ..privacy import (
    NEIGHBOURS,
    PrivacyStatement,
    SamplingRun,
    format_dp,
    format_upper,
    size_words,
    to_replace_one,
)
from ..quantile_calibration import (
    calibrate_quantile,
    candidate_scales,
    check_calibration,
    plain_scale,
)
from ..queries import Query, as_query, identity
from ..sampler import check_neighbours, sample_sensitivity
from ._input_files import read_toml
from .budget_file import BudgetFile, replay_filter
from .data_files import PARQUET_SUFFIXES, read_column
from .experiments.specs import (
    QUERY_NAMES,
    build_population,
    check_sampling_memory,
    parse_population,
    parse_query,
)
from .report import check_report_path, release_report, write_report

__all__ = [
    "PreparedRelease",
    "QuantileRelease",
    "Release",
    "load_population",
    "prepare_releases",
    "quantile_bounds",
    "release_statistic",
    "release_statistics",
]

#: Queries a release may name: the built-in statistics (not ``identity``, which
#: publishes the records themselves).
RELEASE_QUERY_NAMES = tuple(name for name in QUERY_NAMES if name != "identity")

#: Bounds of a release when none are given: read from the population model.
DEFAULT_BOUNDS = "auto"

#: The statement of a private-bounds pre-pass, by its epsilon (see
#: :func:`sensampler.bounds.private_bounds`).
PRIVATE_BOUNDS = "private bounds (exponential mechanism, 2 quantiles)"

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
        :func:`~sensampler.app.experiments.parse_population`).
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
        return distributions.PublicSample(read_column(path, column))
    if spec.lower().endswith(".toml"):
        table = read_toml(spec, "population file")
        if not isinstance(table.get("population"), dict):
            raise ValueError(f"{spec}: needs a [population] table.")
        return build_population(table["population"])
    if spec.lower().endswith((".csv", *PARQUET_SUFFIXES)) and ":" not in spec:
        raise ValueError(
            f"population={spec!r} names a data file, not a model: write "
            f"'bootstrap:{spec}' to resample its column as the population."
        )
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
    bounds : Bounds or None
        The clipping bounds of the records (of the data and of every sampled
        database), or ``None``.
    price : str or None
        The price of a worst-case guarantee in words: the noise a plain-DP
        release at the same epsilon with the same bounds would need.
    basis : str, default ""
        What gamma rests on beyond the population model, in words: for a
        bootstrap of a public sample
        (:class:`~sensampler.distributions.PublicSample`), the public sample and
        the confidence over it.
    """

    query: str
    value: Any
    statement: PrivacyStatement
    estimate: SensitivityEstimate | None
    mechanism: str
    noise: str
    n: int
    bounds: Bounds | None = None
    price: str | None = None
    basis: str = ""

    @property
    def guarantee(self) -> str:
        """The guarantee in words: (epsilon, delta)-DP except with probability gamma."""
        s = self.statement
        dp = format_dp(s.epsilon, s.delta)
        dp += f" for {s.neighbours} neighbours ({size_words(s.neighbours, self.n)})"
        if s.source == "global":
            return f"{dp}, for every pair of neighbouring databases (plain DP)"
        text = GUARANTEE.format(dp=dp, gamma=format_upper(s.gamma, 4))
        return f"{text}; {self.basis}" if self.basis else text

    @property
    def worst_case(self) -> str:
        """What holds for every pair of neighbours, in words."""
        s = self.statement
        if s.source == "global":
            return "the guarantee above holds for every pair (no sampled sensitivity)"
        if s.worst_case is None:
            return (
                "none: where the population model does not describe the data the "
                "release may be exact (give bounds)"
            )
        return (
            f"{format_dp(s.worst_case.epsilon, s.worst_case.delta)} for every pair of "
            f"{s.neighbours} neighbours, records clipped to the bounds"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dictionary (no NaN or infinity).

        Returns
        -------
        dict
            The answer, the mechanism and the statement, in plain numbers and strings.
        """
        est = self.estimate
        worst = self.statement.worst_case
        b = self.bounds
        out = {
            "query": self.query,
            "answer": np.asarray(self.value, dtype=float).tolist(),
            "mechanism": self.mechanism,
            "noise": self.noise,
            "epsilon": self.statement.epsilon,
            "delta": self.statement.delta,
            "gamma": self.statement.gamma,
            "guarantee": self.guarantee,
            "worst_case": (
                None
                if worst is None
                else {"epsilon": worst.epsilon, "delta": worst.delta}
            ),
            "bounds": (
                None
                if b is None
                else {
                    "low": b.low,
                    "high": b.high,
                    "source": b.source,
                    "epsilon": b.epsilon,
                    "note": b.note,
                }
            ),
            "price": self.price,
            "basis": self.basis,
            "n": self.n,
            "neighbours": self.statement.neighbours,
        }
        if est is None:
            return out
        return {
            **out,
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
        return release_html(self, statement_html(self.statement))

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
        head = [
            f"{self.query}: {answer}",
            f"  guarantee  {self.guarantee}",
        ]
        if est is None and self.statement.gamma > 0:  # a quantile's sampled scale
            head.append(
                "             (gamma is not delta: with probability gamma the "
                "sampled calibration is too weak for the data, and only the worst "
                "case below is guaranteed)"
            )
        floor = [f"  worst case {self.worst_case}"]
        if self.bounds is not None:
            floor.append(f"  bounds     {self.bounds.describe()}")
        if self.price is not None:
            floor.append(f"  price      {self.price}")
        if est is None:
            return "\n".join(
                head
                + [f"  mechanism  {self.statement.mechanism}, {self.noise}"]
                + floor
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
            head
            + [
                "             (gamma is not delta: with probability gamma the "
                "sampled sensitivity is too small for the data, and nothing is "
                "guaranteed)",
            ]
            + floor
            + [
                f"  mechanism  {self.statement.mechanism}, {self.noise}",
                f"  sensitivity {sens_text} ({est.norm}; "
                f"order statistic k={est.k} of m={est.m} sampled pairs)",
                f"  run        {est.run_id} (sampling seed: {seed_text})",
                f"  plan       {est.bound}: {est.plan.meaning}",
            ]
        )


@dataclass(frozen=True)
class QuantileRelease(Release):
    """A quantile released by the exponential mechanism over bounds.

    :class:`~sensampler.mechanisms.ExponentialQuantileMechanism`, with a
    population model calibrated on its sampled privacy loss
    (:func:`~sensampler.quantile_calibration.calibrate_quantile`): the
    statement is then (epsilon, 0)-random DP with the calibration's gamma, and
    its worst-case part plain DP for every pair (at most 4 epsilon). Without a
    population, over private bounds (drawn from the data, where the
    calibration's gamma needs bounds fixed before them), under a worst-case cap
    at epsilon, or where no sampled scale beats the plain one, it is plain
    epsilon-DP for every pair, with no gamma.
    ``estimate`` is ``None`` (no sensitivity is sampled); ``mechanism`` is
    ``"exponential"``, ``noise`` the mechanism's utility, scale and range in
    words, ``bounds`` the range the records were clipped to and the output
    lies in, and ``price`` the plain scale a worst-case guarantee at epsilon
    would need (``None`` for the plain mechanism).

    Parameters
    ----------
    query, value, statement, estimate, mechanism, noise, n, bounds, price, basis
        As in :class:`Release`.
    calibration : QuantileCalibration or None
        The sampled scale and its run, or ``None`` (plain epsilon-DP).
    """

    calibration: QuantileCalibration | None = None

    @property
    def guarantee(self) -> str:
        """The guarantee in words: random DP with gamma (a calibrated scale), or
        plain (epsilon, 0)-DP for every database."""
        s = self.statement
        if s.source == "sampled":
            return super().guarantee
        return WORST_CASE_GUARANTEE.format(
            dp=f"{format_dp(s.epsilon, s.delta)} for {s.neighbours} neighbours "
            f"({size_words(s.neighbours, self.n)})"
        )

    def to_dict(self) -> dict[str, Any]:
        """:meth:`Release.to_dict`, with the calibration's scale and run.

        Returns
        -------
        dict
        """
        out = super().to_dict()
        cal = self.calibration
        if cal is None:
            return out
        run = cal.run
        return {
            **out,
            "scale": cal.scale,
            "run_id": run.run_id,
            "seed": None if run.seed is None else [run.seed[0], list(run.seed[1])],
            "m": run.m,
            "k": run.k,
            "bound": run.bound,
        }


def _query_name(query, given) -> str:
    if isinstance(given, str):
        return given.strip()
    return str(getattr(query, "name", None) or getattr(given, "__name__", "query"))


def _check_sampling(name, query, population, n, mechanism, gamma, bound, n_jobs):
    """Refuse a sampling run that would not fit in memory, naming the query."""
    try:
        check_sampling_memory(
            query, population, n, gamma=gamma, bound=bound,
            norm=RELEASE_MECHANISMS[mechanism], n_jobs=n_jobs,
        )
    except ValueError as exc:
        where = (  # the probe's records come from the model, not the data
            "on a probe database drawn from the population model"
            if f"query {name!r}" in str(exc)
            else f"query {name!r}"
        )
        raise ValueError(f"{where}: {exc}") from None


def _check_runs(
    names, parsed, population, n, *, mechanism, gamma, bound, n_jobs, exponential
) -> None:
    """What the sampling runs need, checked before any answer or sample.

    A query that publishes the records themselves (``identity``) is refused: it
    reads records by position, and the sampler refuses it after sampling. Each
    run must fit in memory with ``n_jobs`` workers
    (:func:`~sensampler.app.experiments.specs.check_sampling_memory`, which also
    meets the query with the population on a probe database); a quantile
    released by the exponential mechanism (``exponential``) samples no
    sensitivity.
    """
    for name, query, plain in zip(names, parsed, exponential):
        if query is identity:
            raise ValueError(
                f"query {name!r} publishes the records themselves, by position, "
                "which random DP does not cover (a record can get sensitivity 0 "
                "and be published exactly); release a statistic: "
                f"{', '.join(RELEASE_QUERY_NAMES)}."
            )
        if population is not None and not plain:  # else nothing is sampled
            _check_sampling(name, query, population, n, mechanism, gamma, bound, n_jobs)


def _check_grid(names, answers, mechanism, granularity) -> None:
    """A discrete mechanism's grid must hold each answer exactly in a float
    release (:data:`~sensampler.mechanisms.secure.FLOAT_POSITIONS`). The message
    never quotes an answer: it is private."""
    if granularity is None or not mechanism.startswith("discrete"):
        return
    grid = Fraction(granularity)
    for name, answer in zip(names, answers):
        if any(abs(Fraction(float(v)) / grid) >= FLOAT_POSITIONS for v in answer.flat):
            raise ValueError(
                f"granularity={granularity!r} is too fine for the answer of query "
                f"{name!r}: a float release holds the grid position |answer| / "
                "granularity exactly only below 2**52 steps (the answer is not "
                "shown: it is private); use a coarser granularity."
            )


def _check_data(data) -> np.ndarray:
    if isinstance(data, (str, bytes)):
        raise TypeError(
            "data must be an array of numbers (read a file with "
            "sensampler.app.data_files.read_column), got a str."
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
    if population is None:
        return None
    if isinstance(population, str):
        population = load_population(population, column=column)
    given = population
    population = distributions.as_distribution(population)
    if type(population) is distributions.Empirical and population is not given:
        # public records as an array: gamma for this public sample, as bootstrap:
        population = distributions.PublicSample(population.data)
    shape = tuple(getattr(population, "record_shape", ()))
    if shape != ():
        raise ValueError(
            f"population draws records of shape {shape}, but the data hold one "
            "number per record."
        )
    return population


def _check_public_sample(population, data: np.ndarray, plan, spec=None) -> None:
    """Refuse a bootstrap of the private data (or of a near copy of them), or a
    public sample too small for the plan, before any work; ``spec``: the
    population as given, named in the message when it is a str."""
    if isinstance(population, distributions.Empirical):
        check_not_private(population.data, data, spec if isinstance(spec, str) else None)
    if isinstance(population, distributions.PublicSample):
        population.check_plan(plan)


def _basis(population, estimate, calibration) -> str:
    """What the release's gamma rests on beyond the population model: for a
    public sample, the sample and the confidence over it (of the sampled
    sensitivity, or of a quantile's calibration); nothing for a plain release."""
    if not isinstance(population, distributions.PublicSample):
        return ""
    if estimate is not None:
        return population.basis(estimate.plan)
    return "" if calibration is None else calibration.population


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


def quantile_bounds(population, bounds=DEFAULT_BOUNDS) -> tuple[float, float, str]:
    """The public bounds of a quantile release and where they came from.

    Parameters
    ----------
    population : Distribution
        The population model.
    bounds : "auto", "LOW:HIGH", (low, high) or Bounds, default "auto"
        As the release takes them (:func:`release_statistics`), public ones only:
        ``"auto"`` reads the population model's quantiles at no privacy cost
        (:meth:`sensampler.bounds.Bounds.from_population`); ``None`` is read as
        ``"auto"``. Private bounds are refused: planning reads no private data.

    Returns
    -------
    (low, high, source) : (float, float, str)
        The bounds and their source in words.
    """
    known, private_epsilon = _check_bounds(
        DEFAULT_BOUNDS if bounds is None else bounds, population
    )
    if private_epsilon is not None:
        raise ValueError(
            "bounds='private:EPS0' are estimated from the private data, which a plan "
            "never reads: give public bounds ('auto' or 'LOW:HIGH')."
        )
    return known.low, known.high, known.describe()


def _samples_a_scale(query, epsilon, neighbours, population, worst_case_epsilon):
    """Whether a one-quantile query's release may sample its scale: with a
    population (none over private bounds: see :func:`prepare_releases`), where
    the worst-case cap allows a scale above the plain one (a cap at epsilon
    keeps the plain epsilon-DP mechanism, with no gamma)."""
    level = quantile_level_of(query)
    if level is None or population is None:
        return False
    du = utility_sensitivity(level, neighbours)
    return candidate_scales(epsilon, du, worst_case_epsilon).size > 0


def _calibration(
    query, bounds, epsilon, population, n, *, seed, neighbours, worst_case_epsilon,
    **plan,
):
    """The sampled scale of a one-quantile query's mechanism
    (:func:`~sensampler.quantile_calibration.calibrate_quantile`), or None: no
    quantile, no bounds, no population or a cap that allows no sampled scale
    (:func:`_samples_a_scale`; plain epsilon-DP), or no sampled scale above the
    plain one."""
    if bounds is None or not _samples_a_scale(
        query, epsilon, neighbours, population, worst_case_epsilon
    ):
        return None
    return calibrate_quantile(
        quantile_level_of(query), (bounds.low, bounds.high), epsilon, population, n,
        random_state=seed, neighbours=neighbours,
        worst_case_epsilon=worst_case_epsilon, **plan,
    )


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
        noise = f"Laplace noise of scale {worst / epsilon:.6g}"
    else:
        noise = f"Gaussian noise of sigma {worst * analytic_gaussian_sigma(epsilon, delta):.6g}"
    return (
        f"a worst-case guarantee at {dp} with the same bounds would need {noise} "
        f"(worst-case sensitivity {worst:.6g})"
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
        check_real("granularity", granularity, low=sys.float_info.min)
    plan = sampling_plan(gamma=gamma, bound=bound)
    if needs_delta:  # the calibration itself, on a unit sensitivity
        if mechanism == "gaussian":
            GaussianMechanism(1.0, epsilon, delta)
        else:
            rho_for(epsilon, delta)
    if granularity is not None:  # the least noise the grid allows: one step
        try:
            build_mechanism(mechanism, granularity, epsilon, delta, granularity, 1)
        except ValueError as exc:
            raise ValueError(
                f"granularity={granularity!r} is too coarse for epsilon={epsilon!r}: "
                f"even a sensitivity of one grid step fails ({exc})"
            ) from None
    return epsilon, delta, plan


def sampling_run(prepared, query, n: int, norm: str, bounds, index: int):
    """Sampling run ``index`` of the sensitivity of ``query`` on ``n`` records,
    with ``prepared``'s population, gamma, plan bound, neighbours, seed
    (``child_seed(prepared.root, index)``) and jobs: a release's runs
    (:class:`PreparedRelease`), and the plan's, which draw them as the
    release does (:class:`~sensampler.app.planning.PreparedPlan`)."""
    return sample_sensitivity(
        query,
        prepared.population,
        n,
        gamma=prepared.gamma,
        norm=norm,
        bound=prepared.bound,
        neighbours=prepared.neighbours,
        bounds=bounds,
        random_state=child_seed(prepared.root, index),
        n_jobs=prepared.n_jobs,
    )


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
    bounds : Bounds or None
        Clipping bounds known before the release (from the population or
        given); ``None`` without bounds or for private ones.
    private_epsilon : float or None
        The epsilon of a private-bounds pre-pass (``None``: none).
    worst_case_epsilon : float or None
        The cap on each release's worst-case epsilon (``None``: the
        mechanisms' default, 10 times ``epsilon``).
    neighbours : {"replace-one", "add-remove"}
        The neighbouring relation of every statement, checked with n.
    planned : tuple of PrivacyStatement
        Upper bounds on what the run spends, in order: the private-bounds
        pre-pass first (if any), then each release. A pre-pass is spent only
        once every filter it is spent from can hold all of them.
    """

    # the private records and their exact answers: never shown (repr, tracebacks)
    data: np.ndarray = field(repr=False)
    queries: tuple
    names: tuple[str, ...]
    answers: tuple[np.ndarray, ...] = field(repr=False)
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
    bounds: Bounds | None = None
    private_epsilon: float | None = None
    worst_case_epsilon: float | None = None
    neighbours: str = NEIGHBOURS
    planned: tuple = ()

    def _private_bounds(self) -> Bounds:
        """Spend the pre-pass's epsilon from the budget, then estimate the bounds.

        Every budget spent from (the budget, and a different default filter) is
        first tried with the whole run (:attr:`planned`: the pre-pass and every
        release), so that a budget too small for the releases refuses before
        the pre-pass is spent, not after.
        """
        statement = PrivacyStatement(
            PRIVATE_BOUNDS, self.private_epsilon, 0.0, neighbours=self.neighbours
        )
        return _spend_then(
            _budgets(self.budget),
            [statement],
            ["private bounds"],
            lambda: private_bounds(
                self.data, self.private_epsilon, neighbours=self.neighbours
            ),
            tried=self.planned or (statement,),  # built by hand: the pre-pass only
        )

    def run(self) -> tuple[Release, ...]:
        """Sample each query's sensitivity, spend, release; see :func:`release_statistics`.

        With private bounds, their pre-pass is spent and drawn first, once
        every check that does not depend on the bounds has passed: the inputs
        (:func:`prepare_releases`) and the budget, tried with the pre-pass and
        every release together (:attr:`planned`). What can still refuse
        afterwards depends on the private bounds (the sensitivity sampled on
        records clipped to them, a sampled 0 without a worst case, a discrete
        grid too fine for the clipped answer) or on a spend made meanwhile by
        another process; such a refusal leaves the pre-pass recorded, as it
        must: the refusal itself is computed from the private bounds.

        Returns
        -------
        tuple of Release
            One per query, in order.
        """
        bounds, answers = self.bounds, self.answers
        norm = RELEASE_MECHANISMS[self.mechanism]
        if self.private_epsilon is not None:
            bounds = self._private_bounds()
            answers = _answers(self.names, self.queries, bounds.clip(self.data))
        calibrations = [
            _calibration(
                q, bounds, self.epsilon, self.population, self.data.size,
                seed=child_seed(self.root, i), gamma=self.gamma, bound=self.bound,
                neighbours=self.neighbours, worst_case_epsilon=self.worst_case_epsilon,
            )
            for i, q in enumerate(self.queries)
        ]
        # the plain mechanism under a cap below epsilon: at the cap, which it
        # then states (its worst case is its epsilon)
        plain = min(self.epsilon, self.worst_case_epsilon or math.inf)
        quantiles = [
            quantile_mechanism(
                q, bounds, self.epsilon if cal else plain, self.neighbours, cal
            )
            for q, cal in zip(self.queries, calibrations)
        ]
        if self.population is None:  # plain DP: the worst case is the sensitivity
            estimates = [None] * len(self.queries)
            sensitivities = [
                None
                if quantile is not None
                else worst_case_sensitivity(
                    q, bounds, self.data.size, self.neighbours, norm
                )
                for q, quantile in zip(self.queries, quantiles)
            ]
        else:
            estimates = sensitivities = [
                None
                if quantile is not None
                else sampling_run(self, query, self.data.size, norm, bounds, i)
                for i, (query, quantile) in enumerate(zip(self.queries, quantiles))
            ]
        built = [
            quantile[:3]
            if quantile is not None
            else build_mechanism(
                self.mechanism,
                sensitivity,
                self.epsilon,
                self.delta,
                self.granularity,
                max(1, answer.size),
                self.worst_case_epsilon,
            )
            for sensitivity, answer, quantile in zip(sensitivities, answers, quantiles)
        ]
        # what each mechanism reads: the exact answer, or the data (a quantile's)
        inputs = [
            answer if quantile is None else self.data
            for answer, quantile in zip(answers, quantiles)
        ]
        for (mech, _, _), value in zip(built, inputs):
            mech.check_release(value)  # refused before anything is spent
        if self.population is None:  # a global sensitivity of the relation's pairs
            built = [
                (mech, replace(statement, neighbours=self.neighbours), noise)
                for mech, statement, noise in built
            ]
        statements = [statement for _, statement, _ in built]
        labels = [
            f"{name} ({self.mechanism if q is None else 'exponential'})"
            for name, q in zip(self.names, quantiles)
        ]
        values = _spend_then(
            _budgets(self.budget), statements, labels, lambda: _draw(built, inputs)
        )
        return tuple(
            (Release if quantile is None else QuantileRelease)(
                name,
                value,
                statement,
                est,
                self.mechanism if quantile is None else "exponential",
                noise,
                self.data.size,
                bounds,
                _price(self.mechanism, est, self.epsilon, self.delta)
                if quantile is None
                else _quantile_price(quantile[0], self.epsilon),
                _basis(self.population, est, cal),
                *(() if quantile is None else (cal,)),
            )
            for name, value, (_, statement, noise), est, quantile, cal in zip(
                self.names, values, built, estimates, quantiles, calibrations
            )
        )


def _answers(names, queries, data) -> tuple[np.ndarray, ...]:
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


def _check_bounds(bounds, population) -> tuple[Bounds | None, float | None]:
    """``(bounds known now, epsilon of a private pre-pass)`` from the ``bounds`` input."""
    if bounds is None or isinstance(bounds, Bounds):
        return bounds, None
    if isinstance(bounds, str):
        text = bounds.strip()
        if text == "auto":
            if population is None:
                raise ValueError(
                    "bounds='auto' reads the bounds from the population model; give "
                    "a population, bounds='LOW:HIGH' or bounds='private:EPS0'."
                )
            return Bounds.from_population(population), None
        if text.startswith("private:"):
            try:
                eps0 = float(text[len("private:") :])
            except ValueError:
                eps0 = math.nan
            if not (math.isfinite(eps0) and eps0 > 0):
                raise ValueError(
                    "bounds='private:EPS0' needs the pre-pass's epsilon, finite and "
                    f"> 0, got bounds={bounds!r}."
                )
            return None, eps0
        parts = text.split(":")
        try:
            low, high = (float(p) for p in parts)
        except ValueError:
            raise ValueError(
                "bounds must be 'auto', 'LOW:HIGH' or 'private:EPS0', got "
                f"bounds={bounds!r}."
            ) from None
        return Bounds.given(low, high), None
    if isinstance(bounds, (tuple, list)) and len(bounds) == 2:
        return Bounds.given(*bounds), None
    raise TypeError(
        "bounds must be None, 'auto', 'LOW:HIGH', 'private:EPS0', a (low, high) "
        f"pair or a sensampler.bounds.Bounds, got {bounds!r}."
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
    bounds: Bounds | str | tuple[float, float] | None = DEFAULT_BOUNDS,
    worst_case_epsilon: float | None = None,
    neighbours: str = NEIGHBOURS,
) -> PreparedRelease:
    """Check every input of :func:`release_statistics` and the budget; sample nothing.

    Takes the parameters of :func:`release_statistics`.

    Parameters
    ----------
    data : array-like of shape (n,)
        The private records, one finite number each (see
        :func:`sensampler.app.data_files.read_column` for a file's column).
    queries : sequence of str, Query or callable
        Queries by name (``"mean"``, ``"quantile:0.9"``, ...; see
        :func:`~sensampler.app.experiments.parse_query`) or as objects.
    population : Distribution, str or array-like
        The population model the data are assumed drawn from, or its spec
        (see :func:`load_population`); public records as an array are
        bootstrapped as a :class:`~sensampler.distributions.PublicSample`.
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
        must exist. ``None``: the default filter
        (:func:`sensampler.accounting.default_filter`), if one is set. A filter
        that is also the default filter records each release once; a different
        default is spent from as well. Every filter spent from is tried with
        all the releases before any is spent: all or nothing.
    random_state : None, int, SeedSequence or Generator
        Seeds the sampling runs (query i uses child i); never the noise.
    n_jobs : int, optional
        Workers of the sampler.
    bounds : "auto", "LOW:HIGH", "private:EPS0", (low, high), Bounds or None
        Clipping bounds of the records, in the data and in every sampled
        database (:mod:`sensampler.bounds`). ``"auto"`` (default): from the
        population model, at no privacy cost; ``"LOW:HIGH"`` or a pair:
        given; ``"private:EPS0"``: estimated from the data under
        EPS0-DP (spent from the budget first), and then the release is plain
        DP, calibrated with the worst-case sensitivity over them: ``population``
        may be ``None``, and is not used if given (random DP holds for bounds
        fixed before the data are drawn). With bounds, each release also states plain DP for
        every pair of neighbours (``statement.worst_case``) and its noise
        has a floor; ``None``: random DP only, and a sampled sensitivity of 0
        is refused.
        The quantile queries (``median``, ``quantile:Q``) are released by the
        exponential mechanism over these bounds, its scale calibrated on the
        population model (random DP with gamma, and a worst case of at most 4
        epsilon: :class:`QuantileRelease`), or plain epsilon-DP without a
        population; without bounds, like any statistic (random DP).
    worst_case_epsilon : float, optional
        Cap on each release's worst-case epsilon (default: 10 times
        ``epsilon``; a quantile's scale keeps its own within 4 times): the
        noise is raised to meet it. Equal to ``epsilon``, a quantile is
        released by the plain epsilon-DP mechanism (no gamma).
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The neighbouring relation of every statement: the sampled
        sensitivity, the worst-case part, the quantile mechanism and a
        private-bounds pre-pass use it (``"add-remove"`` needs n >= 2; the
        data's n is still published). A replace-one budget (a budget file, or
        a filter holding replace-one statements) records an add/remove
        statement converted by group privacy
        (:func:`sensampler.privacy.to_replace_one`: twice the epsilon and the
        gamma); a filter holding add/remove statements refuses a replace-one
        release.

    Returns
    -------
    PreparedRelease
        Its :meth:`~PreparedRelease.run` samples, spends and releases.

    Raises
    ------
    ExceededPrivacyBudgetError
        When the planned releases (each at ``epsilon``, ``delta`` and the
        plan's gamma, which bound what is spent, converted to the budget's
        relation) do not fit the budget.
    ValueError
        For a bad input, and for a replace-one release charged to a filter
        holding add/remove statements.
    """
    arr = _check_data(data)
    neighbours = check_neighbours(neighbours, arr.size)
    if isinstance(queries, (str, bytes)) or not isinstance(queries, Sequence):
        raise TypeError(f"queries must be a sequence of queries, got {queries!r}.")
    if not queries:
        raise ValueError("queries must not be empty.")
    parsed = tuple(
        as_query(parse_query(q) if isinstance(q, str) else q) for q in queries
    )
    names = tuple(_query_name(q, given) for q, given in zip(parsed, queries))
    spec, population = population, _check_population(population, column)
    epsilon, delta, plan = _check_settings(
        mechanism, epsilon, delta, gamma, granularity, bound
    )
    _check_public_sample(population, arr, plan, spec)  # before its bounds are read
    known, private_epsilon = _check_bounds(bounds, population)
    if population is None and private_epsilon is None:
        raise ValueError(
            "population must be given (a model or bootstrap:FILE), unless the "
            "bounds are estimated from the data (bounds='private:EPS0'): the "
            "release is then plain DP."
        )
    if private_epsilon is not None:
        # Random DP holds for bounds fixed before the data are drawn; private
        # bounds are drawn from the data: the release is plain DP, calibrated
        # with the worst case over them, and samples nothing from a population.
        population = None
    if worst_case_epsilon is not None:
        worst_case_epsilon = EPSILON.check("worst_case_epsilon", worst_case_epsilon)
    budget = _check_budget(budget)
    root = as_seed_sequence(random_state)
    n_jobs = check_n_jobs(n_jobs)
    # quantile queries over bounds: the exponential mechanism (plain DP, or
    # random DP with a scale sampled from the population)
    exponential = [
        getattr(q, "quantile_level", None) is not None
        and (known is not None or private_epsilon is not None)
        for q in parsed
    ]
    _check_runs(
        names, parsed, population, arr.size,
        mechanism=mechanism, gamma=gamma, bound=bound, n_jobs=n_jobs,
        exponential=exponential,
    )
    answers = _answers(names, parsed, arr if known is None else known.clip(arr))
    _check_grid(names, answers, mechanism, granularity)
    if known is not None:  # degenerate bounds are refused before any spend
        for query in parsed:
            quantile_mechanism(query, known, epsilon, neighbours)
    # a calibration's inputs and memory, before any spend; its plan (its own m)
    # gives the gamma it spends
    scaled = [
        expo and _samples_a_scale(
            query, epsilon, neighbours, population, worst_case_epsilon
        )
        for query, expo in zip(parsed, exponential)
    ]
    plans = [
        check_calibration(
            quantile_level_of(query), (0.0, 1.0), epsilon, population, arr.size,
            gamma=gamma, bound=bound, neighbours=neighbours,
        )[3]
        if sampled_scale
        else plan
        for query, sampled_scale in zip(parsed, scaled)
    ]
    if population is None:
        unit = Bounds.given(0.0, 1.0)
        norm = RELEASE_MECHANISMS[mechanism]
        for name, query, plain in zip(names, parsed, exponential):
            if plain:
                continue
            if worst_case_sensitivity(query, unit, arr.size, neighbours, norm) is None:
                raise ValueError(
                    f"the query {name!r} has no worst-case sensitivity on clipped "
                    f"records (in the {norm} norm): give a population to sample it."
                )
    if private_epsilon is not None:  # reads n only: a pre-pass that can work
        check_private_bounds_epsilon(
            private_epsilon, arr.size, neighbours, name="eps0"
        )
    # planned spends: upper bounds on the real ones, under the same relation; an
    # exponential quantile's as it spends them (no delta; the plain mechanism at
    # a cap below epsilon), since a filter's "auto" rule is chosen on the first
    plain_epsilon = min(epsilon, worst_case_epsilon or math.inf)
    planned = [
        PrivacyStatement(
            "planned", plain_epsilon, 0.0, source="global", neighbours=neighbours
        )
        if plain and not sampled_scale
        else PrivacyStatement(
            "planned",
            epsilon,
            0.0 if plain else delta,
            run=None
            if population is None
            else SamplingRun(f"planned-{i}", run_plan.gamma, neighbours=neighbours),
            source="global" if population is None else "sampled",
            neighbours=neighbours,
        )
        for i, (plain, sampled_scale, run_plan) in enumerate(
            zip(exponential, scaled, plans)
        )
    ]
    if private_epsilon is not None:
        planned.insert(
            0, PrivacyStatement(PRIVATE_BOUNDS, private_epsilon, 0.0, neighbours=neighbours)
        )
    for spent in _budgets(budget):
        _trial(spent, _charged(spent, planned))
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
        known,
        private_epsilon,
        worst_case_epsilon,
        neighbours,
        tuple(planned),
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
    bounds: Bounds | str | tuple[float, float] | None = DEFAULT_BOUNDS,
    worst_case_epsilon: float | None = None,
    neighbours: str = NEIGHBOURS,
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
        :func:`sensampler.app.data_files.read_column` for a file's column).
    queries : sequence of str, Query or callable
        Queries by name (``"mean"``, ``"quantile:0.9"``, ...; see
        :func:`~sensampler.app.experiments.parse_query`) or as objects.
    population : Distribution, str or array-like
        The population model the data are assumed drawn from, or its spec
        (see :func:`load_population`); public records as an array are
        bootstrapped as a :class:`~sensampler.distributions.PublicSample`.
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
        must exist. ``None``: the default filter
        (:func:`sensampler.accounting.default_filter`), if one is set. A filter
        that is also the default filter records each release once; a different
        default is spent from as well. Every filter spent from is tried with
        all the releases before any is spent: all or nothing.
    random_state : None, int, SeedSequence or Generator
        Seeds the sampling runs (query i uses child i); never the noise.
    n_jobs : int, optional
        Workers of the sampler.
    bounds : "auto", "LOW:HIGH", "private:EPS0", (low, high), Bounds or None
        Clipping bounds of the records, in the data and in every sampled
        database (:mod:`sensampler.bounds`). ``"auto"`` (default): from the
        population model, at no privacy cost; ``"LOW:HIGH"`` or a pair:
        given; ``"private:EPS0"``: estimated from the data under
        EPS0-DP (spent from the budget first), and then the release is plain
        DP, calibrated with the worst-case sensitivity over them: ``population``
        may be ``None``, and is not used if given (random DP holds for bounds
        fixed before the data are drawn). With bounds, each release also states plain DP for
        every pair of neighbours (``statement.worst_case``) and its noise
        has a floor; ``None``: random DP only, and a sampled sensitivity of 0
        is refused.
        The quantile queries (``median``, ``quantile:Q``) are released by the
        exponential mechanism over these bounds, its scale calibrated on the
        population model (random DP with gamma, and a worst case of at most 4
        epsilon: :class:`QuantileRelease`), or plain epsilon-DP without a
        population; without bounds, like any statistic (random DP).
    worst_case_epsilon : float, optional
        Cap on each release's worst-case epsilon (default: 10 times
        ``epsilon``; a quantile's scale keeps its own within 4 times): the
        noise is raised to meet it. Equal to ``epsilon``, a quantile is
        released by the plain epsilon-DP mechanism (no gamma).
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The neighbouring relation of every statement: the sampled
        sensitivity, the worst-case part, the quantile mechanism and a
        private-bounds pre-pass use it (``"add-remove"`` needs n >= 2; the
        data's n is still published). A replace-one budget (a budget file, or
        a filter holding replace-one statements) records an add/remove
        statement converted by group privacy
        (:func:`sensampler.privacy.to_replace_one`: twice the epsilon and the
        gamma); a filter holding add/remove statements refuses a replace-one
        release.
    report : str or os.PathLike, optional
        An HTML file to write the release report to
        (:func:`sensampler.app.report.release_report`: statements in words, figures
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
        worst_case_epsilon=worst_case_epsilon,
        neighbours=neighbours,
    )
    if report is not None:
        ledger = prepared.budget.path if isinstance(prepared.budget, BudgetFile) else None
        check_report_path(report, inputs=[("budget file", ledger)])
    releases = prepared.run()
    if report is not None:
        write_report(report, release_report(releases, budget=prepared.budget))
    return releases


def _trial(budget, statements, name: str | None = None) -> None:
    """Raise ExceededPrivacyBudgetError if ``statements`` do not all fit ``budget``
    (spent on a replica: the budget itself is not changed); ``name`` is the
    budget file's, for the message. A budget file must also be writable
    (:meth:`BudgetFile.check_writable`)."""
    if isinstance(budget, BudgetFile):
        budget.check_writable()  # a ledger or lock that cannot be written
        replica = budget.filter()
    elif not isinstance(budget, PrivacyFilter):  # a default of another kind: it
        return  # checks each statement as it is composed
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


def _budgets(budget) -> list:
    """Every budget a release spends from: ``budget`` (else the default filter),
    and the default filter too when it is another one."""
    default = get_default_filter()
    first = default if budget is None else budget
    spent = [] if first is None else [first]
    if default is not None and default is not first:
        spent.append(default)
    return spent


def _relation_of(budget) -> str | None:
    """The neighbouring relation ``budget`` records: replace-one for a budget
    file's ledger; for a filter, that of its first statement (``None`` before)."""
    if isinstance(budget, BudgetFile):
        return NEIGHBOURS
    return getattr(budget, "neighbours", None)


def _charged(budget, statements) -> list[PrivacyStatement]:
    """``statements`` as ``budget`` records them, under its relation.

    An add/remove statement charged to a replace-one budget is converted by
    group privacy (:func:`~sensampler.privacy.to_replace_one`: a replacement is
    a removal and an addition, so (epsilon, delta) becomes (2 epsilon,
    (1 + e^epsilon) delta) and gamma doubles; Dwork & Roth 2014, Thm. 2.2). A
    replace-one statement implies no add/remove one (it holds for databases of
    one size only), so an add/remove budget refuses it, before any spend.
    """
    relation = _relation_of(budget)
    if relation == "replace-one":
        return [to_replace_one(s) for s in statements]
    for s in statements:
        if relation is not None and s.neighbours != relation:
            raise ValueError(
                f"the budget holds statements for {relation} neighbours, and "
                f"{s.mechanism} holds for {s.neighbours} neighbours, which implies "
                f"no {relation} guarantee: release with neighbours={relation!r}, "
                "or spend from another budget."
            )
    return list(statements)


def _spend_then(budgets, statements, labels, draw, tried=None):
    """Spend ``statements`` from every budget, each under its own relation
    (:func:`_charged`), then return ``draw()``, during which no mechanism
    spends again: all or nothing, every budget tried before any is spent. A
    budget file stays locked from reading to writing, the draw included.
    ``tried`` (default ``statements``) is what each budget must hold for the
    spend to go ahead: the whole run, when ``statements`` is its first part.
    Each in-memory budget records the run all or none, held while it does
    (:meth:`~sensampler.accounting.PrivacyAccountant.compose_all`). A default
    filter of another kind than :class:`PrivacyFilter` cannot be tried: it is
    charged before the filters, so that its refusal leaves them as they were."""
    tried = statements if tried is None else tried
    charged = [(budget, _charged(budget, statements)) for budget in budgets]
    for budget, _ in charged:
        if not isinstance(budget, BudgetFile):
            _trial(budget, _charged(budget, tried))
    files = [(budget, spends) for budget, spends in charged if isinstance(budget, BudgetFile)]
    with contextlib.ExitStack() as stack:
        for budget, spends in files:
            session = stack.enter_context(budget.session())
            _trial(session.filter, _charged(budget, tried), name=budget.path)
            for statement, label in zip(spends, labels):
                session.spend(statement, label)
        # a default of another kind first: it cannot be tried, so it may still
        # refuse, before the filters (tried above) are charged
        for budget, spends in sorted(
            charged, key=lambda pair: isinstance(pair[0], PrivacyFilter)
        ):
            if not isinstance(budget, BudgetFile):
                budget.compose_all(spends)  # held: all or none
        with exempt():  # spent above: not again by the mechanisms
            return draw()


def _draw(built, answers) -> list:
    """Release every answer, in its own shape: noise from fresh entropy, never
    from a seed."""
    values = []
    for (mech, _, _), answer in zip(built, answers):
        if isinstance(mech, (LaplaceMechanism, GaussianMechanism)):
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
    bounds: Bounds | str | tuple[float, float] | None = DEFAULT_BOUNDS,
    worst_case_epsilon: float | None = None,
    neighbours: str = NEIGHBOURS,
    report: str | os.PathLike | None = None,
) -> Release:
    """Release one statistic of ``data`` with a sensitivity sampled from ``population``.

    The parameters are those of :func:`release_statistics`, with one ``query``.

    Parameters
    ----------
    data : array-like of shape (n,)
        The private records, one finite number each (see
        :func:`sensampler.app.data_files.read_column` for a file's column).
    query : str, Query or callable
        The query by name (``"mean"``, ``"quantile:0.9"``, ...; see
        :func:`~sensampler.app.experiments.parse_query`) or as an object.
    population : Distribution, str or array-like
        The population model the data are assumed drawn from, or its spec
        (see :func:`load_population`); public records as an array are
        bootstrapped as a :class:`~sensampler.distributions.PublicSample`.
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
        must exist. ``None``: the default filter
        (:func:`sensampler.accounting.default_filter`), if one is set. A filter
        that is also the default filter records each release once; a different
        default is spent from as well. Every filter spent from is tried with
        all the releases before any is spent: all or nothing.
    random_state : None, int, SeedSequence or Generator
        Seeds the sampling runs (query i uses child i); never the noise.
    n_jobs : int, optional
        Workers of the sampler.
    bounds : "auto", "LOW:HIGH", "private:EPS0", (low, high), Bounds or None
        Clipping bounds of the records, in the data and in every sampled
        database (:mod:`sensampler.bounds`). ``"auto"`` (default): from the
        population model, at no privacy cost; ``"LOW:HIGH"`` or a pair:
        given; ``"private:EPS0"``: estimated from the data under
        EPS0-DP (spent from the budget first), and then the release is plain
        DP, calibrated with the worst-case sensitivity over them: ``population``
        may be ``None``, and is not used if given (random DP holds for bounds
        fixed before the data are drawn). With bounds, each release also states plain DP for
        every pair of neighbours (``statement.worst_case``) and its noise
        has a floor; ``None``: random DP only, and a sampled sensitivity of 0
        is refused.
        The quantile queries (``median``, ``quantile:Q``) are released by the
        exponential mechanism over these bounds, its scale calibrated on the
        population model (random DP with gamma, and a worst case of at most 4
        epsilon: :class:`QuantileRelease`), or plain epsilon-DP without a
        population; without bounds, like any statistic (random DP).
    worst_case_epsilon : float, optional
        Cap on each release's worst-case epsilon (default: 10 times
        ``epsilon``; a quantile's scale keeps its own within 4 times): the
        noise is raised to meet it. Equal to ``epsilon``, a quantile is
        released by the plain epsilon-DP mechanism (no gamma).
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The neighbouring relation of every statement: the sampled
        sensitivity, the worst-case part, the quantile mechanism and a
        private-bounds pre-pass use it (``"add-remove"`` needs n >= 2; the
        data's n is still published). A replace-one budget (a budget file, or
        a filter holding replace-one statements) records an add/remove
        statement converted by group privacy
        (:func:`sensampler.privacy.to_replace_one`: twice the epsilon and the
        gamma); a filter holding add/remove statements refuses a replace-one
        release.
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
    >>> from sensampler.app.release import release_statistic
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
        worst_case_epsilon=worst_case_epsilon,
        report=report,
        neighbours=neighbours,
    )[0]

