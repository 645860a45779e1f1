"""The exponential quantile mechanism against an independent high-precision law,
a brute-force utility sensitivity and an empirical audit (with its power)."""

import dataclasses
import functools
import itertools
import math
import pickle
import random
import re
from fractions import Fraction
from types import SimpleNamespace

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

from sensampler.accounting import PrivacyFilter
from sensampler.audit import audit_mechanism
from sensampler.distributions import GaussianMixture, Normal
from sensampler.mechanisms import ExponentialQuantileMechanism, QuantileCalibration
from sensampler.quantile_calibration import calibrate_quantile

mp.mp.dps = 50


# --------------------------------------------------------------- the oracle
G = ExponentialQuantileMechanism.grid_size


def exact_law(data, q, low, high, epsilon, du):
    """Grid points' counts and chances at 50 digits: the G + 1 points
    low + j (high - low) / G, point j with c_j records below it and weight
    exp(-eps |c_j - q n| / (2 du)). Returns {c_j: (points of that count,
    total chance)}, the law grouped by count (points of equal count are equally
    likely)."""
    inside = sorted(min(max(mp.mpf(x), mp.mpf(low)), mp.mpf(high)) for x in data)
    n = len(data)
    points = {}
    k = 0
    for t in _grid(low, high):
        while k < n and inside[k] < t:
            k += 1
        points[k] = points.get(k, 0) + 1
    weights = {
        c: m * mp.exp(-mp.mpf(epsilon) * abs(c - mp.mpf(q) * n) / (2 * mp.mpf(du)))
        for c, m in points.items()
    }
    total = mp.fsum(weights.values())
    return {c: (points[c], w / total) for c, w in weights.items()}


@functools.lru_cache
def _grid(low, high):
    """The G + 1 grid points at 50 digits."""
    low, high = mp.mpf(low), mp.mpf(high)
    return tuple(low + (high - low) * j / G for j in range(G + 1))


def count_below(data, low, high, t):
    """c(t): the clipped records below t."""
    return sum(min(max(x, low), high) < t for x in data)


def log_ratio(law_a, law_b, count_a, count_b):
    """log P_a(t) / P_b(t) for a grid point t with counts count_a, count_b."""
    (m_a, p_a), (m_b, p_b) = law_a[count_a], law_b[count_b]
    return mp.log((p_a / m_a) / (p_b / m_b))


def realised_epsilon(a, b, q, epsilon, du):
    """Largest |log P_a(t)/P_b(t)| over the grid, at 50 digits."""
    law_a, law_b = exact_law(a, q, 0, 1, epsilon, du), exact_law(b, q, 0, 1, epsilon, du)
    grid = np.arange(G + 1) / G  # exact: G is a power of two
    pairs = set(zip(
        np.searchsorted(np.sort(np.clip(a, 0, 1)), grid, side="left").tolist(),
        np.searchsorted(np.sort(np.clip(b, 0, 1)), grid, side="left").tolist(),
    ))
    return max(abs(log_ratio(law_a, law_b, ca, cb)) for ca, cb in pairs)


# ------------------------------------------------------- exact distribution
@pytest.mark.slow
@pytest.mark.parametrize(
    "data, q, epsilon, neighbours, du",
    [
        # two records clipped onto the bounds
        ([-3.0, 0.1, 0.25, 0.4, 0.8, 7.0], 0.5, 2.0, "replace-one", 1.0),
        ([0.1, 0.25, 0.4, 0.8], 0.3, 1.0, "add-remove", 0.7),  # max(q, 1 - q)
    ],
)
def test_output_law_matches_the_exact_law(data, q, epsilon, neighbours, du):
    mech = ExponentialQuantileMechanism(q, (0.0, 1.0), epsilon, neighbours=neighbours)
    assert mech.utility_sensitivity == pytest.approx(du, rel=1e-15)
    assert mech.utility_sensitivity >= Fraction(du)  # rounded up, never down
    law = exact_law(data, q, 0.0, 1.0, epsilon, du)
    grid, probabilities = mech.output_law(data)
    assert grid.size == G + 1 and (grid[0], grid[-1]) == (0.0, 1.0)
    for j in (0, 1, 1000, G // 2, G):
        c = count_below(data, 0.0, 1.0, mp.mpf(j) / G)
        m, p = law[c]
        assert probabilities[j] == pytest.approx(float(p / m), rel=1e-12)
    rng = np.random.default_rng(20261126)
    draws = 20_000
    out = np.array([mech.release(data, random_state=rng) for _ in range(draws)])
    assert np.all(np.isin(out, grid))  # only grid points
    # each count class's frequency within 6 binomial standard errors
    counts = np.searchsorted(np.sort(np.clip(data, 0, 1)), out, side="left")
    for c, (_, p) in law.items():
        p = float(p)
        se = math.sqrt(p * (1 - p) / draws)
        assert abs(np.mean(counts == c) - p) < 6 * se + 1e-12
    # within a class, the grid points are equally likely: the two halves of the
    # most likely class split evenly
    best = max(law, key=lambda c: law[c][1])
    chosen = np.flatnonzero(np.isin(grid, out[counts == best]))
    members = np.flatnonzero(
        np.searchsorted(np.sort(np.clip(data, 0, 1)), grid, side="left") == best
    )
    middle = members[members.size // 2]
    in_class = out[counts == best]
    lower = np.mean(in_class < grid[middle])
    share = (middle - members[0]) / members.size
    assert chosen.size > 1
    assert abs(lower - share) < 6 * math.sqrt(share * (1 - share) / in_class.size)


# ------------------------------------------------ sensitivity of the utility
def _utility(data, q, t):
    return -abs(sum(x < t for x in data) - q * len(data))


@pytest.mark.parametrize("q", [0.0, 0.2, 0.5, 0.9, 1.0])
def test_utility_sensitivity_is_tight_by_brute_force(q):
    # every database of up to 3 records on a 4-point grid, every neighbour,
    # outputs between the grid points: the largest change of u is the stated one
    grid = [0.0, 1.0, 2.0, 3.0]
    outputs = [-0.5, 0.5, 1.5, 2.5, 3.5]
    replace, add = 0.0, 0.0
    for n in range(1, 4):
        for data in itertools.product(grid, repeat=n):
            for t in outputs:
                u = _utility(data, q, t)
                for x in grid:
                    changed = (x, *data[1:])
                    replace = max(replace, abs(_utility(changed, q, t) - u))
                    add = max(add, abs(_utility((*data, x), q, t) - u))
    assert replace == ExponentialQuantileMechanism(q, (0, 1), 1.0).utility_sensitivity
    assert add == pytest.approx(
        ExponentialQuantileMechanism(
            q, (0, 1), 1.0, neighbours="add-remove"
        ).utility_sensitivity
    )


@pytest.mark.slow
@pytest.mark.parametrize("neighbours", ["replace-one", "add-remove"])
def test_exact_privacy_loss_is_within_epsilon_for_every_small_pair(neighbours):
    # the exact law's largest log-probability ratio over all neighbours on a grid
    q, epsilon = 0.4, 1.5
    du = 1.0 if neighbours == "replace-one" else 0.6
    grid = [0.1, 0.5, 0.9]
    worst = mp.mpf(0)
    for data in itertools.product(grid, repeat=2):
        for x in grid:
            other = (x, data[1]) if neighbours == "replace-one" else (*data, x)
            worst = max(worst, realised_epsilon(data, other, q, epsilon, du))
    assert 0.1 < worst <= epsilon


@pytest.mark.slow
def test_the_factor_two_is_needed_at_replace_one():
    # The normaliser can move against the output: with most of the grid between
    # the 2nd and 3rd records of a, moving the 3rd below the 1st lowers the
    # weight of that mass by e^(-beta) while the points just above the new
    # record gain e^(beta): the loss reaches 2 beta, beta = eps / (2 du). With
    # du = 1 (the stated sensitivity) that is eps, attained: the calibration is
    # tight; with du = 1/2 (no factor 2, or a "smaller utility sensitivity") it
    # is 2 eps, so neither a smaller du nor weights exp(eps u / du) are eps-DP
    # for replace-one neighbours.
    a, b = (0.001, 0.002, 0.999), (0.0005, 0.001, 0.002)
    epsilon = 1.0
    stated = realised_epsilon(a, b, 0.5, epsilon, 1.0)
    assert epsilon * (1 - 1e-2) < stated <= epsilon
    assert realised_epsilon(a, b, 0.5, epsilon, 0.5) > 1.9 * epsilon


# --------------------------------------------------------------------- audit
def _ratio_statistic(a, b, q, epsilon, du):
    """log P_a(t)/P_b(t) at each grid point t: the audit's threshold sets are
    then likelihood-ratio sets, the most powerful."""
    law_a, law_b = exact_law(a, q, 0, 1, epsilon, du), exact_law(b, q, 0, 1, epsilon, du)
    grid = np.arange(G + 1) / G
    count_a = np.searchsorted(np.sort(np.clip(a, 0, 1)), grid, side="left")
    count_b = np.searchsorted(np.sort(np.clip(b, 0, 1)), grid, side="left")
    ratios = {pair: float(log_ratio(law_a, law_b, *pair))
              for pair in set(zip(count_a.tolist(), count_b.tolist()))}
    values = np.array([ratios[pair] for pair in zip(count_a.tolist(), count_b.tolist())])

    def statistic(outputs):
        return values[np.rint(np.asarray(outputs) * G).astype(int)]

    return statistic


class _Weakened(ExponentialQuantileMechanism):
    """States epsilon but uses a quarter of the utility's sensitivity."""

    def __init__(self, q, bounds, epsilon, *, neighbours="replace-one"):
        super().__init__(q, bounds, epsilon, neighbours=neighbours)
        self.utility_sensitivity /= 4.0


@pytest.mark.parametrize(
    "a, b, neighbours, du",
    [
        ([0.3, 0.5, 0.7], [0.3, 0.5, 0.01], "replace-one", 1.0),
        ([0.3, 0.5, 0.7], [0.3, 0.5, 0.7, 0.99], "add-remove", 0.5),
    ],
)
@pytest.mark.slow  # two audits of 10^5 exact releases each
def test_audit_keeps_the_statement_and_flags_a_weakened_copy(a, b, neighbours, du):
    epsilon = 1.0
    for cls, factor, violated in ((ExponentialQuantileMechanism, 1, False),
                                  (_Weakened, 4, True)):
        mech = cls(0.5, (0.0, 1.0), epsilon, neighbours=neighbours)
        result = audit_mechanism(
            mech, a, b, releases=20_000,
            statistic=_ratio_statistic(a, b, 0.5, epsilon * factor, du),
            random_state=7,
        )
        assert result.stated == epsilon
        assert result.violated is violated, result
        if not violated:  # not vacuous: it finds most of the realised loss
            assert result.epsilon_lower > 0.5 * float(
                realised_epsilon(a, b, 0.5, epsilon, du)
            )


# ---------------------------------------------------------------- edge cases
@pytest.mark.slow
def test_no_records_draws_uniformly_on_the_bounds():
    mech = ExponentialQuantileMechanism(0.5, (2.0, 6.0), 1.0)
    rng = np.random.default_rng(3)
    out = np.array([mech.release([], random_state=rng) for _ in range(4000)])
    assert stats.kstest(out, stats.uniform(2.0, 4.0).cdf).pvalue > 1e-9


@pytest.mark.parametrize("epsilon", [1e-300, 1.0, 1e300, 1.7e308])
def test_every_record_on_one_bound(epsilon):
    # all records clipped onto low: only the gap (low, high) is open, so the
    # output is uniform there whatever epsilon
    mech = ExponentialQuantileMechanism(0.5, (0.0, 1.0), epsilon)
    out = [mech.release(np.full(50, -4.0), random_state=s) for s in range(200)]
    assert stats.kstest(out, "uniform").pvalue > 1e-9


@pytest.mark.slow
def test_huge_and_tiny_epsilon_stay_finite_and_sensible():
    data = np.linspace(0.0, 10.0, 101)  # median 5
    sharp = ExponentialQuantileMechanism(0.5, (0.0, 10.0), 1e308)
    out = [sharp.release(data, random_state=s) for s in range(50)]
    assert all(4.9 <= x <= 5.1 for x in out)  # the two gaps next to rank 50.5
    flat = ExponentialQuantileMechanism(0.5, (0.0, 10.0), 1e-300)
    out = [flat.release(data, random_state=s) for s in range(2000)]
    assert stats.kstest(out, stats.uniform(0, 10).cdf).pvalue > 1e-9
    for eps in (1e-300, 1e308):
        assert math.isfinite(ExponentialQuantileMechanism(0.5, (0, 1), eps).privacy.rho)


def test_bounds_from_an_object_and_clipping():
    bounds = SimpleNamespace(low=-1.0, high=1.0)
    mech = ExponentialQuantileMechanism(1.0, bounds, 50.0)
    assert (mech.low, mech.high) == (-1.0, 1.0)
    out = mech.release([987654.321, 0.0, 0.5], random_state=0)
    assert 0.5 <= out <= 1.0  # never beyond the bound, never the outlier


def test_statement_is_plain_pure_dp():
    for neighbours in ("replace-one", "add-remove"):
        s = ExponentialQuantileMechanism(0.9, (0, 1), 0.5, neighbours=neighbours).privacy
        assert (s.epsilon, s.delta, s.gamma, s.source, s.run) == (0.5, 0.0, 0.0,
                                                                  "global", None)
        assert s.neighbours == neighbours and s.rho == 0.5**2 / 8
        assert str(s) == f"exponential quantile: epsilon=0.5-DP ({neighbours} neighbours)"
        s.to_dp_event(neighbours=neighbours)  # a plain DP event: no gamma to allow


BAD = [
    (dict(q=1.5), ValueError, "q must be"),
    (dict(q="a"), TypeError, "q must be"),
    (dict(bounds=(1.0, 1.0)), ValueError,
     "bounds must have low < high (a range of positive width), got low=1.0, high=1.0."),
    (dict(bounds=(2.0, 1.0)), ValueError, "bounds must have low < high"),
    (dict(bounds=(0.0, np.nan)), ValueError, "bounds must be finite, got high=nan."),
    (dict(bounds=(-1e308, 1e308)), ValueError, "bounds must have a finite width"),
    (dict(bounds=(0.0, "1")), TypeError, "bounds must hold real numbers, got high='1'."),
    (dict(bounds=(0, 1, 2)), TypeError, "bounds must be a (low, high) pair"),
    (dict(epsilon=0.0), ValueError, "epsilon must be"),
    (dict(epsilon=math.inf), ValueError, "epsilon must be"),
    (dict(neighbours="swap"), ValueError, "neighbours must be"),
]


@pytest.mark.parametrize("change, error, message", BAD)
def test_bad_arguments_are_refused_by_name(change, error, message):
    arguments = {"q": 0.5, "bounds": (0.0, 1.0), "epsilon": 1.0, **change}
    neighbours = arguments.pop("neighbours", "replace-one")
    with pytest.raises(error, match=re.escape(message)):
        ExponentialQuantileMechanism(**arguments, neighbours=neighbours)


@pytest.mark.parametrize(
    "value, error, message",
    [
        ([0.5, np.nan], ValueError, "value must be finite; the data hold NaN or infinity."),
        ([0.5, -np.inf], ValueError, "value must be finite"),
        ([[0.5]], ValueError, "value must be the data column (1-d, one number per "
                              "record), got shape (1, 1)."),
        (0.5, ValueError, "got shape ()"),
        ("0.5", TypeError, "got a str"),
        ([object()], TypeError, "value must be the data column"),
    ],
)
def test_bad_data_refused_before_spending_or_drawing(value, error, message):
    mech = ExponentialQuantileMechanism(0.5, (0.0, 1.0), 1.0)
    budget = PrivacyFilter(10.0)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(error, match=re.escape(message)):
        budget.release(mech, value, random_state=rng)
    assert budget.count == 0 and rng.bit_generator.state == state


def test_a_record_is_never_quoted():
    mech = ExponentialQuantileMechanism(0.5, (0.0, 1.0), 1.0)
    with pytest.raises(ValueError) as info:
        mech.release([987654.321, np.nan])
    assert "987654" not in str(info.value)


def test_immutable_picklable_and_recalibrated():
    mech = ExponentialQuantileMechanism(0.5, (0.0, 1.0), 1.0)
    with pytest.raises(AttributeError, match="immutable"):
        mech.utility_sensitivity = 0.1
    with pytest.raises(AttributeError, match="immutable"):
        mech.low = 0.5
    clone = pickle.loads(pickle.dumps(mech))
    assert clone.privacy == mech.privacy
    assert clone.release([0.2, 0.4], random_state=5) == mech.release(
        [0.2, 0.4], random_state=5
    )
    other = mech.recalibrate(epsilon=2.0, neighbours="add-remove")
    assert (other.epsilon, other.utility_sensitivity, mech.epsilon) == (2.0, 0.5, 1.0)


def test_a_filter_spends_the_plain_statement_then_releases():
    budget = PrivacyFilter(1.0)
    mech = ExponentialQuantileMechanism(0.5, (0.0, 1.0), 0.4)
    out = budget.release(mech, [0.2, 0.4, 0.6], random_state=0)
    assert 0.0 <= out <= 1.0 and budget.count == 1
    assert budget.spent.epsilon == pytest.approx(0.4) and budget.gamma == 0.0


@pytest.mark.slow
def test_output_law_is_the_law_release_samples():
    # The grid points' chances by definition: exp(epsilon u / 2), u = -|c - qn|,
    # for n = 3 records in (0, 10) at q = 0.5; and the releases' class frequencies.
    data, eps = np.array([7.5, 2.0, 3.0]), 1.3
    mech = ExponentialQuantileMechanism(0.5, (0.0, 10.0), eps)
    grid, probabilities = mech.output_law(data)
    np.testing.assert_array_equal(grid, np.arange(G + 1) * (10.0 / G))
    below = (data[None, :] < grid[:, None]).sum(axis=1)
    weights = np.exp(eps * -np.abs(below - 1.5) / 2.0)
    np.testing.assert_allclose(probabilities, weights / weights.sum(), rtol=1e-12)
    rng = np.random.default_rng(11)
    releases = np.array([mech.release(data, random_state=rng) for _ in range(20_000)])
    assert np.all(np.isin(releases, grid))
    classes = (data[None, :] < releases[:, None]).sum(axis=1)
    for c in range(4):
        p = probabilities[below == c].sum()
        se = math.sqrt(p * (1 - p) / releases.size)
        assert abs(np.mean(classes == c) - p) < 6 * se


@pytest.mark.slow
def test_output_law_is_the_law_release_samples_on_500_heights():
    """The law at a release's size, with a sampled scale, for the planning tests.

    The planning tests (``tests/sensampler/app/planning``) simulate quantile
    releases by sampling ``output_law``; this checks that law against 2 000
    exact releases on 500 heights, the mechanism calibrated as a release
    calibrates it: the chance of each of ten bins of the grid, and the mean
    error, each within 6 standard errors.
    """
    heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
    data = heights.sample(500, random_state=3)
    bounds, epsilon = (141.77, 199.73), 0.57
    calibration = calibrate_quantile(0.5, bounds, epsilon, heights, 500, gamma=0.05,
                                     random_state=4)
    mech = ExponentialQuantileMechanism(0.5, bounds, epsilon, calibration=calibration)
    grid, chances = mech.output_law(data)
    rng = np.random.default_rng(12)
    releases = np.array([mech.release(data, random_state=rng) for _ in range(2_000)])
    # ten bins of about equal chance, cut at the law's deciles
    edges = np.searchsorted(np.cumsum(chances), np.arange(1, 10) / 10)
    expected = np.add.reduceat(chances, np.r_[0, edges + 1])
    observed = np.bincount(np.searchsorted(grid[edges], releases, side="left"),
                           minlength=10) / releases.size
    se = np.sqrt(expected * (1 - expected) / releases.size)
    assert np.all(np.abs(observed - expected) < 6 * se), (observed, expected)
    answer = np.median(data)
    law_error = np.sum(chances * np.abs(grid - answer))
    errors = np.abs(releases - answer)
    assert abs(errors.mean() - law_error) < 6 * errors.std(ddof=1) / math.sqrt(errors.size)


def test_a_release_takes_a_random_random_and_reproduces_with_a_seed():
    mech = ExponentialQuantileMechanism(0.5, (0.0, 1.0), 1.0)
    data = [0.2, 0.4, 0.6]
    assert mech.release(data, random_state=random.Random(3)) == mech.release(
        data, random_state=random.Random(3)
    )
    assert mech.release(data) in mech.grid  # the secure generator by default


@pytest.mark.slow
def test_a_hundred_thousand_records_release_quickly():
    # vectorised counts; the rejection sampler needs at most G + 1 proposals
    data = np.random.default_rng(5).normal(170, 8, size=100_000)
    mech = ExponentialQuantileMechanism(0.5, (140, 210), 1.0)
    out = [mech.release(data, random_state=s) for s in range(5)]
    assert all(abs(x - np.median(data)) < 0.5 for x in out)


def test_a_filter_passes_the_secure_generator_by_default():
    mech = ExponentialQuantileMechanism(0.5, (0.0, 1.0), 0.4)
    _, source = mech.check_release([0.2, 0.4])
    assert isinstance(source, random.SystemRandom)
    assert mech.check_release([0.2], random_state=random.Random(1))[1].random() == (
        random.Random(1).random()
    )
    with pytest.raises(TypeError, match="random_state"):
        mech.check_release([0.2], random_state="seed")


# --------------------------------------------------- calibrated on a population
@pytest.fixture(scope="module")
def calibration():
    """A scale sampled on [0, 1] (n = 100, gamma = 0.05): t about 1.2 t0."""
    return calibrate_quantile(0.5, (0.0, 1.0), 1.0, Normal(0.5, 0.15), 100,
                              gamma=0.05, random_state=20261126)


def test_the_calibrated_statement_states_its_worst_case_rounded_up(calibration):
    cal = calibration
    mech = ExponentialQuantileMechanism(0.5, (0.0, 1.0), 1.0, calibration=cal)
    s = mech.privacy
    assert (s.epsilon, s.delta, s.source, s.gamma, s.run, s.neighbours) == (
        1.0, 0.0, "sampled", cal.run.gamma, cal.run, "replace-one")
    assert 0.0 < s.gamma < 0.05
    assert mech.scale == Fraction(cal.scale) > Fraction(1, 2)  # the float, exactly
    worst = mech.worst_case_epsilon
    exact = 2 * Fraction(cal.scale)  # 2 t du, du = 1
    assert Fraction(worst) >= exact > Fraction(math.nextafter(worst, 0.0))
    w = s.worst_case
    assert (w.epsilon, w.delta, w.gamma, w.source, w.run) == (
        worst, 0.0, 0.0, "global", None)
    # rho rounded up: epsilon^2 / 2 for the random-DP part, worst^2 / 8 for the
    # bounded-range worst case
    assert Fraction(s.rho) >= Fraction(1, 2)
    assert Fraction(w.rho) >= Fraction(worst) ** 2 / 8
    assert Fraction(math.nextafter(w.rho, 0.0)) < Fraction(worst) ** 2 / 8
    assert "worst case: epsilon=" in str(s) and "gamma=" in str(s)
    w.to_dp_event(neighbours="replace-one")  # a plain DP event: no allow_gamma
    with pytest.raises(ValueError, match="gamma"):
        s.to_dp_event(neighbours="replace-one")


@pytest.mark.slow
def test_the_calibrated_worst_case_is_tight_and_holds_for_every_small_pair(
    calibration,
):
    # at 50 digits: weights exp(-t |c - qn|) are those of epsilon = 2t, du = 1
    t = calibration.scale
    mech = ExponentialQuantileMechanism(0.5, (0.0, 1.0), 1.0, calibration=calibration)
    worst = mech.worst_case_epsilon
    tight = realised_epsilon((0.001, 0.002, 0.999), (0.0005, 0.001, 0.002), 0.5,
                             2 * t, 1.0)
    assert 0.99 * worst < tight <= worst and tight > 1.0
    grid = [0.1, 0.5, 0.9]
    for data in itertools.product(grid, repeat=2):
        for x in grid:
            assert realised_epsilon(data, (x, data[1]), 0.5, 2 * t, 1.0) <= worst


@pytest.mark.slow
def test_a_calibrated_release_samples_the_law_at_the_sampled_scale(calibration):
    t = calibration.scale
    unsized = dataclasses.replace(calibration, n=None)  # five records, unchecked
    mech = ExponentialQuantileMechanism(0.5, (0.0, 1.0), 1.0, calibration=unsized)
    data = [0.1, 0.25, 0.4, 0.8, 1.7]
    law = exact_law(data, 0.5, 0.0, 1.0, 2 * t, 1.0)
    _, probabilities = mech.output_law(data)
    for j in (0, 1000, G // 2, G):
        m, p = law[count_below(data, 0.0, 1.0, mp.mpf(j) / G)]
        assert probabilities[j] == pytest.approx(float(p / m), rel=1e-12)
    rng = np.random.default_rng(4)
    draws = 5000
    out = np.array([mech.release(data, random_state=rng) for _ in range(draws)])
    counts = np.searchsorted(np.sort(np.clip(data, 0, 1)), out, side="left")
    for c, (_, p) in law.items():
        p = float(p)
        assert abs(np.mean(counts == c) - p) < 6 * math.sqrt(p * (1 - p) / draws) + 1e-12


@pytest.mark.parametrize(
    "change, name",
    [
        (dict(q=0.4), "q"),
        (dict(bounds=(0.0, 2.0)), "high"),
        (dict(epsilon=1.5), "epsilon"),
        (dict(neighbours="add-remove"), "neighbours"),
    ],
)
def test_a_calibration_of_another_mechanism_is_refused(calibration, change, name):
    arguments = {"q": 0.5, "bounds": (0.0, 1.0), "epsilon": 1.0,
                 "neighbours": "replace-one", **change}
    with pytest.raises(ValueError, match="calibration was made for") as info:
        ExponentialQuantileMechanism(**arguments, calibration=calibration)
    assert name in str(info.value)


def test_a_calibration_is_a_checked_record(calibration):
    cal = calibration
    with pytest.raises(TypeError, match="calibration must be a QuantileCalibration"):
        ExponentialQuantileMechanism(0.5, (0, 1), 1.0, calibration=cal.scale)
    mech = ExponentialQuantileMechanism(0.5, (0, 1), 1.0, calibration=cal)
    with pytest.raises(AttributeError, match="immutable"):
        mech.calibration = None
    with pytest.raises(dataclasses.FrozenInstanceError):
        cal.scale = 10.0
    with pytest.raises(ValueError, match="calibration was made for"):
        mech.recalibrate(epsilon=2.0)  # a scale for epsilon = 1 only
    plain = mech.recalibrate(calibration=None)
    assert plain.privacy.source == "global" and plain.worst_case_epsilon == 1.0
    clone = pickle.loads(pickle.dumps(mech))
    assert clone.privacy == mech.privacy and clone.scale == mech.scale
    # a scale below the plain one is refused; the record checks its own fields
    low = QuantileCalibration(0.5, 0.0, 1.0, 1.0, "replace-one", 0.25, cal.run)
    with pytest.raises(ValueError, match="below the plain"):
        ExponentialQuantileMechanism(0.5, (0, 1), 1.0, calibration=low)
    for scale in (math.nan, math.inf, 0.0, -1.0, 1):
        with pytest.raises(ValueError, match="scale must be a finite float"):
            QuantileCalibration(0.5, 0.0, 1.0, 1.0, "replace-one", scale, cal.run)
    with pytest.raises(ValueError, match="differ from the run's"):
        QuantileCalibration(0.5, 0.0, 1.0, 1.0, "add-remove", 0.6, cal.run)
    with pytest.raises(TypeError, match="run must be a SamplingRun"):
        QuantileCalibration(0.5, 0.0, 1.0, 1.0, "replace-one", 0.6, None)


def test_a_calibrated_release_takes_databases_of_its_n_only(calibration):
    # Failed before: the calibration recorded no n, and a scale sampled for
    # n = 500 was used at any size (on the heights, 13.5% of the pairs of
    # 20 000 records lose more than epsilon, gamma = 0.05).
    assert calibration.n == 100
    mech = ExponentialQuantileMechanism(0.5, (0.0, 1.0), 1.0, calibration=calibration)
    data = np.random.default_rng(0).uniform(size=101)
    budget = PrivacyFilter(10.0)
    for random_state in (np.random.default_rng(0), random.Random(0), None):
        with pytest.raises(ValueError, match=re.escape(
            "value holds 101 records, but the calibration's scale was sampled for "
            "databases of n=100 records"
        )):
            budget.release(mech, data, random_state=random_state)
    assert budget.count == 0
    assert 0.0 <= budget.release(mech, data[:100], random_state=1) <= 1.0
    # add/remove: the size is private, a refusal would tell it; not checked
    other = calibrate_quantile(0.5, (0.0, 1.0), 1.0, Normal(0.5, 0.15), 100,
                               gamma=0.05, m=200, neighbours="add-remove",
                               random_state=0)
    mech = ExponentialQuantileMechanism(0.5, (0.0, 1.0), 1.0, neighbours="add-remove",
                                        calibration=other)
    assert 0.0 <= mech.release(data, random_state=1) <= 1.0
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        dataclasses.replace(calibration, n=0)


# ------------------------------------------------ outputs on a public grid
# Audit findings on the pure epsilon-DP statement against what the
# implementation releases (fixed: a public grid of outputs, sampled exactly).


def _odd_ulp_in_eighth_to_quarter(x: float) -> bool:
    """x in [1/8, 1/4) and an odd multiple of 2^-55 (the spacing of doubles there)."""
    if not 0.125 <= x < 0.25:
        return False
    k = x * 2.0**55  # exact: a power-of-two scaling
    return k == int(k) and int(k) % 2 == 1


@pytest.mark.slow
def test_outputs_of_one_database_are_outputs_of_its_neighbour():
    """Bounds (0, 1), median of one record: D = [0.5], D' = [0.3] (replace-one). The
    floating-point output edges[i] + U * width reached odd multiples of 2^-55 in [1/8,
    1/4) on D' (~270 of 4000) and never on D. Every output must now be a point of the
    public grid, the same for both databases, so no output is possible on one and
    impossible on the other."""
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
    """Records 0..199, bounds (-1, 200), median, epsilon = 2.05 (the utility's scale is
    1.025 per rank). A grid point in (60, 61) has 61 records below it, utility -39: its
    chance is ~e^-40 of the best one's, and with numpy's bounded Gumbel draws it could
    never be selected. The exact sampler has no such floor: with the most favourable
    draws it is selected."""
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


# ------------------------------------------------------- without bounds: the wide grid


def test_without_bounds_the_grid_is_the_wide_public_grid():
    """bounds=None: the candidates are 0 and +-10^(j/1000), 10^-6 to 10^12, fixed
    before any data (rebuilt here from that definition), read-only; the statement
    is plain epsilon-DP for every pair, as over bounds."""
    positive = 10.0 ** (np.arange(-6000, 12001) / 1000)
    expected = np.concatenate([-positive[::-1], [0.0], positive])
    mech = ExponentialQuantileMechanism(0.5, None, epsilon=0.7)
    assert mech.wide and mech.grid_size == 36_002
    np.testing.assert_array_equal(mech.grid, expected)
    assert (mech.low, mech.high) == (-1e12, 1e12) and not mech.grid.flags.writeable
    s = mech.privacy
    assert (s.epsilon, s.delta, s.gamma, s.source) == (0.7, 0.0, 0.0, "global")
    assert mech.worst_case_epsilon == 0.7


def test_without_bounds_the_law_is_the_exponential_mechanism_over_the_wide_grid():
    """The law over the wide grid, against exp(-eps |#{x < c} - qn| / (2 du))
    computed here, on incomes, negatives, zeros and records beyond 10^12; a
    release is a grid point near the median."""
    data = np.concatenate([
        np.random.default_rng(5).lognormal(10.3, 0.9, 400), [-3.5, 0.0, 0.0, 2e13]])
    for q, neighbours in ((0.5, "replace-one"), (0.9, "add-remove")):
        mech = ExponentialQuantileMechanism(q, None, 1.0, neighbours=neighbours)
        grid, law = mech.output_law(data)
        du = 1.0 if neighbours == "replace-one" else max(q, 1 - q)
        distance = np.abs(np.searchsorted(np.sort(data), grid, "left") - q * data.size)
        weights = np.exp(-(distance - distance.min()) / (2 * du))
        np.testing.assert_allclose(law, weights / weights.sum(), rtol=1e-12, atol=0)
    mech = ExponentialQuantileMechanism(0.5, None, 1.0)
    out = mech.release(data, random_state=3)
    assert out in mech.grid and abs(out / np.median(data) - 1) < 0.2


def test_without_bounds_a_calibration_is_refused(calibration):
    """A scale sampled over bounds does not hold on another grid."""
    with pytest.raises(ValueError, match="calibration needs given bounds"):
        ExponentialQuantileMechanism(0.5, None, 1.0, calibration=calibration)
