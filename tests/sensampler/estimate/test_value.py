"""SensitivityValue: arithmetic, plain numbers, builtins, its run's G_(k)."""

import dataclasses
import math
import re
import warnings

import numpy as np
import pytest

from sensampler import sample_sensitivity
from sensampler.distributions import Normal
from sensampler.estimate import (
    SensitivityValue,
)
from sensampler.privacy import PrivacyLeakWarning
from tests.sensampler.estimate.records import (
    OTHER,
    RUN,
    estimate_of,
    sampled_value,
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
    out = operation(sampled_value())
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
        (lambda x: x + sampled_value(1.0), 3.0),
        (lambda x: x * sampled_value(1.0), 2.0),
        (lambda x: np.float64(0.5) * x, 1.0),
    ],
)
def test_every_other_operation_is_derived(operation, value):
    out = operation(sampled_value())
    assert out.source == "derived"
    np.testing.assert_allclose(out.value, value)


def test_arithmetic_on_a_typical_value_never_becomes_a_guarantee():
    est = estimate_of()
    for out in (2 * est.mean, est.mean + 0.0, est.mean + 2 * est.samples.std()):
        assert out.source == "derived" and out.run == RUN
    assert est.typical(2.0).source == "typical"


def test_two_values_keep_a_shared_run_and_lose_a_mixed_one():
    assert (sampled_value() - sampled_value(1.0)).run == RUN
    mixed = sampled_value() + sampled_value(1.0, run=OTHER)
    assert mixed.run is None and mixed.source == "derived"


def test_non_numbers_are_refused():
    with pytest.raises(TypeError):
        sampled_value() + "1"
    with pytest.raises(TypeError):
        sampled_value() * True
    with pytest.raises(TypeError):
        np.sqrt(sampled_value())


# ------------------------------------------------------------------- plain numbers
@pytest.mark.parametrize(
    "convert",
    [float, int, np.asarray, np.float64, lambda x: np.array(x) * 1.0],
    ids=["float", "int", "asarray", "float64", "array"],
)
def test_plain_numbers_warn_at_the_caller(convert):
    with pytest.warns(PrivacyLeakWarning, match="read as a global bound") as info:
        out = convert(sampled_value(2.5))
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
        text = to_text(sampled_value(2.5))
    assert float(text) == 2.5
    assert info[0].filename == __file__


def test_value_equality_and_comparisons_of_values_do_not_warn():
    x = sampled_value(2.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.value == 2.5 and f"{x.value:.2f}" == "2.50"
        assert x == 2.5 and x >= sampled_value(2.5) and x != 1 and not x < sampled_value(1)
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


# ------------------------------------------------------ builtins (module table)
def test_min_max_and_sorted_against_a_plain_number_warn():
    # issue path 6: these returned plain floats silently, stated as pure DP
    x = sampled_value(2.0)
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
    x, y = sampled_value(2.0), sampled_value(3.0, OTHER)
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
        out = operation(sampled_value(2.5))
    assert isinstance(out, SensitivityValue)
    assert (out.value, out.source) == (value, source)


@pytest.mark.parametrize(
    "convert",
    [math.sqrt, math.exp, math.log1p, float, int, np.asarray, np.array],
    ids=lambda f: f.__name__,
)
def test_math_functions_give_a_plain_number_and_warn(convert):
    with pytest.warns(PrivacyLeakWarning, match="read as a global bound"):
        convert(sampled_value(2.5))


@pytest.mark.parametrize(
    "ufunc",
    [np.sqrt, np.ceil, lambda x: np.maximum(x, 1.0), lambda x: np.add(x, 1.0)],
    ids=["sqrt", "ceil", "maximum", "add"],
)
def test_numpy_ufuncs_refuse_a_value(ufunc):
    with pytest.raises(TypeError):
        ufunc(sampled_value(2.5))


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
