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
  exponential mechanism over the model's 0.0005/0.9995 quantiles, its scale
  calibrated at random DP on the model: eps-DP except with probability gamma
  over pairs drawn from the model, and its worst case 2 t du-DP for every
  pair, printed), the same release capped at a worst case of eps (the plain
  exponential mechanism, pure DP) and the median as it was released before
  (Laplace on a sampled sensitivity), against diffprivlib's ``tools.mean``/``tools.median`` and
  OpenDP's clamped mean and ``private_quantile`` with hand bounds. Every row
  names its method and its guarantee; mean and median absolute error.
* incomes mean without public data (n = 1000, total epsilon 1, in
  ``--statistics``): sensampler's ``bounds="private:EPS0"`` + clipped mean at
  1 - EPS0 (plain DP) against the peers' pipeline, a private 0.99-quantile
  pre-pass then their clipped mean with the same split, **re-implemented**
  from diffprivlib's and OpenDP's sources (labelled so; lower bound 0, the
  quantile over (0, 10^7) or 2000 log-spaced candidates from 1 to 10^7), and
  sensampler's release with the public population at epsilon 1, on the same
  data sets.
* private models (``--models`` runs them alone, without the peers extra):
  ``load_breast_cancer`` (``LogisticRegression``) and ``load_diabetes``
  (``Ridge``) with 10 % and 40 % public rows, at epsilon in 0.1, 0.3, 1, 3, 10:
  the public-only and noise-free models, ``PrivateEstimator`` with its
  defaults (which chooses among the public model, the private fit and a fit
  shrunk toward the public model on public data; ``selected_`` is counted per
  row), its ``fit_method="statistics"`` release, AdaSSP (Wang 2018,
  Algorithm 2) with its clipping bound tuned on the same public data, and
  objective perturbation (diffprivlib's algorithm) tuned likewise. Test
  accuracy or MSE, and the fraction of the private data's value recovered,
  (score - public only) / (ceiling - public only), the ceiling the better
  noise-free model (private rows alone, or public and private rows).

Heights: each mechanism released R times. Models: splits from
``sensampler.app.experiments.load_split`` (public share, then train 70 % / test
30 % of the rest), seeds 0..S-1; each private model fitted once per split and
epsilon (its noise is fresh OS entropy by design), so ± is over splits and
noise together. diffprivlib's models are not run: diffprivlib 0.6.6 does not
import with scikit-learn 1.9.1 (its trees and its LogisticRegression use
names scikit-learn removed); the algorithm of its LogisticRegression,
objective perturbation (Chaudhuri, Monteleoni & Sarwate 2011, Alg. 2), is
re-implemented here, labelled so, with C and the clipping norm tuned on the
same public data as ours.

    pip install 'sensampler[peers]'       # diffprivlib, OpenDP
    python benchmarks/peers.py            # about ten minutes
    python benchmarks/peers.py --models   # the model rows only (a few CPU minutes)
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
from sensampler._lib.threads import one_thread
from sensampler.app.experiments import load_split
from sensampler.app.release import release_statistic
from sensampler.distributions import GaussianMixture, LogNormal
from sensampler.mechanisms import LaplaceMechanism
from sensampler.models import PrivateEstimator
from sensampler.quantile_calibration import plain_scale

EXTRA = "pip install 'sensampler[peers]'"
DELTA, GAMMA = 1e-5, 0.05
HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])


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
#: A release with bounds from the model: random DP, and a worst case capped at 10 eps.
RANDOM_DP_FLOORED = (
    "random DP: (eps={eps:g}, 0)-DP except w.p. gamma={gamma}; worst case "
    "<= {cap:g}-DP for every pair (the default floor, 10 eps)"
)
PURE_DP = "pure DP: eps={eps:g}-DP for every pair (worst case)"
#: The exponential median calibrated at random DP: its worst case is its own.
RANDOM_DP_CALIBRATED = (
    "random DP: (eps={eps:g}, 0)-DP except w.p. gamma={gamma}; worst case "
    "{wc:.4g}-DP for every pair (weight scale {ratio:.3g} x the plain one; "
    "medians over the releases)"
)
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
    path, :func:`~sensampler.app.release.release_statistic`) beside the peers'.

    The release's median: the exponential mechanism over the population
    model's bounds with its scale calibrated at random DP (a worst case of its
    own), and capped at a worst case of epsilon (the plain mechanism, pure
    epsilon-DP); the mean by Laplace on a sampled sensitivity, and the median
    by Laplace on a sampled sensitivity (what sensampler did before), are
    random DP. Absolute error against the exact statistic of each data set.
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
    worst, ratios = [], []

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
        # the median's scale is calibrated at random DP: its worst case, its ratio
        worst.append(release.statement.worst_case.epsilon)
        ratios.append(release.calibration.scale / plain_scale(eps, 1.0))
        # the plain epsilon-DP median: a worst-case cap at epsilon
        plain = release_statistic(data, "median", population, epsilon=eps,
                                  gamma=GAMMA, random_state=rng, worst_case_epsilon=eps)
        add(("plain", "median"), plain.value, truth["median"])
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
        ("sensampler", "mean"): (
            "sensampler mean, Laplace on sampled sensitivity, model bounds",
            RANDOM_DP_FLOORED.format(eps=eps, gamma=GAMMA, cap=10 * eps)),
        ("sensampler", "median"): (
            "sensampler median (the release's default): exponential mechanism over "
            "the model's 0.0005/0.9995 quantiles, scale calibrated at random DP",
            RANDOM_DP_CALIBRATED.format(
                eps=eps, gamma=GAMMA, wc=float(np.median(worst)),
                ratio=float(np.median(ratios)))),
        ("plain", "median"): (
            "sensampler median, worst_case_epsilon=eps: the plain exponential "
            "mechanism over the same bounds", pure),
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


# ------------------------------------------------- without public data: bounds
#: What a peer's pipeline knows without public data: incomes are >= 0, and a
#: wide a priori range for its quantile pre-pass (diffprivlib's bounds, OpenDP's
#: candidates: 2000 log-spaced points from 1 to 10^7).
PEER_RANGE = (0.0, 1e7)
PEER_CANDIDATES = np.concatenate([[0.0], np.logspace(0, 7, 1999)])
#: The upper clipping quantile of the peers' pre-pass, and the total epsilon.
PEER_LEVEL, TOTAL_EPSILON = 0.99, 1.0


def _dpl_quantile(data, q, epsilon, bounds, rng):
    """diffprivlib 0.6 ``tools.quantile`` **re-implemented** from its source:
    Smith's intervals between the sorted clipped records and the bounds,
    weights width * exp(eps u / 2), u = -|i - q k| (sensitivity 1), uniform
    within the chosen interval."""
    k = data.size
    points = np.sort(np.append(np.clip(data, *bounds), bounds))
    utility = -np.abs(np.arange(k + 1) - q * k)
    weights = np.exp(epsilon * (utility - utility.max()) / 2.0) * np.diff(points)
    i = rng.choice(k + 1, p=weights / weights.sum())
    return float(points[i] + rng.random() * (points[i + 1] - points[i]))


def _dpl_mean(data, epsilon, bounds, rng):
    """diffprivlib 0.6 ``tools.mean`` **re-implemented**: the clipped mean plus
    Laplace noise of sensitivity (upper - lower) / n, truncated to the bounds
    (``LaplaceTruncated``)."""
    low, high = bounds
    value = np.clip(data, low, high).mean()
    value += rng.laplace(0.0, (high - low) / data.size / epsilon)
    return float(np.clip(value, low, high))


def _odp_quantile(data, q, epsilon, candidates, rng):
    """OpenDP ``then_private_quantile`` **re-implemented** at replace-one (symmetric
    distance 2): score |#(x < c) - q (n - #(x = c))|, stability 2 max(q, 1 - q)
    per unit of distance in the InfDifferenceDistance, Gumbel noisy max at
    scale d_out / eps."""
    x = np.sort(data)
    lt = np.searchsorted(x, candidates, side="left")
    eq = np.searchsorted(x, candidates, side="right") - lt
    score = np.abs(lt - q * (x.size - eq))
    scale = 2 * 2 * max(q, 1 - q) / epsilon
    return float(candidates[np.argmax(-score / scale + rng.gumbel(size=score.size))])


def _odp_mean(data, epsilon, bounds, rng):
    """OpenDP's clamped sized mean + Laplace **re-implemented**: sensitivity
    (upper - lower) / n for one replacement."""
    low, high = bounds
    return float(np.clip(data, low, high).mean()
                 + rng.laplace(0.0, (high - low) / data.size / epsilon))


def private_bounds_rows(reps, seed=2017, splits=(0.25, 0.3, 0.4)):
    """Incomes mean, n = 1000, total epsilon 1, no public data: sensampler's
    ``bounds="private:EPS0"`` + clipped mean against the peers' pipeline (a
    private quantile pre-pass for the upper bound, then their clipped mean,
    the same total epsilon), and the same release with a public population.
    Each split EPS0 + (1 - EPS0) is run on the same data sets; absolute error
    against each data set's mean. Splits below
    ``sensampler.bounds.smallest_private_bounds_epsilon(1000)`` (0.233) are
    refused by the release before anything is spent."""
    population, n, _ = STATISTICS["incomes"]
    rng = np.random.default_rng(seed)
    errors = {}

    def add(key, value, truth):
        errors.setdefault(key, []).append(abs(float(value) - truth))

    for _ in range(reps):
        data = population.sample(n, random_state=rng)
        truth = float(data.mean())
        public = release_statistic(data, "mean", population, epsilon=TOTAL_EPSILON,
                                   gamma=GAMMA, random_state=rng)
        add(("public",), public.value, truth)
        for eps0 in splits:
            eps1 = TOTAL_EPSILON - eps0
            ours = release_statistic(data, "mean", None, epsilon=eps1,
                                     bounds=f"private:{eps0:g}")
            add(("ours", eps0), ours.value, truth)
            upper = _dpl_quantile(data, PEER_LEVEL, eps0, PEER_RANGE, rng)
            add(("dpl", eps0), _dpl_mean(data, eps1, (0.0, upper), rng), truth)
            upper = _odp_quantile(data, PEER_LEVEL, eps0, PEER_CANDIDATES, rng)
            add(("odp", eps0), _odp_mean(data, eps1, (0.0, upper), rng), truth)
    task = f"incomes mean, n={n}, total eps={TOTAL_EPSILON:g}, no public data"
    pure = PURE_DP.format(eps=TOTAL_EPSILON)
    rows = []
    for key, values in errors.items():
        if key[0] == "public":
            method = ("sensampler mean with a public population (bounds from the "
                      "model), for reference")
            guarantee = RANDOM_DP_FLOORED.format(
                eps=TOTAL_EPSILON, gamma=GAMMA, cap=10 * TOTAL_EPSILON)
        else:
            eps0 = key[1]
            method = {
                "ours": f"sensampler bounds=private:{eps0:g} + clipped mean "
                        f"(eps {1 - eps0:g})",
                "dpl": f"diffprivlib quantile {PEER_LEVEL:g} over {PEER_RANGE} "
                       f"(eps {eps0:g}) + mean (eps {1 - eps0:g}), re-implemented",
                "odp": f"OpenDP private_quantile {PEER_LEVEL:g}, 2000 log-spaced "
                       f"candidates (eps {eps0:g}) + clamped mean, re-implemented",
            }[key[0]]
            guarantee = pure
        row = _row(task, method, guarantee, values, "abs. error")
        row["median abs. error"] = f"{np.median(values):.4g}"
        rows.append(row)
    return rows


def statistics_main(reps, epsilons=(0.1, 1.0)):
    """Print the statistics rows, with the peers that import."""
    peers, missing = _statistics_peers()
    for reason in missing:
        print(f"(left out) {reason}")
    warnings.simplefilter("ignore")  # diffprivlib's PrivacyLeakWarning
    start = time.perf_counter()
    _print(statistics_rows(peers, list(epsilons), reps) + private_bounds_rows(reps))
    print(f"\n{reps} repetitions per cell; {time.perf_counter() - start:.0f} s")
    return 0


# --------------------------------------------------------------------- models
MODEL_EPSILONS = (0.1, 0.3, 1.0, 3.0, 10.0)
PUBLIC_SHARES = (0.1, 0.4)
#: AdaSSP's clipping bound on row norms: this quantile of the public rows' norms,
#: chosen on public data among these (1.0: the largest public norm).
CLIP_QUANTILES = (1.0, 0.99, 0.95, 0.9, 0.75)


def _parts(split):
    return [(p[:, :-1], p[:, -1]) for p in (split.public, split.train, split.test)]


def _accuracy(model, test):
    return float(np.mean(model.predict(test[0]) == test[1]))


def _mse(model, test):
    return float(np.mean((model.predict(test[0]) - test[1]) ** 2))


def adassp(X, y, epsilon, delta, bound_x, bound_y, rng, rho=0.05):
    r"""AdaSSP, Algorithm 2 of Wang (2018) [UAI; arXiv:1803.02596]: (epsilon,
    delta)-DP for rows with ``||x|| <= bound_x`` and ``|y| <= bound_y`` (the rows
    are clipped to them here), the budget split in three equal parts.

    1. :math:`\tilde\lambda_{min} = \max(\lambda_{min}(X^TX) + \frac{\sqrt{\log(6/\delta)}}
       {\epsilon/3}\lVert\mathcal X\rVert^2 Z - \frac{\log(6/\delta)}{\epsilon/3}
       \lVert\mathcal X\rVert^2, 0)`, Z ~ N(0, 1);
    2. :math:`\lambda = \max(0, \frac{\sqrt{d\log(6/\delta)\log(2d^2/\rho)}
       \lVert\mathcal X\rVert^2}{\epsilon/3} - \tilde\lambda_{min})`;
    3. :math:`\widehat{X^TX} = X^TX + \frac{\sqrt{\log(6/\delta)}}{\epsilon/3}
       \lVert\mathcal X\rVert^2 Z`, Z symmetric with N(0, 1) entries;
    4. :math:`\widehat{X^Ty} = X^Ty + \frac{\sqrt{\log(6/\delta)}}{\epsilon/3}
       \lVert\mathcal X\rVert\lVert\mathcal Y\rVert z`, z ~ N(0, I_d);
    5. :math:`\hat\theta = (\widehat{X^TX} + \lambda I)^{-1}\widehat{X^Ty}`.
    """
    norms = np.linalg.norm(X, axis=1)
    X = X * np.minimum(1.0, bound_x / np.maximum(norms, 1e-300))[:, None]
    y = np.clip(y, -bound_y, bound_y)
    d = X.shape[1]
    e3 = epsilon / 3.0
    log6 = np.log(6.0 / delta)
    xx = X.T @ X
    lam_min = max(
        np.linalg.eigvalsh(xx)[0]
        + np.sqrt(log6) / e3 * bound_x**2 * rng.standard_normal()
        - log6 / e3 * bound_x**2,
        0.0,
    )
    lam = max(0.0, np.sqrt(d * log6 * np.log(2 * d * d / rho)) * bound_x**2 / e3 - lam_min)
    z = rng.standard_normal((d, d))
    z = np.triu(z) + np.triu(z, 1).T
    xx_hat = xx + np.sqrt(log6) / e3 * bound_x**2 * z
    xy_hat = X.T @ y + np.sqrt(log6) / e3 * bound_x * bound_y * rng.standard_normal(d)
    return np.linalg.solve(xx_hat + lam * np.eye(d), xy_hat)


class _Linear:
    def __init__(self, coef):
        self.coef_ = coef

    def predict(self, X):
        return X @ self.coef_


#: Objective perturbation's grid, searched on public data: C, and the
#: quantile of the public rows' feature norms the rows are clipped to.
OP_CS = (0.01, 0.03, 0.1, 0.3, 1.0)
OP_QUANTILES = (1.0, 0.9, 0.5)


def objective_perturbation(X, y, epsilon, C, data_norm, rng):
    r"""Objective perturbation, Algorithm 2 of Chaudhuri, Monteleoni & Sarwate
    (JMLR 12, 2011), for L2-penalised logistic regression: epsilon-DP for every
    pair of neighbours (replace one record). The algorithm of diffprivlib's
    ``LogisticRegression`` (its ``Vector`` mechanism), re-implemented here as
    the paper states it, the intercept folded in as a constant feature and
    penalised with the coefficients (the paper's strong convexity needs it).

    Rows ``z = (clip(x, data_norm), 1) / sqrt(data_norm^2 + 1)`` have norm
    ``<= 1``; with :math:`\Lambda = 1/(nC)`, ``c = 1/4`` (the logistic loss's
    second derivative),
    :math:`\epsilon' = \epsilon - \log(1 + 2c/(n\Lambda) + c^2/(n\Lambda)^2)`;
    if :math:`\epsilon' \le 0`, :math:`\Delta = c/(n(e^{\epsilon/4} - 1)) -
    \Lambda` and :math:`\epsilon' = \epsilon/2`, else :math:`\Delta = 0`; b has
    density :math:`\propto e^{-\epsilon'\lVert b\rVert/2}` (norm
    Gamma(p, 2/epsilon'), uniform direction); the release minimises
    :math:`\frac1n\sum_i \log(1 + e^{-y_i\theta^T z_i}) + \frac{\Lambda +
    \Delta}{2}\lVert\theta\rVert^2 + \frac1n b^T\theta`. Returns (coef,
    intercept) for the unscaled features; labels 0/1.
    """
    from scipy import optimize, special

    n, d = X.shape
    norms = np.linalg.norm(X, axis=1)
    X = X * np.minimum(1.0, data_norm / np.maximum(norms, 1e-300))[:, None]
    scale = np.sqrt(data_norm**2 + 1.0)
    Z = np.column_stack([X, np.ones(n)]) / scale
    s = np.where(y == 1, 1.0, -1.0)
    lam, c = 1.0 / (n * C), 0.25
    eps1 = epsilon - np.log(1 + 2 * c / (n * lam) + c * c / (n * lam) ** 2)
    extra = 0.0
    if eps1 <= 0:
        extra = c / (n * (np.expm1(epsilon / 4))) - lam
        eps1 = epsilon / 2
    direction = rng.standard_normal(d + 1)
    b = rng.gamma(d + 1, 2.0 / eps1) * direction / np.linalg.norm(direction)

    def objective(theta):
        margin = s * (Z @ theta)
        value = np.mean(np.logaddexp(0.0, -margin)) + 0.5 * (lam + extra) * theta @ theta
        grad = -(Z.T @ (s * special.expit(-margin))) / n + (lam + extra) * theta
        return value + b @ theta / n, grad + b / n

    theta = optimize.minimize(
        objective, np.zeros(d + 1), jac=True, method="L-BFGS-B",
        options={"maxiter": 10_000, "gtol": 1e-10},
    ).x
    return theta[:d] / scale, theta[d] / scale


class _Logit:
    def __init__(self, coef, intercept):
        self.coef_, self.intercept_ = coef, intercept

    def predict(self, X):
        return (X @ self.coef_ + self.intercept_ > 0).astype(float)


def _tuned_objective_perturbation(public, n, epsilon, rng):
    """(C, data_norm) of objective perturbation chosen on public data only: n
    rows resampled from 70 % of the public rows stand in for the private ones,
    the other 30 % score 10 releases per candidate (as AdaSSP's clipping)."""
    X, y = public
    order = rng.permutation(len(y))
    cut = int(0.7 * len(y))
    fit, held = order[:cut], order[cut:]
    norms = np.linalg.norm(X, axis=1)
    best, best_score = None, -np.inf
    for C in OP_CS:
        for q in OP_QUANTILES:
            bound = float(np.quantile(norms, q))
            scores = []
            for _ in range(10):
                rows = rng.choice(fit, size=n)
                model = _Logit(*objective_perturbation(X[rows], y[rows], epsilon, C,
                                                       bound, rng))
                scores.append(_accuracy(model, (X[held], y[held])))
            if np.mean(scores) > best_score:
                best, best_score = (C, bound), float(np.mean(scores))
    return best


def _tuned_adassp_quantile(public, n, epsilon, rng):
    """AdaSSP's clipping quantile chosen on public data only: n rows resampled
    from 70 % of the public rows stand in for the private ones, the other 30 %
    score 10 releases per candidate."""
    X, y = public
    order = rng.permutation(len(y))
    cut = int(0.7 * len(y))
    fit, held = order[:cut], order[cut:]
    best, best_score = None, np.inf
    for q in CLIP_QUANTILES:
        bx = float(np.quantile(np.linalg.norm(X, axis=1), q))
        by = float(np.quantile(np.abs(y), q))
        scores = []
        for _ in range(10):
            rows = rng.choice(fit, size=n)
            coef = adassp(X[rows], y[rows], epsilon, DELTA, bx, by, rng)
            scores.append(_mse(_Linear(coef), (X[held], y[held])))
        if np.mean(scores) < best_score:
            best, best_score = q, float(np.mean(scores))
    return best


def models(splits, share, epsilons=MODEL_EPSILONS):
    """Rows for breast cancer (logistic) and diabetes (ridge) at one public share:
    public-only, non-private, PrivateEstimator with its defaults (one fit, fresh
    noise, per split and epsilon) and, for diabetes, AdaSSP tuned on public data;
    ``recovered`` = (score - public) / (ceiling - public), the ceiling the better
    noise-free model (private rows alone, or public and private rows together)."""
    rows = []
    for loader, base, score, unit in (
        ("load_breast_cancer", LogisticRegression(max_iter=1000), _accuracy,
         "test accuracy"),
        ("load_diabetes", Ridge(alpha=1.0), _mse, "test MSE"),
    ):
        label = f"{loader[5:].replace('_', ' ')}, {share:.0%} public"
        cache = [_parts(load_split(loader, public=share, seed=s)) for s in range(splits)]
        public_only = np.array([score(clone(base).fit(*p), te) for p, _, te in cache])
        private_only = np.array([score(clone(base).fit(*tr), te) for _, tr, te in cache])
        both = np.array(
            [
                score(clone(base).fit(*[np.concatenate(z) for z in zip(p, tr)]), te)
                for p, tr, te in cache
            ]
        )
        sign = 1.0 if unit == "test accuracy" else -1.0
        ceiling = max(sign * private_only.mean(), sign * both.mean()) * sign
        rows.append(_row(label, "public rows only", "no privacy cost", public_only, unit))
        rows.append(_row(label, "private rows only, no noise", "none", private_only, unit))
        rows.append(_row(label, "public + private rows, no noise", "none", both, unit))

        base_mean = float(public_only.mean())

        def recovered(values, base=base_mean, top=ceiling, sign=sign):
            """Share of the private data's value: (score - public) / (ceiling - public)."""
            gap = top - base
            return (np.mean(values) - base) / gap if gap * sign > 0 else np.nan

        for epsilon in epsilons:
            task = f"{label}, eps={epsilon:g}"
            ours, chosen, peer, ssp, op, worst = [], [], [], [], [], []
            for seed, (public, train, test) in enumerate(cache):
                model = PrivateEstimator(
                    base, epsilon=epsilon, delta=DELTA, gamma=GAMMA, public=public,
                    random_state=seed,
                ).fit(*train)
                ours.append(score(model, test))
                chosen.append(model.selected_["candidate"].split(",")[0])
                if model.privacy_.worst_case is not None:
                    worst.append(model.privacy_.worst_case.epsilon)
                if loader == "load_diabetes":
                    ssp.append(score(PrivateEstimator(
                        base, epsilon=epsilon, delta=DELTA, gamma=GAMMA, public=public,
                        fit_method="statistics", random_state=seed,
                    ).fit(*train), test))
                    rng = np.random.default_rng(seed)
                    q = _tuned_adassp_quantile(public, len(train[1]), epsilon, rng)
                    bx = float(np.quantile(np.linalg.norm(public[0], axis=1), q))
                    by = float(np.quantile(np.abs(public[1]), q))
                    # no intercept: load_split centres y at its public mean
                    coef = adassp(*train, epsilon, DELTA, bx, by, rng)
                    peer.append(score(_Linear(coef), test))
                else:
                    rng = np.random.default_rng(seed)
                    C, bound = _tuned_objective_perturbation(
                        public, len(train[1]), epsilon, rng
                    )
                    fitted = objective_perturbation(*train, epsilon, C, bound, rng)
                    op.append(score(_Logit(*fitted), test))
            picks = ", ".join(f"{k} x{chosen.count(k)}" for k in sorted(set(chosen)))
            rand = f"(eps={epsilon:g}, delta={DELTA:g})-random DP, gamma={GAMMA}"
            floor = (
                f"; worst case (eps<={max(worst):.3g}, delta={DELTA:g})-DP in "
                f"{len(worst)} of {len(ours)}" if worst else ""
            )
            row = _row(task, f"sensampler PrivateEstimator defaults (chose: {picks})",
                       rand + floor, ours, unit)
            row["recovered"] = f"{recovered(ours):.0%}"
            rows.append(row)
            if ssp:
                row = _row(task, "sensampler, fit_method='statistics' (sufficient "
                           "statistics, sampled sensitivity)", rand, ssp, unit)
                row["recovered"] = f"{recovered(ssp):.0%}"
                rows.append(row)
            if op:
                row = _row(task, "objective perturbation (Chaudhuri et al. 2011, Alg. 2;"
                           " diffprivlib's LogisticRegression algorithm, re-implemented"
                           "), C and data norm tuned on public",
                           f"{epsilon:g}-DP (worst case)", op, unit)
                row["recovered"] = f"{recovered(op):.0%}"
                rows.append(row)
            if peer:
                row = _row(task, "AdaSSP (Wang 2018), clipping tuned on public",
                           f"({epsilon:g}, {DELTA:g})-DP", peer, unit)
                row["recovered"] = f"{recovered(peer):.0%}"
                rows.append(row)
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
    parser.add_argument(
        "--models", action="store_true",
        help="only the model rows (no diffprivlib or OpenDP needed)",
    )
    args = parser.parse_args(argv)
    if args.statistics:
        return statistics_main(50 if args.quick else 200)
    warnings.simplefilter("ignore")  # diffprivlib's PrivacyLeakWarning on clipping
    splits, reps = (2, 10) if args.quick else (5, 20)
    start = time.perf_counter()
    rows = []
    if not args.models:
        dpl, dp = _peers()
        rows += heights(dpl, dp, 1.0, 50 if args.quick else 200)
        # its own draws: seeded like eps=1, its rows would be those scaled by 10
        rows += heights(dpl, dp, 0.1, 50 if args.quick else 200, seed=2018)
        rows += statistics_rows(
            {"dpl": dpl, "odp": dp}, [0.1, 1.0], 50 if args.quick else 200
        )
    with one_thread():  # BLAS threads on a shared machine slow each fit 30-fold
        for share in PUBLIC_SHARES:
            rows += models(splits, share)
    _print(rows)
    print(f"\nheights: {reps} releases; models: {splits} splits, one fit (fresh noise) "
          "per split and epsilon; "
          f"{time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
