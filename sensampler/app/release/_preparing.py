"""Preparing a release: every input, the settings and the budget checked before
anything is sampled, spent or drawn (:func:`prepare_releases`)."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np

from ..._lib.validation import as_seed_sequence, check_n_jobs
from ...accounting import PrivacyFilter
from ...bounds import Bounds, check_private_bounds_epsilon, worst_case_sensitivity
from ...mechanisms.choice import quantile_level_of, quantile_mechanism
from ...mechanisms.secure import FLOAT_POSITIONS
from ...privacy import PrivacyStatement, SamplingRun
from ...quantile_calibration import check_calibration
from ...queries import Query, identity
from ...sampler import check_neighbours
from ...settings import ReleaseSettings, parse_bounds
from ..budget_file import BudgetFile
from ..specs import QUERY_NAMES, check_sampling_memory
from ._inputs import check_data, check_population, check_public_sample, parse_queries
from ._running import (
    PRIVATE_BOUNDS,
    PreparedRelease,
    exact_answers,
    needs_private_bounds,
    samples_a_scale,
)
from ._spending import check_budget, try_budgets
from ._units import (
    check_row_queries,
    check_unit_inputs,
    group_private_rows,
    least_error_cap,
    person_population,
    person_queries,
    table_inputs,
    totals_quantile_inputs,
)

__all__ = [
    "DEFAULT_BOUNDS",
    "RELEASE_QUERY_NAMES",
    "check_model_inputs",
    "population_words",
    "prepare_releases",
    "quantile_bounds",
]

#: Queries a release may name: the built-in statistics (not ``identity``, which
#: publishes the records themselves).
RELEASE_QUERY_NAMES = tuple(name for name in QUERY_NAMES if name != "identity")

#: Bounds of a release when none are given: read from the population model.
DEFAULT_BOUNDS = "auto"


def quantile_bounds(population, bounds=DEFAULT_BOUNDS) -> tuple[float, float, str]:
    """The public bounds of a quantile release and where they came from.

    Parameters
    ----------
    population : Distribution
        The population model.
    bounds : "auto", "LOW:HIGH", (low, high), Bounds or BoundsSetting, default "auto"
        As the release takes them (:func:`~sensampler.settings.parse_bounds`),
        public ones only: ``"auto"`` reads the population model's quantiles at
        no privacy cost (:meth:`sensampler.bounds.Bounds.from_population`);
        ``None`` is read as ``"auto"``. Private bounds are refused: planning
        reads no private data; so is ``"none"``: a release then draws over the
        wide grid (:func:`~sensampler.mechanisms.quantile.wide_grid`), which a
        plan does not model.

    Returns
    -------
    (low, high, source) : (float, float, str)
        The bounds and their source in words.
    """
    setting = parse_bounds(DEFAULT_BOUNDS if bounds is None else bounds)
    if not setting.public:
        raise ValueError(
            "bounds='private:EPS0' are estimated from the private data, which a plan "
            "never reads: give public bounds ('auto' or 'LOW:HIGH')."
        )
    known = setting.resolve(population)
    if known is None:
        raise ValueError(
            "a plan models the exponential mechanism over bounds, not over the wide "
            "grid a quantile without bounds is released on: give public bounds "
            "('auto' or 'LOW:HIGH'), got bounds='none'."
        )
    return known.low, known.high, known.describe()


def check_model_inputs(names, parsed, population, n: int, settings, n_jobs):
    """Every check of a release that reads no private data, given its size n.

    The relation with n records; the bounds (those known before the data are
    read: from the population, given, or none; private ones are drawn later);
    each sampling run on a probe
    database from the population (what the sampler would refuse, and its
    memory); each mechanism at the settings' epsilon. A release
    (:func:`prepare_releases`) and an experiment on the release path
    (:func:`~sensampler.app.experiments.error_vs_epsilon`, for each epsilon)
    call it.

    Parameters
    ----------
    names : tuple of str
    parsed : tuple of Query
    population : Distribution or None
        Loaded (:func:`~sensampler.app.release._inputs.check_population`).
    n : int
        Records of the data.
    settings : ReleaseSettings
        With an epsilon.
    n_jobs : int or None

    Returns
    -------
    (population, known) : (Distribution or None, Bounds or None)
        The population the runs sample (``None`` over private bounds, which
        make the release plain DP) and the bounds known before the data.
        One-quantile queries alone with ``bounds="none"`` (the wide grid) need
        no population either.
    """
    check_neighbours(settings.neighbours, n)
    known = settings.bounds.resolve(population)
    private = settings.bounds.kind == "private"
    quantiles = all(quantile_level_of(query) is not None for query in parsed)
    if population is None and not private and not (
        quantiles and settings.bounds.kind == "none"
    ):
        raise ValueError(
            "population must be given (a model or bootstrap:FILE), unless the "
            "bounds are estimated from the data (bounds='private:EPS0'): the "
            "release is then plain DP; a median or quantile:Q alone also takes "
            "bounds='none' (the exponential mechanism over a wide public grid)."
        )
    # Random DP holds for bounds fixed before the data are drawn; private
    # bounds are drawn from the data: the release is plain DP, calibrated with
    # the worst case over them, and samples nothing from a population.
    population = None if private else population
    _check_runs(names, parsed, population, n, settings, n_jobs)
    _check_mechanisms(names, parsed, population, known, n, settings)
    return population, known


def _check_runs(names, parsed, population, n, settings, n_jobs) -> None:
    """What the sampling runs need, checked before any answer or sample.

    A query that publishes the records themselves (``identity``) is refused: it
    reads records by position, and the sampler refuses it after sampling. Each
    run must fit in memory with ``n_jobs`` workers
    (:func:`~sensampler.app.specs.check_sampling_memory`, which also
    meets the query with the population on a probe database); a quantile,
    released by the exponential mechanism, samples no sensitivity.
    """
    for name, query in zip(names, parsed):
        if query is identity:
            raise ValueError(
                f"query {name!r} publishes the records themselves, by position, "
                "which random DP does not cover (a record can get sensitivity 0 "
                "and be published exactly); release a statistic: "
                f"{', '.join(RELEASE_QUERY_NAMES)}."
            )
        if population is None or quantile_level_of(query) is not None:
            continue  # nothing is sampled
        try:
            check_sampling_memory(
                query, population, n, gamma=settings.gamma, inequality=settings.inequality,
                norm=settings.norm, neighbours=settings.neighbours, n_jobs=n_jobs,
            )
        except ValueError as exc:
            where = (  # the probe's records come from the model, not the data
                "on a probe database drawn from the population model"
                if f"query {name!r}" in str(exc)
                else f"query {name!r}"
            )
            raise ValueError(f"{where}: {exc}") from None


def _check_grid(names, answers, settings: ReleaseSettings) -> None:
    """A discrete mechanism's grid must hold each answer exactly in a float
    release (:data:`~sensampler.mechanisms.secure.FLOAT_POSITIONS`). The message
    never quotes an answer: it is private."""
    granularity = settings.granularity
    if granularity is None or not settings.mechanism.startswith("discrete"):
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


def _check_mechanisms(names, parsed, population, known, n, settings) -> None:
    """Each mechanism can be built, before any spend: a quantile's over bounds
    that are not degenerate (or the wide grid); without a population (plain
    DP), a worst-case sensitivity of every other query on clipped records, and
    a private-bounds pre-pass, if any, that can work with n records."""
    epsilon, neighbours = settings.require_epsilon(), settings.neighbours
    for query in parsed:
        quantile_mechanism(query, known, epsilon, neighbours)
    if population is None:
        unit = Bounds.given(0.0, 1.0)
        for name, query in zip(names, parsed):
            if quantile_level_of(query) is not None:
                continue
            if worst_case_sensitivity(query, unit, n, neighbours, settings.norm) is None:
                raise ValueError(
                    f"the query {name!r} has no worst-case sensitivity on clipped "
                    f"records (in the {settings.norm} norm): give a population to "
                    "sample it."
                )
    if needs_private_bounds(parsed, settings):  # reads n only
        check_private_bounds_epsilon(
            settings.bounds.private_epsilon, n, neighbours, name="eps0"
        )


def _planned_release(index, query, population, n, settings) -> PrivacyStatement:
    """An upper bound on what query ``index`` spends, under the release's relation:
    an exponential quantile's as it spends it (no delta; the plain mechanism at
    a cap below epsilon), since a filter's "auto" rule is chosen on the first;
    a calibrated quantile's gamma from its own plan (its own m)."""
    epsilon, neighbours = settings.require_epsilon(), settings.neighbours
    level = quantile_level_of(query)
    if level is not None and not samples_a_scale(query, settings, population):
        plain = min(epsilon, settings.worst_case_epsilon or math.inf)
        return PrivacyStatement(
            "planned", plain, 0.0, source="global", neighbours=neighbours
        )
    delta = 0.0 if level is not None else settings.delta
    if population is None:
        return PrivacyStatement(
            "planned", epsilon, delta, source="global", neighbours=neighbours
        )
    plan = settings.plan
    if level is not None:  # the calibration's inputs and memory, checked too
        plan = check_calibration(
            level, (0.0, 1.0), epsilon, population, n, gamma=settings.gamma,
            inequality=settings.inequality, neighbours=neighbours,
        )[3]
    run = SamplingRun(f"planned-{index}", plan.gamma, neighbours=neighbours)
    return PrivacyStatement(
        "planned", epsilon, delta, run=run, source="sampled", neighbours=neighbours
    )


def _planned(parsed, population, n, settings) -> tuple[PrivacyStatement, ...]:
    """Upper bounds on what the run spends, in order: a private-bounds pre-pass
    first (if a query needs it: :func:`needs_private_bounds`), then each release
    (:func:`_planned_release`)."""
    releases = [  # about the query's privacy unit, so a budget of the other refuses
        replace(
            _planned_release(index, query, population, n, settings),
            privacy_unit=getattr(query, "privacy_unit", "record"),
        )
        for index, query in enumerate(parsed)
    ]
    if not needs_private_bounds(parsed, settings):
        return tuple(releases)
    prepass = PrivacyStatement(
        PRIVATE_BOUNDS, settings.bounds.private_epsilon, 0.0,
        neighbours=settings.neighbours,
    )
    return (prepass, *releases)


def prepare_releases(
    data,
    queries: Sequence[str | Query | Callable[[np.ndarray], Any]],
    population=None,
    settings: ReleaseSettings | None = None,
    *,
    budget: PrivacyFilter | BudgetFile | str | os.PathLike | None = None,
    column: str | None = None,
    random_state=None,
    n_jobs: int | None = None,
    privacy_unit=None,
    **options: Any,
) -> PreparedRelease:
    """Check every input of :func:`~sensampler.app.release.release_statistics`
    and the budget; sample nothing.

    Parameters
    ----------
    data, queries, population, settings, budget, column, random_state, n_jobs, \
privacy_unit, **options
        As in :func:`~sensampler.app.release.release_statistics` (which also
        takes ``report``); ``**options`` are fields of
        :class:`~sensampler.settings.ReleaseSettings`.

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
    settings = ReleaseSettings.build(settings, **options)
    settings.require_epsilon()
    data, privacy_unit, unit_column = table_inputs(data, privacy_unit, settings, column)
    arr = check_data(data)
    root = as_seed_sequence(random_state)
    spec = population
    if privacy_unit is None:
        parsed, names = parse_queries(queries)
        check_row_queries(parsed, names)
        population = check_population(population, column)
        check_public_sample(population, arr, settings.plan, spec)  # before its bounds
    else:
        arr, parsed, names, population = _person_inputs(
            arr, queries, population, settings, (privacy_unit, unit_column), root,
            column,
        )
    budget = check_budget(budget)
    n_jobs = check_n_jobs(n_jobs)
    population, known = check_model_inputs(
        names, parsed, population, arr.shape[0], settings, n_jobs
    )
    answers = exact_answers(names, parsed, arr if known is None else known.clip(arr))
    _check_grid(names, answers, settings)
    planned = _planned(parsed, population, arr.shape[0], settings)
    try_budgets(budget, planned)
    return PreparedRelease(
        arr, parsed, names, answers, population, settings, budget, root, n_jobs,
        known, planned, population_words(spec, population, column),
    )


def _person_inputs(arr, queries, population, settings, unit, root, column):
    """A person-level release's inputs: the private rows grouped by person (at
    most L, the model's ``record_shape[0]``, each), the person-level queries
    and the model of a person, checked before any work. ``unit`` is the ids and
    the name of their column (None for an array). The cap L is the model's
    given one, else the one of least expected error (:func:`least_error_cap`,
    from the public model and the number of persons)."""
    privacy_unit, unit_column = unit
    check_unit_inputs(settings)
    population = person_population(population, column, unit_column)
    check_public_sample(population, arr, settings.plan)  # the rows, before grouping
    groups = group_private_rows(arr, privacy_unit, population.record_shape[0], root)
    totals = totals_quantile_inputs(groups, queries, population)
    if totals is not None:  # one record per person: its total
        return totals
    person_queries(queries, population.record_shape[0], settings.neighbours)  # checked
    population = least_error_cap(population, queries, groups.shape[0], settings)
    cap = population.record_shape[0]
    groups = group_private_rows(arr, privacy_unit, cap, root)
    parsed, names = person_queries(queries, cap, settings.neighbours)
    return groups, parsed, names, population


def population_words(spec, population, column: str | None) -> str:
    """The population model as it was given, in words: its spec (with the column
    of a ``bootstrap:`` file), or the model's own description; ``""`` without
    one.

    Parameters
    ----------
    spec : str or object
        What was given (``"bootstrap:public.csv"``, ``"heights"``, a model).
    population : Distribution or None
        The model loaded from it.
    column : str or None
        The column of a ``bootstrap:`` file.

    Returns
    -------
    str
    """
    if population is None:
        return ""
    if isinstance(spec, str):
        return f"{spec} (column {column!r})" if spec.startswith("bootstrap:") else spec
    text = repr(population)
    return text if len(text) <= 200 else f"{type(population).__name__} (...)"
