"""The ``sensampler`` command.

Every command runs in two phases. The first checks every flag and file and
builds everything it needs (the population, the query, the plan, a writable
``--out`` folder) without sampling; the second does the work. The phase decides
the exit code, not the kind of error:

- 0: success;
- 1: a failure during the work (for example a query returning NaN);
- 2: a usage error found before any work (a bad flag, value or file, an
  unwritable ``--out``);
- 130: interrupted (Ctrl-C, also while the command's modules load); 143:
  terminated (SIGTERM). ``run`` keeps its finished runs; the other commands
  leave no result (see :data:`INTERRUPTED_NOTES`). joblib's process workers
  are shut down before exiting; a SIGKILL cannot be caught, and the workers
  then exit on their own within about a second
  (:func:`sensampler.parallel.watch_parent`).

``--json`` prints strict JSON (RFC 8259): a number that is not finite (NaN,
infinity) is ``null``. A closed output pipe (``sensampler run c.toml | head -1``)
stops the printing, never the work: the runs go on and are written, and the
exit code is the work's.

A failure is reported as one line on stderr, without a traceback; warnings
raised by a command that then fails are not printed.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import signal
import sys
import tempfile
import threading
import warnings

import numpy as np

from ... import __version__
from ..._lib.validation import as_seed_sequence, check_count, check_n_jobs
from ...norms import NORM_NAMES, get_norm
from ...parallel import child_seed, default_progress, shutdown_workers
from ...plan import INEQUALITIES, sampling_plan
from ...sampler import MAX_N, check_neighbours, sample_sensitivity
from ...table import ResultTable, check_output_file
from .. import plotting
from .._input_files import read_toml
from .._locks import exclusive
from ..demo import demo_files, run_demo
from ..experiments.batch import check_outputs, run_batch
from ..experiments.batch_config import load_config
from ..experiments.sweep import (
    SD_DEFINITION,
    answer_size,
    check_databases_fit,
    check_epsilons,
    probe_answer,
    sensitivity_sweep,
)
from ..specs import (
    MECHANISMS,
    accepted_norms,
    build_population,
    check_sampling_memory,
    mechanism_from_name,
    mechanisms_help,
    parse_population,
    parse_query,
    parse_sensitivities,
)
from ._audit import add_audit_parser, audit_command
from ._flags import add_neighbours_flag
from ._plan import add_plan_parser, add_sampling_plan_parser
from ._release import add_release_arguments, release_command
from ._status import Status, add_status_flag, status_wanted
from ._sweep import add_sweep_parser

__all__ = ["main", "build_parser"]

#: Exit codes by phase.
EXIT_WORK_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 128 + signal.SIGTERM
#: The files ``sensampler sensitivity-sweep --out`` writes.
SWEEP_FILES = ("error_vs_epsilon.csv", "error_vs_epsilon.png")
#: What an interrupted command leaves, by command (the others leave no result).
INTERRUPTED_NOTES = {
    "run": "; finished runs are kept (and skipped when the config is run again)",
    "release": "; no answer was printed (a --budget-file keeps any spend already "
    "written to it)",
}


def _strict(value):
    """``value`` with every non-finite float replaced by None (JSON's null)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _strict(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(item) for item in value]
    return value


def _json(value) -> str:
    """Strict JSON (RFC 8259): NaN and infinities, which it has no word for, are null."""
    return json.dumps(_strict(value), allow_nan=False)


def _say(text: str, stream=None) -> None:
    """Print a line; once the stream's reader is gone (a closed pipe), print nothing
    more to it, and go on with the work: the stream is pointed at the null device,
    so later lines (and the interpreter's last flush) vanish silently."""
    stream = sys.stdout if stream is None else stream
    try:
        print(text, file=stream, flush=True)
    except BrokenPipeError:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, stream.fileno())
        finally:
            os.close(null)


class _Terminated(KeyboardInterrupt):
    """Raised by SIGTERM in the command, so that it stops as on Ctrl-C."""


def _terminate(signum, frame):
    raise _Terminated


def _floats(text):
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected numbers separated by commas, got {text!r}"
        ) from None


def _population(args):
    if args.population_file:
        spec = read_toml(args.population_file, "--population-file")
        if "population" not in spec:
            raise ValueError(f"{args.population_file}: needs a [population] table.")
        return build_population(spec["population"])
    return parse_population(args.population)


def _writable_folder(path: str) -> str:
    """Create the folder ``--out`` if needed and check a file can be written in it.

    Called last in the check phase, once every other input is known good.
    """
    if not path:
        raise ValueError("--out must name a folder, got --out ''.")
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise ValueError(
            f"--out {path!r} is not a writable folder: {exc.strerror or exc}"
        ) from None
    return path


def _check_out_files(out: str, names) -> None:
    """Refuse, before any work, a file of ``--out`` that must not be written
    (:func:`sensampler.table.check_output_file`: a symbolic link, a FIFO, a
    device or a folder where a file goes)."""
    for name in names:
        check_output_file(os.path.join(out, name), "--out file")


def _check_sampling(args):
    """The shared sampling flags, checked: ``(query, population)``."""
    query = parse_query(args.query)
    population = _population(args)
    if check_count("n", args.n) > MAX_N:
        raise ValueError(f"--n must be <= MAX_N={MAX_N}, got --n {args.n}.")
    check_n_jobs(args.n_jobs)
    as_seed_sequence(args.seed)
    return query, population


def _cmd_sample(args):
    query, population = _check_sampling(args)
    get_norm(args.norm)
    check_neighbours(args.neighbours, args.n)
    plan = dict(m=args.m, gamma=args.gamma, k=args.k, inequality=args.inequality)
    sampling_plan(**plan)
    run = dict(plan, norm=args.norm, n_jobs=args.n_jobs)
    check_sampling_memory(query, population, args.n, **run, neighbours=args.neighbours)

    def work():
        est = sample_sensitivity(
            query,
            population,
            args.n,
            **run,
            neighbours=args.neighbours,
            random_state=args.seed,
            progress=args.progress,
        )
        _say(_json(est.to_dict()) if args.json else est.summary())

    return work


class _SamplingDeferred(Exception):
    """Stops :func:`parse_sensitivities` after its checks, before it samples."""


def _defer_sampling():
    raise _SamplingDeferred


def _check_sweep_memory(query, data, n, repetitions, settings, args):
    """Refuse, before any work, a sweep whose databases and answers do not fit."""
    check_databases_fit(data.record_shape, n, repetitions)
    parts = probe_answer(query, data, n, np.random.default_rng(0))
    check_databases_fit(
        data.record_shape,
        n,
        repetitions,
        answer_size=answer_size(parts),
        settings=settings * len(parts),
        n_jobs=args.n_jobs,
    )


def _cmd_sweep(args):
    statistic = {"none": None, "mean": np.mean, "median": np.median, "sum": np.sum}[
        args.statistic
    ]
    mechanism = mechanism_from_name(args.mechanism, args.delta)
    norms = accepted_norms(args.mechanism)
    norm = args.norm or norms[0]
    if norm not in norms:
        raise ValueError(
            f"--mechanism {args.mechanism} accepts --norm {', '.join(norms)}; "
            f"got {norm!r}."
        )
    epsilons = check_epsilons(mechanism, args.epsilons)
    query, population = _check_sampling(args)
    data = parse_population(args.data) if args.data else population
    repetitions = check_count("repetitions", args.repetitions)
    sampling_plan(gamma=args.gamma, inequality=args.inequality)
    labels = len([item for item in args.sensitivities.split(",") if item.strip()])
    try:
        parse_sensitivities(args.sensitivities, _defer_sampling)
    except _SamplingDeferred:
        check_sampling_memory(
            query,
            population,
            args.n,
            gamma=args.gamma,
            inequality=args.inequality,
            norm=norm,
            n_jobs=args.n_jobs,
        )
    _check_sweep_memory(query, data, args.n, repetitions, labels * len(epsilons), args)
    out = None if args.out is None else _writable_folder(args.out)
    if out is not None:
        _check_out_files(out, SWEEP_FILES)

    def work():
        root = as_seed_sequence(args.seed)
        sensitivities = parse_sensitivities(
            args.sensitivities,
            lambda: sample_sensitivity(
                query,
                population,
                args.n,
                gamma=args.gamma,
                norm=norm,
                inequality=args.inequality,
                random_state=child_seed(root, 0),  # the sweep draws from children >= 1
                n_jobs=args.n_jobs,
                progress=args.progress,
            ),
        )
        table = sensitivity_sweep(
            query,
            data,
            args.n,
            epsilons,
            sensitivities,
            mechanism=mechanism,
            repetitions=args.repetitions,
            statistic=statistic,
            random_state=root,
            n_jobs=args.n_jobs,
            progress=args.progress,
        )
        if out is not None:
            table.to_csv(os.path.join(out, SWEEP_FILES[0]))
            if plotting.available():
                plotting.plot_error_vs_epsilon(
                    table, os.path.join(out, SWEEP_FILES[1])
                )
            else:
                _say(plotting.SKIPPED, sys.stderr)
        if args.json:
            _say(_json(table.rows))
        else:
            _say(table.where(statistic="mean").format(max_rows=50))
            if out is not None:
                _say(f"wrote error_vs_epsilon.csv and .png to {out}/")

    return work


def _cmd_run(args):
    check_n_jobs(args.n_jobs)
    config = load_config(args.config)  # read and checked once, here
    out = _writable_folder(args.out)
    check_outputs(out, config.runs)
    with exclusive(out):  # another run on --out is a usage error, found now
        pass

    def work():
        log = (lambda line: _say(line, sys.stderr)) if not args.json else None
        summary = run_batch(
            config, out, n_jobs=args.n_jobs, progress=args.progress, log=log
        )
        if args.json:
            _say(_json(summary.rows))
        else:
            _say(summary.where(statistic="mean").format(max_rows=40))
            _say(f"summary: {os.path.join(out, 'summary.csv')}")
            references = os.path.join(out, "references.csv")
            if os.path.exists(references):
                with open(references, newline="") as handle:
                    rows = csv.DictReader(handle)
                    table = ResultTable({**r, "value": float(r["value"])} for r in rows)
                _say(f"scores without noise ({references}):")
                _say(table.format())

    return work


def _cmd_demo(args):
    as_seed_sequence(args.seed)
    out = _writable_folder(args.out)
    demo_files(out, plotting.available())

    def work():
        run_demo(
            out=sys.stdout, out_dir=out, random_state=args.seed, progress=args.progress
        )

    return work


def _add_progress_flag(p):
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show progress bars on stderr (default: when tqdm is installed and "
        "stderr is a terminal)",
    )
    p.set_defaults(bars=True)  # no status line while they are drawn


def _add_sampling_flags(p):
    p.add_argument(
        "--population",
        default="heights",
        help="a preset (heights, normal) or KIND:key=value,... with JSON values, "
        "e.g. 'normal:loc=170,scale=10' (default: heights)",
    )
    p.add_argument(
        "--population-file",
        metavar="TOML",
        help="a TOML file with a [population] table (kind = ..., parameters)",
    )
    p.add_argument(
        "--query",
        default="mean",
        help="identity, mean, sum, median, variance, std, count, quantile:Q, "
        "histogram:BINS:LOW:HIGH (default: mean)",
    )
    p.add_argument("--n", type=int, default=100, help="database size (default 100)")
    p.add_argument(
        "--gamma",
        type=float,
        default=0.05,
        help="random-DP failure probability (default 0.05)",
    )
    p.add_argument("--inequality", choices=INEQUALITIES, default="exact")
    p.add_argument("--seed", type=int, default=None, help="random_state (an int >= 0)")
    p.add_argument("--n-jobs", type=int, default=None, help="parallel workers (joblib)")
    _add_progress_flag(p)


def _add_plan_flags(p):
    p.add_argument(
        "--m", type=int, help="number of neighbouring pairs (default: from gamma)"
    )
    p.add_argument("--k", type=int, help="rank of the released order statistic")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _add_demo_parser(sub) -> None:
    demo = sub.add_parser(
        "demo",
        help="the heights example end to end (no arguments)",
        description="The heights example: plan, sampled sensitivity and "
        "mean, releases, error-vs-epsilon sweep; CSV and PNG "
        "files go to --out.",
    )
    demo.add_argument("--out", default="sensampler-results", help="results folder")
    demo.add_argument(
        "--seed", type=int, default=2017, help="random_state (default 2017)"
    )
    _add_progress_flag(demo)
    demo.set_defaults(func=_cmd_demo)


def _add_sampling_plan_parser(sub) -> None:
    add_sampling_plan_parser(sub, _say, _json)


def _add_plan_parser(sub) -> None:
    add_plan_parser(sub, _say, _json)


def _add_sample_parser(sub) -> None:
    sample = sub.add_parser(
        "sample",
        help="sample the sensitivity of a query",
        description="Sample the sensitivity of a built-in query on a population.",
    )
    _add_sampling_flags(sample)
    sample.add_argument("--norm", default="l1", help=", ".join(NORM_NAMES))
    add_neighbours_flag(sample, "the relation of the pairs", default="replace-one")
    _add_plan_flags(sample)
    sample.set_defaults(func=_cmd_sample)


def _add_sweep_parser(sub) -> None:
    sweep = add_sweep_parser(sub, _say, _json, _writable_folder, _check_out_files)
    _add_progress_flag(sweep)


def _add_sensitivity_sweep_parser(sub) -> None:
    sweep = sub.add_parser(
        "sensitivity-sweep",
        help="error of a mechanism at given sensitivities vs epsilon (a study of "
        "the sampler, not of a release)",
        description="Error-vs-epsilon sweep of one mechanism for one query and "
        "population, over several given sensitivities (sampled, typical values, "
        "numbers): no bounds, no clipping, no worst-case cap. What a release "
        "publishes: sensampler sweep.",
    )
    _add_sampling_flags(sweep)
    sweep.add_argument(
        "--epsilons",
        type=_floats,
        default=[0.01, 0.1, 0.5, 1.0, 5.0],
        help="comma-separated epsilons, at least one (default 0.01,0.1,0.5,1,5)",
    )
    sweep.add_argument(
        "--sensitivities",
        default="sampled,mean",
        help="comma-separated: sampled (random DP), mean, mean+Ksd (typical values, "
        f"no guarantee; {SD_DEFINITION}), or numbers (default: sampled,mean)",
    )
    sweep.add_argument(
        "--mechanism",
        choices=list(MECHANISMS),
        default="laplace",
        help=mechanisms_help(),
    )
    sweep.add_argument(
        "--norm",
        choices=sorted({n for name in MECHANISMS for n in accepted_norms(name)}),
        help="norm of the sampled sensitivity; "
        + "; ".join(
            f"{name} accepts {', '.join(accepted_norms(name))}" for name in MECHANISMS
        )
        + " (default: the first)",
    )
    sweep.add_argument("--delta", type=float, help="for the Gaussian mechanisms")
    sweep.add_argument("--repetitions", type=int, default=100)
    sweep.add_argument(
        "--data", help="population of the private data (default: --population)"
    )
    sweep.add_argument(
        "--statistic",
        choices=["none", "mean", "median", "sum"],
        default="none",
        help="post-processing of answer and release",
    )
    sweep.add_argument("--out", help="folder for error_vs_epsilon.csv and .png")
    sweep.add_argument("--json", action="store_true", help="print the rows as JSON")
    sweep.set_defaults(func=_cmd_sweep)


def _add_run_parser(sub) -> None:
    run = sub.add_parser(
        "run",
        help="batch runs from a TOML file (resumable)",
        description="Run a grid of settings from a TOML config; finished "
        "runs are written durably and skipped when started "
        "again.",
    )
    run.add_argument("config", help="the TOML config")
    run.add_argument("--out", default="sensampler-runs", help="results folder")
    run.add_argument("--n-jobs", type=int, default=None, help="parallel runs (joblib)")
    _add_progress_flag(run)
    run.add_argument(
        "--json", action="store_true", help="print the summary rows as JSON"
    )
    run.set_defaults(func=_cmd_run)


def _add_release_parser(sub) -> None:
    release = sub.add_parser(
        "release",
        help="a private answer about your own data file",
        description="Release statistics of a column of your CSV or Parquet file, "
        "with a sensitivity sampled from a population model, optionally spending "
        "from a budget file.",
    )
    add_release_arguments(release)
    add_status_flag(release)
    release.set_defaults(func=release_command)


def _add_audit_parser(sub) -> None:
    audit = add_audit_parser(sub)
    _add_progress_flag(audit)
    audit.set_defaults(func=lambda args: audit_command(args, _writable_folder))


#: Each subcommand's parser, in the order ``--help`` lists them.
_SUBCOMMANDS = (
    _add_demo_parser,
    _add_sampling_plan_parser,
    _add_plan_parser,
    _add_sample_parser,
    _add_sweep_parser,
    _add_sensitivity_sweep_parser,
    _add_run_parser,
    _add_release_parser,
    _add_audit_parser,
)


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose own usage errors (an unknown flag, a bad choice, a
    missing argument) are one line, as every usage message of the command line:
    ``PROG: error: MESSAGE``, naming the flag as typed, then exit code 2 with no
    usage block. Its subcommands' parsers are of this class too; a flag no
    parser knows is reported by its subcommand's parser (``subcommands``)."""

    #: The subcommands' parsers by name (set by :func:`build_parser`).
    subcommands: dict[str, argparse.ArgumentParser] = {}

    def parse_args(self, args=None, namespace=None):
        """The parsed flags; a flag nobody knows is a one-line usage error."""
        namespace, extras = self.parse_known_args(args, namespace)
        if extras:
            parser = self.subcommands.get(getattr(namespace, "command", None), self)
            parser.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace

    def error(self, message: str):
        """Write ``message`` on one line to stderr and exit with code 2."""
        text = " ".join(message.split())
        self.exit(EXIT_USAGE, f"{self.prog}: error: {text} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The parser of every subcommand (each added by its own ``_add_*_parser``)."""
    parser = OneLineParser(
        prog="sensampler",
        description="Random differential privacy with sampled sensitivities.",
    )
    parser.add_argument(
        "--version", action="version", version=f"sensampler {__version__}"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in _SUBCOMMANDS:
        add(sub)
    parser.subcommands = dict(sub.choices)
    return parser


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if isinstance(exc, (ValueError, TypeError)):
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def main(argv=None) -> int:
    """Run the command line; return the exit code (see the module docstring)."""
    parser = build_parser()
    args = parser.parse_args(argv)  # argparse itself exits 2 on a bad flag
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    requested = getattr(args, "progress", None)  # as typed, before its default
    if getattr(args, "progress", False) is None:
        args.progress = default_progress()
    name = f"sensampler {args.command}"
    args.status = Status(name, enabled=status_wanted(args, requested, sys.stderr))
    code, failure = EXIT_USAGE, None
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if main_thread else None
    try:
        with warnings.catch_warnings(record=True) as caught:
            try:
                with args.status:
                    args.status.step("checking the inputs")
                    work = args.func(args)  # phase 1: check and build, no work
                    code = EXIT_WORK_FAILED
                    args.status.step("working")
                    work()  # phase 2: the work
                code = 0
            except Exception as exc:  # noqa: BLE001 - one line, not a traceback
                failure = exc
    except KeyboardInterrupt as exc:
        shutdown_workers()  # no worker, semaphore or tracker left behind
        terminated = isinstance(exc, _Terminated)
        what = "terminated" if terminated else "interrupted"
        _say(f"{name}: {what}{INTERRUPTED_NOTES.get(args.command, '')}", sys.stderr)
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
    if failure is not None:
        _say(f"{name}: error: {_one_line(failure)}", sys.stderr)
        return code
    for message in dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught):
        _say(f"{name}: warning: {' '.join(message.split())}", sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
