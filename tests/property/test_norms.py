"""Every norm: on any stack of differences it refuses by name or returns finite,
non-negative sensitivities of the stated shape; the L2 norm neither overflows nor
underflows where its value is a float64."""

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from sensampler import norms
from tests.property._contract import anything, junk, refused_or_result

BUILT_IN = [
    norms.L1SensitivityNorm,
    norms.L2SensitivityNorm,
    norms.LInfSensitivityNorm,
    norms.CoordinateSensitivityNorm,
]
#: Hostile entries: NaN, inf, values whose squares overflow or underflow.
entries = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e200, -1e200, 1e-200, 5e-324, 1.7e308, -1.7e308, 0.0]),
)
arrays = st.one_of(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=0, max_dims=3, min_side=0),
        elements=entries,
    ),
    st.lists(st.lists(entries, max_size=3), max_size=3),  # ragged as often as not
    st.lists(st.one_of(entries, junk), max_size=3),
    junk,
)


def _exact_norm(norm, row):
    """The norm of one row of floats, with Python's correctly rounded hypot/fsum."""
    if isinstance(norm, norms.L1SensitivityNorm):
        return math.fsum(abs(v) for v in row)
    if isinstance(norm, norms.L2SensitivityNorm):
        return math.hypot(*row)
    return max((abs(v) for v in row), default=0.0)


@pytest.mark.slow
@example(norms.L2SensitivityNorm, np.array([[1e200, 1e200]]))
@example(norms.L2SensitivityNorm, np.array([[1e-200, 1e-200]]))
@example(norms.L1SensitivityNorm, np.array([[1.7e308, 1.7e308]]))
@example(norms.LInfSensitivityNorm, np.zeros((2, 0)))
@example(norms.L1SensitivityNorm, [[1.0], [1.0, 2.0]])
@example(norms.L1SensitivityNorm, np.array([["1.0"]]))
@given(st.sampled_from(BUILT_IN), arrays)
def test_built_in_norms(cls, diff):
    norm = cls()
    out = refused_or_result(lambda: norm(diff), "diff")
    if out is None:
        return
    rows = np.asarray(diff, dtype=float)
    assert isinstance(out, np.ndarray) and out.dtype == np.float64
    expected_shape = rows.shape if norm.per_coordinate else rows.shape[:1]
    assert out.shape == expected_shape
    assert np.all(np.isfinite(out)) and np.all(out >= 0)
    if not norm.per_coordinate:
        for value, row in zip(out, rows):
            assert math.isclose(value, _exact_norm(norm, row), rel_tol=1e-12)


@pytest.mark.slow
@example(norms.L2SensitivityNorm, [1e200], [-1e200])
@example(norms.L1SensitivityNorm, [1.0, 2.0], [1.0])
@given(st.sampled_from(BUILT_IN), arrays, arrays)
def test_compute(cls, x, y):
    out = refused_or_result(lambda: cls().compute(x, y), "x", "y")
    if out is not None:
        assert np.all(np.isfinite(out)) and np.all(np.asarray(out) >= 0)


def _user_norms():
    """User norms returning what a user's function may return."""
    outputs = [
        float("nan"),
        float("inf"),
        -1.0,
        "1.5",
        [1.0, 2.0],
        None,
        2.0,
    ]
    funcs = [lambda row, v=v: v for v in outputs]

    def raises(row):
        raise ZeroDivisionError("division by zero")

    return st.sampled_from([*funcs, raises, lambda row: np.abs(row).sum()])


@example(lambda row: 1 / 0, False)
@given(_user_norms(), st.booleans())
def test_callable_norm(func, batched):
    diff = np.array([[3.0, -4.0], [0.0, 1.0]])
    norm = refused_or_result(lambda: norms.CallableNorm(func, batched=batched), "norm")
    if norm is None:
        return
    out = refused_or_result(lambda: norm(diff), "norm", "diff")
    if out is not None:
        assert out.shape == (2,) and np.all(np.isfinite(out)) and np.all(out >= 0)


names = st.one_of(
    st.sampled_from(["l1", "L2", "linf", "inf", "max", "coordinate", "l7", "", "L1 "]),
    st.text(max_size=5),
    anything,
)


@example("l1\x00")
@example(norms.SensitivityNorm)
@example(norms.SensitivityNorm())
@given(names)
def test_get_norm(name):
    norm = refused_or_result(lambda: norms.get_norm(name), "norm")
    if norm is not None:
        assert isinstance(norm, norms.SensitivityNorm)
        out = norm(np.array([[3.0, -4.0]]))
        assert np.all(np.isfinite(out))
