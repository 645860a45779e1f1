"""The two planning commands, as the Python API has two functions.

- ``sensampler sampling-plan --gamma G``: how many pairs a sampling run draws
  (:func:`sensampler.sampling_plan`);
- ``sensampler plan --query Q --population P --n N --target-error E``: the
  epsilon a release needs for an error, or the error an epsilon gives
  (:func:`sensampler.app.planning.plan_release`). Phase 1 (exit 2 on failure)
  checks every flag and loads the population model; phase 2 draws the sampling
  runs and prints the plan. No private file is read: the command takes none,
  and it spends and records nothing.
"""

from __future__ import annotations

import argparse

from ..._display.text import text_table
from ...mechanisms.accuracy import NOISE_MODELS
from ...plan import INEQUALITIES, sampling_plan
from ...settings import BoundsSetting, parse_bounds, parse_number
from ..planning import prepare_plan
from ._flags import add_settings_flags, settings_from_args

__all__ = ["add_plan_parser", "add_sampling_plan_parser"]

#: The inequality's help, shared by both commands.
INEQUALITY_HELP = (
    "the sampling plan's inequality, which certifies gamma for the order "
    "statistic of the m sampled sensitivities: exact (the binomial law of an "
    "order statistic; the default), exchangeable (the rank law of exchangeable "
    "draws; fewest pairs) or dkw (the paper's, by the Dvoretzky-Kiefer-Wolfowitz "
    "inequality; most pairs)"
)


def add_sampling_plan_parser(sub, say, to_json) -> None:
    """``sensampler sampling-plan``: :func:`sensampler.sampling_plan` on the
    command line (``say`` prints a line, ``to_json`` writes strict JSON)."""
    p = sub.add_parser(
        "sampling-plan",
        help="how many pairs a sampling run draws for a gamma (m and k)",
        description="Choose the sampling plan (m, k) of a gamma, certify a given m "
        "(and k), or both: sensampler.sampling_plan on the command line. Give "
        "--gamma, --m, or both.",
    )
    p.add_argument(
        "--gamma",
        type=float,
        help="random-DP failure probability in (0, 1): the chance that a fresh "
        "pair of neighbouring databases moves the query by more than the sampled "
        "sensitivity",
    )
    p.add_argument(
        "--m",
        type=int,
        help="number of neighbouring pairs to sample (default: the fewest that "
        "certify --gamma)",
    )
    p.add_argument(
        "--k",
        type=int,
        help="rank of the released order statistic among the m sampled "
        "sensitivities (default: the one that certifies --gamma; m without --gamma)",
    )
    p.add_argument(
        "--inequality", choices=INEQUALITIES, default="exact", help=INEQUALITY_HELP
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")

    def command(args):
        plan = sampling_plan(
            m=args.m, gamma=args.gamma, k=args.k, inequality=args.inequality
        )

        def work():
            if args.json:
                say(to_json(plan.to_dict()))
            else:
                rows = [(key, str(value)) for key, value in plan.to_dict().items()]
                say("\n".join(text_table(rows, header=False)))

        return work

    p.set_defaults(func=command)


def add_plan_parser(sub, say, to_json) -> None:
    """``sensampler plan``: :func:`~sensampler.app.planning.plan_release` on the
    command line (``say`` prints a line, ``to_json`` writes strict JSON)."""
    p = sub.add_parser(
        "plan",
        help="the epsilon a release needs for a target error (or the error an "
        "epsilon gives), from the population model alone",
        description="Plan a release from the population model alone: the epsilon "
        "a target error needs (--target-error) or the error an epsilon gives "
        "(--epsilon). No private data are read and nothing is spent. The sampling "
        "plan of a gamma alone: sensampler sampling-plan.",
    )
    p.add_argument("--query", help="mean, median, quantile:Q, ... (as for release)")
    p.add_argument(
        "--population",
        help="the population model, as for release (bootstrap:FILE needs --column)",
    )
    p.add_argument("--column", help="the column of a bootstrap:FILE population")
    p.add_argument("--n", type=int, help="records of the data to be released")
    p.add_argument(
        "--target-error",
        help="the error wanted (|release - exact answer|, the noise only)",
    )
    add_settings_flags(
        p,
        omit=("granularity",),
        choices={"mechanism": tuple(NOISE_MODELS)},
        helps={
            "epsilon": "the release's epsilon: the plan gives its error",
            "delta": "the release's delta (gaussian; default 0)",
            "mechanism": "the noise of a query that samples a sensitivity: laplace "
            "(default) or gaussian; median and quantile:Q are planned with the "
            "exponential mechanism, as release uses",
            "bounds": "clip the records to bounds: auto (default: from the "
            "population model, at no privacy cost), LOW:HIGH (given), or none "
            "(random DP only)",
            "inequality": INEQUALITY_HELP,
        },
    )
    p.add_argument(
        "--measure",
        default="mean",
        help="what --target-error fixes: mean (the expected error, default) or a "
        "probability Q (the Q-quantile of the error, e.g. 0.9)",
    )
    p.add_argument(
        "--runs",
        type=int,
        default=200,
        help="sampling runs (for median, quantile:Q: databases) drawn (default 200)",
    )
    p.add_argument("--seed", type=int, default=None, help="seeds the sampling runs")
    p.add_argument("--n-jobs", type=int, default=None, help="sampler workers")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=lambda args: plan_command(args, say, to_json))


def _number(flag: str, text: str | None) -> float | None:
    """A number flag's text, read by the one parser (naming the flag as typed)."""
    return None if text is None else parse_number(flag, text)


def _target_error(text: str | None) -> float | None:
    """``--target-error``'s value: a number > 0, or None."""
    target = _number("--target-error", text)
    if target is not None and not target > 0:
        raise ValueError(f"--target-error must be > 0, got --target-error {text}.")
    return target


def _public_bounds(text: str) -> BoundsSetting:
    """``--bounds`` read in the plan's words: public bounds only, never a
    suggestion of private ones (a plan reads no private data)."""
    if text.strip().lower().startswith("private:"):
        raise ValueError(
            f"--bounds: {text} are bounds estimated from the private data, which a "
            "plan never reads: give --bounds auto, --bounds LOW:HIGH or --bounds none."
        )
    try:
        return parse_bounds(text)
    except (ValueError, TypeError):
        raise ValueError(
            "--bounds must be auto, LOW:HIGH (finite numbers, LOW < HIGH) or none, "
            f"got --bounds {text!r}."
        ) from None


def _measure(text: str):
    if text == "mean":
        return text
    try:
        return parse_number("--measure", text)
    except ValueError:
        raise ValueError(
            f"--measure must be 'mean' or a probability in (0, 1), got --measure {text!r}."
        ) from None


def plan_command(args, say, to_json):
    """Phase 1 of ``sensampler plan``: check every flag; return phase 2.

    ``say`` prints a line, ``to_json`` writes strict JSON (the command line's own).
    """
    missing = [
        f"--{name}"
        for name in ("query", "population", "n")
        if getattr(args, name) is None
    ]
    if missing:
        raise ValueError(
            f"planning a release needs {', '.join(missing)}. (The sampling plan "
            "of a gamma alone: sensampler sampling-plan --gamma G.)"
        )
    if args.population.startswith("bootstrap:") and args.column is None:
        raise ValueError(
            f"--population {args.population} needs --column: the column of the "
            "public file to bootstrap."
        )
    if (args.target_error is None) == (args.epsilon is None):
        raise ValueError(
            "planning a release needs one of --target-error and --epsilon."
        )
    settings = settings_from_args(argparse.Namespace(**{**vars(args), "bounds": None}))
    if args.bounds is not None:
        settings = settings.replace(bounds=_public_bounds(args.bounds))
    prepared = prepare_plan(
        args.query,
        args.population,
        args.n,
        target_error=_target_error(args.target_error),
        measure=_measure(args.measure),
        column=args.column,
        runs=args.runs,
        random_state=args.seed,
        n_jobs=args.n_jobs,
        settings=settings,
    )

    def work():
        plan = prepared.run()
        say(to_json(plan.to_dict()) if args.json else plan.text())

    return work
