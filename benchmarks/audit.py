"""An audit of 10^5 fresh pairs costs what sampling 10^5 pairs costs.

:func:`sensampler.audit.audit_estimate` draws its fresh pairs through the
sampler itself, so its time should be the sampler's on the same work plus a
comparison and a Clopper-Pearson interval. Measured for an additive query
(``queries.mean``: two records per pair, no database) and a non-additive one
(``queries.median``: whole databases of n records), at n = 100 on the heights
mixture. Each figure is the minimum of several runs (the least disturbed by
other work on the machine), with the median and maximum as its spread; the two
calls alternate within each round. Not a test: it always exits 0.

    python benchmarks/audit.py            # ~1 minute
    python benchmarks/audit.py --quick    # 10^4 pairs, a few seconds
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _timing import HEIGHTS

from sensampler import queries, sample_sensitivity
from sensampler.audit import audit_estimate


def _spread(times):
    low, mid, high = np.min(times), np.median(times), np.max(times)
    return f"{low * 1e3:9.1f} ms  (median {mid * 1e3:.1f}, max {high * 1e3:.1f})"


def compare(query, n, pairs, repeat, n_jobs):
    """Minimum times of sampling ``pairs`` pairs and of auditing ``pairs`` pairs."""
    estimate = sample_sensitivity(query, HEIGHTS, n, gamma=0.05, random_state=0)
    calls = {
        "sample_sensitivity": lambda: sample_sensitivity(
            query, HEIGHTS, n, m=pairs, random_state=1, n_jobs=n_jobs
        ),
        "audit_estimate": lambda: audit_estimate(
            estimate, pairs=pairs, random_state=1, n_jobs=n_jobs
        ),
    }
    times = {name: [] for name in calls}
    for call in calls.values():
        call()  # warm-up
    for r in range(repeat):
        for name in list(calls)[:: 1 if r % 2 == 0 else -1]:
            start = time.perf_counter()
            calls[name]()
            times[name].append(time.perf_counter() - start)
    print(f"\n## {query.name}, n = {n}, {pairs} pairs, n_jobs = {n_jobs}")
    for name, row in times.items():
        print(f"{name:<20} {_spread(row)}")
    audit, sample = times["audit_estimate"], times["sample_sensitivity"]
    ratio = min(audit) / min(sample)
    print(
        f"{'ratio audit/sample':<20} {ratio:9.3f}  "
        f"(of the medians {np.median(audit) / np.median(sample):.3f})"
    )
    return ratio


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^4 pairs, 3 runs")
    args = parser.parse_args(argv)
    pairs, repeat = (10_000, 3) if args.quick else (100_000, 5)
    for query in (queries.mean, queries.median):
        for n_jobs in (1, 2):
            compare(query, 100, pairs, repeat, n_jobs)


if __name__ == "__main__":
    main()
