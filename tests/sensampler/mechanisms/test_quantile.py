"""The exponential quantile mechanism against an independent high-precision law,
a brute-force utility sensitivity and an empirical audit (with its power)."""

import itertools
import math
import pickle
import re
from types import SimpleNamespace

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

from sensampler.accounting import PrivacyFilter
from sensampler.audit import audit_mechanism
from sensampler.mechanisms import ExponentialQuantileMechanism

mp.mp.dps = 50


# --------------------------------------------------------------- the oracle
def exact_law(data, q, low, high, epsilon, du):
    """Edges and gap probabilities of the mechanism, at 50 digits (Smith 2011):
    gap i (i records below it) has weight length * exp(-eps |i - q n| / (2 du))."""
    low, high = mp.mpf(low), mp.mpf(high)
    inside = sorted(min(max(mp.mpf(x), low), high) for x in data)
    edges = [low, *inside, high]
    n = len(data)
    weights = [
        (edges[i + 1] - edges[i])
        * mp.exp(-mp.mpf(epsilon) * abs(i - mp.mpf(q) * n) / (2 * mp.mpf(du)))
        for i in range(n + 1)
    ]
    total = mp.fsum(weights)
    return edges, [w / total for w in weights]


def exact_cdf(edges, probs, t):
    """The output's distribution function at t (uniform within each gap)."""
    below = mp.mpf(0)
    for i, p in enumerate(probs):
        left, right = edges[i], edges[i + 1]
        if t >= right:
            below += p
        elif t > left:
            below += p * (mp.mpf(t) - left) / (right - left)
    return below


def log_density_ratio(law_a, law_b, t):
    """log p_a(t) / p_b(t) (t inside open gaps of both laws)."""

    def density(law):
        edges, probs = law
        for i, p in enumerate(probs):
            if edges[i] < t < edges[i + 1]:
                return p / (edges[i + 1] - edges[i])
        return mp.mpf(0)

    return mp.log(density(law_a) / density(law_b))


def realised_epsilon(law_a, law_b):
    """Largest |log density ratio| over the merged gaps (densities are constant there)."""
    points = sorted(set(law_a[0]) | set(law_b[0]))
    return max(
        abs(log_density_ratio(law_a, law_b, (x + y) / 2))
        for x, y in zip(points, points[1:])
        if y > x
    )


# ------------------------------------------------------- exact distribution
@pytest.mark.parametrize(
    "data, q, epsilon, neighbours, du",
    [
        # two records clipped onto the bounds: empty end gaps
        ([-3.0, 0.1, 0.25, 0.4, 0.8, 7.0], 0.5, 2.0, "replace-one", 1.0),
        ([0.1, 0.25, 0.4, 0.8], 0.3, 1.0, "add-remove", 0.7),  # max(q, 1 - q)
    ],
)
def test_output_law_matches_the_exact_law(data, q, epsilon, neighbours, du):
    mech = ExponentialQuantileMechanism(q, (0.0, 1.0), epsilon, neighbours=neighbours)
    assert mech.utility_sensitivity == du
    edges, probs = exact_law(data, q, 0.0, 1.0, epsilon, du)
    rng = np.random.default_rng(20261126)
    draws = 20_000
    out = np.array([mech.release(data, random_state=rng) for _ in range(draws)])
    assert np.all((out >= 0.0) & (out <= 1.0))
    # each gap's frequency within 6 binomial standard errors of its probability
    inner = np.array([float(e) for e in edges])
    counts = np.histogram(out, bins=inner[np.r_[True, np.diff(inner) > 0]])[0]
    expected = np.array([float(p) for p, e0, e1 in zip(probs, edges, edges[1:]) if e1 > e0])
    se = np.sqrt(expected * (1 - expected) / draws)
    np.testing.assert_array_less(np.abs(counts / draws - expected), 6 * se + 1e-12)
    # and the whole law: Kolmogorov-Smirnov against the exact CDF (p < 1e-9 is
    # beyond 6 standard errors; the seed makes the run repeatable)
    result = stats.kstest(out, lambda t: np.array([float(exact_cdf(edges, probs, x))
                                                   for x in np.atleast_1d(t)]))
    assert result.pvalue > 1e-9


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


@pytest.mark.parametrize("neighbours", ["replace-one", "add-remove"])
def test_exact_privacy_loss_is_within_epsilon_for_every_small_pair(neighbours):
    # the exact law's largest log-density ratio over all neighbours on a grid
    q, epsilon = 0.4, 1.5
    du = 1.0 if neighbours == "replace-one" else 0.6
    grid = [0.1, 0.5, 0.9]
    worst = mp.mpf(0)
    for data in itertools.product(grid, repeat=2):
        law = exact_law(data, q, 0, 1, epsilon, du)
        for x in grid:
            other = (x, data[1]) if neighbours == "replace-one" else (*data, x)
            worst = max(worst, realised_epsilon(law, exact_law(other, q, 0, 1, epsilon, du)))
    assert 0.1 < worst <= epsilon


# --------------------------------------------------------------------- audit
def _ratio_statistic(law_a, law_b):
    """log p_a(t)/p_b(t), piecewise constant between the laws' edges: the audit's
    threshold sets are then likelihood-ratio sets, the most powerful."""
    points = sorted(set(law_a[0]) | set(law_b[0]))
    cuts = np.array([float(p) for p in points])
    values = np.array([
        float(log_density_ratio(law_a, law_b, (x + y) / 2)) if y > x else 0.0
        for x, y in zip(points, points[1:])
    ])

    def statistic(outputs):
        gap = np.clip(np.searchsorted(cuts, outputs, side="right") - 1, 0, values.size - 1)
        return values[gap]

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
def test_audit_keeps_the_statement_and_flags_a_weakened_copy(a, b, neighbours, du):
    epsilon = 1.0
    for cls, factor, violated in ((ExponentialQuantileMechanism, 1, False),
                                  (_Weakened, 4, True)):
        mech = cls(0.5, (0.0, 1.0), epsilon, neighbours=neighbours)
        law_a = exact_law(a, 0.5, 0, 1, epsilon * factor, du)
        law_b = exact_law(b, 0.5, 0, 1, epsilon * factor, du)
        result = audit_mechanism(
            mech, a, b, releases=20_000, statistic=_ratio_statistic(law_a, law_b),
            random_state=7,
        )
        assert result.stated == epsilon
        assert result.violated is violated, result
        if not violated:  # not vacuous: it finds most of the realised loss
            assert result.epsilon_lower > 0.5 * float(realised_epsilon(law_a, law_b))


# ---------------------------------------------------------------- edge cases
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
    (dict(bounds=None), TypeError, "bounds must be a (low, high) pair"),
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


def test_output_law_is_the_law_release_samples():
    # The gaps' chances by definition: length times exp(epsilon u / 2), u = -|i - qn|,
    # for n = 3 records in (0, 10) at q = 0.5; and the releases' gap frequencies.
    data, eps = np.array([7.5, 2.0, 3.0]), 1.3
    mech = ExponentialQuantileMechanism(0.5, (0.0, 10.0), eps)
    edges, probabilities = mech.output_law(data)
    np.testing.assert_array_equal(edges, [0.0, 2.0, 3.0, 7.5, 10.0])
    lengths = np.diff(edges)
    weights = lengths * np.exp(eps * -np.abs(np.arange(4) - 1.5) / 2.0)
    np.testing.assert_allclose(probabilities, weights / weights.sum(), rtol=1e-12)
    rng = np.random.default_rng(11)
    releases = np.array([mech.release(data, random_state=rng) for _ in range(20_000)])
    observed = np.histogram(releases, bins=edges)[0] / releases.size
    se = np.sqrt(probabilities * (1 - probabilities) / releases.size)
    assert np.all(np.abs(observed - probabilities) < 6 * se)
