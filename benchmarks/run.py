"""Throughput and scaling benchmarks of the sensitivity sampler.

Prints each figure next to its reference, measured side by side in one run,
with the ratio and the target. Not a test: it always exits 0 (``--check``
makes it exit 1 when a target is missed).

    python benchmarks/run.py            # all five figures, ~1-2 minutes
    python benchmarks/run.py --quick    # smaller sizes, a few seconds
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
from sensampler.distributions import (
    GaussianMixture,
    LinearRegressionPopulation,
    MultivariateNormal,
)
from sklearn.linear_model import LinearRegression

from sensampler import queries, sample_sensitivity

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])


def best_of(func, repeat=3):
    """Smallest wall time of ``repeat`` calls (the least disturbed run)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def algorithm_1_loop(query, dist, n, m, rng):
    """Reference: Algorithm 1 of Rubinstein & Aldà pair by pair, as published code does it
    (draw n-1, draw 1, draw 1, concatenate, query twice), on our vectorised models."""
    g = np.empty(m)
    for i in range(m):
        d = dist.sample(n - 1, rng)
        x, x2 = dist.sample(1, rng), dist.sample(1, rng)
        a = query(np.concatenate([d, x]))
        b = query(np.concatenate([d, x2]))
        g[i] = np.abs(np.asarray(a) - np.asarray(b)).sum()
    return g


def figure_mixture_draws(quick):
    size = 10**6 if quick else 10**7
    HEIGHTS.sample(1000, random_state=0)
    t = best_of(lambda: HEIGHTS.sample(size, random_state=0))
    return {
        "figure": f"0. draw {size:.0e} heights records",
        "sampler": f"{t:.3f} s",
        "reference": "1 s",
        "ratio": 1.0 / t,
        "target": "well under 1 s",
        "ok": t < 0.5,
    }


def figure_throughput(quick):
    n, m = (10**3 if quick else 10**4), 1305
    draws = m * (n + 1)
    t_numpy = best_of(lambda: HEIGHTS.sample(draws, random_state=0))
    t_sampler = best_of(
        lambda: sample_sensitivity(queries.mean, HEIGHTS, n, m=m, random_state=0)
    )
    ratio = t_numpy / t_sampler
    return {
        "figure": f"1. draws/s, mean query, n={n}, m={m}",
        "sampler": f"{draws / t_sampler / 1e6:.1f} M draws/s",
        "reference": f"{draws / t_numpy / 1e6:.1f} M draws/s (numpy alone)",
        "ratio": ratio,
        "target": ">= 0.5",
        "ok": ratio >= 0.5,
    }


def figure_vs_loop(n, quick):
    m = 1305 if not quick else 300
    rng = np.random.default_rng(0)
    t_loop = best_of(lambda: algorithm_1_loop(np.mean, HEIGHTS, n, m, rng), repeat=2)
    t_sampler = best_of(
        lambda: sample_sensitivity(queries.mean, HEIGHTS, n, m=m, random_state=0),
        repeat=5,
    )
    ratio = t_loop / t_sampler
    target = 2.0 if n >= 1000 else 50.0
    return {
        "figure": f"2. vs per-pair loop, n={n}, m={m}",
        "sampler": f"{t_sampler * 1e3:.2f} ms",
        "reference": f"{t_loop * 1e3:.1f} ms",
        "ratio": ratio,
        "target": f">= {target:g}",
        "ok": ratio >= target,
    }


def figure_jobs(quick, backend):
    """n_jobs = 2 against 1; backend None is the sampler's own choice (threads here)."""
    import joblib

    n, m = (10**3, 2000) if quick else (10**4, 10**4)

    def run(jobs):
        return sample_sensitivity(
            queries.mean, HEIGHTS, n, m=m, random_state=0, n_jobs=jobs
        )

    with joblib.parallel_config(backend=backend) if backend else _nothing():
        sample_sensitivity(
            queries.mean, HEIGHTS, 10, m=64, n_jobs=2, batch_size=8
        )  # warm
        t1 = best_of(lambda: run(1), repeat=2)
        t2 = best_of(lambda: run(2), repeat=2)
    ratio = t1 / t2
    return {
        "figure": f"3. n_jobs=2 vs 1 ({backend or 'default: threads'}), n={n}, m={m}",
        "sampler": f"{t2:.2f} s",
        "reference": f"{t1:.2f} s",
        "ratio": ratio,
        "target": ">= 1.7",
        "ok": ratio >= 1.7,
    }


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _peak_child(n, m):
    """Run one sampling in a fresh process; report its peak RSS and numpy's peak."""
    # VmHWM (peak resident set) starts afresh at exec, unlike ru_maxrss, which a
    # child inherits from the process that forked it.
    code = f"""
import json, tracemalloc
from sensampler.distributions import GaussianMixture
from sensampler import queries, sample_sensitivity
def hwm():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM"))
h = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
base = hwm()
tracemalloc.start()
sample_sensitivity(queries.mean, h, {n}, m={m}, random_state=0)
print(json.dumps(dict(rss=hwm(), base=base, traced=tracemalloc.get_traced_memory()[1])))
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return json.loads(out.stdout)


def figure_memory(quick):
    n, m = (10**5 if quick else 10**6), 1305
    stats = _peak_child(n, m)
    mib = stats["rss"] / 2**20
    naive = m * n * 8 * 2 / 2**20  # every pair's two databases held at once
    return {
        "figure": f"4. peak memory, n={n}, m={m}",
        "sampler": f"{mib:.0f} MiB RSS (arrays {stats['traced'] / 2**20:.0f} MiB, "
        f"imports {stats['base'] / 2**20:.0f} MiB)",
        "reference": f"{naive:.0f} MiB if all pairs were held",
        "ratio": naive / mib,
        "target": "<= 512 MiB",
        "ok": mib <= 512,
    }


def figure_sklearn(quick):
    n, m = 200, (300 if quick else 1305)
    pop = LinearRegressionPopulation(
        MultivariateNormal([0, 0, 0], np.eye(3)), [1.0, -2.0, 0.5], noise=1.0
    )
    query = queries.estimator(LinearRegression())
    dbs = pop.sample_batch(2 * m, n, random_state=0)

    def bare():
        for db in dbs:
            query(db)

    t_bare = best_of(bare, repeat=2)
    t_sampler = best_of(
        lambda: sample_sensitivity(query, pop, n, m=m, norm="l2", random_state=0),
        repeat=2,
    )
    overhead = t_sampler / t_bare - 1
    return {
        "figure": f"5. LinearRegression query, n={n}, m={m}",
        "sampler": f"{t_sampler:.2f} s",
        "reference": f"{t_bare:.2f} s (2m bare fits)",
        "ratio": t_sampler / t_bare,
        "target": "overhead <= 10%",
        "ok": overhead <= 0.10,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="small sizes, a few seconds"
    )
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if a target is missed"
    )
    parser.add_argument(
        "--json", action="store_true", help="one JSON object per figure"
    )
    args = parser.parse_args(argv)
    print(f"# sensampler benchmarks on {os.cpu_count()} cores, numpy {np.__version__}")
    rows = [
        figure_mixture_draws(args.quick),
        figure_throughput(args.quick),
        figure_vs_loop(1, args.quick),
        figure_vs_loop(10, args.quick),
        figure_vs_loop(1000, args.quick),
        figure_jobs(args.quick, None),
        figure_jobs(args.quick, "loky"),
        figure_memory(args.quick),
        figure_sklearn(args.quick),
    ]
    for row in rows:
        if args.json:
            print(json.dumps(row))
        else:
            mark = "ok  " if row["ok"] else "MISS"
            print(
                f"{mark} {row['figure']:<40} sampler {row['sampler']:<45} "
                f"reference {row['reference']:<32} ratio {row['ratio']:8.2f}  "
                f"target {row['target']}"
            )
    return 0 if (not args.check or all(r["ok"] for r in rows)) else 1


if __name__ == "__main__":
    sys.exit(main())
