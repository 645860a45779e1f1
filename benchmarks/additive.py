"""Additive queries in O(m): time against n, and the full path's draw rate.

An additive query (``queries.mean``, ``sum``, ``count``, ``histogram``, or one
declared with ``queries.additive`` / ``batched(..., additive=...)``) draws two
records per pair and no database, so its time should not depend on n. The full
path, for any other query, draws m (n + 1) records: its throughput is measured
against numpy's own draw rate on the same records.

The machine may be shared and noisy: every figure is the minimum of several
runs (the least disturbed), printed with the median and maximum as its spread.
Not a test: it always exits 0.

    python benchmarks/additive.py            # ~1 minute
    python benchmarks/additive.py --quick    # a few seconds
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from _timing import FULL_MEAN, HEIGHTS, repeat_times

from sensampler import queries, sample_sensitivity


def timings(func, repeat):
    """Wall times of ``repeat`` calls after a warm-up, as an array."""
    return np.array(repeat_times(func, repeat))


def spread(times):
    """``min (median, max)`` in milliseconds."""
    low, mid, high = np.min(times), np.median(times), np.max(times)
    return f"{low * 1e3:9.2f} ms  (median {mid * 1e3:.2f}, max {high * 1e3:.2f})"


def additive_against_n(m, sizes, repeat):
    """Time of ``queries.mean`` at each n; ratio of the minima to the first n's.

    The sizes take turns within each round, in an order rotated every round, so
    that a slow spell of the machine falls on all of them alike.
    """
    print(f"\n## queries.mean (additive path), m = {m}: time against n")
    runs = [
        lambda n=n: sample_sensitivity(queries.mean, HEIGHTS, n, m=m, random_state=0)
        for n in sizes
    ]
    for run in runs:
        run()  # warm-up
    times = np.empty((len(sizes), repeat))
    for r in range(repeat):
        for i in np.roll(np.arange(len(runs)), r):
            start = time.perf_counter()
            runs[i]()
            times[i, r] = time.perf_counter() - start
    for n, row in zip(sizes, times):
        print(
            f"n = {n:<12.0e} {spread(row)}   ratio to n = {sizes[0]}: "
            f"{row.min() / times[0].min():5.2f}"
        )


def full_path_rate(n, m, repeat):
    """Draws per second of the full path (median, undeclared mean) against numpy's."""
    draws = m * (n + 1)
    print(f"\n## full path, n = {n}, m = {m}: {draws:.3g} records drawn per run")
    numpy = timings(lambda: HEIGHTS.sample(draws, random_state=0), repeat)
    print(
        f"{'numpy alone':<28} {spread(numpy)}   "
        f"{draws / numpy.min() / 1e6:6.1f} M draws/s"
    )
    for query in (queries.median, FULL_MEAN):
        times = timings(
            lambda q=query: sample_sensitivity(q, HEIGHTS, n, m=m, random_state=0),
            repeat,
        )
        print(
            f"{query.name:<28} {spread(times)}   "
            f"{draws / times.min() / 1e6:6.1f} M draws/s, "
            f"ratio to numpy {numpy.min() / times.min():.2f}"
        )


def full_against_additive(n, m, repeat):
    """The same mean on both paths at one large n."""
    print(f"\n## the mean on both paths, n = {n:.0e}, m = {m}")
    full = timings(
        lambda: sample_sensitivity(FULL_MEAN, HEIGHTS, n, m=m, random_state=0), repeat
    )
    fast = timings(
        lambda: sample_sensitivity(queries.mean, HEIGHTS, n, m=m, random_state=0),
        repeat,
    )
    print(f"{'full path (undeclared)':<28} {spread(full)}")
    print(
        f"{'additive path':<28} {spread(fast)}   "
        f"speed-up {full.min() / fast.min():.0f}x"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="smaller sizes, a few seconds"
    )
    args = parser.parse_args(argv)
    repeat = 5 if args.quick else 15
    print(
        f"# sensampler additive benchmarks on {os.cpu_count()} cores, "
        f"numpy {np.__version__}; times: min (median, max) of {repeat} runs"
    )
    additive_against_n(1305, [10, 10**6, 10**8], repeat)
    additive_against_n(10**6, [10, 10**6, 10**8], max(3, repeat // 3))
    full_path_rate(10**3 if args.quick else 10**4, 1305, max(3, repeat // 3))
    full_against_additive(10**5 if args.quick else 10**6, 113, 3)
    return 0


if __name__ == "__main__":
    sys.exit(main())
