"""Coverage: what a value bounds, through indexing, arithmetic and copies."""

import pickle

import numpy as np
import pytest

from sensampler import sample_sensitivity
from sensampler.distributions import Normal
from sensampler.estimate import (
    Coverage,
    SensitivityEstimate,
    SensitivityValue,
)
from sensampler.plan import sampling_plan
from tests.sensampler.estimate.records import (
    RUN,
    estimate_of,
    vector_estimate,
)


# ------------------------------------------------------------------- coverage
def test_an_estimate_covers_its_whole_output():
    vec = vector_estimate().sensitivity
    assert vec.coverage == Coverage((3,), (0, 1, 2), (3,))
    scalar = estimate_of(output_shape=(2,)).sensitivity
    assert scalar.coverage == Coverage((2,), (0, 1), (2,))
    assert estimate_of().sensitivity.coverage is None  # shape not recorded
    est = sample_sensitivity(
        lambda db: (db.mean(), np.array([db.min(), db.max()])), Normal(), 10, m=20
    )
    assert est[0].sensitivity.coverage == Coverage((), (0,), ())
    assert est[1].sensitivity.coverage == Coverage((2,), (0, 1), (2,), offset=1)


@pytest.mark.parametrize(
    "index, coordinates, shape",
    [
        (0, (0,), ()),
        (2, (2,), ()),
        (-1, (2,), ()),
        (slice(1, None), (1, 2), (2,)),
        (slice(None, None, 2), (0, 2), (2,)),
        ([0, 2], (0, 2), (2,)),
        (np.array([True, False, True]), (0, 2), (2,)),
        (Ellipsis, (0, 1, 2), (3,)),
    ],
    ids=repr,
)
def test_a_selection_in_place_stays_sampled_and_records_its_coordinates(
    index, coordinates, shape
):
    x = vector_estimate().sensitivity[index]
    assert x.source == "sampled" and x.run == RUN
    assert x.coverage == Coverage((3,), coordinates, shape)
    np.testing.assert_array_equal(x.value, np.array([1.0, 2.0, 3.0])[index])


@pytest.mark.parametrize(
    "index",
    [
        slice(None, None, -1),  # issue path 5: v[::-1]
        [1, 0],
        [0, 0],
        [2, 0, 1],
        np.array([1, 1, 2]),
        None,  # a new axis
        (None, slice(None)),
    ],
    ids=repr,
)
def test_a_permutation_repetition_or_new_axis_is_derived(index):
    x = vector_estimate().sensitivity[index]
    assert x.source == "derived"
    # and stays so, even when put back in order
    if x.ndim == 1 and len(x) > 1:
        assert x[[0]].source == "derived"


def test_selections_of_selections_keep_the_original_coordinates():
    x = vector_estimate((1.0, 2.0, 3.0, 4.0, 5.0)).sensitivity
    y = x[1:][[0, 2]]
    assert y.source == "sampled" and y.coverage.coordinates == (1, 3)
    assert y[1].coverage == Coverage((5,), (3,), ())
    # iteration yields each coordinate in place
    assert [v.coverage.coordinates for v in x[::2]] == [(0,), (2,), (4,)]


def test_arithmetic_keeps_the_coverage_and_broadcasting_drops_the_guarantee():
    x = vector_estimate().sensitivity
    assert (2 * x + 1).coverage == x.coverage and (2 * x + 1).source == "sampled"
    assert (x[0] + np.zeros(3)).source == "derived"
    assert (x[0] + np.zeros(3)).coverage.shape == (3,)  # its own shape only
    assert (x * np.array([2.0, 2.0, 2.0])).source == "derived"


def test_coverage_survives_pickling_copying_and_to_dict():
    import copy

    est = vector_estimate()
    x = est.sensitivity[[0, 2]]
    for clone in (pickle.loads(pickle.dumps(x)), copy.copy(x), copy.deepcopy(x)):
        assert (clone.source, clone.coverage, clone.run) == (
            "sampled",
            x.coverage,
            RUN,
        )
        assert not clone.value.flags.writeable
    again = pickle.loads(pickle.dumps(estimate_of(output_shape=(2,))))
    assert again.sensitivity.coverage == Coverage((2,), (0, 1), (2,))
    assert estimate_of(output_shape=(2,)).to_dict()["output_shape"] == [2]
    assert estimate_of().to_dict()["order_dependent"] is False


def test_a_coverage_that_does_not_fit_the_value_is_refused():
    with pytest.raises(ValueError, match="coverage must match the value"):
        SensitivityValue([1.0, 2.0], "sampled", RUN, "coordinate", "v", Coverage((3,), (0,), ()))
    with pytest.raises(ValueError, match="coordinates must be flat indices"):
        Coverage((2,), (0, 2), (2,))
    with pytest.raises(TypeError, match="coverage must be a Coverage"):
        SensitivityValue(1.0, "sampled", RUN, "l1", "v", ((2,), (0,), ()))
    with pytest.raises(ValueError, match="output_shape must be"):
        SensitivityEstimate(
            np.ones((4, 2)), RUN, sampling_plan(m=4), "coordinate", 10, output_shape=(3,)
        )
