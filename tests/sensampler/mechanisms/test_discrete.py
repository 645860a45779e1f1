import math
import re

import numpy as np
import pytest

from sensampler.mechanisms import ExponentialMechanism, RandomizedResponse


def test_exponential_probabilities_follow_the_definition():
    mech = ExponentialMechanism(2.0, 1.0)
    scores = np.array([0.0, 1.0, 4.0])
    w = np.exp(1.0 * scores / (2 * 2.0))
    np.testing.assert_allclose(mech.probabilities(scores), w / w.sum())
    # huge scores stay finite (log-sum-exp / Gumbel-max)
    assert np.isfinite(mech.probabilities([1e6, 1e6 + 1])).all()


def test_exponential_sampling_frequencies(seed):
    mech = ExponentialMechanism(1.0, 2.0)
    scores = np.array([0.0, 0.5, 1.0, 3.0])
    rng = np.random.default_rng(seed)
    picks = np.array([mech.release(scores, random_state=rng) for _ in range(20_000)])
    freq = np.bincount(picks, minlength=4) / picks.size
    p = mech.probabilities(scores)
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / picks.size))


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
    assert abs(kept - 0.5) < 5 * math.sqrt(0.25 / truth.size)
    est = rr.estimate_frequencies(out)
    true_freq = np.bincount(truth, minlength=4) / truth.size
    assert np.all(np.abs(est - true_freq) < 0.02)  # se ~ 2 * 0.0016


def test_randomized_response_ratio_is_e_to_the_epsilon():
    rr = RandomizedResponse(5, 0.8)
    p, q = rr.p_true, (1 - rr.p_true) / 4
    assert p / q == pytest.approx(math.exp(0.8))


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
