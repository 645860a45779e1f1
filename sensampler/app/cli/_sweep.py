"""``sensampler sweep``: the error of what ``sensampler release`` would publish,
against epsilon (:func:`~sensampler.app.experiments.error_vs_epsilon`).

Phase 1 (exit 2 on failure) checks every flag and every release the sweep
stands for, at every epsilon, as ``sensampler release`` would; phase 2 draws the
databases from the population model, calibrates once per epsilon, releases and
prints. Nothing is spent: the databases are drawn, not read.
"""

from __future__ import annotations

import argparse
import os

from ...settings import parse_number
from ..experiments.release_sweep import prepare_sweep
from ._flags import add_settings_flags, in_flag_words, integer_flag, settings_from_args

__all__ = ["SWEEP_FILE", "add_sweep_parser"]

#: The file ``sensampler sweep --out`` writes.
SWEEP_FILE = "error_vs_epsilon.csv"


def add_sweep_parser(sub, say, to_json, writable_folder, check_out_files):
    """``sensampler sweep`` (``say`` prints a line, ``to_json`` writes strict JSON;
    ``writable_folder`` and ``check_out_files`` check ``--out``); returns the parser."""
    p = sub.add_parser(
        "sweep",
        help="error of what a release publishes vs epsilon, on databases drawn "
        "from the population model",
        description="The error of what sensampler release would publish, against "
        "epsilon: the same settings (bounds, worst-case cap, neighbours, the "
        "mechanism of each query, the calibrated quantile mechanism), each "
        "release's random-DP and worst-case epsilon and the price of a worst-case "
        "guarantee, over databases drawn from the population model. Nothing is "
        "spent. The error of a mechanism at given sensitivities: "
        "sensampler sensitivity-sweep.",
    )
    p.add_argument(
        "--query",
        default="mean",
        help="mean, sum, median, variance, std, count, quantile:Q, "
        "histogram:BINS:LOW:HIGH, as for release (default: mean)",
    )
    p.add_argument(
        "--population",
        default="heights",
        help="the population model, as for release: a preset (heights), a model "
        "such as 'normal:loc=170,scale=10', bootstrap:PUBLIC_FILE (needs "
        "--column) or a TOML file (default: heights)",
    )
    p.add_argument("--column", help="the column of a bootstrap:PUBLIC_FILE population")
    p.add_argument(
        "--data",
        help="the population each repetition's database is drawn from (default: "
        "--population), to measure data the model does not describe exactly",
    )
    p.add_argument(
        "--n", type=integer_flag("--n"), default=500,
        help="records of each database (default 500)",
    )
    p.add_argument(
        "--epsilons",
        default="0.1,0.3,1,3",
        help="each release's epsilon, comma-separated (default 0.1,0.3,1,3)",
    )
    p.add_argument(
        "--repetitions", type=integer_flag("--repetitions"), default=200,
        help="databases released at each epsilon (default 200)",
    )
    p.add_argument(
        "--calibrations", type=integer_flag("--calibrations"), default=1,
        help="independent calibrations per epsilon, K (repetition r uses calibration "
        "r mod K): 1 (default) measures the error given the release's calibration "
        "of --seed; K = --repetitions averages over the calibration as independent "
        "releases do",
    )
    add_settings_flags(p, omit=("epsilon",))
    p.add_argument(
        "--seed", type=integer_flag("--seed"), default=None,
        help="seeds the calibration, the databases and the noise",
    )
    p.add_argument(
        "--n-jobs", type=integer_flag("--n-jobs"), default=None,
        help="workers of the sampler and of the epsilons",
    )
    p.add_argument("--out", help=f"folder for {SWEEP_FILE}")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.set_defaults(
        func=lambda args: sweep_command(args, say, to_json, writable_folder, check_out_files)
    )
    return p


def _epsilons(text: str) -> list[float]:
    """``--epsilons``' numbers, each read by the one number parser, each > 0."""
    epsilons = [parse_number("--epsilons", item) for item in text.split(",") if item.strip()]
    if not epsilons or min(epsilons) <= 0:
        raise ValueError(
            f"--epsilons must be numbers > 0 separated by commas, got --epsilons {text!r}."
        )
    return epsilons


def sweep_command(args: argparse.Namespace, say, to_json, writable_folder, check_out_files):
    """Phase 1 of ``sensampler sweep``: check every flag; return phase 2."""
    if args.calibrations > args.repetitions:
        raise ValueError(
            f"--calibrations must be <= --repetitions {args.repetitions}, got "
            f"--calibrations {args.calibrations}."
        )
    settings = settings_from_args(args)
    try:
        prepared = prepare_sweep(
            args.query,
            args.population,
            args.n,
            _epsilons(args.epsilons),
            settings,
            data=args.data,
            column=args.column,
            repetitions=args.repetitions,
            calibrations=args.calibrations,
            random_state=args.seed,
            n_jobs=args.n_jobs,
        )
    except ValueError as exc:  # the settings' words as their flags, as typed
        raise ValueError(in_flag_words(str(exc))) from None
    out = None if args.out is None else writable_folder(args.out)
    if out is not None:
        check_out_files(out, (SWEEP_FILE,))

    def work():
        table = prepared.run(progress=args.progress)
        if out is not None:
            table.to_csv(os.path.join(out, SWEEP_FILE))
        mean = table.where(statistic="mean")
        say(to_json(table.rows) if args.json else mean.format(max_rows=50))
        if out is not None and not args.json:
            say(f"wrote {SWEEP_FILE} to {out}/")

    return work
