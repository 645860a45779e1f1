"""The heights example of the source documents, end to end, through the public API."""

from __future__ import annotations

import importlib.util
import os
import sys

import numpy as np

from . import queries
from .distributions import GaussianMixture, Normal
from .experiments import (
    composition_experiment,
    epsilon_vs_iterations,
    error_vs_epsilon,
    runs_before_budget,
    vectorized_vs_sequential,
)
from .mechanisms import GaussianMechanism, LaplaceMechanism
from .plan import sampling_plan
from .sampler import sample_sensitivity

__all__ = ["HEIGHTS", "run_demo"]

#: Adult heights in cm: men N(178, 7^2), women N(162, 6.5^2), in equal numbers.
HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])


def _table(rows, out):
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    for j, row in enumerate(rows):
        print(
            "  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip(), file=out
        )
        if j == 0:
            print("  ".join("-" * w for w in widths), file=out)


def run_demo(
    out=sys.stdout,
    out_dir="sensampler-results",
    random_state=2017,
    progress=False,
    gamma=0.05,
    figures=True,
):
    """Plan, sampled sensitivity and mean, releases and the error-vs-epsilon sweep of
    the heights example; CSV and PNG files go to ``out_dir``. Returns the file paths."""
    os.makedirs(out_dir, exist_ok=True)
    written = []
    print(f"Population: {HEIGHTS!r}", file=out)
    print(
        f"  mean {HEIGHTS.mean:.2f} cm, std {HEIGHTS.var**0.5:.2f} cm, exact "
        f"E|X - X'| = {HEIGHTS.expected_abs_difference():.2f} cm\n",
        file=out,
    )

    rows = [("bound", "m", "k", "gamma certified", "rho")]
    for bound in ("dkw", "exact"):
        p = sampling_plan(gamma=gamma, bound=bound)
        rows.append((bound, p.m, p.k, f"{p.gamma:.4f}", f"{p.rho:.4f}"))
    print(f"1. Sampling plans for gamma = {gamma}:", file=out)
    _table(rows, out)

    rows = [("query", "n", "bound", "m", "sensitivity", "mean", "gamma")]
    estimates = {}
    for query, n in ((queries.identity, 1), (queries.mean, 500)):
        for bound in ("dkw", "exact"):
            est = sample_sensitivity(
                query, HEIGHTS, n, gamma=gamma, bound=bound, random_state=random_state
            )
            estimates[query.name, bound] = est
            rows.append(
                (
                    query.name,
                    n,
                    bound,
                    est.m,
                    f"{est.sensitivity:.4g}",
                    f"{est.mean:.4g}",
                    f"{est.gamma:.4f}",
                )
            )
    print("\n2. Sampled L1 sensitivities in cm (replace-one neighbours):", file=out)
    _table(rows, out)
    print(
        "   Only 'sensitivity' carries the random-DP guarantee; 'mean' is its typical "
        "value.",
        file=out,
    )

    people = HEIGHTS.sample(500, random_state=random_state)
    l2 = sample_sensitivity(
        queries.mean, HEIGHTS, 500, gamma=gamma, norm="l2", random_state=random_state
    )
    releases = [
        LaplaceMechanism(estimates["mean", "exact"], 0.5),
        GaussianMechanism(l2, 0.5, 1e-6, variant="analytic"),
    ]
    print(
        f"\n3. Private mean height of 500 people (true mean {people.mean():.3f} cm):",
        file=out,
    )
    for mech in releases:
        value = mech.release(people.mean(), random_state=random_state)
        print(f"   {value:9.3f} cm   {mech.privacy}", file=out)

    df, sd = HEIGHTS.expected_abs_difference(), HEIGHTS.var**0.5
    sweep = error_vs_epsilon(
        queries.identity,
        HEIGHTS,
        500,
        np.geomspace(0.01, 20, 40),
        [("E[Δf]", df), ("E[Δf] + σ", df + sd), ("E[Δf] + 2σ", df + 2 * sd), "sampled"],
        data=Normal(170, 1),
        statistic=np.mean,
        repetitions=100,
        gamma=gamma,
        random_state=random_state,
        progress=progress,
    )
    path = os.path.join(out_dir, "error_vs_epsilon.csv")
    sweep.to_csv(path)
    written.append(path)
    print(
        "\n4. Error of the private mean of 500 noisy heights (Laplace noise on each "
        "height), mean over 100 repetitions:",
        file=out,
    )
    rows = [("epsilon",) + tuple(dict.fromkeys(sweep.column("sensitivity")))]
    for eps in list(dict.fromkeys(sweep.column("epsilon")))[::8]:
        part = sweep.where(epsilon=eps, statistic="mean")
        rows.append(
            (f"{eps:.3g}",) + tuple(f"{v:.3g} cm" for v in part.column("value"))
        )
    _table(rows, out)

    if figures and importlib.util.find_spec("matplotlib") is None:
        print(
            "\nFigures skipped: pip install 'sensampler[plot]' to draw them.", file=out
        )
        figures = False
    if figures:
        from . import plotting

        figs = {
            "error_vs_epsilon.png": lambda p: plotting.plot_error_vs_epsilon(
                sweep,
                p,
                unit=" cm",
                title="Heights: error of the private mean of 500 people vs ε\n(Laplace "
                "noise on each height, mean of 100 repetitions)",
            ),
            "sensitivity_histogram.png": lambda p: plotting.plot_sensitivity_histogram(
                estimates["identity", "dkw"],
                p,
                unit=" cm",
                title="Heights: sampled sensitivity of one height (identity, n = 1)",
            ),
            "composition.png": lambda p: plotting.plot_composition(
                composition_experiment(
                    [
                        LaplaceMechanism(1, 0.5),
                        LaplaceMechanism(1, 1.0),
                        GaussianMechanism(1, 0.5, 0.01),
                    ]
                    * 1000,
                    random_state=random_state,
                ),
                p,
            ),
            "runs_before_budget.png": lambda p: plotting.plot_runs_before_budget(
                runs_before_budget(np.geomspace(0.002, 0.2, 25)), p
            ),
            "vectorized_vs_sequential.png": lambda p: (
                plotting.plot_vectorized_vs_sequential(
                    vectorized_vs_sequential(np.arange(1, 101)), p
                )
            ),
            "epsilon_vs_iterations.png": lambda p: plotting.plot_epsilon_vs_iterations(
                epsilon_vs_iterations(np.arange(10, 501, 10)), p
            ),
        }
        import matplotlib.pyplot as plt

        for name, draw in figs.items():
            path = os.path.join(out_dir, name)
            plt.close(draw(path))
            written.append(path)
    print(
        f"\nWrote {len(written)} files to {out_dir}/: "
        f"{', '.join(os.path.basename(w) for w in written)}",
        file=out,
    )
    return written
