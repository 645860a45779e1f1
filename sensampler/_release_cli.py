"""``sensampler release``: the flags and the two phases of the command.

Phase 1 (exit 2 on failure) reads and checks the private file, the population,
the queries, the settings and the budget file (which must admit every planned
release); phase 2 samples, spends under the budget file's lock, releases and
prints. No message quotes a record of the private file.
"""

from __future__ import annotations

import argparse
import json
import math

from .budget_file import BudgetFile
from .data_files import read_column
from .distributions.empirical import check_not_private_file
from .plan import BOUNDS
from .release import RELEASE_MECHANISMS, prepare_releases

__all__ = ["add_release_arguments", "release_command"]


def add_release_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of ``sensampler release``."""
    p.add_argument("--data", required=True, help="the private CSV or Parquet file")
    p.add_argument("--column", required=True, help="the column to release, by name")
    p.add_argument(
        "--query",
        action="append",
        help="mean, sum, median, variance, std, count, quantile:Q, "
        "histogram:BINS:LOW:HIGH; repeat for several releases (default: mean)",
    )
    p.add_argument(
        "--population",
        required=True,
        help="bootstrap:PUBLIC_FILE (the same column of a public CSV/Parquet "
        "file, resampled), a model such as 'normal:loc=170,scale=10', or a "
        "TOML file with a [population] table",
    )
    p.add_argument("--epsilon", type=float, required=True, help="each release's epsilon")
    p.add_argument(
        "--delta", type=float, default=0.0, help="each release's delta (Gaussian)"
    )
    p.add_argument(
        "--gamma",
        type=float,
        default=0.05,
        help="random-DP failure probability of each sampling run (default 0.05)",
    )
    p.add_argument(
        "--mechanism", choices=list(RELEASE_MECHANISMS), default="laplace"
    )
    p.add_argument(
        "--granularity", type=float, help="grid step of the discrete mechanisms"
    )
    p.add_argument("--bound", choices=BOUNDS, default="exact")
    p.add_argument("--budget-file", help="a JSON ledger to spend from (locked)")
    p.add_argument(
        "--budget-epsilon", type=float, help="creates --budget-file with this epsilon"
    )
    p.add_argument("--budget-delta", type=float, help="... and this delta")
    p.add_argument("--budget-gamma", type=float, help="... and this gamma budget")
    p.add_argument(
        "--seed", type=int, default=None, help="seeds the sampling (never the noise)"
    )
    p.add_argument("--n-jobs", type=int, default=None, help="sampler workers")
    p.add_argument("--json", action="store_true", help="print one JSON object")


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
            raise ValueError(f"{', '.join(extra)} need --budget-file.")
        return None
    return BudgetFile(
        args.budget_file,
        epsilon=args.budget_epsilon,
        delta=args.budget_delta,
        gamma=args.budget_gamma,
    )


def release_command(args):
    """Phase 1 of ``sensampler release``: check everything; return phase 2."""
    data = read_column(args.data, args.column)
    if args.population.startswith("bootstrap:"):
        check_not_private_file(args.population[len("bootstrap:") :], args.data)
    budget = _budget(args)
    queries = args.query or ["mean"]
    settings = dict(
        population=args.population,
        epsilon=args.epsilon,
        delta=args.delta,
        gamma=args.gamma,
        mechanism=args.mechanism,
        granularity=args.granularity,
        column=args.column,
        bound=args.bound,
        budget=budget,
        random_state=args.seed,
        n_jobs=args.n_jobs,
    )
    prepared = prepare_releases(data, queries, **settings)

    def work():
        releases = prepared.run()
        spent = budget.filter() if budget is not None else None
        if args.json:
            out = {
                "data": args.data,
                "column": args.column,
                "releases": [r.to_dict() for r in releases],
                "budget": None if spent is None else _budget_dict(budget, spent),
            }
            print(json.dumps(out, allow_nan=False))
            return
        print(f"{args.data}, column {args.column!r}:")
        for r in releases:
            print(r.text())
        if len(releases) > 1:
            print(_together(releases))
        if spent is not None:
            b = _budget_dict(budget, spent)
            print(
                f"budget {b['file']}: spent epsilon={b['spent']['epsilon']:.6g}, "
                f"delta={b['spent']['delta']:.3g}, gamma={b['spent']['gamma']:.4g} "
                f"of epsilon={b['budget']['epsilon']:.6g}, "
                f"delta={b['budget']['delta']:.3g}"
                + (
                    ""
                    if b["budget"]["gamma"] is None
                    else f", gamma={b['budget']['gamma']:.4g}"
                )
                + f" ({b['spent']['method']}; {b['releases']} releases)"
            )

    return work


def _together(releases) -> str:
    """What the releases state together: basic composition, a union bound on gamma."""
    epsilon = math.fsum(r.statement.epsilon for r in releases)
    delta = math.fsum(r.statement.delta for r in releases)
    gamma = min(1.0, math.fsum(r.statement.gamma for r in releases))
    dp = f"epsilon={epsilon:.6g}-DP" if not delta else (
        f"(epsilon={epsilon:.6g}, delta={delta:.3g})-DP"
    )
    return (
        f"together: {dp}, except with probability gamma={gamma:.4g} over the data "
        f"drawn from the population model (basic composition of the "
        f"{len(releases)} releases; gamma summed over their sampling runs)"
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
    }
