"""The ``sensampler audit`` command: is the population model right?

With one ``--population`` it samples the sensitivity of ``--query`` there and
audits it on fresh pairs of the same population (a check of the sampler); with
several it samples under each and audits each estimate under every one
(:func:`sensampler.audit.compare_populations`), then applies the conservative
rule (:func:`sensampler.audit.conservative_choice`).

Settings come from flags or from a TOML file (``--config``), never both. Every
setting is checked before any sampling, :func:`audit_command` returning the work
as a closure, as the other commands of :mod:`sensampler.app.cli` do.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from dataclasses import asdict

import numpy as np

from ..._lib import printing
from ..._lib.domains import PROBABILITY
from ..._lib.memory import check_sampling_fits
from ..._lib.validation import (
    as_seed_sequence,
    check_count,
    check_n_jobs,
    check_real,
)
from ..._sampling.probes import probe_query
from ...audit import MAX_AUDIT_PAIRS, compare_populations, conservative_choice
from ...norms import NORM_NAMES, get_norm
from ...plan import INEQUALITIES, sampling_plan
from ...queries import as_query
from ...sampler import MAX_N, check_neighbours
from ...table import check_output_file
from .. import plotting
from .._input_files import read_toml
from ..report import audit_report, check_report_path, write_report
from ..specs import (
    build_population,
    parse_population,
    parse_query,
    population_spec,
)
from ._flags import add_neighbours_flag

__all__ = ["add_audit_parser", "audit_command", "DEFAULTS"]

#: Every setting, as a ``--config`` key, with its default.
DEFAULTS = {
    "query": "mean",
    "n": 100,
    "populations": {"heights": "heights"},
    "gamma": 0.05,
    "m": None,
    "inequality": "exact",
    "norm": "l1",
    "neighbours": "replace-one",
    "pairs": 100_000,
    "confidence": 0.99,
    "multiple": 2.0,
    "seed": None,
    "n_jobs": None,
    "out": None,
}
#: Files written to ``--out``.
CSV_NAME, PNG_NAME = "cross_coverage.csv", "cross_coverage.png"
#: Seed of the probe database on which the query meets each population.
_PROBE_SEED = 0


def add_audit_parser(sub) -> argparse.ArgumentParser:
    """Add the ``audit`` subcommand to ``sub`` (the parser's subparsers).

    Parameters
    ----------
    sub : argparse._SubParsersAction
        From :meth:`argparse.ArgumentParser.add_subparsers`.

    Returns
    -------
    argparse.ArgumentParser
        The subcommand's parser (its defaults are ``None``: see :data:`DEFAULTS`).
    """
    p = sub.add_parser(
        "audit",
        help="audit a sampled sensitivity under one or several population models",
        description="Sample the sensitivity of a query under each population and "
        "count how often fresh pairs of every population exceed it, with exact "
        "confidence intervals (one population: against itself; several: the "
        "cross-coverage table and the conservative choice).",
    )
    p.add_argument(
        "--config",
        metavar="FILE.toml",
        help="the settings as a TOML file (keys: " + ", ".join(DEFAULTS) + "; "
        "[populations] maps names to specs), instead of the flags below",
    )
    p.add_argument("--query", help="a query as 'sample --query' takes (default mean)")
    p.add_argument("--n", type=int, help="database size (default 100)")
    p.add_argument(
        "--population",
        action="append",
        metavar="[NAME=]SPEC",
        help="a candidate population, once or more: SPEC as 'sample --population' "
        "takes, named NAME (default: SPEC itself); default heights",
    )
    p.add_argument("--gamma", type=float, help="random-DP failure probability (0.05)")
    p.add_argument(
        "--m", type=int, help="pairs of each sampling run (default: gamma's)"
    )
    p.add_argument("--inequality", choices=INEQUALITIES, help="the plan (default exact)")
    p.add_argument("--norm", help=f"{', '.join(NORM_NAMES)} (default l1)")
    add_neighbours_flag(p, "the relation of every sampling run and audit", default=None)
    p.add_argument(
        "--pairs",
        type=int,
        help=f"fresh pairs of each audit, <= {MAX_AUDIT_PAIRS} (default 100000)",
    )
    p.add_argument(
        "--confidence", type=float, help="of each exact interval (default 0.99)"
    )
    p.add_argument(
        "--multiple",
        type=float,
        help="the conservative rule's limit, in gammas, >= 1 (default 2)",
    )
    p.add_argument("--seed", type=int, help="random_state (an int >= 0)")
    p.add_argument("--n-jobs", type=int, help="parallel workers (joblib)")
    p.add_argument("--out", help=f"folder for {CSV_NAME} and {PNG_NAME}")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--report", help="write an HTML report to this file")
    return p


def _settings(args) -> tuple[dict, str]:
    """The settings from the flags or the ``--config`` file, with defaults.

    Returns the settings and the prefix of messages about them.
    """
    given = {
        key: getattr(args, "population" if key == "populations" else key)
        for key in DEFAULTS
    }
    given = {key: value for key, value in given.items() if value is not None}
    if args.config is None:
        if "populations" in given:
            given["populations"] = _named(given["populations"])
        return {**DEFAULTS, **given}, ""
    if given:
        key = next(iter(given))
        flag = "--population" if key == "populations" else "--" + key.replace("_", "-")
        raise ValueError(
            f"--config {args.config} replaces the flags; {flag} was also given."
        )
    config = read_toml(args.config, "--config")
    unknown = sorted(set(config) - set(DEFAULTS))
    if unknown:
        raise ValueError(
            f"{args.config}: unknown key {unknown[0]!r}; keys: {', '.join(DEFAULTS)}."
        )
    populations = config.get("populations", DEFAULTS["populations"])
    if not isinstance(populations, dict) or not populations:
        raise ValueError(
            f"{args.config}: populations must be a non-empty table of name = spec, "
            f"got {populations!r}."
        )
    for key in ("query", "inequality", "norm", "neighbours", "out"):
        if key in config and not isinstance(config[key], str):
            raise ValueError(
                f"{args.config}: {key} must be a string, got {config[key]!r}."
            )
    return {**DEFAULTS, **config}, f"{args.config}: "


def _named(texts: list[str]) -> dict[str, str]:
    """``--population [NAME=]SPEC`` flags as ``{name: spec}``.

    ``NAME=`` is the text before the first ``=`` when it holds no ``:`` (a
    spec's parameters follow its kind and a colon).
    """
    named: dict[str, str] = {}
    for text in texts:
        head, sep, tail = text.partition("=")
        name, spec = (head.strip(), tail) if sep and ":" not in head else (text, text)
        if not name or not spec.strip():
            raise ValueError(f"--population takes [NAME=]SPEC, got {text!r}.")
        if name in named:
            raise ValueError(f"--population: the name {name!r} is given twice.")
        named[name] = spec
    return named


def _population(name: str, spec):
    """A population from a spec string or table, or a message naming it."""
    try:
        if isinstance(spec, dict):
            return build_population(spec)
        if isinstance(spec, str):
            return parse_population(spec)
        raise TypeError(f"expected a spec string or a table, got {spec!r}.")
    except (ValueError, TypeError, OSError) as exc:
        raise ValueError(f"--population {name}: {exc}") from None


def _inputs(config, populations: dict) -> list[tuple[str, str]]:
    """The files the audit reads, as ``(what, path)``: the ``--config`` file and
    the public records of every Empirical population (its ``path``)."""
    inputs = [("--config file", config)] if config is not None else []
    for name, spec in populations.items():
        table = population_spec(spec) if isinstance(spec, str) else spec
        path = table.get("path") if isinstance(table, dict) else None
        if isinstance(path, (str, os.PathLike)):
            inputs.append((f"--population {name} file", path))
    return inputs


def _outputs(query, populations: dict, n: int, norm, neighbours: str) -> int:
    """Meet the query with each population on a probe database: (parts, record bytes).

    The sampler's own probes (no pair is drawn): they refuse a query that fails
    or returns NaN on the population, a false additive declaration, an ``n``
    whose databases exceed memory, a query that depends on the order of the
    records (:func:`sensampler._sampling.probes.check_order`, as every sampling run
    does: the command has no flag to accept one) and, under add/remove
    neighbours, one whose output changes shape with n. Every population must
    give the query the same output shape, so that one's estimate can be
    audited under another.
    """
    first = None
    for name, dist in populations.items():
        rng = np.random.default_rng(_PROBE_SEED)
        try:
            spec, shapes, record_bytes = probe_query(
                query, dist, n, neighbours, rng, "checked before the audit", trust=False
            )[1:]
        except (ValueError, TypeError) as exc:
            raise ValueError(f"--query on --population {name}: {exc}") from None
        if spec[0] != "array":
            raise ValueError(f"--query must give one output, got {len(shapes)} parts.")
        if first is None:
            first = name, dist.record_shape, shapes[0], record_bytes
        elif (dist.record_shape, shapes[0]) != first[1:3]:
            raise ValueError(
                f"--population {name} draws records of shape {dist.record_shape} "
                f"(query output {shapes[0]}), --population {first[0]} of shape "
                f"{first[1]} (query output {first[2]}): one cannot audit the other."
            )
    parts = int(np.prod(first[2])) if norm.per_coordinate else 1
    return parts, first[3]


def _check(s: dict):
    """Every setting checked and built, nothing sampled: the arguments of the work."""
    query = as_query(parse_query(s["query"]))
    populations = {
        name: _population(name, spec) for name, spec in s["populations"].items()
    }
    n = check_count("n", s["n"])
    if n > MAX_N:
        raise ValueError(f"n must be <= MAX_N={MAX_N}, got n={n}.")
    check_neighbours(s["neighbours"], n)
    norm = get_norm(s["norm"])
    plan = sampling_plan(m=s["m"], gamma=s["gamma"], inequality=s["inequality"])
    pairs = check_count("pairs", s["pairs"])
    if pairs > MAX_AUDIT_PAIRS:
        raise ValueError(
            f"pairs must be <= MAX_AUDIT_PAIRS={MAX_AUDIT_PAIRS}, got pairs={pairs}."
        )
    PROBABILITY.check("confidence", s["confidence"])
    check_real("multiple", s["multiple"], low=1.0)
    try:
        as_seed_sequence(s["seed"])
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"seed: {exc}") from None
    check_n_jobs(s["n_jobs"])
    parts, record_bytes = _outputs(query, populations, n, norm, s["neighbours"])
    if pairs < parts:
        raise ValueError(
            f"pairs must be >= the {parts} coordinates released jointly, got "
            f"pairs={pairs}."
        )
    # the sampler's own memory model: each sampling run draws the plan's m
    # pairs, and each audit is a sampling run of `pairs` pairs
    fast = query.additive is not None
    for flag, count in (("--m", plan.m), ("--pairs", pairs)):
        try:
            check_sampling_fits(count, parts, n, record_bytes, fast, s["n_jobs"])
        except ValueError as exc:
            raise ValueError(f"{flag} {count}: {exc}") from None
    return query, populations, n, norm


def audit_command(args, writable_folder: Callable[[str], str]) -> Callable[[], None]:
    """Check every setting of ``sensampler audit``; return the work.

    Parameters
    ----------
    args : argparse.Namespace
        From the parser of :func:`add_audit_parser`, with ``progress`` set.
    writable_folder : callable
        Creates the ``--out`` folder and checks it is writable, or raises.

    Returns
    -------
    callable
        The work: sampling, audits, output. Raises on a failure.
    """
    s, prefix = _settings(args)
    try:
        query, populations, n, norm = _check(s)
        out = None if s["out"] is None else writable_folder(s["out"])
        for name in (CSV_NAME, PNG_NAME) if out is not None else ():
            check_output_file(os.path.join(out, name), "--out file")
        report = (
            None
            if args.report is None
            else check_report_path(
                args.report, inputs=_inputs(args.config, s["populations"])
            )
        )
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"{prefix}{exc}") from None

    def work():
        comparison = compare_populations(
            query,
            populations,
            n,
            s["gamma"],
            pairs=s["pairs"],
            m=s["m"],
            norm=norm,
            inequality=s["inequality"],
            neighbours=s["neighbours"],
            confidence=s["confidence"],
            random_state=s["seed"],
            n_jobs=s["n_jobs"],
            progress=args.progress,
        )
        several = len(populations) > 1
        choice = conservative_choice(comparison, s["multiple"]) if several else None
        if report is not None:
            write_report(report, audit_report(comparison, choice=choice))
        if out is not None:
            comparison.table.to_csv(os.path.join(out, CSV_NAME))
            if plotting.available():
                plotting.plot_cross_coverage(
                    comparison.table, os.path.join(out, PNG_NAME)
                )
            else:
                print(plotting.SKIPPED, file=sys.stderr)
        if args.json:
            document = {
                "estimates": {k: e.to_dict() for k, e in comparison.estimates.items()},
                "audits": comparison.table.rows,
                "choice": None if choice is None else asdict(choice),
            }
            print(json.dumps(document, allow_nan=False))
            return
        print(comparison.table.format(max_rows=len(comparison.table)))
        if choice is not None:
            print(_choice_line(choice, s["multiple"]))
        if out is not None:
            figure = f" and {PNG_NAME}" if plotting.available() else ""
            print(f"wrote {CSV_NAME}{figure} to {out}/")

    return work


def _choice_line(choice, multiple: float) -> str:
    """The conservative choice, in words (the sensitivity rounded up, as the
    audit report prints it, and the bounds on gamma rounded up)."""
    sensitivity = printing.sensitivity(choice.sensitivity)
    worst, limit = printing.gamma(choice.worst_upper), printing.gamma(choice.limit)
    if choice.qualified:
        return (
            f"conservative choice: {choice.name} (sensitivity {sensitivity}), "
            f"the smallest estimate whose worst upper bound {worst} "
            f"is within {multiple:g} gamma = {limit}"
        )
    return (
        f"no estimate is within {multiple:g} gamma = {limit} under every "
        f"population; least exceeded: {choice.name} (sensitivity "
        f"{sensitivity}, worst upper bound {worst})"
    )
