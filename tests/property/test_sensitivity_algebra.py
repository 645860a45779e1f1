"""The algebra of sensitivity values: a standing audit of the estimate's boundary.

For any sequence of allowed operations on a sampled value (arithmetic with
constants, indexing, builtins), a result whose source is still "sampled" is at
least the run's order statistic G_(k), coordinate by coordinate in the
coordinate order its coverage records, and covers exactly the coordinates it
says (once each, in increasing order, released with its own shape); every other
result is "derived", or became a plain number with a PrivacyLeakWarning.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from sensampler.estimate import Coverage, SensitivityEstimate, SensitivityValue
from sensampler.plan import sampling_plan
from sensampler.privacy import PrivacyLeakWarning, SamplingRun

constants = st.one_of(
    st.floats(-4.0, 6.0),
    st.sampled_from([0.0, 1.0, -0.0, 1e-300, 1e300, math.inf, -math.inf, math.nan]),
)
indices = st.one_of(
    st.integers(-6, 6),
    st.builds(
        slice,
        st.none() | st.integers(-6, 6),
        st.none() | st.integers(-6, 6),
        st.none() | st.sampled_from([-2, -1, 1, 2, 3]),
    ),
    st.lists(st.integers(-6, 6), max_size=6),
    st.lists(st.booleans(), min_size=1, max_size=6).map(np.array),
    st.just(None),
)
operations = st.one_of(
    st.tuples(st.sampled_from(["*", "r*", "+", "r+", "-", "r-", "/", "r/"]), constants),
    st.tuples(
        st.sampled_from(
            ["neg", "pos", "abs", "ceil", "floor", "trunc", "round", "text", "f-string"]
        ),
        st.none(),
    ),
    st.tuples(st.just("index"), indices),
    st.tuples(st.sampled_from(["min", "max", "sorted"]), constants),
    st.tuples(st.sampled_from(["sum", "self+", "min self", "sorted self"]), st.none()),
)

BINARY = {
    "*": lambda x, c: x * c,
    "r*": lambda x, c: c * x,
    "+": lambda x, a: x + a,
    "r+": lambda x, a: a + x,
    "-": lambda x, a: x - a,
    "r-": lambda x, a: a - x,
    "/": lambda x, c: x / c,
    "r/": lambda x, c: c / x,
}
UNARY = {
    "neg": lambda x: -x,
    "pos": lambda x: +x,
    "abs": abs,
    "ceil": math.ceil,
    "floor": math.floor,
    "trunc": math.trunc,
    "round": round,
    # issue 28: text read back dropped gamma with no warning
    "text": lambda x: float(format(x, ".17g")),
    "f-string": lambda x: float(f"{x}"),
    "sum": lambda x: sum([x]),
    "self+": lambda x: x + x,
    "min self": lambda x: min(x, x * 2),
    "sorted self": lambda x: sorted([x * 3, x])[0],
}
BUILTIN = {
    "min": lambda x, a: min(x, a),
    "max": lambda x, a: max(x, a),
    "sorted": lambda x, a: sorted([x, a])[0],
}


@st.composite
def estimates(draw):
    """A run's estimate: per coordinate (output of 1 to 5 coordinates) or l1."""
    m = draw(st.integers(2, 8))
    k = draw(st.integers(1, m))
    per_coordinate = draw(st.booleans())
    shape = (m, draw(st.integers(1, 5))) if per_coordinate else (m,)
    samples = draw(
        hnp.arrays(np.float64, shape, elements=st.floats(0.0, 1e6, allow_subnormal=False))
    )
    run = SamplingRun("run", gamma=0.05, m=m, k=k)
    output_shape = None if per_coordinate else draw(st.sampled_from([(), (2,), (2, 3)]))
    norm = "coordinate" if per_coordinate else "l1"
    return SensitivityEstimate(
        samples, run, sampling_plan(m=m), norm, 10, output_shape=output_shape
    )


def _apply(value, operation):
    """``(result, warned)``; ``result`` is ``value`` unchanged for a refused step."""
    name, argument = operation
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if name in BINARY:
                result = BINARY[name](value, argument)
            elif name in BUILTIN:
                result = BUILTIN[name](value, argument)
            elif name == "index":
                result = value[argument]
            else:
                result = UNARY[name](value)
        except (TypeError, IndexError, ValueError, OverflowError):
            # indexing a scalar or out of range, a vector ordered in a bool
            # context, a vector rounded: refused, nothing returned
            return value, False
    warned = any(issubclass(w.category, PrivacyLeakWarning) for w in caught)
    return result, warned


def _check_sampled(result: SensitivityValue, estimate: SensitivityEstimate):
    g = np.asarray(estimate.sensitivity.value)
    coverage = result.coverage
    assert coverage is not None and coverage.output_shape == estimate.output_shape
    assert coverage.in_place  # each coordinate once, increasing
    value = np.asarray(result.value)
    if estimate.norm == "coordinate":  # released with its own shape
        assert coverage.shape == result.shape
        assert len(coverage.coordinates) == value.size
        bound = g.ravel()[list(coverage.coordinates)].reshape(value.shape)
        assert np.all(value >= bound)
    else:  # a scalar bounds the whole output
        assert coverage == estimate.sensitivity.coverage and value >= g
    assert result.run == estimate.run


@pytest.mark.slow
@given(estimates(), st.lists(operations, max_size=8))
def test_sampled_results_bound_their_coordinates_and_the_rest_is_derived_or_warned(
    estimate, steps
):
    value = estimate.sensitivity
    for step in steps:
        result, warned = _apply(value, step)
        if not isinstance(result, SensitivityValue):
            assert warned, (step, result)  # a plain number: never silently
            return
        if result.source == "sampled":
            _check_sampled(result, estimate)
        else:
            assert result.source == "derived"
        value = result


@pytest.mark.slow
@given(estimates(), st.lists(operations, max_size=6))
def test_a_typical_value_never_becomes_sampled(estimate, steps):
    value = estimate.mean
    for step in steps:
        value, warned = _apply(value, step)
        if not isinstance(value, SensitivityValue):
            assert warned
            return
        assert value.source in ("typical", "derived")


@pytest.mark.slow
@given(estimates(), indices)
def test_indexing_records_exactly_the_coordinates_it_selects(estimate, index):
    value = estimate.sensitivity
    if value.ndim == 0:
        return
    try:
        result = value[index]
    except IndexError:
        return
    positions = np.arange(value.value.size).reshape(value.shape)[index]
    selected = tuple(int(p) for p in np.ravel(positions))
    assert result.coverage == Coverage(
        estimate.output_shape, selected, np.shape(positions)
    )
    in_place = all(a < b for a, b in zip(selected, selected[1:]))
    keeps = in_place and np.ndim(positions) <= value.ndim
    assert result.source == ("sampled" if keeps else "derived")
