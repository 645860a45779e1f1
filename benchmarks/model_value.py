"""PrivateEstimator's value on one data set, with several fits per split and a paired SE.

``peers.py --models`` fits once per split and epsilon, so its fraction of the
private data's value recovered carries the noise of one release per split
(about +-20 points on diabetes at epsilon 3). This script fits R times per split
(``random_state = split + 100 r``; the release noise is fresh OS entropy) and
prints the fraction recovered, (score - public only) / (ceiling - public only),
with its standard error over the S x R fits, each paired with its split's
public-only score, the mean sampled sensitivity of the released candidate and
the candidates chosen. The ceiling is the better of the non-private fits on
the private rows and on the public and private rows together.

Three studies of where the value is bounded (no release is made):

``--curve``
    The fraction recovered *without* privacy by the public rows and m of the
    private ones (20 random subsets per split): how many private rows a release
    is worth.
``--oracle``
    Every candidate ``PrivateEstimator`` compares, built on the *real* public
    and private rows with its own sampled noise (``--draws`` draws) and scored
    on the test rows, beside its simulated score and the one chosen: whether
    the choice or the candidates bound the value.
``--newton``
    A family not built: one Newton step from the public model on the private
    gradient at the public coefficients, sum_i z_i r_i with z = (x, 1) clipped
    to the largest public row norm and r the residual (logistic: sigmoid(z.w0)
    - y; ridge: z.w0 - y clipped to 3 times the largest public residual),
    released by the Gaussian mechanism with its sampled L2 sensitivity
    (``PublicSample`` of the public rows, gamma 0.05), solved with the public
    curvature (public Hessian + n times kappa times the public second moment of
    z, kappa in {0.03, 0.1} for logistic, 1 for ridge) damped by lambda times
    the noise's size sigma sqrt(p); the best (kappa, lambda) chosen with the
    test rows (an oracle).
``--steps``
    A family not built, generalising ``--newton``: T noisy preconditioned
    gradient steps from the public model (DP-GD) on the penalised objective
    sum_i loss_i(w) + |w - w0|^2 / (2 C), each step w -= (n/N H_pub + I/C)^-1
    (sum_i g_i(w) + noise + (w - w0)/C), per-row gradients clipped to a share
    of the row bound, the average of the last half of the path released. The
    T releases compose to one Gaussian release (each at sigma sqrt(T) for the
    same sensitivity); the sensitivity is the one sampled at the public
    coefficients, used for every step (optimistic: the later iterates' may be
    larger), so this is an upper bound on the family at its best (T, clip, C),
    chosen with the test rows.
``--clip``
    The fit shrunk toward the public model (logistic) with its rows clipped to
    a quantile of the public rows' norms (``data_norm`` of ``PrivateEstimator``),
    for C in 0.003-0.3: its sampled sensitivity (the comparisons' plan) and
    the floor of its worst case at the default cap, the best C chosen with the
    test rows, per quantile.

    python benchmarks/model_value.py load_diabetes --epsilon 1 3 --splits 5 --fits 4
    python benchmarks/model_value.py load_breast_cancer --epsilon 1 --fits 2  # slow
    python benchmarks/model_value.py load_breast_cancer --curve
    python benchmarks/model_value.py load_breast_cancer --epsilon 1 --oracle
    python benchmarks/model_value.py load_breast_cancer --epsilon 1 3 --newton
    python benchmarks/model_value.py load_breast_cancer --epsilon 1 3 --steps
    python benchmarks/model_value.py load_breast_cancer --epsilon 1 3 10 --clip
"""

from __future__ import annotations

import argparse
import functools
import time
import warnings

import numpy as np
from scipy.special import expit
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression, Ridge

from sensampler import sample_sensitivity
from sensampler._lib.threads import one_thread
from sensampler.app.experiments import load_split
from sensampler.distributions import PublicSample
from sensampler.mechanisms import GaussianMechanism
from sensampler.mechanisms.gaussian import analytic_gaussian_sigma
from sensampler.models import PrivateEstimator
from sensampler.models._fits import ShrunkLogisticRegression
from sensampler.models._sampling import Concatenated as _Concatenated
from sensampler.queries import additive

SUBSETS = (10, 25, 50, 100, 200)
DAMPING = (0.1, 0.3, 1.0, 3.0)
#: ``--steps``: steps, per-row gradient clip (times the row bound), pull C.
STEPS = (1, 3, 10)
CLIPS = (0.1, 0.3, 1.0)
PULLS = (0.003, 0.01, 0.03)
#: ``--clip``: row bounds, as quantiles of the public rows' norms.
ROW_QUANTILES = (0.25, 0.5, 0.75, 1.0)
CLIP_PULLS = (0.003, 0.01, 0.03, 0.1, 0.3)


class Instrumented(PrivateEstimator):
    """PrivateEstimator keeping the candidates its choice compared (``compared_``)."""

    def _choose(self, candidates, setting, seed):
        self.compared_ = candidates
        self.setting_ = setting
        return super()._choose(candidates, setting, seed)


def fraction(values, public, gap):
    """Mean and standard error of (value - public) / gap."""
    v = (np.asarray(values) - public) / gap
    return v.mean(), v.std(ddof=1) / np.sqrt(v.size) if v.size > 1 else 0.0


def releases(args, base, score, cache, public, gap):
    with one_thread():
        for epsilon in args.epsilon:
            start = time.perf_counter()
            recovered, sensitivities, chosen = [], [], []
            for seed, (pub, train, test) in enumerate(cache):
                for r in range(args.fits):
                    model = PrivateEstimator(
                        base, epsilon=epsilon, delta=1e-5, gamma=0.05, public=pub,
                        m=args.m, random_state=seed + 100 * r,
                    ).fit(*train)
                    recovered.append((score(model, test) - public[seed]) / gap)
                    sensitivities.append(float(model.sensitivity_.sensitivity.value))
                    chosen.append(model.selected_["candidate"].split(", rows")[0])
            v = np.array(recovered)
            picks = ", ".join(f"{k} x{chosen.count(k)}" for k in sorted(set(chosen)))
            se = v.std(ddof=1) / np.sqrt(v.size)
            print(f"eps={epsilon:g}: recovered {v.mean():.0%} ± {se:.0%}"
                  f"  sensitivity {np.mean(sensitivities):.3g}"
                  f"  ({time.perf_counter() - start:.0f} s)  chose: {picks}")


def curve(base, score, cache, public, gap):
    rows = {}
    for seed, (pub, train, test) in enumerate(cache):
        n = len(train[1])
        for m in [s for s in SUBSETS if s < n] + [n]:
            values = []
            for r in range(20):
                pick = np.random.default_rng(r).choice(n, m, replace=False)
                X = np.concatenate([pub[0], train[0][pick]])
                y = np.concatenate([pub[1], train[1][pick]])
                values.append(score(clone(base).fit(X, y), test))
            key = m if m < n else "all"
            rows.setdefault(key, []).append((np.mean(values) - public[seed]) / gap)
    print("without privacy, public rows + m private rows: " + ", ".join(
        f"m={m}: {np.mean(v):.0%}" for m, v in rows.items()))


def oracle(args, base, score, cache, public, gap):
    with one_thread():
        for epsilon in args.epsilon:
            best, chosen = [], []
            for seed, (pub, train, test) in enumerate(cache):
                model = Instrumented(
                    base, epsilon=epsilon, delta=1e-5, gamma=0.05, public=pub,
                    m=args.m, random_state=seed,
                ).fit(*train)
                table = model.selected_["candidates"]
                real = {"public model": public[seed]}
                for candidate in model.compared_:
                    values = []
                    for r in range(args.draws):
                        shared = {"public": model.setting_.template}
                        built = candidate.build(
                            *pub, *train, np.random.default_rng(r), shared
                        )
                        values.append(score(built, test))
                    real[candidate.name] = float(np.mean(values))
                name = model.selected_["candidate"]
                print(f"eps={epsilon:g} split {seed}: public {public[seed]:.4g}, chose "
                      f"{name}")
                for key, value in real.items():
                    simulated = next(iter(table[key].values())) if key in table else np.nan
                    print(f"    {key[:62]:62s} simulated {simulated:9.4g}  real {value:9.4g}"
                          f"  recovered {(value - public[seed]) / gap:6.0%}")
                best.append(max(real.values(), key=lambda v: v * args.sign))
                chosen.append(real[name])
            print(f"eps={epsilon:g}: chosen {fraction(chosen, public, gap)[0]:.0%}, "
                  f"best candidate (oracle) {fraction(best, public, gap)[0]:.0%} "
                  f"± {fraction(best, public, gap)[1]:.0%}")


class Linear:
    """A linear model from its coefficients, intercept last."""

    def __init__(self, w, classifier):
        self.w, self.classifier = w, classifier

    def predict(self, X):
        z = np.column_stack([X, np.ones(len(X))]) @ self.w
        return (z > 0).astype(float) if self.classifier else z


def public_start(base, X_pub, y_pub, classifier):
    """The public fit, its coefficients (intercept last), the row bound (the
    largest public row norm), the residual cap (ridge: 3 times the largest
    public residual) and the public curvature at the public coefficients."""
    fitted = clone(base).fit(X_pub, y_pub)
    w0 = np.concatenate([np.ravel(fitted.coef_), np.ravel(fitted.intercept_)])
    bound = np.max(np.linalg.norm(X_pub, axis=1))
    cap = 3 * np.max(np.abs(y_pub - fitted.predict(X_pub)))
    Z_pub = np.column_stack([X_pub, np.ones(len(y_pub))])
    weight = expit(Z_pub @ w0) * (1 - expit(Z_pub @ w0)) if classifier else 1.0
    curvature = (Z_pub * np.reshape(weight, (-1, 1))).T @ Z_pub
    return fitted, w0, bound, cap, curvature


def gradients(rows, w, bound, cap, classifier, clip=np.inf):
    """Per-row gradients of the loss at w: z r with z = (x, 1), x clipped to
    ``bound``, r the residual (ridge: clipped to ``cap``); each then clipped to
    norm ``clip``."""
    norms = np.linalg.norm(rows[:, :-1], axis=1, keepdims=True)
    Z = np.column_stack([
        rows[:, :-1] * np.minimum(1, bound / np.maximum(norms, 1e-300)),
        np.ones(len(rows)),
    ])
    residual = (
        expit(Z @ w) - rows[:, -1] if classifier
        else np.clip(Z @ w - rows[:, -1], -cap, cap)
    )
    G = Z * residual[:, None]
    size = np.linalg.norm(G, axis=1, keepdims=True)
    return G * np.minimum(1, clip / np.maximum(size, 1e-300))


def newton(args, base, score, cache, public, gap, classifier):
    kappas = (0.03, 0.1) if classifier else (1.0,)
    results = {}
    with one_thread():
        for seed, (pub, train, test) in enumerate(cache):
            (X_pub, y_pub), (X, y) = pub, train
            fitted, w0, bound, cap, data_curvature = public_start(
                base, X_pub, y_pub, classifier
            )
            n, p = len(y), w0.size
            estimate = sample_sensitivity(
                additive(functools.partial(
                    gradients, w=w0, bound=bound, cap=cap, classifier=classifier
                ), name="gradient"),
                PublicSample(np.column_stack([X_pub, y_pub])), n,
                gamma=0.05, norm="l2", random_state=seed,
            )
            g = gradients(np.column_stack([X, y]), w0, bound, cap, classifier).sum(axis=0)
            Z_pub = np.column_stack([X_pub, np.ones(len(y_pub))])
            penalty = np.eye(p) * (1.0 / fitted.C if classifier else fitted.alpha)
            penalty[-1, -1] = 0.0
            curvature = penalty + data_curvature
            moment = Z_pub.T @ Z_pub / len(y_pub)
            for epsilon in args.epsilon:
                sigma = float(GaussianMechanism(
                    epsilon=epsilon, delta=1e-5,
                    sensitivity=float(estimate.sensitivity.value),
                ).scale)
                for kappa in kappas:
                    for lam in DAMPING:
                        H = (curvature + kappa * n * moment
                             + lam * sigma * np.sqrt(p) * np.eye(p))
                        values = [
                            score(Linear(w0 - np.linalg.solve(
                                H, g + np.random.default_rng(r).normal(0, sigma, p)),
                                classifier), test)
                            for r in range(args.draws)
                        ]
                        results.setdefault((epsilon, kappa, lam), []).append(
                            np.mean(values))
    best_cells(args, results, public, gap, "one Newton step", "(kappa, lambda)")


def steps(args, base, score, cache, public, gap, classifier):
    results = {}
    with one_thread():
        for seed, (pub, train, test) in enumerate(cache):
            (X_pub, y_pub), (X, y) = pub, train
            _, w0, bound, cap, curvature = public_start(base, X_pub, y_pub, classifier)
            n, p = len(y), w0.size
            curvature = curvature * n / len(y_pub)
            rows = np.column_stack([X, y])
            population = PublicSample(np.column_stack([X_pub, y_pub]))
            for clip in CLIPS:
                limit = clip * bound

                query = additive(functools.partial(
                    gradients, w=w0, bound=bound, cap=cap, classifier=classifier,
                    clip=limit,
                ), name="gradient")
                # the sensitivity at the public coefficients, for every step
                sensitivity = float(sample_sensitivity(
                    query, population, n, gamma=0.05, norm="l2", random_state=seed,
                ).sensitivity.value)
                for epsilon in args.epsilon:
                    unit = float(GaussianMechanism(
                        epsilon=epsilon, delta=1e-5, sensitivity=1.0
                    ).scale)
                    for count in STEPS:
                        # count releases at sigma sqrt(count): the composition is one
                        # Gaussian release at sigma (same ratio to the sensitivity)
                        sigma = unit * np.sqrt(count) * sensitivity
                        for pull in PULLS:
                            solve = np.linalg.inv(curvature + np.eye(p) / pull)
                            values = []
                            for r in range(args.draws):
                                rng = np.random.default_rng(r)
                                w, path = w0.copy(), []
                                for _ in range(count):
                                    g = gradients(rows, w, bound, cap, classifier, limit)
                                    g = g.sum(axis=0) + rng.normal(0, sigma, p)
                                    w = w - solve @ (g + (w - w0) / pull)
                                    path.append(w)
                                average = np.mean(path[len(path) // 2:], axis=0)
                                values.append(score(Linear(average, classifier), test))
                            results.setdefault(
                                (epsilon, count, clip, pull), []
                            ).append(np.mean(values))
    best_cells(args, results, public, gap, "noisy gradient steps",
               "(steps, clip, C)")


def clip(args, base, score, cache, public, gap):
    """The shrunk logistic fit at each row bound (a quantile of the public rows'
    norms) and C, with its sampled sensitivity and the noise floor of its worst
    case, 2 C sqrt(R^2 + 1), at the default cap (10 epsilon)."""
    results = {}
    with one_thread():
        for seed, (pub, train, test) in enumerate(cache):
            (X_pub, y_pub), (X, y) = pub, train
            fitted = clone(base).fit(X_pub, y_pub)
            population = PublicSample(np.column_stack([X_pub, y_pub]))
            norms = np.linalg.norm(X_pub, axis=1)
            for quantile in ROW_QUANTILES:
                bound = float(np.quantile(norms, quantile))
                for C in CLIP_PULLS:
                    model = ShrunkLogisticRegression(
                        C=C, coef=fitted.coef_, intercept=fitted.intercept_,
                        classes=fitted.classes_, row_bound=bound,
                    )
                    query = _Concatenated(
                        model, ("coef_", "intercept_"), np.empty((0, X.shape[1] + 1))
                    )
                    sensitivity = float(sample_sensitivity(
                        query, population, len(y), gamma=0.05, norm="l2",
                        random_state=seed,
                    ).sensitivity.value)
                    private = clone(model).fit(X, y)
                    w = np.concatenate([np.ravel(private.coef_), private.intercept_])
                    worst = 2 * C * np.sqrt(bound**2 + 1)
                    for epsilon in args.epsilon:
                        sigma = max(
                            analytic_gaussian_sigma(epsilon, 1e-5) * sensitivity,
                            analytic_gaussian_sigma(10 * epsilon, 1e-5) * worst,
                        )
                        values = [
                            score(Linear(
                                w + np.random.default_rng(r).normal(0, sigma, w.size),
                                True,
                            ), test)
                            for r in range(args.draws)
                        ]
                        results.setdefault((epsilon, quantile, C), []).append(
                            np.mean(values))
    for quantile in ROW_QUANTILES:
        best_cells(
            args, {k[:1] + k[2:]: v for k, v in results.items() if k[1] == quantile},
            public, gap, f"rows clipped to the public norms' {quantile:g}-quantile",
            "C",
        )


def best_cells(args, results, public, gap, family, names):
    """Print, per epsilon, the best cell of ``results`` chosen with the test rows."""
    for epsilon in args.epsilon:
        cells = {k[1:]: fraction(v, public, gap) for k, v in results.items()
                 if k[0] == epsilon}
        key, (mean, se) = max(cells.items(), key=lambda kv: kv[1][0])
        print(f"eps={epsilon:g}: {family}, best of {len(cells)} {names} with the "
              f"test rows: {', '.join(f'{v:g}' for v in key)}: {mean:.0%} ± {se:.0%}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("loader", choices=["load_diabetes", "load_breast_cancer"])
    parser.add_argument("--epsilon", type=float, nargs="+", default=[1.0, 3.0])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--fits", type=int, default=4, help="fits per split")
    parser.add_argument("--public", type=float, default=0.1, help="public share")
    parser.add_argument("--m", type=int, default=None,
                        help="pairs per sampling run (PrivateEstimator's m)")
    parser.add_argument("--draws", type=int, default=20,
                        help="noise draws per candidate (--oracle, --newton)")
    study = parser.add_mutually_exclusive_group()
    study.add_argument("--curve", action="store_true")
    study.add_argument("--oracle", action="store_true")
    study.add_argument("--newton", action="store_true")
    study.add_argument("--steps", action="store_true")
    study.add_argument("--clip", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    classifier = args.loader == "load_breast_cancer"
    if classifier:
        base, args.sign = LogisticRegression(max_iter=1000), 1.0

        def score(model, test):
            return float(np.mean(model.predict(test[0]) == test[1]))
    else:
        base, args.sign = Ridge(alpha=1.0), -1.0

        def score(model, test):
            return float(np.mean((model.predict(test[0]) - test[1]) ** 2))

    cache = []
    for seed in range(args.splits):
        split = load_split(args.loader, public=args.public, seed=seed)
        cache.append([(p[:, :-1], p[:, -1]) for p in (split.public, split.train, split.test)])
    public = np.array([score(clone(base).fit(*p), te) for p, _, te in cache])
    private = np.array([score(clone(base).fit(*tr), te) for _, tr, te in cache])
    both = np.array([
        score(clone(base).fit(*[np.concatenate(z) for z in zip(p, tr)]), te)
        for p, tr, te in cache
    ])
    ceiling = args.sign * max(args.sign * private.mean(), args.sign * both.mean())
    gap = ceiling - public.mean()
    print(f"{args.loader}, {args.public:.0%} public: public only {public.mean():.4g}, "
          f"ceiling {ceiling:.4g}; {args.splits} splits")
    if args.curve:
        curve(base, score, cache, public, gap)
    elif args.oracle:
        oracle(args, base, score, cache, public, gap)
    elif args.newton:
        newton(args, base, score, cache, public, gap, classifier)
    elif args.steps:
        steps(args, base, score, cache, public, gap, classifier)
    elif args.clip:
        if not classifier:
            parser.error("--clip studies the shrunk logistic fit: load_breast_cancer")
        clip(args, base, score, cache, public, gap)
    else:
        releases(args, base, score, cache, public, gap)


if __name__ == "__main__":
    main()
