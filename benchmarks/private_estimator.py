"""CPU time of one default ``PrivateEstimator`` fit of a logistic regression.

The setting: scikit-learn's breast cancer rows shuffled with seed 0, the first
57 public and the next 400 private, standardised with a scaler fitted on the
public rows; ``PrivateEstimator(LogisticRegression(), epsilon=1, delta=1e-5,
public=(X_pub, y_pub), random_state=0)``. Prints the CPU time of its ``fit``
(``time.process_time``, BLAS on one thread as the fit sets it), scikit-learn's
own fit for scale, the chosen candidate, the sampled sensitivity and the
statement. ``--save FILE`` writes them as JSON; ``--before FILE`` reads such a
file (e.g. written by the code before a change) and prints the ratio of the CPU
times and whether the choice and the statement are the same.

    /work/venv-main/bin/python benchmarks/private_estimator.py --save before.json
    python benchmarks/private_estimator.py --before before.json
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from sensampler.models import PrivateEstimator

PUBLIC_ROWS, PRIVATE_ROWS = 57, 400


def split():
    """``(X_pub, y_pub), (X, y)``: breast cancer, shuffled, scaled on public rows."""
    X, y = load_breast_cancer(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    pub, priv = order[:PUBLIC_ROWS], order[PUBLIC_ROWS : PUBLIC_ROWS + PRIVATE_ROWS]
    scaler = StandardScaler().fit(X[pub])
    return (scaler.transform(X[pub]), y[pub]), (scaler.transform(X[priv]), y[priv])


def measure() -> dict:
    """One default fit's CPU time, choice, sensitivity and statement."""
    public, (X, y) = split()
    start = time.process_time()
    LogisticRegression().fit(X, y)
    sklearn_cpu = time.process_time() - start
    model = PrivateEstimator(
        LogisticRegression(), epsilon=1, delta=1e-5, public=public, random_state=0
    )
    start = time.process_time()
    model.fit(X, y)
    cpu = time.process_time() - start
    return {
        "cpu seconds": cpu,
        "scikit-learn cpu seconds": sklearn_cpu,
        "candidate": model.selected_["candidate"],
        "sensitivity": float(model.sensitivity_.sensitivity.value),
        "statement": str(model.privacy_),
        "expected scores": {
            name: next(iter(row.values()))
            for name, row in model.selected_["candidates"].items()
        },
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", help="write the figures to this JSON file")
    parser.add_argument("--before", help="a JSON file of --save to compare with")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    now = measure()
    print(f"PrivateEstimator(LogisticRegression()).fit: {now['cpu seconds']:.2f} s CPU "
          f"(scikit-learn's fit {1000 * now['scikit-learn cpu seconds']:.1f} ms)")
    print(f"chosen: {now['candidate']}")
    print(f"sampled sensitivity: {now['sensitivity']:.6g}")
    print(f"statement: {now['statement']}")
    for name, value in now["expected scores"].items():
        print(f"    {name:60s} expected accuracy {value:.4f}")
    if args.save:
        with open(args.save, "w") as handle:
            json.dump(now, handle, indent=1)
    if args.before:
        with open(args.before) as handle:
            before = json.load(handle)
        print(f"before: {before['cpu seconds']:.2f} s CPU; ratio before/after "
              f"{before['cpu seconds'] / now['cpu seconds']:.1f}")
        for key in ("candidate", "statement", "sensitivity"):
            same = "same" if before[key] == now[key] else f"before: {before[key]}"
            print(f"    {key}: {same}")


if __name__ == "__main__":
    main()
