"""Batch runs on the release path: ``[run] path = "release"``.

Such a run measures what :func:`~sensampler.app.release.release_statistic` would
publish (:func:`~sensampler.app.experiments.error_vs_epsilon`): the release's
bounds (``[run] bounds``, ``"auto"`` by default: the population model's), its
worst-case cap (``[run] worst_case_epsilon``), its neighbours and inequality, and
the mechanism each query gets (a one-quantile query the calibrated exponential
mechanism; the grid's ``laplace`` the Laplace mechanism, ``analytic`` the
analytic Gaussian at ``[run] delta``). Its summary rows carry each release's
random-DP epsilon, its worst-case epsilon and the price of the worst case.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import fields

from ...privacy import NEIGHBOURS
from ...settings import ReleaseSettings, read_setting
from .release_sweep import error_vs_epsilon, prepare_sweep

__all__ = [
    "PATHS",
    "RELEASE_KEYS",
    "RELEASE_MECHANISMS_OF_GRID",
    "check_release_path",
    "check_release_run",
    "release_key_rule",
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
        Gaussian), settings a release refuses, or a privacy unit (a batch run
        is about one record in this version).
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
    settings.require_record_unit("a batch run")  # [run] privacy_unit: refused
    return settings


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
