"""What the worst-case floor costs, and what private bounds cost.

1. Heights mean, n = 500, epsilon = 1: the absolute error of the Laplace release
   with bounds from the population model and the default cap (10 epsilon),
   against the release without bounds (random DP only), on the same data, the
   same sampling seeds and the same noise draws (paired), and the worst-case
   epsilon each release states.
2. Log-normal incomes, n = 1000, total epsilon = 1: ``bounds="private:0.3"`` and
   the clipped mean at 0.7 (plain DP, no population) against the release with
   the public population model at epsilon = 1 (random DP, bounds from the model).

Not a test; always exits 0.

    python benchmarks/worst_case.py            # ~1 minute
    python benchmarks/worst_case.py --quick    # a few seconds
"""

from __future__ import annotations

import argparse

import numpy as np

from sensampler import queries, sample_sensitivity
from sensampler.app.release import release_statistic
from sensampler.bounds import Bounds
from sensampler.distributions import GaussianMixture, LogNormal
from sensampler.mechanisms import LaplaceMechanism


def heights_mean(repetitions: int) -> None:
    heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
    n, epsilon = 500, 1.0
    bounds = Bounds.from_population(heights)
    rng = np.random.default_rng(2024)
    without, capped, stated = [], [], []
    for _ in range(repetitions):
        data = heights.sample(n, random_state=rng)
        truth = data.mean()
        seed, noise = rng.integers(2**32, size=2)  # the same draws for both
        plain = sample_sensitivity(queries.mean, heights, n, gamma=0.05,
                                   random_state=seed)
        clipped = sample_sensitivity(queries.mean, heights, n, gamma=0.05,
                                     bounds=bounds, random_state=seed)
        m0, m1 = LaplaceMechanism(plain, epsilon), LaplaceMechanism(clipped, epsilon)
        without.append(abs(m0.release(queries.mean(data), random_state=noise) - truth))
        answer = queries.mean(bounds.clip(data))
        capped.append(abs(m1.release(answer, random_state=noise) - truth))
        stated.append(m1.privacy.worst_case.epsilon)
    print(f"heights mean, n={n}, epsilon={epsilon}, {repetitions} paired repetitions")
    print(f"  bounds {bounds.describe()}")
    print(f"  mean absolute error: random DP only {np.mean(without):.5f} "
          f"(Laplace on the sampled sensitivity, no bounds)")
    print(f"  mean absolute error: with the worst-case floor {np.mean(capped):.5f} "
          f"(same, records clipped, cap 10 epsilon)")
    print(f"  ratio {np.mean(capped) / np.mean(without):.3f}; worst-case epsilon "
          f"stated: median {np.median(stated):.3f}, max {np.max(stated):.3f}")


def incomes_mean(repetitions: int) -> None:
    population = LogNormal(10.0, 1.0)
    rng = np.random.default_rng(7)
    private, public = [], []
    for _ in range(repetitions):
        data = population.sample(1000, random_state=rng)
        truth = data.mean()
        a = release_statistic(data, "mean", None, epsilon=0.7, bounds="private:0.3")
        b = release_statistic(data, "mean", population, epsilon=1.0,
                              random_state=int(rng.integers(2**31)))
        private.append(abs(a.value - truth))
        public.append(abs(b.value - truth))
    print(f"log-normal incomes mean, n=1000, total epsilon=1, {repetitions} repetitions")
    print(f"  private bounds (epsilon 0.3) + clipped mean (0.7), plain DP: "
          f"{np.mean(private):.1f}")
    print(f"  public population, random DP with a worst-case floor: {np.mean(public):.1f}")
    print(f"  ratio {np.mean(private) / np.mean(public):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few repetitions")
    args = parser.parse_args()
    heights_mean(20 if args.quick else 200)
    incomes_mean(10 if args.quick else 100)


if __name__ == "__main__":
    main()
