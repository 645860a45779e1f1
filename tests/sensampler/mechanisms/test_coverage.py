"""A mechanism releases only what its sensitivity covers (issue paths 4 and 5)."""

import math
import re

import numpy as np
import pytest

from sensampler import queries, sample_sensitivity
from sensampler.distributions import Normal
from sensampler.estimate import Coverage
from sensampler.mechanisms import (
    DiscreteLaplaceMechanism,
    GaussianMechanism,
    LaplaceMechanism,
)

N = 100


def _mean_and_sum(db):
    return np.array([db.mean(), db.sum()])


@pytest.fixture(scope="module")
def per_coordinate():
    """(mean, sum) at n = 100, one sensitivity per coordinate: about (0.2, 20)."""
    return sample_sensitivity(
        _mean_and_sum, Normal(), N, gamma=0.05, norm="coordinate", random_state=0
    )


MECHANISMS = {
    "laplace": lambda s: LaplaceMechanism(s, 1.0),
    "gaussian": lambda s: GaussianMechanism(s, 1.0, 1e-6),
    "discrete laplace": lambda s: DiscreteLaplaceMechanism(s, 1.0, granularity=0.01),
}
RANDOM = {"laplace": 0, "gaussian": 0, "discrete laplace": None}


@pytest.mark.parametrize("name", MECHANISMS)
def test_a_scalar_taken_from_a_per_coordinate_estimate_covers_one_coordinate(
    per_coordinate, name
):
    # Issue path 4: LaplaceMechanism(v[0], 1) released the 2-vector and stated
    # epsilon = 1; the sum's coordinate moves ~100 times v[0].
    make = MECHANISMS[name]
    v = per_coordinate.sensitivity
    assert v.value[1] > 50 * v.value[0]  # what the release would have hidden
    mechanism = make(v[0])
    message = (
        "value must have the shape () that the sensitivity 'G_(k)[0]' covers "
        "(coordinates (0,) of an output of shape (2,), released with shape (), "
        "norm='coordinate'), got value of shape (2,)"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        mechanism.release(np.array([0.1, 10.0]), random_state=RANDOM[name])
    # the coordinate it covers, alone, is released
    assert np.ndim(mechanism.release(0.1, random_state=RANDOM[name])) == 0
    assert mechanism.privacy.run == per_coordinate.run


@pytest.mark.parametrize("name", MECHANISMS)
@pytest.mark.parametrize(
    "index", [slice(None, None, -1), [1, 0], [0, 0], [1, 1]], ids=repr
)
def test_a_permuted_or_repeated_vector_states_no_guarantee(per_coordinate, name, index):
    # Issue path 5: LaplaceMechanism(v[::-1], 1) on the original order stated
    # epsilon = 1 with random DP; the actual epsilon was up to 4.45.
    v = per_coordinate.sensitivity[index]
    statement = MECHANISMS[name](v).privacy
    assert statement.source == "derived"


@pytest.mark.parametrize("name", MECHANISMS)
def test_a_selection_in_place_keeps_the_runs_guarantee(per_coordinate, name):
    v = per_coordinate.sensitivity
    whole = MECHANISMS[name](v[[0, 1]])
    assert whole.privacy.source == "sampled" and whole.privacy.run == v.run
    assert np.shape(whole.release(np.array([0.0, 1.0]), random_state=RANDOM[name])) == (
        2,
    )
    tail = MECHANISMS[name](v[1:])
    with pytest.raises(ValueError, match=re.escape("value must have the shape")):
        tail.release(np.array([0.0, 1.0]), random_state=RANDOM[name])
    assert tail.release(np.array([1.0]), random_state=RANDOM[name]).shape == (1,)


@pytest.mark.parametrize("name", ["laplace", "gaussian"])
def test_a_scalar_estimate_covers_only_its_queries_output_shape(name):
    est = sample_sensitivity(
        _mean_and_sum, Normal(), N, gamma=0.05, norm="l1", random_state=0
    )
    if name == "gaussian":
        est = sample_sensitivity(
            _mean_and_sum, Normal(), N, gamma=0.05, norm="l2", random_state=0
        )
    mechanism = MECHANISMS[name](est)
    for shape in [(3,), (), (1,), (2, 1)]:
        with pytest.raises(ValueError, match="that the sensitivity 'G_\\(k\\)' covers"):
            mechanism.release(np.zeros(shape), random_state=0)
    assert mechanism.release(np.zeros(2), random_state=0).shape == (2,)
    # arithmetic that keeps the guarantee keeps the coverage too
    with pytest.raises(ValueError, match="covers"):
        MECHANISMS[name](2 * est.sensitivity + 1).release(np.zeros(3), random_state=0)


def test_the_discrete_mechanism_refuses_a_scalar_estimate_on_another_shape():
    est = sample_sensitivity(
        _mean_and_sum, Normal(), N, gamma=0.05, norm="l1", random_state=0
    )
    mechanism = DiscreteLaplaceMechanism(est, 1.0, granularity=0.01, dimension=3)
    with pytest.raises(ValueError, match="covers"):
        mechanism.release(np.zeros(3))


@pytest.mark.parametrize("name", MECHANISMS)
def test_plain_numbers_keep_their_behaviour(name):
    # a global bound the caller vouches for: any shape the mechanism accepts
    make = MECHANISMS[name]
    if name == "discrete laplace":
        mechanism = DiscreteLaplaceMechanism(1.0, 1.0, granularity=0.01, dimension=2)
        assert mechanism.release(np.zeros(2)).shape == (2,)
        return
    assert make(1.0).release(np.zeros(3), random_state=0).shape == (3,)
    assert make(np.array([1.0, 2.0])).release(np.zeros(2), random_state=0).shape == (2,)


def test_the_refused_release_draws_nothing(per_coordinate):
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(ValueError):
        LaplaceMechanism(per_coordinate.sensitivity[0], 1.0).release(
            np.zeros(2), random_state=rng
        )
    assert rng.bit_generator.state == state


def test_the_scalar_released_on_the_vector_would_have_stated_far_too_little():
    # The attack the refusal stops, computed exactly: Laplace noise of scale
    # v[0]/epsilon on the sum's coordinate, whose change reaches v[1], gives a
    # privacy loss of v[1]/v[0] * epsilon on that coordinate alone.
    est = sample_sensitivity(
        _mean_and_sum, Normal(), N, gamma=0.05, norm="coordinate", random_state=0
    )
    v = est.sensitivity.value
    actual = v[0] / v[0] + v[1] / v[0]
    assert actual > 90 and math.isfinite(actual)  # ~ n + 1 = 101: stated 1


def test_a_record_wise_estimate_covers_any_number_of_records():
    # identity: replacing one record moves one coordinate by |x - x'|, so any
    # number of records (each once: the caller's to ensure) may be released.
    est = sample_sensitivity(
        queries.identity, Normal(), 500, m=100, norm="l1", random_state=0,
        order_dependent=True,
    )
    assert est.sensitivity.coverage.records and est.sensitivity.coverage.n == 500
    mechanism = LaplaceMechanism(est, 1.0)
    assert mechanism.release(np.zeros(500), random_state=0).shape == (500,)
    assert mechanism.release(np.zeros(7), random_state=0).shape == (7,)
    assert mechanism.release(np.zeros(900), random_state=0).shape == (900,)
    with pytest.raises(ValueError, match="any number of records"):
        mechanism.release(np.zeros((500, 2)), random_state=0)
    with pytest.raises(ValueError, match="covers"):
        mechanism.release(0.0, random_state=0)
    # a query of the same output shape that is not record-wise covers its shape only
    one = sample_sensitivity(
        lambda db: np.atleast_1d(db.mean()), Normal(), 1, gamma=0.05, random_state=0
    )
    assert not one.sensitivity.coverage.records
    with pytest.raises(ValueError, match="covers"):
        LaplaceMechanism(one, 1.0).release(np.zeros(500), random_state=0)
    # per coordinate, a record-wise query's vector covers its own coordinates only
    vec = sample_sensitivity(
        queries.identity, Normal(), 1, gamma=0.05, norm="coordinate", random_state=0
    )
    assert not vec.sensitivity.coverage.records


@pytest.mark.parametrize(
    "records, n", [(True, None), (False, 3), (True, 0), (True, 2.0)]
)
def test_coverage_refuses_a_record_count_that_is_not_the_runs(records, n):
    with pytest.raises((TypeError, ValueError), match="n"):
        Coverage.whole((3,), (3,), records, n)
