import re

import numpy as np
import pytest

from sensampler.norms import (
    NORM_NAMES,
    CallableNorm,
    CoordinateSensitivityNorm,
    L1SensitivityNorm,
    L2SensitivityNorm,
    LInfSensitivityNorm,
    SensitivityNorm,
    get_norm,
)

DIFF = np.array([[3.0, -4.0], [0.0, 0.0], [-1.0, 2.0]])


def test_norm_values():
    np.testing.assert_allclose(L1SensitivityNorm()(DIFF), [7.0, 0.0, 3.0])
    np.testing.assert_allclose(L2SensitivityNorm()(DIFF), [5.0, 0.0, np.sqrt(5.0)])
    np.testing.assert_allclose(LInfSensitivityNorm()(DIFF), [4.0, 0.0, 2.0])
    np.testing.assert_allclose(CoordinateSensitivityNorm()(DIFF), np.abs(DIFF))


def test_compute_on_two_outputs():
    assert L1SensitivityNorm().compute([1.0, 2.0], [2.0, 0.0]) == 3.0


@pytest.mark.parametrize(
    "spec, cls",
    [
        ("l1", L1SensitivityNorm),
        ("L2", L2SensitivityNorm),
        ("linf", LInfSensitivityNorm),
        ("coordinate", CoordinateSensitivityNorm),
        (L2SensitivityNorm, L2SensitivityNorm),
    ],
)
def test_get_norm(spec, cls):
    assert isinstance(get_norm(spec), cls)


def test_callable_norms_row_by_row_and_batched():
    row = get_norm(lambda d: np.abs(d).sum() ** 0.5)
    np.testing.assert_allclose(row(DIFF), np.sqrt([7.0, 0.0, 3.0]))
    whole = CallableNorm(lambda d: np.abs(d).max(axis=1), batched=True)
    np.testing.assert_allclose(whole(DIFF), [4.0, 0.0, 2.0])
    with pytest.raises(ValueError, match="must return one value per pair"):
        CallableNorm(lambda d: d, batched=True)(DIFF)


def test_bad_norms():
    with pytest.raises(
        ValueError,
        match=re.escape(
            "norm must be 'l1', 'l2', 'linf', "
            "'coordinate', a SensitivityNorm or a "
            "callable, got norm='l3'."
        ),
    ):
        get_norm("l3")
    with pytest.raises(TypeError, match="norm must be"):
        get_norm(3)


def test_l2_norm_neither_overflows_nor_underflows():
    # sqrt(2) * 1e200: the squares 1e400 overflow float64, the norm does not.
    np.testing.assert_allclose(
        L2SensitivityNorm()(np.array([[1e200, 1e200], [1e-200, -1e-200]])),
        [np.sqrt(2.0) * 1e200, np.sqrt(2.0) * 1e-200],
        rtol=1e-15,
    )
    # The largest double: its scale 2**1023 stays finite.
    assert L2SensitivityNorm()(np.array([[1.7e308]]))[0] == 1.7e308


@pytest.mark.parametrize(
    "diff, error, message",
    [
        (np.array([[np.nan, 1.0]]), ValueError, "diff must be finite, got NaN or inf"),
        (np.array([[1.0], [np.inf]]), ValueError, "in row 1"),
        (np.array([["1.0"]]), TypeError, "diff must be an array of real numbers"),
        ([[1.0], [1.0, 2.0]], TypeError, "diff must be an array of numbers"),
        (np.array([1.0, 2.0]), ValueError, "diff must have 2 dimensions"),
        (np.ones((1, 1, 1)), ValueError, "got shape (1, 1, 1)"),
    ],
)
@pytest.mark.parametrize(
    "norm", [L1SensitivityNorm(), L2SensitivityNorm(), LInfSensitivityNorm()]
)
def test_norms_refuse_what_is_not_a_finite_stack(norm, diff, error, message):
    with pytest.raises(error, match=re.escape(message)):
        norm(diff)


def test_a_norm_beyond_float64_is_refused():
    # 1.7e308 + 1.7e308 = 3.4e308 > 1.797e308, the largest double.
    with pytest.raises(ValueError, match="the l1 norm of diff row 0 exceeds"):
        L1SensitivityNorm()(np.array([[1.7e308, -1.7e308]]))


def test_norms_of_empty_outputs_are_zero():
    for norm in (L1SensitivityNorm(), L2SensitivityNorm(), LInfSensitivityNorm()):
        np.testing.assert_array_equal(norm(np.zeros((2, 0))), [0.0, 0.0])


@pytest.mark.parametrize(
    "x, y, message",
    [
        ([1.0, 2.0], [1.0], "x and y must have the same size, got 2 and 1."),
        ([1e308], [-1e308], "x - y overflows float64"),
        ([np.nan], [0.0], "x must be finite"),
    ],
)
def test_compute_refuses_outputs_it_cannot_compare(x, y, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        L1SensitivityNorm().compute(x, y)


def _raises(row):
    raise ZeroDivisionError("division by zero")


@pytest.mark.parametrize(
    "func, message",
    [
        (_raises, "norm '_raises' raised ZeroDivisionError: division by zero"),
        (lambda row: -1.0, "returned -1.0 on diff row 0: a norm must be finite"),
        (lambda row: np.nan, "returned nan on diff row 0"),
        (lambda row: "1.5", "must return one value per pair (a real number)"),
        (lambda row: None, "got object values of shape (2,)"),
    ],
)
def test_callable_norms_refuse_what_is_not_a_norm(func, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        CallableNorm(func)(np.array([[3.0, -4.0], [0.0, 1.0]]))


def test_callable_norm_batched_flag_must_be_a_bool():
    with pytest.raises(TypeError, match=re.escape("batched must be True or False")):
        CallableNorm(np.sum, batched="no")


@pytest.mark.parametrize("norm", [SensitivityNorm, SensitivityNorm()])
def test_the_base_class_is_no_norm(norm):
    with pytest.raises(TypeError, match="norm SensitivityNorm defines no norm"):
        get_norm(norm)


def test_the_norm_names_are_the_built_in_norms_own():
    assert NORM_NAMES == ("l1", "l2", "linf", "coordinate")
    assert [get_norm(name).name for name in NORM_NAMES] == list(NORM_NAMES)
    with pytest.raises(ValueError) as info:
        get_norm("l7")
    assert all(repr(name) in str(info.value) for name in NORM_NAMES)
