import math
import re
import warnings

import numpy as np
import pytest
from scipy import stats

from sensampler import queries, sample_sensitivity
from sensampler.accounting import (
    ExceededPrivacyBudgetError,
    PrivacyFilter,
    default_filter,
)
from sensampler.audit import MAX_RELEASES, audit_mechanism
from sensampler.audit import mechanism as audit_module
from sensampler.distributions import Normal
from sensampler.mechanisms import (
    CatastropheMechanism,
    DiscreteGaussianMechanism,
    DiscreteLaplaceMechanism,
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    RenyiGaussianMechanism,
    ZCDPGaussianMechanism,
)
from sensampler.privacy import PrivacyStatement
from tests.conftest import assert_below_in_se


class _Counting:
    """A Laplace release of scale ``scale`` stated as ``epsilon``-DP; with
    probability ``leak`` it publishes the value itself. Counts its releases.
    Not a Mechanism subclass: the audit needs only release and privacy."""

    name = "counting"

    def __init__(self, scale=1.0, epsilon=1.0, leak=0.0, delta=0.0):
        self.scale, self.epsilon, self.leak, self.delta = scale, epsilon, leak, delta
        self.calls = 0

    @property
    def privacy(self):
        return PrivacyStatement(self.name, self.epsilon, self.delta)

    def check_release(self, value, *, random_state=None):
        if not math.isfinite(value):
            raise ValueError(f"value must be finite, got value={value!r}.")

    def release(self, value, *, random_state=None):
        self.calls += 1
        if random_state.random() < self.leak:
            return float(value)
        return float(value) + random_state.laplace(0.0, self.scale)


# ---------------------------------------------------------------- every mechanism
# Each mechanism at its stated guarantee, on inputs one sensitivity apart; the
# audit must not flag it. (mechanism, a, b, delta of the audit, releases)
CORRECT = {
    "laplace": (LaplaceMechanism(1.0, 1.0), 0.0, 1.0, None, 20_000),
    "gaussian analytic": (GaussianMechanism(1.0, 1.0, 1e-5), 0.0, 1.0, None, 20_000),
    "gaussian classic": (
        GaussianMechanism(1.0, 0.5, 1e-5, variant="classic"),
        0.0,
        1.0,
        None,
        20_000,
    ),
    "renyi gaussian": (RenyiGaussianMechanism(1.0, 2.0, 0.5), 0.0, 1.0, 1e-5, 20_000),
    "zcdp gaussian": (ZCDPGaussianMechanism(1.0, 0.5), 0.0, 1.0, 1e-5, 20_000),
    # utilities move by at most 1 per candidate between a and b
    "exponential": (
        ExponentialMechanism(1.0, 1.0),
        np.array([1.0, 0.0, 0.0]),
        np.array([0.0, 1.0, 1.0]),
        None,
        4_000,
    ),
    "randomized response": (RandomizedResponse(3, 1.0), 0, 1, None, 20_000),
    "catastrophe": (CatastropheMechanism(1.0, 1.0, 1e-3), 0.0, 1.0, None, 4_000),
    "discrete laplace": (
        DiscreteLaplaceMechanism(1.0, 1.0, granularity=0.25),
        0.0,
        1.0,
        None,
        2_000,
    ),
    "discrete gaussian": (
        DiscreteGaussianMechanism(1.0, rho=0.5, granularity=0.25),
        0.0,
        1.0,
        1e-5,
        2_000,
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CORRECT))
def test_every_mechanism_keeps_its_statement(name):
    mechanism, a, b, delta, releases = CORRECT[name]
    result = audit_mechanism(
        mechanism, a, b, releases=releases, delta=delta, random_state=20261123
    )
    assert not result.violated, result
    assert result.epsilon_lower <= result.stated
    assert result.tested == releases - releases // 2


def test_the_audit_comes_close_to_a_tight_statement():
    # Laplace and randomized response realise their epsilon on one set
    # ({y <= a}, {y = a}): 2 * 10^4 releases must show most of it. A bound that
    # cannot rise (always 0) fails here.
    for mechanism, a, b in [
        (LaplaceMechanism(1.0, 1.0), 0.0, 1.0),
        (RandomizedResponse(3, 1.0), 0, 1),
    ]:
        result = audit_mechanism(mechanism, a, b, releases=20_000, random_state=1)
        assert 0.85 < result.epsilon_lower <= 1.0, result


# ------------------------------------------------------------------------ power
def test_noise_ten_percent_too_small_is_flagged():
    # Scale 0.9 = 0.9 * Delta / epsilon for inputs Delta = 1 apart: the realised
    # epsilon is 1 / 0.9 = 1.11 against the stated 1.
    weak = LaplaceMechanism(0.9, 1.0)
    result = audit_mechanism(weak, 0.0, 1.0, releases=100_000, random_state=7)
    assert result.violated and result.stated == 1.0
    assert result.epsilon_lower <= 1.0 / 0.9
    assert result.rejection_set.side == "<=" and result.rejection_set.numerator == "a"


@pytest.mark.slow
@pytest.mark.parametrize(
    "mechanism, delta",
    [
        (LaplaceMechanism(0.9, 1.0), None),
        # calibrated for (1, 0.05) at sensitivity 0.9, audited at Delta = 1
        (GaussianMechanism(0.9, 1.0, 0.05), None),
    ],
)
def test_weakened_copies_are_flagged_with_a_million_releases(mechanism, delta):
    # 5 * 10^5 releases on each input: 10^6 in all, over 20 seeds.
    flagged = sum(
        audit_mechanism(
            mechanism, 0.0, 1.0, releases=500_000, delta=delta, random_state=seed
        ).violated
        for seed in range(20)
    )
    assert flagged == 20


def test_a_catastrophe_beyond_its_delta_is_flagged_one_release_at_a_time():
    # Publishes the value with probability 0.05 while stating (1, 1e-6)-DP: on
    # {y <= a}, P_a = 0.05 + 0.95 / 2 and P_b = 0.95 e^-1 / 2, a ratio of 3.0.
    leaky = _Counting(scale=1.0, epsilon=1.0, leak=0.05, delta=1e-6)
    result = audit_mechanism(leaky, 0.0, 1.0, releases=20_000, random_state=3)
    assert leaky.calls == 40_000  # released one value at a time
    assert result.violated and result.epsilon_lower > 1.0


# ----------------------------------------------------------- false-flag rate
def _false_flags(mechanism, a, b, confidence, seeds, releases):
    return sum(
        audit_mechanism(
            mechanism, a, b, releases=releases, confidence=confidence, random_state=s
        ).violated
        for s in seeds
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "mechanism, a, b",
    [(LaplaceMechanism(1.0, 1.0), 0.0, 1.0), (RandomizedResponse(2, 1.0), 0, 1)],
)
@pytest.mark.parametrize("confidence", [0.8, 0.99])
def test_a_tight_mechanism_is_flagged_at_most_one_minus_confidence_of_the_time(
    mechanism, a, b, confidence
):
    # Both mechanisms attain their epsilon on a threshold set, the hardest case.
    # Flags over 200 seeds are Binomial(200, q) with q <= 1 - confidence: 6
    # standard errors above the mean at q = 1 - confidence.
    seeds, q = range(200), 1.0 - confidence
    flagged = _false_flags(mechanism, a, b, confidence, seeds, 1_000)
    assert_below_in_se(flagged, 200 * q, math.sqrt(200 * q * (1 - q)))


@pytest.mark.slow
def test_false_flags_over_many_seeds_at_the_default_confidence():
    q, seeds = 0.01, range(2_000)
    flagged = _false_flags(LaplaceMechanism(1.0, 1.0), 0.0, 1.0, 0.99, seeds, 20_000)
    assert_below_in_se(flagged, 2_000 * q, math.sqrt(2_000 * q * (1 - q)))


def test_the_bound_is_the_clopper_pearson_ratio_of_the_counts():
    result = audit_mechanism(LaplaceMechanism(1.0, 1.0), 0.0, 1.0, releases=5_000,
                             confidence=0.9, random_state=4)
    n = result.tested
    low = stats.binomtest(result.count_numerator, n).proportion_ci(0.9, "exact").low
    high = stats.binomtest(result.count_denominator, n).proportion_ci(0.9, "exact").high
    assert result.p_numerator_lower == pytest.approx(low, abs=1e-12)
    assert result.p_denominator_upper == pytest.approx(high, abs=1e-12)
    assert result.epsilon_lower == pytest.approx(max(0.0, math.log(low / high)))


# ------------------------------------------------------------- other inputs
def test_the_delta_aware_bound_subtracts_delta():
    leaky = _Counting(scale=1.0, epsilon=1.0, leak=0.05)
    plain = audit_mechanism(leaky, 0.0, 1.0, releases=10_000, delta=0.0, random_state=5)
    lenient = audit_mechanism(
        leaky, 0.0, 1.0, releases=10_000, delta=0.2, random_state=5
    )
    assert lenient.epsilon_lower < plain.epsilon_lower and lenient.delta == 0.2


@pytest.mark.slow
def test_vector_releases_are_projected_on_b_minus_a():
    # Per-coordinate sensitivities (1, 1): scales 2 / epsilon, so moving one
    # coordinate by 1 realises epsilon / 2.
    mechanism = LaplaceMechanism(np.array([1.0, 1.0]), 1.0)
    result = audit_mechanism(
        mechanism, np.zeros(2), np.array([1.0, 0.0]), releases=20_000, random_state=6
    )
    assert result.rejection_set.statistic == "projection on b - a"
    assert 0.3 < result.epsilon_lower <= 0.5


@pytest.mark.slow
def test_a_statistic_of_the_releases_can_be_given():
    mechanism = ExponentialMechanism(1.0, 2.0)
    a, b = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    result = audit_mechanism(
        mechanism, a, b, releases=4_000, statistic=lambda y: (y == 0) * 1.0,
        random_state=8,
    )
    assert result.rejection_set.statistic == "statistic" and not result.violated
    assert result.epsilon_lower > 0.5


def test_a_sampled_sensitivity_is_released_one_value_at_a_time():
    est = sample_sensitivity(queries.mean, Normal(), 50, gamma=0.05, random_state=0)
    mechanism = LaplaceMechanism(est, 1.0)
    result = audit_mechanism(
        mechanism, 0.0, est.sensitivity.value, releases=2_000, random_state=9
    )
    assert not result.violated and result.stated == 1.0


def test_the_audit_is_reproducible():
    runs = [
        audit_mechanism(LaplaceMechanism(1.0, 1.0), 0.0, 1.0, releases=3_000,
                        random_state=seed)
        for seed in (11, 11, 12)
    ]
    assert runs[0] == runs[1] and runs[0] != runs[2]
    generator_runs = [
        audit_mechanism(
            RandomizedResponse(2, 1.0), 0, 1, releases=500,
            random_state=np.random.default_rng(3),
        )
        for _ in range(2)
    ]
    assert generator_runs[0] == generator_runs[1]


# ------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"releases": 1}, ValueError, "releases must be an integer >= 2, got releases=1."),
        ({"releases": 2.0}, TypeError, "releases must be an integer, got the float 2.0."),
        (
            {"releases": MAX_RELEASES + 1},
            ValueError,
            f"releases must be <= MAX_RELEASES={MAX_RELEASES}",
        ),
        ({"confidence": 1.0}, ValueError, "confidence must be > 0.0 and < 1.0"),
        ({"delta": -0.1}, ValueError, "delta must be >= 0.0 and < 1.0"),
        ({"statistic": 3}, TypeError, "statistic must be callable or None, got 3."),
        ({"random_state": -1}, ValueError, "random_state must be >= 0"),
        ({"b": 0.0}, ValueError, "a and b must differ, got a=0.0 and b=0.0."),
        ({"a": float("nan")}, ValueError, "a is not a valid input of the mechanism"),
    ],
)
def test_bad_input_is_refused_by_name_before_any_release(kwargs, error, message):
    mechanism = _Counting()
    arguments = {"a": 0.0, "b": 1.0, "releases": 100, **kwargs}
    a, b = arguments.pop("a"), arguments.pop("b")
    with pytest.raises(error, match=re.escape(message)):
        audit_mechanism(mechanism, a, b, **arguments)
    assert mechanism.calls == 0


def test_mechanisms_without_a_guarantee_or_an_epsilon_are_refused():
    with pytest.raises(TypeError, match="mechanism must have release"):
        audit_mechanism(object(), 0.0, 1.0, releases=10)
    est = sample_sensitivity(queries.mean, Normal(), 50, gamma=0.05, random_state=0)
    typical = LaplaceMechanism(est.mean, 1.0)
    with pytest.raises(ValueError, match="typical sensitivity and states no guarantee"):
        audit_mechanism(typical, 0.0, 1.0, releases=10)
    with pytest.raises(ValueError, match="give the delta to audit at, got delta=None"):
        audit_mechanism(ZCDPGaussianMechanism(1.0, 0.5), 0.0, 1.0, releases=10)
    with pytest.raises(ValueError, match="states no pure-DP epsilon"):
        audit_mechanism(GaussianMechanism(1.0, 1.0, 1e-5), 0.0, 1.0, releases=10,
                        delta=0.0)


def test_releases_that_are_not_finite_are_refused():
    class Broken(_Counting):
        def release(self, value, *, random_state=None):
            return math.nan

    with pytest.raises(ValueError, match="the mechanism released NaN or inf"):
        audit_mechanism(Broken(), 0.0, 1.0, releases=10)


def test_releases_that_are_not_numbers_need_a_statistic():
    class Text(_Counting):
        def release(self, value, *, random_state=None):
            return "x" if random_state.random() < 0.5 else "y"

    with pytest.raises(TypeError, match="give statistic="):
        audit_mechanism(Text(), 0.0, 1.0, releases=10)
    result = audit_mechanism(
        Text(), 0.0, 1.0, releases=1_000,
        statistic=lambda y: (y == "x") * 1.0, random_state=0,
    )
    assert not result.violated


def test_an_audit_locates_its_inputs_as_the_docs_say():
    # issue 28: audit_mechanism(m, secret, secret + 1, releases=4e5) locates the
    # secret; why an audit is the release of its inputs (issue 37: it spends
    # them under a default filter unless declared synthetic, see
    # test_audit_findings_mechanism.py).
    secret = 3.14159
    mechanism = LaplaceMechanism(1.0, 1.0)
    result = audit_mechanism(
        mechanism, secret, secret + 1, releases=400_000, random_state=0
    )
    # what the docs say: the threshold lands within a few hundredths of an input
    # (the Laplace density's kink at a or b; 0.05 measured over four seeds)
    threshold = result.rejection_set.threshold
    assert min(abs(threshold - secret), abs(threshold - secret - 1)) < 0.1


# ------------------------------------------------------------ an audit reads a secret
# Issue 37, "an audit reads a secret without spending".
#
# ``audit_mechanism`` under a default filter spent nothing: 400 000 releases of a
# secret 3.14159 located it (threshold 3.1479) with 0.5 spent before and after, and it
# only warned. An audit is now the release of its inputs: it charges its
# ``2 * releases`` releases to the default filter before drawing anything (a budget
# that cannot hold them refuses it), unless the caller declares the inputs its own
# with ``synthetic=True``.


SECRET = 3.14159


def test_an_audit_of_a_secret_under_a_filter_is_refused_and_draws_nothing(
    monkeypatch,
):
    """The reproduction of the finding: refused before drawing, nothing spent."""
    mechanism = LaplaceMechanism(1.0, 1.0)
    budget = PrivacyFilter(1.0)
    budget.compose(LaplaceMechanism(1.0, 0.5))
    drawn = []
    draw = audit_module._draw
    monkeypatch.setattr(
        audit_module, "_draw", lambda *a: drawn.append(1) or draw(*a)
    )
    with default_filter(budget):
        with pytest.raises(ExceededPrivacyBudgetError, match="synthetic=True"):
            audit_mechanism(mechanism, SECRET, SECRET + 1, releases=400_000,
                            random_state=0)
    assert budget.spent.epsilon == 0.5 and budget.count == 1
    assert drawn == []


def test_an_audit_spends_the_composition_of_its_releases():
    """Charged at once: 2 * releases releases of the statement, basic composition."""
    budget = PrivacyFilter(5_000.0)
    with default_filter(budget), warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: the audit has spent
        audit_mechanism(LaplaceMechanism(1.0, 1.0), 0.0, 1.0, releases=2_000,
                        random_state=0)
    assert budget.spent.epsilon == pytest.approx(4_000.0)
    assert budget.count == 4_000


def test_synthetic_inputs_spend_nothing_and_give_the_same_result():
    """The declared way to audit one's own inputs under a filter."""
    budget = PrivacyFilter(1.0)
    mechanism = LaplaceMechanism(1.0, 1.0)
    with default_filter(budget), warnings.catch_warnings():
        warnings.simplefilter("error")
        free = audit_mechanism(mechanism, 0.0, 1.0, releases=4_000, random_state=3,
                               synthetic=True)
    assert budget.count == 0
    outside = audit_mechanism(mechanism, 0.0, 1.0, releases=4_000, random_state=3)
    assert free == outside


def test_synthetic_must_be_a_bool_and_is_checked_before_anything_is_spent():
    """Bad input is refused before anything is spent: synthetic must be a bool (not a
    truthy string that would skip the charge), and releases is checked first too."""
    budget = PrivacyFilter(1e9)
    with default_filter(budget):
        with pytest.raises(TypeError, match="synthetic"):
            audit_mechanism(LaplaceMechanism(1.0, 1.0), 0.0, 1.0, releases=10,
                            synthetic="yes")
        with pytest.raises(ValueError, match="releases"):
            audit_mechanism(LaplaceMechanism(1.0, 1.0), 0.0, 1.0, releases=1)
    assert budget.count == 0
