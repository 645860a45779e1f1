"""What every mechanism shares: pickling, statements, reproducible releases."""

import pickle

import numpy as np
import pytest
from sensampler.distributions import Normal

from sensampler import queries, sample_sensitivity
from sensampler.mechanisms import (
    CatastropheMechanism,
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    RandomizedResponse,
    RenyiGaussianMechanism,
    ZCDPGaussianMechanism,
)

MECHANISMS = [
    LaplaceMechanism(1.0, 0.5),
    GaussianMechanism(1.0, 0.5, 1e-5),
    GaussianMechanism(1.0, 2.0, 1e-5, variant="analytic"),
    RenyiGaussianMechanism(1.0, 5.0, 0.5),
    ZCDPGaussianMechanism(1.0, 0.1),
    ExponentialMechanism(1.0, 1.0),
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
    assert clone.run_id == est.run_id and float(clone.mean) == float(est.mean)
