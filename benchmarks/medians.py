"""The private median of heights at replace-one: ours against the peers' mechanisms.

n = 500 records of the source documents' heights mixture, epsilon = 1, the same
data sets for every method; the error is the absolute distance to the data's
own median (the privacy cost only), summarised by its median over the
repetitions with a bootstrap standard error (and the mean).

Every method but the last is pure epsilon-DP for replace-one neighbours (n
fixed), the relation sensampler's releases state:

* sensampler: :class:`~sensampler.mechanisms.ExponentialQuantileMechanism`
  over the population model's 0.0005/0.9995 quantiles (the release's default
  bounds), then at coverages 0.99 and 0.99999 and over the hand bounds
  (140, 210), and on a grid of 2^10 instead of 2^14 points: its output law
  (``output_law``, exactly what ``release`` samples) is sampled here.
* permute-and-flip (McKenna & Sheldon 2020, Alg. 1) with the same utility,
  utility sensitivity and grid: never worse than the exponential mechanism in
  expectation (their Thm. 2); sampled as the argmax of the scaled utilities
  plus Exp(1) noise (Ding et al. 2021, Thm. 1).
* diffprivlib 0.6's ``tools.median`` **re-implemented** from its source
  (``diffprivlib/tools/quantiles.py``: Smith's intervals between the sorted
  clipped records and the bounds, weights width * exp(eps u / 2) with
  ``sensitivity=1``, uniform within the chosen interval), hand bounds
  (140, 210); the peers are not installed here.
* OpenDP's ``then_private_quantile`` **re-implemented** from its source
  (``make_quantile_score_candidates``: score |#(x < c) - alpha (n - #(x = c))|,
  stability 2 max(alpha, 1 - alpha) per unit of symmetric distance in the
  InfDifferenceDistance; replace-one is symmetric distance 2, so the
  Gumbel noisy max runs at scale 2 / eps: weights exp(-eps score / 2)) over
  7000 candidates evenly spaced over (140, 210), as ``benchmarks/peers.py``
  builds it.
* for reference, sensampler's mechanism at add/remove neighbours (utility
  sensitivity 1/2: another guarantee, the relation diffprivlib's and OpenDP's
  documentation use).

Not a test; always exits 0.

    python benchmarks/medians.py              # 2000 repetitions, about a minute
    python benchmarks/medians.py --reps 200
"""

from __future__ import annotations

import argparse

import numpy as np

from sensampler.bounds import Bounds
from sensampler.distributions import GaussianMixture
from sensampler.mechanisms import ExponentialQuantileMechanism

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
N, EPSILON, HAND = 500, 1.0, (140.0, 210.0)


class _CoarseGrid(ExponentialQuantileMechanism):
    """The same mechanism on 2^10 + 1 grid points (for the comparison only)."""

    grid_size = 2**10


def _sample_law(mech, data, rng) -> float:
    grid, probabilities = mech.output_law(data)
    return float(grid[rng.choice(grid.size, p=probabilities)])


def _permute_and_flip(mech, data, rng) -> float:
    grid = mech.grid
    counts = np.searchsorted(np.sort(np.clip(data, mech.low, mech.high)), grid)
    utility = -np.abs(counts - mech.q * data.size)
    scaled = mech.epsilon * utility / (2.0 * mech.utility_sensitivity)
    return float(grid[np.argmax(scaled + rng.exponential(size=grid.size))])


def _diffprivlib_median(data, epsilon, bounds, rng) -> float:
    """diffprivlib 0.6 ``tools.quantile(data, 0.5, epsilon, bounds)``, re-implemented."""
    k = data.size
    points = np.sort(np.append(np.clip(data, *bounds), bounds))
    widths = np.diff(points)
    utility = -np.abs(np.arange(k + 1) - 0.5 * k)
    weights = np.exp(epsilon * (utility - utility.max()) / 2.0) * widths
    i = rng.choice(k + 1, p=weights / weights.sum())
    return float(points[i] + rng.random() * (points[i + 1] - points[i]))


def _opendp_median(data, epsilon, candidates, rng) -> float:
    """OpenDP ``then_private_quantile(alpha=0.5)`` at replace-one (d_in = 2), re-implemented."""
    x = np.sort(data)
    lt = np.searchsorted(x, candidates, side="left")
    eq = np.searchsorted(x, candidates, side="right") - lt
    score = np.abs(lt - 0.5 * (x.size - eq))
    # d_out = 2 * 2 * max(alpha, 1 - alpha) = 2 score units; eps = d_out / scale
    scale = 2.0 / epsilon
    return float(candidates[np.argmax(-score / scale + rng.gumbel(size=score.size))])


def _summary(errors: np.ndarray, rng) -> tuple[float, float, float]:
    boot = np.median(rng.choice(errors, (1000, errors.size)), axis=1)
    return float(np.median(errors)), float(boot.std(ddof=1)), float(errors.mean())


def run(reps: int, seed: int = 2027) -> None:
    rng = np.random.default_rng(seed)
    model = Bounds.from_population(HEIGHTS)
    ours = {
        "sensampler, model bounds (coverage 0.999), grid 2^14": (
            ExponentialQuantileMechanism(0.5, model, EPSILON)
        ),
        "sensampler, model bounds (coverage 0.99)": ExponentialQuantileMechanism(
            0.5, Bounds.from_population(HEIGHTS, 0.99), EPSILON
        ),
        "sensampler, model bounds (coverage 0.99999)": ExponentialQuantileMechanism(
            0.5, Bounds.from_population(HEIGHTS, 0.99999), EPSILON
        ),
        "sensampler, hand bounds (140, 210)": ExponentialQuantileMechanism(
            0.5, HAND, EPSILON
        ),
        "sensampler, model bounds, grid 2^10": _CoarseGrid(0.5, model, EPSILON),
    }
    reference = ExponentialQuantileMechanism(
        0.5, model, EPSILON, neighbours="add-remove"
    )
    candidates = np.linspace(*HAND, 7000)
    names = [
        *ours,
        "permute-and-flip, model bounds, grid 2^14",
        "diffprivlib median (re-implemented), hand bounds",
        "OpenDP private_quantile (re-implemented), 7000 candidates",
        "sensampler at add/remove (reference: another guarantee)",
    ]
    errors = {name: [] for name in names}
    for _ in range(reps):
        data = HEIGHTS.sample(N, random_state=rng)
        truth = float(np.median(data))
        outs = [_sample_law(mech, data, rng) for mech in ours.values()]
        outs.append(_permute_and_flip(ours[names[0]], data, rng))
        outs.append(_diffprivlib_median(data, EPSILON, HAND, rng))
        outs.append(_opendp_median(data, EPSILON, candidates, rng))
        outs.append(_sample_law(reference, data, rng))
        for name, out in zip(names, outs):
            errors[name].append(abs(out - truth))
    print(f"heights median, n={N}, eps={EPSILON:g}, {reps} data sets (the same for all)")
    print(f"model bounds: {model.describe()}")
    print(f"{'method':<62} {'median |err|':>13} {'± SE':>7} {'mean |err|':>10}")
    for name in names:
        med, se, mean = _summary(np.asarray(errors[name]), rng)
        print(f"{name:<62} {med:13.4f} {se:7.4f} {mean:10.4f}")
    # paired: ours minus the diffprivlib re-implementation, same data sets
    a = np.asarray(errors[names[0]])
    b = np.asarray(errors["diffprivlib median (re-implemented), hand bounds"])
    index = rng.integers(0, reps, (1000, reps))
    diff = np.median(a[index], axis=1) - np.median(b[index], axis=1)
    print(f"paired difference of medians, ours - diffprivlib: "
          f"{np.median(a) - np.median(b):+.4f} ± {diff.std(ddof=1):.4f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    args = parser.parse_args(argv)
    run(args.reps)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
