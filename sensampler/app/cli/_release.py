"""``sensampler release``: the flags and the two phases of the command.

Phase 1 (exit 2 on failure) reads and checks the private file, the population,
the queries, the settings and the budget file (which must admit every planned
release); phase 2 samples, spends under the budget file's lock, releases and
prints. No message quotes a record of the private file.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math

from ..._lib import printing
from ..._lib.words import counted
from ...distributions.empirical import (
    Empirical,
    check_not_private,
    check_not_private_file,
)
from ...privacy import format_dp, relation_words
from .._input_files import check_not_special
from ..budget_file import BudgetFile
from ..data_files import read_column, read_person_rows
from ..release import load_population, population_words, prepare_releases
from ..report import check_report_path, release_report, write_report
from ._flags import (
    add_settings_flags,
    in_flag_words,
    integer_flag,
    number_flag,
    setting_help,
    settings_from_args,
)

__all__ = ["add_release_arguments", "release_command"]

#: The parameters of the release's functions that are flags of their own, as typed.
RELEASE_FLAGS = {
    "random_state": "--seed",
    "n_jobs": "--n-jobs",
    "report": "--report",
    "privacy_unit": "--privacy-unit",
}
#: A new budget file's parameters, as their flags.
BUDGET_FLAGS = {
    "epsilon": "--budget-epsilon",
    "delta": "--budget-delta",
    "gamma": "--budget-gamma",
}

#: What ``--neighbours`` adds on a release: how a budget file records it.
NEIGHBOURS_NOTE = (
    "; a budget file records it converted to replace-one: twice the epsilon and "
    "the gamma"
)


def add_release_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of ``sensampler release``."""
    p.add_argument("--data", required=True, help="the private CSV or Parquet file")
    p.add_argument("--column", required=True, help="the column to release, by name")
    p.add_argument(
        "--query",
        action="append",
        help="mean, sum, median, variance, std, count, quantile:Q, "
        "histogram:BINS:LOW:HIGH; with --privacy-unit: sum, mean, count, persons, "
        "mean-of-totals, histogram:BINS:LOW:HIGH, or alone median-of-totals, "
        "quantile-of-totals:Q; repeat for several releases (default: mean)",
    )
    p.add_argument(
        "--population",
        default=None,
        help="bootstrap:PUBLIC_FILE (the same column of a public CSV/Parquet "
        "file, resampled), a model such as 'normal:loc=170,scale=10', or a "
        "TOML file with a [population] table; optional, and not used, with --bounds "
        "private:EPS0",
    )
    add_settings_flags(
        p,
        required=("epsilon",),
        helps={"neighbours": setting_help("neighbours") + NEIGHBOURS_NOTE},
    )
    p.add_argument("--budget-file", help="a JSON ledger to spend from (locked)")
    p.add_argument(
        "--budget-epsilon",
        type=number_flag("--budget-epsilon"),
        help="creates --budget-file with this epsilon",
    )
    p.add_argument(
        "--budget-delta", type=number_flag("--budget-delta"), help="... and this delta"
    )
    p.add_argument(
        "--budget-gamma",
        type=number_flag("--budget-gamma"),
        help="... and this gamma budget",
    )
    p.add_argument(
        "--seed",
        type=integer_flag("--seed"),
        default=None,
        help="seeds the sampling (never the noise)",
    )
    p.add_argument(
        "--n-jobs", type=integer_flag("--n-jobs"), default=None, help="sampler workers"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--report",
        help="write an HTML report to this file (statements in words, figures; "
        "no private record)",
    )


def _budget(args) -> BudgetFile | None:
    extra = [
        flag
        for flag, value in (
            ("--budget-epsilon", args.budget_epsilon),
            ("--budget-delta", args.budget_delta),
            ("--budget-gamma", args.budget_gamma),
        )
        if value is not None
    ]
    if args.budget_file is None:
        if extra:
            verb = "needs" if len(extra) == 1 else "need"
            raise ValueError(
                f"{', '.join(extra)} {verb} --budget-file FILE: the budget file "
                "to create."
            )
        return None
    check_not_special(args.budget_file, "--budget-file")
    try:
        return BudgetFile(
            args.budget_file,
            epsilon=args.budget_epsilon,
            delta=args.budget_delta,
            gamma=args.budget_gamma,
        )
    except ValueError as exc:
        raise ValueError(in_flag_words(str(exc), BUDGET_FLAGS)) from None


def _report(args) -> str | None:
    """``--report``, checked writable and naming no input file."""
    if args.report is None:
        return None
    population = args.population or ""
    if population.startswith("bootstrap:"):
        population = population[len("bootstrap:") :]
    elif not population.lower().endswith(".toml"):
        population = None  # a model named in the flag: no file
    return check_report_path(
        args.report,
        inputs=[
            ("--budget-file", args.budget_file),
            ("--data", args.data),
            ("--population file", population),
        ],
    )


def _population(args, data, unit: str | None):
    """``--population`` loaded (None without the flag), never the private file
    nor a copy of the private records (named as typed); a ``bootstrap:`` file
    grouped by the ``--privacy-unit`` column (``unit``), whole persons
    resampled (the release checks them against the private rows)."""
    if args.population is None:
        return None
    if args.population.startswith("bootstrap:"):
        check_not_private_file(args.population[len("bootstrap:") :], args.data)
    population = load_population(
        args.population, column=args.column, name="--population",
        column_name="--column", privacy_unit=unit,
    )
    if isinstance(population, Empirical) and not population.person_rows:
        check_not_private(population.data, data, args.population)
    return population


def _data(args, unit: str | None):
    """``--column`` of ``--data``, and the person of each row when
    ``--privacy-unit`` names a column (None otherwise)."""
    if unit is None:
        return read_column(args.data, args.column), None
    try:
        return read_person_rows(args.data, args.column, unit)
    except ValueError as exc:
        raise ValueError(str(exc).replace("privacy_unit", "--privacy-unit")) from None


def release_command(args):
    """Phase 1 of ``sensampler release``: check everything; return phase 2.

    Every refusal names the flags as typed (``--seed -1``, not ``random_state=-1``).
    """
    settings = settings_from_args(args)
    if args.population is None and settings.bounds.kind == "auto":
        raise ValueError(
            "--population is missing: --bounds auto (the default) reads the bounds "
            "from the population model; give --population (bootstrap:PUBLIC_FILE "
            "or a model), --bounds LOW:HIGH or --bounds private:EPS0."
        )
    try:
        report = _report(args)
        unit = settings.privacy_unit  # a column of --data: its ids are read here
        data, ids = _data(args, unit)
        population = _population(args, data, unit)
        budget = _budget(args)
        prepared = prepare_releases(
            data, args.query or ["mean"], population,
            settings.replace(privacy_unit=None), budget=budget, column=args.column,
            random_state=args.seed, n_jobs=args.n_jobs, privacy_unit=ids,
        )
    except ValueError as exc:
        raise ValueError(in_flag_words(str(exc), RELEASE_FLAGS)) from None
    words = population_words(args.population, population, args.column)
    prepared = dataclasses.replace(prepared, model=words)  # as typed, not the model

    def work():
        releases = prepared.run(step=args.status.step)
        if report is not None:
            source = f"{args.data}, column {args.column!r}"
            write_report(report, release_report(releases, budget=budget, source=source))
        if args.json:
            _print_json(args, releases, budget, report)
        else:
            _print_text(args, releases, budget, report)

    return work


def _print_json(args, releases, budget, report) -> None:
    spent = budget.filter() if budget is not None else None
    out = {
        "data": args.data,
        "column": args.column,
        "releases": [r.to_dict() for r in releases],
        "budget": None if spent is None else _budget_dict(budget, spent),
        "report": report,
    }
    print(json.dumps(out, allow_nan=False))


def _print_text(args, releases, budget, report) -> None:
    print(f"{args.data}, column {args.column!r}:")
    prepass = _spent_on_bounds(releases)
    if prepass:
        print(
            f"private bounds: {format_dp(prepass, 0.0)} (exponential mechanism), "
            "spent before the releases"
        )
    for r in releases:
        print(r.text())
    if len(releases) > 1:
        print(_together(releases))
    if len(releases) > 1 or prepass:
        print(_worst_case_total(releases))
    if budget is not None:
        _print_budget(budget)
    if report is not None:
        print(f"report written to {report}")


def _print_budget(budget: BudgetFile) -> None:
    spent = budget.filter()
    b = _budget_dict(budget, spent)
    used, limit = b["spent"], b["budget"]
    print(  # every number rounded up, as statements print them
        f"budget {b['file']}: spent epsilon={printing.epsilon(used['epsilon'])}, "
        f"delta={printing.delta(used['delta'])}, "
        f"gamma={printing.gamma(used['gamma'])} "
        f"of epsilon={printing.epsilon(limit['epsilon'])}, "
        f"delta={printing.delta(limit['delta'])}"
        + ("" if limit["gamma"] is None else f", gamma={printing.gamma(limit['gamma'])}")
        + f" ({b['spent']['method']}; {counted(b['releases'], 'release')})"
    )
    worst = spent.worst_case()
    print(
        f"budget {b['file']}, worst case: "
        + (
            "none (a release in the ledger states random DP only)"
            if worst is None
            else f"{format_dp(worst.epsilon, worst.delta)} for every pair "
            f"of {relation_words('replace-one', spent.privacy_unit or 'record')} "
            "(basic composition; the ledger is replace-one)"
        )
    )


def _together(releases) -> str:
    """What the releases state together: basic composition, a union bound on gamma."""
    epsilon = math.fsum(r.statement.epsilon for r in releases)
    delta = math.fsum(r.statement.delta for r in releases)
    gamma = min(1.0, math.fsum(r.statement.gamma for r in releases))
    dp = format_dp(epsilon, delta)  # rounded up, as every statement prints its numbers
    if gamma == 0.0:
        return f"together: {dp} (basic composition of the {len(releases)} releases)"
    return (
        f"together: {dp}, except with probability "
        f"gamma={printing.gamma(gamma)} over the data "
        f"drawn from the population model (basic composition of the "
        f"{len(releases)} releases; gamma summed over their sampling runs)"
    )


def _spent_on_bounds(releases) -> float:
    """The epsilon of a private-bounds pre-pass the releases share (0: none)."""
    bounds = releases[0].bounds
    return bounds.epsilon if bounds is not None else 0.0


def _worst_case_total(releases) -> str:
    """What holds for every pair of neighbours, together (basic composition)."""
    parts = []
    for r in releases:
        s = r.statement
        worst = s if s.source == "global" else s.worst_case
        if worst is None:
            return (
                "worst case, together: none (a release without bounds states "
                "random DP only)"
            )
        parts.append(worst)
    prepass = _spent_on_bounds(releases)
    epsilon = math.fsum(w.epsilon for w in parts) + prepass
    delta = math.fsum(w.delta for w in parts)
    with_prepass = f", the private bounds' epsilon={prepass:g} included" if prepass else ""
    return (
        f"worst case, together: {format_dp(epsilon, delta)} for every pair of "
        f"{relation_words(s.neighbours, s.privacy_unit)} (basic composition"
        f"{with_prepass})"
    )


def _budget_dict(budget: BudgetFile, spent) -> dict:
    bound = spent.spent
    return {
        "file": budget.path,
        "budget": {
            "epsilon": spent.epsilon_budget,
            "delta": spent.delta_budget,
            "gamma": spent.gamma_budget,
        },
        "spent": {
            "epsilon": bound.epsilon,
            "delta": bound.delta,
            "gamma": bound.gamma,
            "method": bound.method,
        },
        "releases": spent.count,
        "worst_case": (
            None
            if spent.worst_case() is None
            else {
                "epsilon": spent.worst_case().epsilon,
                "delta": spent.worst_case().delta,
            }
        ),
    }
