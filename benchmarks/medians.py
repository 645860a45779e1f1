"""The private median of heights: ours, plain and calibrated, against the peers' mechanisms.

n = 500 records of the source documents' heights mixture, epsilon = 1, the same
data sets for every method; the error is the absolute distance to the data's
own median (the privacy cost only), summarised by its median over the
repetitions with a bootstrap standard error (and the mean). Every row prints
its guarantee.

Pure epsilon-DP for replace-one neighbours (n fixed), the relation
sensampler's releases state:

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

Calibrated at random DP (:func:`sensampler.quantile_calibration.calibrate_quantile`
with the model bounds, gamma = 0.05, the default number of pairs and a fixed
seed): the same mechanism with its weight scale t raised above the plain
t0 = eps / (2 du) as far as the exact privacy loss of pairs drawn from the
model allows. Its statement is (eps = 1, gamma = 0.05)-random DP with a
worst case of eps_wc = 2 t du-DP for every pair; the label prints eps_wc.
For a fair reading the same table has, at eps = eps_wc, the plain mechanism
(the same law as the calibrated one: t = eps_wc / (2 du); the script prints
the largest difference of the two laws on one data set), permute-and-flip
and the two re-implemented peers: those are eps_wc-DP for every pair, a
weaker statement than the calibrated one, which also holds eps = 1 except
with probability gamma. The same at add/remove (utility sensitivity 1/2:
another relation, the one diffprivlib's and OpenDP's documentation use),
plain at eps = 1 and calibrated, for reference.

Paired differences of the median errors (same data sets, bootstrap SE):
plain and calibrated against diffprivlib at eps = 1, calibrated against
diffprivlib at eps_wc, and calibrated against plain.

Coverage: for each calibration used, the share of fresh pairs (20 000, drawn
as ``calibrate_quantile`` draws them, with another seed) whose exact privacy
loss at the calibrated scale (``pair_losses``) exceeds eps, against gamma; at
add/remove also the pairs (D, D + x) with D of n records, the other
direction, which the calibration does not draw (for information).

Sweep: eps in {0.1, 0.3, 1, 3}, q in {0.5, 0.9} (replace-one, model bounds,
fewer data sets, shared by all cells): t / t0, eps_wc, the median errors of
the plain and calibrated mechanisms at eps, their ratio (paired bootstrap
SE), and the share of 5000 fresh pairs whose loss exceeds eps.

Not a test; always exits 0.

    python benchmarks/medians.py              # 2000 repetitions, about a minute
    python benchmarks/medians.py --reps 200 --sweep-reps 100
"""


from __future__ import annotations

import argparse

import numpy as np

from sensampler.bounds import Bounds
from sensampler.distributions import GaussianMixture
from sensampler.mechanisms import ExponentialQuantileMechanism
from sensampler.quantile_calibration import calibrate_quantile, pair_losses, plain_scale

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
N, EPSILON, HAND = 500, 1.0, (140.0, 210.0)
#: The calibration: gamma, and the seed of its pairs (fixed).
GAMMA, CALIBRATION_SEED = 0.05, 2017
#: Fresh pairs of the coverage check (main table, sweep), and per chunk.
COVERAGE_PAIRS, SWEEP_PAIRS, PAIRS_PER_CHUNK = 20_000, 5000, 2000


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


def _paired(a, b, rng) -> tuple[float, float]:
    """median(a) - median(b) on the same data sets, with its bootstrap SE."""
    a, b = np.asarray(a), np.asarray(b)
    index = rng.integers(0, a.size, (1000, a.size))
    diff = np.median(a[index], axis=1) - np.median(b[index], axis=1)
    return float(np.median(a) - np.median(b)), float(diff.std(ddof=1))


def _calibrated(q, bounds, epsilon, neighbours="replace-one"):
    """The mechanism calibrated at random DP on the heights model (fixed seed)."""
    calibration = calibrate_quantile(
        q, bounds, epsilon, HEIGHTS, N, gamma=GAMMA, neighbours=neighbours,
        random_state=CALIBRATION_SEED,
    )
    return ExponentialQuantileMechanism(
        q, bounds, epsilon, neighbours=neighbours, calibration=calibration
    )


def _random_dp(mech) -> str:
    return (f"(eps={mech.epsilon:g}, gamma={GAMMA:g})-random DP; "
            f"worst case eps_wc={mech.worst_case_epsilon:.4g}-DP")


def _fresh_pairs(population, n, size, neighbours, rng, direction="remove"):
    """``size`` pairs of neighbouring databases as (union, in_first, in_second).

    Replace-one: D and D with one record, at a uniform position, replaced by a
    fresh record; add/remove ``"remove"``: D and D less one record (the pairs
    ``calibrate_quantile`` draws); ``"add"``: D and D plus a fresh record.
    D has n records drawn from ``population``.
    """
    base = population.sample_batch(size, n, rng).reshape(size, n)
    rows, position = np.arange(size), rng.integers(n, size=size)
    if neighbours == "add-remove" and direction == "remove":
        in_second = np.ones((size, n), bool)
        in_second[rows, position] = False
        return base, np.ones((size, n), bool), in_second
    fresh = population.sample(size, rng).reshape(size, 1)
    union = np.concatenate([base, fresh], axis=1)
    in_first = np.ones((size, n + 1), bool)
    in_first[:, n] = False
    in_second = np.ones((size, n + 1), bool)
    if neighbours == "replace-one":
        in_second[rows, position] = False
    return union, in_first, in_second


def _miss_share(
    mech, pairs, rng, direction="remove", population=HEIGHTS, n=N
) -> tuple[float, float]:
    """Share of ``pairs`` fresh pairs (:func:`_fresh_pairs`) whose exact loss at
    ``mech``'s scale exceeds its epsilon, with its binomial SE."""
    misses = 0
    for start in range(0, pairs, PAIRS_PER_CHUNK):
        size = min(PAIRS_PER_CHUNK, pairs - start)
        drawn = _fresh_pairs(population, n, size, mech.neighbours, rng, direction)
        loss = pair_losses(*drawn, mech, np.array([float(mech.scale)]))[:, 0]
        misses += int(np.sum(loss > mech.epsilon))
    share = misses / pairs
    return share, float(np.sqrt(share * (1 - share) / pairs))


def run(reps: int, seed: int = 2027) -> None:
    rng = np.random.default_rng(seed)
    model = Bounds.from_population(HEIGHTS)
    pure = f"{EPSILON:g}-DP"
    calibrated = _calibrated(0.5, model, EPSILON)
    calibrated_ar = _calibrated(0.5, model, EPSILON, "add-remove")
    wc = calibrated.worst_case_epsilon
    at_wc = ExponentialQuantileMechanism(0.5, model, wc)
    reference = ExponentialQuantileMechanism(
        0.5, model, EPSILON, neighbours="add-remove"
    )
    candidates = np.linspace(*HAND, 7000)
    plain = ExponentialQuantileMechanism(0.5, model, EPSILON)
    laws = {  # name: (guarantee, mechanism whose output law is sampled)
        "sensampler, model bounds (coverage 0.999), grid 2^14": (pure, plain),
        "sensampler, model bounds (coverage 0.99)": (
            pure, ExponentialQuantileMechanism(
                0.5, Bounds.from_population(HEIGHTS, 0.99), EPSILON)),
        "sensampler, model bounds (coverage 0.99999)": (
            pure, ExponentialQuantileMechanism(
                0.5, Bounds.from_population(HEIGHTS, 0.99999), EPSILON)),
        "sensampler, hand bounds (140, 210)": (
            pure, ExponentialQuantileMechanism(0.5, HAND, EPSILON)),
        "sensampler, model bounds, grid 2^10": (
            pure, _CoarseGrid(0.5, model, EPSILON)),
        "sensampler calibrated, model bounds": (_random_dp(calibrated), calibrated),
        "sensampler plain at eps=eps_wc, model bounds": (f"{wc:.4g}-DP", at_wc),
    }
    others = {  # name: (guarantee, draw(data))
        "permute-and-flip, model bounds, grid 2^14": (
            pure, lambda data: _permute_and_flip(plain, data, rng)),
        "diffprivlib median (re-impl.), hand bounds": (
            pure, lambda data: _diffprivlib_median(data, EPSILON, HAND, rng)),
        "OpenDP private_quantile (re-impl.), 7000 cand.": (
            pure, lambda data: _opendp_median(data, EPSILON, candidates, rng)),
        "permute-and-flip at eps=eps_wc": (
            f"{wc:.4g}-DP", lambda data: _permute_and_flip(at_wc, data, rng)),
        "diffprivlib median (re-impl.) at eps=eps_wc": (
            f"{wc:.4g}-DP", lambda data: _diffprivlib_median(data, wc, HAND, rng)),
        "OpenDP private_quantile (re-impl.) at eps=eps_wc": (
            f"{wc:.4g}-DP", lambda data: _opendp_median(data, wc, candidates, rng)),
    }
    add_remove = {
        "sensampler at add/remove, model bounds": (f"{EPSILON:g}-DP", reference),
        "sensampler calibrated at add/remove": (_random_dp(calibrated_ar), calibrated_ar),
    }
    rows = {**{k: v[0] for k, v in laws.items()}, **{k: v[0] for k, v in others.items()},
            **{k: f"{v[0]} (add/remove)" for k, v in add_remove.items()}}
    errors = {name: [] for name in rows}
    for _ in range(reps):
        data = HEIGHTS.sample(N, random_state=rng)
        truth = float(np.median(data))
        for name, (_, mech) in (laws | add_remove).items():
            errors[name].append(abs(_sample_law(mech, data, rng) - truth))
        for name, (_, draw) in others.items():
            errors[name].append(abs(draw(data) - truth))
    print(f"heights median, n={N}, eps={EPSILON:g}, {reps} data sets (the same for all); "
          "replace-one unless stated")
    print(f"model bounds: {model.describe()}")
    for mech in (calibrated, calibrated_ar):
        run_ = mech.calibration.run
        print(f"calibration ({mech.neighbours}): t/t0 = "
              f"{mech.calibration.scale / float(plain_scale(mech)):.4f}, "
              f"eps_wc = {mech.worst_case_epsilon:.4g}, m = {run_.m}, k = {run_.k}, "
              f"gamma = {run_.gamma:.4g}, seed {CALIBRATION_SEED}")
    print(f"{'method':<52} {'guarantee':<76} {'median |err|':>12} {'± SE':>7} "
          f"{'mean |err|':>10}")
    for name, guarantee in rows.items():
        med, se, mean = _summary(np.asarray(errors[name]), rng)
        print(f"{name:<52} {guarantee:<76} {med:12.4f} {se:7.4f} {mean:10.4f}")
    dpl = "diffprivlib median (re-impl.), hand bounds"
    for a, b, text in (
        ("sensampler, model bounds (coverage 0.999), grid 2^14", dpl,
         "plain - diffprivlib, both eps=1"),
        ("sensampler calibrated, model bounds", dpl, "calibrated - diffprivlib at eps=1"),
        ("sensampler calibrated, model bounds",
         "diffprivlib median (re-impl.) at eps=eps_wc",
         "calibrated - diffprivlib at eps=eps_wc"),
        ("sensampler calibrated, model bounds",
         "sensampler, model bounds (coverage 0.999), grid 2^14",
         "calibrated - plain at eps=1"),
    ):
        diff, se = _paired(errors[a], errors[b], rng)
        print(f"paired difference of medians, {text}: {diff:+.4f} ± {se:.4f}")
    grid, p_cal = calibrated.output_law(data)
    print("largest difference of the laws, calibrated and plain at eps_wc, last data "
          f"set: {np.max(np.abs(p_cal - at_wc.output_law(data)[1])):.2e}")
    coverage_rng = np.random.default_rng(seed + 1)
    for mech, direction in ((calibrated, "remove"), (calibrated_ar, "remove"),
                            (calibrated_ar, "add")):
        share, se = _miss_share(mech, COVERAGE_PAIRS, coverage_rng, direction)
        what = ("pairs (D, D - x) as calibrated" if mech.neighbours == "add-remove"
                and direction == "remove" else "pairs (D, D + x), not drawn by the "
                "calibration" if mech.neighbours == "add-remove" else "pairs")
        print(f"coverage ({mech.neighbours}, {what}): loss > eps on "
              f"{share:.4f} ± {se:.4f} of {COVERAGE_PAIRS} fresh pairs (gamma = {GAMMA:g})")


def sweep(reps: int, seed: int = 2028) -> None:
    """t/t0, eps_wc and the error ratio calibrated/plain over eps and q."""
    rng = np.random.default_rng(seed)
    model = Bounds.from_population(HEIGHTS)
    datasets = HEIGHTS.sample_batch(reps, N, rng).reshape(reps, N)
    print(f"\nsweep: replace-one, model bounds, n={N}, gamma={GAMMA:g}, {reps} data sets "
          f"(the same for all cells); miss: loss > eps on {SWEEP_PAIRS} fresh pairs")
    print(f"{'q':>4} {'eps':>5} {'t/t0':>6} {'eps_wc':>7} {'k/m':>10} {'plain':>8} "
          f"{'calib.':>8} {'ratio':>7} {'± SE':>6} {'miss':>7} {'± SE':>6}")
    for q in (0.5, 0.9):
        truths = np.quantile(datasets, q, axis=1)
        for eps in (0.1, 0.3, 1.0, 3.0):
            plain = ExponentialQuantileMechanism(q, model, eps)
            calibrated = _calibrated(q, model, eps)
            a = np.array([abs(_sample_law(calibrated, d, rng) - t)
                          for d, t in zip(datasets, truths)])
            b = np.array([abs(_sample_law(plain, d, rng) - t)
                          for d, t in zip(datasets, truths)])
            index = rng.integers(0, reps, (1000, reps))
            boot = np.median(a[index], axis=1) / np.median(b[index], axis=1)
            miss, miss_se = _miss_share(calibrated, SWEEP_PAIRS, rng)
            run_ = calibrated.calibration.run
            print(f"{q:4g} {eps:5g} {calibrated.calibration.scale / plain_scale(plain):6.3f} "
                  f"{calibrated.worst_case_epsilon:7.4g} {f'{run_.k}/{run_.m}':>10} "
                  f"{np.median(b):8.4f} {np.median(a):8.4f} "
                  f"{np.median(a) / np.median(b):7.3f} {boot.std(ddof=1):6.3f} "
                  f"{miss:7.4f} {miss_se:6.4f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--sweep-reps", type=int, default=500)
    args = parser.parse_args(argv)
    run(args.reps)
    sweep(args.sweep_reps)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
