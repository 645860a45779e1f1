"""What every mechanism shares: pickling, statements, reproducible releases, one
release signature, and inputs checked before anything is spent or drawn."""

import inspect
import pickle

import numpy as np
import pytest

from sensampler import queries, sample_sensitivity
from sensampler.accounting import PrivacyFilter
from sensampler.distributions import Normal
from sensampler.mechanisms import (
    CatastropheMechanism,
    ExponentialMechanism,
    ExponentialQuantileMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    Mechanism,
    RandomizedResponse,
    RenyiGaussianMechanism,
    ZCDPGaussianMechanism,
)
from sensampler.privacy import PrivacyStatement

MECHANISMS = [
    LaplaceMechanism(1.0, 0.5),
    GaussianMechanism(1.0, 0.5, 1e-5),
    GaussianMechanism(1.0, 2.0, 1e-5, variant="analytic"),
    RenyiGaussianMechanism(1.0, 5.0, 0.5),
    ZCDPGaussianMechanism(1.0, 0.1),
    ExponentialMechanism(1.0, 1.0),
    ExponentialQuantileMechanism(0.5, (0.0, 3.0), 1.0),
    RandomizedResponse(3, 1.0),
    CatastropheMechanism(1.0, 1.0, 1e-3),
]
VALUES = {
    ExponentialMechanism: [0.0, 1.0, 2.0],
    RandomizedResponse: np.array([0, 1, 2]),
}


@pytest.mark.parametrize("mech", MECHANISMS, ids=lambda m: m.name)
def test_pickles_with_its_statement(mech):
    clone = pickle.loads(pickle.dumps(mech))
    assert str(clone.privacy) == str(mech.privacy)
    pickle.loads(pickle.dumps(mech.privacy))
    if mech.privacy.rdp is not None:
        assert clone.privacy.rdp(3.0) == mech.privacy.rdp(3.0)


@pytest.mark.parametrize("mech", MECHANISMS, ids=lambda m: m.name)
def test_same_random_state_same_release(mech):
    value = VALUES.get(type(mech), np.array([1.0, 2.0]))
    a = mech.release(value, random_state=7)
    b = mech.release(value, random_state=7)
    np.testing.assert_array_equal(a, b)


def test_estimates_pickle():
    est = sample_sensitivity(queries.mean, Normal(), 20, gamma=0.1, random_state=0)
    clone = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(clone.samples, est.samples)
    assert clone.run == est.run and clone.mean.value == est.mean.value


@pytest.mark.parametrize("mech", MECHANISMS, ids=lambda m: m.name)
def test_one_release_signature(mech):
    assert isinstance(mech, Mechanism) and isinstance(mech.privacy, PrivacyStatement)
    params = inspect.signature(mech.release).parameters
    value_param, *others = params.values()
    assert value_param.name == "value"
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in others)
    assert params["random_state"].default is None
    value = VALUES.get(type(mech), np.array([1.0, 2.0]))
    with pytest.raises(TypeError):
        mech.release(value, 7)


BAD_VALUES = {
    ExponentialMechanism: [[np.nan, 1.0], [[1.0]], []],
    RandomizedResponse: [[0, 3], [0.5], ["a"]],
}


@pytest.mark.parametrize("mech", MECHANISMS, ids=lambda m: m.name)
def test_bad_inputs_raise_before_anything_is_spent_or_drawn(mech):
    # a filter spends (epsilon, delta) statements; the others are checked directly
    f = PrivacyFilter(100.0, 0.5)
    release = f.release if mech.privacy.epsilon is not None else _check
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    good = VALUES.get(type(mech), np.array([1.0, 2.0]))
    bad = BAD_VALUES.get(type(mech), [float("nan"), [1.0, np.inf]])
    for value in bad:
        with pytest.raises((TypeError, ValueError)):
            release(mech, value, random_state=rng)
    with pytest.raises(TypeError, match="random_state must be"):
        release(mech, good, random_state="x")
    assert f.count == 0 and f.ledger == () and rng.bit_generator.state == state


def _check(mech, value, *, random_state):
    return mech.check_release(value, random_state=random_state)


def test_per_coordinate_shape_is_checked_before_spending():
    f = PrivacyFilter(10.0)
    mech = LaplaceMechanism([1.0, 2.0], 1.0)
    with pytest.raises(ValueError, match="value must have the shape"):
        f.release(mech, np.zeros(3))
    assert f.count == 0
