"""SensitivityEstimates: the parts of one run."""

import pickle

import numpy as np
import pytest

from sensampler import queries, sample_sensitivity
from sensampler.distributions import MultivariateNormal, Normal
from sensampler.estimate import (
    SensitivityEstimates,
)
from tests.sensampler.estimate.records import (
    OTHER,
    RUN,
    estimate_of,
)


# ------------------------------------------------------------------- several parts
def _several():
    first = estimate_of(part="mean")
    second = estimate_of(samples=(5.0, 6.0, 7.0, 8.0), part="max")
    return SensitivityEstimates((first, second), ("mean", "max"))


def test_several_parts_index_by_position_or_key():
    result = _several()
    assert result["max"] is result[1] and result[0].part == "mean"
    assert result.run == RUN and result.gamma == 0.05 and len(result) == 2
    assert [k for k, _ in result.items()] == ["mean", "max"]
    assert [r["part"] for r in result.to_records()] == ["mean", "max"]
    with pytest.raises(KeyError, match="one of"):
        result["median"]
    clone = pickle.loads(pickle.dumps(result))
    assert clone.run == RUN and clone.keys == ("mean", "max")


def test_several_parts_refuse_unpacking():
    result = _several()
    with pytest.raises(TypeError, match="index a part"):
        sensitivity, mean = result
    with pytest.raises(TypeError, match="index a part"):
        list(result)


def test_several_parts_must_share_their_run():
    with pytest.raises(ValueError, match="share their sampling run"):
        SensitivityEstimates((estimate_of(), estimate_of(run=OTHER)))


def test_sampled_estimates_carry_their_run_everywhere():
    est = sample_sensitivity(
        queries.mean,
        MultivariateNormal([0, 0], np.eye(2)),
        10,
        m=100,
        norm="coordinate",
        random_state=0,
    )
    sensitivity, mean = est
    assert sensitivity.run is est.run and sensitivity[1].run is est.run
    assert est.run.m == 100 and est.run.seed == (0, ())
    tuple_out = sample_sensitivity(
        lambda db: (db.mean(), db.max()), Normal(), 10, m=50, random_state=0
    )
    assert isinstance(tuple_out, SensitivityEstimates)
    assert tuple_out[0].run is tuple_out[1].run
