"""Audit findings on the exponential quantile mechanism: its pure epsilon-DP
statement against what the implementation releases (fixed: a public grid of
outputs, sampled exactly)."""

import random

import numpy as np

from sensampler.mechanisms import ExponentialQuantileMechanism


def _odd_ulp_in_eighth_to_quarter(x: float) -> bool:
    """x in [1/8, 1/4) and an odd multiple of 2^-55 (the spacing of doubles there)."""
    if not 0.125 <= x < 0.25:
        return False
    k = x * 2.0**55  # exact: a power-of-two scaling
    return k == int(k) and int(k) % 2 == 1


def test_outputs_of_one_database_are_outputs_of_its_neighbour():
    # bounds (0, 1), median of one record: D = [0.5], D' = [0.3] (replace-one).
    # The floating-point output edges[i] + U * width reached odd multiples of
    # 2^-55 in [1/8, 1/4) on D' (~270 of 4000) and never on D. Every output must
    # now be a point of the public grid, the same for both databases, so no
    # output is possible on one and impossible on the other.
    mech = ExponentialQuantileMechanism(0.5, (0.0, 1.0), epsilon=1.0)
    grid = set(mech.grid.tolist())
    rng = np.random.default_rng(20261126)
    draws = 4000
    for records in ([0.5], [0.3]):
        out = [mech.release(records, random_state=rng) for _ in range(draws)]
        assert all(x in grid for x in out)
        assert not any(_odd_ulp_in_eighth_to_quarter(x) for x in out)
        # and the support is the whole grid on both: every chance is positive
        assert np.all(mech.output_law(records)[1] > 0)


class _MostFavourable(random.Random):
    """An integer source scripted to pick grid point ``favoured`` as the
    proposal and to make every exact Bernoulli(exp(-gamma)) succeed: the most
    favourable draws for one point, the analogue of the largest Gumbel value."""

    favoured = 0
    grid_points = ExponentialQuantileMechanism.grid_size + 1

    def randrange(self, n):
        if n == self.grid_points:
            return self.favoured
        # CKS Algorithm 1 trial k draws below den * k and succeeds below num:
        # succeed at k = 1, 2 (n <= 2 for gamma's whole part, den = 1) and fail
        # at the next, so K is odd (3 or 1) and the trial accepts.
        return 0 if n <= 2 else n - 1


def test_every_gap_of_positive_probability_can_be_selected():
    # records 0..199, bounds (-1, 200), median, epsilon = 2.05 (the utility's
    # scale is 1.025 per rank). A grid point in (60, 61) has 61 records below
    # it, utility -39: its chance is ~e^-40 of the best one's, and with
    # numpy's bounded Gumbel draws it could never be selected. The exact
    # sampler has no such floor: with the most favourable draws it is selected.
    data = np.arange(200.0)
    mech = ExponentialQuantileMechanism(0.5, (-1.0, 200.0), epsilon=2.05)
    # The neighbour replaces record 0 by 199.5: utility -40 there, log-chance 41
    # below the best, still positive.
    neighbour = np.append(data[1:], 199.5)
    favoured = int(np.searchsorted(mech.grid, 60.5))
    assert 60.0 < mech.grid[favoured] < 61.0
    for records in (data, neighbour):
        grid, probabilities = mech.output_law(records)
        assert probabilities[favoured] > 0
        rng = _MostFavourable(0)
        rng.favoured = favoured
        assert mech.release(records, random_state=rng) == grid[favoured]
