"""CPU time of a calibrated median release of heights, against the goals.

``release_statistic(data, "median", HEIGHTS, epsilon=1, random_state=0)`` with
the population's default bounds, at n = 500, 1e4 and 1e5; prints the CPU time
per release (``time.process_time``, best of ``--reps`` after a warm-up), its
ratio to the goal (0.1 s at n = 500, 0.5 s at n = 1e5; none at 1e4) and the
chosen scale (``plain``: no candidate passed, the plain mechanism). Then a
median sweep over :data:`SWEEP_EPSILONS` at n = 500 with one repetition
(``error_vs_epsilon``: its calibrations, drawn once for every epsilon, and one
release per epsilon), against the releases it stands for. Last, the exact draw alone
(``ExponentialQuantileMechanism.release``, plain, bounds (140, 210)) on 3, 500
and 1e5 records: what an audit of the mechanism repeats 10^5 times.

Not a test; always exits 0.

    python benchmarks/quantile_speed.py --reps 3
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _timing import HEIGHTS

from sensampler.app.experiments import error_vs_epsilon
from sensampler.app.release import release_statistic
from sensampler.mechanisms import ExponentialQuantileMechanism

GOALS = {500: 0.1, 10_000: None, 100_000: 0.5}
SWEEP_EPSILONS = [0.25, 0.5, 1.0, 2.0, 4.0]


def best_cpu(run, reps: int) -> float:
    """The least CPU time of ``reps`` runs after a warm-up."""
    times = []
    for _ in range(reps + 1):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    print(f"{'n':>7} {'cpu s':>7} {'goal':>5} {'ratio':>6}  scale")
    for n, goal in GOALS.items():
        data = HEIGHTS.sample(n, np.random.default_rng(1))

        def release(data=data):
            return release_statistic(data, "median", HEIGHTS, epsilon=1.0,
                                     random_state=0)

        best = best_cpu(release, args.reps)
        cal = release().calibration
        scale = "plain" if cal is None else f"{cal.scale!r} (k={cal.run.k} of m={cal.run.m})"
        ratio = "-" if goal is None else f"{best / goal:.2f}"
        print(f"{n:>7} {best:7.3f} {goal or '-':>5} {ratio:>6}  {scale}")
    sweep = best_cpu(lambda: error_vs_epsilon("median", HEIGHTS, 500, SWEEP_EPSILONS,
                                              repetitions=1, random_state=0, n_jobs=1),
                     args.reps)
    data = HEIGHTS.sample(500, np.random.default_rng(1))
    releases = best_cpu(lambda: [release_statistic(data, "median", HEIGHTS, epsilon=e,
                                                   random_state=0)
                                 for e in SWEEP_EPSILONS], args.reps)
    print(f"sweep of {len(SWEEP_EPSILONS)} epsilons at n = 500: {sweep:.3f} s CPU; "
          f"{len(SWEEP_EPSILONS)} releases: {releases:.3f} s (ratio {sweep / releases:.2f})")
    mech = ExponentialQuantileMechanism(0.5, (140.0, 210.0), 1.0)
    rng = np.random.default_rng(2)
    for n, draws in ((3, 2000), (500, 2000), (100_000, 20)):
        data = HEIGHTS.sample(n, np.random.default_rng(1))
        best = best_cpu(lambda data=data, draws=draws: [
            mech.release(data, random_state=rng) for _ in range(draws)
        ], args.reps)
        print(f"one exact draw of the exponential mechanism on {n} records: "
              f"{1e3 * best / draws:.3f} ms CPU")


if __name__ == "__main__":
    main()
