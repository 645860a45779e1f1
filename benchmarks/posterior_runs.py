"""How tight is a public sample's "largest of B posterior runs"? Released sensitivities
of other ways to combine the runs, for PrivateEstimator's diabetes ridge fits.

:class:`~sensampler.distributions.PublicSample` runs the sampling plan (m = 113
pairs, the largest released, gamma 0.05) on B = 10 populations drawn from the
Bayesian-bootstrap posterior of the public rows and releases the largest: with
posterior probability at least 1 - alpha a fresh pair exceeds it with probability
at most beta. This script draws P posterior populations of the public rows of
``load_split("load_diabetes", public=0.1, seed=S)`` and M pairs' sensitivities
from each (L2 norm; the private fit ``Ridge(alpha=1)`` and fits shrunk toward the public
coefficients with alpha 10 and 100, as ``PrivateEstimator`` samples them), then
replays each scheme many times on that pool (runs drawn from the P populations,
a run's pairs from its population's M) and prints the mean and standard
deviation of the released sensitivity and its ratio to the current scheme.
Every scheme keeps confidence >= 0.9 by the rank law
alpha = (1/(B+1)) sum_r P[Bin(r, 1 - rho') < k_B] of the k_B-th largest of B
runs, each releasing its k-th smallest of m pairs (rho' = P[Bin(m, 1-beta) >= k]).
The last rows use beta = gamma (the run's rho counted in alpha only), which
would change the statement's gamma/rho split: measured, not built.

    python benchmarks/posterior_runs.py            # about five minutes
    python benchmarks/posterior_runs.py --quick    # about a minute
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import stats
from sklearn.linear_model import Ridge

from sensampler import sample_sensitivity, sampling_plan
from sensampler._lib.threads import one_thread
from sensampler.app.experiments import load_split
from sensampler.distributions import PublicSample
from sensampler.models._fits import ShrunkRidge
from sensampler.models._sampling import Concatenated as _Concatenated

CONFIDENCE = 0.9


def alpha(runs, top, failure):
    """P[T(Q_0) above the top-th largest of ``runs`` runs], each failing w.p. ``failure``."""
    r = np.arange(runs + 1)
    return float(np.mean(stats.binom.cdf(top - 1, r, 1 - failure)))


def run_failure(m, k, beta):
    return float(stats.binom.sf(k - 1, m, 1 - beta))


def schemes(plan):
    """(label, B, m, k, top) with confidence >= CONFIDENCE."""
    out = [("now: largest of 10 runs, each the largest of 113", 10, 113, 113, 1)]
    for label, B, m, beta in (
        ("10 runs, each the lowest rank allowed of 113", 10, 113, plan.beta),
        ("20 runs (2x work), each the lowest rank allowed of 113", 20, 113, plan.beta),
        ("10 runs of 226 pairs (2x work), lowest rank", 10, 226, plan.beta),
        ("beta = gamma: 20 runs of 56 (same work), lowest rank", 20, 56, plan.gamma),
        ("beta = gamma: 20 runs of 113 (2x work), lowest rank", 20, 113, plan.gamma),
    ):
        k = m
        while k > 1 and alpha(B, 1, run_failure(m, k - 1, beta)) <= 1 - CONFIDENCE:
            k -= 1
        out.append((f"{label} (k={k})", B, m, k, 1))
    for B in (20, 40):  # the top-th largest of more runs, each run the plan's own
        top = max(t for t in range(1, B + 1) if alpha(B, t, plan.rho) <= 1 - CONFIDENCE)
        out.append((f"order {top} from the top of {B} runs ({B // 10}x work), each of 113",
                    B, 113, 113, top))
    return out


def replay(pool, B, m, k, top, reps, rng):
    P, M = pool.shape
    values = np.empty(reps)
    for t in range(reps):
        runs = [np.sort(pool[p, rng.choice(M, size=m, replace=False)])[k - 1]
                for p in rng.choice(P, size=B)]
        values[t] = np.sort(runs)[::-1][top - 1]
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seed", type=int, default=0, help="the split's seed")
    args = parser.parse_args()
    P, M, reps = (40, 230, 100) if args.quick else (100, 300, 300)
    split = load_split("load_diabetes", public=0.1, seed=args.seed)
    public, n = split.public, len(split.train)
    coef = Ridge(alpha=1.0).fit(public[:, :-1], public[:, -1]).coef_
    fits = {"Ridge(alpha=1)": Ridge(alpha=1.0)}
    fits.update({f"shrunk, alpha={a}": ShrunkRidge(alpha=a, coef=coef) for a in (10, 100)})
    plan = sampling_plan(gamma=0.05)
    rng = np.random.default_rng(2026)
    print(f"diabetes, 10 % public ({len(public)} rows), n={n}; {P} posterior "
          f"populations x {M} pairs; {reps} replays per scheme")
    with one_thread():
        for name, fit in fits.items():
            query = _Concatenated(fit, ("coef_", "intercept_"), np.empty((0, public.shape[1])))
            populations = PublicSample(public).posterior(P, random_state=args.seed)
            pool = np.array([
                sample_sensitivity(query, pop, n, m=M, k=M, norm="l2", random_state=i).samples
                for i, pop in enumerate(populations)
            ])
            rows = [(label, replay(pool, B, m, k, top, reps, rng))
                    for label, B, m, k, top in schemes(plan)]
            now = rows[0][1].mean()
            print(f"\n{name}")
            for label, v in rows:
                print(f"  {v.mean():7.3f} ± {v.std():.3f}  ({v.mean() / now:.2f}x)  {label}")


if __name__ == "__main__":
    main()
