"""The contract every public entry point keeps on any input, and hostile inputs.

A call either works and returns finite, correctly typed values, or raises
``ValueError``/``TypeError`` whose message names one of the parameters; never
another exception type, a silent NaN or inf.
"""

from decimal import Decimal
from fractions import Fraction
from numbers import Real

import numpy as np
from hypothesis import strategies as st

#: Numbers a user may pass, from the reasonable to the hostile.
reals = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=-1e3, max_value=1e3),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from(
        [0, 1, 2, -1, 0.5, 1e-320, 5e-324, 1e308, -0.0, 2**63, np.float32(0.5)]
    ),
)
#: Values of the wrong kind.
junk = st.sampled_from(
    [None, True, "0.5", "x", b"1", [0.5], (), {}, Fraction(1, 3), Decimal("0.1")]
)
anything = st.one_of(reals, junk)
#: Sensible numbers: positive, moderate.
positive = st.floats(min_value=1e-3, max_value=1e3)
probability = st.floats(min_value=1e-9, max_value=1 - 1e-9)


def refused_or_result(call, *names):
    """``call()``'s result, or None when it raised ValueError/TypeError naming one of
    ``names``; any other exception propagates and fails the test."""
    try:
        return call()
    except (ValueError, TypeError) as exc:
        message = str(exc)
        assert any(name in message for name in names), (
            f"the message names none of {names}: {message!r}"
        )
        return None


def assert_finite(value):
    """Every number in ``value`` (nested in tuples, lists, dicts, arrays) is finite."""
    if isinstance(value, dict):
        for item in value.values():
            assert_finite(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            assert_finite(item)
    elif isinstance(value, np.ndarray):
        if value.dtype.kind in "fc":
            assert np.all(np.isfinite(value)), value
    elif isinstance(value, Real) and not isinstance(value, bool):
        assert np.isfinite(float(value)), value
