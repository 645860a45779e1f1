"""The quantile loss kernel: its ranks, extremes and nearest distances against
direct computations, and each scale's losses independent of the others asked.
(Its losses against the exact law: tests/sensampler/test_quantile_calibration.py.)"""

import numpy as np
import pytest

from sensampler import quantile_calibration
from sensampler._math.quantile_loss import _ranks, pair_classes
from sensampler.distributions import Categorical, GaussianMixture
from sensampler.mechanisms.quantile import ExponentialQuantileMechanism

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])


def _pairs(population, size, n, neighbours, seed=3):
    return quantile_calibration._draw_pairs(population, size, n, neighbours,
                                            np.random.default_rng(seed))


@pytest.mark.parametrize("bounds", [(140.0, 210.0), (0.1, 0.7), None])
def test_ranks_are_the_grid_points_at_or_below_each_clipped_value(bounds):
    """The guess on an evenly spaced grid is checked, so r is searchsorted's
    even on the grid points themselves and one ulp either side of them."""
    mech = ExponentialQuantileMechanism(0.5, bounds, 1.0)
    grid = mech.grid
    rng = np.random.default_rng(0)
    picked = grid[rng.integers(grid.size, size=2000)]
    values = np.concatenate([
        picked, np.nextafter(picked, -np.inf), np.nextafter(picked, np.inf),
        rng.uniform(mech.low - 1, mech.high + 1, size=2000), [mech.low, mech.high],
    ])
    expected = np.searchsorted(grid, np.clip(values, mech.low, mech.high), side="right")
    np.testing.assert_array_equal(_ranks(values, mech), expected)


@pytest.mark.parametrize("neighbours", ["replace-one", "add-remove"])
@pytest.mark.parametrize("q", [0.0, 0.3, 0.5, 1.0])
@pytest.mark.parametrize(("population", "bounds"), [
    (HEIGHTS, (140.0, 210.0)),
    (HEIGHTS, (165.0, 175.0)),  # most records clipped
    (Categorical([0.5, 0.5], values=[0.3, 0.6]), (0.0, 1.0)),  # ties
])
def test_extremes_and_nearest_are_those_over_the_columns_held(
    population, bounds, q, neighbours
):
    """high, low and nearest, found from a few grid points per pair, equal the
    reductions over every column holding a grid point: nearest exactly; the
    extremes of s, exact where s is monotone, within the rounding of the
    distances (a few ulps of n: the computed s need not be monotone)."""
    mech = ExponentialQuantileMechanism(q, bounds, 1.0, neighbours=neighbours)
    for n in (2, 7, 300):
        classes = pair_classes(*_pairs(population, 200, n, neighbours), mech)
        held = classes.grid_points > 0
        shift = classes.second - classes.first
        ulps = (n + 2) * 2.0**-50
        np.testing.assert_allclose(
            classes.high, np.max(np.where(held, shift, -np.inf), axis=1), rtol=0, atol=ulps)
        np.testing.assert_allclose(
            classes.low, np.min(np.where(held, shift, np.inf), axis=1), rtol=0, atol=ulps)
        for i, distances in enumerate((classes.first, classes.second)):
            np.testing.assert_array_equal(
                classes.nearest[:, i], np.min(np.where(held, distances, np.inf), axis=1))


def test_the_histogram_holds_every_grid_point_once():
    mech = ExponentialQuantileMechanism(0.5, (140.0, 210.0), 1.0)
    classes = pair_classes(*_pairs(HEIGHTS, 50, 40, "replace-one"), mech)
    np.testing.assert_array_equal(classes.grid_points.sum(axis=1), mech.grid_size + 1)


@pytest.mark.parametrize(("n", "pairs"), [(500, 300), (20_000, 4)])
def test_a_scales_losses_do_not_depend_on_the_others_asked(n, pairs):
    """The calibration caches each scale's losses from whichever block asked
    first (and SampledLosses shares them across epsilons): they must be the same
    bits asked alone, in blocks or all together, also where the normalisers are
    summed on a window of columns (n = 20 000)."""
    mech = ExponentialQuantileMechanism(0.5, (140.0, 210.0), 1.0)
    classes = pair_classes(*_pairs(HEIGHTS, pairs, n, "replace-one"), mech)
    scales = quantile_calibration.candidate_scales(1.0, 1.0)
    whole = classes.losses(scales)
    alone = np.concatenate([classes.losses(scales[i:i + 1]) for i in range(scales.size)],
                           axis=1)
    blocks = np.concatenate([classes.losses(scales[i:i + 4])
                             for i in range(0, scales.size, 4)], axis=1)
    np.testing.assert_array_equal(whole, alone)
    np.testing.assert_array_equal(whole, blocks)
