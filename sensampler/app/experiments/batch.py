"""Batch runs from a TOML file: a grid of settings, run in parallel, written durably,
resumed where they stopped.

A *run* is one (population, query, n, gamma, norm, mechanism): its sensitivity is
sampled once and its error measured at every epsilon of the grid. Each finished
run is written atomically to ``OUT/runs/<run id>.json``, with its config key (the
run id, a hash of its settings) and a SHA-256 checksum of its content; starting
again skips the runs whose file is there and verifies, so an interruption loses
no finished run and redoes none, and a truncated or corrupted file, or one
edited without recomputing its checksum, is named and run again. The checksum
detects accidents, not forgery: it is not keyed, so anyone who can write the
folder can change a file and recompute it, and the file is then accepted.
Every run draws from a seed derived from the config's seed and the run's own
settings, so results do not depend on order, ``n_jobs`` or interruptions: the
summary (``OUT/summary.csv``, and every number of a run file) is the same bit
for bit for any ``n_jobs``; a run file's sampling-run id (random) and ordinal
(the runs its process had drawn) are not.

The whole config is checked before the first run: every key, type and range, and
that every grid point can run (each population, query, sampling plan and
mechanism is built; each query answers one probe database of each population,
drawn with a fixed seed, which also sizes the run's memory: a run whose
sampling or sweep would not fit in physical memory is refused, see
:mod:`sensampler._lib.memory`); errors name the file, the key and the value.
One ``run`` at a time may use an output folder: it holds an OS lock on
``OUT/.lock`` (released when it ends, even by a crash), and a second ``run`` on
the same folder stops with an error before touching anything.

Example config::

    [run]
    seed = 0
    repetitions = 50          # private databases per setting
    delta = 1e-6              # for the Gaussian mechanisms
    bound = "exact"

    [grid]
    population = ["heights", "adults"]   # presets or [populations.NAME] tables
    query = ["mean", "median"]
    n = [100, 1000]
    gamma = [0.05]
    mechanism = ["laplace", "analytic"]
    epsilon = [0.1, 0.5, 1.0]
    # norm = ["l1", "l2"]      # optional; by default l1 for Laplace, l2 for Gaussian

    [populations.adults]
    kind = "Normal"
    loc = 170
    scale = 10

Real models on real data (``examples/real_models.toml`` reproduces the table of
``examples/06_real_models.py``) add four things:

- ``[datasets.NAME]``: data that ships with scikit-learn, split public / private
  training / private test by
  :func:`~sensampler.app.experiments.datasets.load_split` (keys ``loader``, one of
  :data:`~sensampler.app.experiments.datasets.LOADERS`, and ``public`` (0.4),
  ``train`` (0.7), ``seed`` (0), ``standardise`` ("public"));
- a population with ``dataset = NAME`` is fitted on its public part: ``kind =
  "Empirical"`` (the bootstrap) or ``"SklearnGaussianMixture"`` (``components``,
  ``covariance_type`` ("full"), ``seed`` (0));
- ``[queries.NAME]``: ``kind = "estimator"``, ``model`` (one of
  :data:`~sensampler.app.experiments.specs.ESTIMATORS`) and ``params``: the model's
  fitted ``coef_``;
- ``[errors]``: ``data = NAME`` releases the answer on that data set's private
  training part (the same fixed database in every repetition; ``n = "private"``
  in the grid is its size) and ``score = "test_mse"`` or ``"test_accuracy"``
  scores each release on its test part (the ``measure`` column) instead of
  measuring its distance to the true answer; ``OUT/references.csv`` then holds
  the scores of the model without noise, of the model trained on the public part
  alone and of the constant prediction.

``[run] m`` sets the pairs per sampled sensitivity (default: the plan's own m
for gamma). ``[run] neighbours`` (``"replace-one"``, the default, or
``"add-remove"``) is the neighbouring relation every sensitivity is sampled
for (add/remove needs every run's n >= 2; a private-estimator query samples
replace-one pairs only).

A ``[queries.NAME]`` table with ``kind = "private_estimator"`` (keys ``model``,
``params``, optional ``tune`` and ``augment``; ``examples/private_estimators.toml``)
fits :class:`~sensampler.models.PrivateEstimator` at each epsilon on the
``[errors] data`` set's private training part, with ``public`` its public part and
the run's population, gamma, norm (``l1`` or ``l2``), ``[run] m``, ``bound`` and
``delta``; the grid's mechanism is ``"analytic"`` (its Gaussian) or ``"laplace"``.
The fitted release is redrawn with fresh noise ``repetitions`` times, and each
released model is scored on the test part through its ``predict`` (``[errors]
score`` is required).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import importlib
import itertools
import json
import math
import os
from dataclasses import dataclass
from numbers import Integral, Real

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
from ..._lib.validation import check_flag, check_n_jobs
from ...norms import NORM_NAMES
from ...parallel import iter_tasks, progress_bar
from ...plan import sampling_plan
from ...privacy import NEIGHBOURS
from ...sampler import check_neighbours, sample_sensitivity
from ...table import ResultTable, atomic_write_text
from .._input_files import read_toml
from .._locks import exclusive
from .datasets import LOADERS, SCORES, STANDARDISE, load_split
from .specs import (
    MECHANISMS,
    accepted_norms,
    build_population,
    build_private_estimator,
    build_query,
    check_sampling_memory,
    is_private_estimator,
    mechanism_from_name,
)
from .sweep import (
    STATISTICS,
    answer_size,
    check_databases_fit,
    error_statistics,
    error_vs_epsilon,
    probe_answer,
)

__all__ = ["run_batch", "load_config", "plan_runs"]

_TABLES = ("run", "grid", "populations", "queries", "datasets", "errors")
_RUN_DEFAULTS = {"seed": 0, "repetitions": 50, "delta": 1e-6, "bound": "exact"}
_DATASET_DEFAULTS = {"public": 0.4, "train": 0.7, "seed": 0, "standardise": "public"}
def _private_estimator():
    """:class:`sensampler.models.PrivateEstimator`, loaded when a private-estimator
    route runs: it imports scikit-learn, which ``import sensampler.app.cli`` must not
    load (``tests/test_import_cost.py``)."""
    return importlib.import_module("sensampler.models").PrivateEstimator


#: The grid's n that stands for the size of the private training part.
PRIVATE = "private"
#: Grid mechanisms a ``kind = "private_estimator"`` query releases with, and the
#: :class:`~sensampler.models.PrivateEstimator` mechanism each is.
_PRIVATE_MECHANISMS = {"analytic": "gaussian", "laplace": "laplace"}


def _query(spec):
    """The query of a grid entry; for a private estimator, the estimator query of
    its model (its ``coef_``), which the checks probe."""
    if is_private_estimator(spec):
        return build_query({k: spec[k] for k in ("model", "params") if k in spec}
                           | {"kind": "estimator"})
    return build_query(spec)


def _mechanism(name: str, delta: float):
    """A run's mechanism factory ``(sensitivity, epsilon) -> mechanism``.

    ``delta`` (from [run]) goes to the Gaussian mechanisms only.
    """
    return mechanism_from_name(name, None if name == "laplace" else delta)


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
_RUN_RULES = {
    "seed": (_is_int, lambda v: v >= 0, "an integer >= 0"),
    "repetitions": (_is_int, lambda v: v >= 1, "an integer >= 1"),
    "delta": _real_in(DELTA_TARGET),
    "bound": (_is_str, _any, "a sampling-plan bound (a string)"),
    "m": (_is_int, lambda v: v >= 1, "an integer >= 1"),
    "neighbours": _one_of(NEIGHBOUR_RELATIONS.values),
}
_GRID_KEYS = tuple(_GRID_RULES)
_RUN_KEYS = tuple(_RUN_RULES)
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


@dataclass(frozen=True)
class _CheckedConfig:
    """A batch config checked whole, once: its tables (with their defaults) and
    the runs they plan, which :func:`run_batch` runs without reading, checking
    or planning the config again."""

    tables: dict
    runs: list
    skipped: list


def load_config(path) -> dict:
    """Read and check a batch config; errors name the file, the key and the value.

    Every key, type and range is checked, and every grid point is built
    (data set, population, query, sampling plan, mechanism, score) without
    drawing anything, so a config that loads runs to the end. ``[grid]``
    scalars become one-entry lists, and ``[run]`` and every ``[datasets.NAME]``
    get their defaults.
    """
    return _check_config(path).tables


def _check_config(path) -> _CheckedConfig:
    """The one check of a config (see :func:`load_config`): the tables, then every
    grid point built, then the planned runs' memory, each data set loaded once."""
    if isinstance(path, (str, bytes, os.PathLike)):
        path = os.fspath(path)
    else:
        raise TypeError(f"config_path must be a path, got {path!r}.")
    config = read_toml(path)
    unknown = set(config) - set(_TABLES)
    if unknown:
        raise ValueError(
            f"{path}: unknown table(s) {sorted(unknown)}; expected [run], "
            "[grid], [populations.NAME], [queries.NAME], [datasets.NAME], [errors]."
        )
    grid = _table(path, config, "grid", required=True)
    run = _table(path, config, "run")
    populations = _named_tables(path, config, "populations")
    for name, spec in _named_tables(path, config, "datasets").items():
        _check_keys(path, f"[datasets.{name}]", spec, _DATASET_RULES, ("loader",))
        config["datasets"][name] = {**_DATASET_DEFAULTS, **spec}
    _named_tables(path, config, "queries")
    errors = _table(path, config, "errors")
    _check_keys(path, "[errors]", errors, _ERRORS_RULES)
    if "score" in errors and "data" not in errors:
        raise ValueError(
            f"{path}: [errors] score = {errors['score']!r} needs data = NAME, the "
            "[datasets.NAME] whose test part scores the releases."
        )
    bad = set(grid) - set(_GRID_KEYS)
    if bad:
        raise ValueError(
            f"{path}: unknown [grid] key(s) {sorted(bad)}; keys: "
            f"{', '.join(_GRID_KEYS)}."
        )
    for key in ("population", "query", "n", "gamma", "mechanism", "epsilon"):
        if key not in grid:
            raise ValueError(f"{path}: [grid] needs {key!r}.")
    for key, value in grid.items():
        grid[key] = value if isinstance(value, list) else [value]
        if not grid[key]:
            raise ValueError(f"{path}: [grid] {key} must not be empty.")
        _check_entries(path, "grid", key, grid[key], _GRID_RULES)
    bad = set(run) - set(_RUN_KEYS)
    if bad:
        raise ValueError(
            f"{path}: unknown [run] key(s) {sorted(bad)}; keys: {', '.join(_RUN_KEYS)}."
        )
    for key, value in run.items():
        _check_entries(path, "run", key, [value], _RUN_RULES)
    config["run"] = {**_RUN_DEFAULTS, **run}
    splits, built = _check_runnable(path, config, populations)
    runs, skipped = _plan(config, splits)
    _check_runs_fit(path, runs, splits, built)
    return _CheckedConfig(config, runs, skipped)


def _check_runs_fit(path, runs, splits, populations) -> None:
    """Each run's sampling and sweep fit in memory, and its query answers its
    population: checked on one probe database per (population, query, n), drawn
    with a fixed seed (see :func:`~sensampler.app.experiments.specs.check_sampling_memory`).

    ``populations`` are the grid's populations built by :func:`_check_runnable`
    on the data sets ``splits``; each query is built once.
    """
    checked, queries = set(), {}
    for s in runs:
        key = json.dumps(
            [s["population"], s["query"], s["n"], s["gamma"], s["norm"]], default=str
        )
        if key in checked:
            continue
        checked.add(key)
        where = (
            f"{path}: the run of population {s['population']!r}, query "
            f"{s['query']!r}, n = {s['n']}, gamma = {s['gamma']!r}, norm = "
            f"{s['norm']!r}"
        )
        dist = populations[s["population"]]
        if s["query"] not in queries:
            queries[s["query"]] = _query(s.get("query_spec", s["query"]))
        query = queries[s["query"]]
        errors = s.get("errors", {})
        data = splits[errors["data"]].train if "data" in errors else dist
        try:
            check_neighbours(s.get("neighbours", NEIGHBOURS), s["n"])
            check_sampling_memory(
                query, dist, s["n"], m=s.get("m"), gamma=s["gamma"],
                bound=s["bound"], norm=s["norm"],
            )
            probe = probe_answer(query, data, s["n"], np.random.default_rng(0))
            check_databases_fit(
                np.shape(data)[1:] if isinstance(data, np.ndarray) else data.record_shape,
                s["n"],
                s["repetitions"],
                answer_size=answer_size(probe),
                settings=len(s["epsilons"]) * len(probe),
            )
        except (ValueError, TypeError, ArithmeticError) as exc:
            raise ValueError(f"{where}: {exc}") from None


def _splits(config) -> dict:
    """The data sets of a config (or of a run's settings), loaded and split
    (deterministic: nothing is drawn)."""
    return {
        name: load_split(**spec) for name, spec in config.get("datasets", {}).items()
    }


def _dataset_of(config, population) -> str | None:
    """The data set a grid population is fitted on, if any."""
    spec = config.get("populations", {}).get(population)
    return spec.get("dataset") if isinstance(spec, dict) else None


def _private_data(config, population) -> str | None:
    """The data set whose private training part stands for ``n = "private"``."""
    return config.get("errors", {}).get("data") or _dataset_of(config, population)


def _check_runnable(path, config, populations):
    """Build everything each grid point needs, drawing nothing; name what fails.

    Returns the data sets, loaded and split, and the grid's populations, built.
    """
    grid, run = config["grid"], config["run"]
    queries, errors = config.get("queries", {}), config.get("errors", {})
    splits = {}
    for name, spec in config.get("datasets", {}).items():
        try:
            splits[name] = load_split(**spec)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{path}: [datasets.{name}]: {exc}") from None
    if "data" in errors and errors["data"] not in splits:
        raise ValueError(
            f"{path}: [errors] data = {errors['data']!r} names no [datasets.NAME] "
            f"table; data sets: {', '.join(splits) or 'none'}."
        )
    built = {}
    for name in grid["population"]:
        where = f"[populations.{name}]" if name in populations else "[grid] population"
        try:
            built[name] = dist = build_population(populations.get(name, name), splits)
        except (ValueError, TypeError, OSError) as exc:
            raise ValueError(f"{path}: {where} {name!r}: {exc}") from None
        for n in grid["n"]:
            if n == PRIVATE:
                continue
            try:
                check_databases_fit(dist.record_shape, n, run["repetitions"])
            except ValueError as exc:
                raise ValueError(f"{path}: [grid] n = {n!r}: {exc}") from None
    for query in grid["query"]:
        where = f"[queries.{query}]" if query in queries else "[grid] query"
        spec = queries.get(query, query)
        try:
            if is_private_estimator(spec):
                build_private_estimator(spec)
            else:
                build_query(spec)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{path}: {where} {query!r}: {exc}") from None
        if is_private_estimator(spec):
            _check_private_estimator(path, config, query)
    _check_data(path, config, built, splits)
    for gamma in grid["gamma"]:
        try:
            sampling_plan(gamma=gamma, m=run.get("m"), bound=run["bound"])
        except (ValueError, TypeError) as exc:
            m = f", [run] m = {run['m']!r}" if "m" in run else ""
            raise ValueError(
                f"{path}: [grid] gamma = {gamma!r} with [run] bound = "
                f"{run['bound']!r}{m}: {exc}"
            ) from None
    for mech, epsilon in itertools.product(grid["mechanism"], grid["epsilon"]):
        try:
            _mechanism(mech, run["delta"])(1.0, epsilon)
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
    return splits, built


def _check_data(path, config, populations, splits):
    """The grid's ``n``, queries and populations fit the data sets they use."""
    grid, errors = config["grid"], config.get("errors", {})
    queries = config.get("queries", {})
    data = errors.get("data")
    fitted = set()  # (data set, query): each model is fitted once on its public part
    for name, population in populations.items():
        source = _private_data(config, name)
        if source is None:
            if PRIVATE in grid["n"]:
                raise ValueError(
                    f"{path}: [grid] n = {PRIVATE!r} needs a data set: population "
                    f"{name!r} has no dataset and there is no [errors] data."
                )
            continue
        rows = splits[source].train
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
                _fit_public(queries.get(query, query), splits[source].public)
            except (ValueError, TypeError) as exc:
                raise ValueError(
                    f"{path}: [grid] query {query!r} on the data set {source!r}: {exc}"
                ) from None
    if "score" not in errors:
        return
    try:
        splits[data].score(errors["score"])
    except ValueError as exc:
        raise ValueError(f"{path}: [errors] score: {exc}") from None
    for query in grid["query"]:
        params = queries.get(query, {}).get("params", {})
        if is_private_estimator(queries.get(query)):
            continue  # scored through its own predict: an intercept is fine
        if query not in queries or params.get("fit_intercept", True) is not False:
            raise ValueError(
                f"{path}: [errors] score = {errors['score']!r} scores released "
                "coefficients without an intercept: [grid] query "
                f"{query!r} must be a [queries.NAME] estimator with params "
                "fit_intercept = false."
            )


def _fit_public(spec, public) -> None:
    """Fit the query's model (each ``tune`` candidate) on public rows."""
    if not is_private_estimator(spec):
        build_query(spec)(public)
        return
    built = build_private_estimator(spec)
    from sklearn.base import clone
    from sklearn.model_selection import ParameterGrid

    for params in ParameterGrid(built["tune"] or {}):
        clone(built["estimator"]).set_params(**params).fit(public[:, :-1], public[:, -1])


def _check_private_estimator(path, config, query) -> None:
    """A ``kind = "private_estimator"`` query is scored on a data set and released
    with a mechanism :class:`~sensampler.models.PrivateEstimator` offers."""
    grid, errors = config["grid"], config.get("errors", {})
    where = f"{path}: [queries.{query}] kind = 'private_estimator'"
    if "score" not in errors:
        raise ValueError(
            f"{where} needs [errors] score and data: its released model is scored "
            "on the data set's test part."
        )
    if config["run"].get("neighbours", NEIGHBOURS) != NEIGHBOURS:
        raise ValueError(
            f"{where} samples replace-one pairs only, got [run] neighbours = "
            f"{config['run']['neighbours']!r}."
        )
    for mech in grid["mechanism"]:
        if mech not in _PRIVATE_MECHANISMS:
            raise ValueError(
                f"{where} releases with [grid] mechanism "
                f"{', '.join(map(repr, _PRIVATE_MECHANISMS))}, got {mech!r}."
            )
    for norm in grid.get("norm", []):
        if not ESTIMATOR_NORMS.contains(norm):
            raise ValueError(
                f"{where} samples the {' or '.join(map(repr, ESTIMATOR_NORMS))} "
                f"sensitivity, got [grid] norm {norm!r}."
            )


def _run_id(settings: dict) -> str:
    text = json.dumps(settings, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def plan_runs(config: dict):
    """The runs of a config from :func:`load_config`: (settings, skipped).

    ``settings`` is a list of dicts; ``skipped`` names the (mechanism, norm)
    pairs left out because the norm does not fit the mechanism.
    """
    return _plan(config, _splits(config))


def _plan(config: dict, splits: dict):
    """:func:`plan_runs` on the config's data sets, already loaded and split."""
    grid, run = config["grid"], config["run"]
    populations = config.get("populations", {})
    queries, errors = config.get("queries", {}), config.get("errors", {})
    datasets = config.get("datasets", {})
    runs, skipped = [], []
    norms = grid.get("norm", [None])
    accepted = {mech: accepted_norms(mech) for mech in grid["mechanism"]}
    for pop, query, n, gamma, norm, mech in itertools.product(
        grid["population"],
        grid["query"],
        grid["n"],
        grid["gamma"],
        norms,
        grid["mechanism"],
    ):
        norm = norm or accepted[mech][0]
        if norm not in accepted[mech]:
            skipped.append(f"{mech} with norm {norm}")
            continue
        settings = {
            "population": pop,
            "population_spec": populations.get(pop, pop),
            "query": query,
            "n": len(splits[_private_data(config, pop)].train) if n == PRIVATE else n,
            "gamma": gamma,
            "norm": norm,
            "mechanism": mech,
            "epsilons": list(grid["epsilon"]),
            "repetitions": run["repetitions"],
            "delta": run["delta"],
            "bound": run["bound"],
            "seed": run["seed"],
        }
        # Keys of the newer options only when used: older configs keep their run ids.
        used = {_dataset_of(config, pop), errors.get("data")} - {None}
        if used:
            settings["datasets"] = {name: datasets[name] for name in sorted(used)}
        if query in queries:
            settings["query_spec"] = queries[query]
        if "m" in run:
            settings["m"] = run["m"]
        if run.get("neighbours", NEIGHBOURS) != NEIGHBOURS:
            settings["neighbours"] = run["neighbours"]
        if errors:
            settings["errors"] = errors
        runs.append(settings)
    return runs, sorted(set(skipped))


def _checksum(content: dict) -> str:
    text = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _execute(settings: dict, path: str) -> str:
    """Do one run, on one BLAS/OpenMP thread, and write its file; return the path.

    Fits, products and draws then round alike in the calling process and in
    joblib's workers (which run one thread each), so the numbers of a run file
    (and the summary made of them) are the same bit for bit for any
    ``n_jobs``; its sampling run's random id and process ordinal differ.
    """
    with one_thread():
        return _execute_run(settings, path)


def _execute_run(settings: dict, path: str) -> str:
    splits = _splits(settings)
    dist = build_population(settings["population_spec"], splits)
    if is_private_estimator(settings.get("query_spec")):
        content = _private_estimator_run(settings, splits, dist)
        content = json.loads(json.dumps(content, default=float))
        record = {**content, "checksum": _checksum(content)}
        atomic_write_text(path, json.dumps(record, indent=1))
        return path
    query = build_query(settings.get("query_spec", settings["query"]))
    errors = settings.get("errors", {})
    seed = np.random.SeedSequence([settings["seed"], int(_run_id(settings), 16)])
    estimate = sample_sensitivity(
        query,
        dist,
        settings["n"],
        gamma=settings["gamma"],
        m=settings.get("m"),
        norm=settings["norm"],
        bound=settings["bound"],
        neighbours=settings.get("neighbours", NEIGHBOURS),
        random_state=seed.spawn(1)[0],
        n_jobs=1,
    )
    # The private data: a fresh database per repetition drawn from the population,
    # or the fixed private training part of [errors] data.
    data = splits[errors["data"]].train if "data" in errors else dist
    score = splits[errors["data"]].score(errors["score"]) if "score" in errors else None
    table = error_vs_epsilon(
        query,
        data,
        settings["n"],
        settings["epsilons"],
        {"sampled": estimate},
        mechanism=_mechanism(settings["mechanism"], settings["delta"]),
        repetitions=settings["repetitions"],
        score=score,
        random_state=seed.spawn(2)[1],
        n_jobs=1,
    )
    content = {
        "run_id": _run_id(settings),
        "settings": settings,
        "estimate": estimate.to_dict(),
        "rows": table.rows,
    }
    if score is not None:
        content["references"] = splits[errors["data"]].references(query, score)
    # Normalised through JSON first, so the checksum is that of what is read back.
    content = json.loads(json.dumps(content, default=float))
    record = {**content, "checksum": _checksum(content)}
    atomic_write_text(path, json.dumps(record, indent=1))
    return path


def _test_score(name: str, model, rows: np.ndarray) -> float:
    """``test_accuracy`` or ``test_mse`` of a fitted model's predictions on rows."""
    predicted = model.predict(rows[:, :-1])
    if name == "test_accuracy":
        return float(np.mean(predicted == rows[:, -1]))
    return float(np.mean((predicted - rows[:, -1]) ** 2))


def _private_estimator_run(settings: dict, splits: dict, dist) -> dict:
    """A run of a ``kind = "private_estimator"`` query: at each epsilon,
    :class:`~sensampler.models.PrivateEstimator` fitted on the private training
    part (its sensitivity sampled from the run's population, ``public`` the data
    set's public part), then released ``repetitions`` times with noise drawn from
    the run's seed (the fit's own release draws from fresh entropy and is not
    scored, so that the summary repeats) and each release scored on the test
    part."""
    from sklearn.base import clone

    spec, errors = settings["query_spec"], settings["errors"]
    built = build_private_estimator(spec)
    split = splits[errors["data"]]
    public = (split.public[:, :-1], split.public[:, -1])
    train = (split.train[:, :-1], split.train[:, -1])
    mechanism = _PRIVATE_MECHANISMS[settings["mechanism"]]
    seed = np.random.SeedSequence([settings["seed"], int(_run_id(settings), 16)])
    rows, estimates = [], []
    for epsilon, child in zip(settings["epsilons"], seed.spawn(len(settings["epsilons"]))):
        fit_seed, noise_seed = child.spawn(2)
        model = _private_estimator()(
            built["estimator"], epsilon=epsilon,
            delta=0.0 if mechanism == "laplace" else settings["delta"],
            gamma=settings["gamma"], public=public, population=dist,
            norm=settings["norm"], mechanism=mechanism, m=settings.get("m"),
            inequality=settings["bound"], tune=built["tune"], augment=built["augment"],
            # the repetitions below redraw the private fit's noise: release that
            # fit (never the public model or a shrunk one) so that they match
            select="private", random_state=fit_seed,
        ).fit(*train)
        released = model.estimator_
        names = model.attributes_
        exact = copy.deepcopy(released)
        fitted = (
            clone(released).fit(*(np.concatenate(p) for p in zip(public, train)))
            if built["augment"]
            else clone(released).fit(*train)
        )
        flat = np.concatenate([np.ravel(getattr(fitted, a)) for a in names])
        # Every repetition redraws the noise from the run's seed (the fit's own
        # release draws from fresh entropy, so it would not repeat).
        rng = np.random.default_rng(noise_seed)
        scores = []
        for _ in range(settings["repetitions"]):
            noisy, start = model.mechanism_.release(flat, random_state=rng), 0
            for a in names:
                shape = np.shape(getattr(fitted, a))
                size = int(np.prod(shape))
                part = np.asarray(noisy[start : start + size]).reshape(shape)
                setattr(exact, a, part if shape else float(part))
                start += size
            scores.append(_test_score(errors["score"], exact, split.test))
        summary = error_statistics(np.asarray(scores, dtype=float))
        estimates.append(model.sensitivity_.to_dict())
        for name in STATISTICS:
            rows.append({
                "sensitivity_value": model.sensitivity_.sensitivity.value,
                "epsilon": epsilon,
                "error": errors["score"],
                "coordinate": math.nan,
                "statistic": name,
                "value": float(summary[name]),
            })
    template = clone(built["estimator"])
    references = {
        "non-private": _test_score(errors["score"], clone(template).fit(*train), split.test),
        "public data only": _test_score(
            errors["score"], clone(template).fit(*public), split.test
        ),
    }
    if built["augment"]:
        both = (np.concatenate(p) for p in zip(public, train))
        references["non-private, public + private"] = _test_score(
            errors["score"], clone(template).fit(*both), split.test
        )
    return {
        "run_id": _run_id(settings),
        "settings": settings,
        "estimate": estimates[0],
        "estimates": estimates,
        "rows": rows,
        "references": references,
    }


def _read_run(path: str, run_id: str):
    """The content of a run file, or ``(None, reason)`` when it cannot be trusted."""
    try:
        with open(path, encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, f"unreadable ({type(exc).__name__}: {exc})"
    if not isinstance(record, dict) or not isinstance(record.get("checksum"), str):
        return None, "no checksum"
    content = {k: v for k, v in record.items() if k != "checksum"}
    if _checksum(content) != record["checksum"]:
        return None, "checksum mismatch: the file was changed or damaged"
    if content.get("run_id") != run_id or not isinstance(content.get("settings"), dict):
        return None, "it belongs to another run"
    if _run_id(content["settings"]) != run_id:
        return None, "its settings do not match its config key"
    return content, None


def _references(records) -> ResultTable:
    """The scores of the models without noise, once per query and data set."""
    rows = {}
    for rec in records:
        s = rec["settings"]
        for label, value in rec.get("references", {}).items():
            key = (s["query"], s["errors"]["data"], label)
            rows[key] = {
                "query": s["query"],
                "data": s["errors"]["data"],
                "score": s["errors"]["score"],
                "model": label,
                "value": value,
            }
    return ResultTable(rows.values())


def _summary(records) -> ResultTable:
    rows = []
    for rec in records:
        s, est = rec["settings"], rec["estimate"]
        for row in rec["rows"]:
            rows.append(
                {
                    "population": s["population"],
                    "query": s["query"],
                    "n": s["n"],
                    "gamma": s["gamma"],
                    "norm": s["norm"],
                    "mechanism": s["mechanism"],
                    # a replace-one run keeps no key (and its old run id)
                    "neighbours": s.get("neighbours", NEIGHBOURS),
                    "m": est["m"],
                    "sensitivity": row["sensitivity_value"],
                    "epsilon": row["epsilon"],
                    "measure": row["error"],
                    "coordinate": row["coordinate"],
                    "statistic": row["statistic"],
                    "error": row["value"],
                }
            )
    return ResultTable(rows)


def _check_out_dir(out_dir) -> str:
    if not isinstance(out_dir, (str, bytes, os.PathLike)):
        raise TypeError(f"out_dir must be a path to a folder, got {out_dir!r}.")
    out_dir = os.fsdecode(out_dir)
    if not out_dir:
        raise ValueError("out_dir must not be empty, got out_dir=''.")
    return out_dir


def run_batch(
    config_path, out_dir, *, n_jobs=None, progress: bool = False, log=None
) -> ResultTable:
    """Run (or resume) every run of a config; write ``OUT/summary.csv``; return the summary.

    With an ``[errors] score``, ``OUT/references.csv`` holds the scores of the
    models without noise (columns query, data, score, model, value).

    Parameters
    ----------
    config_path : path
        The TOML config (see the module docstring), checked whole first.
    out_dir : path
        Results folder: ``runs/`` holds one JSON file per finished run. Locked
        for the duration: a second run on it raises ``ValueError``.
    n_jobs : int, optional
        Runs in parallel through joblib.
    progress : bool
        A progress bar over runs.
    log : callable, optional
        Called with one line of text per event (the plan, each finished run,
        each damaged run file run again, skipped settings).

    Returns
    -------
    ResultTable
        The summary, as written to ``OUT/summary.csv``.
    """
    out_dir = _check_out_dir(out_dir)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_flag("progress", progress)
    checked = _check_config(config_path)
    run_dir = os.path.join(out_dir, "runs")
    os.makedirs(run_dir, exist_ok=True)
    with exclusive(out_dir):
        return _run_locked(
            checked.runs, checked.skipped, out_dir, run_dir, n_jobs, progress, log
        )


def _run_locked(runs, skipped, out_dir, run_dir, n_jobs, progress, log):
    for name in os.listdir(run_dir):  # temporary files of a crash mid-write
        if name.startswith(".tmp-"):
            os.unlink(os.path.join(run_dir, name))
    ids = [_run_id(s) for s in runs]
    paths = [os.path.join(run_dir, f"{i}.json") for i in ids]
    records, todo = {}, []
    for settings, run_id, path in zip(runs, ids, paths):
        if os.path.exists(path):
            content, problem = _read_run(path, run_id)
            if content is not None:
                records[run_id] = content
                continue
            if log:
                log(f"run file {path} cannot be trusted ({problem}); running it again")
        todo.append((settings, path))
    if log:
        log(
            f"{len(runs)} runs: {len(runs) - len(todo)} already done, {len(todo)} to do"
            + (
                f"; skipped (norm does not fit): {', '.join(skipped)}"
                if skipped
                else ""
            )
        )
    bar = None
    if progress and todo:
        bar = progress_bar(len(todo), "batch", unit="run")

    def finished(count, path):
        if bar is not None:
            bar.update(1)
        if log:
            log(f"finished run {count}/{len(todo)}: {path}")

    try:
        if len(todo) <= 1 or n_jobs == 1:
            for count, (s, p) in enumerate(todo, 1):
                finished(count, _execute(s, p))
        else:
            done = iter_tasks(_execute, todo, n_jobs=n_jobs, unordered=True)
            with contextlib.closing(done):  # ends a Dask watch even on an error
                for count, p in enumerate(done, 1):
                    finished(count, p)
    finally:
        if bar is not None:
            bar.close()
    for run_id, path in zip(ids, paths):
        if run_id not in records:
            content, problem = _read_run(path, run_id)
            if content is None:
                raise ValueError(f"run file {path} cannot be trusted: {problem}.")
            records[run_id] = content
    summary = _summary([records[i] for i in ids])
    summary.to_csv(os.path.join(out_dir, "summary.csv"))
    references = _references([records[i] for i in ids])
    references_path = os.path.join(out_dir, "references.csv")
    if len(references):
        references.to_csv(references_path)
    elif os.path.exists(references_path):  # of an earlier config
        os.unlink(references_path)
    return summary
