"""A batch config, read and checked once into one frozen record.

:func:`load_config` reads a TOML file (the format: ``docs/guide/batch.md`` and
:mod:`sensampler.app.experiments.batch`) and :func:`parse_config` checks its
tables whole, once: every key, type and range, then every grid point built
(data set, population, query, sampling plan, mechanism, score) and probed,
drawing nothing that a run uses. What it returns, a :class:`BatchConfig`, holds
one :class:`RunSpec` per run with everything the run needs already built; the
functions that run it (:func:`~sensampler.app.experiments.batch.run_batch`) take
the record and never read the file or its tables again.

Errors name the file (or ``source``), the table, the key and the value.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np

from ..._lib.domains import (
    DELTA_TARGET,
    EPSILON,
    ESTIMATOR_NORMS,
    NEIGHBOUR_RELATIONS,
    PROBABILITY,
    Interval,
)
from ..._lib.threads import one_thread
from ...distributions import Distribution
from ...norms import NORM_NAMES
from ...plan import sampling_plan
from ...privacy import NEIGHBOURS
from ...queries import Query
from ...sampler import check_neighbours
from ...settings import ReleaseSettings
from .._input_files import read_toml
from ..specs import (
    MECHANISMS,
    PrivateEstimatorParts,
    accepted_norms,
    build_private_estimator,
    check_sampling_memory,
    is_private_estimator,
    mechanism_from_name,
)
from .batch_release import (
    PATHS,
    RELEASE_KEYS,
    check_release_path,
    check_release_run,
    release_key_rule,
    release_population,
    release_query,
    release_settings,
)
from .datasets import LOADERS, SCORES, STANDARDISE, DatasetSplit, Score, load_split
from .sweep import answer_size, check_databases_fit, probe_answer

__all__ = [
    "BatchConfig",
    "BatchOptions",
    "RunSpec",
    "load_config",
    "parse_config",
    "run_id_of",
    "PRIVATE",
    "PRIVATE_MECHANISMS",
]

#: The grid's n that stands for the size of the private training part.
PRIVATE = "private"
#: Grid mechanisms a ``kind = "private_estimator"`` query releases with, and the
#: :class:`~sensampler.models.PrivateEstimator` mechanism each is.
PRIVATE_MECHANISMS = {"analytic": "gaussian", "laplace": "laplace"}

_TABLES = ("run", "grid", "populations", "queries", "datasets", "errors")
_RUN_DEFAULTS = {"seed": 0, "repetitions": 50, "delta": 1e-6, "inequality": "exact"}
_DATASET_DEFAULTS = {"public": 0.4, "train": 0.7, "seed": 0, "standardise": "public"}


@dataclass(frozen=True)
class BatchOptions:
    """What every run of a batch shares: the ``[run]`` table (defaults filled in)
    and the grid's epsilons."""

    seed: int
    repetitions: int
    delta: float
    inequality: str
    m: int | None
    neighbours: str
    epsilons: tuple


@dataclass(frozen=True, eq=False)
class RunSpec:
    """One run of a batch, everything it needs built and checked.

    ``key`` is the run's settings as JSON (the names, the tables they come from,
    the values): what the run's id hashes and its file records, so that a run
    folder resumes across versions. The run itself reads the built objects only.
    """

    #: 16 hex digits of the SHA-256 of ``key`` (:func:`run_id_of`).
    run_id: str
    key: str
    population_name: str
    population: Distribution
    query_name: str
    #: The query (for a private estimator, the estimator query of its model;
    #: for a person-level release, its name).
    query: Query | str
    #: The pieces of a ``kind = "private_estimator"`` query, else None.
    private_estimator: PrivateEstimatorParts | None
    n: int
    gamma: float
    norm: str
    mechanism: str
    #: ``(sensitivity, epsilon) -> mechanism`` (delta given to the Gaussian ones).
    mechanism_factory: Callable
    options: BatchOptions
    #: The ``[errors] data`` set (None: each repetition draws from the population).
    split: DatasetSplit | None
    #: The ``[errors] score`` on the data set's test part, else None.
    score: Score | None
    #: The release's settings of a ``[run] path = "release"`` run (epsilon: the
    #: grid's), else None.
    release: ReleaseSettings | None = None

    @property
    def settings(self) -> dict:
        """The run's settings (a fresh dict of ``key``), as its file records them."""
        return json.loads(self.key)


@dataclass(frozen=True, eq=False)
class BatchConfig:
    """A batch config checked whole: its runs, in grid order.

    Made by :func:`parse_config` (or :func:`load_config`), which check
    everything; the fields are not checked again.

    Parameters
    ----------
    source : str
        The file the config was read from (or the name given to
        :func:`parse_config`).
    options : BatchOptions
        What every run shares (the ``[run]`` table and the epsilons).
    runs : tuple of RunSpec
        One per run, in the grid's order.
    skipped : tuple of str
        The ``"MECHANISM with norm NORM"`` pairs left out because the norm does
        not fit the mechanism.
    """

    source: str
    options: BatchOptions
    runs: tuple
    skipped: tuple


def run_id_of(settings: Mapping) -> str:
    """The id of a run: 16 hex digits of the SHA-256 of its settings as JSON."""
    text = json.dumps(settings, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def load_config(path) -> BatchConfig:
    """Read a batch config and check it whole (:func:`parse_config`).

    Parameters
    ----------
    path : str or path-like
        The TOML file.

    Returns
    -------
    BatchConfig
    """
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"config_path must be a path, got {path!r}.")
    path = os.fsdecode(path)
    return parse_config(read_toml(path), source=path)


def parse_config(table: Mapping, *, source: str = "config") -> BatchConfig:
    """Check a batch config's tables, once, into a :class:`BatchConfig`.

    Every key, type and range is checked, then every grid point is built (data
    set, population, query, sampling plan, mechanism, score) and each query
    answers one probe database of each population (drawn with a fixed seed),
    which also sizes each run's memory; a config that parses runs to the end.
    ``table`` is not changed. The builds run on one BLAS thread (as the runs
    do, :mod:`sensampler._lib.threads`), so that a population fitted here is
    the same bit for bit in every process.

    Parameters
    ----------
    table : mapping
        The config's tables, as TOML reads them.
    source : str
        What the errors name (the file).

    Returns
    -------
    BatchConfig
    """
    tables = _checked_tables(source, table)
    with one_thread():
        built = _build(source, tables)
        check_release_path(source, tables.run, tables.grid, tables.errors)
        _check_data(source, tables, built)
        _check_grid(source, tables, built)
        runs, skipped = _plan(tables, built)
        _check_runs_fit(source, runs)
    return BatchConfig(source, built.options, tuple(runs), tuple(skipped))


# ---------------------------------------------------------- keys and values
def _is_int(value) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def _is_real(value) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def _is_str(value) -> bool:
    return isinstance(value, str)


def _any(value) -> bool:
    return True


def _real_in(domain: Interval) -> tuple:
    """The rule of a real key whose range is ``domain``."""
    return (_is_real, domain.contains, f"a real number in {domain}")


def _one_of(values) -> tuple:
    """The rule of a string key that names one of ``values``."""
    return (
        _is_str,
        lambda v: v in values,
        f"one of {', '.join(map(repr, values))}",
    )


#: Each key: (type test, range test, what an entry must be).
_GRID_RULES = {
    "population": (
        _is_str,
        _any,
        "a string naming a preset or a [populations.NAME] table",
    ),
    "query": (
        _is_str,
        _any,
        "a query name or a [queries.NAME] table (a string)",
    ),
    "n": (
        lambda v: _is_int(v) or v == PRIVATE,
        lambda v: v == PRIVATE or v >= 1,
        f"an integer >= 1 or {PRIVATE!r}",
    ),
    "gamma": _real_in(PROBABILITY),
    "norm": _one_of(NORM_NAMES),
    "mechanism": _one_of(MECHANISMS),
    "epsilon": (_is_real, EPSILON.contains, "a finite real number > 0"),
}
_GRID_REQUIRED = ("population", "query", "n", "gamma", "mechanism", "epsilon")
_RUN_RULES = {
    "seed": (_is_int, lambda v: v >= 0, "an integer >= 0"),
    "repetitions": (_is_int, lambda v: v >= 1, "an integer >= 1"),
    "delta": _real_in(DELTA_TARGET),
    "inequality": (_is_str, _any, "a sampling-plan inequality (a string)"),
    "m": (_is_int, lambda v: v >= 1, "an integer >= 1"),
    "neighbours": _one_of(NEIGHBOUR_RELATIONS.values),
    "path": _one_of(PATHS),
    **{key: release_key_rule(key) for key in RELEASE_KEYS},
}
_DATASET_RULES = {
    "loader": _one_of(LOADERS),
    "public": _real_in(PROBABILITY),
    "train": _real_in(PROBABILITY),
    "seed": (_is_int, lambda v: v >= 0, "an integer >= 0"),
    "standardise": _one_of(STANDARDISE),
}
_ERRORS_RULES = {
    "score": _one_of(SCORES),
    "data": (_is_str, _any, "a [datasets.NAME] name (a string)"),
}


class _Tables(NamedTuple):
    """A config's tables, keys, types and ranges checked; ``[grid]`` values as
    lists, ``[run]`` and every ``[datasets.NAME]`` with their defaults."""

    run: dict
    grid: dict
    populations: dict
    queries: dict
    datasets: dict
    errors: dict


def _table(path, config, name, *, required=False) -> dict:
    if name not in config and not required:
        return {}
    if name not in config:
        raise ValueError(f"{path}: missing the [{name}] table.")
    value = config[name]
    if not isinstance(value, dict):
        raise TypeError(f"{path}: {name} must be a table [{name}], got {value!r}.")
    return value


def _check_entries(path, section, key, values, rules):
    type_ok, range_ok, rule = rules[key]
    for value in values:
        if not type_ok(value):
            raise TypeError(
                f"{path}: [{section}] {key}: must be {rule}, got {value!r}."
            )
        if not range_ok(value):
            raise ValueError(
                f"{path}: [{section}] {key}: must be {rule}, got {value!r}."
            )
    repeated = sorted({repr(v) for v in values if values.count(v) > 1})
    if repeated:
        raise ValueError(
            f"{path}: [{section}] {key}: repeated value(s) {', '.join(repeated)}."
        )


def _check_keys(path, section, table, rules, required=()):
    """Check a table's keys against ``rules``; name the unknown and the missing."""
    bad = set(table) - set(rules)
    if bad:
        raise ValueError(
            f"{path}: unknown {section} key(s) {sorted(bad)}; keys: {', '.join(rules)}."
        )
    for key in required:
        if key not in table:
            raise ValueError(f"{path}: {section} needs {key!r}.")
    for key, value in table.items():
        _check_entries(path, section.strip("[]"), key, [value], rules)


def _named_tables(path, config, name) -> dict:
    """The ``[NAME.KEY]`` tables of ``config[NAME]``, each checked to be a table."""
    tables = _table(path, config, name)
    for key, spec in tables.items():
        if not isinstance(spec, dict):
            raise TypeError(f"{path}: [{name}.{key}] must be a table, got {spec!r}.")
    return tables


def _checked_tables(path, config: Mapping) -> _Tables:
    """Every table's keys, types and ranges, on a copy of ``config``."""
    if not isinstance(config, Mapping):
        raise TypeError(f"{path}: a config is a table of tables, got {config!r}.")
    config = copy.deepcopy(dict(config))
    unknown = set(config) - set(_TABLES)
    if unknown:
        raise ValueError(
            f"{path}: unknown table(s) {sorted(unknown)}; expected [run], "
            "[grid], [populations.NAME], [queries.NAME], [datasets.NAME], [errors]."
        )
    grid = _table(path, config, "grid", required=True)
    run = _table(path, config, "run")
    populations = _named_tables(path, config, "populations")
    datasets = {}
    for name, spec in _named_tables(path, config, "datasets").items():
        _check_keys(path, f"[datasets.{name}]", spec, _DATASET_RULES, ("loader",))
        datasets[name] = {**_DATASET_DEFAULTS, **spec}
    queries = _named_tables(path, config, "queries")
    errors = _table(path, config, "errors")
    _check_keys(path, "[errors]", errors, _ERRORS_RULES)
    if "score" in errors and "data" not in errors:
        raise ValueError(
            f"{path}: [errors] score = {errors['score']!r} needs data = NAME, the "
            "[datasets.NAME] whose test part scores the releases."
        )
    bad = set(grid) - set(_GRID_RULES)
    if bad:
        raise ValueError(
            f"{path}: unknown [grid] key(s) {sorted(bad)}; keys: "
            f"{', '.join(_GRID_RULES)}."
        )
    for key in _GRID_REQUIRED:
        if key not in grid:
            raise ValueError(f"{path}: [grid] needs {key!r}.")
    for key, value in grid.items():
        grid[key] = value if isinstance(value, list) else [value]
        if not grid[key]:
            raise ValueError(f"{path}: [grid] {key} must not be empty.")
        _check_entries(path, "grid", key, grid[key], _GRID_RULES)
    bad = set(run) - set(_RUN_RULES)
    if bad:
        raise ValueError(
            f"{path}: unknown [run] key(s) {sorted(bad)}; keys: {', '.join(_RUN_RULES)}."
        )
    for key, value in run.items():
        _check_entries(path, "run", key, [value], _RUN_RULES)
    run = {**_RUN_DEFAULTS, **run}
    return _Tables(run, grid, populations, queries, datasets, errors)


# ------------------------------------------------------- what the grid builds
class _Built(NamedTuple):
    """What a config's grid builds, each once: by name."""

    splits: dict
    populations: dict
    queries: dict
    private_estimators: dict
    mechanisms: dict
    options: BatchOptions


def _build(path, tables: _Tables) -> _Built:
    """Build each data set, population, query and mechanism once; name what fails."""
    grid, run, errors = tables.grid, tables.run, tables.errors
    splits = {}
    for name, spec in tables.datasets.items():
        try:
            splits[name] = load_split(**spec)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{path}: [datasets.{name}]: {exc}") from None
    if "data" in errors and errors["data"] not in splits:
        raise ValueError(
            f"{path}: [errors] data = {errors['data']!r} names no [datasets.NAME] "
            f"table; data sets: {', '.join(splits) or 'none'}."
        )
    populations = {}
    for name in grid["population"]:
        where = (
            f"[populations.{name}]" if name in tables.populations else "[grid] population"
        )
        try:
            populations[name] = dist = release_population(
                tables.populations.get(name, name), tables.run, splits
            )
        except (ValueError, TypeError, OSError) as exc:
            raise ValueError(f"{path}: {where} {name!r}: {exc}") from None
        for n in grid["n"]:
            if n == PRIVATE:
                continue
            try:
                check_databases_fit(dist.record_shape, n, run["repetitions"])
            except ValueError as exc:
                raise ValueError(f"{path}: [grid] n = {n!r}: {exc}") from None
    queries, estimators = {}, {}
    for name in grid["query"]:
        where = f"[queries.{name}]" if name in tables.queries else "[grid] query"
        spec = tables.queries.get(name, name)
        try:
            if is_private_estimator(spec):
                estimators[name] = build_private_estimator(spec)
                queries[name] = estimators[name].query
            else:
                queries[name] = release_query(spec, tables.run)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{path}: {where} {name!r}: {exc}") from None
        if name in estimators:
            _check_private_estimator(path, tables, name)
    options = BatchOptions(
        seed=run["seed"], repetitions=run["repetitions"], delta=run["delta"],
        inequality=run["inequality"], m=run.get("m"),
        neighbours=run.get("neighbours", NEIGHBOURS), epsilons=tuple(grid["epsilon"]),
    )
    mechanisms = {
        name: mechanism_from_name(name, None if name == "laplace" else run["delta"])
        for name in grid["mechanism"]
    }
    return _Built(splits, populations, queries, estimators, mechanisms, options)


def _check_private_estimator(path, tables: _Tables, query) -> None:
    """A ``kind = "private_estimator"`` query is scored on a data set and released
    with a mechanism :class:`~sensampler.models.PrivateEstimator` offers."""
    grid, errors, run = tables.grid, tables.errors, tables.run
    where = f"{path}: [queries.{query}] kind = 'private_estimator'"
    if "score" not in errors:
        raise ValueError(
            f"{where} needs [errors] score and data: its released model is scored "
            "on the data set's test part."
        )
    if run.get("neighbours", NEIGHBOURS) != NEIGHBOURS:
        raise ValueError(
            f"{where} samples replace-one pairs only, got [run] neighbours = "
            f"{run['neighbours']!r}."
        )
    for mech in grid["mechanism"]:
        if mech not in PRIVATE_MECHANISMS:
            raise ValueError(
                f"{where} releases with [grid] mechanism "
                f"{', '.join(map(repr, PRIVATE_MECHANISMS))}, got {mech!r}."
            )
    for norm in grid.get("norm", []):
        if not ESTIMATOR_NORMS.contains(norm):
            raise ValueError(
                f"{where} samples the {' or '.join(map(repr, ESTIMATOR_NORMS))} "
                f"sensitivity, got [grid] norm {norm!r}."
            )


def _dataset_of(tables: _Tables, population) -> str | None:
    """The data set a grid population is fitted on, if any."""
    spec = tables.populations.get(population)
    return spec.get("dataset") if isinstance(spec, dict) else None


def _private_data(tables: _Tables, population) -> str | None:
    """The data set whose private training part stands for ``n = "private"``."""
    return tables.errors.get("data") or _dataset_of(tables, population)


def _check_data(path, tables: _Tables, built: _Built) -> None:
    """The grid's ``n``, queries and populations fit the data sets they use."""
    grid, errors = tables.grid, tables.errors
    data = errors.get("data")
    fitted = set()  # (data set, query): each model is fitted once on its public part
    for name, population in built.populations.items():
        source = _private_data(tables, name)
        if source is None:
            if PRIVATE in grid["n"]:
                raise ValueError(
                    f"{path}: [grid] n = {PRIVATE!r} needs a data set: population "
                    f"{name!r} has no dataset and there is no [errors] data."
                )
            continue
        rows = built.splits[source].train
        if data is not None:
            if population.record_shape != rows.shape[1:]:
                raise ValueError(
                    f"{path}: population {name!r} draws records of shape "
                    f"{population.record_shape}, [errors] data = {data!r} has "
                    f"records of shape {rows.shape[1:]}."
                )
            wrong = [n for n in grid["n"] if n not in (PRIVATE, len(rows))]
            if wrong:
                raise ValueError(
                    f"{path}: [grid] n = {wrong[0]!r}: the releases are trained on "
                    f"the private training part of [errors] data = {data!r}, of "
                    f"{len(rows)} rows; use n = {PRIVATE!r}."
                )
        if PRIVATE in grid["n"] and len(rows) in grid["n"]:
            raise ValueError(
                f"{path}: [grid] n: {PRIVATE!r} is {len(rows)} for population "
                f"{name!r}, also listed."
            )
        for query in grid["query"]:
            if (source, query) in fitted:
                continue
            fitted.add((source, query))
            try:  # fitted once on the public part: the model's params checked
                _fit_public(built, query, built.splits[source].public)
            except (ValueError, TypeError) as exc:
                raise ValueError(
                    f"{path}: [grid] query {query!r} on the data set {source!r}: {exc}"
                ) from None
    if "score" in errors:
        _check_score(path, tables, built)


def _fit_public(built: _Built, query: str, public) -> None:
    """Fit the query's model (each ``tune`` candidate) on public rows."""
    parts = built.private_estimators.get(query)
    if parts is None:
        built.queries[query](public)
        return
    from sklearn.base import clone
    from sklearn.model_selection import ParameterGrid

    for params in ParameterGrid(parts.tune or {}):
        clone(parts.estimator).set_params(**params).fit(public[:, :-1], public[:, -1])


def _check_score(path, tables: _Tables, built: _Built) -> None:
    """The ``[errors] score`` fits its data set, and scores coefficients released
    without an intercept."""
    errors, queries = tables.errors, tables.queries
    try:
        built.splits[errors["data"]].score(errors["score"])
    except ValueError as exc:
        raise ValueError(f"{path}: [errors] score: {exc}") from None
    for query in tables.grid["query"]:
        if query in built.private_estimators:
            continue  # scored through its own predict: an intercept is fine
        params = queries.get(query, {}).get("params", {})
        if query not in queries or params.get("fit_intercept", True) is not False:
            raise ValueError(
                f"{path}: [errors] score = {errors['score']!r} scores released "
                "coefficients without an intercept: [grid] query "
                f"{query!r} must be a [queries.NAME] estimator with params "
                "fit_intercept = false."
            )


def _check_grid(path, tables: _Tables, built: _Built) -> None:
    """Every gamma has a sampling plan, every mechanism takes every epsilon, and
    some norm fits some mechanism."""
    grid, run = tables.grid, tables.run
    for gamma in grid["gamma"]:
        try:
            sampling_plan(gamma=gamma, m=run.get("m"), inequality=run["inequality"])
        except (ValueError, TypeError) as exc:
            m = f", [run] m = {run['m']!r}" if "m" in run else ""
            raise ValueError(
                f"{path}: [grid] gamma = {gamma!r} with [run] inequality = "
                f"{run['inequality']!r}{m}: {exc}"
            ) from None
    for mech, epsilon in itertools.product(grid["mechanism"], grid["epsilon"]):
        try:
            built.mechanisms[mech](1.0, epsilon)
        except (ValueError, TypeError) as exc:
            raise ValueError(
                f"{path}: [grid] mechanism {mech!r} at epsilon = {epsilon!r}: {exc}"
            ) from None
    norms = grid.get("norm", [None])
    if not any(
        (norm or accepted_norms(mech)[0]) in accepted_norms(mech)
        for norm, mech in itertools.product(norms, grid["mechanism"])
    ):
        raise ValueError(
            f"{path}: [grid] norm {norms!r} fits none of the mechanisms "
            f"{grid['mechanism']!r}: no run to do."
        )


# ----------------------------------------------------------------- the runs
def _plan(tables: _Tables, built: _Built):
    """The runs of the grid, in its order: (list of RunSpec, sorted skipped pairs)."""
    grid, errors = tables.grid, tables.errors
    runs, skipped = [], []
    accepted = {mech: accepted_norms(mech) for mech in grid["mechanism"]}
    split = built.splits.get(errors.get("data"))
    score = split.score(errors["score"]) if "score" in errors else None
    for pop, query, n, gamma, norm, mech in itertools.product(
        grid["population"],
        grid["query"],
        grid["n"],
        grid["gamma"],
        grid.get("norm", [None]),
        grid["mechanism"],
    ):
        release = release_settings(tables.run, gamma, mech)
        norm = release.norm if release else norm or accepted[mech][0]
        if norm not in accepted[mech]:
            skipped.append(f"{mech} with norm {norm}")
            continue
        if n == PRIVATE:
            n = len(built.splits[_private_data(tables, pop)].train)
        settings = _settings(tables, pop, query, n, gamma, norm, mech)
        runs.append(RunSpec(
            run_id=run_id_of(settings), key=json.dumps(settings),
            population_name=pop, population=built.populations[pop],
            query_name=query, query=built.queries[query],
            private_estimator=built.private_estimators.get(query),
            n=n, gamma=gamma, norm=norm, mechanism=mech,
            mechanism_factory=built.mechanisms[mech], options=built.options,
            split=split, score=score, release=release,
        ))
    return runs, sorted(set(skipped))


def _settings(tables: _Tables, pop, query, n, gamma, norm, mech) -> dict:
    """A run's settings: what its id hashes (:func:`run_id_of`) and its file records."""
    run, errors = tables.run, tables.errors
    settings = {
        "population": pop,
        "population_spec": tables.populations.get(pop, pop),
        "query": query,
        "n": n,
        "gamma": gamma,
        "norm": norm,
        "mechanism": mech,
        "epsilons": list(tables.grid["epsilon"]),
        "repetitions": run["repetitions"],
        "delta": run["delta"],
        # the recorded settings keep this key's first name, "bound": a run's id
        # hashes them, and run folders written before the rename still resume
        "bound": run["inequality"],
        "seed": run["seed"],
    }
    # Keys of the newer options only when used: older configs keep their run ids.
    used = {_dataset_of(tables, pop), errors.get("data")} - {None}
    if used:
        settings["datasets"] = {name: tables.datasets[name] for name in sorted(used)}
    if query in tables.queries:
        settings["query_spec"] = tables.queries[query]
    if "m" in run:
        settings["m"] = run["m"]
    if run.get("neighbours", NEIGHBOURS) != NEIGHBOURS:
        settings["neighbours"] = run["neighbours"]
    if errors:
        settings["errors"] = errors
    if run.get("path", PATHS[0]) == "release":
        settings["path"] = "release"
        settings.update({key: run[key] for key in RELEASE_KEYS if key in run})
    return settings


def _check_runs_fit(path, runs) -> None:
    """Each run's sampling and sweep fit in memory, and its query answers its
    population: checked on one probe database per (population, query, n, gamma,
    norm), drawn with a fixed seed (see
    :func:`~sensampler.app.specs.check_sampling_memory`)."""
    checked = set()
    for run in runs:
        key = (run.population_name, run.query_name, run.n, run.gamma, run.norm)
        if key in checked:
            continue
        checked.add(key)
        where = (
            f"{path}: the run of population {run.population_name!r}, query "
            f"{run.query_name!r}, n = {run.n}, gamma = {run.gamma!r}, norm = "
            f"{run.norm!r}"
        )
        options = run.options
        data = run.population if run.split is None else run.split.train
        try:
            if run.release is not None:  # every check of the release, at every epsilon
                check_release_run(run)
                continue
            check_neighbours(options.neighbours, run.n)
            check_sampling_memory(
                run.query, run.population, run.n, m=options.m, gamma=run.gamma,
                inequality=options.inequality, norm=run.norm,
                neighbours=options.neighbours,
            )
            probe = probe_answer(run.query, data, run.n, np.random.default_rng(0))
            check_databases_fit(
                np.shape(data)[1:] if isinstance(data, np.ndarray) else data.record_shape,
                run.n,
                options.repetitions,
                answer_size=answer_size(probe),
                settings=len(options.epsilons) * len(probe),
            )
        except (ValueError, TypeError, ArithmeticError) as exc:
            raise ValueError(f"{where}: {exc}") from None
