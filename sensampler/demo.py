"""The heights example of the source documents, end to end, through the public API."""

from __future__ import annotations

import sys

from distributions import GaussianMixture

from . import queries
from .plan import sampling_plan
from .sampler import sample_sensitivity

__all__ = ["HEIGHTS", "run_demo"]

#: Adult heights in cm: men N(178, 7^2), women N(162, 6.5^2), in equal numbers.
HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])


def _table(rows, out):
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    for j, row in enumerate(rows):
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip(), file=out)
        if j == 0:
            print("  ".join("-" * w for w in widths), file=out)


def run_demo(out=sys.stdout, random_state=2017, progress=False, gamma=0.05):
    """Print the population, the plans and the sampled sensitivities of the example."""
    print(f"Population: {HEIGHTS!r}", file=out)
    print(f"  mean {HEIGHTS.mean:.2f} cm, std {HEIGHTS.var ** 0.5:.2f} cm, exact "
          f"E|X - X'| = {HEIGHTS.expected_abs_difference():.2f} cm\n", file=out)

    rows = [("bound", "m", "k", "gamma certified", "rho")]
    for bound in ("dkw", "exact"):
        p = sampling_plan(gamma=gamma, bound=bound)
        rows.append((bound, p.m, p.k, f"{p.gamma:.4f}", f"{p.rho:.4f}"))
    print(f"Sampling plans for gamma = {gamma}:", file=out)
    _table(rows, out)

    rows = [("query", "n", "bound", "m", "sensitivity", "mean", "gamma")]
    for query, n in ((queries.identity, 1), (queries.mean, 500)):
        for bound in ("dkw", "exact"):
            est = sample_sensitivity(query, HEIGHTS, n, gamma=gamma, bound=bound,
                                     random_state=random_state)
            rows.append((query.name, n, bound, est.m, f"{est.sensitivity:.4g}",
                         f"{est.mean:.4g}", f"{est.gamma:.4f}"))
    print("\nSampled L1 sensitivities (replace-one neighbours):", file=out)
    _table(rows, out)
    print("\nOnly 'sensitivity' carries the random-DP guarantee (with probability "
          f">= 1 - gamma); 'mean' is its typical value.", file=out)
