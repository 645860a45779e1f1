import numpy as np
import pytest
from scipy import stats

from sensampler.audit._binomial import interval, lower_bound, upper_bound


@pytest.mark.parametrize(
    "x, n", [(0, 10), (1, 10), (5, 10), (10, 10), (3, 1000), (997, 1000), (0, 1)]
)
@pytest.mark.parametrize("confidence", [0.5, 0.95, 0.99])
def test_interval_matches_scipy_exact_binomial_interval(x, n, confidence):
    # scipy.stats.binomtest computes the Clopper-Pearson interval by root finding
    # on the binomial tails: an independent implementation.
    expected = stats.binomtest(x, n).proportion_ci(confidence, method="exact")
    low, high = interval(x, n, confidence)
    assert low == pytest.approx(expected.low, abs=1e-12)
    assert high == pytest.approx(expected.high, abs=1e-12)


def test_one_sided_bounds_are_attained_at_the_binomial_tails():
    # P[Bin(n, p_low) >= x] = 1 - level and P[Bin(n, p_high) <= x] = 1 - level.
    x, n, level = np.array([1, 7, 40]), 50, 0.995
    low, high = lower_bound(x, n, level), upper_bound(x, n, level)
    np.testing.assert_allclose(stats.binom.sf(x - 1, n, low), 1 - level, rtol=1e-9)
    np.testing.assert_allclose(stats.binom.cdf(x, n, high), 1 - level, rtol=1e-9)
