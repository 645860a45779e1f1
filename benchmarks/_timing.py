"""What the benchmark scripts share: the heights population, a full-path mean, timing."""

from __future__ import annotations

import time

from sensampler import queries
from sensampler.distributions import GaussianMixture

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])


def _mean_of_stack(stack):
    return stack.mean(axis=1)


#: The mean through the full path: ``queries.mean`` is declared additive and skips
#: drawing databases, so figures that measure database drawing use this undeclared
#: twin.
FULL_MEAN = queries.BatchedQuery(_mean_of_stack, name="mean", releases_gil=True)


def repeat_times(func, repeat=5):
    """Wall times of ``repeat`` calls, after one warm-up call."""
    func()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return times
