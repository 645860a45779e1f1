"""A sweep on the release path against independent releases: same errors, less time.

For the median and the mean of 500 heights at epsilon in {0.1, 0.3, 1, 3}:
``error_vs_epsilon`` (``--repetitions`` databases, ``--calibrations`` K
calibrations per epsilon: 1 measures the error given one calibration, K =
repetitions averages over the calibration as independent releases do) against
``--releases`` independent ``release_statistic`` calls per epsilon (each with its
own seed, database and calibration). Prints both mean absolute
errors, their difference in standard errors (within 6 is the goal) and the CPU
time of each (``time.process_time``; the sweep's goal is <= 10 s for the median).

Not a test; always exits 0.

    python benchmarks/release_sweep.py --releases 200 --repetitions 200
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from _timing import HEIGHTS

from sensampler.app.experiments import error_vs_epsilon
from sensampler.app.release import release_statistic

EPSILONS = (0.1, 0.3, 1.0, 3.0)


def _independent(query: str, n: int, epsilon: float, releases: int) -> np.ndarray:
    """The absolute errors of independent releases, each on a fresh database."""
    errors = np.empty(releases)
    for i in range(releases):
        data = HEIGHTS.sample(n, np.random.default_rng([i, 1]))
        release = release_statistic(data, query, HEIGHTS, epsilon=epsilon, random_state=i)
        exact = np.median(data) if query == "median" else data.mean()
        errors[i] = abs(release.value - exact)
    return errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--releases", type=int, default=200)
    parser.add_argument("--repetitions", type=int, default=200)
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--calibrations", type=int, default=1)
    args = parser.parse_args()
    for query in ("median", "mean"):
        start = time.process_time()
        table = error_vs_epsilon(query, HEIGHTS, args.n, list(EPSILONS),
                                 repetitions=args.repetitions,
                                 calibrations=args.calibrations, random_state=0)
        sweep_cpu = time.process_time() - start
        rows = {r["epsilon"]: r for r in table.where(statistic="mean").rows}
        stds = {r["epsilon"]: r["value"] for r in table.where(statistic="std").rows}
        print(f"{query}: sweep of {len(EPSILONS)} epsilons x {args.repetitions} "
              f"repetitions, {args.calibrations} calibration(s): {sweep_cpu:.2f} s CPU")
        print(f"  {'epsilon':>7} {'sweep':>9} {'releases':>9} {'diff/SE':>8} {'cpu s':>7}")
        total = 0.0
        for epsilon in EPSILONS:
            start = time.process_time()
            errors = _independent(query, args.n, epsilon, args.releases)
            cpu = time.process_time() - start
            total += cpu
            se = math.hypot(errors.std(ddof=1) / math.sqrt(errors.size),
                            stds[epsilon] / math.sqrt(args.repetitions))
            diff = (rows[epsilon]["value"] - errors.mean()) / se
            print(f"  {epsilon:>7g} {rows[epsilon]['value']:>9.4g} {errors.mean():>9.4g} "
                  f"{diff:>8.2f} {cpu:>7.2f}")
        print(f"  independent releases: {total:.2f} s CPU, "
              f"{total / sweep_cpu:.1f}x the sweep's")


if __name__ == "__main__":
    main()
