"""CPU time of a calibrated median release of heights, against the goals.

``release_statistic(data, "median", HEIGHTS, epsilon=1, random_state=0)`` with
the population's default bounds, at n = 500, 1e4 and 1e5; prints the CPU time
per release (``time.process_time``, best of ``--reps`` after a warm-up), its
ratio to the goal (0.1 s at n = 500, 0.5 s at n = 1e5; none at 1e4) and the
chosen scale (``plain``: no candidate passed, the plain mechanism).

Not a test; always exits 0.

    python benchmarks/quantile_speed.py --reps 3
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _timing import HEIGHTS

from sensampler.app.release import release_statistic

GOALS = {500: 0.1, 10_000: None, 100_000: 0.5}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    print(f"{'n':>7} {'cpu s':>7} {'goal':>5} {'ratio':>6}  scale")
    for n, goal in GOALS.items():
        data = HEIGHTS.sample(n, np.random.default_rng(1))
        times, release = [], None
        for _ in range(args.reps + 1):
            start = time.process_time()
            release = release_statistic(data, "median", HEIGHTS, epsilon=1.0,
                                        random_state=0)
            times.append(time.process_time() - start)
        best = min(times[1:])
        cal = release.calibration
        scale = "plain" if cal is None else f"{cal.scale!r} (k={cal.run.k} of m={cal.run.m})"
        ratio = "-" if goal is None else f"{best / goal:.2f}"
        print(f"{n:>7} {best:7.3f} {goal or '-':>5} {ratio:>6}  {scale}")


if __name__ == "__main__":
    main()
