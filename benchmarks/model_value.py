"""PrivateEstimator's value on one data set, with several fits per split and a paired SE.

``peers.py --models`` fits once per split and epsilon, so its fraction of the
private data's value recovered carries the noise of one release per split
(about +-20 points on diabetes at epsilon 3). This script fits R times per split
(``random_state = split + 100 r``; the release noise is fresh OS entropy) and
prints the fraction recovered, (score - public only) / (ceiling - public only),
with its standard error over the S x R fits, each paired with its split's
public-only score, the mean sampled sensitivity of the released candidate and
the candidates chosen.

    python benchmarks/model_value.py load_diabetes --epsilon 1 3 --splits 5 --fits 4
    python benchmarks/model_value.py load_breast_cancer --epsilon 1 --fits 2  # slow
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression, Ridge

from sensampler._threads import one_thread
from sensampler.experiments import load_split
from sensampler.models import PrivateEstimator


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("loader", choices=["load_diabetes", "load_breast_cancer"])
    parser.add_argument("--epsilon", type=float, nargs="+", default=[1.0, 3.0])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--fits", type=int, default=4, help="fits per split")
    parser.add_argument("--public", type=float, default=0.1, help="public share")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    if args.loader == "load_diabetes":
        base, sign = Ridge(alpha=1.0), -1.0

        def score(model, test):
            return float(np.mean((model.predict(test[0]) - test[1]) ** 2))
    else:
        base, sign = LogisticRegression(max_iter=1000), 1.0

        def score(model, test):
            return float(np.mean(model.predict(test[0]) == test[1]))

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
    ceiling = sign * max(sign * private.mean(), sign * both.mean())
    gap = ceiling - public.mean()
    print(f"{args.loader}, {args.public:.0%} public: public only {public.mean():.4g}, "
          f"ceiling {ceiling:.4g}; {args.splits} splits x {args.fits} fits")
    with one_thread():
        for epsilon in args.epsilon:
            start = time.perf_counter()
            recovered, sensitivities, chosen = [], [], []
            for seed, (pub, train, test) in enumerate(cache):
                for r in range(args.fits):
                    model = PrivateEstimator(
                        base, epsilon=epsilon, delta=1e-5, gamma=0.05, public=pub,
                        random_state=seed + 100 * r,
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


if __name__ == "__main__":
    main()
