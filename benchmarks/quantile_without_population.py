"""A median without public data: the wide grid at the whole epsilon, against the
private-bounds pre-pass it replaces and against the release with the population.

Log-normal incomes (median 30 000, sigma 0.8 and 1.0), n = 500, total epsilon 1,
replace-one neighbours; the same data sets (seeded) for every method. The error
is the absolute distance to the data set's own median; each row prints the median
of the errors over the data sets, with a bootstrap standard error, and its ratio
to the new path's.

* old path (eps0 = 0.5): what ``bounds="private:0.5"`` released before: the
  bounds pre-pass (:func:`sensampler.bounds.private_bounds` at 0.5), then the
  exponential mechanism over those bounds at the remaining 0.5 (plain DP, 1 in
  total), released here with the same two calls.
* new path: ``release_statistic(data, "median", None, epsilon=1,
  bounds="private:0.5")``: the exponential mechanism over the wide public grid
  (:func:`sensampler.mechanisms.quantile.wide_grid`) at the whole epsilon, plain
  1-DP for every pair, no pre-pass (``bounds="none"`` is the same release).
* the same law sampled directly (``output_law`` of the wide-grid mechanism, numpy
  draws): OpenDP's way (its ``private_quantile`` over log-spaced candidates).
* with the true population: ``release_statistic(data, "median", population,
  epsilon=1, random_state=SEED)``, the model's bounds and its scale calibrated at
  random DP (1-DP except with probability gamma = 0.05). Its calibration does not
  read the data (only the model, n, epsilon and the seed), so it is computed once
  (:func:`sensampler.quantile_calibration.calibrate_quantile`, as the release calls
  it) and the same mechanism releases every data set.

    python benchmarks/quantile_without_population.py            # 250 data sets
    python benchmarks/quantile_without_population.py --sets 50  # quicker
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from sensampler.app.release import release_statistic
from sensampler.bounds import Bounds, private_bounds
from sensampler.distributions import LogNormal
from sensampler.mechanisms import ExponentialQuantileMechanism
from sensampler.parallel import child_seed
from sensampler.quantile_calibration import calibrate_quantile

N, EPSILON, EPSILON0, GAMMA, SEED = 500, 1.0, 0.5, 0.05, 2017
SIGMAS = (0.8, 1.0)
MEDIAN = 30_000.0


def _summary(errors, rng):
    """The median of the errors and its bootstrap standard error."""
    errors = np.asarray(errors)
    boot = np.median(rng.choice(errors, (1000, errors.size)), axis=1)
    return float(np.median(errors)), float(boot.std(ddof=1))


def _population_mechanism(population):
    """The release's mechanism with the population: its bounds and calibrated
    scale, as ``release_statistic(..., random_state=SEED)`` builds them."""
    bounds = Bounds.from_population(population)
    calibration = calibrate_quantile(
        0.5, (bounds.low, bounds.high), EPSILON, population, N,
        random_state=child_seed(np.random.SeedSequence(SEED), 0), gamma=GAMMA,
    )
    return ExponentialQuantileMechanism(
        0.5, (bounds.low, bounds.high), EPSILON, calibration=calibration
    )


def errors_for(sigma, sets):
    """Each method's absolute errors on ``sets`` shared data sets."""
    population = LogNormal(math.log(MEDIAN), sigma)
    with_population = _population_mechanism(population)
    wide = ExponentialQuantileMechanism(0.5, None, EPSILON)
    rng = np.random.default_rng(SEED)
    errors = {"old": [], "new": [], "direct": [], "population": []}
    for _ in range(sets):
        data = population.sample(N, random_state=rng)
        truth = float(np.median(data))
        bounds = private_bounds(data, EPSILON0, random_state=rng)
        old = ExponentialQuantileMechanism(0.5, bounds, EPSILON - EPSILON0)
        new = release_statistic(data, "median", None, epsilon=EPSILON,
                                bounds=f"private:{EPSILON0:g}")
        grid, law = wide.output_law(data)
        values = {
            "old": old.release(data, random_state=rng),
            "new": new.value,
            "direct": grid[rng.choice(grid.size, p=law)],
            "population": with_population.release(data, random_state=rng),
        }
        for key, value in values.items():
            errors[key].append(abs(float(value) - truth))
    return errors


LABELS = {
    "old": "before: private:0.5 pre-pass, median over its bounds at 0.5",
    "new": "now: release_statistic(..., None, bounds='private:0.5'), wide grid at 1",
    "direct": "exponential mechanism over the wide grid at 1, sampled directly",
    "population": "release with the true population (calibrated, gamma 0.05)",
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=250, help="data sets per sigma")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    start = time.process_time()
    for sigma in SIGMAS:
        errors = errors_for(sigma, args.sets)
        new, _ = _summary(errors["new"], rng)
        print(f"\nLogNormal(log {MEDIAN:g}, {sigma:g}), n = {N}, total eps = {EPSILON:g}, "
              f"{args.sets} data sets: median |error| ± bootstrap SE")
        for key, label in LABELS.items():
            value, se = _summary(errors[key], rng)
            print(f"  {label:<74} {value:7.1f} ± {se:5.1f}  ({value / new:.2f}x)")
    print(f"\nCPU {time.process_time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
