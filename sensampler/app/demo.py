"""The heights example of the source documents, end to end, through the public API."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

import numpy as np

from .. import queries
from .._display.text import text_table
from .._lib.validation import check_flag
from .._lib.words import counted
from ..estimate import SensitivityEstimate
from ..mechanisms import GaussianMechanism, LaplaceMechanism
from ..plan import sampling_plan
from ..sampler import sample_sensitivity
from ..table import ResultTable, atomic_write_text, check_output_file

# the source documents' studies (scipy, the accountants) load when the demo runs
# them, through the experiments package's lazy names: not with the command line
from . import experiments, plotting
from .experiments.sweep import SD_DEFINITION, sensitivity_sweep
from .specs import build_population

__all__ = ["HEIGHTS", "FIGURES", "demo_files", "run_demo"]

#: Adult heights in cm: men N(178, 7^2), women N(162, 6.5^2), in equal numbers
#: (the ``"heights"`` preset of :data:`~sensampler.app.specs.PRESETS`).
HEIGHTS = build_population("heights")


def _table(rows, out):
    """Print rows as columns: the first left-aligned, numbers right-aligned."""
    cells = [[str(c) for c in row] for row in rows]
    right = range(1, len(cells[0]))
    print("\n".join(text_table(cells, right=right)), file=out)


def _write_caption(path, text):
    """The caption beside a figure: ``name.png`` -> ``name.txt``."""
    atomic_write_text(os.path.splitext(path)[0] + ".txt", text.strip() + "\n")


#: The figures the demo draws, each with a caption ``name.txt`` beside it.
FIGURES = (
    "error_vs_epsilon.png",
    "sensitivity_histogram.png",
    "composition.png",
    "runs_before_budget.png",
    "vectorized_vs_sequential.png",
    "epsilon_vs_iterations.png",
)
#: The table the demo writes.
CSV_NAME = "error_vs_epsilon.csv"


def demo_files(out_dir, figures: bool = True) -> list[str]:
    """The files :func:`run_demo` writes to ``out_dir``, each checked
    (:func:`sensampler.table.check_output_file`: absent, or a regular file that
    is not a symbolic link), so that a demo refused has drawn nothing.

    Parameters
    ----------
    out_dir : str or os.PathLike
        The results folder; it must exist.
    figures : bool, default True
        Whether the figures and their captions are written too.

    Returns
    -------
    list of str
        Their paths, in the order the demo writes them.
    """
    names = [CSV_NAME]
    for name in FIGURES if figures else ():
        names += [name, os.path.splitext(name)[0] + ".txt"]
    paths = [os.path.join(os.fspath(out_dir), name) for name in names]
    for path in paths:
        check_output_file(path, "out_dir file")
    return paths


#: The sampling runs of section 2: (query, n, norm, bound).
_RUNS = (
    (queries.identity, 1, "l1", "dkw"),
    (queries.identity, 1, "l1", "exact"),
    (queries.mean, 500, "l1", "dkw"),
    (queries.mean, 500, "l1", "exact"),
    (queries.mean, 500, "l2", "exact"),
)
#: Repetitions of the error-vs-epsilon sweep of section 4.
_REPETITIONS = 100


@dataclass(frozen=True)
class _Sweep:
    """The error-vs-epsilon sweep of section 4 and what its captions name."""

    table: ResultTable
    released: SensitivityEstimate
    offsets: list
    epsilons: np.ndarray


def run_demo(
    out=sys.stdout,
    out_dir="sensampler-results",
    random_state=2017,
    progress=False,
    gamma=0.05,
    figures=True,
):
    """Plan, sampled sensitivity and mean, releases and the error-vs-epsilon sweep of
    the heights example; CSV and PNG files (each PNG with a caption file ``.txt``
    beside it) go to ``out_dir``, checked before anything is drawn
    (:func:`demo_files`). Returns the file paths."""
    progress = check_flag("progress", progress)
    os.makedirs(out_dir, exist_ok=True)
    # every destination checked before any work
    demo_files(out_dir, figures and plotting.available())
    _print_population(out)
    _print_plans(gamma, out)
    estimates = _print_sensitivities(gamma, random_state, out)
    _print_releases(estimates, random_state, out)
    sweep = _run_sweep(estimates, random_state, progress)
    path = os.path.join(out_dir, CSV_NAME)
    sweep.table.to_csv(path)
    written = [path]
    _print_sweep(sweep, out)
    if figures and not plotting.available():
        print("\n" + plotting.SKIPPED, file=out)
        figures = False
    if figures:
        written += _draw_figures(sweep, random_state, out_dir)
    print(
        f"\nWrote {counted(len(written), 'file')} to {out_dir}/: "
        f"{', '.join(os.path.basename(w) for w in written)}",
        file=out,
    )
    return written


def _print_population(out):
    """The population model and its exact moments."""
    print(f"Population: {HEIGHTS!r}", file=out)
    print(
        f"  mean {HEIGHTS.mean:.2f} cm, std {HEIGHTS.var**0.5:.2f} cm, exact "
        f"E|X - X'| = {HEIGHTS.expected_abs_difference():.2f} cm\n",
        file=out,
    )


def _print_plans(gamma, out):
    """Section 1: the sampling plans of both bounds for ``gamma``."""
    rows = [("inequality", "m", "k", "gamma certified", "rho")]
    for inequality in ("dkw", "exact"):
        p = sampling_plan(gamma=gamma, inequality=inequality)
        rows.append((inequality, p.m, p.k, f"{p.gamma:.4f}", f"{p.rho:.4f}"))
    print(f"1. Sampling plans for gamma = {gamma}:", file=out)
    _table(rows, out)


def _print_sensitivities(gamma, random_state, out):
    """Section 2: one sampling run per row of :data:`_RUNS`; returns the estimates
    keyed by (query name, norm, bound)."""
    rows = [("query", "n", "norm", "inequality", "m", "sensitivity", "mean", "gamma")]
    estimates = {}
    for query, n, norm, inequality in _RUNS:
        est = sample_sensitivity(
            query,
            HEIGHTS,
            n,
            gamma=gamma,
            norm=norm,
            inequality=inequality,
            random_state=random_state,
        )
        estimates[query.name, norm, inequality] = est
        rows.append(
            (
                query.name,
                n,
                norm,
                inequality,
                est.m,
                f"{est.sensitivity.value:.4f}",
                f"{est.mean.value:.4f}",
                f"{est.gamma:.4f}",
            )
        )
    print("\n2. Sampled sensitivities in cm (replace-one neighbours):", file=out)
    _table(rows, out)
    print(
        "   Only 'sensitivity' carries the random-DP guarantee; 'mean' is its typical "
        "value.",
        file=out,
    )
    return estimates


def _print_releases(estimates, random_state, out):
    """Section 3: the private mean of 500 people, by Laplace and Gaussian noise."""
    people = HEIGHTS.sample(500, random_state=random_state)
    releases = [
        LaplaceMechanism(estimates["mean", "l1", "exact"], 0.5),
        GaussianMechanism(
            estimates["mean", "l2", "exact"], 0.5, 1e-6, variant="analytic"
        ),
    ]
    print(
        f"\n3. Private mean height of 500 people (true mean {people.mean():.3f} cm):",
        file=out,
    )
    for mech in releases:
        value = mech.release(people.mean(), random_state=random_state)
        print(f"   {value:9.3f} cm   {mech.privacy}", file=out)


def _run_sweep(estimates, random_state, progress):
    """The error-vs-epsilon sweep of the released run and its typical offsets.

    The sweep reuses the released run of section 2 (identity, exact plan): its
    "sampled" sensitivity is the one printed there, not a new sample.
    """
    released = estimates["identity", "l1", "exact"]
    offsets = [released.typical(k) for k in (0, 1, 2)]
    epsilons = np.geomspace(0.01, 20, 40)
    table = sensitivity_sweep(
        queries.identity,
        HEIGHTS,
        500,
        epsilons,
        {"sampled": released, **{t.label: t for t in offsets}},
        repetitions=_REPETITIONS,
        statistic=np.mean,
        random_state=random_state,
        progress=progress,
    )
    return _Sweep(table, released, offsets, epsilons)


def _print_sweep(sweep, out):
    """Section 4: the mean error at every eighth epsilon, one column per
    sensitivity, and what each sensitivity guarantees."""
    table, released, offsets = sweep.table, sweep.released, sweep.offsets
    print(
        "\n4. Error of the private mean of 500 heights, each released with Laplace "
        f"noise (mean over {_REPETITIONS} repetitions, in cm):",
        file=out,
    )
    labels = list(dict.fromkeys(table.column("sensitivity")))
    rows = [("epsilon",) + tuple(labels)]
    for eps in sweep.epsilons[::8]:
        part = table.where(epsilon=float(eps), statistic="mean")
        rows.append((f"{eps:.3f}",) + tuple(f"{v:.3f}" for v in part.column("value")))
    _table(rows, out)
    print(
        f"   sampled = {released.sensitivity.value:.4f} cm (random DP, gamma = "
        f"{released.gamma:.4f}); "
        + ", ".join(f"{t.label} = {t.value:.4f} cm" for t in offsets)
        + f" carry no guarantee ({SD_DEFINITION}).",
        file=out,
    )


def _draw_figures(sweep, random_state, out_dir):
    """Every figure of :func:`_figures` and its caption in ``out_dir``; returns the
    paths written."""
    written = []
    for name, (draw, caption) in zip(FIGURES, _figures(sweep, random_state), strict=True):
        path = os.path.join(out_dir, name)
        draw(path)
        _write_caption(path, caption)
        written += [path, os.path.splitext(path)[0] + ".txt"]
    return written


def _figures(sweep, state):
    """``(draw(path), caption)`` of each figure of :data:`FIGURES`, in order."""
    released, offsets = sweep.released, sweep.offsets
    composed = [
        LaplaceMechanism(1, 0.5),
        LaplaceMechanism(1, 1.0),
        GaussianMechanism(1, 0.5, 0.01, variant="classic"),
    ] * 1000
    budget_eps = np.geomspace(0.002, 0.2, 25)
    ks = np.arange(1, 101)
    iterations = np.arange(10, 501, 10)
    seed = f"random_state = {state}."
    return [
        (  # error_vs_epsilon.png
            lambda p: plotting.plot_error_vs_epsilon(
                sweep.table,
                p,
                unit=" cm",
                title="Heights: error of the private mean of 500 people vs ε "
                "(Laplace noise on each height)",
            ),
            f"Error of the mean of 500 heights, each released by the Laplace "
            f"mechanism (sensitivity of one height, L1); private data: 500 heights "
            f"drawn from the population per repetition, {_REPETITIONS} "
            "repetitions; "
            f"{len(sweep.epsilons)} epsilons from 0.01 to 20 (log-spaced). "
            f"Sensitivities: sampled = {released.sensitivity.value:.4f} cm (order "
            f"statistic k = {released.k} of m = {released.m}, {released.inequality} "
            f"plan, random DP with gamma = {released.gamma:.4f}, population "
            f"{HEIGHTS!r}); "
            + ", ".join(f"{t.label} = {t.value:.4f} cm" for t in offsets)
            + f" (no guarantee; {SD_DEFINITION}). {seed}",
        ),
        (  # sensitivity_histogram.png
            lambda p: plotting.plot_sensitivity_histogram(
                released,
                p,
                typical=offsets[1:],
                unit=" cm",
                title="Heights: sampled sensitivity of one height "
                f"(identity, n = 1, {released.inequality} plan, m = {released.m})",
            ),
            f"The sampling run released in section 2 and used by the sweep: "
            f"query identity, n = 1, L1 norm, replace-one neighbours, "
            f"{released.inequality} plan m = {released.m}, k = {released.k}, gamma = "
            f"{released.gamma:.4f}; population {HEIGHTS!r}. {seed}",
        ),
        (  # composition.png
            lambda p: plotting.plot_composition(
                experiments.composition_experiment(composed, random_state=state), p
            ),
            "Mechanisms composed, in turn, 1000 times each: Laplace (sensitivity "
            "1, epsilon 0.5), Laplace (sensitivity 1, epsilon 1), classic "
            "Gaussian (sensitivity 1, epsilon 0.5, delta 0.01); secrets 1 on D "
            f"and 2 on D'. {seed}",
        ),
        (  # runs_before_budget.png
            lambda p: plotting.plot_runs_before_budget(
                experiments.runs_before_budget(budget_eps), p
            ),
            "Privacy filters with budget epsilon = 0.2, delta = 2e-30; repeated "
            "Laplace releases of a sensitivity-1 query, 25 epsilons per release "
            "from 0.002 to 0.2 (log-spaced).",
        ),
        (  # vectorized_vs_sequential.png
            lambda p: plotting.plot_vectorized_vs_sequential(
                experiments.vectorized_vs_sequential(ks), p
            ),
            "k = 1..100 queries of sensitivity 1 at a total epsilon = 0.1 "
            "(delta = 1e-5 for the Gaussian mechanisms, 0 for Laplace); see "
            "sensampler.app.experiments.vectorized_vs_sequential for the theorems.",
        ),
        (  # epsilon_vs_iterations.png
            lambda p: plotting.plot_epsilon_vs_iterations(
                experiments.epsilon_vs_iterations(iterations), p
            ),
            "k = 10..500 Gaussian steps of sensitivity 1 and noise sigma = 200 "
            "each; total epsilon at delta = 1e-5; Rényi DP at the fixed order "
            "alpha = 60 and at the best order.",
        ),
    ]
