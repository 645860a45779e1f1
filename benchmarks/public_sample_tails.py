"""Does a public sample's stated confidence hold for heavy tails at the least rows?

:class:`~sensampler.distributions.PublicSample` states gamma for the public
sample at hand at a confidence: the posterior runs' (0.908 by default) less the
chance that the N rows' range leaves more than gamma of the population outside
it (``range_failure``, Wilks 1941; 0.402 at 40 rows). This script draws S public
samples of N rows (40 by default: the least accepted at the plan's gamma of
0.0498) from log-normal(0, 1), Pareto(alpha = 3), Student t(3), N(0, 1) and the
heights mixture, samples the sensitivity of the mean, the variance and the
median (n = 50, gamma = 0.05, the default plan) from each, and measures each
release's true exceedance by Monte Carlo over fresh pairs of the true law
(``audit_estimate``). It prints the share of samples above gamma with its 95 %
Clopper-Pearson interval, next to 1 - the stated confidence and to 1 - the
posterior's confidence alone (what was stated before). Not a test: it always
exits 0.

    python benchmarks/public_sample_tails.py               # about 25 minutes
    python benchmarks/public_sample_tails.py --quick       # about 4 minutes
    python benchmarks/public_sample_tails.py --rows 100
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

from sensampler import queries, sample_sensitivity
from sensampler.audit import audit_estimate
from sensampler.distributions import (
    GaussianMixture,
    LogNormal,
    Normal,
    PublicSample,
    ScipyDistribution,
)

GAMMA = 0.05
N_RECORDS = 50


def exceedances(query, truth, rows, samples, pairs, seed):
    """True exceedance of the sensitivity sampled from each public sample, and
    the last release's plan."""
    out = []
    for child in np.random.SeedSequence(seed).spawn(samples):
        data_seed, run_seed, audit_seed = child.spawn(3)
        public = PublicSample(truth.sample(rows, random_state=data_seed))
        estimate = sample_sensitivity(
            query, public, N_RECORDS, gamma=GAMMA, random_state=run_seed
        )
        audit = audit_estimate(estimate, truth, pairs=pairs, random_state=audit_seed)
        out.append(audit.rate)
    return np.array(out), public, estimate.plan


def interval(count, total):
    """Two-sided 95 % Clopper-Pearson interval of a binomial share."""
    low = stats.beta.ppf(0.025, count, total - count + 1) if count else 0.0
    high = stats.beta.ppf(0.975, count + 1, total - count) if count < total else 1.0
    return low, high


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rows", type=int, default=40)
    args = parser.parse_args()
    samples, pairs = (60, 5000) if args.quick else (300, 10_000)
    laws = [
        ("log-normal(0, 1)", LogNormal(0.0, 1.0)),
        ("Pareto(3)", ScipyDistribution(stats.pareto(3.0))),
        ("t(3)", ScipyDistribution(stats.t(3))),
        ("N(0, 1)", Normal(0.0, 1.0)),
        ("heights", GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])),
    ]
    named = [("mean", queries.mean), ("variance", queries.variance()),
             ("median", queries.median)]
    print(f"gamma={GAMMA}, n={N_RECORDS}, N={args.rows} public rows; {samples} public "
          f"samples per row; true exceedance by Monte Carlo over {pairs} fresh pairs")
    for law_name, truth in laws:
        for query_name, query in named:
            start = time.perf_counter()
            rates, public, plan = exceedances(query, truth, args.rows, samples, pairs, 37)
            above = int(np.sum(rates > GAMMA))
            low, high = interval(above, samples)
            stated = 1 - public.stated_confidence(plan.rho, plan.gamma)
            before = public.alpha(public.runs(plan.rho), plan.rho)
            verdict = "holds" if above / samples <= stated else "FAILS"
            print(f"{law_name:16s} {query_name:8s} above gamma {above:3d}/{samples} = "
                  f"{above / samples:.3f} [{low:.3f}, {high:.3f}]  1 - stated "
                  f"{stated:.3f} ({verdict}; posterior alone {before:.3f})  "
                  f"mean exceedance {rates.mean():.4f}  "
                  f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
