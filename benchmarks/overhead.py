"""Fixed cost of a call: the built-in mean against a median, and first use.

Per call: ``sample_sensitivity(queries.mean, heights, n, gamma=0.05)`` (m =
113 pairs) is timed next to *the sampling work alone*, the same draws and
arithmetic in bare numpy (2m records, their differences over n, the k-th
largest); the difference is the overhead of the call (checks, seeding, the
plan, building the run). The median's whole call is timed at the same n: the
O(m) mean should cost less at every n. Target: overhead <= 0.3 ms.

First use: ``import sensampler``, one sampling run and one Laplace release in a
fresh interpreter, less a fresh interpreter that only imports numpy (best of
5 each, wall and CPU time). Target: <= 0.25 s, and SciPy not loaded.

The machine may be shared and noisy: every figure is the minimum of several
runs (the least disturbed); the rounds interleave the timed calls so that a
slow spell falls on all of them alike. Not a test: it always exits 0.

    python benchmarks/overhead.py            # ~20 seconds
    python benchmarks/overhead.py --quick    # a few seconds
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time

import numpy as np
from _timing import HEIGHTS

from sensampler import queries, sample_sensitivity

#: gamma of the timed calls, and the plan it gives (m = k = 113).
GAMMA = 0.05
M = 113

#: What a fresh interpreter runs for the first-use figure.
FIRST_USE = """
import sensampler
from sensampler import queries
from sensampler.distributions import GaussianMixture
from sensampler.mechanisms import LaplaceMechanism
heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
est = sensampler.sample_sensitivity(queries.mean, heights, n=100, gamma=0.05,
                                    random_state=0)
LaplaceMechanism(est, epsilon=1.0).release(170.0, random_state=0)
import sys
print("scipy" in sys.modules)
"""


def sampling_work(n):
    """The mean's sampling work in bare numpy: 2m records, differences, k-th."""
    rng = np.random.default_rng(0)
    records = HEIGHTS.sample(2 * M, rng)
    diffs = np.abs(records[:M] - records[M:]) / n
    return np.partition(diffs, M - 1)[M - 1]


def interleaved_minima(funcs, repeat):
    """Minimum wall time of each of ``funcs`` over ``repeat`` interleaved rounds."""
    for func in funcs:
        func()  # warm-up
    best = np.full(len(funcs), np.inf)
    for r in range(repeat):
        for i in np.roll(np.arange(len(funcs)), r):
            start = time.perf_counter()
            funcs[i]()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def per_call(sizes, repeat):
    """Overhead of the mean beyond its sampling work, and the mean against a median."""
    print(f"\n## per call, gamma = {GAMMA} (m = {M}): min of {repeat} interleaved runs")
    print(
        f"{'n':>7} {'mean':>9} {'work':>9} {'overhead':>9} {'median':>9} "
        f"{'mean/median':>12}"
    )
    for n in sizes:
        mean, work, median = interleaved_minima(
            [
                lambda n=n: sample_sensitivity(
                    queries.mean, HEIGHTS, n, gamma=GAMMA, random_state=0
                ),
                lambda n=n: sampling_work(n),
                lambda n=n: sample_sensitivity(
                    queries.median, HEIGHTS, n, gamma=GAMMA, random_state=0
                ),
            ],
            repeat,
        )
        print(
            f"{n:>7} {mean * 1e3:7.3f}ms {work * 1e3:7.3f}ms "
            f"{(mean - work) * 1e3:7.3f}ms {median * 1e3:7.3f}ms {mean / median:12.2f}"
        )


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def fresh(code, repeat):
    """Best wall and CPU times of ``repeat`` fresh interpreters running ``code``,
    and its output. CPU time (user + system) hardly moves with the machine's
    load, wall time does."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path[1:]))
    wall, cpu, out = np.inf, np.inf, ""
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), _children_cpu()
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, check=True, capture_output=True,
            text=True,
        ).stdout
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, _children_cpu() - start_cpu)
    return wall, cpu, out.strip()


def first_use(repeat):
    """First use of the library over importing numpy, in fresh interpreters."""
    print(f"\n## first use in a fresh interpreter: best of {repeat}")
    numpy, numpy_cpu, _ = fresh("import numpy", repeat)
    use, use_cpu, scipy_loaded = fresh(FIRST_USE, repeat)
    print(f"{'':34}{'wall':>8}{'CPU':>9}")
    print(f"import numpy                      {numpy:6.3f} s {numpy_cpu:6.3f} s")
    print(f"import, one run, one release      {use:6.3f} s {use_cpu:6.3f} s")
    print(
        f"over numpy                        {use - numpy:6.3f} s "
        f"{use_cpu - numpy_cpu:6.3f} s (target <= 0.25 s)"
    )
    print(f"scipy loaded                      {scipy_loaded}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs")
    args = parser.parse_args(argv)
    repeat = 10 if args.quick else 50
    print(f"# sensampler call overhead on {os.cpu_count()} cores, numpy {np.__version__}")
    per_call([1, 10, 100, 1000, 10000], repeat)
    first_use(5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
