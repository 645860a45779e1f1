"""n_jobs = 2 against 1 for estimator queries on data shipped with scikit-learn.

Estimator queries refit a scikit-learn model on every database, in Python, so
the sampler runs their chunks on processes (loky). Each figure is the median of
interleaved rounds after a warm-up of both sides (the worker pool's start is
printed apart), with the spread of the per-round ratios. The sampler fits on one
BLAS thread in every process, so the ratio compares one core with two.

    python benchmarks/real_models.py            # both figures, a few minutes
    python benchmarks/real_models.py --quick    # fewer pairs
"""

from __future__ import annotations

import sys
import time

import numpy as np
from run import base_parser, compare, header, report, spread
from sklearn.linear_model import LogisticRegression, Ridge

from sensampler import queries, sample_sensitivity
from sensampler.app.experiments import load_split
from sensampler.distributions import Empirical


def figure(label, loader, model, m, repeat):
    split = load_split(loader, seed=2017)  # as in examples/06_real_models.py
    population = Empirical(split.public)
    query = queries.estimator(model)
    n = len(split.train)

    def run(jobs):
        return sample_sensitivity(
            query, population, n, m=m, norm="l2", random_state=0, n_jobs=jobs
        )

    start = time.perf_counter()
    cold = run(2)  # starts the worker pool
    t_cold = time.perf_counter() - start
    fit = min(_time(lambda: query(split.train)) for _ in range(20))
    stats = compare(lambda: run(1), lambda: run(2), repeat=repeat)
    assert np.array_equal(cold.samples, run(1).samples)  # same estimate, any n_jobs
    return {
        "figure": f"{label}, n={n}, m={m}",
        "sampler": f"n_jobs=2 {stats['t_new']:.2f} s (first, with pool start: "
        f"{t_cold:.2f} s)",
        "reference": f"n_jobs=1 {stats['t_ref']:.2f} s ({2 * m} fits of "
        f"{fit * 1e3:.2f} ms)",
        "ratio": stats["ratio"],
        "spread": spread(stats),
        "target": ">= 1.8",
        "ok": stats["ratio"] >= 1.8,
    }


def _time(func):
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def main(argv=None):
    args = base_parser(__doc__.splitlines()[0], "fewer pairs").parse_args(argv)
    repeat = 3 if args.quick else 5
    header("estimator queries")
    rows = [
        figure(
            "Ridge(alpha=10).coef_, diabetes training part",
            "load_diabetes",
            Ridge(alpha=10.0, fit_intercept=False),
            300 if args.quick else 1000,
            repeat,
        ),
        figure(
            "LogisticRegression().coef_, breast cancer training part",
            "load_breast_cancer",
            LogisticRegression(max_iter=1000),
            100 if args.quick else 300,
            repeat,
        ),
    ]
    return report(rows, args)


if __name__ == "__main__":
    sys.exit(main())
