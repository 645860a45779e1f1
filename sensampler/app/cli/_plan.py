"""``sensampler plan --query Q --population P --n N --target-error E``: the flags
and the two phases of planning a release.

Phase 1 (exit 2 on failure) checks every flag and loads the population model;
phase 2 draws the sampling runs and prints the plan. No private file is read:
the command takes none, and it spends and records nothing.
"""

from __future__ import annotations

import argparse

from ..._lib.domains import NEIGHBOUR_RELATIONS
from ..planning import NOISE_MODELS, prepare_plan
from ._flags import add_floor_flags, bounds_of

__all__ = ["add_release_plan_arguments", "release_plan_command", "wants_release_plan"]

#: The flags that make ``sensampler plan`` plan a release (not a sampling plan).
RELEASE_PLAN_FLAGS = (
    "query", "population", "n", "target_error", "epsilon", "bounds", "worst_case_epsilon",
)


def add_release_plan_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of ``sensampler plan`` that plan a release from a target error."""
    g = p.add_argument_group(
        "planning a release",
        "the epsilon a target error needs (--target-error) or the error an epsilon "
        "gives (--epsilon), from the population model alone: no private data are "
        "read and nothing is spent",
    )
    g.add_argument("--query", help="mean, median, quantile:Q, ... (as for release)")
    g.add_argument(
        "--population",
        help="the population model, as for release (bootstrap:FILE needs --column)",
    )
    g.add_argument("--column", help="the column of a bootstrap:FILE population")
    g.add_argument("--n", type=int, help="records of the data to be released")
    g.add_argument(
        "--target-error",
        type=float,
        help="the error wanted (|release - exact answer|, the noise only)",
    )
    g.add_argument("--epsilon", type=float, help="the release's epsilon (reverse)")
    g.add_argument(
        "--delta", type=float, default=0.0, help="the release's delta (gaussian)"
    )
    g.add_argument(
        "--mechanism",
        choices=list(NOISE_MODELS),
        default="laplace",
        help="the noise of a query that samples a sensitivity; median and "
        "quantile:Q are planned with the exponential mechanism, as release uses",
    )
    g.add_argument(
        "--measure",
        default="mean",
        help="what --target-error fixes: mean (the expected error, default) or a "
        "probability Q (the Q-quantile of the error, e.g. 0.9)",
    )
    g.add_argument(
        "--runs",
        type=int,
        default=200,
        help="sampling runs (for median, quantile:Q: databases) drawn (default 200)",
    )
    g.add_argument(
        "--neighbours",
        default="replace-one",
        choices=NEIGHBOUR_RELATIONS.values,
        help="the release's neighbouring relation: replace-one (default) or "
        "add-remove (D of n - 1 records and D with one record added; --n >= 2)",
    )
    add_floor_flags(g, default=None, private=False)
    g.add_argument("--seed", type=int, default=None, help="seeds the sampling runs")
    g.add_argument("--n-jobs", type=int, default=None, help="sampler workers")


def wants_release_plan(args) -> bool:
    """Whether ``sensampler plan`` was given a flag of release planning."""
    return any(getattr(args, name) is not None for name in RELEASE_PLAN_FLAGS)


def _measure(text: str):
    if text == "mean":
        return text
    try:
        return float(text)
    except ValueError:
        raise ValueError(
            f"--measure must be 'mean' or a probability in (0, 1), got --measure {text!r}."
        ) from None


def release_plan_command(args, say, to_json):
    """Phase 1 of release planning: check every flag; return phase 2.

    ``say`` prints a line, ``to_json`` writes strict JSON (the command line's own).
    """
    missing = [
        f"--{name}"
        for name in ("query", "population", "n")
        if getattr(args, name) is None
    ]
    if missing:
        raise ValueError(f"planning a release needs {', '.join(missing)}.")
    if (args.target_error is None) == (args.epsilon is None):
        raise ValueError(
            "planning a release needs one of --target-error and --epsilon."
        )
    for flag, value in (("--m", args.m), ("--k", args.k)):
        if value is not None:
            raise ValueError(
                f"{flag} is for sampling plans; a release plan uses the plan of --gamma."
            )
    settings = dict(
        target_error=args.target_error,
        epsilon=args.epsilon,
        delta=args.delta,
        gamma=0.05 if args.gamma is None else args.gamma,
        mechanism=args.mechanism,
        measure=_measure(args.measure),
        bound=args.bound,
        column=args.column,
        runs=args.runs,
        random_state=args.seed,
        n_jobs=args.n_jobs,
        neighbours=args.neighbours,
        bounds=bounds_of(args.bounds),
        worst_case_epsilon=args.worst_case_epsilon,
    )
    prepared = prepare_plan(args.query, args.population, args.n, **settings)

    def work():
        plan = prepared.run()
        say(to_json(plan.to_dict()) if args.json else plan.text())

    return work
