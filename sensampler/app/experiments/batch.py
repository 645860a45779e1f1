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

The whole config is checked before the first run, once, by
:func:`~sensampler.app.experiments.batch_config.load_config` (or
:func:`~sensampler.app.experiments.batch_config.parse_config` for tables):
every key, type and range, and that every grid point can run (each
population, query, sampling plan and mechanism is built; each query answers
one probe database of each population, drawn with a fixed seed, which also
sizes the run's memory: a run whose sampling or sweep would not fit in
physical memory is refused, see :mod:`sensampler._lib.memory`); errors name
the file, the key and the value. It gives a
:class:`~sensampler.app.experiments.batch_config.BatchConfig` whose runs hold
what they need built: this module runs them without reading the config again.
One ``run`` at a time may use an output folder: it holds an OS lock on
``OUT/.lock`` (released when it ends, even by a crash), and a second ``run`` on
the same folder stops with an error before touching anything.

Example config::

    [run]
    seed = 0
    repetitions = 50          # private databases per setting
    delta = 1e-6              # for the Gaussian mechanisms
    inequality = "exact"

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
  :data:`~sensampler.app.specs.ESTIMATORS`) and ``params``: the model's
  fitted ``coef_``;
- ``[errors]``: ``data = NAME`` releases the answer on that data set's private
  training part (the same fixed database in every repetition; ``n = "private"``
  in the grid is its size) and ``score = "test_mse"`` or ``"test_accuracy"``
  scores each release on its test part (the ``measure`` column) instead of
  measuring its distance to the true answer; ``OUT/references.csv`` then holds
  the scores of the model without noise, of the model trained on the public part
  alone and of the constant prediction.

``[run] path = "release"`` runs each grid point on the release path
(:mod:`~sensampler.app.experiments.batch_release`): the error of what
:func:`~sensampler.app.release.release_statistic` would publish, with its bounds
(``[run] bounds``: ``"auto"`` (the default: the population model's),
``"LOW:HIGH"``, ``"none"`` or ``"private:EPS0"``), its worst-case cap (``[run]
worst_case_epsilon``), its neighbours and inequality, and the mechanism each
query gets (a one-quantile query the calibrated exponential mechanism; the
grid's ``laplace`` and ``analytic``, the Laplace and the analytic Gaussian
mechanisms). The summary then gives each release's ``epsilon`` (random DP) and
``worst_case_epsilon`` (for every pair), the ``price`` of the worst case and the
mechanism it was ``released_by``. The default, ``path = "sensitivity"``, feeds a
sampled sensitivity to the grid's mechanism, a study of the sampler (no bounds,
no cap: ``worst_case_epsilon`` is NaN).

``[run] m`` sets the pairs per sampled sensitivity (default: the plan's own m
for gamma). ``[run] neighbours`` (``"replace-one"``, the default, or
``"add-remove"``) is the neighbouring relation every sensitivity is sampled
for (add/remove needs every run's n >= 2; a private-estimator query samples
replace-one pairs only).

A ``[queries.NAME]`` table with ``kind = "private_estimator"`` (keys ``model``,
``params``, optional ``tune`` and ``augment``; ``examples/private_estimators.toml``)
fits :class:`~sensampler.models.PrivateEstimator` at each epsilon on the
``[errors] data`` set's private training part, with ``public`` its public part and
the run's population, gamma, norm (``l1`` or ``l2``), ``[run] m``, ``inequality`` and
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
import json
import math
import os

import numpy as np

from ..._lib.threads import one_thread
from ..._lib.validation import check_flag, check_n_jobs
from ...parallel import iter_tasks, progress_bar
from ...privacy import NEIGHBOURS
from ...sampler import sample_sensitivity
from ...table import ResultTable, atomic_write_text, check_output_file
from .._locks import exclusive
from .batch_config import (
    PRIVATE_MECHANISMS,
    BatchConfig,
    RunSpec,
    load_config,
    run_id_of,
)
from .batch_release import release_run_rows
from .sweep import STATISTICS, error_statistics, sensitivity_sweep

__all__ = ["run_batch", "check_outputs"]


def _private_estimator():
    """:class:`sensampler.models.PrivateEstimator`, loaded when a private-estimator
    route runs: it imports scikit-learn, which ``import sensampler.app.cli`` must not
    load (``tests/test_import_cost.py``)."""
    return importlib.import_module("sensampler.models").PrivateEstimator


def _checksum(content: dict) -> str:
    text = json.dumps(content, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _execute(run: RunSpec, path: str) -> str:
    """Do one run, on one BLAS/OpenMP thread, and write its file; return the path.

    Fits, products and draws then round alike in the calling process and in
    joblib's workers (which run one thread each), so the numbers of a run file
    (and the summary made of them) are the same bit for bit for any
    ``n_jobs``; its sampling run's random id and process ordinal differ.
    """
    with one_thread():
        if run.private_estimator is not None:
            content = _private_estimator_run(run)
        elif run.release is not None:
            content = _release_run(run)
        else:
            content = _sweep_run(run)
    # Normalised through JSON first, so the checksum is that of what is read back.
    content = json.loads(json.dumps(content, default=float))
    record = {**content, "checksum": _checksum(content)}
    atomic_write_text(path, json.dumps(record, indent=1))
    return path


def _seed(run: RunSpec) -> np.random.SeedSequence:
    """The run's seed: the batch's seed and the run's id."""
    return np.random.SeedSequence([run.options.seed, int(run.run_id, 16)])


def _sweep_run(run: RunSpec) -> dict:
    """A run's sampled sensitivity and its error at every epsilon: the run file's
    content."""
    options = run.options
    seed = _seed(run)
    estimate = sample_sensitivity(
        run.query,
        run.population,
        run.n,
        gamma=run.gamma,
        m=options.m,
        norm=run.norm,
        inequality=options.inequality,
        neighbours=options.neighbours,
        random_state=seed.spawn(1)[0],
        n_jobs=1,
    )
    # The private data: a fresh database per repetition drawn from the population,
    # or the fixed private training part of [errors] data.
    data = run.population if run.split is None else run.split.train
    table = sensitivity_sweep(
        run.query,
        data,
        run.n,
        list(options.epsilons),
        {"sampled": estimate},
        mechanism=run.mechanism_factory,
        repetitions=options.repetitions,
        score=run.score,
        random_state=seed.spawn(2)[1],
        n_jobs=1,
    )
    content = {
        "run_id": run.run_id,
        "settings": run.settings,
        "estimate": estimate.to_dict(),
        "rows": table.rows,
    }
    if run.score is not None:
        content["references"] = run.split.references(run.query, run.score)
    return content


def _release_run(run: RunSpec) -> dict:
    """A ``[run] path = "release"`` run: the error of what the release publishes
    at every epsilon (:func:`~sensampler.app.experiments.error_vs_epsilon`, its
    calibration from the run's seed), with each release's two epsilons."""
    estimate, rows = release_run_rows(run, _seed(run).spawn(1)[0])
    return {"run_id": run.run_id, "settings": run.settings, "estimate": estimate,
            "rows": rows}


def _private_estimator_run(run: RunSpec) -> dict:
    """A run of a ``kind = "private_estimator"`` query: at each epsilon,
    :class:`~sensampler.models.PrivateEstimator` fitted on the private training
    part (its sensitivity sampled from the run's population, ``public`` the data
    set's public part), then released ``repetitions`` times with noise drawn from
    the run's seed (the fit's own release draws from fresh entropy and is not
    scored, so that the summary repeats) and each release scored on the test
    part."""
    from sklearn.base import clone

    parts, split, options = run.private_estimator, run.split, run.options
    score = run.score.__name__
    public = (split.public[:, :-1], split.public[:, -1])
    train = (split.train[:, :-1], split.train[:, -1])
    mechanism = PRIVATE_MECHANISMS[run.mechanism]
    rows, estimates = [], []
    epsilons = options.epsilons
    for epsilon, child in zip(epsilons, _seed(run).spawn(len(epsilons))):
        fit_seed, noise_seed = child.spawn(2)
        model = _private_estimator()(
            parts.estimator, epsilon=epsilon,
            delta=0.0 if mechanism == "laplace" else options.delta,
            gamma=run.gamma, public=public, population=run.population,
            norm=run.norm, mechanism=mechanism, m=options.m,
            inequality=options.inequality, tune=parts.tune, augment=parts.augment,
            # the repetitions below redraw the private fit's noise: release that
            # fit (never the public model or a shrunk one) so that they match
            select="private", random_state=fit_seed,
        ).fit(*train)
        released = model.estimator_
        fitted = (
            clone(released).fit(*(np.concatenate(p) for p in zip(public, train)))
            if parts.augment
            else clone(released).fit(*train)
        )
        summary = error_statistics(
            _release_scores(run, model, fitted, noise_seed, split.test)
        )
        estimates.append(model.sensitivity_.to_dict())
        for name in STATISTICS:
            rows.append({
                "sensitivity_value": model.sensitivity_.sensitivity.value,
                "epsilon": epsilon,
                "error": score,
                "coordinate": math.nan,
                "statistic": name,
                "value": float(summary[name]),
            })
    template = clone(parts.estimator)
    references = {
        "non-private": _test_score(score, clone(template).fit(*train), split.test),
        "public data only": _test_score(
            score, clone(template).fit(*public), split.test
        ),
    }
    if parts.augment:
        both = (np.concatenate(p) for p in zip(public, train))
        references["non-private, public + private"] = _test_score(
            score, clone(template).fit(*both), split.test
        )
    return {
        "run_id": run.run_id,
        "settings": run.settings,
        "estimate": estimates[0],
        "estimates": estimates,
        "rows": rows,
        "references": references,
    }


def _release_scores(run: RunSpec, model, fitted, seed, test) -> np.ndarray:
    """The test scores of ``repetitions`` releases of the fitted model's
    attributes, each with noise from ``model``'s mechanism drawn from ``seed``.

    Every repetition redraws the noise from the run's seed (the fit's own
    release draws from fresh entropy, so it would not repeat).
    """
    names = model.attributes_
    exact = copy.deepcopy(model.estimator_)
    flat = np.concatenate([np.ravel(getattr(fitted, a)) for a in names])
    rng = np.random.default_rng(seed)
    scores = []
    for _ in range(run.options.repetitions):
        noisy, start = model.mechanism_.release(flat, random_state=rng), 0
        for a in names:
            shape = np.shape(getattr(fitted, a))
            size = int(np.prod(shape))
            part = np.asarray(noisy[start : start + size]).reshape(shape)
            setattr(exact, a, part if shape else float(part))
            start += size
        scores.append(_test_score(run.score.__name__, exact, test))
    return np.asarray(scores, dtype=float)


def _test_score(name: str, model, rows: np.ndarray) -> float:
    """``test_accuracy`` or ``test_mse`` of a fitted model's predictions on rows."""
    predicted = model.predict(rows[:, :-1])
    if name == "test_accuracy":
        return float(np.mean(predicted == rows[:, -1]))
    return float(np.mean((predicted - rows[:, -1]) ** 2))


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
    if run_id_of(content["settings"]) != run_id:
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
                    # what holds for every pair: NaN without bounds (the
                    # sensitivity path), from the release's bounds and cap
                    "worst_case_epsilon": row.get("worst_case_epsilon", math.nan),
                    "price": row.get("price", math.nan),
                    "released_by": row.get("released_by", s["mechanism"]),
                    # a person-level release-path run names its unit's column
                    "privacy_unit": "person" if s.get("privacy_unit") else "record",
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


def check_outputs(out_dir, runs) -> None:
    """Refuse, before any run, a file or folder of ``out_dir`` that ``run`` must
    not write.

    ``OUT/runs`` must be absent or a folder, and ``OUT/.lock``,
    ``OUT/summary.csv``, ``OUT/references.csv`` and every run's file
    ``OUT/runs/<run id>.json`` absent or a regular file: none of them a symbolic
    link, a FIFO or a device (:func:`sensampler.table.check_output_file`).

    Parameters
    ----------
    out_dir : str
        The results folder; it must exist.
    runs : sequence of RunSpec
        The runs of the checked config (:attr:`BatchConfig.runs`).

    Raises
    ------
    OutputFileError
        A ``ValueError`` naming the path and the problem.
    """
    run_dir = os.path.join(out_dir, "runs")
    check_output_file(run_dir, "out_dir", folder=True)
    names = [".lock", "summary.csv", "references.csv"]
    paths = [os.path.join(out_dir, name) for name in names]
    if os.path.isdir(run_dir):
        paths += [os.path.join(run_dir, f"{run.run_id}.json") for run in runs]
    for path in paths:
        check_output_file(path, "out_dir")


def run_batch(
    config, out_dir, *, n_jobs=None, progress: bool = False, log=None
) -> ResultTable:
    """Run (or resume) every run of a config; write ``OUT/summary.csv``; return the summary.

    With an ``[errors] score``, ``OUT/references.csv`` holds the scores of the
    models without noise (columns query, data, score, model, value).

    Parameters
    ----------
    config : BatchConfig or path
        A config checked by
        :func:`~sensampler.app.experiments.batch_config.load_config`, or the
        TOML file (see the module docstring), which is then read and checked
        whole first.
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
    if not isinstance(config, BatchConfig):
        config = load_config(config)
    os.makedirs(out_dir, exist_ok=True)
    check_outputs(out_dir, config.runs)
    run_dir = os.path.join(out_dir, "runs")
    os.makedirs(run_dir, exist_ok=True)
    with exclusive(out_dir):
        return _run_locked(config, out_dir, run_dir, n_jobs, progress, log)


def _run_locked(config: BatchConfig, out_dir, run_dir, n_jobs, progress, log):
    for name in os.listdir(run_dir):  # temporary files of a crash mid-write
        if name.startswith(".tmp-"):
            os.unlink(os.path.join(run_dir, name))
    runs, skipped = config.runs, config.skipped
    ids = [run.run_id for run in runs]
    paths = [os.path.join(run_dir, f"{i}.json") for i in ids]
    records, todo = {}, []
    for run, run_id, path in zip(runs, ids, paths):
        if os.path.exists(path):
            content, problem = _read_run(path, run_id)
            if content is not None:
                records[run_id] = content
                continue
            if log:
                log(f"run file {path} cannot be trusted ({problem}); running it again")
        todo.append((run, path))
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
