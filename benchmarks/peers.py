"""Sampled sensitivities against the bounds on paper of diffprivlib and OpenDP.

Same data, same epsilon, same splits, same repetitions on both sides; each row
prints its guarantee. sensampler's is *random* DP: it holds with probability
at least 1 - gamma over neighbouring data drawn from the population model
fitted on public data. diffprivlib's and OpenDP's are plain DP, for every pair
of neighbouring data, at the price of bounds (clipping) chosen by the user.

* heights mean, n = 500, Laplace: the source documents' population
  GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5]); diffprivlib's
  ``tools.mean`` with bounds (140, 210) and (100, 250) cm; OpenDP's clamped
  mean with the same bounds. Mean absolute error over the repetitions.
* mean and median of heights (n = 500) and log-normal incomes (n = 1000,
  ``LogNormal(10.5, 0.8)``) at epsilon 0.1 and 1 (``--statistics`` runs only
  these, with the peers that import): sensampler's public release path
  (the mean by Laplace on a sampled sensitivity, random DP; the median by the
  exponential mechanism over the model's 0.001/0.999 quantiles, pure DP for
  every pair) and the median as it was released before (Laplace on a sampled
  sensitivity), against diffprivlib's ``tools.mean``/``tools.median`` and
  OpenDP's clamped mean and ``private_quantile`` with hand bounds. Every row
  names its method and its guarantee; mean and median absolute error.
* logistic regression on ``load_breast_cancer`` at epsilon = 1: sensampler's
  ``PrivateEstimator`` (Gaussian, delta = 1e-5, gamma = 0.05; C chosen on the
  public part with ``tune``) against ``diffprivlib.models.LogisticRegression``
  (``data_norm`` the largest public row norm). Test accuracy.
* ridge regression on ``load_diabetes`` over a range of epsilon:
  ``PrivateEstimator(Ridge)`` (alpha fixed at 10, and tuned on the public part)
  against ``diffprivlib.models.LinearRegression`` (bounds the public part's
  range). Test MSE.

Splits come from ``sensampler.experiments.load_split`` (public 40 %, then
train 70 % / test 30 % of the rest), seeds 0..S-1; each private model is
fitted once per split and released R times (its noise redrawn), each peer
fitted R times per split.

    pip install 'sensampler[peers]'       # diffprivlib, OpenDP
    python benchmarks/peers.py            # about ten minutes
    python benchmarks/peers.py --quick    # fewer splits and repetitions
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression, Ridge

from sensampler import queries, sample_sensitivity
from sensampler.distributions import GaussianMixture, LogNormal
from sensampler.experiments import load_split
from sensampler.mechanisms import LaplaceMechanism
from sensampler.models import PrivateEstimator
from sensampler.release import release_statistic

EXTRA = "pip install 'sensampler[peers]'"
DELTA, GAMMA = 1e-5, 0.05
HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
C_GRID = {"C": [0.003, 0.01, 0.03, 0.1, 0.3, 1.0]}
ALPHA_GRID = {"alpha": [3, 10, 30, 100, 300, 1000, 3000]}
#: PrivateEstimator variants: (key, tune on public?, fit on public + private?)
VARIANTS = (("fixed", False, False), ("tuned", True, False), ("augmented", True, True))


def _peers():
    """diffprivlib and OpenDP, or exit naming the extra."""
    try:
        import diffprivlib
        import opendp.prelude as dp
    except ImportError as exc:
        print(f"benchmarks/peers.py needs the peers extra ({EXTRA}): {exc}")
        sys.exit(0)
    except (AttributeError, TypeError) as exc:  # diffprivlib against a new sklearn
        print(f"diffprivlib does not import with this scikit-learn: {exc}")
        sys.exit(0)
    dp.enable_features("contrib")
    return diffprivlib, dp


def _row(task, method, guarantee, values, unit):
    values = np.asarray(values, dtype=float)
    se = values.std(ddof=1) / np.sqrt(values.size) if values.size > 1 else 0.0
    return {
        "task": task,
        "method": method,
        "guarantee": guarantee,
        unit: f"{values.mean():.4g} ± {se:.2g}",
        "_mean": float(values.mean()),
    }


# ------------------------------------------------------------------- heights
def heights(dpl, dp, epsilon, reps, seed=2017):
    n = 500
    rng = np.random.default_rng(seed)
    errors = {key: [] for key in ("sensampler", "dpl140", "dpl100", "odp140", "odp100")}
    space = (
        dp.vector_domain(dp.atom_domain(T=float, nan=False), size=n),
        dp.symmetric_distance(),
    )

    def opendp_mean(bounds):
        def make(scale):
            return (
                space
                >> dp.t.then_clamp(bounds)
                >> dp.t.then_mean()
                >> dp.m.then_laplace(scale)
            )

        # replace-one neighbours are at symmetric distance 2
        return make(dp.binary_search_param(make, d_in=2, d_out=epsilon))

    odp = {140: opendp_mean((140.0, 210.0)), 100: opendp_mean((100.0, 250.0))}
    for r in range(reps):
        data = HEIGHTS.sample(n, random_state=rng)
        truth = float(data.mean())  # the error is the privacy cost only
        estimate = sample_sensitivity(
            queries.mean, HEIGHTS, n, gamma=GAMMA, norm="l1", random_state=rng
        )
        release = LaplaceMechanism(estimate, epsilon).release(
            data.mean(), random_state=rng
        )
        errors["sensampler"].append(abs(release - truth))
        for low, high, key in ((140, 210, "dpl140"), (100, 250, "dpl100")):
            value = dpl.tools.mean(
                data, epsilon=epsilon, bounds=(low, high), random_state=seed + r
            )
            errors[key].append(abs(value - truth))
        for low, key in ((140, "odp140"), (100, "odp100")):
            errors[key].append(abs(odp[low](list(map(float, data))) - truth))
    task = f"heights mean, n={n}, eps={epsilon:g}"
    unit = "abs. error (cm)"
    rand = f"(eps={epsilon:g}, 0)-random DP, gamma={GAMMA}"
    return [
        _row(task, "sensampler, Laplace", rand, errors["sensampler"], unit),
        _row(task, "diffprivlib mean (140, 210)", f"{epsilon:g}-DP", errors["dpl140"], unit),
        _row(task, "diffprivlib mean (100, 250)", f"{epsilon:g}-DP", errors["dpl100"], unit),
        _row(task, "OpenDP clamped mean (140, 210)", f"{epsilon:g}-DP", errors["odp140"], unit),
        _row(task, "OpenDP clamped mean (100, 250)", f"{epsilon:g}-DP", errors["odp100"], unit),
    ]


# ----------------------------------------------------------------- statistics
#: Log-normal incomes: median exp(10.5) = 36 316, mean 50 000 (sigma = 0.8).
INCOMES = LogNormal(10.5, 0.8)
#: The statistics rows: population, n, and the peers' hand bounds.
STATISTICS = {
    "heights": (HEIGHTS, 500, (140.0, 210.0)),
    "incomes": (INCOMES, 1000, (0.0, 500_000.0)),
}
RANDOM_DP = "random DP: (eps={eps:g}, 0)-DP except w.p. gamma={gamma} (no worst case)"
PURE_DP = "pure DP: eps={eps:g}-DP for every pair (worst case)"


def _statistics_peers():
    """diffprivlib's and OpenDP's statistics, each ``None`` with the reason when
    it does not import (diffprivlib needs scikit-learn < 1.8)."""
    found, missing = {}, []
    try:
        import diffprivlib

        found["dpl"] = diffprivlib
    except (ImportError, AttributeError, TypeError) as exc:
        missing.append(f"diffprivlib does not import: {exc}")
    try:
        import opendp.prelude as dp

        dp.enable_features("contrib")
        found["odp"] = dp
    except ImportError as exc:
        missing.append(f"OpenDP does not import: {exc}")
    return found, missing


def _opendp_statistic(dp, n, bounds, epsilon, statistic):
    """OpenDP's clamped mean or private median (exponential mechanism on a grid
    of 7000 candidates over the bounds) at replace-one distance 2 (fixed n)."""
    space = (
        dp.vector_domain(dp.atom_domain(T=float, nan=False), size=n),
        dp.symmetric_distance(),
    )
    candidates = np.linspace(*bounds, 7000).tolist()

    def make(scale):
        clamped = space >> dp.t.then_clamp(bounds)
        if statistic == "mean":
            return clamped >> dp.t.then_mean() >> dp.m.then_laplace(scale)
        return clamped >> dp.m.then_private_quantile(
            dp.max_divergence(), candidates=candidates, alpha=0.5, scale=scale
        )

    return make(dp.binary_search_param(make, d_in=2, d_out=epsilon, bounds=(1e-9, 1e9)))


def statistics_rows(peers, epsilons, reps, seed=2017):
    """Mean and median of heights and incomes: sensampler's releases (public
    path, :func:`~sensampler.release.release_statistic`) beside the peers'.

    The median by the exponential mechanism over the population model's
    bounds is pure epsilon-DP (worst case); the mean by Laplace on a sampled
    sensitivity, and the median by Laplace on a sampled sensitivity (what
    sensampler did before), are random DP. Absolute error against the exact
    statistic of each data set.
    """
    rows = []
    for name, (population, n, bounds) in STATISTICS.items():
        for eps in epsilons:
            rows += _statistics_cell(peers, name, population, n, bounds, eps, reps, seed)
    return rows


def _statistics_cell(peers, name, population, n, bounds, eps, reps, seed):
    rng = np.random.default_rng(seed)
    dpl, dp = peers.get("dpl"), peers.get("odp")
    odp = {} if dp is None else {
        s: _opendp_statistic(dp, n, bounds, eps, s) for s in ("mean", "median")
    }
    errors = {}

    def add(key, value, truth):
        errors.setdefault(key, []).append(abs(float(value) - truth))

    for r in range(reps):
        data = population.sample(n, random_state=rng)
        truth = {"mean": float(data.mean()), "median": float(np.median(data))}
        for statistic in ("mean", "median"):
            release = release_statistic(
                data, statistic, population, epsilon=eps, gamma=GAMMA,
                random_state=rng,
            )
            add(("sensampler", statistic), release.value, truth[statistic])
        # the median as released before: Laplace on a sampled sensitivity
        estimate = sample_sensitivity(
            queries.median, population, n, gamma=GAMMA, norm="l1", random_state=rng
        )
        add(("laplace", "median"),
            LaplaceMechanism(estimate, eps).release(truth["median"], random_state=rng),
            truth["median"])
        if dpl is not None:
            for statistic in ("mean", "median"):
                value = getattr(dpl.tools, statistic)(
                    data, epsilon=eps, bounds=bounds, random_state=seed + r
                )
                add(("dpl", statistic), value, truth[statistic])
        for statistic, measurement in odp.items():
            add(("odp", statistic), measurement(data.tolist()), truth[statistic])
    rand = RANDOM_DP.format(eps=eps, gamma=GAMMA)
    pure = PURE_DP.format(eps=eps)
    hand = f"hand bounds {bounds}"
    labels = {
        ("sensampler", "mean"): ("sensampler mean, Laplace on sampled sensitivity", rand),
        ("sensampler", "median"): (
            "sensampler median, exponential mechanism over the model's "
            "0.001/0.999 quantiles", pure),
        ("laplace", "median"): (
            "sensampler median, Laplace on sampled sensitivity (before)", rand),
        ("dpl", "mean"): (f"diffprivlib mean, {hand}", pure),
        ("dpl", "median"): (f"diffprivlib median (exponential), {hand}", pure),
        ("odp", "mean"): (f"OpenDP clamped mean + Laplace, {hand}", pure),
        ("odp", "median"): (f"OpenDP private_quantile (7000 candidates), {hand}", pure),
    }
    unit = "abs. error"
    rows = []
    for key, values in errors.items():
        method, guarantee = labels[key]
        task = f"{name} {key[1]}, n={n}, eps={eps:g}"
        row = _row(task, method, guarantee, values, unit)
        row["median abs. error"] = f"{np.median(values):.4g}"
        rows.append(row)
    return sorted(rows, key=lambda row: row["task"])


def statistics_main(reps, epsilons=(0.1, 1.0)):
    """Print the statistics rows, with the peers that import."""
    peers, missing = _statistics_peers()
    for reason in missing:
        print(f"(left out) {reason}")
    warnings.simplefilter("ignore")  # diffprivlib's PrivacyLeakWarning
    start = time.perf_counter()
    _print(statistics_rows(peers, list(epsilons), reps))
    print(f"\n{reps} repetitions per cell; {time.perf_counter() - start:.0f} s")
    return 0


# --------------------------------------------------------------------- models
def _parts(split):
    return [(p[:, :-1], p[:, -1]) for p in (split.public, split.train, split.test)]


def _released_scores(model, public, train, test, score, reps, seed):
    """Scores of ``reps`` releases of a fitted PrivateEstimator's mechanism
    (same sensitivity, fresh noise), on the test part."""
    if model.augment:
        train = [np.concatenate(parts) for parts in zip(public, train)]
    exact = clone(model.estimator_).fit(*train)
    names = model.attributes_
    flat = np.concatenate([np.ravel(getattr(exact, a)) for a in names])
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(reps):
        noisy = model.mechanism_.release(flat, random_state=rng)
        start = 0
        for a in names:
            size = np.size(getattr(exact, a))
            part = noisy[start : start + size].reshape(np.shape(getattr(exact, a)))
            setattr(exact, a, part if np.ndim(getattr(exact, a)) else float(part))
            start += size
        out.append(score(exact, test))
    return out


def _accuracy(model, test):
    return float(np.mean(model.predict(test[0]) == test[1]))


def _mse(model, test):
    return float(np.mean((model.predict(test[0]) - test[1]) ** 2))


def breast_cancer(dpl, splits, reps, epsilon=1.0):
    task = f"breast cancer, logistic, eps={epsilon:g}"
    unit = "test accuracy"
    found = {k: [] for k in ("public", "exact", "fixed", "tuned", "augmented", "dpl")}
    best = []
    for seed in range(splits):
        public, train, test = _parts(load_split("load_breast_cancer", seed=seed))
        base = LogisticRegression(max_iter=1000)
        found["public"].append(_accuracy(clone(base).fit(*public), test))
        found["exact"].append(_accuracy(clone(base).fit(*train), test))
        for key, tune, augment in VARIANTS:
            model = PrivateEstimator(
                base, epsilon=epsilon, delta=DELTA, gamma=GAMMA, public=public,
                tune=C_GRID if tune else None, augment=augment, random_state=seed,
            ).fit(*train)
            if key == "tuned":
                best.append(model.best_params_["C"])
            found[key] += _released_scores(model, public, train, test, _accuracy, reps, seed)
        norm = float(np.linalg.norm(public[0], axis=1).max())
        for r in range(reps):
            peer = dpl.models.LogisticRegression(
                epsilon=epsilon, data_norm=norm, random_state=1000 * seed + r
            ).fit(*train)
            found["dpl"].append(_accuracy(peer, test))
    rand = f"(eps={epsilon:g}, delta={DELTA:g})-random DP, gamma={GAMMA}"
    return [
        _row(task, "public part only", "no privacy cost", found["public"], unit),
        _row(task, "non-private (train part)", "none", found["exact"], unit),
        _row(task, "sensampler, C=1", rand, found["fixed"], unit),
        _row(task, f"sensampler, C tuned on public (chose {sorted(set(best))})",
             rand, found["tuned"], unit),
        _row(task, "sensampler, C tuned, fitted on public + private",
             rand, found["augmented"], unit),
        _row(task, "diffprivlib LogisticRegression (data_norm public)",
             f"{epsilon:g}-DP", found["dpl"], unit),
    ]


def diabetes(dpl, splits, reps, epsilons):
    rows = []
    unit = "test MSE"
    cache = [_parts(load_split("load_diabetes", seed=s)) for s in range(splits)]
    base = Ridge(alpha=10.0, fit_intercept=False)
    public_only = [_mse(clone(base).fit(*pub), te) for pub, _, te in cache]
    exact = [_mse(clone(base).fit(*tr), te) for _, tr, te in cache]
    rows.append(_row("diabetes, ridge", "public part only", "no privacy cost",
                     public_only, unit))
    rows.append(_row("diabetes, ridge", "non-private (train part)", "none", exact, unit))
    for epsilon in epsilons:
        task = f"diabetes, ridge, eps={epsilon:g}"
        found = {k: [] for k in ("fixed", "tuned", "augmented", "dpl")}
        best = []
        for seed, (public, train, test) in enumerate(cache):
            for key, tune, augment in VARIANTS:
                model = PrivateEstimator(
                    base, epsilon=epsilon, delta=DELTA, gamma=GAMMA, public=public,
                    tune=ALPHA_GRID if tune else None, augment=augment, random_state=seed,
                ).fit(*train)
                if key == "tuned":
                    best.append(model.best_params_["alpha"])
                found[key] += _released_scores(model, public, train, test, _mse, reps, seed)
            bounds_X = (public[0].min(axis=0), public[0].max(axis=0))
            bounds_y = (float(public[1].min()), float(public[1].max()))
            for r in range(reps):
                peer = dpl.models.LinearRegression(
                    epsilon=epsilon, bounds_X=bounds_X, bounds_y=bounds_y,
                    fit_intercept=False, random_state=1000 * seed + r,
                ).fit(*train)
                found["dpl"].append(_mse(peer, test))
        rand = f"(eps={epsilon:g}, delta={DELTA:g})-random DP, gamma={GAMMA}"
        rows += [
            _row(task, "sensampler, alpha=10", rand, found["fixed"], unit),
            _row(task, f"sensampler, alpha tuned on public (chose {sorted(set(best))})",
                 rand, found["tuned"], unit),
            _row(task, "sensampler, alpha tuned, fitted on public + private",
                 rand, found["augmented"], unit),
            _row(task, "diffprivlib LinearRegression (bounds public)",
                 f"{epsilon:g}-DP", found["dpl"], unit),
        ]
    return rows


def _print(rows):
    import pandas as pd

    table = pd.DataFrame(rows).drop(columns="_mean").fillna("")
    print(table.to_markdown(index=False) if _has_tabulate() else table.to_string())


def _has_tabulate():
    try:
        import tabulate  # noqa: F401
    except ImportError:
        return False
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer splits and reps")
    parser.add_argument(
        "--statistics", action="store_true",
        help="only the mean and median rows (heights, incomes), with the peers that import",
    )
    args = parser.parse_args(argv)
    if args.statistics:
        return statistics_main(50 if args.quick else 200)
    dpl, dp = _peers()
    warnings.simplefilter("ignore")  # diffprivlib's PrivacyLeakWarning on clipping
    splits, reps = (2, 10) if args.quick else (5, 20)
    start = time.perf_counter()
    rows = heights(dpl, dp, 1.0, 50 if args.quick else 200)
    rows += heights(dpl, dp, 0.1, 50 if args.quick else 200)
    rows += statistics_rows({"dpl": dpl, "odp": dp}, [0.1, 1.0], 50 if args.quick else 200)
    rows += breast_cancer(dpl, splits, reps)
    rows += diabetes(dpl, splits, reps, [1.0, 2.0, 3.0, 5.0, 10.0])
    _print(rows)
    print(f"\n{splits} splits x {reps} releases per model; "
          f"{time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
