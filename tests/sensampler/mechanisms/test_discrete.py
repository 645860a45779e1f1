import math
import re
import warnings
from fractions import Fraction

import numpy as np
import pytest
from scipy import special

from sensampler import sample_sensitivity
from sensampler.distributions import Normal
from sensampler.mechanisms import ExponentialMechanism, RandomizedResponse
from tests.conftest import assert_close_in_se


def test_exponential_probabilities_follow_the_definition():
    mech = ExponentialMechanism(2.0, 1.0)
    scores = np.array([0.0, 1.0, 4.0])
    w = np.exp(1.0 * scores / (2 * 2.0))
    np.testing.assert_allclose(mech.probabilities(scores), w / w.sum())
    # huge scores stay finite (log-sum-exp / Gumbel-max)
    assert np.isfinite(mech.probabilities([1e6, 1e6 + 1])).all()


@pytest.mark.slow
def test_exponential_sampling_frequencies(seed):
    mech = ExponentialMechanism(1.0, 2.0)
    scores = np.array([0.0, 0.5, 1.0, 3.0])
    rng = np.random.default_rng(seed)
    picks = np.array([mech.release(scores, random_state=rng) for _ in range(20_000)])
    freq = np.bincount(picks, minlength=4) / picks.size
    p = mech.probabilities(scores)
    assert_close_in_se(freq, p, np.sqrt(p * (1 - p) / picks.size))


def test_exponential_choose():
    mech = ExponentialMechanism(1.0, 50.0)
    data = np.array([1, 2, 2, 3, 2])
    mode = mech.choose([1, 2, 3], lambda d, c: np.sum(d == c), data, random_state=0)
    assert mode == 2


def test_randomized_response_keeps_the_truth_at_the_right_rate(seed):
    rr = RandomizedResponse(4, math.log(3.0))
    assert rr.p_true == pytest.approx(3 / (3 + 3))  # e^eps / (e^eps + k - 1)
    truth = np.random.default_rng(seed).integers(0, 4, 100_000)
    out = rr.release(truth, random_state=seed)
    kept = np.mean(out == truth)
    assert_close_in_se(kept, 0.5, math.sqrt(0.25 / truth.size))
    est = rr.estimate_frequencies(out)
    true_freq = np.bincount(truth, minlength=4) / truth.size
    # est = (f - q) / (p - q) for the output frequencies f, with p = 1/2 and
    # q = 1/6 (each other answer): se = sqrt(f (1 - f) / N) / (p - q), ~0.004.
    f = np.bincount(out, minlength=4) / truth.size
    assert_close_in_se(est, true_freq, np.sqrt(f * (1 - f) / truth.size) / (1 / 3))


def test_randomized_response_ratio_is_e_to_the_epsilon():
    rr = RandomizedResponse(5, 0.8)
    p, q = rr.p_true, (1 - rr.p_true) / 4
    assert p / q == pytest.approx(math.exp(0.8))


@pytest.mark.parametrize("k", [2, 5, 2**20])
@pytest.mark.parametrize("epsilon", [1e-6, 0.8, 20.0, 37.0, 50.0, 1e6])
def test_randomized_response_realises_at_most_its_epsilon(k, epsilon):
    # the kept probability is an exact T / 2**53: the realised odds, in exact
    # rational arithmetic, lie in (1, e^epsilon] even where p rounds to 1.0
    rr = RandomizedResponse(k, epsilon)
    keep = Fraction(rr.p_true)
    assert 0 < keep < 1 and keep.denominator <= 2**53
    odds = keep * (k - 1) / (1 - keep)
    assert odds > 1
    assert math.log(odds.numerator) - math.log(odds.denominator) <= epsilon
    # and not far below it: 8 units of 2**-53 lost from p (one added to q) at most
    realised = math.log(odds.numerator) - math.log(odds.denominator)
    other = float((1 - keep) / (k - 1))
    ceiling = math.log((2**53 - 8) * (k - 1) / 8)  # where p rounds to 1.0
    assert realised >= min(epsilon, ceiling) - 20 * 2**-53 / other


def test_randomized_response_at_a_huge_epsilon_still_randomizes():
    rr = RandomizedResponse(2, 50.0)
    assert rr.p_true < 1.0  # was 1.0: a deterministic release stated as 50-DP
    assert rr._keep == 2**53 - 8


@pytest.mark.parametrize("k, epsilon", [(2, 1e-15), (2**62, 1.0), (1000, 1e-12)])
def test_randomized_response_refuses_what_53_bit_draws_cannot_realise(k, epsilon):
    with pytest.raises(ValueError, match=f"epsilon={epsilon!r} is too small for k="):
        RandomizedResponse(k, epsilon)


@pytest.mark.parametrize(
    "factory, exc, message",
    [
        (lambda: ExponentialMechanism(1.0, 0), ValueError, "epsilon must be > 0.0"),
        (
            lambda: ExponentialMechanism(1.0, 1).release([]),
            ValueError,
            "scores must be",
        ),
        (
            lambda: ExponentialMechanism(1.0, 1).release([1, np.nan]),
            ValueError,
            "scores must be",
        ),
        (
            lambda: RandomizedResponse(1, 1.0),
            ValueError,
            "k must be an integer >= 2, got k=1.",
        ),
        (
            lambda: RandomizedResponse(3, 1.0).release([0, 3]),
            ValueError,
            "value must hold integer categories in 0..2",
        ),
        (
            lambda: RandomizedResponse(3, 1.0).release([0.5]),
            ValueError,
            "value must hold integer categories",
        ),
    ],
)
def test_bad_parameters(factory, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        factory()


def _renyi(p, q, alpha):
    log_terms = alpha * np.log(p) + (1 - alpha) * np.log(q)
    return float(special.logsumexp(log_terms)) / (alpha - 1)


@pytest.mark.slow
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_exponential_mechanism_is_bounded_range(epsilon):
    # Second method: exact Rényi divergences of the exponential mechanism between
    # neighbouring utility vectors (each utility moves by at most Delta = 1), on
    # random and on extreme (+-1 moves) pairs, never above min(eps, alpha eps^2/8).
    mech = ExponentialMechanism(1.0, epsilon)
    assert mech.privacy.rho == epsilon**2 / 8  # Cesar & Rogers 2021
    rng = np.random.default_rng(7)
    worst_kl = 0.0
    for _ in range(300):
        n = int(rng.integers(2, 12))
        u = rng.normal(0, 3, size=n)
        move = (
            rng.choice([-1.0, 1.0], size=n)
            if rng.random() < 0.5
            else (rng.uniform(-1, 1, size=n))
        )
        p, q = mech.probabilities(u), mech.probabilities(u + move)
        for alpha in (1.5, 2.0, 5.0, 50.0):
            assert _renyi(p, q, alpha) <= mech.privacy.rdp(alpha) + 1e-12
        worst_kl = max(worst_kl, float(np.sum(p * np.log(p / q))))
    assert worst_kl <= epsilon**2 / 8 + 1e-12


def test_exponential_bounded_range_is_attained():
    # two candidates, one utility up by Delta and the other down: the loss takes the
    # values +-eps/2 shifted, an interval of width eps; KL = log cosh(eps/2)
    eps = 1.0
    mech = ExponentialMechanism(1.0, eps)
    p = mech.probabilities([0.0, 0.0])
    q = mech.probabilities([1.0, -1.0])
    kl = float(np.sum(p * np.log(p / q)))
    assert kl == pytest.approx(math.log(math.cosh(eps / 2)))
    assert kl > 0.9 * eps**2 / 8  # the eps^2/8 constant is nearly met


def test_randomized_response_refuses_more_categories_than_int64_holds():
    with pytest.raises(
        ValueError,
        match=re.escape(
            "k must be <= 2**62 (categories are int64), got k=9223372036854775808."
        ),
    ):
        RandomizedResponse(2**63, 1)
    big = RandomizedResponse(2**62, 60.0)  # an epsilon 53-bit draws can realise
    assert big.release(0, random_state=0) in range(2**62)


def test_exponential_mechanism_with_a_huge_epsilon_over_sensitivity():
    mech = ExponentialMechanism(1.5e-252, 5.4e56)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mech.release([0.0, 1.0], random_state=0) == 1
        assert mech.release([2.0, 3.0, 1.0], random_state=0) == 1
        np.testing.assert_array_equal(mech.probabilities([2.0, 3.0, 1.0]), [0, 1, 0])
    # ties among the best stay uniform
    picks = [mech.release([5.0, 0.0, 5.0], random_state=s) for s in range(200)]
    assert set(picks) == {0, 2}


@pytest.mark.parametrize("epsilon", [1e308, 1.4e154])
def test_huge_epsilons_state_finite_zcdp(epsilon):
    assert ExponentialMechanism(0.0, epsilon).privacy.rho == epsilon
    assert RandomizedResponse(2, epsilon).privacy.rho == epsilon
    assert ExponentialMechanism(1.0, epsilon).privacy.rdp(2.0) == epsilon


def test_the_exponential_mechanism_releases_only_what_its_sensitivity_covers():
    # v[0] bounds the first utility only (about 0.04); calibrating all three
    # (sensitivities about 0.04, 4 and 1) stated epsilon = 1 for a release up to
    # about 100-DP. LaplaceMechanism(v[0], 1) refuses the same 3-vector.
    v = sample_sensitivity(
        lambda db: np.array([db.mean(), db.sum(), (db > 0).sum()]),
        Normal(), 100, m=200, norm="coordinate", random_state=0,
    ).sensitivity
    scores = np.array([1.0, 50.0, 40.0])
    mechanism = ExponentialMechanism(v[0], 1.0)
    with pytest.raises(ValueError, match=r"value must have the shape \(\)"):
        mechanism.release(scores, random_state=0)
    with pytest.raises(ValueError, match=r"value must have the shape \(\)"):
        mechanism.probabilities(scores)
    # the whole per-coordinate estimate covers the three utilities
    assert ExponentialMechanism(v, 1.0).release(scores, random_state=0) in (0, 1, 2)
    with pytest.raises(ValueError, match="per-coordinate sensitivity"):
        ExponentialMechanism(v, 1.0).release(scores[:2], random_state=0)
