"""Does gamma hold for the public sample at hand? Coverage per public sample.

A bootstrap population (:class:`~sensampler.distributions.Empirical`) makes the
sampled sensitivity hold on average over public samples; for one sample the
true exceedance (the chance that a fresh pair from the *true* population
exceeds the released sensitivity) can be several times gamma.
:class:`~sensampler.distributions.PublicSample` (the default of ``sensampler
release --population bootstrap:FILE`` and of ``PrivateEstimator``) states gamma
for the public sample at hand at a confidence (0.9 by default). This script
draws S public samples of N rows from a known population, samples the
sensitivity from each with both, and measures each release's true exceedance
by Monte Carlo (``audit_estimate`` under the true population). It prints, per
setting, the mean and worst exceedance, how many samples are above gamma, and
how many exceed it by more than 3 Monte Carlo standard errors. Not a test: it
always exits 0.

    python benchmarks/public_sample.py              # a few minutes
    python benchmarks/public_sample.py --quick      # about a minute
    python benchmarks/public_sample.py --models     # adds PrivateEstimator (slow)
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from sensampler import queries, sample_sensitivity
from sensampler.audit import audit_estimate
from sensampler.distributions import (
    Empirical,
    GaussianMixture,
    Laplace,
    Normal,
    PublicSample,
)

GAMMA = 0.05


def exceedances(query, population, rows, n, m, samples, make, pairs, seed):
    """True exceedance of the sensitivity sampled from each of ``samples`` public
    samples of ``rows`` rows (``make(rows)`` builds the bootstrap population)."""
    root = np.random.SeedSequence(seed)
    out = []
    for child in root.spawn(samples):
        data_seed, run_seed, audit_seed = child.spawn(3)
        public = population.sample(rows, random_state=data_seed)
        estimate = sample_sensitivity(
            query, make(public), n, gamma=GAMMA, m=m, random_state=run_seed
        )
        audit = audit_estimate(
            estimate, population, pairs=pairs, random_state=audit_seed
        )
        out.append(audit.rate)
    return np.array(out)


def summary(rates, pairs) -> str:
    se = np.sqrt(GAMMA * (1 - GAMMA) / pairs)
    return (
        f"mean {rates.mean():.4f}  worst {rates.max():.4f}  "
        f"above gamma {np.sum(rates > GAMMA):2d}/{rates.size}  "
        f"above gamma + 3 SE {np.sum(rates > GAMMA + 3 * se):2d}/{rates.size}"
    )


def model_exceedances(rows, n, samples, make_kind, pairs, seed, features=3):
    """The same for PrivateEstimator(LogisticRegression) on per-class Gaussians
    (``features`` standard normal features, shifted by 1.5 for class 1)."""
    from sklearn.linear_model import LogisticRegression

    from sensampler.models import PrivateEstimator

    def draw(size, rng):
        y = rng.integers(0, 2, size)
        X = rng.normal(size=(size, features)) + 1.5 * y[:, None]
        return X, y

    class Truth(Normal):  # rows (features..., label) of the true population
        def __init__(self):
            super().__init__(0.0, 1.0)
            self.record_shape = (features + 1,)

        def _draw(self, shape, rng):
            X, y = draw(int(np.prod(shape)), rng)
            return np.column_stack([X, y]).reshape(tuple(shape) + self.record_shape)

    truth = Truth()
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(samples):
        X_pub, y_pub = draw(rows, rng)
        X, y = draw(n, rng)
        population = make_kind(np.column_stack([X_pub, y_pub]))
        model = PrivateEstimator(
            LogisticRegression(),
            epsilon=1.0,
            delta=1e-5,
            public=(X_pub, y_pub),
            population=population,
            random_state=int(rng.integers(2**31)),
        ).fit(X, y)
        audit = audit_estimate(
            model.sensitivity_, truth, pairs=pairs, random_state=rng
        )
        out.append(audit.rate)
    return np.array(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--models", action="store_true")
    parser.add_argument("--features", type=int, default=3, help="with --models")
    args = parser.parse_args()
    samples, pairs = (20, 20_000) if args.quick else (50, 50_000)
    heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
    # (name, query, true population, public rows N, database size n, pairs m)
    settings = [
        ("mean", queries.mean, Normal(0.0, 1.0), 53, 100, None),
        ("mean", queries.mean, Normal(0.0, 1.0), 53, 100, 2000),
        ("mean", queries.mean, Laplace(0.0, 1.0), 53, 100, 2000),
        ("mean", queries.mean, Laplace(0.0, 1.0), 200, 100, 2000),
        ("median", queries.median, heights, 53, 100, 2000),
        ("std", queries.std(), Normal(0.0, 1.0), 53, 50, 2000),
    ]
    print(f"gamma={GAMMA}; {samples} public samples per row; true exceedance by "
          f"Monte Carlo over {pairs} pairs of the true population")
    for name, query, population, rows, n, m in settings:
        for label, make in (("Empirical   ", Empirical), ("PublicSample", PublicSample)):
            start = time.perf_counter()
            rates = exceedances(
                query, population, rows, n, m, samples, make, pairs, 7
            )
            took = time.perf_counter() - start
            plan = "m=default" if m is None else f"m={m}"
            print(f"{name:6s} {type(population).__name__:15s} N={rows:3d} n={n:3d} "
                  f"{plan:9s} {label}  {summary(rates, pairs)}"
                  f"  ({took:.0f} s)")
    if args.models:
        model_samples, model_pairs = 20, 1000
        for label, make in (("Empirical   ", Empirical), ("PublicSample", PublicSample)):
            rates = model_exceedances(
                53, 384, model_samples, make, model_pairs, 11, args.features
            )
            print(f"PrivateEstimator(LogisticRegression), {args.features} features, "
                  f"N= 53 n=384 {label}  "
                  f"{summary(rates, model_pairs)}")


if __name__ == "__main__":
    main()
