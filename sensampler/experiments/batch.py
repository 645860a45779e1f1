"""Batch runs from a TOML file: a grid of settings, run in parallel, written durably,
resumed where they stopped.

A *run* is one (population, query, n, gamma, norm, mechanism): its sensitivity is
sampled once and its error measured at every epsilon of the grid. Each finished
run is written atomically to ``OUT/runs/<run id>.json``; starting again skips the
runs whose file is there, so an interruption loses no finished run and redoes
none. Every run draws from a seed derived from the config's seed and the run's
own settings, so results do not depend on order, ``n_jobs`` or interruptions.

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
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys

import numpy as np
from joblib import Parallel, delayed

from .specs import (
    MECHANISMS,
    accepted_norms,
    build_population,
    mechanism_from_name,
    parse_query,
)
from .sweep import error_vs_epsilon
from .table import ResultTable, atomic_write_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["run_batch", "load_config", "plan_runs"]

_GRID_KEYS = ("population", "query", "n", "gamma", "norm", "mechanism", "epsilon")
_RUN_KEYS = ("seed", "repetitions", "delta", "bound")


def load_config(path) -> dict:
    """Read and check a batch config; errors name the file and the problem."""
    try:
        with open(path, "rb") as handle:
            config = tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: malformed TOML: {exc}") from None
    except OSError as exc:
        raise ValueError(f"cannot read config {path}: {exc.strerror}") from None
    unknown = set(config) - {"run", "grid", "populations"}
    if unknown:
        raise ValueError(
            f"{path}: unknown table(s) {sorted(unknown)}; expected [run], "
            "[grid], [populations.NAME]."
        )
    grid = config.get("grid")
    if not isinstance(grid, dict):
        raise ValueError(f"{path}: missing the [grid] table.")
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
        if not isinstance(value, list) or not value:
            grid[key] = [value] if not isinstance(value, list) else value
        if not grid[key]:
            raise ValueError(f"{path}: [grid] {key} must not be empty.")
    run = config.get("run", {})
    bad = set(run) - set(_RUN_KEYS)
    if bad:
        raise ValueError(
            f"{path}: unknown [run] key(s) {sorted(bad)}; keys: {', '.join(_RUN_KEYS)}."
        )
    return config


def _run_id(settings: dict) -> str:
    text = json.dumps(settings, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def plan_runs(config: dict):
    """The runs of a config: (settings, skipped) with settings a list of dicts."""
    grid, run = config["grid"], config.get("run", {})
    populations = config.get("populations", {})
    runs, skipped = [], []
    norms = grid.get("norm", [None])
    for pop, query, n, gamma, norm, mech in itertools.product(
        grid["population"],
        grid["query"],
        grid["n"],
        grid["gamma"],
        norms,
        grid["mechanism"],
    ):
        if mech not in MECHANISMS:
            raise ValueError(
                f"unknown mechanism {mech!r}; mechanisms: {', '.join(MECHANISMS)}."
            )
        norm = norm or accepted_norms(mech)[0]
        if norm not in accepted_norms(mech):
            skipped.append(f"{mech} with norm {norm}")
            continue
        settings = {
            "population": pop,
            "population_spec": populations.get(pop, pop),
            "query": query,
            "n": n,
            "gamma": gamma,
            "norm": norm,
            "mechanism": mech,
            "epsilons": list(grid["epsilon"]),
            "repetitions": run.get("repetitions", 50),
            "delta": run.get("delta", 1e-6),
            "bound": run.get("bound", "exact"),
            "seed": run.get("seed", 0),
        }
        # check everything before any run starts
        build_population(settings["population_spec"])
        parse_query(query)
        runs.append(settings)
    return runs, sorted(set(skipped))


def _execute(settings: dict, path: str) -> str:
    """Do one run and write its file atomically; return the path."""
    from ..sampler import sample_sensitivity

    dist = build_population(settings["population_spec"])
    query = parse_query(settings["query"])
    seed = np.random.SeedSequence([settings["seed"], int(_run_id(settings), 16)])
    estimate = sample_sensitivity(
        query,
        dist,
        settings["n"],
        gamma=settings["gamma"],
        norm=settings["norm"],
        bound=settings["bound"],
        random_state=seed.spawn(1)[0],
        n_jobs=1,
    )
    table = error_vs_epsilon(
        query,
        dist,
        settings["n"],
        settings["epsilons"],
        {"sampled": estimate},
        mechanism=mechanism_from_name(
            settings["mechanism"],
            None if settings["mechanism"] == "laplace" else settings["delta"],
        ),
        repetitions=settings["repetitions"],
        random_state=seed.spawn(2)[1],
        n_jobs=1,
    )
    record = {"settings": settings, "estimate": estimate.to_dict(), "rows": table.rows}
    atomic_write_text(path, json.dumps(record, indent=1, default=float))
    return path


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


def run_batch(
    config_path, out_dir, *, n_jobs=None, progress: bool = False, log=None
) -> ResultTable:
    """Run (or resume) every run of a config; write ``OUT/summary.csv``; return the summary.

    Parameters
    ----------
    config_path : path
        The TOML config (see the module docstring).
    out_dir : path
        Results folder: ``runs/`` holds one JSON file per finished run.
    n_jobs : int, optional
        Runs in parallel through joblib.
    progress : bool
        A progress bar over runs.
    log : callable, optional
        Called with one line of text per event (resumed runs, skipped settings).
    """
    config = load_config(config_path)
    runs, skipped = plan_runs(config)
    run_dir = os.path.join(os.fspath(out_dir), "runs")
    os.makedirs(run_dir, exist_ok=True)
    for name in os.listdir(run_dir):  # temporary files of a crash mid-write
        if name.startswith(".tmp-"):
            os.unlink(os.path.join(run_dir, name))
    paths = [os.path.join(run_dir, f"{_run_id(s)}.json") for s in runs]
    todo = [(s, p) for s, p in zip(runs, paths) if not os.path.exists(p)]
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
        from ..parallel import _progress_bar

        bar = _progress_bar(len(todo), "batch", unit="run")
    try:
        if len(todo) <= 1 or n_jobs == 1:
            for s, p in todo:
                _execute(s, p)
                if bar is not None:
                    bar.update(1)
        else:
            parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
            for _ in parallel(delayed(_execute)(s, p) for s, p in todo):
                if bar is not None:
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    records = []
    for p in paths:
        with open(p) as handle:
            records.append(json.load(handle))
    summary = _summary(records)
    summary.to_csv(os.path.join(os.fspath(out_dir), "summary.csv"))
    return summary
