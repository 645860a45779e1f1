"""Batch runs on the release path: ``[run] path = "release"``.

Such a run measures what :func:`~sensampler.app.release.release_statistic` would
publish (:func:`~sensampler.app.experiments.error_vs_epsilon`): the release's
bounds (``[run] bounds``, ``"auto"`` by default: the population model's), its
worst-case cap (``[run] worst_case_epsilon``), its neighbours and inequality, and
the mechanism each query gets (a one-quantile query the calibrated exponential
mechanism; the grid's ``laplace`` the Laplace mechanism, ``analytic`` the
analytic Gaussian at ``[run] delta``). Its summary rows carry each release's
random-DP epsilon, its worst-case epsilon, the price of the worst case and the
privacy unit. With ``[run] privacy_unit = "COLUMN"`` a run releases person-level
statistics, as ``sensampler release --privacy-unit COLUMN`` does: its population
is a public file's persons grouped by that column, resampled whole
(:func:`release_population`), and each database holds n persons.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import fields

from ...privacy import NEIGHBOURS
from ...settings import ReleaseSettings, read_setting
from ..release import load_population
from ..specs import build_population, build_query
from .release_sweep import error_vs_epsilon, prepare_sweep

__all__ = [
    "PATHS",
    "RELEASE_KEYS",
    "RELEASE_MECHANISMS_OF_GRID",
    "check_release_path",
    "check_release_run",
    "person_unit",
    "release_key_rule",
    "release_population",
    "release_query",
    "release_run_rows",
    "release_settings",
]

#: ``[run] path``: the release's pipeline, or a sampled sensitivity fed to the
#: grid's mechanism (a study of the sampler; the default, for older configs).
PATHS = ("sensitivity", "release")
#: The release's mechanism of each grid mechanism the release path takes.
RELEASE_MECHANISMS_OF_GRID = {"laplace": "laplace", "analytic": "gaussian"}
#: Settings of the release a batch takes elsewhere: epsilon, gamma and the
#: mechanism from ``[grid]``, delta, neighbours and inequality from ``[run]``'s
#: keys of both paths.
_ELSEWHERE = ("epsilon", "gamma", "mechanism", "delta", "neighbours", "inequality")
#: Settings a batch does not offer: the grid of the discrete mechanisms (the
#: grid's mechanisms are Laplace and Gaussian).
_NOT_IN_BATCH = ("granularity",)
#: ``[run]`` keys of the release path only: every other field of
#: :class:`~sensampler.settings.ReleaseSettings` (``bounds``,
#: ``worst_case_epsilon``, ...), so a new setting is a batch key too.
RELEASE_KEYS = tuple(
    f.name for f in fields(ReleaseSettings) if f.name not in _ELSEWHERE + _NOT_IN_BATCH
)


def release_key_rule(key: str) -> tuple:
    """The ``[run]`` rule of the release setting ``key``: ``(type check, range
    check, words)``, as its field reads it (:func:`~sensampler.settings.read_setting`)."""

    def reads(value) -> bool:
        try:
            read_setting(key, value)
        except (ValueError, TypeError):
            return False
        return True

    def typed(value) -> bool:
        return isinstance(value, (str, int, float)) and not isinstance(value, bool)

    help_ = next(f.metadata["help"] for f in fields(ReleaseSettings) if f.name == key)
    return typed, reads, f"the release's {key} ({help_})"


def release_settings(run: dict, gamma: float, mechanism: str) -> ReleaseSettings | None:
    """The release settings of one run, from the ``[run]`` table (defaults filled
    in), the grid's gamma and mechanism (epsilon is the grid's); None for a run
    that is not on the release path.

    Raises
    ------
    ValueError
        For a grid mechanism the release path does not take (the classic
        Gaussian), or settings a release refuses.
    """
    if run.get("path", PATHS[0]) != "release":
        return None
    if mechanism not in RELEASE_MECHANISMS_OF_GRID:
        raise ValueError(
            f"[grid] mechanism {mechanism!r} has no release: path = 'release' takes "
            f"{', '.join(map(repr, RELEASE_MECHANISMS_OF_GRID))}."
        )
    release = RELEASE_MECHANISMS_OF_GRID[mechanism]
    settings = ReleaseSettings.from_mapping(
        {
            "delta": 0.0 if release == "laplace" else run["delta"],
            "gamma": gamma,
            "mechanism": release,
            "neighbours": run.get("neighbours", NEIGHBOURS),
            "inequality": run["inequality"],
            **{key: run[key] for key in RELEASE_KEYS if key in run},
        },
        name="[run]",
    )
    return settings


def person_unit(run: dict) -> str | None:
    """The column of the person of a release-path run (``[run] privacy_unit``),
    or None for a run about one record."""
    if run.get("path", PATHS[0]) != "release" or run.get("privacy_unit") is None:
        return None
    return str(run["privacy_unit"]).strip()


def release_population(spec, run: dict, datasets: dict):
    """The population of a grid point (:func:`~sensampler.app.specs.build_population`),
    or, for a person-level run (:func:`person_unit`), the model of a person: a
    ``[populations.NAME]`` table with ``kind = "Empirical"``, ``path`` (a CSV
    or Parquet file of public rows) and ``column`` (the released column), its
    persons grouped by the privacy unit's column and resampled whole, as
    ``sensampler release --population bootstrap:FILE --privacy-unit COLUMN``
    reads it (:func:`~sensampler.app.release.load_population`)."""
    unit = person_unit(run)
    if unit is None:
        return build_population(spec, datasets)
    if not (isinstance(spec, dict) and str(spec.get("kind", "")).lower() == "empirical"
            and set(spec) == {"kind", "path", "column"}):
        raise ValueError(
            f"[run] privacy_unit = {unit!r} needs a model of a person: a "
            "[populations.NAME] table with kind = 'Empirical', path (a file of "
            "public rows) and column (the released column), its persons grouped "
            f"by {unit!r}; got {spec!r}."
        )
    return load_population(
        f"bootstrap:{spec['path']}", column=spec["column"], privacy_unit=unit
    )


def release_query(spec, run: dict):
    """The query of a grid point (:func:`~sensampler.app.specs.build_query`),
    or, for a person-level run, its name as a person-level release takes it
    (``sum``, ``mean``, ``count``, ...: checked with the run's population by
    :func:`check_release_run`)."""
    if person_unit(run) is None:
        return build_query(spec)
    if not isinstance(spec, str):
        raise ValueError(
            f"[run] privacy_unit: a person-level query is named (sum, mean, count, "
            f"persons, mean-of-totals, histogram:BINS:LOW:HIGH), got {spec!r}."
        )
    return spec


def check_release_path(path: str, run: dict, grid: dict, errors: dict) -> None:
    """``[run] path = "release"`` releases statistics of one number per record as
    :func:`~sensampler.app.release.release_statistic` does: no ``[errors]``, no
    sampling-plan ``m`` or ``[grid] norm`` (the release samples its plan's pairs
    in its mechanism's norm), and grid mechanisms it has. The release's own keys
    (:data:`RELEASE_KEYS`) need that path. Errors name the file ``path``."""
    if run.get("path", PATHS[0]) != "release":
        given = [key for key in RELEASE_KEYS if key in run]
        if given:
            raise ValueError(
                f"{path}: [run] {given[0]} is a release setting: it needs [run] "
                "path = 'release'."
            )
        return
    for where, present in (("[errors]", bool(errors)), ("[run] m", "m" in run),
                           ("[grid] norm", "norm" in grid)):
        if present:
            raise ValueError(
                f"{path}: {where} is not for [run] path = 'release', which releases "
                "a statistic as release_statistic does (in its mechanism's norm, "
                "with its plan's pairs)."
            )
    for gamma, mechanism in itertools.product(grid["gamma"], grid["mechanism"]):
        try:
            release_settings(run, gamma, mechanism)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{path}: [run] path = 'release': {exc}") from None


def check_release_run(run) -> None:
    """Every check a release makes, at every epsilon of the grid, for ``run`` (a
    :class:`~sensampler.app.experiments.batch_config.RunSpec` on the release
    path); nothing is drawn but the probes."""
    prepare_sweep(
        run.query, run.population, run.n, list(run.options.epsilons), run.release,
        repetitions=run.options.repetitions, random_state=0,
    )


def release_run_rows(run, seed) -> tuple[dict, list[dict]]:
    """``(estimate, rows)`` of a release-path run: its sampling plan, and one row
    per epsilon and statistic in the summary's columns, with both epsilons."""
    table = error_vs_epsilon(
        run.query, run.population, run.n, list(run.options.epsilons), run.release,
        repetitions=run.options.repetitions, random_state=seed, n_jobs=1,
    )
    rows = [
        {
            "sensitivity_value": math.nan,
            "epsilon": row["epsilon"],
            "worst_case_epsilon": row["worst_case_epsilon"],
            "price": row["price"],
            "released_by": row["mechanism"],
            "error": row["error"],
            "coordinate": math.nan,
            "statistic": row["statistic"],
            "value": row["value"],
        }
        for row in table.rows
    ]
    plan = run.release.plan
    return {"m": plan.m, "k": plan.k, "gamma": plan.gamma}, rows
