"""SensitivityEstimate: its values, exports, summary and run."""

import dataclasses
import pickle
import re
import warnings

import numpy as np
import pytest

from sensampler import queries, sample_sensitivity
from sensampler.distributions import Normal
from tests.sensampler.estimate.records import (
    RUN,
    estimate_of,
)


# ------------------------------------------------------------------------ estimate
def test_estimate_values_and_unpacking_keep_the_run():
    est = estimate_of()
    sensitivity, mean = est
    assert sensitivity.source == "sampled" and sensitivity.value == 4.0
    assert mean.source == "typical" and mean.value == 2.5
    assert sensitivity.run is est.run and mean.run is est.run
    assert (est.gamma, est.rho, est.run_id, est.seed, est.ordinal) == (
        0.05,
        0.01,
        "run-1",
        (7, ()),
        3,
    )
    # mean + 2 sd: the source documents' offset, with no guarantee
    assert est.typical(2).value == pytest.approx(2.5 + 2 * np.std([1, 4, 2, 3]))
    assert est.typical(2).label == "mean + 2 sd"
    assert est.quantile(0.5).source == "typical"
    with pytest.raises(ValueError, match="read-only"):
        est.samples[0] = 0.0


def test_estimate_refuses_samples_that_do_not_match_the_run():
    with pytest.raises(ValueError, match=re.escape("one sensitivity per pair (m=4)")):
        estimate_of(samples=(1.0, 2.0))


def test_estimate_tabular_export():
    est = estimate_of(samples=np.arange(8.0).reshape(4, 2), part="mean")
    rows = est.to_records()
    assert [r["coordinate"] for r in rows] == [0, 1]
    assert [r["sensitivity"] for r in rows] == [6.0, 7.0]
    assert rows[0]["part"] == "mean" and rows[0]["run_id"] == "run-1"
    assert est.to_dict()["seed"] == [7, []]
    pd = pytest.importorskip("pandas")
    frame = est.to_pandas()
    assert isinstance(frame, pd.DataFrame) and list(frame["mean"]) == [3.0, 4.0]


def test_estimate_and_values_pickle():
    est = estimate_of(samples=np.arange(8.0).reshape(4, 2))
    clone = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(clone.samples, est.samples)
    assert clone.run == est.run and clone.sensitivity.source == "sampled"
    assert not clone.samples.flags.writeable
    assert not clone.sensitivity.value.flags.writeable
    value = pickle.loads(pickle.dumps(est.mean))
    assert value.source == "typical" and value.run == RUN
    assert not value.value.flags.writeable


def test_summary_states_what_the_plan_means():
    text = estimate_of().summary()
    # The plan's own meaning, in words (PAC for "exact"), and no rho for
    # "exchangeable", whose statement is averaged over the sampler.
    assert "exact: PAC statement about the realised estimate" in " ".join(text.split())
    assert "Choosing among several runs" in text
    assert "#3 of this process, seed SeedSequence(7)" in text
    assert "no random-DP guarantee" in text


def test_summary_of_an_exchangeable_run_states_its_own_meaning():
    est = sample_sensitivity(
        queries.mean, Normal(), 20, gamma=0.05, inequality="exchangeable", random_state=0
    )
    text = " ".join(est.summary().split())
    assert "exchangeable: Joint statement over the sampler and the pair" in text
    assert "rho=" not in text


def test_exports_are_plain_numbers_that_carry_the_run():
    est = estimate_of(output_shape=())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        row = est.to_records()[0]
        out = est.to_dict()
    assert row["sensitivity"] == 4.0 and row["gamma"] == 0.05
    assert row["run_id"] == "run-1" and out["run_id"] == "run-1"


def test_an_estimate_from_other_samples_than_its_runs_is_refused():
    est = sample_sensitivity(lambda db: db.mean(), Normal(), 100, m=200, random_state=0)
    with pytest.raises(ValueError, match="not the order statistic"):
        dataclasses.replace(est, samples=np.zeros(200))
    assert dataclasses.replace(est).sensitivity.value == est.sensitivity.value


def test_each_part_and_coordinate_is_checked_against_its_own_order_statistic():
    est = sample_sensitivity(
        lambda db: (db.mean(), np.array([db.sum(), db.max()])), Normal(), 50, m=200,
        norm="coordinate", random_state=0,
    )
    first, second = est[0].sensitivity, est[1].sensitivity
    assert est.run.released == (first.value, *second.value)
    # the mean's G_(k) is far below the sum's: a sum coordinate at the mean's is refused
    low = np.array([first.value, second.value[1]])
    with pytest.raises(ValueError, match="at least the order statistic"):
        dataclasses.replace(second, value=low)
    with pytest.raises(ValueError, match="at least the order statistic"):
        dataclasses.replace(second[0], value=first.value)
    assert second[1].value == second.value[1]
