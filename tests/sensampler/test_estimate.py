import dataclasses
import math
import pickle
import re
import warnings

import numpy as np
import pytest

from sensampler import queries, sample_sensitivity
from sensampler.distributions import MultivariateNormal, Normal
from sensampler.estimate import (
    Coverage,
    SensitivityEstimate,
    SensitivityEstimates,
    SensitivityValue,
)
from sensampler.plan import sampling_plan
from sensampler.privacy import PrivacyLeakWarning, SamplingRun

RUN = SamplingRun("run-1", gamma=0.05, rho=0.01, m=4, k=4, seed=(7, ()), ordinal=3)
OTHER = SamplingRun("run-2", gamma=0.05, rho=0.01, m=4, k=4)


def _sampled(value=2.0, run=RUN):
    return SensitivityValue(value, "sampled", run, "l1", "G_(k)")


def _estimate(samples=(1.0, 4.0, 2.0, 3.0), run=RUN, **kw):
    return SensitivityEstimate(
        np.asarray(samples), run, sampling_plan(m=4), "l1", 10, **kw
    )


# --------------------------------------------------------------------- arithmetic
@pytest.mark.parametrize(
    "operation, value, label",
    [
        (lambda x: x * 3, 6.0, "G_(k) * 3"),
        (lambda x: 3 * x, 6.0, "3 * G_(k)"),
        (lambda x: x * 1, 2.0, "G_(k) * 1"),
        (lambda x: x + 0.5, 2.5, "G_(k) + 0.5"),
        (lambda x: 0.5 + x, 2.5, "0.5 + G_(k)"),
        (lambda x: x + 0, 2.0, "G_(k) + 0"),
        (lambda x: np.float64(2) * x, 4.0, "2 * G_(k)"),
        (lambda x: np.int64(1) + x, 3.0, "1 + G_(k)"),
        (lambda x: 2 * (x + 1), 6.0, "2 * (G_(k) + 1)"),
        (lambda x: +x, 2.0, "G_(k)"),
    ],
)
def test_operations_that_cannot_lower_a_sampled_value_keep_it(operation, value, label):
    out = operation(_sampled())
    assert (out.source, out.run, out.norm) == ("sampled", RUN, "l1")
    assert (out.value, out.label) == (value, label)


@pytest.mark.parametrize(
    "operation, value",
    [
        (lambda x: x * 0.5, 1.0),
        (lambda x: 0.99 * x, 1.98),
        (lambda x: x - 1, 1.0),
        (lambda x: 3 - x, 1.0),
        (lambda x: x + (-0.5), 1.5),
        (lambda x: x / 2, 1.0),
        (lambda x: 4 / x, 2.0),
        (lambda x: -x, -2.0),
        (lambda x: x * np.inf, np.inf),
        (lambda x: x * np.array([2.0]), np.array([4.0])),
        (lambda x: x + _sampled(1.0), 3.0),
        (lambda x: x * _sampled(1.0), 2.0),
        (lambda x: np.float64(0.5) * x, 1.0),
    ],
)
def test_every_other_operation_is_derived(operation, value):
    out = operation(_sampled())
    assert out.source == "derived"
    np.testing.assert_allclose(out.value, value)


def test_arithmetic_on_a_typical_value_never_becomes_a_guarantee():
    est = _estimate()
    for out in (2 * est.mean, est.mean + 0.0, est.mean + 2 * est.samples.std()):
        assert out.source == "derived" and out.run == RUN
    assert est.typical(2.0).source == "typical"


def test_two_values_keep_a_shared_run_and_lose_a_mixed_one():
    assert (_sampled() - _sampled(1.0)).run == RUN
    mixed = _sampled() + _sampled(1.0, run=OTHER)
    assert mixed.run is None and mixed.source == "derived"


def test_non_numbers_are_refused():
    with pytest.raises(TypeError):
        _sampled() + "1"
    with pytest.raises(TypeError):
        _sampled() * True
    with pytest.raises(TypeError):
        np.sqrt(_sampled())


# ------------------------------------------------------------------- plain numbers
@pytest.mark.parametrize(
    "convert",
    [float, int, np.asarray, np.float64, lambda x: np.array(x) * 1.0],
    ids=["float", "int", "asarray", "float64", "array"],
)
def test_plain_numbers_warn_at_the_caller(convert):
    with pytest.warns(PrivacyLeakWarning, match="read as a global bound") as info:
        out = convert(_sampled(2.5))
    assert float(np.asarray(out, dtype=float)) in (2.0, 2.5)
    assert info[0].filename == __file__


@pytest.mark.parametrize(
    "to_text",
    [
        lambda x: format(x, ".17g"),
        lambda x: f"{x}",
        lambda x: f"{x:.2f}",
        lambda x: "{}".format(x),  # noqa: UP032 (the str.format path)
    ],
    ids=["format", "f-string", "f-string-spec", "str.format"],
)
def test_text_of_a_value_warns_at_the_caller(to_text):
    # issue 28: float(format(v, ".17g")) and float(f"{v}") gave a plain number
    # with no warning, which a mechanism reads as a global bound.
    with pytest.warns(PrivacyLeakWarning, match="reads back .float. as a plain") as info:
        text = to_text(_sampled(2.5))
    assert float(text) == 2.5
    assert info[0].filename == __file__


def test_value_equality_and_comparisons_of_values_do_not_warn():
    x = _sampled(2.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.value == 2.5 and f"{x.value:.2f}" == "2.50"
        assert x == 2.5 and x >= _sampled(2.5) and x != 1 and not x < _sampled(1)
        assert np.float64(2.5) == x and bool(x)
        assert "source='sampled'" in repr(x) and "gamma=0.05" in repr(x)


def test_a_sampled_value_needs_its_run():
    with pytest.raises(ValueError, match=re.escape("needs its run, got run=None")):
        SensitivityValue(1.0, "sampled")
    with pytest.raises(ValueError, match="source must be one of"):
        SensitivityValue(1.0, "global")


def test_per_coordinate_values_index_and_stay_read_only():
    x = SensitivityValue([1.0, 2.0, 3.0], "sampled", RUN, "coordinate", "G_(k)")
    assert x.shape == (3,) and x.ndim == 1 and len(x) == 3
    assert x[1].value == 2.0 and x[1].source == "sampled" and x[1].run == RUN
    assert [v.value for v in x] == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="read-only"):
        x.value[0] = 0.0
    assert (2 * x).source == "sampled"
    with pytest.raises(TypeError, match="index a coordinate"):
        float(x)
    with pytest.warns(PrivacyLeakWarning):
        assert f"{x:.1f}" == "[1.0 2.0 3.0]"


# ------------------------------------------------------------------------ estimate
def test_estimate_values_and_unpacking_keep_the_run():
    est = _estimate()
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
        _estimate(samples=(1.0, 2.0))


def test_estimate_tabular_export():
    est = _estimate(samples=np.arange(8.0).reshape(4, 2), part="mean")
    rows = est.to_records()
    assert [r["coordinate"] for r in rows] == [0, 1]
    assert [r["sensitivity"] for r in rows] == [6.0, 7.0]
    assert rows[0]["part"] == "mean" and rows[0]["run_id"] == "run-1"
    assert est.to_dict()["seed"] == [7, []]
    pd = pytest.importorskip("pandas")
    frame = est.to_pandas()
    assert isinstance(frame, pd.DataFrame) and list(frame["mean"]) == [3.0, 4.0]


def test_estimate_and_values_pickle():
    est = _estimate(samples=np.arange(8.0).reshape(4, 2))
    clone = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(clone.samples, est.samples)
    assert clone.run == est.run and clone.sensitivity.source == "sampled"
    assert not clone.samples.flags.writeable
    assert not clone.sensitivity.value.flags.writeable
    value = pickle.loads(pickle.dumps(est.mean))
    assert value.source == "typical" and value.run == RUN
    assert not value.value.flags.writeable


def test_summary_states_what_the_plan_means():
    text = _estimate().summary()
    # The plan's own meaning, in words (PAC for "exact"), and no rho for
    # "exchangeable", whose statement is averaged over the sampler.
    assert "exact: PAC statement about the realised estimate" in " ".join(text.split())
    assert "Choosing among several runs" in text
    assert "#3 of this process, seed SeedSequence(7)" in text
    assert "no random-DP guarantee" in text


def test_summary_of_an_exchangeable_run_states_its_own_meaning():
    est = sample_sensitivity(
        queries.mean, Normal(), 20, gamma=0.05, bound="exchangeable", random_state=0
    )
    text = " ".join(est.summary().split())
    assert "exchangeable: Joint statement over the sampler and the pair" in text
    assert "rho=" not in text


# ------------------------------------------------------------------- several parts
def _several():
    first = _estimate(part="mean")
    second = _estimate(samples=(5.0, 6.0, 7.0, 8.0), part="max")
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
        SensitivityEstimates((_estimate(), _estimate(run=OTHER)))


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


# ------------------------------------------------------------------- coverage
def _vector(values=(1.0, 2.0, 3.0), run=RUN):
    samples = np.tile(np.asarray(values), (4, 1))
    return SensitivityEstimate(samples, run, sampling_plan(m=4), "coordinate", 10)


def test_an_estimate_covers_its_whole_output():
    vec = _vector().sensitivity
    assert vec.coverage == Coverage((3,), (0, 1, 2), (3,))
    scalar = _estimate(output_shape=(2,)).sensitivity
    assert scalar.coverage == Coverage((2,), (0, 1), (2,))
    assert _estimate().sensitivity.coverage is None  # shape not recorded
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
    x = _vector().sensitivity[index]
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
    x = _vector().sensitivity[index]
    assert x.source == "derived"
    # and stays so, even when put back in order
    if x.ndim == 1 and len(x) > 1:
        assert x[[0]].source == "derived"


def test_selections_of_selections_keep_the_original_coordinates():
    x = _vector((1.0, 2.0, 3.0, 4.0, 5.0)).sensitivity
    y = x[1:][[0, 2]]
    assert y.source == "sampled" and y.coverage.coordinates == (1, 3)
    assert y[1].coverage == Coverage((5,), (3,), ())
    # iteration yields each coordinate in place
    assert [v.coverage.coordinates for v in x[::2]] == [(0,), (2,), (4,)]


def test_arithmetic_keeps_the_coverage_and_broadcasting_drops_the_guarantee():
    x = _vector().sensitivity
    assert (2 * x + 1).coverage == x.coverage and (2 * x + 1).source == "sampled"
    assert (x[0] + np.zeros(3)).source == "derived"
    assert (x[0] + np.zeros(3)).coverage.shape == (3,)  # its own shape only
    assert (x * np.array([2.0, 2.0, 2.0])).source == "derived"


def test_coverage_survives_pickling_copying_and_to_dict():
    import copy

    est = _vector()
    x = est.sensitivity[[0, 2]]
    for clone in (pickle.loads(pickle.dumps(x)), copy.copy(x), copy.deepcopy(x)):
        assert (clone.source, clone.coverage, clone.run) == (
            "sampled",
            x.coverage,
            RUN,
        )
        assert not clone.value.flags.writeable
    again = pickle.loads(pickle.dumps(_estimate(output_shape=(2,))))
    assert again.sensitivity.coverage == Coverage((2,), (0, 1), (2,))
    assert _estimate(output_shape=(2,)).to_dict()["output_shape"] == [2]
    assert _estimate().to_dict()["order_dependent"] is False


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


# ------------------------------------------------------ builtins (module table)
def test_min_max_and_sorted_against_a_plain_number_warn():
    # issue path 6: these returned plain floats silently, stated as pure DP
    x = _sampled(2.0)
    for call, expected in [
        (lambda: max(x, 10.0), 10.0),
        (lambda: min(x, 0.01), 0.01),
        (lambda: max(10.0, x), 10.0),
        (lambda: min(np.float64(0.01), x), 0.01),
        (lambda: sorted([x, 1.0])[0], 1.0),
        (lambda: x < 3, True),
        (lambda: x >= 3, False),
        (lambda: 3 > x, True),
    ]:
        with pytest.warns(PrivacyLeakWarning, match="ordered against a plain number") as info:
            assert call() == expected
        assert info[0].filename == __file__


def test_min_max_and_sorted_of_values_keep_each_values_provenance():
    x, y = _sampled(2.0), _sampled(3.0, OTHER)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert max(x, y) is y and min(x, y) is x
        assert sorted([y, x]) == [x, y] and sorted([y, x])[0] is x


@pytest.mark.parametrize(
    "operation, value, source",
    [
        (abs, 2.5, "sampled"),
        (math.ceil, 3.0, "sampled"),
        (math.floor, 2.0, "derived"),
        (math.trunc, 2.0, "derived"),
        (round, 2.0, "derived"),
        (lambda x: round(x, 1), 2.5, "derived"),
        (lambda x: sum([x]), 2.5, "sampled"),
        (lambda x: sum([x, x]), 5.0, "derived"),
        (lambda x: +x, 2.5, "sampled"),
    ],
    ids=["abs", "ceil", "floor", "trunc", "round", "round1", "sum1", "sum2", "pos"],
)
def test_builtins_that_return_a_value_say_whether_it_is_still_a_bound(
    operation, value, source
):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = operation(_sampled(2.5))
    assert isinstance(out, SensitivityValue)
    assert (out.value, out.source) == (value, source)


@pytest.mark.parametrize(
    "convert",
    [math.sqrt, math.exp, math.log1p, float, int, np.asarray, np.array],
    ids=lambda f: f.__name__,
)
def test_math_functions_give_a_plain_number_and_warn(convert):
    with pytest.warns(PrivacyLeakWarning, match="read as a global bound"):
        convert(_sampled(2.5))


@pytest.mark.parametrize(
    "ufunc",
    [np.sqrt, np.ceil, lambda x: np.maximum(x, 1.0), lambda x: np.add(x, 1.0)],
    ids=["sqrt", "ceil", "maximum", "add"],
)
def test_numpy_ufuncs_refuse_a_value(ufunc):
    with pytest.raises(TypeError):
        ufunc(_sampled(2.5))


def test_exports_are_plain_numbers_that_carry_the_run():
    est = _estimate(output_shape=())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        row = est.to_records()[0]
        out = est.to_dict()
    assert row["sensitivity"] == 4.0 and row["gamma"] == 0.05
    assert row["run_id"] == "run-1" and out["run_id"] == "run-1"


# ------------------------------------------- sampled values and their run's G_(k)
def test_a_sampled_value_below_its_runs_order_statistic_is_refused():
    est = sample_sensitivity(lambda db: db.mean(), Normal(), 100, m=200, random_state=0)
    x = est.sensitivity
    assert est.run.released == (x.value,)
    with pytest.raises(ValueError, match="at least the order statistic"):
        dataclasses.replace(x, value=x.value / 1000)
    with pytest.raises(ValueError, match="at least the order statistic"):
        SensitivityValue(0.001, "sampled", est.run)
    assert (2 * x + 1).source == "sampled"  # larger values keep the guarantee
    assert dataclasses.replace(x, source="derived", value=0.0).source == "derived"


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
